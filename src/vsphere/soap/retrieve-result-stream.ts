// The RetrieveResult decoder fed by the response body as it streams in, so a listing page is
// decoded while it is still on the wire and the next page can be asked for the moment this one's
// `token` has arrived (RetrieveResult writes the token before the objects).
//
// It decodes each top-level child of `returnval` (the token, then one `objects` element after
// another) as soon as the text holds all of it, with the same Extractor the whole-text fast path
// uses, then drops that text: decoded rows plus one partial element is what it holds in text.
//
// Anything the focused decoder does not accept (a fault, an unusual document, a defect) goes to
// the generic parser, with the same result as if the whole page had been parsed in one piece.
// For that it keeps, instead of the page's bytes (24 MB for vcsim's single 10,000-VM page), only
// what it did not decode as a row: the text before returnval's children, the children other than
// `objects` (the token), and a count per run of decoded `objects`. The generic parser then reads
// the page with each decoded `objects` element replaced by `<objects/>` padded with spaces to its
// length: the same element tree (an empty `objects` decodes to nothing), the same character
// positions, and the decoded rows are put back in the placeholders' places. This is sound because
// fast-xml-parser is a stack parser whose state at a child boundary of returnval does not depend
// on the content of the well-formed children before it, and the placeholders are well-formed.

import { asArray, type ObjectContent } from '../types.js';
import { Extractor, ROOT_SCOPE, type ResponseHead, type Scope } from './retrieve-result-fast.js';
import type { BodyReader } from './transport.js';
import { decodeObjectContent, decodeRetrieveResult, parseEnvelope, type ParsedFault } from './xml.js';

export interface RetrievePage {
  token: string | undefined;
  objects: ObjectContent[];
}

/** Past this, a text that still has no `<returnval` start is not a listing page we stream. */
const HEAD_LIMIT = 64 * 1024;

const PLACEHOLDER = '<objects/>';

/** Decoded `objects` elements in a row: how many, and how many characters they (and the blanks between them) took. */
interface DecodedRun {
  count: number;
  chars: number;
}

export class RetrieveResultStream implements BodyReader<RetrievePage> {
  private readonly utf8 = new TextDecoder();
  private readonly ex = new Extractor('');
  /** The text not decoded yet (or, once failed, everything the generic parser is to read after `kept`). */
  private text = '';
  /** A CR at the end of the last chunk: fast-xml-parser reads CR LF as LF, so wait for the next. */
  private heldCr = false;
  private phase: 'head' | 'body' | 'closed' | 'failed' = 'head';
  private head: ResponseHead | undefined;
  private scope: Scope = ROOT_SCOPE;
  private tokenSeen = false;
  private token: string | undefined;
  private readonly objects: ObjectContent[] = [];
  /** The page as the generic parser is to read it, up to `text`: verbatim text and runs of decoded rows. */
  private readonly kept: Array<string | DecodedRun> = [];

  /** `onToken` is called once, as soon as the page's continuation token is decoded. */
  constructor(private readonly onToken: (token: string) => void = () => {}) {}

  /** The page was decoded as it streamed (false: it went, or will go, to the generic parser). */
  get streamed(): boolean {
    return this.phase === 'closed';
  }

  /** Characters of page text held now: one partial element and the text that is no row, not the page. */
  get heldChars(): number {
    let n = this.text.length;
    for (const part of this.kept) if (typeof part === 'string') n += part.length;
    return n;
  }

  write(chunk: Uint8Array): void {
    let s = this.utf8.decode(chunk, { stream: true });
    if (this.heldCr) s = `\r${s}`;
    this.heldCr = s.endsWith('\r');
    if (this.heldCr) s = s.slice(0, -1);
    this.feed(s, false);
  }

  end(): { value: RetrievePage } | { fault: ParsedFault } {
    this.feed(this.utf8.decode() + (this.heldCr ? '\r' : ''), true);
    if (this.phase === 'closed') return { value: { token: this.token, objects: this.objects } };
    // The page as undici's body.text() would have given it (BOM dropped, bad bytes replaced), but
    // for the rows already decoded: line ends are normalised already, as fast-xml-parser does first.
    const parsed = parseEnvelope(this.keptText() + this.text);
    if (parsed.fault) return { fault: parsed.fault };
    return { value: this.withDecodedRows(parsed.returnval) };
  }

