// Logs go to stderr (fd 2) only: stdout carries JSON-RPC. pino's redact paths catch credential
// fields by name; the secret source's values are cut out of every message by the hook below.
import pino from 'pino';
import { redactString } from '../core/redact.js';
import type { Logger } from '../core/logger.js';

export function createLogger(level: string, secrets: () => readonly string[]): Logger & pino.Logger {
  return pino(
    {
      name: 'zerto-rewind-mcp',
      level,
      redact: {
        paths: ['password', '*.password', 'token', '*.token', 'authorization', '*.authorization', 'headers.authorization', 'client_secret', '*.client_secret'],
        censor: '[REDACTED]',
      },
      hooks: {
        // The line is already JSON: a secret containing `"` or `\` appears escaped in it.
        streamWrite: (line) => redactString(line, secrets().flatMap((v) => [v, JSON.stringify(v).slice(1, -1)])),
      },
    },
    pino.destination({ fd: 2, sync: true }),
  );
}
