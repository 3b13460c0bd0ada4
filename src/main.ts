#!/usr/bin/env node
// The only file that touches the process: flags and environment -> configuration -> logger ->
// runtime -> stdio. Shutdown (stdin end, SIGINT, SIGTERM) closes vendor sessions, unmounts the FLR
// sessions this process opened and flushes the audit log.
import { HELP, parseArgs } from './cli.js';
import { VERSION } from './version.js';
import type { LoadedConfig } from './config/load.js';
import type { Runtime, RuntimeOptions } from './runtime.js';

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
 * Lets V8's heap grow to 1.5x what the last full GC kept alive, not up to 4x: a 10,000-VM listing
 * promotes ~15 MB that is garbage once answered, and V8's own choice let ten listings reach a
 * 216 MB peak RSS over ~35 MB live (README, Performance). An operator's own setting wins.
 */
function limitHeapGrowth(): void {
  const given = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`;
  if (/heap[-_]growing[-_]percent/.test(given)) return;
  const v8 = process.getBuiltinModule?.('node:v8') as { setFlagsFromString?: (flags: string) => void } | undefined;
  v8?.setFlagsFromString?.('--heap-growing-percent=50');
}

async function main(): Promise<number> {
  // A separate command, loaded only when asked for: `audit verify FILE...` checks the hash chain.
  if (process.argv[2] === 'audit') return (await import('./audit/verify-command.js')).runAuditCommand(process.argv.slice(3));
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
  const [{ StdioServerTransport }, { loadConfiguration }, { ConfigError, formatProblems }, { envSecretSource }, { createLogger }, { startRuntime }, { frameStdin, MAX_MESSAGE_BYTES, tieToTransport }] =
    await Promise.all([
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('./config/load.js'),
      import('./config/problems.js'),
      import('./core/secrets.js'),
      import('./log.js'),
      import('./runtime.js'),
      import('./transport-lifecycle.js'),
    ]);

  let env: Record<string, string | undefined> = { ...process.env };
  // HTTP mode's modules (the transport, jose, pg) are imported only in HTTP mode.
  let http: import('./http/http-config.js').HttpConfig | undefined;
  if (opts.http || env.MCP_TRANSPORT?.toLowerCase() === 'http') {
    const { loadHttpConfig } = await import('./http/http-config.js');
    try {
      http = loadHttpConfig(env, opts.insecureLocal);
    } catch (err) {
      process.stderr.write(`zerto-rewind-mcp: ${(err as Error).message}\n`);
      return 1;
    }
  }
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
      process.stderr.write(`zerto-rewind-mcp: ${err.message}\n`);
      return 1;
    }
    config = lab.config;
    env = { ...env, ...lab.env };
    stopLab = lab.stop;
    labExtras = { extraTools: lab.extraTools, extraBuiltInCatalog: lab.extraBuiltInCatalog };
  } else {
    const loaded = loadConfiguration(env, process.cwd());
    if (!loaded.config) {
      process.stderr.write(`zerto-rewind-mcp: ${formatProblems(loaded.problems)}\n`);
      return 1;
    }
    config = loaded.config;
  }

  if (opts.toolsets !== undefined) config.settings.toolsets = opts.toolsets;

  // The shorthand's inline password arrives as a *_PASSWORD variable and is redacted as one; its
  // user name is not a secret (redacting 'admin' would shred every result that mentions it).
  const secrets = envSecretSource({ ...env, ...config.app.inlineCredentials });
  const logger = createLogger(config.settings.logLevel, () => secrets.knownValues());
  for (const w of config.warnings) logger.warn({}, w);
  for (const n of config.notices) logger.info({}, n);

  if (opts.command === 'check') {
    const { runCheck } = await import('./check/run-check.js');
    const code = await runCheck({ config, secrets, json: opts.json, out: process.stdout, env });
    await stopLab?.();
    return code;
  }

  let runtime: Runtime;
  try {
    runtime = await startRuntime({
      config, secrets, logger, ...(labExtras ?? {}), ...(env.DATABASE_URL ? { databaseUrl: env.DATABASE_URL } : {}),
      ...(http?.dashboardSignIn ? { dashboardSignIn: http.dashboardSignIn } : {}),
    });
  } catch (err) {
    process.stderr.write(`zerto-rewind-mcp: ${(err as Error).message}\n`);
    await stopLab?.();
    return 1;
  }

  if (!http && process.stdin.isTTY) {
    process.stderr.write(
      `zerto-rewind-mcp ${VERSION} is an MCP server: it speaks JSON-RPC on stdin/stdout and waits for an MCP client.\n` +
        'Configure it in Claude Desktop, VS Code or Cursor (see the README), or try it with:\n' +
        `  npx @modelcontextprotocol/inspector ${process.execPath} ${process.argv[1] ?? 'dist/main.js'} --lab\n` +
        'Press Ctrl+C to stop.\n',
    );
  }

  let stopping: Promise<void> | undefined;
  const shutdown = (reason: string): Promise<void> => {
    stopping ??= (async () => {
      logger.info({ reason }, 'shutting down');
      await runtime.shutdown(reason).catch((err) => logger.error({ err: String(err) }, 'shutdown failed'));
      await stopLab?.().catch(() => undefined);
    })();
    return stopping;
  };

  if (http) {
    const { serveHttp } = await import('./http/serve-http.js');
    let endpoint: Awaited<ReturnType<typeof serveHttp>>;
    try {
      endpoint = await serveHttp(runtime, http, logger);
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

  // Lines are framed before the SDK sees them: an oversized message is answered, not fatal.
  const stdin = frameStdin(process.stdin, {
    reply: (line) => process.stdout.write(line),
    onOversized: (o) => logger.warn(o, 'refused a JSON-RPC message over the size limit'),
  });
  const transport = new StdioServerTransport(stdin, process.stdout, { maxBufferSize: 2 * MAX_MESSAGE_BYTES });
  tieToTransport(runtime.built.server, (reason) => shutdown(reason).then(() => process.exit(0)), process.stdout);
  // The stdio transport does not notice the client leaving; stdin ending is that signal.
  process.stdin.on('end', () => void shutdown('stdin closed').then(() => process.exit(0)));
  process.on('SIGINT', () => void shutdown('SIGINT').then(() => process.exit(0)));
  process.on('SIGTERM', () => void shutdown('SIGTERM').then(() => process.exit(0)));
  await runtime.built.server.connect(transport);
  logger.info({ tools: runtime.built.tools.length, lab: opts.lab }, 'ready');
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
