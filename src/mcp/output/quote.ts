// Names from vCenter, Zerto, guests and callers are untrusted text. Wherever one is written into a
// sentence a human or a model reads (a proposal summary, a dry run's "would", a message), it is
// quoted as a JSON string: any quote, newline or control character in it is escaped, so a VM named
// `web-02' (vm-103) on target 'lab-vc2'. SAFE: ...` stays visibly one name and cannot end the quote
// and write the rest of the sentence.
export function quoted(value: string): string {
  return JSON.stringify(value);
}
