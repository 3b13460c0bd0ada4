// The ZVM client accepts any pino-shaped logger. Nothing here logs request headers, form bodies or
// token responses: only method, route, status and timings, so a secret cannot reach a log line
// through this module even before the foundation's redactor runs.

export interface ZertoLogger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const noop = (): void => undefined;

export const SILENT_LOGGER: ZertoLogger = { debug: noop, info: noop, warn: noop, error: noop };
