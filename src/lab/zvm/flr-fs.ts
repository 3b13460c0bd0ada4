// What a mounted FLR session shows: the guest's disks at the checkpoint's time, as partitions
// (`partition#1 Ext4` for Linux roots, NTFS labels for Windows drives) holding folders and files.
// Paths use forward slashes only, as the real API does; Windows names match case-insensitively.

import { zipSync } from 'fflate';
import type { GuestFileSystems } from '../guest-files.js';
import { isoTime } from './render.js';

interface Node {
  name: string;
  kind: 'Partition' | 'Folder' | 'File';
  children: Map<string, Node>;
  content?: Buffer;
  modifiedAt: number;
}

export interface FlrTree {
  caseInsensitive: boolean;
  partitions: Node[];
}

/** Windows drive letter -> partition number: C: is #1 (after System Reserved), D: #2, ... */
function driveIndex(letter: string): number {
  return letter.toUpperCase().charCodeAt(0) - 'B'.charCodeAt(0);
}

export function buildTree(guests: GuestFileSystems, vmIdentifier: string, at: number): FlrTree {
  if (!guests.has(vmIdentifier)) return { caseInsensitive: false, partitions: [] };
  const windows = guests.osOf(vmIdentifier) === 'windows';
  const parts = new Map<string, Node>();
  const part = (label: string): Node => {
    let p = parts.get(label);
    if (!p) parts.set(label, (p = { name: label, kind: 'Partition', children: new Map(), modifiedAt: 0 }));
    return p;
  };
  // Boot volumes exist on every guest, so "try every partition" is exercised on each restore.
  const boot = part(windows ? 'partition#0 NTFS' : 'partition#0 Ext4');
  addFile(boot, windows ? ['bootmgr'] : ['grub', 'grub.cfg'], Buffer.from(windows ? 'BOOTMGR' : 'set timeout=5\n'), 0, windows);
  if (windows) part('partition#1 NTFS');
  else part('partition#1 Ext4');
  for (const f of guests.listAt(vmIdentifier, at)) {
    if (windows) {
      const m = /^([a-zA-Z]):[\\/](.*)$/.exec(f.path);
      if (!m) continue;
      addFile(part(`partition#${driveIndex(m[1]!)} NTFS`), m[2]!.split(/[\\/]+/).filter(Boolean), f.content, f.modifiedAt, true);
    } else {
      addFile(part('partition#1 Ext4'), f.path.split('/').filter(Boolean), f.content, f.modifiedAt, false);
    }
  }
  return { caseInsensitive: windows, partitions: [...parts.values()].sort((a, b) => a.name.localeCompare(b.name)) };
}

function addFile(root: Node, comps: string[], content: Buffer, at: number, ci: boolean): void {
  let cur = root;
  comps.forEach((c, i) => {
    const key = ci ? c.toLowerCase() : c;
    const last = i === comps.length - 1;
    let next = cur.children.get(key);
    if (!next) cur.children.set(key, (next = { name: c, kind: last ? 'File' : 'Folder', children: new Map(), modifiedAt: at }));
    if (last) Object.assign(next, { content, modifiedAt: at });
    cur = next;
  });
}

export interface Resolved {
  node: Node;
  path: string;
}

/** Resolves an FLR path; '' is the root. Returns null for a path that does not exist. */
export function resolve(tree: FlrTree, path: string): Resolved | null | 'root' {
  const comps = path.split('/').filter((c) => c.length > 0);
  if (comps.length === 0) return 'root';
  const [label, ...rest] = comps;
  const p = tree.partitions.find((x) => x.name.toLowerCase() === label!.toLowerCase());
  if (!p) return null;
  let node = p;
  const names = [p.name];
  for (const c of rest) {
    const next = node.children.get(tree.caseInsensitive ? c.toLowerCase() : c);
    if (!next) return null;
    node = next;
    names.push(next.name);
  }
  return { node, path: names.join('/') };
}

export function pathItem(node: Node, path: string): Record<string, unknown> {
  const t = isoTime(node.modifiedAt);
  return {
    Path: path, Type: node.kind, IsBrowsable: node.kind !== 'File',
    DownloadInformation: { IsDownloadable: true, AdditionalInformation: null },
    SizeInBytes: node.kind === 'File' ? node.content!.length : null,
    CreationTime: t, LastAccessTime: t, LastWriteTime: t,
  };
}

export function browse(tree: FlrTree, path: string): Record<string, unknown> | null {
  const r = resolve(tree, path);
  if (r === null) return null;
  if (r === 'root') return { MainPathItem: null, PathItems: tree.partitions.map((p) => pathItem(p, p.name)) };
  const children = [...r.node.children.values()].sort((a, b) => a.name.localeCompare(b.name));
  return { MainPathItem: pathItem(r.node, r.path), PathItems: children.map((c) => pathItem(c, `${r.path}/${c.name}`)) };
}

/** Bytes for a download of `paths`: one file raw (unless `zip`), anything else as a ZIP. */
export function packDownload(tree: FlrTree, paths: string[], format: 'raw' | 'zip'): { bytes: Buffer; fileName: string; contentType: string } | { missing: string } {
  const found: Resolved[] = [];
  for (const p of paths) {
    const r = resolve(tree, p);
    if (r === null || r === 'root') return { missing: p };
    found.push(r);
  }
  const only = found[0]!;
  if (found.length === 1 && only.node.kind === 'File' && format === 'raw') {
    return { bytes: Buffer.from(only.node.content!), fileName: only.node.name, contentType: 'application/octet-stream' };
  }
  const entries: Record<string, Uint8Array> = {};
  const add = (node: Node, prefix: string): void => {
    if (node.kind === 'File') entries[prefix] = new Uint8Array(node.content!);
    else for (const c of node.children.values()) add(c, `${prefix}/${c.name}`);
  };
  for (const r of found) add(r.node, r.node.name);
  const name = found.length === 1 ? `${only.node.name}.zip` : 'download.zip';
  return { bytes: Buffer.from(zipSync(entries)), fileName: name, contentType: 'application/zip' };
}
