// The dashboard's OIDC sign-in settings (WEB_UI_OIDC_*, WEB_UI_PUBLIC_URL) as HTTP mode reads
// them, what it refuses at startup, and the identity rules the four-eyes check rests on.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadHttpConfig } from '../../../src/mcp/http/http-config.js';
import { startDashboard } from '../../../src/dashboard/server.js';
import { claimRefusal } from '../../../src/core/confirmation-store.js';
import { isVerifiedIdentity } from '../../../src/core/principal.js';
import { tagAgentOf } from '../../../src/core/identity.js';
import { silentLogger } from '../../support/harness.js';
import { seededPorts } from '../../dashboard/fake-ports.js';
import { checkProcess } from '../../../src/commands/check/process-checks.js';
import { startLab } from '../../../src/lab/testing/index.js';
import { tempDir } from '../../support/harness.js';
import { startTestIssuer } from '../../support/test-issuer.js';
import { startLabHarness } from '../../support/lab-harness.js';
import { serveHttp } from '../../../src/app/serve-http.js';
import type { Logger } from '../../../src/core/logger.js';

const BIN = fileURLToPath(new URL('../../../dist/main.js', import.meta.url));

/** The built binary run to its end, in a folder of its own. */
function runBinary(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [BIN, ...args], { cwd: tempDir('zr-bin-'), env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => { stdout += d.toString(); });
    child.stderr.on('data', (d: Buffer) => { stderr += d.toString(); });
    child.once('exit', (code) => resolve({ code, stdout, stderr }));
  });
}

const ISSUER = 'https://keycloak.example/realms/ops';

