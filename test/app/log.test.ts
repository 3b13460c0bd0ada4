// Logs go to stderr only, and known secret values never appear in them, even when the secret
// contains characters JSON escapes. Runs the built logger in a child process to capture fd 2.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const LOG = fileURLToPath(new URL('../../dist/app/log.js', import.meta.url));

describe('logger', () => {
  it('writes to stderr only and redacts secrets, including ones with quotes and backslashes', () => {
    const secret = 'pa"ss\\w0rd-quoted';
    const script = `
      const { createLogger } = await import(${JSON.stringify(LOG)});
      const log = createLogger('info', () => [${JSON.stringify(secret)}]);
      log.info({ nested: { deep: { value: ${JSON.stringify(secret)} } }, password: 'x' }, 'login with ' + ${JSON.stringify(secret)});
    `;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(run.status, run.stderr).toBe(0);
    expect(run.stdout).toBe('');
    expect(run.stderr).toContain('login with');
    expect(run.stderr).not.toContain('w0rd-quoted');
    expect(run.stderr).toContain('[REDACTED]');
  });
});
