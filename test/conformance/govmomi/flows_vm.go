package main

import (
	"context"
	"fmt"
	"time"

	"github.com/vmware/govmomi/object"
	"github.com/vmware/govmomi/property"
	"github.com/vmware/govmomi/vim25/mo"
	"github.com/vmware/govmomi/vim25/types"
)

const (
	on        = types.VirtualMachinePowerStatePoweredOn
	off       = types.VirtualMachinePowerStatePoweredOff
	suspended = types.VirtualMachinePowerStateSuspended
)

// waitTask is govc's task handling: Task.Wait (property.Wait on info via CreateFilter and
// WaitForUpdatesEx). A task it reports failed must not have applied its change: every flow
// checks the server's state afterwards.
func waitTask(ctx context.Context, task *object.Task, err error) error {
	if err != nil {
		return err
	}
	return task.Wait(ctx)
}

func powerFlow(name string, from, to types.VirtualMachinePowerState, do func(context.Context, *object.VirtualMachine) (*object.Task, error)) flow {
	return flow{name, func(ctx context.Context, e *env) (string, error) {
		if err := e.ensurePower(ctx, from); err != nil {
			return "", err
		}
		task, err := do(ctx, e.vm)
		if err := waitTask(ctx, task, err); err != nil {
			return "", err
		}
		return e.expectPower(ctx, to)
	}}
}

// guestFlow is vm.power -s / -r: a guest operation (no task), then waiting on runtime.powerState.
func guestFlow(name string, shutdown bool) flow {
	return flow{name, func(ctx context.Context, e *env) (string, error) {
		if err := e.ensurePower(ctx, on); err != nil {
			return "", err
		}
		// Tools come up a moment after power-on: give them a few seconds (vcsim never reports
		// them running and ignores Tools for guest operations, so go on either way).
		tctx, cancel := context.WithTimeout(ctx, 3*time.Second)
		_ = property.Wait(tctx, e.pc, e.vm.Reference(), []string{"guest.toolsRunningStatus"}, func(pc []types.PropertyChange) bool {
			for _, c := range pc {
				if c.Val == string(types.VirtualMachineToolsRunningStatusGuestToolsRunning) {
					return true
				}
			}
			return false
		})
		cancel()
		if !shutdown {
			return "rebooted", e.vm.RebootGuest(ctx)
		}
		if err := e.vm.ShutdownGuest(ctx); err != nil {
			return "", err
		}
		if err := e.vm.WaitForPowerState(ctx, off); err != nil {
			return "", err
		}
		return e.expectPower(ctx, off)
	}}
}

func vmFlows() []flow {
	return []flow{
		{"vm.ip", func(ctx context.Context, e *env) (string, error) {
			if err := e.ensurePower(ctx, on); err != nil {
				return "", err
			}
			ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			defer cancel()
			return e.vm.WaitForIP(ctx)
		}},
		{"snapshot.create", func(ctx context.Context, e *env) (string, error) {
			task, err := e.vm.CreateSnapshot(ctx, snapshotName, "made by the conformance client", false, false)
			if err != nil {
				return "", err
			}
			info, err := task.WaitForResult(ctx)
			if err != nil {
				return "", err
			}
			ref, ok := info.Result.(types.ManagedObjectReference)
			if !ok || ref.Type != "VirtualMachineSnapshot" {
				return "", fmt.Errorf("task result %#v is not a snapshot", info.Result)
			}
			if info.Entity == nil || info.Entity.Value != e.vm.Reference().Value {
				return "", fmt.Errorf("task entity %v is not the VM", info.Entity)
			}
			return ref.Value, nil
		}},
		{"snapshot.tree", func(ctx context.Context, e *env) (string, error) {
			vm, err := e.vmProps(ctx, "snapshot")
			if err != nil {
				return "", err
			}
			if vm.Snapshot == nil || !treeHas(vm.Snapshot.RootSnapshotList, snapshotName) {
				return "", fmt.Errorf("snapshot %q not in the tree", snapshotName)
			}
			return fmt.Sprintf("%d root snapshots, current %s", len(vm.Snapshot.RootSnapshotList), vm.Snapshot.CurrentSnapshot.Value), nil
		}},
		{"snapshot.revert", func(ctx context.Context, e *env) (string, error) {
			task, err := e.vm.RevertToSnapshot(ctx, snapshotName, true)
			if err := waitTask(ctx, task, err); err != nil {
				return "", err
			}
			return "reverted", nil
		}},
		{"snapshot.remove", func(ctx context.Context, e *env) (string, error) {
			task, err := e.vm.RemoveSnapshot(ctx, snapshotName, false, nil)
			if err := waitTask(ctx, task, err); err != nil {
				return "", err
			}
			vm, err := e.vmProps(ctx, "snapshot")
			if err != nil {
				return "", err
			}
			if vm.Snapshot != nil && treeHas(vm.Snapshot.RootSnapshotList, snapshotName) {
				return "", fmt.Errorf("snapshot %q still there after the task succeeded", snapshotName)
			}
			return "removed", nil
		}},
		powerFlow("vm.power -off", on, off, func(ctx context.Context, vm *object.VirtualMachine) (*object.Task, error) { return vm.PowerOff(ctx) }),
		powerFlow("vm.power -on", off, on, func(ctx context.Context, vm *object.VirtualMachine) (*object.Task, error) { return vm.PowerOn(ctx) }),
		powerFlow("vm.power -reset", on, on, func(ctx context.Context, vm *object.VirtualMachine) (*object.Task, error) { return vm.Reset(ctx) }),
		powerFlow("vm.power -suspend", on, suspended, func(ctx context.Context, vm *object.VirtualMachine) (*object.Task, error) { return vm.Suspend(ctx) }),
		guestFlow("vm.power -s", true),
		guestFlow("vm.power -r", false),
		{"vm.change", func(ctx context.Context, e *env) (string, error) {
			before, err := e.vmProps(ctx, "config.hardware.memoryMB")
			if err != nil {
				return "", err
			}
			want := before.Config.Hardware.MemoryMB + 1024
			task, err := e.vm.Reconfigure(ctx, types.VirtualMachineConfigSpec{MemoryMB: int64(want)})
			if err := waitTask(ctx, task, err); err != nil {
				return "", err
			}
			after, err := e.vmProps(ctx, "config.hardware.memoryMB")
			if err != nil {
				return "", err
			}
			if after.Config.Hardware.MemoryMB != want {
				return "", fmt.Errorf("memoryMB is %d, want %d", after.Config.Hardware.MemoryMB, want)
			}
			return fmt.Sprintf("memoryMB %d", want), nil
		}},
		{"vm.migrate", vmMigrate},
		{"vm.clone", vmClone},
		{"vm.destroy", func(ctx context.Context, e *env) (string, error) {
			if e.clone == nil {
				return "", fmt.Errorf("no clone to destroy (vm.clone failed)")
			}
			// govc vm.destroy powers a running VM off first.
			if task, err := e.clone.PowerOff(ctx); err == nil {
				_ = task.Wait(ctx)
			}
			task, err := e.clone.Destroy(ctx)
			if err := waitTask(ctx, task, err); err != nil {
				return "", err
			}
			var gone mo.VirtualMachine
			err = e.pc.RetrieveOne(ctx, e.clone.Reference(), []string{"name"}, &gone)
			if err == nil && gone.Name != "" {
				return "", fmt.Errorf("clone still readable after Destroy_Task succeeded")
			}
			return "destroyed", nil
		}},
	}
}

