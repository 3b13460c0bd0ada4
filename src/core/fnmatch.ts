// Shell-style wildcards (`*`, `?`, `[abc]`, `[a-z]`, `[!abc]`) as Python's fnmatch.fnmatchcase, for
// the operator's policy patterns. Matched by the two-pointer method instead of a regular
// expression: a `*` only ever resumes from the most recent star, so the work is bounded by
// (name length + 1) x (pattern length + 1) steps and a pattern like `*-*-*-*-*-*-*-prod` cannot
// backtrack exponentially (as the compiled RegExp did: 5.5 s against 80 dashes).

type Token =
  | { kind: 'star' }
  | { kind: 'one' }
  | { kind: 'char'; ch: string }
  | { kind: 'set'; negate: boolean; chars: Set<string>; ranges: Array<[string, string]> };

const cache = new Map<string, Token[]>();
const MAX_CACHE = 1000;

export function fnmatch(name: string, pattern: string): boolean {
  return fnmatchCounted(name, pattern).matched;
}

/** The match and the number of steps it took (the bound above is what tests check). */
export function fnmatchCounted(name: string, pattern: string): { matched: boolean; steps: number } {
  let tokens = cache.get(pattern);
  if (!tokens) {
    tokens = tokenize(pattern);
    if (cache.size >= MAX_CACHE) cache.clear();
    cache.set(pattern, tokens);
  }
  return matchTokens(Array.from(name), tokens);
}

function matchTokens(s: string[], p: Token[]): { matched: boolean; steps: number } {
  let si = 0;
  let pi = 0;
  let star = -1; // token index just after the last star seen
  let resume = 0; // where in the name that star's match would extend from
  let steps = 0;
  while (si < s.length) {
    steps++;
    const t = p[pi];
    if (t && t.kind === 'star') {
      star = ++pi;
      resume = si;
    } else if (t && single(t, s[si]!)) {
      si++;
      pi++;
    } else if (star !== -1) {
      // Let the last star eat one more character and retry the rest of the pattern from there.
      pi = star;
      si = ++resume;
    } else {
      return { matched: false, steps };
    }
  }
  while (p[pi]?.kind === 'star') pi++;
  return { matched: pi === p.length, steps };
}

function single(t: Token, c: string): boolean {
  switch (t.kind) {
    case 'one': return true;
    case 'char': return t.ch === c;
    case 'set': {
      const hit = t.chars.has(c) || t.ranges.some(([lo, hi]) => lo <= c && c <= hi);
      return hit !== t.negate;
    }
    default: return false;
  }
}

function tokenize(pattern: string): Token[] {
  const p = Array.from(pattern);
  const out: Token[] = [];
  for (let i = 0; i < p.length; i++) {
    const c = p[i]!;
    if (c === '*') {
      if (out.at(-1)?.kind !== 'star') out.push({ kind: 'star' }); // "a**b" is "a*b"
    } else if (c === '?') {
      out.push({ kind: 'one' });
    } else if (c === '[') {
      // As Python: a ']' right after '[' or '[!' is a member, not the end.
      let j = i + 1;
      if (p[j] === '!') j++;
      if (p[j] === ']') j++;
      while (j < p.length && p[j] !== ']') j++;
      if (j >= p.length) {
        out.push({ kind: 'char', ch: '[' });
        continue;
      }
      let body = p.slice(i + 1, j);
      const negate = body[0] === '!';
      if (negate) body = body.slice(1);
      const chars = new Set<string>();
      const ranges: Array<[string, string]> = [];
      for (let k = 0; k < body.length; k++) {
        if (body[k + 1] === '-' && k + 2 < body.length) {
          ranges.push([body[k]!, body[k + 2]!]);
          k += 2;
        } else chars.add(body[k]!);
      }
      out.push({ kind: 'set', negate, chars, ranges });
      i = j;
    } else {
      out.push({ kind: 'char', ch: c });
    }
  }
  return out;
}
