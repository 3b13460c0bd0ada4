// The page is a handful of files beside this module (src/dashboard/static in development,
// dist/dashboard/static after the build copies them). They are read once at start into memory: the
// set is tiny, and serving from a fixed map means no request path ever reaches the file system, so
// there is no traversal to get wrong.
import { readFile, readdir } from 'node:fs/promises';
import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface StaticFile {
  body: Buffer;
  contentType: string;
}

// Module scripts are refused by browsers unless served as JavaScript (and nosniff is on), so the
// types must be exact.
const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** URL prefix of everything but the page itself. */
export const ASSET_PREFIX = '/assets/';

export const STATIC_DIR = new URL('./static/', import.meta.url);

/**
 * Loads the static files into a map keyed by URL path: `/` (and `/index.html`) for the page,
 * `/assets/<file>` for the rest. Throws when the directory or index.html is missing, which means
 * the build did not copy the assets.
 */
export async function loadStaticFiles(dir: URL = STATIC_DIR): Promise<Map<string, StaticFile>> {
  let names: string[];
  try {
    names = await readdir(dir);
  } catch (err) {
    throw new Error(
      `Dashboard static files not found at ${fileURLToPath(dir)} (the build must copy src/dashboard/static there): ${(err as Error).message}`,
      { cause: err },
    );
  }
  const files = new Map<string, StaticFile>();
  for (const name of names) {
    const contentType = CONTENT_TYPES[extname(name)];
    if (contentType === undefined) continue;
    const file: StaticFile = { body: await readFile(new URL(name, dir)), contentType };
    if (name === 'index.html') {
      files.set('/', file);
      files.set('/index.html', file);
    } else {
      files.set(ASSET_PREFIX + name, file);
    }
  }
  if (!files.has('/')) throw new Error(`Dashboard static files at ${fileURLToPath(dir)} lack index.html.`);
  return files;
}

/**
 * The page as the OIDC mode serves it: its <html> element says so (`data-sign-in="oidc"`), so the
 * script knows there is no token to ask for without a round trip (the CSP forbids inline script).
 */
export function markOidcMode(files: Map<string, StaticFile>): void {
  const page = files.get('/');
  if (!page) return;
  const html = page.body.toString('utf8');
  if (!html.includes('<html lang="en">')) throw new Error('Dashboard index.html has no <html lang="en"> element to mark for OIDC sign-in.');
  const marked: StaticFile = { ...page, body: Buffer.from(html.replace('<html lang="en">', '<html lang="en" data-sign-in="oidc">'), 'utf8') };
  files.set('/', marked);
  files.set('/index.html', marked);
}
