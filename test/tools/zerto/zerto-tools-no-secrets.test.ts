// No bearer token, password or other secret reaches an audit line, a tool result or a log line,
// across successes, retries, token expiry, auth failures and a file restore.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { LAB_CREDENTIALS } from '../../../src/lab/topology.js';
import type { Logger } from '../../../src/core/logger.js';
import { startLabHarness, type LabHarness } from '../../support/lab-harness.js';
import { errorOf, ok } from './support.js';
import { zvmFaults } from '../../../src/lab/zvm/testing/faults.js';

const CLIENT_SECRET = 'lab-client-secret-7d1e9f';
const logs: string[] = [];
const capture = (level: string) => (obj: object, msg?: string) => {
  logs.push(JSON.stringify({ level, ...obj, msg }));
};
const logger: Logger = { debug: capture('debug'), info: capture('info'), warn: capture('warn'), error: capture('error') };

let h: LabHarness;
beforeAll(async () => {
  h = await startLabHarness({ zvmTaskMs: 50, taskMs: 20, logger, env: { LAB_EXTRA_CLIENT_SECRET: CLIENT_SECRET } });
});
afterAll(async () => {
  await h?.close();
});

it('keeps tokens and passwords out of audit lines, results and logs', async () => {
  const results: string[] = [];
  const call = async (name: string, args: Record<string, unknown>, opts?: Parameters<LabHarness['call']>[2]) => {
    const r = await h.call(name, args, opts);
    results.push(r.text);
    return r;
  };
  const zvm = h.lab.zvms.get('lab-zvm')!;

  zvmFaults(zvm).slowTasks(300);
  let expired = false;
  const cp = ok(await call('zerto_create_tagged_checkpoint', { vm: 'app-01', action: 'secrets', change_id: 'sec-1' }, {
    onprogress: () => {
      if (!expired) zvmFaults(zvm).expireTokens();
      expired = true;
    },
  }));
  zvmFaults(zvm).reset();
  zvmFaults(zvm).failRoute('GET /v1/vpgs/:id', 1, 502);
  ok(await call('zerto_find_protection', { vm: 'app-01.lab.local' }));
  ok(await call('lab_write_guest_file', { vm: 'app-01', path: '/etc/app.conf', content: 'bad\n', change_id: 'sec-1' }));
  // An agent pasting secrets into arguments: they are audited, so they must be redacted there.
  ok(await call('zerto_guard_before_mutate', { tool: 'lab_write_guest_file', args: { vm: 'win-app-01', password: LAB_CREDENTIALS.password, key: CLIENT_SECRET } }));
  const proposal = ok(await call('zerto_recover_file', { vm: 'app-01', path: '/etc/app.conf', tag: cp.tag }));
  ok(await call('confirm_action', { token: proposal.token }));
  ok(await call('zerto_list_flr_sessions', {}));

  // Every token stops working and the token endpoint refuses: the error must not echo anything.
  zvmFaults(zvm).expireTokens();
  zvmFaults(zvm).failRoute('POST /auth/realms/zerto/protocol/openid-connect/token', 5, 401, 'invalid_grant');
  expect(errorOf(await call('zerto_find_protection', { vm: 'app-01' })).code).toMatch(/auth_failed|unreachable|zerto_error/);
  zvmFaults(zvm).reset();

  const tokens = [...h.lab.zvms.values()].flatMap((z) => [...z.state.tokens.keys()]);
  expect(tokens.length).toBeGreaterThanOrEqual(2);
  const secrets = [LAB_CREDENTIALS.password, CLIENT_SECRET, ...tokens];
  const audit = readFileSync(h.auditPath, 'utf8');
  expect(audit.length).toBeGreaterThan(0);
  expect(logs.length).toBeGreaterThan(0);
  for (const secret of secrets) {
    expect(audit.includes(secret), 'audit log').toBe(false);
    expect(results.some((r) => r.includes(secret)), 'tool results').toBe(false);
    expect(logs.some((l) => l.includes(secret)), 'log lines').toBe(false);
  }
  expect([audit, ...results, ...logs].some((t) => /Bearer\s+eyJ/.test(t))).toBe(false);
  expect(audit).toContain('zerto_guard_before_mutate');
});
