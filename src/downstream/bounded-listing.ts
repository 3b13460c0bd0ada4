// A downstream's tools/list, followed page by page within bounds: a number of pages, of tools and
// of bytes, and a time. A server whose pagination never ends (a cursor bug, or hostility) or that
// offers thousands of tools would otherwise grow this process without limit and put a megabyte
// listing into every client's context. Past any bound the listing is refused as a whole, naming
// the bound, and the caller keeps the server's previous tools (or none).
import type { Client } from '@modelcontextprotocol/client';
import type { DownstreamTool } from './downstream-tool.js';

export interface ListingBounds {
  maxTools: number;
  timeoutMs: number;
  maxPages?: number;
  maxBytes?: number;
}

/** Far above any honest server's listing (the largest seen: a few hundred tools in a few pages). */
const MAX_PAGES = 100;
const MAX_BYTES = 4 * 1024 * 1024;

export class ListingRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ListingRefused';
  }
}

export async function listToolsBounded(client: Client, bounds: ListingBounds): Promise<DownstreamTool[]> {
  const out: DownstreamTool[] = [];
  const deadline = Date.now() + bounds.timeoutMs;
  let bytes = 0;
  let pages = 0;
  let cursor: string | undefined;
  const maxPages = bounds.maxPages ?? MAX_PAGES;
  const maxBytes = bounds.maxBytes ?? MAX_BYTES;
  do {
    if (++pages > maxPages) throw new ListingRefused(`tools/list refused: more than ${maxPages} pages (a cursor that never ends?)`);
    const left = deadline - Date.now();
    if (left <= 0) throw new ListingRefused(`tools/list refused: not complete within ${bounds.timeoutMs / 1000}s`);
    // One page per request, counted here: the SDK's listTools() would walk (and cache) every page
    // itself, bounded by pages only.
    const page = await client.request({ method: 'tools/list', ...(cursor ? { params: { cursor } } : {}) }, { timeout: left });
    bytes += JSON.stringify(page).length;
    if (bytes > maxBytes) throw new ListingRefused(`tools/list refused: more than ${Math.round(maxBytes / 1024)} KB`);
    out.push(...(page.tools as DownstreamTool[]));
    if (out.length > bounds.maxTools) throw new ListingRefused(`tools/list refused: more than ${bounds.maxTools} tools (max_tools in config.json raises the bound)`);
    cursor = page.nextCursor;
  } while (cursor);
  return out;
}
