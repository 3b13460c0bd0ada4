#!/usr/bin/env node
// The only file that touches the process: flags and environment -> configuration -> (stdio: the
// MCP session opens here) -> logger -> runtime -> serving. Shutdown (stdin end, SIGINT, SIGTERM) closes vendor sessions, unmounts the FLR
// sessions this process opened and flushes the audit log.
import { HELP, labFromEnvironment, parseArgs } from './app/cli.js';
import { VERSION } from './core/version.js';
import type { LoadedConfig } from './config/load.js';
import type { Runtime, RuntimeOptions } from './app/runtime.js';
import type { SecretSource } from './core/secrets.js';
import type { Logger } from './core/logger.js';

/**
 * Node's on-disk cache of compiled modules (Node >= 22.1): a warm start then skips compiling the
 * SDK, zod and our own modules. Older Nodes lack the function and start as before.
 */
function enableCompileCache(): void {
  const mod = process.getBuiltinModule?.('node:module') as { enableCompileCache?: () => unknown } | undefined;
  try {
    mod?.enableCompileCache?.();
  } catch {
    // a read-only or missing cache folder only costs speed
  }
}

/**
 * Lets V8's heap grow to 1.5x what the last full GC kept alive, not up to 4x: a large listing
 * promotes garbage that V8's own choice keeps as peak RSS long after the answer (measured in
 * docs/performance.md). An operator's own setting wins.
 */
function limitHeapGrowth(): void {
  const given = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
  if (/heap[-_]growing[-_]percent/.test(given)) return;
  const v8 = process.getBuiltinModule?.('node:v8') as { setFlagsFromString?: (flags: string) => void } | undefined;
  v8?.setFlagsFromString?.('--heap-growing-percent=50');
}

