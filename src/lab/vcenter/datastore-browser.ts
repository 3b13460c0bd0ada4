// HostDatastoreBrowser: SearchDatastore_Task and SearchDatastoreSubFolders_Task over the files
// the lab's VMs have on a datastore (one folder per VM home: .vmx, .nvram, disks, vmware.log),
// with matchPattern globbing and the FileQuery types govc and pyVmomi send. A path that does not
// exist fails the task with FileNotFound, as on vCenter.

import type { Call } from './context.js';
import { VimFault } from './faults.js';
import { PlainObject, type Model } from './model.js';
import { childrenNamed, decode, decodedObject, list, scalar, textOf, child, type DecodedObject } from './soap-parse.js';
import { data, long, ref, time, type DataObject } from './vim-values.js';
import { vmDevices } from './vm-properties.js';

interface LabFile {
  name: string;
  type: 'VmConfigFileInfo' | 'VmNvramFileInfo' | 'VmDiskFileInfo' | 'VmLogFileInfo' | 'FolderFileInfo';
  size: number;
  modified: number;
}

const QUERY_TYPE: Record<string, LabFile['type']> = {
  VmConfigFileQuery: 'VmConfigFileInfo', VmNvramFileQuery: 'VmNvramFileInfo', VmDiskFileQuery: 'VmDiskFileInfo',
  VmLogFileQuery: 'VmLogFileInfo', FolderFileQuery: 'FolderFileInfo',
};

export function browserMoid(datastoreMoid: string): string {
  return `datastoreBrowser-${datastoreMoid}`;
}

export function addDatastoreBrowser(model: Model, datastoreMoid: string): void {
  model.add(new PlainObject('HostDatastoreBrowser', browserMoid(datastoreMoid), {
    datastore: [ref('Datastore', datastoreMoid)],
    supportedType: Object.keys(QUERY_TYPE).map((t) => data(t, {})),
  }));
}

/** Folder name -> its files, for every VM whose home is on the datastore. */
function filesOf(model: Model, datastoreMoid: string): Map<string, LabFile[]> {
  const out = new Map<string, LabFile[]>();
  for (const r of model.vmRefsPlaced((p) => p.datastore === datastoreMoid)) {
    const vm = model.vmState(r.value);
    if (!vm) continue;
    const disks = vmDevices(model, vm).filter((d) => d._type === 'VirtualDisk');
    out.set(vm.name, [
      { name: `${vm.name}.vmx`, type: 'VmConfigFileInfo', size: 3200, modified: vm.createDate },
      { name: `${vm.name}.nvram`, type: 'VmNvramFileInfo', size: 270840, modified: vm.createDate },
      ...disks.map((d) => ({
        name: String((d.backing as DataObject).fileName).replace(/^\[[^\]]*\] [^/]*\//, ''), type: 'VmDiskFileInfo' as const,
        size: Number(d.capacityInKB ?? 0) * 1024, modified: vm.createDate,
      })),
      { name: 'vmware.log', type: 'VmLogFileInfo', size: 182_000, modified: vm.bootTime ?? vm.createDate },
    ]);
  }
  return out;
}

function globToRegExp(glob: string): RegExp {
  return new RegExp(`^${glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 'i');
}

interface Spec {
  patterns: RegExp[];
  types?: Set<string>;
  details: DecodedObject | undefined;
}

function parseSpec(node: ReturnType<typeof child>): Spec {
  const spec = node ? decodedObject(decode(node)) : undefined;
  const patterns = list(spec?.matchPattern).map((p) => globToRegExp(scalar(p) ?? '*'));
  const queries = node ? childrenNamed(node, 'query').map((q) => q.xsiType ?? '') : [];
  const types = queries.length ? new Set(queries.map((q) => QUERY_TYPE[q] ?? 'FileInfo')) : undefined;
  return { patterns, types, details: decodedObject(spec?.details) };
}

function fileInfo(f: LabFile, spec: Spec): DataObject {
  const d = spec.details;
  const want = (k: string): boolean => !d || scalar(d[k]) === 'true';
  return data(f.type, {
    path: f.name, friendlyName: f.type === 'FolderFileInfo' ? f.name : undefined,
    fileSize: want('fileSize') ? long(f.size) : undefined,
    modification: want('modification') ? time(f.modified) : undefined,
  });
}

function matches(f: LabFile, spec: Spec): boolean {
  if (spec.types && !spec.types.has(f.type) && !(f.type === 'FolderFileInfo' && spec.types.has('FolderFileInfo'))) return false;
  return spec.patterns.length === 0 || spec.patterns.some((p) => p.test(f.name));
}

function fileNotFound(path: string): VimFault {
  return new VimFault('FileNotFound', `File ${path} was not found`, { file: path });
}

function search(c: Call, recursive: boolean): DataObject | DataObject[] {
  const dsMoid = c.self.value.slice('datastoreBrowser-'.length);
  const dsName = String(c.lab.model.lookup(dsMoid)?.get('name') ?? '');
  const path = textOf(c.node, 'datastorePath') ?? '';
  const m = /^\[([^\]]*)\]\s*(.*?)\/?$/.exec(path);
  if (!m || m[1] !== dsName) throw fileNotFound(path);
  const folder = m[2]!;
  const spec = parseSpec(child(c.node, 'searchSpec'));
  const folders = filesOf(c.lab.model, dsMoid);
  const result = (folderPath: string, files: LabFile[]): DataObject => data('HostDatastoreBrowserSearchResults', {
    datastore: ref('Datastore', dsMoid), folderPath: `[${dsName}] ${folderPath}`,
    file: files.filter((f) => matches(f, spec)).map((f) => fileInfo(f, spec)),
  });
  if (folder === '') {
    const root = [...folders.keys()].map((name): LabFile => ({ name, type: 'FolderFileInfo', size: 0, modified: Date.now() }));
    if (!recursive) return result('', root);
    return [result('', root), ...[...folders].map(([name, files]) => result(`${name}/`, files))];
  }
  const files = folders.get(folder);
  if (!files) throw fileNotFound(path);
  return recursive ? [result(`${folder}/`, files)] : result(`${folder}/`, files);
}

function searchTask(c: Call, recursive: boolean): unknown {
  const dsMoid = c.self.value.slice('datastoreBrowser-'.length);
  return c.lab.tasks.start({
    method: recursive ? 'SearchDatastoreSubFolders_Task' : 'SearchDatastore_Task',
    descriptionId: recursive ? 'host.DatastoreBrowser.searchSubFolders' : 'host.DatastoreBrowser.search',
    entity: ref('Datastore', dsMoid), userName: c.userName,
    run: () => search(c, recursive),
  });
}

export const browserMethods = {
  SearchDatastore_Task: (c: Call) => searchTask(c, false),
  SearchDatastoreSubFolders_Task: (c: Call) => searchTask(c, true),
};
