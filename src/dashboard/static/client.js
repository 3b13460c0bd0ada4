// Talking to the dashboard API. The token lives in sessionStorage (this tab only) and travels only
// in the X-Auth-Token header: never in a URL this page builds, so it cannot leak through history,
// Referer, proxies' access logs or a screenshot of the address bar.

const TOKEN_KEY = 'zerto-rewind-dashboard.token';
const REQUESTED_WITH = 'zerto-rewind-dashboard';

/**
 * `oidc` when the server signs people in with the identity provider (it marks the page's <html>):
 * the session is an HttpOnly cookie the browser sends by itself, and there is no token at all.
 */
export const SIGN_IN_MODE = document.documentElement.dataset.signIn === 'oidc' ? 'oidc' : 'token';

/**
 * On a first load with `?token=`, moves the token into sessionStorage and rewrites the address bar
 * without it (replaceState, so the tokenised URL does not stay in history either).
 */
export function adoptTokenFromUrl() {
  const url = new URL(window.location.href);
  const token = url.searchParams.get('token');
  if (token === null) return;
  if (token !== '') sessionStorage.setItem(TOKEN_KEY, token);
  url.searchParams.delete('token');
  history.replaceState(history.state, '', url.pathname + url.search + url.hash);
}

export function hasToken() {
  return SIGN_IN_MODE === 'oidc' || Boolean(sessionStorage.getItem(TOKEN_KEY));
}

export function setToken(token) {
  sessionStorage.setItem(TOKEN_KEY, token);
}

export function clearToken() {
  sessionStorage.removeItem(TOKEN_KEY);
}

/** The server refused the token: the app shows the sign-in panel. */
export class AuthError extends Error {}

/** Any other refusal; `code` and `message` come from the server's `{error: {code, message}}`. */
export class ApiError extends Error {
  constructor(status, code, message) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

const authListeners = new Set();

/** Called whenever a request comes back 401. */
export function onAuthRequired(listener) {
  authListeners.add(listener);
}

/** GET a JSON route; empty params are dropped. */
export async function apiGet(path, params = {}) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== '') query.set(key, String(value));
  }
  const qs = query.toString();
  return request(qs ? `${path}?${qs}` : path, { method: 'GET' });
}

/** POST JSON with the headers the server's cross-site checks require. */
export async function apiPost(path, body) {
  return request(path, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', 'X-Requested-With': REQUESTED_WITH },
    body: JSON.stringify(body ?? {}),
  });
}

async function request(path, init) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  if (!token && SIGN_IN_MODE === 'token') {
    notifyAuth('missing');
    throw new AuthError('No dashboard token');
  }
  const res = await fetch(path, {
    ...init,
    headers: { Accept: 'application/json', ...(init.headers ?? {}), ...(SIGN_IN_MODE === 'token' ? { 'X-Auth-Token': token } : {}) },
    cache: 'no-store',
    credentials: 'same-origin',
  });
  if (res.status === 401) {
    notifyAuth(SIGN_IN_MODE === 'oidc' ? 'expired' : 'rejected');
    throw new AuthError(SIGN_IN_MODE === 'oidc' ? 'Session ended' : 'Dashboard token rejected');
  }
  let payload = null;
  try {
    payload = await res.json();
  } catch {
    payload = null;
  }
  if (!res.ok) {
    const err = payload && payload.error ? payload.error : {};
    throw new ApiError(res.status, err.code ?? `http_${res.status}`, err.message ?? res.statusText);
  }
  return payload;
}

function notifyAuth(reason) {
  for (const listener of authListeners) listener(reason);
}