async function main(): Promise<number> {
  // A separate command, loaded only when asked for: `audit verify FILE...` checks the hash chain.
  // No MCP transport exists in that process, so its report is stdout, as for `check`.
  if (process.argv[2] === 'audit') {
    const { runAuditCommand } = await import('./commands/audit-verify/verify-command.js');
    return runAuditCommand(process.argv.slice(3), (s) => process.stdout.write(s), (s) => process.stderr.write(s), process.env);
  }
  if (process.argv[2] === 'downstream') {
    const { runDownstreamCommand } = await import('./commands/downstream-accept/accept-command.js');
    return runDownstreamCommand(process.argv.slice(3), (s) => process.stdout.write(s), (s) => process.stderr.write(s), process.env);
  }
  const opts = parseArgs(process.argv.slice(2));
  if (opts.help) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  if (opts.version) {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  if (opts.unknown.length) {
    process.stderr.write(`zerto-rewind-mcp: unknown argument(s): ${opts.unknown.join(' ')}\n\n${HELP}\n`);
    return 2;
  }

  // Everything below loads only now: --help and --version answer without the SDK, zod or a client.
  enableCompileCache();
  limitHeapGrowth();

  const env: Record<string, string | undefined> = { ...process.env };
  if (labFromEnvironment(env)) opts.lab = true;
  // HTTP mode's modules (the transport, jose, pg) are imported only in HTTP mode. `check` reports
  // the HTTP settings in its table instead of stopping at the first one refused.
  let http: import('./mcp/http/http-config.js').HttpConfig | undefined;
  if (opts.command !== 'check' && (opts.http || env.MCP_TRANSPORT?.toLowerCase() === 'http')) {
    const { loadHttpConfig } = await import('./mcp/http/http-config.js');
    try {
      http = loadHttpConfig(env, opts.insecureLocal);
    } catch (err) {
      process.stderr.write(`zerto-rewind-mcp: ${(err as Error).message}\n`);
      return 1;
    }
  }
  if (opts.lab && !http && opts.command !== 'check') {
    // stdio --lab: the handshake is answered before the simulators start (what it advertises is
    // known without them, lab-mode.ts), and tool requests wait at the startup gate meanwhile, as
    // with a configuration of the user's own. A client in auto mode probes with server/discover.
    const { labModeToolListChanges, labSettingsError } = await import('./lab/lab-mode-identity.js');
    // Malformed settings still exit at once, before any client message, as without --lab.
    const unusable = labSettingsError(env);
    if (unusable) {
      process.stderr.write(`zerto-rewind-mcp: ${unusable.message}\n`);
      return 1;
    }
    return serveStdio(() => prepare(opts, env, http), labModeToolListChanges(), true);
  }
  // The configuration is complete before MCP is spoken: a broken setup exits with every problem
  // listed, and what `initialize` advertises comes from the configuration that runs.
  const prepared = await prepare(opts, env, http);
  if (!prepared.ok) {
    process.stderr.write(`zerto-rewind-mcp: ${prepared.message}\n`);
    return 1;
  }
  const run = prepared.run;
  const { config, secrets } = run;

  if (opts.command === 'check') {
    // The logger only says the configuration's warnings here; the check reports on stdout.
    const [, { runCheck }] = await Promise.all([startLogger(run), import('./commands/check/run-check.js')]);
    const code = await runCheck({ config, secrets, json: opts.json, out: process.stdout, env: run.env, zerto: opts.zerto, bundle: opts.bundle });
    await run.stopLab?.();
    return code;
  }
  if (http) return serveHttp(run, http);
  const { toolListChanges } = await import('./mcp/server-identity.js');
  return serveStdio(async () => prepared, toolListChanges(config), false);
}

type Prepared = { ok: true; run: Startup } | { ok: false; message: string };

/**
 * The configuration (or, with --lab, the simulated lab and its configuration) and the secrets:
 * everything the runtime starts from. `ok: false` carries every problem, ready to print.
 */
async function prepare(opts: ReturnType<typeof parseArgs>, baseEnv: Record<string, string | undefined>, http: import('./mcp/http/http-config.js').HttpConfig | undefined): Promise<Prepared> {
  const [{ loadConfiguration }, { ConfigError, formatProblems }, { envSecretSource }, { withFileCredentials }] = await Promise.all([
    import('./config/load.js'),
    import('./config/problems.js'),
    import('./core/secrets.js'),
    import('./config/credentials-file.js'),
  ]);
  let env = baseEnv;
  let config: LoadedConfig;
  let stopLab: (() => Promise<void>) | undefined;
  let labExtras: Pick<RuntimeOptions, 'extraTools' | 'extraBuiltInCatalog'> | undefined;
  if (opts.lab) {
    // Imported only here: without --lab nothing of the simulated lab is loaded.
    const { startLabMode } = await import('./lab/lab-mode.js');
    let lab;
    try {
      lab = await startLabMode(env, process.cwd());
    } catch (err) {
      if (!(err instanceof ConfigError)) throw err;
      return { ok: false, message: err.message };
    }
    config = lab.config;
    env = { ...env, ...lab.env };
    stopLab = lab.stop;
    labExtras = { extraTools: lab.extraTools, extraBuiltInCatalog: lab.extraBuiltInCatalog };
  } else {
    const loaded = loadConfiguration(env, process.cwd());
    if (!loaded.config) return { ok: false, message: formatProblems(loaded.problems) };
    config = loaded.config;
  }

  if (opts.toolsets !== undefined) config.settings.toolsets = opts.toolsets;

  // The shorthand's inline password arrives as a *_PASSWORD variable and is redacted as one; its
  // user name is not a secret (redacting 'admin' would shred every result that mentions it). The
  // credentials file's values come first: a variable set for this process overrides the file.
  const secrets = envSecretSource({ ...withFileCredentials(env, config.fileCredentials), ...config.app.inlineCredentials });
  return {
    ok: true,
    run: {
      config, secrets, env, ...(stopLab ? { stopLab } : {}),
      runtimeOptions: {
        ...(labExtras ?? {}), ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}),
        ...(http?.dashboardSignIn ? { dashboardSignIn: http.dashboardSignIn } : {}),
      },
    },
  };
}

