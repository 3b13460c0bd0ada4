// Translation of everything the wire can throw into AppError, in one place. A SOAP fault keeps its
// vim fault name in `details.fault` (callers and the re-login logic test it with `faultNameOf`);
// the AppError code says what kind of remedy applies. Messages never carry credentials: the only
// inputs are the fault name, vSphere's faultstring and the target's name and host.

import { AppError } from '../../core/errors.js';
import type { ParsedFault } from './xml.js';
import { ownText } from '../../core/own-text.js';

/** Who we were talking to, for messages and hints. */
export interface FaultContext {
  target: string;
  host: string;
  credentialPrefix?: string;
  method?: string;
}

const NOT_FOUND = new Set(['ManagedObjectNotFound', 'NotFound', 'FileNotFound']);
const INVALID_STATE = new Set([
  'InvalidState',
  'InvalidPowerState',
  'InvalidHostState',
  'InvalidDatastoreState',
  'TaskInProgress',
  'ConcurrentAccess',
  'InvalidSnapshotFormat',
  'ToolsUnavailable',
  'DisallowedOperationOnFailoverHostBase',
  'VmConfigIncompatibleForPowerOff',
]);

export function credentialHint(prefix: string | undefined, target: string): string {
  if (!prefix) return ownText(`Check the credentials configured for vSphere target '${target}'.`);
  return ownText(`Check ${prefix}_USER and ${prefix}_PASSWORD in the server's environment for target '${target}'.`);
}

export function faultToAppError(fault: ParsedFault, ctx: FaultContext): AppError {
  const name = fault.faultName ?? (fault.faultcode || 'SoapFault');
  const text = fault.faultstring || name;
  const where = `vSphere target '${ctx.target}' (${ctx.host})`;
  const details: Record<string, unknown> = { fault: name, target: ctx.target };
  if (ctx.method) details.method = ctx.method;
  if (name === 'InvalidLogin') {
    return new AppError('auth_failed', `${where} rejected the login: ${text}`, {
      details,
      hint: credentialHint(ctx.credentialPrefix, ctx.target),
    });
  }
  if (name === 'NotAuthenticated') {
    return new AppError('auth_failed', `${where} says the session is not authenticated: ${text}`, {
      details,
      retryable: true,
      hint: ownText('The session expired and logging in again did not help; retry, then check the account.'),
    });
  }
  if (NOT_FOUND.has(name)) {
    return new AppError('not_found', `${where}: ${text}`, {
      details,
      hint: ownText('The object may have been deleted or the moid belongs to another target; list it again.'),
    });
  }
  if (INVALID_STATE.has(name)) {
    return new AppError('invalid_state', `${where}: ${name}: ${text}`, {
      details,
      hint: ownText('The object is not in a state that allows this operation; read its state and retry.'),
    });
  }
  if (name === 'MethodNotFound') {
    return new AppError('vim_fault', `${where} does not implement ${ctx.method ?? 'this method'}: ${text}`, {
      details,
    });
  }
  return new AppError('vim_fault', `${where}: ${name}: ${text}`, { details });
}

/** The vim fault name carried by an error from this client, if any. */
export function faultNameOf(err: unknown): string | undefined {
  if (err instanceof AppError && typeof err.details?.fault === 'string') return err.details.fault;
  return undefined;
}

const CONNECT_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  'UND_ERR_CONNECT_TIMEOUT',
]);

function errorCode(err: unknown): string | undefined {
  let e: unknown = err;
  for (let i = 0; i < 4 && e && typeof e === 'object'; i++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Transport failures: refused/reset/DNS → `unreachable`; our deadline → `timeout`; the caller's
 * abort → `cancelled`; TLS verification → `unreachable`, not retryable, with a CA hint.
 */
export function transportToAppError(err: unknown, ctx: FaultContext, why: 'timeout' | 'aborted' | undefined): AppError {
  const where = `vSphere target '${ctx.target}' (${ctx.host})`;
  const details: Record<string, unknown> = { target: ctx.target };
  if (ctx.method) details.method = ctx.method;
  if (why === 'timeout') {
    return new AppError('timeout', `${where} did not answer ${ctx.method ?? 'the call'} in time`, {
      details,
      cause: err,
      hint: ownText('vCenter is slow or hung; try again later or narrow the request.'),
    });
  }
  if (why === 'aborted') {
    return new AppError('cancelled', `The call to ${where} was cancelled`, { details, cause: err, retryable: true });
  }
  const code = errorCode(err);
  if (code && (code.includes('CERT') || code.startsWith('ERR_TLS') || code === 'UNABLE_TO_VERIFY_LEAF_SIGNATURE')) {
    return new AppError('unreachable', `${where}: TLS verification failed (${code})`, {
      details: { ...details, tls: code },
      retryable: false,
      cause: err,
      hint: ownText("Set the target's ca_file to the CA that signed vCenter's certificate (or insecure: true for a lab)."),
    });
  }
  const reason = code ?? (err instanceof Error ? err.message : 'connection failed');
  return new AppError('unreachable', `${where} is unreachable: ${reason}`, {
    details: CONNECT_CODES.has(code ?? '') ? { ...details, errno: code } : details,
    cause: err,
    hint: ownText('Check the host and port in targets.yaml and that vCenter is up.'),
  });
}
