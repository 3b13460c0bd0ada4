// Cross-site request checks for the only writes the dashboard has (confirm and cancel). The token
// travels in a header the browser never adds by itself, which already defeats classic CSRF; these
// checks are the second wall, so that a token left in a URL (`?token=`) or a future cookie-based
// change cannot turn into "any web page the operator visits can approve a delete".
import type { IncomingMessage } from 'node:http';

/** The value the page sends; a cross-site form or a simple fetch cannot set custom headers. */
export const REQUESTED_WITH = 'zerto-rewind-dashboard';

/**
 * Returns why a state-changing request is refused, or undefined when it may proceed.
 * - `Content-Type: application/json`: an HTML form can only send urlencoded, multipart or text/plain;
 *   a cross-site fetch with JSON needs a CORS preflight, which this server never answers.
 * - `X-Requested-With: zerto-rewind-dashboard`: same reason, a custom header forces a preflight.
 * - `Origin` and `Sec-Fetch-Site`, when the browser sends them, must say same-origin.
 */
export function crossSiteRejection(req: IncomingMessage): string | undefined {
  const contentType = (req.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (contentType !== 'application/json') return 'Content-Type must be application/json';

  if (req.headers['x-requested-with'] !== REQUESTED_WITH) return `X-Requested-With must be ${REQUESTED_WITH}`;

  const fetchSite = req.headers['sec-fetch-site'];
  if (fetchSite !== undefined && fetchSite !== 'same-origin') return `Sec-Fetch-Site is ${String(fetchSite)}`;

  const origin = req.headers.origin;
  if (origin !== undefined) {
    // `null` is what sandboxed frames and some redirects send: never same-origin.
    if (origin === 'null' || !sameOrigin(origin, req.headers.host)) return 'Origin is not this dashboard';
  }
  return undefined;
}

function sameOrigin(origin: string, host: string | undefined): boolean {
  if (host === undefined) return false;
  let parsed: URL;
  try {
    parsed = new URL(origin);
  } catch {
    return false;
  }
  // https too: an operator may put a TLS-terminating proxy in front. `parsed.host` omits default
  // ports just as the Host header does, so the two compare directly.
  const scheme = parsed.protocol === 'http:' || parsed.protocol === 'https:';
  return scheme && parsed.host.toLowerCase() === host.toLowerCase();
}
