// The JSON API behind the page. Read routes are thin views over the injected ports; the only writes
// are confirm and cancel of a proposal that already exists (the UI never creates or edits anything:
// actions stay on the MCP path). Authentication happens before this handler is reached.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { crossSiteRejection } from './csrf.js';
import { HttpError, clientAddress, readJsonObject, sendError, sendJson } from './http.js';
import type { Admission } from './gate.js';
import type { DashboardAuditQuery, DashboardPorts, InventoryKind } from './ports.js';
import type { Logger } from '../core/logger.js';

const INVENTORY_KINDS: readonly InventoryKind[] = ['vms', 'hosts', 'clusters', 'datastores'];
const AUDIT_DEFAULT_LIMIT = 100;
const AUDIT_MAX_LIMIT = 1000;
const MAX_FILTER_LENGTH = 200;
// Proposal ids are server-generated; anything else in the path is not one of ours.
const PROPOSAL_ACTION = /^\/api\/proposals\/([A-Za-z0-9._:-]{1,128})\/(confirm|cancel)$/;
// The typed name lands in the audit identity, `web-ui@addr (name)`: letters, digits, spaces and a
// little punctuation, so a name cannot forge a second identity with parentheses or newlines.
const APPROVER_NAME = /^[\p{L}\p{N} .,'@_-]{1,64}$/u;

type SignedInUser = NonNullable<Admission['user']>;

/** `user`: the signed-in user in OIDC mode (the approver); undefined in token mode. */
export type ApiHandler = (req: IncomingMessage, res: ServerResponse, url: URL, user?: SignedInUser) => Promise<void>;

export function createApiHandler(ports: DashboardPorts, logger: Logger): ApiHandler {
  return async (req, res, url, user) => {
    try {
      await route(req, res, url, ports, logger, user);
    } catch (err) {
      if (err instanceof HttpError) {
        sendError(res, err.status, err.code, err.message);
        return;
      }
      const { status, code, message } = portFailure(err);
      logger.warn({ path: url.pathname, code, err: message }, 'dashboard API call failed');
      sendError(res, status, code, message);
    }
  };
}

async function route(
  req: IncomingMessage,
  res: ServerResponse,
  url: URL,
  ports: DashboardPorts,
  logger: Logger,
  user: SignedInUser | undefined,
): Promise<void> {
  const path = url.pathname;
  const action = PROPOSAL_ACTION.exec(path);
  if (action !== null) {
    requireMethod(req, 'POST');
    const rejection = crossSiteRejection(req);
    if (rejection !== undefined) {
      logger.warn({ path, reason: rejection, client: clientAddress(req) }, 'dashboard refused a cross-site write');
      throw new HttpError(403, 'forbidden', 'Cross-site request refused.');
    }
    const id = action[1] as string;
    // As over MCP: confirm_action and cancel_action need vsphere:change (confirm also the tool's own scope).
    requireScope(user, 'vsphere:change');
    const body = await readJsonObject(req);
    const approver = user ? signedInApprover(user, body) : approverIdentity(req, body);
    const principal = user?.principal;
    if (action[2] === 'confirm') {
      logger.info({ id, approver }, 'dashboard confirm');
      sendJson(res, 200, await ports.confirm(id, approver, principal));
    } else {
      logger.info({ id, approver }, 'dashboard cancel');
      sendJson(res, 200, await ports.cancel(id, approver, principal));
    }
    return;
  }

  // Every read shows vCenter inventory, proposals or audit: the MCP read scope, as over MCP.
  if (path !== '/api/session') requireScope(user, 'vsphere:read');
  switch (path) {
    case '/api/session':
      requireMethod(req, 'GET');
      // How the page shows who approves: the signed-in user, or (token mode) a typed name.
      sendJson(res, 200, user ? { sign_in: 'oidc', identity: user.principal.identity, name: user.name, scopes: user.principal.scopes } : { sign_in: 'token' });
      return;
    case '/api/proposals':
      requireMethod(req, 'GET');
      // `now` lets the page correct its countdowns for a browser clock that differs from ours.
      sendJson(res, 200, { now: new Date().toISOString(), proposals: await ports.listProposals() });
      return;
    case '/api/targets':
      requireMethod(req, 'GET');
      sendJson(res, 200, { targets: await ports.targets() });
      return;
    case '/api/inventory': {
      requireMethod(req, 'GET');
      const kind = url.searchParams.get('kind') ?? 'vms';
      if (!(INVENTORY_KINDS as readonly string[]).includes(kind)) {
        throw new HttpError(400, 'invalid_input', `kind must be one of ${INVENTORY_KINDS.join(', ')}.`);
      }
      const names = ports.targetNames();
      const target = url.searchParams.get('target') || 'all';
      if (target !== 'all' && !names.includes(target)) {
        throw new HttpError(400, 'invalid_input', 'Unknown target; use a configured target name or "all".');
      }
      const inventory = await ports.inventory(kind as InventoryKind, target);
      // The target list rides along so the page can fill its selector without another route.
      sendJson(res, 200, { kind, target, targets: names, results: inventory.results });
      return;
    }
    case '/api/audit': {
      requireMethod(req, 'GET');
      const records = await ports.auditTail(auditQuery(url.searchParams));
      sendJson(res, 200, { records });
      return;
    }
    default:
      throw new HttpError(404, 'not_found', 'No such API route.');
  }
}

/**
 * A signed-in user needs the MCP scope a call needs over MCP: signing in proves who someone is,
 * not what they may do. Token mode has no user and no scopes (the token holder is the operator).
 */
function requireScope(user: SignedInUser | undefined, scope: string): void {
  if (user && !user.principal.scopes.includes(scope)) {
    throw new HttpError(403, 'insufficient_scope', `You are signed in as ${user.principal.identity}, but your identity provider did not grant you the ${scope} scope for this server, so the dashboard shows and changes nothing for you. Ask your IdP administrator for it, then sign in again.`);
  }
}

function requireMethod(req: IncomingMessage, method: 'GET' | 'POST'): void {
  if (req.method !== method) throw new HttpError(405, 'method_not_allowed', `Use ${method}.`);
}

/** `web-ui@<client address>`, plus ` (<name>)` when the human typed one. */
function approverIdentity(req: IncomingMessage, body: Record<string, unknown>): string {
  const base = `web-ui@${clientAddress(req)}`;
  const raw = body['name'];
  if (raw === undefined || raw === null) return base;
  if (typeof raw !== 'string') throw new HttpError(400, 'invalid_input', 'name must be a string.');
  const name = raw.trim().replace(/\s+/g, ' ');
  if (name.length === 0) return base;
  if (!APPROVER_NAME.test(name)) {
    throw new HttpError(400, 'invalid_input', "name may hold up to 64 letters, digits, spaces and . , ' @ _ -");
  }
  return `${base} (${name})`;
}

/** OIDC mode: the approver is the session's verified identity; a typed name has no place here. */
function signedInApprover(user: SignedInUser, body: Record<string, unknown>): string {
  if (body['name'] !== undefined && body['name'] !== null && body['name'] !== '') {
    throw new HttpError(400, 'invalid_input', `You are signed in as ${user.principal.identity}; that is the approver. Send no name.`);
  }
  return user.principal.identity;
}

function auditQuery(params: URLSearchParams): DashboardAuditQuery {
  const rawLimit = params.get('limit');
  let limit = AUDIT_DEFAULT_LIMIT;
  if (rawLimit !== null && rawLimit !== '') {
    const n = Number(rawLimit);
    if (!Number.isInteger(n) || n < 1) throw new HttpError(400, 'invalid_input', 'limit must be a positive integer.');
    limit = Math.min(n, AUDIT_MAX_LIMIT);
  }
  const query: DashboardAuditQuery = { limit };
  for (const key of ['tool', 'target', 'phase', 'text'] as const) {
    const value = params.get(key)?.trim();
    if (value === undefined || value === '') continue;
    if (value.length > MAX_FILTER_LENGTH) throw new HttpError(400, 'invalid_input', `${key} is longer than ${MAX_FILTER_LENGTH} characters.`);
    query[key] = value;
  }
  return query;
}

// Ports throw the server's typed errors (duck-typed here: the dashboard does not import the store).
// Known "your request is stale" codes become 404/409 so the page can say so; anything else is 500.
function portFailure(err: unknown): { status: number; code: string; message: string } {
  const code = typeof (err as { code?: unknown })?.code === 'string' ? (err as { code: string }).code : 'internal';
  const message = err instanceof Error ? err.message : String(err);
  if (code === 'not_found') return { status: 404, code, message };
  // Four eyes, or a gate the page cannot pass: the request is understood and refused.
  if (code === 'approval_required') return { status: 403, code, message };
  if (code === 'confirmation_invalid' || code === 'confirmation_expired' || code === 'invalid_state' || code === 'policy_denied') {
    return { status: 409, code, message };
  }
  return { status: code === 'internal' ? 500 : 502, code, message };
}
