// A browser stand-in over fetch for the dashboard's sign-in tests: it keeps cookies (name, path,
// Max-Age; scoped by host name, shared across ports as browsers do) and follows redirects itself,
// one hop at a time, so a test sees every hop of the OIDC round trip and can stop at any of them.

interface StoredCookie {
  value: string;
  path: string;
  httpOnly: boolean;
  sameSite: string | undefined;
  secure: boolean;
}

export interface Hop {
  url: string;
  status: number;
  location?: string;
  setCookies: string[];
}

export class CookieJar {
  private readonly cookies = new Map<string, Map<string, StoredCookie>>();

  /** The raw attributes of a stored cookie (to check HttpOnly/SameSite/Secure). */
  get(host: string, name: string): StoredCookie | undefined {
    return this.cookies.get(host)?.get(name);
  }

  set(host: string, name: string, value: string, path = '/'): void {
    this.hostJar(host).set(name, { value, path, httpOnly: true, sameSite: 'Lax', secure: false });
  }

  delete(host: string, name: string): void {
    this.cookies.get(host)?.delete(name);
  }

  /** One request, no redirect following; cookies sent and stored. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const u = new URL(url);
    const cookie = [...(this.cookies.get(u.hostname)?.entries() ?? [])]
      .filter(([, c]) => u.pathname.startsWith(c.path))
      .map(([n, c]) => `${n}=${c.value}`).join('; ');
    const headers = new Headers(init.headers);
    if (cookie) headers.set('cookie', cookie);
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    for (const line of res.headers.getSetCookie()) this.store(u.hostname, line);
    return res;
  }

  /** Follows redirects from `url` until a non-redirect answer (or `max` hops); returns every hop and the last response. */
  async navigate(url: string, max = 10): Promise<{ hops: Hop[]; final: Response }> {
    const hops: Hop[] = [];
    let current = url;
    for (let i = 0; i < max; i++) {
      const res = await this.fetch(current);
      const location = res.headers.get('location') ?? undefined;
      hops.push({ url: current, status: res.status, ...(location ? { location } : {}), setCookies: res.headers.getSetCookie() });
      if (res.status < 300 || res.status >= 400 || !location) return { hops, final: res };
      await res.body?.cancel();
      current = new URL(location, current).href;
    }
    throw new Error(`more than ${max} redirects from ${url}`);
  }

  private hostJar(host: string): Map<string, StoredCookie> {
    let jar = this.cookies.get(host);
    if (!jar) this.cookies.set(host, (jar = new Map()));
    return jar;
  }

  private store(host: string, line: string): void {
    const [pair, ...attrs] = line.split(';').map((s) => s.trim());
    const eq = pair!.indexOf('=');
    const name = pair!.slice(0, eq);
    const value = pair!.slice(eq + 1);
    const attr = (key: string) => attrs.find((a) => a.toLowerCase().startsWith(key.toLowerCase()));
    const maxAge = attr('Max-Age=')?.split('=')[1];
    if (maxAge !== undefined && Number(maxAge) <= 0) {
      this.cookies.get(host)?.delete(name);
      return;
    }
    this.hostJar(host).set(name, {
      value,
      path: attr('Path=')?.split('=')[1] ?? '/',
      httpOnly: attr('HttpOnly') !== undefined,
      sameSite: attr('SameSite=')?.split('=')[1],
      secure: attr('Secure') !== undefined,
    });
  }
}
