// The RetrieveResult decoder fed by the response body as it streams in, so a listing page is
// decoded while it is still on the wire and the next page can be asked for the moment this one's
// `token` has arrived (RetrieveResult writes the token before the objects).
//
// It decodes each top-level child of `returnval` (the token, then one `objects` element after
// another) as soon as the text holds all of it, with the same Extractor the whole-text fast path
// uses, then drops that text: decoded rows plus one partial element is what it holds in text.
// The page's raw bytes are kept until the page ends, because anything the focused decoder does not
// accept (a fault, an unusual document, a defect) falls back to parseEnvelope on the whole page,
// exactly as if it had been read in one piece: the result never depends on where chunks were cut.

import type { ObjectContent } from '../types.js';
import { Extractor, ROOT_SCOPE, type ResponseHead, type Scope } from './retrieve-result-fast.js';
import type { BodyReader } from './transport.js';
import { decodeObjectContent, decodeRetrieveResult, parseEnvelope, type ParsedFault } from './xml.js';

export interface RetrievePage {
  token: string | undefined;
  objects: ObjectContent[];
}

/** Past this, a text that still has no `<returnval` start is not a listing page we stream. */
const HEAD_LIMIT = 64 * 1024;

export class RetrieveResultStream implements BodyReader<RetrievePage> {
  private readonly raw: Uint8Array[] = [];
  private readonly utf8 = new TextDecoder();
  private readonly ex = new Extractor('');
  private text = '';
  /** A CR at the end of the last chunk: fast-xml-parser reads CR LF as LF, so wait for the next. */
  private heldCr = false;
  private phase: 'head' | 'body' | 'closed' | 'failed' = 'head';
  private head: ResponseHead | undefined;
  private scope: Scope = ROOT_SCOPE;
  private tokenSeen = false;
  private token: string | undefined;
  private readonly objects: ObjectContent[] = [];

  /** `onToken` is called once, as soon as the page's continuation token is decoded. */
  constructor(private readonly onToken: (token: string) => void = () => {}) {}

  /** The page was decoded as it streamed (false: it went, or will go, to the whole-text path). */
  get streamed(): boolean {
    return this.phase === 'closed';
  }

  write(chunk: Uint8Array): void {
    this.raw.push(chunk);
    if (this.phase === 'failed') return;
    let s = this.utf8.decode(chunk, { stream: true });
    if (this.heldCr) s = `\r${s}`;
    this.heldCr = s.endsWith('\r');
    if (this.heldCr) s = s.slice(0, -1);
    this.feed(s, false);
  }

  end(): { value: RetrievePage } | { fault: ParsedFault } {
    if (this.phase !== 'failed') this.feed(this.utf8.decode() + (this.heldCr ? '\r' : ''), true);
    if (this.phase === 'closed') return { value: { token: this.token, objects: this.objects } };
    // The whole page, as undici's body.text() would have given it (BOM dropped, bad bytes replaced).
    const parsed = parseEnvelope(new TextDecoder().decode(concat(this.raw)));
    if (parsed.fault) return { fault: parsed.fault };
    return { value: decodeRetrieveResult(parsed.returnval) };
  }

  private feed(s: string, final: boolean): void {
    if (s.includes('\r')) s = s.replace(/\r\n?/g, '\n');
    this.text += s;
    try {
      if (this.phase === 'head') this.readHead(final);
      if (this.phase === 'body') this.readChildren(final);
      if (this.phase === 'closed' && final) {
        this.ex.reset(this.text, 0);
        this.ex.tail([this.head!.responseName, ...this.head!.closers]);
      }
    } catch {
      // Unsupported input, or a defect here: either way the whole-text path decides.
      this.phase = 'failed';
      this.text = '';
    }
  }