func treeHas(list []types.VirtualMachineSnapshotTree, name string) bool {
	for _, n := range list {
		if n.Name == name || treeHas(n.ChildSnapshotList, name) {
			return true
		}
	}
	return false
}

func vmMigrate(ctx context.Context, e *env) (string, error) {
	vm, err := e.vmProps(ctx, "runtime.host", "resourcePool")
	if err != nil {
		return "", err
	}
	var host mo.HostSystem
	if err := e.pc.RetrieveOne(ctx, *vm.Runtime.Host, []string{"parent"}, &host); err != nil {
		return "", err
	}
	var cr mo.ComputeResource
	if err := e.pc.RetrieveOne(ctx, *host.Parent, []string{"host"}, &cr); err != nil {
		return "", err
	}
	var target *types.ManagedObjectReference
	for i := range cr.Host {
		if cr.Host[i].Value != vm.Runtime.Host.Value {
			target = &cr.Host[i]
			break
		}
	}
	if target == nil {
		return "", fmt.Errorf("no second host in %s", host.Parent.Value)
	}
	task, err := e.vm.Relocate(ctx, types.VirtualMachineRelocateSpec{Host: target, Pool: vm.ResourcePool}, types.VirtualMachineMovePriorityDefaultPriority)
	if err := waitTask(ctx, task, err); err != nil {
		return "", err
	}
	after, err := e.vmProps(ctx, "runtime.host")
	if err != nil {
		return "", err
	}
	if after.Runtime.Host.Value != target.Value {
		return "", fmt.Errorf("VM is on %s after the task, want %s", after.Runtime.Host.Value, target.Value)
	}
	return "now on " + target.Value, nil
}

func vmClone(ctx context.Context, e *env) (string, error) {
	vm, err := e.vmProps(ctx, "parent", "resourcePool", "datastore")
	if err != nil {
		return "", err
	}
	spec := types.VirtualMachineCloneSpec{Location: types.VirtualMachineRelocateSpec{Pool: vm.ResourcePool}}
	if len(vm.Datastore) > 0 {
		spec.Location.Datastore = &vm.Datastore[0]
	}
	task, err := e.vm.Clone(ctx, object.NewFolder(e.c.Client, *vm.Parent), cloneName, spec)
	if err != nil {
		return "", err
	}
	info, err := task.WaitForResult(ctx)
	if err != nil {
		return "", err
	}
	ref, ok := info.Result.(types.ManagedObjectReference)
	if !ok {
		return "", fmt.Errorf("clone task result %#v is not a reference", info.Result)
	}
	var clone mo.VirtualMachine
	if err := e.pc.RetrieveOne(ctx, ref, []string{"name"}, &clone); err != nil {
		return "", err
	}
	if clone.Name != cloneName {
		return "", fmt.Errorf("clone is named %q", clone.Name)
	}
	e.clone = object.NewVirtualMachine(e.c.Client, ref)
	return ref.Value, nil
}