/** What every mode starts from: the loaded configuration and how to start the runtime. */
interface Startup {
  config: LoadedConfig;
  secrets: SecretSource;
  env: Record<string, string | undefined>;
  stopLab?: () => Promise<void>;
  runtimeOptions: Omit<RuntimeOptions, 'config' | 'secrets' | 'logger'>;
}

/** pino to stderr, loaded only now (stdio has answered `initialize` by then); the config's warnings go first. */
async function startLogger(run: Startup): Promise<Logger> {
  const { createLogger } = await import('./app/log.js');
  const logger = createLogger(run.config.settings.logLevel, () => run.secrets.knownValues());
  for (const w of run.config.warnings) logger.warn({}, w);
  for (const n of run.config.notices) logger.info({}, n);
  return logger;
}

/** A runtime that did not start, said without any secret (this text reaches the client too). */
async function startFailure(run: Startup | undefined, err: unknown): Promise<string> {
  const { redactString } = await import('./core/redact.js');
  return redactString((err as Error).message ?? String(err), run?.secrets.knownValues() ?? []);
}

/**
 * stdio: the MCP session opens before the tools load (and, with --lab, before the simulators
 * start: `startup` runs once the connection is open), so `initialize` and `server/discover` are
 * answered at once; tool requests wait at the startup gate and go through once the runtime is
 * ready, or are answered with the reason it did not start. `listChanged`: what the handshake
 * advertises. The runtime starts at the first message beyond a probe (startup-gate.ts), or
 * PROBE_GRACE_MS after the connection opened, whichever comes first: a process that only
 * answered `server/discover` (a v2 client's auto-mode probe, reaped with SIGTERM right after)
 * has opened nothing and exits at once, instead of starting the runtime (and the lab) only to
 * stop it while the client waits for it to exit. A process that heard nothing at all still
 * starts when stdin ends (`< /dev/null` checks a setup: a refused one exits 1).
 */
async function serveStdio(startup: () => Promise<Prepared>, listChanged: boolean, lab: boolean): Promise<number> {
  const { openStdioConnection } = await import('./mcp/stdio/stdio-connection.js');
  let run: Startup | undefined;
  let logger: Logger | undefined;
  let runtime: Runtime | undefined;
  // A stop while the runtime starts waits for it: what it opened (audit line, FLR cleanup) is closed.
  // A stop before it began has nothing to close.
  let stopping: Promise<number> | undefined;
  let started: Promise<boolean> | undefined;
  const exitAfter = (reason: string): Promise<void> => {
    if (connection.gate.heard() === 'nothing') begin();
    clearTimeout(grace);
    stopping ??= (started ?? Promise.resolve(undefined)).then(async (ok) => {
      if (ok === undefined) return 0;
      if (!ok || !run) return 1;
      await stopRuntime(run, runtime, logger, reason);
      return 0;
    });
    return stopping.then(exitWhenWritten);
  };
  const connection = openStdioConnection({
    stdin: process.stdin, stdout: process.stdout, listChanged,
    onOversized: (o) => logger?.warn(o, 'refused a JSON-RPC message over the size limit'),
    shutdown: exitAfter,
    onDemand: () => begin(),
  });
  function begin(): void {
    clearTimeout(grace);
    if (stopping || started) return;
    started = startRuntimeNow();
    void started.then((ok) => { if (!ok) exitWhenWritten(1); });
  }
  const grace = setTimeout(begin, PROBE_GRACE_MS);
  const { gate } = connection;

  // True once the runtime is up, false once its failure has been reported; never rejects.
  const startRuntimeNow = (): Promise<boolean> => (async () => {
    // One turn of the event loop first: Node 22's module loader reads and compiles synchronously,
    // so an `initialize` already waiting on stdin would otherwise be read only once the runtime loaded.
    await new Promise((resolve) => setImmediate(resolve));
    const prepared = await startup();
    if (!prepared.ok) throw new Error(prepared.message);
    const ready = prepared.run;
    run = ready;
    const [startedLogger, { startRuntime }] = await Promise.all([startLogger(ready), import('./app/runtime.js')]);
    logger = startedLogger;
    runtime = await startRuntime({ config: ready.config, secrets: ready.secrets, logger, ...ready.runtimeOptions, openedSession: connection.openedSession });
    // A one-shot client's first tools/list holds the downstream servers that start quickly (bounded).
    await runtime.firstListing();
    gate.open();
    logger.info({ tools: runtime.built.tools.length, lab }, 'ready');
    return true;
  })().catch(async (err: unknown) => {
    const reason = await startFailure(run, err);
    process.stderr.write(`zerto-rewind-mcp: ${reason}\n`);
    gate.fail(reason);
    await run?.stopLab?.().catch(() => undefined);
    return false;
  });

  // The stdio transport does not notice the client leaving; stdin ending is that signal.
  process.stdin.on('end', () => void exitAfter('stdin closed'));
  process.on('SIGINT', () => void exitAfter('SIGINT'));
  process.on('SIGTERM', () => void exitAfter('SIGTERM'));

  if (process.stdin.isTTY) {
    process.stderr.write(
      `zerto-rewind-mcp ${VERSION} is an MCP server: it speaks JSON-RPC on stdin/stdout and waits for an MCP client.\n` +
        'Configure it in Claude Desktop, VS Code or Cursor (see docs/clients.md), or try it with:\n' +
        `  npx @modelcontextprotocol/inspector ${process.execPath} ${process.argv[1] ?? 'dist/main.js'} --lab\n` +
        'Press Ctrl+C to stop.\n',
    );
  }
  return -1;
}