  /** Waits for the `<returnval ...>` start tag, then reads everything up to it. */
  private readHead(final: boolean): void {
    const at = this.text.indexOf('<returnval');
    const gt = at < 0 ? -1 : this.text.indexOf('>', at);
    if (gt < 0) {
      // No returnval (an empty result, a fault) or not yet: a short answer, read whole at the end.
      if (final || this.text.length > HEAD_LIMIT) throw new Error('no streamed returnval');
      return;
    }
    this.ex.reset(this.text, 0);
    this.head = this.ex.head();
    if (this.head.empty) throw new Error('empty response element');
    this.scope = this.ex.openReturnval(this.head.scope);
    this.consume(this.ex.position);
    this.phase = 'body';
  }

  /** Decodes every child of returnval whose closing tag has arrived. */
  private readChildren(final: boolean): void {
    const text = this.text;
    let i = 0;
    for (;;) {
      while (i < text.length && isBlank(text.charCodeAt(i))) i++;
      if (i >= text.length) break;
      if (text.charCodeAt(i) !== 60) throw new Error('text in returnval');
      if (text.charCodeAt(i + 1) === 47) {
        // `</`: returnval's end (anything else is refused by closeReturnval).
        if (text.length - i < 12 && !final) break;
        this.ex.reset(text, i);
        if (!this.ex.closeReturnval()) throw new Error('unexpected end tag');
        i = this.ex.position;
        this.phase = 'closed';
        break;
      }
      const end = this.childEnd(text, i);
      if (end < 0) break;
      this.ex.reset(text, i);
      const { name, value } = this.ex.child(this.scope, 1);
      // The closing tag found must be this element's own (a same-named descendant would end sooner).
      if (this.ex.position !== end) throw new Error('child boundary mismatch');
      this.take(name, value);
      i = end;
    }
    this.consume(i);
  }

  /**
   * The index after the `</name>` closing the child that starts at `start`, or -1 while it has not
   * all arrived. Same-named descendants (an `objects` field inside a value) are counted, so their
   * closing tags are skipped. A start tag with a `>` inside an attribute can mislead this count;
   * the decoder then ends elsewhere and the page takes the whole-text path.
   */
  private childEnd(text: string, start: number): number {
    let j = start + 1;
    while (j < text.length && isNameChar(text.charCodeAt(j))) j++;
    if (j >= text.length) return -1;
    const gt = text.indexOf('>', j);
    if (gt < 0) return -1;
    if (text.charCodeAt(gt - 1) === 47) return gt + 1; // `<x/>`: the start tag is the element
    const open = text.slice(start, j);
    const closing = `</${open.slice(1)}>`;
    let depth = 1;
    let p = gt + 1;
    for (;;) {
      const close = text.indexOf(closing, p);
      if (close < 0) return -1;
      for (let o = text.indexOf(open, p); o >= 0 && o < close; o = text.indexOf(open, o + open.length)) {
        const c = text.charCodeAt(o + open.length);
        if (!isBlank(c) && c !== 62 && c !== 47) continue; // a longer name
        if (text.charCodeAt(text.indexOf('>', o) - 1) !== 47) depth++;
      }
      p = close + closing.length;
      if (--depth === 0) return p;
    }
  }

  private take(name: string, value: unknown): void {
    if (name === 'token') {
      // A second token makes the generic path's token a list (no token at all): let it decide.
      if (this.tokenSeen) throw new Error('second token');
      this.tokenSeen = true;
      if (typeof value === 'string' && value !== '') {
        this.token = value;
        this.onToken(value);
      }
    } else if (name === 'objects') {
      const oc = decodeObjectContent(value);
      if (oc) this.objects.push(oc);
    }
    // Other children are ignored by decodeRetrieveResult too.
  }

  /** Drops the decoded text before `i`. */
  private consume(i: number): void {
    if (i === 0) return;
    this.text = this.text.slice(i);
  }
}

const isBlank = (c: number): boolean => c === 32 || c === 10 || c === 9;
const isNameChar = (c: number): boolean =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46 || c === 58;

function concat(parts: Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0]!;
  return Buffer.concat(parts);
}
