package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// govc find's -type letters and the managed-object types they select.
var findTypes = []struct{ letter, kind string }{
	{"a", "VirtualApp"}, {"c", "ClusterComputeResource"}, {"d", "Datacenter"}, {"f", "Folder"},
	{"g", "DistributedVirtualPortgroup"}, {"h", "HostSystem"}, {"m", "VirtualMachine"}, {"n", "Network"},
	{"o", "OpaqueNetwork"}, {"p", "ResourcePool"}, {"r", "ComputeResource"}, {"s", "Datastore"},
	{"w", "DistributedVirtualSwitch"},
}

func inventoryFlows() []flow {
	fs := []flow{
		{"about", func(ctx context.Context, e *env) (string, error) {
			a := e.c.ServiceContent.About
			if a.ApiVersion == "" || a.FullName == "" {
				return "", fmt.Errorf("about is incomplete: %+v", a)
			}
			return a.FullName + " api " + a.ApiVersion, nil
		}},
		{"ls", func(ctx context.Context, e *env) (string, error) { return lsCount(ctx, e, "/") }},
		{"ls -l <datacenter>", func(ctx context.Context, e *env) (string, error) { return lsCount(ctx, e, e.dc.InventoryPath) }},
		{"ls <datacenter>/vm", func(ctx context.Context, e *env) (string, error) { return lsCount(ctx, e, e.dc.InventoryPath+"/vm") }},
		{"find", func(ctx context.Context, e *env) (string, error) { return findFlow(ctx, e, nil) }},
	}
	for _, t := range findTypes {
		kind := t.kind
		fs = append(fs, flow{"find -type " + t.letter, func(ctx context.Context, e *env) (string, error) { return findFlow(ctx, e, []string{kind}) }})
	}
	return append(fs, []flow{
		{"vm.info", func(ctx context.Context, e *env) (string, error) {
			vm, err := vmInfo(ctx, e, []string{"summary", "guest.ipAddress", "datastore", "network"})
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s cpu=%d mem=%d", vm.Summary.Config.Name, vm.Summary.Config.NumCpu, vm.Summary.Config.MemorySizeMB), nil
		}},
		{"vm.info -json", func(ctx context.Context, e *env) (string, error) {
			vm, err := vmInfo(ctx, e, nil)
			if err != nil {
				return "", err
			}
			b, err := json.Marshal(vm)
			if err != nil {
				return "", err
			}
			if vm.Config == nil || vm.Runtime.PowerState == "" {
				return "", fmt.Errorf("all-properties read lacks config or runtime")
			}
			return fmt.Sprintf("%d bytes of JSON", len(b)), nil
		}},
		{"vm.info -r", func(ctx context.Context, e *env) (string, error) {
			vm, err := vmInfo(ctx, e, []string{"summary", "datastore", "network", "resourcePool", "runtime.host"})
			if err != nil {
				return "", err
			}
			refs := append(append([]types.ManagedObjectReference{}, vm.Datastore...), vm.Network...)
			if vm.ResourcePool != nil {
				refs = append(refs, *vm.ResourcePool)
			}
			var named []mo.ManagedEntity
			if err := e.pc.Retrieve(ctx, refs, []string{"name"}, &named); err != nil {
				return "", err
			}
			names := []string{}
			for _, n := range named {
				names = append(names, n.Name)
			}
			return strings.Join(names, ","), nil
		}},
		{"host.info", func(ctx context.Context, e *env) (string, error) {
			hosts, err := e.finder.HostSystemList(ctx, "*/*")
			if err != nil {
				return "", err
			}
			var hs []mo.HostSystem
			if err := e.pc.Retrieve(ctx, refsOf(hosts), []string{"summary"}, &hs); err != nil {
				return "", err
			}
			if len(hs) == 0 || hs[0].Summary.Hardware == nil {
				return "", fmt.Errorf("no host summary")
			}
			return fmt.Sprintf("%d hosts, %s", len(hs), hs[0].Summary.Hardware.CpuModel), nil
		}},
		{"datastore.info", func(ctx context.Context, e *env) (string, error) {
			dss, err := e.finder.DatastoreList(ctx, "*")
			if err != nil {
				return "", err
			}
			var ds []mo.Datastore
			if err := e.pc.Retrieve(ctx, refsOf(dss), []string{"info", "summary"}, &ds); err != nil {
				return "", err
			}
			if len(ds) == 0 || ds[0].Info == nil {
				return "", fmt.Errorf("no datastore info")
			}
			return fmt.Sprintf("%d datastores, %s %s", len(ds), ds[0].Summary.Name, ds[0].Info.GetDatastoreInfo().Url), nil
		}},
		{"datastore.ls", func(ctx context.Context, e *env) (string, error) { return datastoreLs(ctx, e, false) }},
		{"datastore.ls -R", func(ctx context.Context, e *env) (string, error) { return datastoreLs(ctx, e, true) }},
		{"cluster.usage", clusterUsage},
		{"pool.info", func(ctx context.Context, e *env) (string, error) {
			pools, err := e.finder.ResourcePoolList(ctx, "*")
			if err != nil {
				return "", err
			}
			var ps []mo.ResourcePool
			if err := e.pc.Retrieve(ctx, refsOf(pools), []string{"name", "config", "runtime"}, &ps); err != nil {
				return "", err
			}
			if len(ps) == 0 || ps[0].Runtime.Cpu.MaxUsage == 0 && ps[0].Runtime.Memory.MaxUsage == 0 {
				return "", fmt.Errorf("pool runtime usage missing")
			}
			return fmt.Sprintf("%d pools, %s", len(ps), ps[0].Name), nil
		}},
		{"datacenter.info", func(ctx context.Context, e *env) (string, error) {
			var dc mo.Datacenter
			if err := e.pc.RetrieveOne(ctx, e.dc.Reference(), []string{"name", "vmFolder", "hostFolder", "datastore", "network"}, &dc); err != nil {
				return "", err
			}
			counts := []string{}
			for _, kind := range []string{"VirtualMachine", "HostSystem", "ClusterComputeResource"} {
				v, err := view.NewManager(e.c.Client).CreateContainerView(ctx, e.dc.Reference(), []string{kind}, true)
				if err != nil {
					return "", err
				}
				var refs []mo.ManagedEntity
				err = v.Retrieve(ctx, []string{kind}, []string{"name"}, &refs)
				_ = v.Destroy(ctx)
				if err != nil {
					return "", err
				}
				counts = append(counts, fmt.Sprintf("%s=%d", kind, len(refs)))
			}
			return dc.Name + " " + strings.Join(counts, " "), nil
		}},
		{"device.ls", func(ctx context.Context, e *env) (string, error) {
			devices, err := e.vm.Device(ctx)
			if err != nil {
				return "", err
			}
			if len(devices) == 0 {
				return "", fmt.Errorf("no devices")
			}
			names := []string{}
			for _, d := range devices {
				names = append(names, devices.Name(d))
			}
			return strings.Join(names, ","), nil
		}},
	}...)
}

