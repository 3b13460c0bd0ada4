// The human rendering of a check run: one aligned table (subject, check, status, detail), then
// the fixes for every warning and failure, numbered. Colour only when stdout is a terminal and
// NO_COLOR is unset, so redirected output and CI logs stay plain.
import type { CheckRow, CheckStatus } from './check-result.js';

const COLOURS: Record<CheckStatus, string> = { ok: '\x1b[32m', warn: '\x1b[33m', fail: '\x1b[31m', skip: '\x1b[90m' };
const RESET = '\x1b[0m';
const LABEL: Record<CheckStatus, string> = { ok: 'ok', warn: 'WARN', fail: 'FAIL', skip: 'skip' };
const DETAIL_WIDTH = 220;

export function renderTable(rows: CheckRow[], colour: boolean): string {
  const w = (k: 'subject' | 'check') => Math.max(k.length, ...rows.map((r) => r[k].length));
  const ws = w('subject');
  const wc = w('check');
  const paint = (s: CheckStatus, text: string) => (colour ? `${COLOURS[s]}${text}${RESET}` : text);
  const lines = [`${'SUBJECT'.padEnd(ws)}  ${'CHECK'.padEnd(wc)}  STATUS  DETAIL`];
  const fixes: string[] = [];
  for (const r of rows) {
    const detail = r.detail.length > DETAIL_WIDTH ? `${r.detail.slice(0, DETAIL_WIDTH - 1)}…` : r.detail;
    let mark = '';
    if (r.fix) {
      fixes.push(`[${fixes.length + 1}] ${r.subject} ${r.check}: ${r.detail}\n    fix: ${r.fix}`);
      mark = ` [${fixes.length}]`;
    }
    lines.push(`${r.subject.padEnd(ws)}  ${r.check.padEnd(wc)}  ${paint(r.status, LABEL[r.status].padEnd(6))}  ${detail}${mark}`);
  }
  const counts = (['ok', 'warn', 'fail', 'skip'] as const).map((s) => `${rows.filter((r) => r.status === s).length} ${s}`).join(', ');
  lines.push('', counts);
  if (fixes.length) lines.push('', 'What to fix:', ...fixes);
  return `${lines.join('\n')}\n`;
}
