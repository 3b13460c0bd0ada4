// Turning a ZVM's non-2xx answer into an AppError. The 10.x error body is not settled (open
// question in docs/zerto-notes.md): the Windows ZVM sent `{"Message": ...}`, Keycloak sends
// `{"error", "error_description"}`, ASP.NET Core may send ProblemDetails (`title`/`detail`) or a
// validation map (`errors`), and proxies send HTML. Every shape yields a readable message, and
// every message passes through `redactSecrets` before it leaves this module.

import { AppError, type ErrorCode } from '../core/errors.js';

const MAX_MESSAGE = 400;

/** The human text inside an error body, whatever its shape, or undefined when there is none. */
export function errorBodyText(body: Buffer, contentType: string | undefined): string | undefined {
  const text = body.toString('utf8').trim();
  if (text.length === 0) return undefined;
  const looksJson = /json/i.test(contentType ?? '') || text.startsWith('{') || text.startsWith('"') || text.startsWith('[');
  if (looksJson) {
    try {
      const fromJson = messageFromJson(JSON.parse(text) as unknown);
      if (fromJson) return clip(fromJson);
    } catch {
      // Not JSON after all: fall through to the text handling.
    }
  }
  // HTML error pages from a reverse proxy: keep the words, drop the markup.
  const plain = /<[a-z!/]/i.test(text) ? text.replace(/<script[\s\S]*?<\/script>|<style[\s\S]*?<\/style>/gi, ' ').replace(/<[^>]+>/g, ' ') : text;
  const squeezed = plain.replace(/\s+/g, ' ').trim();
  return squeezed ? clip(squeezed) : undefined;
}

function messageFromJson(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (Array.isArray(value)) return value.map(messageFromJson).filter(Boolean).join('; ') || undefined;
  if (!value || typeof value !== 'object') return undefined;
  const o = lowerKeys(value as Record<string, unknown>);
  const parts: string[] = [];
  // Web API's {Message, ExceptionMessage}, Keycloak's {error, error_description}, ProblemDetails.
  for (const key of ['message', 'exceptionmessage', 'error_description', 'detail', 'title']) {
    const v = o[key];
    if (typeof v === 'string' && v && !parts.includes(v)) parts.push(v);
  }
  if (parts.length === 0 && typeof o['error'] === 'string') parts.push(o['error']);
  if (parts.length === 0 && o['error'] && typeof o['error'] === 'object') {
    const nested = messageFromJson(o['error']);
    if (nested) parts.push(nested);
  }
  const errors = o['errors'];
  if (errors && typeof errors === 'object' && !Array.isArray(errors)) {
    for (const [field, msgs] of Object.entries(errors as Record<string, unknown>)) {
      const list = Array.isArray(msgs) ? msgs.filter((m) => typeof m === 'string') : [];
      if (list.length) parts.push(`${field}: ${list.join(', ')}`);
    }
  }
  return parts.length ? parts.join(' - ') : undefined;
}

function lowerKeys(o: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) out[k.toLowerCase()] = v;
  return out;
}

function clip(s: string): string {
  return s.length > MAX_MESSAGE ? `${s.slice(0, MAX_MESSAGE)}...` : s;
}

/** Cuts every known secret (bearer token, password, client secret) and any Bearer header out. */
export function redactSecrets(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s.length >= 4 && out.includes(s)) out = out.split(s).join('[REDACTED]');
  return out.replace(/\bBearer\s+[A-Za-z0-9._~+/=-]{8,}/g, 'Bearer [REDACTED]');
}

export interface HttpFailure {
  site: string;
  method: string;
  route: string;
  status: number;
  body: Buffer;
  contentType: string | undefined;
  secrets: readonly string[];
}

/** The AppError for a /v1 call that answered with a non-2xx status. */
export function httpFailureError(f: HttpFailure): AppError {
  const serverText = errorBodyText(f.body, f.contentType);
  const said = serverText ? `: ${serverText}` : '';
  const message = redactSecrets(`Zerto site '${f.site}' refused ${f.method} ${f.route} (HTTP ${f.status})${said}`, f.secrets);
  const details = { site: f.site, status: f.status, route: `${f.method} ${f.route}` };
  const [code, retryable, hint] = classify(f.status);
  return new AppError(code, message, { retryable, details, ...(hint ? { hint } : {}) });
}

function classify(status: number): [ErrorCode, boolean, string | undefined] {
  if (status === 401) return ['auth_failed', false, 'The ZVM rejected a fresh token; check the account and that it is enabled in Keycloak.'];
  if (status === 403) return ['auth_failed', false, 'The Zerto account lacks a role for this operation (FLR and checkpoints need a manage-VPG role).'];
  if (status === 404) return ['not_found', false, undefined];
  if (status === 408 || status === 429) return ['zerto_error', true, 'The ZVM is busy; try again shortly.'];
  if (status >= 500) return ['zerto_error', true, 'The ZVM reported an internal error; try again, and check the appliance if it persists.'];
  return ['zerto_error', false, undefined];
}
