// Shell-style wildcards (`*`, `?`, `[abc]`, `[!abc]`) as Python's fnmatch.fnmatchcase, for the
// operator's policy patterns. Patterns come from policy.yaml, not from the model; the compiled
// expression has no nested quantifiers, so it cannot backtrack catastrophically.

const cache = new Map<string, RegExp>();

export function fnmatch(name: string, pattern: string): boolean {
  let re = cache.get(pattern);
  if (!re) {
    re = new RegExp(`^${translate(pattern)}$`, 's');
    cache.set(pattern, re);
  }
  return re.test(name);
}

function translate(pattern: string): string {
  let out = '';
  for (let i = 0; i < pattern.length; i++) {
    const c = pattern[i]!;
    if (c === '*') {
      // Collapse runs of '*' so "a**b" does not compile to ".*.*".
      while (pattern[i + 1] === '*') i++;
      out += '.*';
    } else if (c === '?') {
      out += '.';
    } else if (c === '[') {
      const close = pattern.indexOf(']', i + 2);
      if (close === -1) {
        out += '\\[';
        continue;
      }
      let body = pattern.slice(i + 1, close);
      const negate = body.startsWith('!');
      if (negate) body = body.slice(1);
      body = body.replace(/\\/g, '\\\\').replace(/\^/g, '\\^');
      out += `[${negate ? '^' : ''}${body}]`;
      i = close;
    } else {
      out += c.replace(/[.+^${}()|\\/\]-]/g, '\\$&');
    }
  }
  return out;
}
