// Switching an instance from files to central mode must not lose what its state files hold: a tool
// the agent added to the catalog would silently stop being guarded, and a mount a crash left would
// no longer be reported. So at startup in central mode the instance's catalog and FLR state files
// are merged into PostgreSQL (never replacing a row there) and renamed `.imported-<time>`, so a
// later removal in the database is not undone by importing the file again.
import { existsSync, renameSync } from 'node:fs';
import { FileCatalogStore } from '../files/catalog-file-store.js';
import { MAX_ADDED, type AddedCatalogStore } from '../../core/catalog.js';
import { FlrSessionStore } from '../files/flr-session-file-store.js';
import type { PgFlrSessionStore } from './flr-session-store.js';

export interface ImportReport {
  file: string;
  /** Where the file went; undefined when it could not be renamed (see problems). */
  movedTo?: string;
  imported: string[];
  /** Already in the database (kept as the database has it), or over the catalog's limit. */
  skipped: string[];
  problems: string[];
}

export async function importCatalogFile(path: string, into: AddedCatalogStore): Promise<ImportReport | undefined> {
  if (!existsSync(path)) return undefined;
  const file = new FileCatalogStore(path);
  const entries = await file.read();
  const outcome = await into.update((current) => {
    const have = new Set(current.map((e) => e.tool));
    const fresh = entries.filter((e) => !have.has(e.tool)).slice(0, Math.max(0, MAX_ADDED - current.length));
    const taken = new Set(fresh.map((e) => e.tool));
    return { next: [...current, ...fresh], result: { imported: [...taken], skipped: entries.map((e) => e.tool).filter((t) => !taken.has(t)) } };
  });
  const problems = [...file.problems];
  // A file that did not parse was already set aside (`.corrupt-<time>`) by the file store.
  const movedTo = existsSync(path) ? setAside(path, problems) : undefined;
  return { file: path, ...(movedTo ? { movedTo } : {}), ...outcome, problems };
}

export async function importFlrFile(path: string, into: PgFlrSessionStore): Promise<ImportReport | undefined> {
  if (!existsSync(path)) return undefined;
  const entries = await new FlrSessionStore(path).read();
  const known = new Set((await into.read()).map((s) => `${s.site}\u0000${s.session_id}`));
  await into.adopt(entries);
  const key = (s: { site: string; session_id: string }) => `${s.site}\u0000${s.session_id}`;
  const problems: string[] = [];
  const movedTo = setAside(path, problems);
  return {
    file: path, ...(movedTo ? { movedTo } : {}), problems,
    imported: entries.filter((s) => !known.has(key(s))).map((s) => `${s.site}/${s.session_id}`),
    skipped: entries.filter((s) => known.has(key(s))).map((s) => `${s.site}/${s.session_id}`),
  };
}

/** Renames the imported file; a failure only means the next start imports it again (harmless: nothing is replaced). */
function setAside(path: string, problems: string[]): string | undefined {
  const aside = `${path}.imported-${new Date().toISOString().replace(/[:.]/g, '-')}`;
  try {
    renameSync(path, aside);
    return aside;
  } catch (err) {
    problems.push(`imported ${path} but could not rename it (${(err as Error).message}); it will be imported again at the next start`);
    return undefined;
  }
}