/**
 * How long a stdio process that has seen no more than a probe waits before it starts its runtime
 * anyway. The v2 client reaps its probe right after the answer (and kills it after 1 s), so a
 * process still there after this long is no probe.
 */
const PROBE_GRACE_MS = 1_000;

/** The shutdown every mode ends with (audit shutdown line, FLR unmounts, the lab). */
async function stopRuntime(run: Startup, runtime: Runtime | undefined, logger: Logger | undefined, reason: string): Promise<void> {
  logger?.info({ reason }, 'shutting down');
  await runtime?.shutdown(reason).catch((err) => logger?.error({ err: String(err) }, 'shutdown failed'));
  await run.stopLab?.().catch(() => undefined);
}

/** Exits once stdout has written everything before (stdout to a pipe is asynchronous off Linux). */
function exitWhenWritten(code: number): void {
  process.stdout.write('', () => process.exit(code));
}

/** HTTP mode: the runtime starts, then the endpoint listens; a failure of either exits 1. */
async function serveHttp(run: Startup, http: import('./mcp/http/http-config.js').HttpConfig): Promise<number> {
  const [logger, { startRuntime }] = await Promise.all([startLogger(run), import('./app/runtime.js')]);
  let runtime: Runtime;
  try {
    runtime = await startRuntime({ config: run.config, secrets: run.secrets, logger, ...run.runtimeOptions });
  } catch (err) {
    process.stderr.write(`zerto-rewind-mcp: ${await startFailure(run, err)}\n`);
    await run.stopLab?.();
    return 1;
  }
  let stopping: Promise<void> | undefined;
  const shutdown = (reason: string): Promise<void> => (stopping ??= stopRuntime(run, runtime, logger, reason));
  const { serveHttp: listen } = await import('./app/serve-http.js');
  let endpoint: Awaited<ReturnType<typeof listen>>;
  try {
    endpoint = await listen(runtime, http, logger);
  } catch (err) {
    process.stderr.write(`zerto-rewind-mcp: HTTP endpoint did not start: ${(err as Error).message}\n`);
    await shutdown('HTTP start failed');
    return 1;
  }
  const stop = (reason: string) => void endpoint.close().then(() => shutdown(reason)).then(() => process.exit(0));
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  return -1;
}

main().then(
  (code) => {
    if (code >= 0) process.exitCode = code;
  },
  (err: unknown) => {
    process.stderr.write(`zerto-rewind-mcp: fatal: ${err instanceof Error ? err.stack ?? err.message : String(err)}\n`);
    process.exit(1);
  },
);
