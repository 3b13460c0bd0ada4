// The guest paths a forwarded change touches, read from the arguments its server declares
// (config `undo_paths`), and the mapping between a path as the downstream server sees it and the
// guest's own path (config `guest_root`): the filesystem server sees the guest's `/` under a folder,
// an ssh server sees guest paths as they are. What is recorded here is what undo puts back
// (docs/undo-guest-files.md), so a declared argument that is missing, not a string, or not a path
// of the guest is refused before anything is forwarded.
import { posix } from 'node:path';
import type { GuestFileSpec } from '../config/downstream-undo.js';
import { AppError } from '../core/errors.js';
import { parseGuestPath } from '../zerto/guest-path.js';
import { ownText } from '../core/own-text.js';

/** One guest path a forwarded change touched: which server, tool and argument named it, on which VM. */
export interface GuestPathTouched {
  server: string;
  /** The downstream server's own tool name (write_file, not guestfs__write_file). */
  tool: string;
  arg: string;
  /** The guest's own path (`/etc/app.conf`, `C:\app\app.ini`). */
  path: string;
  /** `target` is the VM's vSphere target, empty when vSphere does not know the VM. */
  vm: { target: string; name: string; moid?: string };
}

/**
 * The guest paths a call of `tool` touches, in argument order; none when the server declares no
 * path argument for it. Throws `invalid_input` for a declared argument that is missing, not a
 * string, or not mappable to a guest path.
 */
export function touchedGuestPaths(
  server: string, spec: GuestFileSpec | undefined, tool: string, args: Record<string, unknown>, vm: GuestPathTouched['vm'],
): GuestPathTouched[] {
  const declared = spec?.paths[tool];
  if (!declared?.length) return [];
  return declared.map((arg) => {
    const value = args[arg];
    if (typeof value !== 'string' || value.trim() === '') {
      throw new AppError('invalid_input', `'${server}__${tool}' declares '${arg}' as a guest path it changes (config undo_paths), but the call ${value === undefined ? 'does not give it' : 'gives it as something other than a path string'}, so the change could not be undone. Nothing was forwarded.`, {
        hint: `Pass '${arg}' as the path of the file the call changes.`, details: { server, tool, arg },
      });
    }
    return { server, tool, arg, path: toGuestPath(server, spec!, value), vm };
  });
}

/** The guest's path for a path the downstream server sees; throws `invalid_input` when it is not one. */
export function toGuestPath(server: string, spec: GuestFileSpec, seen: string): string {
  let guest = seen.trim();
  if (spec.guestRoot) {
    const rel = posix.relative(spec.guestRoot, posix.normalize(guest));
    if (!posix.isAbsolute(guest) || rel.startsWith('..') || posix.isAbsolute(rel)) {
      throw new AppError('invalid_input', `'${seen}' is not under '${spec.guestRoot}', the folder downstream server '${server}' sees as the guest's / (config guest_root), so it names no guest file that could be put back. Nothing was forwarded.`, {
        hint: ownText(`Give the absolute path under ${spec.guestRoot}.`), details: { server, guest_root: spec.guestRoot },
      });
    }
    guest = `/${rel}`;
  }
  try {
    return parseGuestPath(guest).original;
  } catch (err) {
    const why = err instanceof AppError ? err.message : String(err);
    throw new AppError('invalid_input', `'${seen}' is not a guest path downstream server '${server}' can have undone: ${why} Nothing was forwarded.`, { details: { server } });
  }
}

/** The path the downstream server sees for a guest path (the inverse of toGuestPath). */
export function toDownstreamPath(spec: GuestFileSpec, guestPath: string): string {
  return spec.guestRoot ? posix.join(spec.guestRoot, guestPath) : guestPath;
}
