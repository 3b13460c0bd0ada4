// What the central-mode tests share: a throwaway PostgreSQL, a test OAuth issuer, one simulated
// lab, and server instances in HTTP mode on that one database, each reached by real MCP clients
// over Streamable HTTP with tokens for named users. Instances share nothing but the database.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startLab, type TestLab } from '../../src/lab/testing/index.js';
import { startRuntime, type Runtime } from '../../src/app/runtime.js';
import { envSecretSource } from '../../src/core/secrets.js';
import { PolicyFileStore } from '../../src/config/policy-store.js';
import { serveHttp } from '../../src/app/serve-http.js';
import { loadHttpConfig } from '../../src/mcp/http/http-config.js';
import type { McpHttpHandle } from '../../src/mcp/http/mcp-http-server.js';
import type { CentralOptions } from '../../src/state/pg/central-state.js';
import { silentLogger, tempDir } from '../support/harness.js';
import { ALL_SCOPES, startTestIssuer, type TestIssuer } from '../support/test-issuer.js';
import { connectHttpClient, type HttpMcpClient } from '../support/http-client.js';
import { startTestPostgres, type TestPostgres } from '../support/postgres.js';

export const PUBLIC = 'https://mcp.team.example';

/** A tool result's structured data; any error result fails the test with its text. */
export const ok = (r: { isError: boolean; text: string; data: Record<string, any> }): Record<string, any> => {
  if (r.isError) throw new Error(`expected success, got ${r.text}`);
  return r.data;
};

/** Runs `call` and says how long it took. */
export async function timed<T>(call: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = Date.now();
  const value = await call();
  return { value, ms: Date.now() - t0 };
}

export interface Instance {
  runtime: Runtime;
  http: McpHttpHandle;
}

export const DASHBOARD_CLIENT_ID = 'zerto-rewind-dashboard';

export interface DashboardOptions {
  /** WEB_UI_PUBLIC_URL: where browsers reach the dashboard (a proxy in front of the instances). */
  publicUrl: string;
  /** WEB_UI_OIDC_CLIENT_SECRET. */
  clientSecret?: string;
  /** WEB_UI_SESSION_SECRET. */
  sessionSecret?: string;
}

/** The dashboard's own listening address (not its public URL): what a proxy forwards to. */
export const dashboardListenUrl = (inst: Instance): string => `http://127.0.0.1:${inst.runtime.dashboard!.port}`;

export interface Central {
  pg: TestPostgres;
  idp: TestIssuer;
  lab: TestLab;
  /**
   * A server instance in HTTP mode on the shared database; its state files in `stateDir` (default:
   * a fresh folder). `dashboard`: with its dashboard signing people in as DASHBOARD_CLIENT_ID of
   * the test issuer, reached by browsers at `publicUrl`.
   */
  startInstance(opts?: { stateDir?: string; clock?: () => number; centralOptions?: CentralOptions; databaseUrl?: string; dashboard?: DashboardOptions }): Promise<Instance>;
  /** A real MCP client of `inst`, authenticated as `user` with every scope. */
  as(user: string, inst: Instance): Promise<HttpMcpClient>;
  close(): Promise<void>;
}

export async function startCentral(opts: { policy?: string; dirPrefix?: string } = {}): Promise<Central> {
  const pg = await startTestPostgres();
  const idp = await startTestIssuer();
  const dir = tempDir(opts.dirPrefix ?? 'zr-central-');
  let policy: PolicyFileStore | undefined;
  if (opts.policy) {
    writeFileSync(join(dir, 'policy.yaml'), opts.policy);
    policy = new PolicyFileStore(join(dir, 'policy.yaml'), true);
  }
  const lab = await startLab({ stateDir: dir, ...(policy ? { policy } : {}), env: { TOOLSETS: 'all' } });
  const instances: Instance[] = [];
  const clients: HttpMcpClient[] = [];
  return {
    pg, idp, lab,
    async startInstance(o = {}) {
      const secrets = envSecretSource({ ...lab.env, ...lab.config.app.inlineCredentials });
      // Each instance has its own state folder, as on separate hosts: all they share is the database.
      const webUi = o.dashboard ? { ...lab.config.settings.webUi, enabled: true, port: 0 } : lab.config.settings.webUi;
      const config = { ...lab.config, settings: { ...lab.config.settings, webUi, auditLogPath: join(o.stateDir ?? tempDir('zr-instance-'), 'audit.jsonl') } };
      const d = o.dashboard;
      const httpConfig = loadHttpConfig({
        OAUTH_ISSUER: idp.issuer, MCP_HTTP_PORT: '0', MCP_PUBLIC_URL: PUBLIC,
        ...(d ? { WEB_UI_OIDC_CLIENT_ID: DASHBOARD_CLIENT_ID, WEB_UI_PUBLIC_URL: d.publicUrl } : {}),
        ...(d?.clientSecret ? { WEB_UI_OIDC_CLIENT_SECRET: d.clientSecret } : {}),
        ...(d?.sessionSecret ? { WEB_UI_SESSION_SECRET: d.sessionSecret } : {}),
      }, false);
      const runtime = await startRuntime({
        config, secrets, logger: silentLogger, extraTools: lab.extraTools, extraBuiltInCatalog: lab.extraBuiltInCatalog, databaseUrl: o.databaseUrl ?? pg.url,
        ...(o.clock ? { clock: o.clock } : {}), ...(o.centralOptions ? { centralOptions: o.centralOptions } : {}),
        ...(httpConfig.dashboardSignIn ? { dashboardSignIn: httpConfig.dashboardSignIn } : {}),
      });
      const http = await serveHttp(runtime, httpConfig, silentLogger);
      const inst = { runtime, http };
      instances.push(inst);
      return inst;
    },
    async as(user, inst) {
      const token = await idp.sign({ sub: user, scope: ALL_SCOPES }, { audience: `${PUBLIC}/mcp` });
      const c = await connectHttpClient(`${inst.http.listenUrl}/mcp`, token, `client-of-${user}`);
      clients.push(c);
      return c;
    },
    async close() {
      for (const c of clients) await c.close();
      for (const i of instances) {
        await i.http.close().catch(() => undefined);
        await i.runtime.shutdown().catch(() => undefined);
      }
      await lab.stop();
      await idp.close();
      pg.destroy();
    },
  };
}
