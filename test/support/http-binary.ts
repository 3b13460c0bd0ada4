// The built binary in HTTP mode (--http), started as an operator would and stopped by the test:
// it resolves once the endpoint listens, with its URL read from the log line that says so.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

export interface HttpBinary {
  /** http://127.0.0.1:<port>/mcp */
  resourceUrl: string;
  port: number;
  stop(): Promise<void>;
}

export async function startHttpBinary(args: string[], env: Record<string, string>, cwd: string): Promise<HttpBinary> {
  const child: ChildProcess = spawn(process.execPath, [BIN, '--http', ...args], {
    // The URL is read from an info line, so the level stays info whatever the test passes.
    cwd, env: { PATH: process.env.PATH ?? '', MCP_HTTP_PORT: '0', ...env, LOG_LEVEL: 'info' }, stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`the HTTP endpoint did not listen within 60 s; stderr: ${stderr}`)), 60_000);
    child.stderr!.on('data', (d: Buffer) => {
      stderr += d.toString();
      for (const line of stderr.split('\n')) {
        if (!line.includes('endpoint listening')) continue;
        clearTimeout(timer);
        resolve((JSON.parse(line) as { url: string }).url);
      }
    });
    child.once('exit', (code) => { clearTimeout(timer); reject(new Error(`exited ${code}; stderr: ${stderr}`)); });
  });
  return {
    resourceUrl: url,
    port: Number(new URL(url).port),
    stop: () => new Promise<void>((resolve) => {
      if (child.exitCode !== null) return resolve();
      child.once('exit', () => resolve());
      child.kill('SIGTERM');
      setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
    }),
  };
}