  private feed(s: string, final: boolean): void {
    if (s.includes('\r')) s = s.replace(/\r\n?/g, '\n');
    this.text += s;
    if (this.phase === 'failed') return;
    try {
      if (this.phase === 'head') this.readHead(final);
      if (this.phase === 'body') this.readChildren(final);
      if (this.phase === 'closed' && final) {
        this.ex.reset(this.text, 0);
        this.ex.tail([this.head!.responseName, ...this.head!.closers]);
      }
    } catch {
      // Unsupported input, or a defect here: either way the generic parser decides, on the text
      // kept plus everything from the first element not decoded.
      this.phase = 'failed';
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
    this.keep(this.ex.position);
    this.phase = 'body';
  }

  /** Decodes every child of returnval whose closing tag has arrived. */
  private readChildren(final: boolean): void {
    // Consumed child by child, so that a throw leaves `text` starting at the element not decoded.
    for (;;) {
      const text = this.text;
      let i = 0;
      while (i < text.length && isBlank(text.charCodeAt(i))) i++;
      if (i >= text.length) return;
      if (text.charCodeAt(i) !== 60) throw new Error('text in returnval');
      if (text.charCodeAt(i + 1) === 47) {
        // `</`: returnval's end (anything else is refused by closeReturnval).
        if (text.length - i < 12 && !final) return;
        this.ex.reset(text, i);
        if (!this.ex.closeReturnval()) throw new Error('unexpected end tag');
        this.keep(this.ex.position);
        this.phase = 'closed';
        return;
      }
      const end = this.childEnd(text, i);
      if (end < 0) return;
      this.ex.reset(text, i);
      const { name, value } = this.ex.child(this.scope, 1);
      // The closing tag found must be this element's own (a same-named descendant would end sooner).
      if (this.ex.position !== end) throw new Error('child boundary mismatch');
      this.take(name, value);
      if (name === 'objects') this.skip(end);
      else this.keep(end);
    }
  }

  /**
   * The index after the `</name>` closing the child that starts at `start`, or -1 while it has not
   * all arrived. Same-named descendants (an `objects` field inside a value) are counted, so their
   * closing tags are skipped. A start tag with a `>` inside an attribute can mislead this count;
   * the decoder then ends elsewhere and the page goes to the generic parser.
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

  /** Moves the text before `i` to `kept`, verbatim. */
  private keep(i: number): void {
    this.kept.push(this.text.slice(0, i));
    this.text = this.text.slice(i);
  }

  /** Drops the text before `i` (one decoded `objects` element and the blanks before it), counting it. */
  private skip(i: number): void {
    const last = this.kept.at(-1);
    if (typeof last === 'object') {
      last.count++;
      last.chars += i;
    } else {
      this.kept.push({ count: 1, chars: i });
    }
    this.text = this.text.slice(i);
  }

  /** The kept text, each decoded row a padded placeholder (built only when the generic parser runs). */
  private keptText(): string {
    let out = '';
    for (const part of this.kept) {
      out += typeof part === 'string' ? part : PLACEHOLDER.repeat(part.count) + ' '.repeat(part.chars - PLACEHOLDER.length * part.count);
    }
    return out;
  }

  /**
   * The generic parser's page with the decoded rows put back: they are the first `objects` of a
   * returnval that is still one element. If it is not (a second returnval made it a list), the
   * generic result ignores every `objects`, decoded or not, and so does this.
   */
  private withDecodedRows(returnval: unknown): RetrievePage {
    let decoded = 0; // decoded `objects` elements, rows or not (one without a MoRef is no row)
    for (const part of this.kept) if (typeof part === 'object') decoded += part.count;
    if (decoded === 0 || typeof returnval !== 'object' || returnval === null || Array.isArray(returnval)) {
      return decodeRetrieveResult(returnval);
    }
    const rv = returnval as { objects?: unknown };
    const all = asArray<unknown>(rv.objects);
    // A placeholder decodes to '' and nothing else does here: anything else is a defect, not data.
    for (let k = 0; k < decoded; k++) if (all[k] !== '') throw new Error('the decoded rows lost their places');
    const rest = decodeRetrieveResult({ ...rv, objects: all.slice(decoded) });
    return { token: rest.token, objects: this.objects.concat(rest.objects) };
  }
}

const isBlank = (c: number): boolean => c === 32 || c === 10 || c === 9;
const isNameChar = (c: number): boolean =>
  (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 45 || c === 46 || c === 58;
