// One error type for everything we expect to go wrong. Errors are typed where they start (the SOAP
// fault translator, the ZVM client, the policy engine, ...) and rendered once, in tools/render.ts.
// The code tells an agent what kind of remedy applies; `retryable` says whether trying again
// unchanged can help; `hint` says what to do next, in words a model can act on.

import { ownText } from './own-text.js';

export type ErrorCode =
  | 'invalid_input'
  | 'not_found'
  | 'ambiguous_name'
  | 'policy_denied'
  | 'rate_limited'
  | 'confirmation_expired'
  | 'confirmation_invalid'
  | 'approval_required'
  | 'unreachable'
  | 'timeout'
  | 'auth_failed'
  | 'task_failed'
  | 'vim_fault'
  | 'invalid_state'
  | 'checkpoint_failed'
  | 'checkpoint_timeout'
  /** The checkpoint was in the journal once and is gone now: the journal rolled past it, filled up or re-synced. */
  | 'checkpoint_expired'
  | 'not_protected'
  | 'protection_unknown'
  | 'flr_failed'
  | 'zerto_error'
  | 'audit_failed'
  /** Shared state (the database in central mode) cannot be reached: changes fail closed. */
  | 'unavailable'
  | 'config_invalid'
  | 'cancelled'
  | 'internal';

export interface AppErrorOptions {
  retryable?: boolean;
  hint?: string;
  /** Safe, already-redacted structured details (e.g. candidate moids). Never secrets. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly retryable: boolean;
  readonly hint: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.retryable = options.retryable ?? DEFAULT_RETRYABLE.has(code);
    this.hint = options.hint;
    this.details = options.details;
  }
}

const DEFAULT_RETRYABLE = new Set<ErrorCode>(['unreachable', 'unavailable', 'timeout', 'rate_limited', 'protection_unknown']);

export function isAppError(err: unknown): err is AppError {
  return err instanceof AppError;
}

/** The JSON an agent sees for an error, in every tool result and fan-out slot. */
export interface PublicError {
  code: ErrorCode;
  message: string;
  retryable: boolean;
  hint?: string;
  details?: Record<string, unknown>;
}

/**
 * Turns anything thrown into the public shape. Non-AppErrors are bugs or unexpected library
 * failures: their message is kept (it rarely carries secrets, and the redactor runs over results
 * anyway) but they are labelled `internal`.
 */
export function toPublicError(err: unknown): PublicError {
  if (isAppError(err)) {
    const out: PublicError = { code: err.code, message: err.message, retryable: err.retryable };
    if (err.hint !== undefined) out.hint = err.hint;
    if (err.details !== undefined) out.details = err.details;
    return out;
  }
  if (err instanceof Error && err.name === 'AbortError') {
    return { code: 'cancelled', message: ownText('The call was cancelled before it finished.'), retryable: true };
  }
  const message = err instanceof Error ? err.message : String(err);
  return {
    code: 'internal',
    message: `Unexpected internal error: ${message}`,
    retryable: false,
    hint: ownText('This is a bug in zerto-rewind-mcp; the server log on stderr has the details.'),
  };
}

/** Rebuilds a throwable error from its public shape (when a finished outcome must be re-raised). */
export function fromPublicError(e: PublicError): AppError {
  const options: AppErrorOptions = { retryable: e.retryable };
  if (e.hint !== undefined) options.hint = e.hint;
  if (e.details !== undefined) options.details = e.details;
  return new AppError(e.code, e.message, options);
}
