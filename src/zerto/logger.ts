// The ZVM client accepts the shared logger shape (core/logger.ts). Nothing here logs request
// headers, form bodies or token responses: only method, route, status and timings, so a secret
// cannot reach a log line through this module even before the foundation's redactor runs.
export { silentLogger as SILENT_LOGGER, type Logger as ZertoLogger } from '../core/logger.js';