func refsOf[T interface{ Reference() types.ManagedObjectReference }](objs []T) []types.ManagedObjectReference {
	out := make([]types.ManagedObjectReference, 0, len(objs))
	for _, o := range objs {
		out = append(out, o.Reference())
	}
	return out
}

func lsCount(ctx context.Context, e *env, path string) (string, error) {
	es, err := e.finder.ManagedObjectListChildren(ctx, path)
	if err != nil {
		return "", err
	}
	if len(es) == 0 {
		return "", fmt.Errorf("%s lists nothing", path)
	}
	kinds := []string{}
	for _, el := range es {
		kinds = append(kinds, el.Object.Reference().Type)
	}
	return fmt.Sprintf("%d entries (%s)", len(es), strings.Join(kinds, ",")), nil
}

// find is govc find: a recursive container view on the root folder, filtered on name.
func findFlow(ctx context.Context, e *env, kinds []string) (string, error) {
	m := view.NewManager(e.c.Client)
	v, err := m.CreateContainerView(ctx, e.c.ServiceContent.RootFolder, kinds, true)
	if err != nil {
		return "", err
	}
	defer func() { _ = v.Destroy(ctx) }()
	refs, err := v.Find(ctx, kinds, property.Filter{"name": "*"})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("%d objects", len(refs)), nil
}

