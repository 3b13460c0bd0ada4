package main

import (
	"context"
	"fmt"

	"github.com/vmware/govmomi"
	"github.com/vmware/govmomi/find"
	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/view"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

// env is what every flow shares: the session, a finder set to the only datacenter, and the VM the
// mutating flows work on (a powered-on VM with VMware Tools running, found the way a user would).
type env struct {
	c      *govmomi.Client
	pc     *property.Collector
	finder *find.Finder
	dc     *object.Datacenter
	vm     *object.VirtualMachine
	vmName string
	// The clone made by "vm.clone", destroyed by "vm.destroy".
	clone *object.VirtualMachine
}

const snapshotName = "conformance-snap"
const cloneName = "conformance-clone"

func newEnv(ctx context.Context, c *govmomi.Client) (*env, error) {
	e := &env{c: c, pc: property.DefaultCollector(c.Client), finder: find.NewFinder(c.Client, true)}
	dc, err := e.finder.DefaultDatacenter(ctx)
	if err != nil {
		return nil, err
	}
	e.dc = dc
	e.finder.SetDatacenter(dc)
	v, err := view.NewManager(c.Client).CreateContainerView(ctx, c.ServiceContent.RootFolder, []string{"VirtualMachine"}, true)
	if err != nil {
		return nil, err
	}
	defer func() { _ = v.Destroy(ctx) }()
	var vms []mo.VirtualMachine
	ps := []string{"name", "runtime.powerState", "runtime.connectionState", "runtime.host", "guest.toolsRunningStatus", "config.template"}
	if err := v.Retrieve(ctx, []string{"VirtualMachine"}, ps, &vms); err != nil {
		return nil, err
	}
	for _, vm := range vms {
		if vm.Runtime.PowerState != types.VirtualMachinePowerStatePoweredOn || vm.Runtime.ConnectionState != types.VirtualMachineConnectionStateConnected {
			continue
		}
		// vm.migrate needs a second host in the VM's cluster: skip VMs on standalone hosts.
		var host mo.HostSystem
		if vm.Runtime.Host == nil || e.pc.RetrieveOne(ctx, *vm.Runtime.Host, []string{"parent"}, &host) != nil ||
			host.Parent == nil || host.Parent.Type != "ClusterComputeResource" {
			continue
		}
		if vm.Config != nil && vm.Config.Template {
			continue
		}
		if vm.Guest != nil && vm.Guest.ToolsRunningStatus == string(types.VirtualMachineToolsRunningStatusGuestToolsRunning) {
			e.vm = object.NewVirtualMachine(c.Client, vm.Self)
			e.vmName = vm.Name
			break
		}
		if e.vm == nil {
			e.vm = object.NewVirtualMachine(c.Client, vm.Self)
			e.vmName = vm.Name
		}
	}
	if e.vm == nil {
		return nil, fmt.Errorf("no powered-on VM among %d", len(vms))
	}
	path, err := find.InventoryPath(ctx, c.Client, e.vm.Reference())
	if err != nil {
		return nil, err
	}
	e.vm.InventoryPath = path
	return e, nil
}

// vmProps reads properties of the flow VM.
func (e *env) vmProps(ctx context.Context, ps ...string) (mo.VirtualMachine, error) {
	var vm mo.VirtualMachine
	err := e.pc.RetrieveOne(ctx, e.vm.Reference(), ps, &vm)
	return vm, err
}

func (e *env) powerState(ctx context.Context) (types.VirtualMachinePowerState, error) {
	vm, err := e.vmProps(ctx, "runtime.powerState")
	return vm.Runtime.PowerState, err
}

// expectPower checks that a change the task reported is also what the server now says.
func (e *env) expectPower(ctx context.Context, want types.VirtualMachinePowerState) (string, error) {
	got, err := e.powerState(ctx)
	if err != nil {
		return "", err
	}
	if got != want {
		return "", fmt.Errorf("powerState is %s after the task, want %s", got, want)
	}
	return string(got), nil
}

// ensurePower brings the flow VM into a power state first (a flow must not depend on the order).
func (e *env) ensurePower(ctx context.Context, want types.VirtualMachinePowerState) error {
	got, err := e.powerState(ctx)
	if err != nil || got == want {
		return err
	}
	var task *object.Task
	switch want {
	case types.VirtualMachinePowerStatePoweredOn:
		task, err = e.vm.PowerOn(ctx)
	case types.VirtualMachinePowerStatePoweredOff:
		task, err = e.vm.PowerOff(ctx)
	}
	if err != nil {
		return err
	}
	return task.Wait(ctx)
}
