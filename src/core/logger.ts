// The one logger shape every layer takes (pino's, reduced to what we call). main.ts builds the real
// one (src/app/log.ts: stderr only, secrets cut out); vendor clients, the dashboard and the tests take
// this interface, so nothing depends on pino itself.

export interface Logger {
  debug(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  error(obj: object, msg?: string): void;
}

const noop = (): void => undefined;

/** For callers that were given no logger (library use, tests). */
export const silentLogger: Logger = { debug: noop, info: noop, warn: noop, error: noop };
