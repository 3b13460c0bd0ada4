// config.json downstream[].undo_paths / undo_tools / guest_root: the filesystem server's defaults,
// overrides, and clear problems at load for what could never work.
import { describe, expect, it } from 'vitest';
import { parseAppConfig } from '../../src/config/app-config.js';

const FS = { name: 'guestfs', command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/srv/app-01-root'], vm: 'app-01' };
const SSH = { name: 'ssh', command: '/opt/mcp/bin/ssh-mcp', args: ['--stdio'] };

function load(...downstream: Array<Record<string, unknown>>) {
  return parseAppConfig({ downstream }, 'config.json');
}

describe('guest-path declarations', () => {
  it('the filesystem server, detected by its package, gets its defaults: paths of every changing tool, write_file and read_text_file, no delete', () => {
    const { config, problems } = load({ ...FS, guest_root: '/srv/app-01-root/' });
    expect(problems).toEqual([]);
    expect(config!.downstream[0]!.guestFiles).toEqual({
      paths: { write_file: ['path'], edit_file: ['path'], move_file: ['source', 'destination'], create_directory: ['path'] },
      write: { tool: 'write_file', pathArg: 'path', contentArg: 'content' },
      read: { tool: 'read_text_file', pathArg: 'path' },
      guestRoot: '/srv/app-01-root',
      defaults: 'filesystem',
    });
  });

  it('a tools allowlist narrows the defaults to what the gateway exposes', () => {
    const { config } = load({ ...FS, tools: ['read_text_file', 'write_file', 'edit_file'] });
    expect(Object.keys(config!.downstream[0]!.guestFiles!.paths)).toEqual(['write_file', 'edit_file']);
    expect(config!.downstream[0]!.guestFiles!.read?.tool).toBe('read_text_file');
  });

  it('declarations override defaults tool by tool: [] drops a path declaration, null drops a tool', () => {
    const { config, problems } = load({ ...FS, undo_paths: { move_file: [], write_file: ['path'] }, undo_tools: { delete: { tool: 'remove_file' }, write: { tool: 'write_file', content_arg: 'text' } } });
    expect(problems).toEqual([]);
    const spec = config!.downstream[0]!.guestFiles!;
    expect(Object.keys(spec.paths)).toEqual(['write_file', 'edit_file', 'create_directory']);
    expect(spec.delete).toEqual({ tool: 'remove_file', pathArg: 'path' });
    expect(spec.write).toEqual({ tool: 'write_file', pathArg: 'path', contentArg: 'text' });
  });

  it('an ssh-style server has no defaults: nothing is recorded, so nothing can be undone, until its paths are declared', () => {
    expect(load(SSH).config!.downstream[0]!.guestFiles).toBeUndefined();
    const { config, problems } = load({ ...SSH, undo_paths: { upload: ['remote_path'] }, undo_tools: { write: { tool: 'upload', path_arg: 'remote_path' }, read: { tool: 'cat', path_arg: 'file' } } });
    expect(problems).toEqual([]);
    expect(config!.downstream[0]!.guestFiles).toMatchObject({ paths: { upload: ['remote_path'] }, write: { tool: 'upload', pathArg: 'remote_path', contentArg: 'content' } });
    expect(config!.downstream[0]!.guestFiles!.guestRoot).toBeUndefined();
  });

  it('refuses at load, each with its path and reason: a tool outside the allowlist, a relative guest_root, a write without a read, bad shapes', () => {
    const { problems } = load(
      { ...FS, tools: ['write_file', 'read_text_file'], undo_paths: { move_file: ['source'] }, guest_root: 'srv/app' },
      { ...SSH, undo_paths: { upload: ['path'] }, undo_tools: { write: { tool: 'upload' } } },
    );
    expect(problems).toEqual(expect.arrayContaining([
      expect.objectContaining({ path: 'downstream[0].undo_paths.move_file', reason: expect.stringContaining("not in this server's tools allowlist") }),
      expect.objectContaining({ path: 'downstream[0].guest_root', reason: expect.stringContaining('not an absolute path') }),
      expect.objectContaining({ path: 'downstream[1].undo_tools.read', reason: expect.stringContaining('declare the read tool too') }),
    ]));
    const shape = load({ ...FS, undo_paths: { write_file: ['a b'] }, undo_tools: { move: { tool: 'x' } } }).problems;
    expect(shape.map((p) => p.path)).toEqual(expect.arrayContaining(['downstream[0].undo_paths.write_file[0]', 'downstream[0].undo_tools']));
  });
});
