// Comments point only at what ships: a comment in src/, scripts/ or test/ may cite files of this
// repository and docs/, never a document outside it (shared notes, reference files, a design
// document, an issue number, an open-question id). The Zerto shapes the code infers are rows of
// docs/zerto-notes.md, each naming the file that relies on it.
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OUTSIDE = [/\bshared\//, /\breference\//, /\bDESIGN\b/, /\bissue \d+/i, /\bQ\d+\b/];

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sources(path);
    return /\.(ts|mjs|js)$/.test(e.name) ? [path] : [];
  });
}

/** Tokens after which a `/` divides; after anything else it starts a regular expression. */
const ENDS_OPERAND = new Set([
  ts.SyntaxKind.Identifier, ts.SyntaxKind.NumericLiteral, ts.SyntaxKind.BigIntLiteral, ts.SyntaxKind.StringLiteral,
  ts.SyntaxKind.NoSubstitutionTemplateLiteral, ts.SyntaxKind.TemplateTail, ts.SyntaxKind.RegularExpressionLiteral,
  ts.SyntaxKind.CloseParenToken, ts.SyntaxKind.CloseBracketToken, ts.SyntaxKind.CloseBraceToken,
  ts.SyntaxKind.ThisKeyword, ts.SyntaxKind.SuperKeyword, ts.SyntaxKind.TrueKeyword, ts.SyntaxKind.FalseKeyword,
  ts.SyntaxKind.NullKeyword, ts.SyntaxKind.PlusPlusToken, ts.SyntaxKind.MinusMinusToken, ts.SyntaxKind.ExclamationToken,
]);

/**
 * Every comment of a file with its line, read by TypeScript's scanner: strings, template literals
 * and regular expressions are not comments.
 */
export function commentsOf(text: string): Array<{ line: number; text: string }> {
  const scanner = ts.createScanner(ts.ScriptTarget.Latest, false, ts.LanguageVariant.Standard, text);
  const newlines = [...text.matchAll(/\n/g)].map((m) => m.index);
  const lineOf = (pos: number) => {
    let lo = 0;
    let hi = newlines.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (newlines[mid]! < pos) lo = mid + 1;
      else hi = mid;
    }
    return lo + 1;
  };
  const out: Array<{ line: number; text: string }> = [];
  // Open template literals: a `}` at the depth one opened at resumes the template's text.
  const templates: number[] = [];
  let depth = 0;
  let previous = ts.SyntaxKind.Unknown;
  for (let kind = scanner.scan(); kind !== ts.SyntaxKind.EndOfFileToken; kind = scanner.scan()) {
    if (kind === ts.SyntaxKind.SingleLineCommentTrivia || kind === ts.SyntaxKind.MultiLineCommentTrivia) {
      out.push({ line: lineOf(scanner.getTokenStart()), text: scanner.getTokenText() });
      continue;
    }
    if (kind === ts.SyntaxKind.WhitespaceTrivia || kind === ts.SyntaxKind.NewLineTrivia) continue;
    if ((kind === ts.SyntaxKind.SlashToken || kind === ts.SyntaxKind.SlashEqualsToken) && !ENDS_OPERAND.has(previous)) kind = scanner.reScanSlashToken();
    if (kind === ts.SyntaxKind.OpenBraceToken) depth++;
    if (kind === ts.SyntaxKind.CloseBraceToken) {
      if (templates.at(-1) === depth) {
        templates.pop();
        kind = scanner.reScanTemplateToken(false);
      } else depth--;
    }
    if (kind === ts.SyntaxKind.TemplateHead || kind === ts.SyntaxKind.TemplateMiddle) templates.push(depth);
    previous = kind;
  }
  return out;
}

const scanned = new Map<string, Array<{ line: number; text: string }>>();
function commentsIn(file: string): Array<{ line: number; text: string }> {
  if (!scanned.has(file)) scanned.set(file, commentsOf(readFileSync(file, 'utf8')));
  return scanned.get(file)!;
}

function citations(dirs: string[]): string[] {
  const found: string[] = [];
  for (const file of dirs.flatMap((d) => sources(join(ROOT, d)))) {
    for (const c of commentsIn(file)) {
      const hit = OUTSIDE.find((re) => re.test(c.text));
      if (hit) found.push(`${relative(ROOT, file)}:${c.line}: ${c.text.split('\n').find((l) => hit.test(l))?.trim()}`);
    }
  }
  return found;
}

describe('comments point only at what ships', () => {
  it('no comment in src/, scripts/ or test/ cites a document outside the repository', () => {
    expect(citations(['src', 'scripts', 'test'])).toEqual([]);
  });

  it('every file with an INFERRED marker is a row of the shapes table in docs/zerto-notes.md, and every file the table names exists', () => {
    const notes = readFileSync(join(ROOT, 'docs/zerto-notes.md'), 'utf8');
    const table = notes.slice(notes.indexOf('## The ZVM shapes the client relies on'), notes.indexOf('## Open points in detail'));
    const named = new Set([...table.matchAll(/`(src\/[^`]+\.ts)`/g)].map((m) => m[1]!));
    expect(named.size).toBeGreaterThan(10);
    const marked = sources(join(ROOT, 'src')).filter((f) => commentsIn(f).some((c) => /\bINFERRED\b/.test(c.text))).map((f) => relative(ROOT, f));
    expect(marked.length).toBeGreaterThan(0);
    expect(marked.filter((f) => !named.has(f))).toEqual([]);
    expect([...named].filter((f) => !sources(join(ROOT, 'src')).map((x) => relative(ROOT, x)).includes(f))).toEqual([]);
  });

  it('finds such a citation in a comment, and not in code or strings', () => {
    const text = [
      "const a = 'see issue 12 and Q4';",
      '// as DESIGN section 3 says',
      'const b = `a ${ {x: 1}.x } // not a comment Q5 ${`nested // Q6`}`;',
      'const r = /`\\/\\/ Q7`/g; const d = 4 / 2; // Q8 after a division',
      '/** per reference/zerto-api.md */',
      'const c = 1; // fine: docs/zerto-notes.md',
    ].join('\n');
    const hits = commentsOf(text).filter((c) => OUTSIDE.some((re) => re.test(c.text))).map((c) => c.line);
    expect(hits).toEqual([2, 4, 5]);
  });
});
