"""Client conformance with pyVmomi (Debian's python3-pyvmomi, run with /usr/bin/python3).

Runs the flows a pyVmomi script typically runs against one vim25 endpoint: version negotiation
and `summary` on a 6.5 session and on the newest session pyVmomi knows, ContainerView listings,
WaitForTask on every task type (checking afterwards that the change is what the server reports),
QueryEvents after snapshot operations, and paging through event and task history collectors.

Usage: conformance.py HOST PORT USER PASSWORD
Prints one JSON object per flow: {"flow": ..., "ok": true|false, "detail"|"error": ...}.
"""
import json
import ssl
import sys
import traceback

from pyVim.connect import Disconnect, SmartConnect
from pyVim.task import WaitForTask
from pyVmomi import vim, vmodl

HOST, PORT, USER, PASSWORD = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
CONTEXT = ssl._create_unverified_context()  # loopback simulators with their own CA


def connect(versions=None):
    return SmartConnect(host=HOST, port=PORT, user=USER, pwd=PASSWORD, sslContext=CONTEXT, preferredApiVersions=versions)


def container(si, kind):
    content = si.RetrieveContent()
    view = content.viewManager.CreateContainerView(content.rootFolder, [kind], True)
    try:
        return list(view.view)
    finally:
        view.Destroy()


def emit(flow, fn):
    try:
        detail = fn()
        print(json.dumps({"flow": flow, "ok": True, "detail": str(detail)}), flush=True)
    except Exception as err:  # a failed flow is a result, not the end of the run
        last = traceback.extract_tb(err.__traceback__)[-1]
        print(json.dumps({"flow": flow, "ok": False, "error": "%s: %s (%s:%d)" % (type(err).__name__, err, last.filename.split('/')[-1], last.lineno)}), flush=True)


def summaries(si):
    vms = container(si, vim.VirtualMachine)
    hw = sum(1 for vm in vms if getattr(vm.summary.config, "hwVersion", None))
    return "%d summaries on API %s, %d with hwVersion" % (len(vms), si._stub.versionId, hw)


def every_property(si):
    """all=True on each inventory type and each service manager: any field newer than 6.5 fails the parse."""
    content = si.RetrieveContent()
    pc = content.propertyCollector
    spec_of = vmodl.query.PropertyCollector
    props = 0
    for kind in [vim.VirtualMachine, vim.HostSystem, vim.ClusterComputeResource, vim.Datastore, vim.Network,
                 vim.ResourcePool, vim.Folder, vim.Datacenter]:
        view = content.viewManager.CreateContainerView(content.rootFolder, [kind], True)
        spec = spec_of.FilterSpec(
            objectSet=[spec_of.ObjectSpec(obj=view, skip=True, selectSet=[spec_of.TraversalSpec(name="v", path="view", skip=False, type=vim.view.ContainerView)])],
            propSet=[spec_of.PropertySpec(type=kind, all=True)])
        result = pc.RetrievePropertiesEx([spec], spec_of.RetrieveOptions(maxObjects=10))
        props += sum(len(o.propSet) for o in result.objects)
        view.Destroy()
    for name in ["authorizationManager", "licenseManager", "extensionManager", "setting", "eventManager", "taskManager",
                 "perfManager", "sessionManager", "customFieldsManager", "userDirectory"]:
        manager = getattr(content, name)
        spec = spec_of.FilterSpec(objectSet=[spec_of.ObjectSpec(obj=manager)], propSet=[spec_of.PropertySpec(type=type(manager), all=True)])
        props += sum(len(o.propSet) for o in pc.RetrieveContents([spec]))
    return "%d properties parsed" % props


def pick_vm(si):
    for vm in container(si, vim.VirtualMachine):
        rt = vm.summary.runtime
        if rt.powerState == "poweredOn" and rt.connectionState == "connected" and not vm.summary.config.template:
            return vm
    raise RuntimeError("no powered-on VM")


