package main

import (
	"context"
	"fmt"

	"github.com/vmware/govmomi/event"
	"github.com/vmware/govmomi/license"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/performance"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25/methods"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

func flows() []flow {
	return append(append(inventoryFlows(), vmFlows()...), managerFlows()...)
}

func managerFlows() []flow {
	return []flow{
		{"metric.ls", func(ctx context.Context, e *env) (string, error) {
			m := performance.NewManager(e.c.Client)
			summary, err := m.ProviderSummary(ctx, e.vm.Reference())
			if err != nil {
				return "", err
			}
			metrics, err := m.AvailableMetric(ctx, e.vm.Reference(), summary.RefreshRate)
			if err != nil {
				return "", err
			}
			counters, err := m.CounterInfoByKey(ctx)
			if err != nil {
				return "", err
			}
			named := 0
			for _, mt := range metrics {
				if counters[mt.CounterId] != nil {
					named++
				}
			}
			if named == 0 {
				return "", fmt.Errorf("%d metrics, none with a counter", len(metrics))
			}
			return fmt.Sprintf("%d metrics, %d named", len(metrics), named), nil
		}},
		{"metric.sample", func(ctx context.Context, e *env) (string, error) {
			m := performance.NewManager(e.c.Client)
			summary, err := m.ProviderSummary(ctx, e.vm.Reference())
			if err != nil {
				return "", err
			}
			spec := types.PerfQuerySpec{MaxSample: 6, IntervalId: summary.RefreshRate}
			sample, err := m.SampleByName(ctx, spec, []string{"cpu.usage.average"}, []types.ManagedObjectReference{e.vm.Reference()})
			if err != nil {
				return "", err
			}
			series, err := m.ToMetricSeries(ctx, sample)
			if err != nil {
				return "", err
			}
			if len(series) == 0 || len(series[0].Value) == 0 {
				return "", fmt.Errorf("no samples")
			}
			return fmt.Sprintf("%d samples of %s", len(series[0].Value[0].Value), series[0].Value[0].Name), nil
		}},
		{"events", func(ctx context.Context, e *env) (string, error) { return events(ctx, e) }},
		{"events -type VmPoweredOnEvent", func(ctx context.Context, e *env) (string, error) { return events(ctx, e, "VmPoweredOnEvent") }},
		{"tasks", func(ctx context.Context, e *env) (string, error) {
			tv, err := view.NewManager(e.c.Client).CreateTaskView(ctx, e.c.ServiceContent.TaskManager)
			if err != nil {
				return "", err
			}
			defer func() { _ = tv.Destroy(ctx) }()
			n := 0
			err = tv.Collect(ctx, func(infos []types.TaskInfo) {
				for _, i := range infos {
					if i.DescriptionId != "" || i.Name != "" {
						n++
					}
				}
			})
			if err != nil {
				return "", err
			}
			if n == 0 {
				return "", fmt.Errorf("no recent tasks reported")
			}
			return fmt.Sprintf("%d tasks", n), nil
		}},
		{"object.collect", func(ctx context.Context, e *env) (string, error) {
			// govc object.collect: a ListView of the objects, every property, one RetrieveProperties.
			lv, err := view.NewManager(e.c.Client).CreateListView(ctx, []types.ManagedObjectReference{e.vm.Reference(), e.dc.Reference()})
			if err != nil {
				return "", err
			}
			defer func() { _ = lv.Destroy(ctx) }()
			req := types.RetrieveProperties{This: e.pc.Reference(), SpecSet: []types.PropertyFilterSpec{{
				ObjectSet: []types.ObjectSpec{{Obj: lv.Reference(), Skip: types.NewBool(true), SelectSet: []types.BaseSelectionSpec{lv.TraversalSpec()}}},
				PropSet:   []types.PropertySpec{{Type: "VirtualMachine", All: types.NewBool(true)}, {Type: "Datacenter", All: types.NewBool(true)}},
			}}}
			res, err := methods.RetrieveProperties(ctx, e.c.Client, &req)
			if err != nil {
				return "", err
			}
			props := 0
			for _, oc := range res.Returnval {
				props += len(oc.PropSet)
			}
			if len(res.Returnval) != 2 {
				return "", fmt.Errorf("%d objects through the list view, want 2", len(res.Returnval))
			}
			return fmt.Sprintf("%d objects, %d properties", len(res.Returnval), props), nil
		}},
		{"object.collect -n 1", func(ctx context.Context, e *env) (string, error) {
			changes := 0
			err := property.Wait(ctx, e.pc, e.vm.Reference(), []string{"name", "runtime.powerState"}, func(pc []types.PropertyChange) bool {
				changes += len(pc)
				return true
			})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%d changes in the first update", changes), nil
		}},
		{"role.ls", func(ctx context.Context, e *env) (string, error) {
			roles, err := object.NewAuthorizationManager(e.c.Client).RoleList(ctx)
			if err != nil {
				return "", err
			}
			if roles.ByName("Admin") == nil {
				return "", fmt.Errorf("%d roles, no Admin", len(roles))
			}
			return fmt.Sprintf("%d roles", len(roles)), nil
		}},
		{"license.ls", func(ctx context.Context, e *env) (string, error) {
			ls, err := license.NewManager(e.c.Client).List(ctx)
			if err != nil {
				return "", err
			}
			if len(ls) == 0 {
				return "", fmt.Errorf("no licenses")
			}
			return fmt.Sprintf("%d licenses, %s", len(ls), ls[0].Name), nil
		}},
		{"session.ls", func(ctx context.Context, e *env) (string, error) {
			var sm mo.SessionManager
			if err := e.pc.RetrieveOne(ctx, *e.c.ServiceContent.SessionManager, []string{"sessionList", "currentSession"}, &sm); err != nil {
				return "", err
			}
			if len(sm.SessionList) == 0 || sm.CurrentSession == nil {
				return "", fmt.Errorf("no sessions listed")
			}
			return fmt.Sprintf("%d sessions, current %s", len(sm.SessionList), sm.CurrentSession.UserName), nil
		}},
		{"field.ls", func(ctx context.Context, e *env) (string, error) {
			m, err := object.GetCustomFieldsManager(e.c.Client)
			if err != nil {
				return "", err
			}
			fields, err := m.Field(ctx)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%d fields", len(fields)), nil
		}},
		{"extension.ls", func(ctx context.Context, e *env) (string, error) {
			m := object.NewExtensionManager(e.c.Client)
			if m == nil {
				return "", fmt.Errorf("no extension manager")
			}
			list, err := m.List(ctx)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%d extensions", len(list)), nil
		}},
		{"permissions.ls", func(ctx context.Context, e *env) (string, error) {
			m := object.NewAuthorizationManager(e.c.Client)
			perms, err := m.RetrieveEntityPermissions(ctx, e.c.ServiceContent.RootFolder, true)
			if err != nil {
				return "", err
			}
			if len(perms) == 0 {
				return "", fmt.Errorf("no permissions on the root folder")
			}
			return fmt.Sprintf("%d permissions", len(perms)), nil
		}},
	}
}

// events is govc events on the flow VM: collectors on latestPage, categories from the
// EventManager's description, every event decoded.
func events(ctx context.Context, e *env, kind ...string) (string, error) {
	m := event.NewManager(e.c.Client)
	n := 0
	seen := map[string]bool{}
	err := m.Events(ctx, []types.ManagedObjectReference{e.vm.Reference()}, 50, false, false, func(_ types.ManagedObjectReference, evs []types.BaseEvent) error {
		for _, ev := range evs {
			if _, err := m.EventCategory(ctx, ev); err != nil {
				return err
			}
			seen[fmt.Sprintf("%T", ev)] = true
			n++
		}
		return nil
	}, kind...)
	if err != nil {
		return "", err
	}
	if n == 0 {
		return "", fmt.Errorf("no events")
	}
	return fmt.Sprintf("%d events of %d types", n, len(seen)), nil
}
