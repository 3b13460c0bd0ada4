// config.json `downstream[].undo_paths`, `undo_tools` and `guest_root`: which arguments of which
// downstream tool name a guest path (so a change records the paths it touches, and undo can put
// them back), which of the server's own tools write, read and delete a file for that put-back, and
// how a path the server sees maps onto the guest's own path. Only a declared path can be undone:
// a shell command (ssh, winrm) names files nobody can tell apart from its other words.
//
// The filesystem MCP server (@modelcontextprotocol/server-filesystem) is known: its defaults apply
// when its package is in the command or arguments, each overridable (docs/undo-guest-files.md).
import { z } from 'zod';
import type { ConfigProblem } from './problems.js';

const ARG_NAME = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, 'a top-level argument name of the tool');
const TOOL_NAME = z.string().min(1).max(128);

const PathTool = z.object({ tool: TOOL_NAME, path_arg: ARG_NAME.default('path') }).strict();
const WriteTool = z.object({ tool: TOOL_NAME, path_arg: ARG_NAME.default('path'), content_arg: ARG_NAME.default('content') }).strict();

export const DownstreamUndoFields = {
  undo_paths: z.record(TOOL_NAME, z.array(ARG_NAME).max(8)).optional()
    .describe('Per tool, the arguments that name a guest path it changes (e.g. move_file: [source, destination]); [] drops a default.'),
  undo_tools: z.object({
    write: WriteTool.nullable().optional(),
    read: PathTool.nullable().optional(),
    delete: PathTool.nullable().optional(),
  }).strict().optional()
    .describe('The server\'s own tools that put a file back (write), read it back to compare (read) and remove a file the change created (delete); null drops a default.'),
  guest_root: z.string().min(1).optional()
    .describe('The folder, as this server sees paths, that is the guest\'s / (a Linux guest\'s files mounted here). Absent: the server sees guest paths as they are (ssh).'),
};

export interface DeclaredUndo {
  undo_paths?: Record<string, string[]> | undefined;
  undo_tools?: {
    write?: { tool: string; path_arg: string; content_arg: string } | null | undefined;
    read?: { tool: string; path_arg: string } | null | undefined;
    delete?: { tool: string; path_arg: string } | null | undefined;
  } | undefined;
  guest_root?: string | undefined;
}

/** One of the server's tools, and the argument that takes the path (and the content, to write). */
export interface UndoToolRef {
  tool: string;
  pathArg: string;
  contentArg?: string;
}

/** A downstream server's guest-path handling, defaults and declarations merged. */
export interface GuestFileSpec {
  /** Tool name (the server's own) -> the arguments naming a guest path it changes. */
  paths: Record<string, string[]>;
  write?: UndoToolRef;
  read?: UndoToolRef;
  delete?: UndoToolRef;
  /** The server's path of the guest's `/`; absent: its paths are the guest's. */
  guestRoot?: string;
  /** Which built-in defaults applied ('filesystem'), if any. */
  defaults?: 'filesystem';
}

/** The filesystem MCP server's tools: what changes a path, and what puts a file back. It has no delete tool. */
const FILESYSTEM_DEFAULTS = {
  paths: { write_file: ['path'], edit_file: ['path'], move_file: ['source', 'destination'], create_directory: ['path'] } as Record<string, string[]>,
  write: { tool: 'write_file', pathArg: 'path', contentArg: 'content' },
  read: { tool: 'read_text_file', pathArg: 'path' },
};

/** Whether the command line runs the filesystem MCP server (npx package, global bin, or its dist/index.js). */
export function isFilesystemServer(command: string | undefined, args: readonly string[]): boolean {
  return [command ?? '', ...args].some((a) => /server-filesystem/.test(a));
}

/**
 * The server's spec: the built-in defaults (when it is the filesystem server) overridden by its
 * declarations, tool by tool. A declaration naming a tool outside the server's `tools` allowlist is
 * a problem (the gateway could never call or see it); a default outside it is simply left out.
 */
export function guestFileSpec(
  server: { command?: string | undefined; args: readonly string[]; tools?: readonly string[] | undefined },
  declared: DeclaredUndo, at: { file: string; path: string }, problems: ConfigProblem[],
): GuestFileSpec | undefined {
  const fs = isFilesystemServer(server.command, server.args);
  const allowed = (tool: string) => !server.tools || server.tools.includes(tool);
  const problem = (path: string, reason: string) => problems.push({ file: at.file, path: `${at.path}.${path}`, reason });
  const paths: Record<string, string[]> = {};
  if (fs) for (const [tool, args] of Object.entries(FILESYSTEM_DEFAULTS.paths)) if (allowed(tool)) paths[tool] = args;
  for (const [tool, args] of Object.entries(declared.undo_paths ?? {})) {
    if (!allowed(tool)) problem(`undo_paths.${tool}`, `'${tool}' is not in this server's tools allowlist, so no call to it is ever made; add it there or drop it here`);
    if (new Set(args).size !== args.length) problem(`undo_paths.${tool}`, 'an argument is named twice');
    if (args.length === 0) delete paths[tool];
    else paths[tool] = [...args];
  }
  const role = (name: 'write' | 'read' | 'delete', fallback: UndoToolRef | undefined): UndoToolRef | undefined => {
    const d = declared.undo_tools?.[name];
    if (d === null) return undefined;
    if (d === undefined) return fallback && allowed(fallback.tool) ? fallback : undefined;
    if (!allowed(d.tool)) problem(`undo_tools.${name}.tool`, `'${d.tool}' is not in this server's tools allowlist; the put-back can only call a tool the gateway exposes`);
    return { tool: d.tool, pathArg: d.path_arg, ...('content_arg' in d ? { contentArg: d.content_arg } : {}) };
  };
  const write = role('write', fs ? FILESYSTEM_DEFAULTS.write : undefined);
  const read = role('read', fs ? FILESYSTEM_DEFAULTS.read : undefined);
  const del = role('delete', undefined);
  if (declared.guest_root !== undefined && !declared.guest_root.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(declared.guest_root)) {
    problem('guest_root', `'${declared.guest_root}' is not an absolute path; give the folder the server sees as the guest's /`);
  }
  const root = declared.guest_root?.replace(/[\\/]+$/, '');
  if (Object.keys(paths).length === 0 && !write && !read && !del) return undefined;
  if (declared.undo_tools?.write && !read) {
    problem('undo_tools.read', 'a put-back is only done once the file is read back and compared; declare the read tool too (or undo_tools.write: null)');
  }
  return {
    paths,
    ...(write ? { write } : {}), ...(read ? { read } : {}), ...(del ? { delete: del } : {}),
    ...(root ? { guestRoot: root } : {}),
    ...(fs ? { defaults: 'filesystem' as const } : {}),
  };
}