def main():
    old = connect(["vim.version.version11"])  # 6.5
    emit("summary on a 6.5 session", lambda: summaries(old))
    emit("every property of the inventory and the managers on a 6.5 session", lambda: every_property(old))
    Disconnect(old)
    si = connect()
    emit("summary on the newest session", lambda: summaries(si))
    content = si.RetrieveContent()
    emit("ContainerView listing", lambda: container_listing(si))
    vm = pick_vm(si)
    state = {}

    def task(name, make, check):
        def run():
            WaitForTask(make())
            got = check()
            if got is not True:
                raise AssertionError("task succeeded but the server says %s" % got)
            return "ok"
        emit("WaitForTask " + name, run)

    power = lambda want: (lambda: True if vm.runtime.powerState == want else vm.runtime.powerState)
    task("PowerOffVM_Task", vm.PowerOffVM_Task, power("poweredOff"))
    task("PowerOnVM_Task", vm.PowerOnVM_Task, power("poweredOn"))
    task("ResetVM_Task", vm.ResetVM_Task, power("poweredOn"))
    task("SuspendVM_Task", vm.SuspendVM_Task, power("suspended"))
    WaitForTask(vm.PowerOnVM_Task())
    snap_name = "pyvmomi-snap"
    has_snap = lambda: bool(vm.snapshot) and any(s.name == snap_name for s in walk(vm.snapshot.rootSnapshotList))
    task("CreateSnapshot_Task", lambda: vm.CreateSnapshot_Task(snap_name, "pyvmomi conformance", False, False), has_snap)

    def snapshot():
        return next(s.snapshot for s in walk(vm.snapshot.rootSnapshotList) if s.name == snap_name)
    task("RevertToSnapshot_Task", lambda: snapshot().RevertToSnapshot_Task(suppressPowerOn=True), lambda: True)
    task("RemoveSnapshot_Task", lambda: snapshot().RemoveSnapshot_Task(False), lambda: not has_snap() or "snapshot still there")
    WaitForTask(vm.PowerOnVM_Task()) if vm.runtime.powerState != "poweredOn" else None
    mem = vm.config.hardware.memoryMB + 512
    task("ReconfigVM_Task", lambda: vm.ReconfigVM_Task(vim.vm.ConfigSpec(memoryMB=mem)),
         lambda: vm.config.hardware.memoryMB == mem or vm.config.hardware.memoryMB)
    others = [h for h in vm.runtime.host.parent.host if h != vm.runtime.host]
    if others:
        target = others[0]
        task("RelocateVM_Task", lambda: vm.RelocateVM_Task(vim.vm.RelocateSpec(host=target, pool=vm.resourcePool)),
             lambda: vm.runtime.host == target or vm.runtime.host)
    clone_spec = vim.vm.CloneSpec(location=vim.vm.RelocateSpec(pool=vm.resourcePool))

    def clone():
        t = vm.CloneVM_Task(vm.parent, "pyvmomi-clone", clone_spec)
        WaitForTask(t)
        state["clone"] = t.info.result
        return t

    task("CloneVM_Task", clone, lambda: state["clone"].name == "pyvmomi-clone" or state["clone"].name)

    def destroy():
        c = state["clone"]
        return c.Destroy_Task()

    def gone():
        try:
            return "clone still there: %s" % state["clone"].name
        except vmodl.fault.ManagedObjectNotFound:
            return True
    task("Destroy_Task", destroy, gone)
    ds = vm.datastore[0]
    task("SearchDatastore_Task", lambda: ds.browser.SearchDatastore_Task("[%s]" % ds.name, vim.host.DatastoreBrowser.SearchSpec(matchPattern=["*"])),
         lambda: True)
    emit("QueryEvents after snapshot operations", lambda: query_events(content, vm))
    emit("CreateCollectorForEvents paging", lambda: event_paging(content, vm))
    emit("CreateCollectorForTasks paging", lambda: task_paging(content, vm))
    Disconnect(si)


def walk(trees):
    for t in trees:
        yield t
        yield from walk(t.childSnapshotList)


def container_listing(si):
    content = si.RetrieveContent()
    view = content.viewManager.CreateContainerView(content.rootFolder, [vim.VirtualMachine], True)
    spec = vmodl.query.PropertyCollector.FilterSpec(
        objectSet=[vmodl.query.PropertyCollector.ObjectSpec(obj=view, skip=True, selectSet=[
            vmodl.query.PropertyCollector.TraversalSpec(name="view", path="view", skip=False, type=vim.view.ContainerView)])],
        propSet=[vmodl.query.PropertyCollector.PropertySpec(type=vim.VirtualMachine, pathSet=["name", "runtime.powerState"])])
    result = content.propertyCollector.RetrievePropertiesEx([spec], vmodl.query.PropertyCollector.RetrieveOptions(maxObjects=10))
    count = len(result.objects)
    while result.token:
        result = content.propertyCollector.ContinueRetrievePropertiesEx(result.token)
        count += len(result.objects)
    view.Destroy()
    if count == 0:
        raise AssertionError("the view lists no VMs")
    return "%d VMs" % count


def query_events(content, vm):
    spec = vim.event.EventFilterSpec(entity=vim.event.EventFilterSpec.ByEntity(entity=vm, recursion="self"))
    events = content.eventManager.QueryEvents(spec)
    kinds = sorted({type(e).__name__ for e in events})
    if not events:
        raise AssertionError("no events for the VM")
    return "%d events: %s" % (len(events), ",".join(kinds))


def event_paging(content, vm):
    collector = content.eventManager.CreateCollectorForEvents(vim.event.EventFilterSpec())
    try:
        collector.SetCollectorPageSize(20)
        latest = len(collector.latestPage)
        collector.RewindCollector()
        pages, total = 0, 0
        while pages < 50:
            page = collector.ReadNextEvents(25)
            if not page:
                break
            pages += 1
            total += len(page)
        if total == 0 or latest == 0:
            raise AssertionError("empty history (%d latest, %d read)" % (latest, total))
        return "%d events in %d pages, latestPage %d" % (total, pages, latest)
    finally:
        collector.DestroyCollector()


def task_paging(content, vm):
    collector = content.taskManager.CreateCollectorForTasks(vim.TaskFilterSpec(
        entity=vim.TaskFilterSpec.ByEntity(entity=vm, recursion="self")))
    try:
        total = 0
        for _ in range(20):
            page = collector.ReadNextTasks(5)
            if not page:
                break
            total += len(page)
        if total == 0:
            raise AssertionError("no tasks for the VM")
        return "%d tasks" % total
    finally:
        collector.DestroyCollector()


if __name__ == "__main__":
    try:
        main()
    except Exception as err:
        print("conformance.py: %s: %s" % (type(err).__name__, err), file=sys.stderr)
        sys.exit(2)