func vmInfo(ctx context.Context, e *env, ps []string) (mo.VirtualMachine, error) {
	// govc resolves the VM by inventory path, like a user typing vm.info -vm <path>.
	var vm mo.VirtualMachine
	found, err := e.finder.VirtualMachine(ctx, e.vm.InventoryPath)
	if err != nil {
		return vm, err
	}
	err = e.pc.RetrieveOne(ctx, found.Reference(), ps, &vm)
	return vm, err
}

func datastoreLs(ctx context.Context, e *env, recursive bool) (string, error) {
	ds, err := e.finder.DefaultDatastore(ctx)
	if err != nil {
		dss, lerr := e.finder.DatastoreList(ctx, "*")
		if lerr != nil || len(dss) == 0 {
			return "", err
		}
		ds = dss[0]
	}
	b, err := ds.Browser(ctx)
	if err != nil {
		return "", err
	}
	spec := types.HostDatastoreBrowserSearchSpec{
		MatchPattern: []string{"*"},
		Details:      &types.FileQueryFlags{FileType: true, FileSize: true, Modification: true, FileOwner: types.NewBool(false)},
	}
	var task *object.Task
	if recursive {
		task, err = b.SearchDatastoreSubFolders(ctx, ds.Path(""), &spec)
	} else {
		task, err = b.SearchDatastore(ctx, ds.Path(""), &spec)
	}
	if err != nil {
		return "", err
	}
	info, err := task.WaitForResult(ctx)
	if err != nil {
		return "", err
	}
	files := 0
	switch r := info.Result.(type) {
	case types.HostDatastoreBrowserSearchResults:
		files = len(r.File)
	case types.ArrayOfHostDatastoreBrowserSearchResults:
		for _, f := range r.HostDatastoreBrowserSearchResults {
			files += len(f.File)
		}
	default:
		return "", fmt.Errorf("unexpected search result %T", info.Result)
	}
	if files == 0 {
		return "", fmt.Errorf("datastore %s lists no files", ds.Name())
	}
	return fmt.Sprintf("%d files on %s", files, ds.Name()), nil
}

func clusterUsage(ctx context.Context, e *env) (string, error) {
	clusters, err := e.finder.ClusterComputeResourceList(ctx, "*")
	if err != nil {
		return "", err
	}
	var cl mo.ClusterComputeResource
	if err := e.pc.RetrieveOne(ctx, clusters[0].Reference(), []string{"host", "datastore"}, &cl); err != nil {
		return "", err
	}
	var hosts []mo.HostSystem
	if err := e.pc.Retrieve(ctx, cl.Host, []string{"summary"}, &hosts); err != nil {
		return "", err
	}
	var cpu, mem int64
	for _, h := range hosts {
		cpu += int64(h.Summary.QuickStats.OverallCpuUsage)
		mem += int64(h.Summary.QuickStats.OverallMemoryUsage)
	}
	var dss []mo.Datastore
	if err := e.pc.Retrieve(ctx, cl.Datastore, []string{"summary"}, &dss); err != nil {
		return "", err
	}
	var capacity int64
	for _, d := range dss {
		capacity += d.Summary.Capacity
	}
	if len(hosts) == 0 || capacity == 0 {
		return "", fmt.Errorf("cluster usage empty: %d hosts, %d bytes", len(hosts), capacity)
	}
	return fmt.Sprintf("%d hosts cpu=%dMHz mem=%dMB storage=%dB", len(hosts), cpu, mem, capacity), nil
}