describe('WEB_UI_OIDC_* in HTTP mode', () => {
  it('turns the dashboard sign-in on with the issuer of the MCP tokens, the default scopes and the secret from the environment', () => {
    const cfg = loadHttpConfig({
      OAUTH_ISSUER: ISSUER, WEB_UI_OIDC_CLIENT_ID: 'zr-dashboard', WEB_UI_OIDC_CLIENT_SECRET: 's3cret', WEB_UI_PUBLIC_URL: 'https://approvals.example/', OAUTH_GROUPS_CLAIM: 'roles',
      MCP_PUBLIC_URL: 'https://mcp.example/',
    }, false);
    expect(cfg.dashboardSignIn).toEqual({
      issuer: ISSUER, clientId: 'zr-dashboard', clientSecret: 's3cret', publicUrl: 'https://approvals.example/', groupsClaim: 'roles', resource: 'https://mcp.example/mcp',
      scope: 'openid profile vsphere:read vsphere:change vsphere:destructive zerto:restore',
    });
  });

  it('leaves the token dashboard in place without a client id', () => {
    expect(loadHttpConfig({ OAUTH_ISSUER: ISSUER }, false).dashboardSignIn).toBeUndefined();
  });

  it('refuses a sign-in that would not know the MCP resource (no MCP_PUBLIC_URL, no OAUTH_AUDIENCE): nobody could approve', () => {
    expect(() => loadHttpConfig({ OAUTH_ISSUER: ISSUER, WEB_UI_OIDC_CLIENT_ID: 'zr-dashboard' }, false))
      .toThrow(/neither MCP_PUBLIC_URL nor OAUTH_AUDIENCE.*nobody could approve.*Set MCP_PUBLIC_URL/);
    // OAUTH_AUDIENCE alone names the resource the sign-in asks for.
    expect(loadHttpConfig({ OAUTH_ISSUER: ISSUER, WEB_UI_OIDC_CLIENT_ID: 'zr-dashboard', OAUTH_AUDIENCE: 'api://zerto-rewind' }, false).dashboardSignIn?.resource).toBe('api://zerto-rewind');
    // Without the dashboard's sign-in, the same settings start (serve-http warns instead).
    expect(loadHttpConfig({ OAUTH_ISSUER: ISSUER }, false).oauth?.issuer).toBe(ISSUER);
  });

  it('refuses a client id without an issuer, a scope without openid, and a public URL that is not a URL', () => {
    expect(() => loadHttpConfig({ WEB_UI_OIDC_CLIENT_ID: 'zr-dashboard' }, true)).toThrow(/OAUTH_ISSUER/);
    expect(() => loadHttpConfig({ OAUTH_ISSUER: ISSUER, WEB_UI_OIDC_CLIENT_ID: 'x', WEB_UI_OIDC_SCOPE: 'profile vsphere:read' }, false)).toThrow(/must include 'openid'/);
    expect(() => loadHttpConfig({ OAUTH_ISSUER: ISSUER, WEB_UI_OIDC_CLIENT_ID: 'x', WEB_UI_PUBLIC_URL: 'approvals.example' }, false)).toThrow(/WEB_UI_PUBLIC_URL/);
  });

  it('takes WEB_UI_SESSION_SECRET, and refuses a short or predictable one without echoing it', () => {
    const good = 'f3a91c0e7b5d2c8a4e6f1b9d0c7a3e5b';
    expect(loadHttpConfig({ OAUTH_ISSUER: ISSUER, MCP_PUBLIC_URL: 'https://mcp.example', WEB_UI_OIDC_CLIENT_ID: 'x', WEB_UI_SESSION_SECRET: good }, false).dashboardSignIn?.sessionSecret).toBe(good);
    for (const bad of ['short-secret-1234', 'ab'.repeat(20)]) {
      let message = '';
      try {
        loadHttpConfig({ OAUTH_ISSUER: ISSUER, MCP_PUBLIC_URL: 'https://mcp.example', WEB_UI_OIDC_CLIENT_ID: 'x', WEB_UI_SESSION_SECRET: bad }, false);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(/WEB_UI_SESSION_SECRET is too short or too predictable.*openssl rand/);
      expect(message).not.toContain(bad);
    }
  });

  it('refuses to start the signing-in dashboard behind a plain-http public URL beyond loopback', async () => {
    await expect(startDashboard({
      host: '127.0.0.1', port: 0, ports: seededPorts(), logger: silentLogger,
      signIn: { issuer: ISSUER, clientId: 'x', scope: 'openid', publicUrl: 'http://approvals.example/' },
    })).rejects.toThrow(/https/);
    // A name that only starts like a loopback address is a name, not this machine.
    await expect(startDashboard({
      host: '127.0.0.1', port: 0, ports: seededPorts(), logger: silentLogger,
      signIn: { issuer: ISSUER, clientId: 'x', scope: 'openid', publicUrl: 'http://127.evil.example/' },
    })).rejects.toThrow(/https/);
  });
});

describe('zerto-rewind-mcp check', () => {
  it('does not ask for WEB_UI_TOKEN when the dashboard signs people in (MCP_TRANSPORT=http), and still does over stdio', async () => {
    const lab = await startLab({ stateDir: tempDir('zr-check-oidc-'), env: { WEB_UI_ENABLED: 'true' } });
    try {
      const row = (env: Record<string, string>) => checkProcess(lab.config, env).find((r) => r.check === 'dashboard_token')!;
      const oidc = row({ MCP_TRANSPORT: 'http', OAUTH_ISSUER: ISSUER, WEB_UI_OIDC_CLIENT_ID: 'zr-dashboard', MCP_PUBLIC_URL: 'https://mcp.example' });
      expect(oidc).toMatchObject({ status: 'ok' });
      expect(oidc.detail).toContain(ISSUER);
      expect(row({ OAUTH_ISSUER: ISSUER, WEB_UI_OIDC_CLIENT_ID: 'zr-dashboard' }).status).toBe('fail');
    } finally {
      await lab.stop();
    }
  });

  it('says what HTTP mode would refuse or warn about (the MCP resource, the issuer), and nothing of it over stdio', async () => {
    const lab = await startLab({ stateDir: tempDir('zr-check-resource-'), env: {} });
    try {
      const rows = (env: Record<string, string>) => checkProcess(lab.config, env).filter((r) => r.check === 'http_settings');
      const http = { MCP_TRANSPORT: 'http', OAUTH_ISSUER: ISSUER };
      expect(rows({ ...http, WEB_UI_OIDC_CLIENT_ID: 'zr-dashboard' })).toMatchObject([{ status: 'fail', detail: expect.stringMatching(/refuses to start.*nobody could approve/) }]);
      expect(rows(http)).toMatchObject([{ status: 'warn', detail: expect.stringContaining('aud=http://127.0.0.1:8080/mcp') }]);
      expect(rows({ ...http, MCP_PUBLIC_URL: 'https://mcp.example/', WEB_UI_OIDC_CLIENT_ID: 'zr-dashboard' }))
        .toMatchObject([{ status: 'ok', detail: 'tokens must be for https://mcp.example/mcp; the dashboard asks the identity provider for it' }]);
      expect(rows({ MCP_TRANSPORT: 'http' })).toMatchObject([{ status: 'warn', detail: expect.stringContaining('--insecure-local') }]);
      expect(rows({ OAUTH_ISSUER: ISSUER, WEB_UI_OIDC_CLIENT_ID: 'zr-dashboard' })).toEqual([]);
    } finally {
      await lab.stop();
    }
  });

  it('the built binary: check lists the refusal in its table (exit 1), and the server itself refuses to start with the same words', async () => {
    const env = { PATH: process.env.PATH ?? '', MCP_TRANSPORT: 'http', OAUTH_ISSUER: ISSUER, WEB_UI_OIDC_CLIENT_ID: 'zr-dashboard' };
    const checked = await runBinary(['check', '--lab', '--json'], env);
    expect(checked.code).toBe(1);
    const report = JSON.parse(checked.stdout) as { status: string; checks: Array<{ check: string; status: string }> };
    expect(report.status).toBe('fail');
    expect(report.checks.find((r) => r.check === 'http_settings')).toMatchObject({ status: 'fail' });
    const served = await runBinary(['--http', '--lab'], env);
    expect(served.code).toBe(1);
    expect(served.stderr).toContain('neither MCP_PUBLIC_URL nor OAUTH_AUDIENCE');
  }, 60_000);
});

describe('team mode without a named resource', () => {
  it('logs a warning at startup that says which audience tokens need and what to set', async () => {
    const h = await startLabHarness();
    const warnings: Array<{ obj: object; msg: string | undefined }> = [];
    const logger: Logger = { ...silentLogger, warn: (obj, msg) => { warnings.push({ obj, msg }); } };
    const endpoint = await serveHttp(h.runtime, loadHttpConfig({ OAUTH_ISSUER: ISSUER, MCP_HTTP_PORT: '0' }, false), logger);
    try {
      const warned = warnings.find((w) => w.msg?.includes('neither MCP_PUBLIC_URL nor OAUTH_AUDIENCE'));
      expect(warned?.msg).toContain(`aud=${endpoint.resourceUrl}`);
      expect(warned?.msg).toContain('Set MCP_PUBLIC_URL');
      // With the resource named, no such warning.
      const quiet: string[] = [];
      const named = await serveHttp(h.runtime, loadHttpConfig({ OAUTH_ISSUER: ISSUER, MCP_HTTP_PORT: '0', MCP_PUBLIC_URL: 'https://mcp.example' }, false), { ...silentLogger, warn: (_o, msg) => { quiet.push(msg ?? ''); } });
      await named.close();
      expect(quiet.filter((m) => m.includes('MCP_PUBLIC_URL'))).toEqual([]);
    } finally {
      await endpoint.close();
      await h.close();
    }
  });
});

describe('the signing-in dashboard when the identity provider is down', () => {
  it('sends the page to /auth/login, which answers 502 with what to check, and serves no API without a session', async () => {
    const dashboard = await startDashboard({
      host: '127.0.0.1', port: 0, ports: seededPorts(), logger: silentLogger,
      // Port 9 (discard) on loopback: nothing answers the discovery request.
      signIn: { issuer: 'http://127.0.0.1:9', clientId: 'x', scope: 'openid' },
    });
    try {
      const page = await fetch(dashboard.url, { redirect: 'manual' });
      expect(page.status).toBe(302);
      expect(page.headers.get('location')).toBe('auth/login');
      const login = await fetch(`${dashboard.url}auth/login`, { redirect: 'manual' });
      expect(login.status).toBe(502);
      expect(await login.text()).toContain('OAUTH_ISSUER');
      expect((await fetch(`${dashboard.url}api/proposals`)).status).toBe(401);
    } finally {
      await dashboard.close();
    }
  });
});

describe('who counts as the second person', () => {
  const proposal = { id: 'p1', tool: 'revert_snapshot', target: { name: 'vc1', host: 'vc1' }, state: 'pending' as const, requiresWebApproval: false, approval: 'second_person' as const, requester: 'user:alice' };

  it('only a verified identity other than the proposer, in the dashboard; over MCP only a service policy names', () => {
    expect(claimRefusal(proposal, { identity: 'user:bob', channel: 'web' }, 60)).toBeUndefined();
    // confirm_action is what a model calls: even a verified user's agent does not count as the person.
    expect(claimRefusal(proposal, { identity: 'user:bob', channel: 'mcp' }, 60)?.message).toContain('confirm_action cannot approve it');
    expect(claimRefusal(proposal, { identity: 'service:approver-bot', channel: 'mcp', namedService: true }, 60)).toBeUndefined();
    expect(claimRefusal(proposal, { identity: 'service:ci', channel: 'mcp' }, 60)?.code).toBe('approval_required');
    expect(claimRefusal(proposal, { identity: 'user:alice', channel: 'web' }, 60)?.code).toBe('approval_required');
    // A typed dashboard name and an MCP client's own name are nobody in particular.
    expect(claimRefusal(proposal, { identity: 'web-ui@127.0.0.1 (bob)', channel: 'web' }, 60)?.message).toContain('cannot verify who you are');
    expect(claimRefusal(proposal, { identity: 'mcp:bob/1.0', channel: 'mcp' }, 60)?.code).toBe('approval_required');
    // An answer in the client is the requester's own: never the second person.
    expect(claimRefusal(proposal, { identity: 'user:alice', channel: 'elicitation' }, 60)?.code).toBe('approval_required');
  });

  it('recognises user:<sub> as the only verified form', () => {
    expect(isVerifiedIdentity('user:bob')).toBe(true);
    for (const other of ['user:', 'mcp:user:bob/1', 'web-ui@10.0.0.1 (bob)', 'bob']) expect(isVerifiedIdentity(other)).toBe(false);
  });

  it('tags a verified user as user:<sub>', () => {
    expect(tagAgentOf('user:bob')).toBe('user:bob');
    expect(tagAgentOf('user:b o|b', 'nightly')).toBe('user:b_o_b+nightly');
    expect(tagAgentOf('mcp:claude/1.0')).toBe('mcp:claude');
  });
});

describe('the signing-in dashboard behind a path prefix', () => {
  it('scopes the pending-login cookie to the callback path the browser sees, prefix included', async () => {
    const idp = await startTestIssuer();
    // A proxy serves the dashboard at /approvals/ and strips the prefix; the server sees /auth/login.
    const dashboard = await startDashboard({
      host: '127.0.0.1', port: 0, ports: seededPorts(), logger: silentLogger,
      signIn: { issuer: idp.issuer, clientId: 'zr-dashboard', scope: 'openid', publicUrl: 'http://127.0.0.1/approvals/' },
    });
    try {
      // Straight to the listening port, as the proxy would (dashboard.url is the public URL).
      const login = await fetch(`http://127.0.0.1:${dashboard.port}/auth/login`, { redirect: 'manual' });
      expect(login.status).toBe(302);
      expect(new URL(login.headers.get('location')!).searchParams.get('redirect_uri')).toBe('http://127.0.0.1/approvals/auth/callback');
      expect(login.headers.get('set-cookie')).toMatch(/; Path=\/approvals\/auth\/(;|$)/);
    } finally {
      await dashboard.close();
      await idp.close();
    }
  });
});
