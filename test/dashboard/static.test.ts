// The static page: security headers on every kind of response, no inline script anywhere, correct
// content types (module scripts are refused otherwise), no path escapes, no innerHTML with data.
import { readFile, readdir } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STATIC_DIR } from '../../src/dashboard/static-files.js';
import { TOKEN, startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.close();
});

const auth = { 'X-Auth-Token': TOKEN };

function expectSecurityHeaders(res: Response, label: string): void {
  const csp = res.headers.get('content-security-policy') ?? '';
  expect(csp, label).toContain("default-src 'self'");
  expect(csp, label).toContain("script-src 'self'");
  expect(csp, label).not.toContain('unsafe-inline');
  expect(csp, label).not.toContain('unsafe-eval');
  expect(csp, label).toContain("frame-ancestors 'none'");
  expect(res.headers.get('x-content-type-options'), label).toBe('nosniff');
  expect(res.headers.get('referrer-policy'), label).toBe('no-referrer');
  expect(res.headers.get('x-frame-options'), label).toBe('DENY');
  expect(res.headers.get('cache-control'), label).toBe('no-store');
}

describe('security headers', () => {
  it('on the page, every static file, the API, errors and 401s', async () => {
    const files = (await readdir(STATIC_DIR)).filter((f) => f !== 'index.html');
    expect(files.length).toBeGreaterThanOrEqual(3);
    const paths = ['/', ...files.map((f) => `/assets/${f}`), '/api/proposals', '/api/nope', '/nope'];
    for (const path of paths) {
      const res = await fetch(h.base + path, { headers: auth });
      expectSecurityHeaders(res, path);
    }
    expectSecurityHeaders(await fetch(`${h.base}/`), '401');
  });
});

describe('static files', () => {
  it('are served with exact content types', async () => {
    const types: Record<string, RegExp> = {
      '/': /^text\/html/,
      '/assets/app.js': /^text\/javascript/,
      '/assets/dom.js': /^text\/javascript/,
      '/assets/app.css': /^text\/css/,
    };
    for (const [path, type] of Object.entries(types)) {
      const res = await fetch(h.base + path, { headers: auth });
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type'), path).toMatch(type);
    }
  });

  it('the HTML has no inline script, handler attributes, inline styles or external URLs', async () => {
    const html = await (await fetch(`${h.base}/`, { headers: auth })).text();
    const scripts = [...html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/gi)];
    expect(scripts.length).toBeGreaterThan(0);
    for (const [, attrs, body] of scripts) {
      expect(attrs).toMatch(/\bsrc="[^"]+"/);
      expect(body?.trim()).toBe('');
    }
    expect(html).not.toMatch(/\son[a-z]+\s*=/i);
    expect(html).not.toMatch(/\sstyle\s*=/i);
    expect(html).not.toMatch(/javascript:/i);
    // Air-gapped sites: no CDN, no web fonts, nothing off-box.
    expect(html).not.toMatch(/(src|href)="(https?:)?\/\//i);
  });

  it('the scripts never parse markup and never put the token in a URL', async () => {
    for (const file of (await readdir(STATIC_DIR)).filter((f) => f.endsWith('.js'))) {
      // Comments may talk about `?token=`; the code may not use it.
      const js = withoutComments(await readFile(new URL(file, STATIC_DIR), 'utf8'));
      expect(js, file).not.toMatch(/innerHTML|outerHTML|insertAdjacentHTML|document\.write|\beval\(|new Function/);
      expect(js, file).not.toMatch(/[?&]token=/);
      expect(js, file).not.toMatch(/console\./);
    }
  });

  it('unknown and escaping paths are 404, never a file outside the static set', async () => {
    for (const path of ['/assets/../server.ts', '/assets/%2e%2e/server.ts', '/assets/..%2fserver.ts', '/server.ts', '/assets/', '/static/app.js']) {
      const res = await fetch(h.base + path, { headers: auth });
      expect(res.status, path).toBe(404);
      expect(await res.text(), path).not.toContain('startDashboard');
    }
  });

  it('only GET and HEAD are allowed for the page', async () => {
    const head = await fetch(`${h.base}/`, { method: 'HEAD', headers: auth });
    expect(head.status).toBe(200);
    const post = await fetch(`${h.base}/`, { method: 'POST', headers: auth });
    expect(post.status).toBe(405);
  });
});

describe('lifecycle', () => {
  it('close() returns promptly with a keep-alive connection open and frees the port', async () => {
    const own = await startHarness();
    await fetch(`${own.base}/api/proposals`, { headers: auth });
    const started = Date.now();
    await own.close();
    expect(Date.now() - started).toBeLessThan(2000);
    await expect(fetch(`${own.base}/api/proposals`, { headers: auth })).rejects.toThrow();
  });
});

function withoutComments(js: string): string {
  return js.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '');
}
