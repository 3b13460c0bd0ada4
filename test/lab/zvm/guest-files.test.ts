import { describe, expect, it } from 'vitest';
import { GuestFileSystems } from '../../../src/lab/guest-files.js';
import { labVmIdentifier } from '../../../src/lab/topology.js';

describe('GuestFileSystems', () => {
  it('starts from the topology files, before any checkpoint could exist', () => {
    const g = GuestFileSystems.fromTopology();
    const app = { target: 'lab-vc1', moid: 'vm-101' };
    expect(g.read(app, '/etc/app.conf')?.toString()).toContain('listen_port = 8080');
    expect(g.readAt(app, '/etc/app.conf', 1)?.toString()).toContain('listen_port = 8080');
    expect(g.osOf(labVmIdentifier('lab-vc1', 'vm-104'))).toBe('windows');
  });

  it('keeps every version and reads the one current at a given time', () => {
    const g = GuestFileSystems.fromTopology();
    const id = labVmIdentifier('lab-vc1', 'vm-101');
    const before = g.now();
    g.write(id, '/etc/app.conf', 'broken\n');
    expect(g.read(id, '/etc/app.conf')?.toString()).toBe('broken\n');
    expect(g.readAt(id, '/etc/app.conf', before)?.toString()).toContain('listen_port = 8080');
    expect(g.history(id, '/etc/app.conf')).toHaveLength(2);
  });

  it('orders a write made in the same millisecond after an earlier clock reading', () => {
    const g = GuestFileSystems.fromTopology();
    const id = labVmIdentifier('lab-vc1', 'vm-101');
    const t = g.now();
    const v = g.write(id, '/etc/app.conf', 'x');
    expect(v.at).toBeGreaterThan(t);
    expect(g.readAt(id, '/etc/app.conf', t)?.toString()).not.toBe('x');
  });

  it('matches Windows paths case-insensitively and Linux paths exactly', () => {
    const g = GuestFileSystems.fromTopology();
    const win = { target: 'lab-vc1', moid: 'vm-104' };
    expect(g.read(win, 'c:\\APP\\App.INI')?.toString()).toContain('port=8443');
    expect(g.read(win, 'C:/app/app.ini')?.toString()).toContain('port=8443');
    expect(g.read({ target: 'lab-vc1', moid: 'vm-101' }, '/ETC/app.conf')).toBeUndefined();
  });

  it('records deletions without losing the history, and notifies listeners', () => {
    const g = GuestFileSystems.fromTopology();
    const id = labVmIdentifier('lab-vc1', 'vm-108');
    const seen: string[] = [];
    g.onWrite((_vm, v) => seen.push(`${v.path}:${v.deleted}`));
    const t = g.now();
    g.delete(id, '/etc/motd');
    expect(g.read(id, '/etc/motd')).toBeUndefined();
    expect(g.readAt(id, '/etc/motd', t)?.toString()).toBe('test box\n');
    expect(g.listAt(id, t).map((f) => f.path)).toEqual(['/etc/motd']);
    expect(seen).toEqual(['/etc/motd:true']);
  });

  it('refuses relative paths', () => {
    const g = GuestFileSystems.fromTopology();
    expect(() => g.write({ target: 'lab-vc1', moid: 'vm-101' }, 'etc/x', 'y')).toThrow(/absolute/);
    expect(() => g.write({ target: 'lab-vc1', moid: 'vm-104' }, '/etc/x', 'y')).toThrow(/absolute/);
  });
});
