// Provenance of text, recorded where it is written: the sentences and names this server (or its
// operator's config) wrote. A result's `_untrusted` marking lists every string field except ids and
// enums and the strings recorded here, so upstream text (a VM name, an annotation, a vCenter fault,
// a ZVM error body, a downstream's answer) stays marked and our own words do not dilute the mark.
//
// The record is by value, because a result is copied on its way out (redaction, fan-out slots,
// error shapes) and a string carries no tag. Record only text with nothing upstream or
// caller-given in it: a sentence that interpolates a VM name, a fault message or an argument must
// not go through ownText. The record is bounded; a sentence that fell out of it is marked again,
// which errs on the safe side. A value equal to a recorded sentence is unmarked wherever it occurs
// in our results (never in a downstream's): it then says what the server says.

const MAX_OWN_TEXT = 4096;
const own = new Set<string>();

/** Records `text` as written by this server (or its operator's config) and returns it unchanged. */
export function ownText<T extends string>(text: T): T {
  if (own.has(text)) own.delete(text); // most recent last: the oldest is dropped first
  own.add(text);
  if (own.size > MAX_OWN_TEXT) own.delete(own.values().next().value as string);
  return text;
}

/** Whether `text` was recorded by ownText (and not dropped since). */
export function isOwnText(text: string): boolean {
  return own.has(text);
}

/**
 * Records `text`, built from `parts`, as this server's own only when every part is: a sentence of
 * ours that carries an upstream part stays marked.
 */
export function ownTextFrom<T extends string>(text: T, parts: ReadonlyArray<string | undefined>): T {
  return parts.every((p) => p === undefined || isOwnText(p)) ? ownText(text) : text;
}
