// Every relative link in the README, CONTRIBUTING.md, docs/ and bench/results/ names a file that
// exists and, when it has a #fragment, a heading of that file (GitHub's anchor: lowercased,
// punctuation dropped, spaces as '-'). The documentation is split over many pages that link each
// other's sections, so a renamed heading or a moved file breaks links nobody sees until a reader
// follows one.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, normalize } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function markdownFiles(): string[] {
  const inFolder = (folder: string) =>
    existsSync(join(ROOT, folder)) ? readdirSync(join(ROOT, folder)).filter((f) => f.endsWith('.md')).map((f) => `${folder}/${f}`) : [];
  return ['README.md', 'CONTRIBUTING.md', ...inFolder('docs'), ...inFolder('bench/results')].sort();
}

/** The text outside fenced code blocks, where links and headings are what they look like. */
function prose(text: string): string {
  return text.replace(/^```[\s\S]*?^```/gm, '');
}

function anchorOf(heading: string): string {
  return heading.trim().toLowerCase().replace(/[^\p{L}\p{N}_\- ]/gu, '').replace(/ /g, '-');
}

function anchorsIn(file: string): Set<string> {
  const text = prose(readFileSync(join(ROOT, file), 'utf8'));
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => anchorOf(m[1]!)));
}

/** Each broken relative link as `file: link (why)`. */
function brokenLinks(): string[] {
  const broken: string[] = [];
  for (const file of markdownFiles()) {
    const text = prose(readFileSync(join(ROOT, file), 'utf8'));
    for (const [, link] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link!)) continue; // https:, vscode:, mailto:
      const [path, fragment] = link!.split('#') as [string, string | undefined];
      const target = path ? normalize(join(dirname(file), path)) : file;
      if (!existsSync(join(ROOT, target))) broken.push(`${file}: ${link} (no such file)`);
      else if (fragment && target.endsWith('.md') && !anchorsIn(target).has(fragment)) broken.push(`${file}: ${link} (no such heading)`);
    }
  }
  return broken;
}

describe('documentation links', () => {
  it('anchors are computed as GitHub computes them', () => {
    expect(anchorOf('Undo (`undo_change`)')).toBe('undo-undo_change');
    expect(anchorOf('The guard in Claude Code: a PreToolUse hook')).toBe('the-guard-in-claude-code-a-pretooluse-hook');
    expect(anchorOf('config.json (Zerto)')).toBe('configjson-zerto');
  });

  it('every relative link names an existing file and heading', () => {
    expect(markdownFiles().length).toBeGreaterThan(10);
    expect(brokenLinks()).toEqual([]);
  });
});
