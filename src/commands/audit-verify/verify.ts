// Checks the hash chain of one or more audit files, given oldest first (audit.jsonl.2,
// audit.jsonl.1, audit.jsonl). Streams each file, so a log of any size verifies in bounded memory.
// Reports the first line that breaks the chain, a file missing from a rotation, or OK with counts.
import { createReadStream } from 'node:fs';
import { access } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { lineHash, prevOf } from '../../audit/chain.js';

export interface VerifiedFile {
  path: string;
  lines: number;
  /** What the file's first line says came before it (null: the first line of a new log). */
  follows: string | null | undefined;
  lastHash: string | null;
}

export interface VerifyProblem {
  path: string;
  /** 1-based line number in `path`; 0 when the problem is the file as a whole. */
  line: number;
  reason: string;
}

export interface VerifyReport {
  ok: boolean;
  files: VerifiedFile[];
  lines: number;
  /** Records cut short by a crash that the chain passes over (the next line links to the one before). */
  tornRecords: number;
  /** Lines without `prev` at the start of a file, written before the log was chained. */
  unchainedLines: number;
  problem?: VerifyProblem;
  notes: string[];
}

export async function verifyAuditFiles(paths: string[]): Promise<VerifyReport> {
  const report: VerifyReport = { ok: true, files: [], lines: 0, tornRecords: 0, unchainedLines: 0, notes: [] };
  let previous: string | null | undefined; // hash of the last line of the previous file
  for (const [index, path] of paths.entries()) {
    try {
      await access(path);
    } catch {
      return fail(report, { path, line: 0, reason: 'file not found' });
    }
    const file: VerifiedFile = { path, lines: 0, follows: undefined, lastHash: null };
    report.files.push(file);
    let last: string | null | undefined = index === 0 ? undefined : previous;
    let pendingTorn: number | undefined;
    let chained = false;
    const rl = createInterface({ input: createReadStream(path), crlfDelay: Infinity });
    for await (const line of rl) {
      file.lines++;
      report.lines++;
      if (line === '') continue;
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        // Accepted only if the next line chains over it (checked below); otherwise it is the break.
        if (pendingTorn !== undefined) return fail(report, { path, line: pendingTorn, reason: 'not a complete JSON record (torn or edited)' }, rl);
        pendingTorn = file.lines;
        continue;
      }
      const prev = prevOf(record);
      if (prev === undefined) {
        if (!chained) {
          report.unchainedLines++;
          last = lineHash(line);
          continue;
        }
        return fail(report, { path, line: file.lines, reason: 'has no `prev` field: the line was edited or inserted' }, rl);
      }
      if (!chained && file.follows === undefined) file.follows = prev;
      const firstOfSet = last === undefined;
      if (!firstOfSet && prev !== last) {
        const reason = pendingTorn !== undefined
          ? `line ${pendingTorn} is not a complete JSON record, and this line does not chain over it (edited or deleted lines)`
          : !chained && index > 0
            ? rotationGap(paths[index - 1]!, prev)
            : prev === null
              ? 'starts a new chain (prev is null) in the middle of the log: the lines before it are not linked to it'
              : `prev does not match the hash of the line before it: a line was edited, inserted or deleted`;
        return fail(report, { path, line: pendingTorn ?? file.lines, reason }, rl);
      }
      if (firstOfSet && prev !== null) report.notes.push(`${path} follows an earlier file that was not given (its first line names ${prev.slice(0, 12)}…)`);
      if (pendingTorn !== undefined) {
        report.tornRecords++;
        pendingTorn = undefined;
      }
      chained = true;
      last = lineHash(line);
    }
    if (pendingTorn !== undefined) report.tornRecords++; // a torn last record: nothing follows it yet
    file.lastHash = last ?? null;
    previous = last;
  }
  return report;
}

function rotationGap(before: string, prev: string | null): string {
  return prev === null
    ? `starts a new log (prev is null) instead of following ${before}: files in between are missing, or the log was started afresh`
    : `does not follow ${before}: a rotated file between them is missing (its first line names ${prev.slice(0, 12)}…)`;
}

function fail(report: VerifyReport, problem: VerifyProblem, rl?: { close(): void }): VerifyReport {
  rl?.close();
  return { ...report, ok: false, problem };
}
