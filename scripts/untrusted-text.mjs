// What a script client reads out of this server's fenced text blocks (docs/security.md, Provenance and untrusted text): the
// JSON between `<untrusted-data-ID>` and `</untrusted-data-ID>`, or the text as it is when unfenced.
const FENCE = /^<untrusted-data-([0-9a-f]{16})>\n([\s\S]*)\n<\/untrusted-data-\1>$/;

/** The value inside one fenced block: a result or error object, or a downstream's text string. */
export function fencedValue(text) {
  const m = FENCE.exec(text);
  return m ? JSON.parse(m[2]) : text;
}
