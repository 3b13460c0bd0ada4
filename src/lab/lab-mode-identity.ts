// What `--lab` decides before its simulators start: what its handshake advertises, and whether
// its settings are usable. main.ts opens the stdio connection first and answers `initialize` and
// `server/discover` while the lab starts; a module of its own so that this loads no simulator.
import { ConfigError } from '../config/problems.js';
import { readSettings } from '../config/settings.js';

/** `--lab` always puts the filesystem MCP server behind the gateway (lab-mode.ts startLabMode). */
export const LAB_MODE_GUESTFS = true;

/**
 * Whether `--lab`'s tool list changes while it runs (server-identity.ts toolListChanges of the
 * lab's configuration): the gateway's downstream server brings its tools later.
 */
export function labModeToolListChanges(): boolean {
  return LAB_MODE_GUESTFS;
}

/** Malformed settings (DRY_RUN=maybe must not quietly mean false) stop lab mode: the error, else undefined. */
export function labSettingsError(env: Record<string, string | undefined>): ConfigError | undefined {
  const { problems } = readSettings(env);
  return problems.length ? new ConfigError(problems.map((p) => ({ file: 'environment', path: p.variable, reason: p.reason }))) : undefined;
}
