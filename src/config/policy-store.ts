// Holds the current policy and reloads it at the next call after the file's content changes (by
// sha256 of its bytes: an edit that keeps size and mtime, as `cp -p` or a fast editor can, still
// reloads). A file that stops parsing (or disappears) after start does not fall back to anything:
// the store reports the error and the pipeline denies every mutate/destructive call with it until
// the file is fixed.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { parsePolicy, EMPTY_POLICY, type PolicyFile } from './policy-file.js';
import { formatProblems, type ConfigProblem } from './problems.js';

/** `sha256`: of the file's bytes, which an approval receipt names; absent for the built-in defaults. */
export type PolicyState = { ok: true; policy: PolicyFile; source: string; sha256?: string } | { ok: false; error: string };

export interface PolicySource {
  current(): PolicyState;
}

export class PolicyFileStore implements PolicySource {
  private state: PolicyState;
  private stamp = '';

  /** `required`: whether a missing file is an error (explicit POLICY_FILE) or means built-in defaults. */
  constructor(private readonly file: string, private readonly required: boolean) {
    this.state = this.load();
  }

  /** Problems at startup (so main can exit listing them); later failures go through current(). */
  startupProblems(): ConfigProblem[] {
    if (this.state.ok) return [];
    return this.problems.length ? this.problems : [{ file: this.file, path: '', reason: this.state.error }];
  }

  private problems: ConfigProblem[] = [];

  current(): PolicyState {
    const read = this.read();
    if (read.stamp !== this.stamp) this.state = this.load(read);
    return this.state;
  }

  /** The file's bytes and their hash; 'missing' or an error stamp when it cannot be read. */
  private read(): { stamp: string; text?: string; error?: string } {
    let bytes: Buffer;
    try {
      bytes = readFileSync(this.file);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') return { stamp: 'missing' };
      return { stamp: `error:${code ?? ''}`, error: (err as Error).message };
    }
    return { stamp: createHash('sha256').update(bytes).digest('hex'), text: bytes.toString('utf8') };
  }

  private load(read = this.read()): PolicyState {
    this.stamp = read.stamp;
    if (read.stamp === 'missing') {
      // Before the first successful load a default path may simply not exist: strict built-ins.
      // After a file was loaded, its disappearance is a broken edit like any other: fail closed.
      if (!this.required && this.everLoaded === false) {
        return { ok: true, policy: EMPTY_POLICY, source: 'built-in defaults (no policy file)' };
      }
      return { ok: false, error: `policy file ${this.file} cannot be read (missing)` };
    }
    if (read.text === undefined) return { ok: false, error: `policy file ${this.file} cannot be read: ${read.error}` };
    const text = read.text;
    // An editor that truncates and rewrites in place shows an empty file for a moment; after a
    // policy was loaded, empty means "being edited or broken", never "strict built-ins only".
    if (this.everLoaded && text.trim() === '') {
      return { ok: false, error: `policy file ${this.file} is empty` };
    }
    const { policy, problems } = parsePolicy(text, this.file);
    this.problems = problems;
    if (!policy) return { ok: false, error: formatProblems(problems) };
    this.everLoaded = true;
    return { ok: true, policy, source: this.file, sha256: read.stamp };
  }

  private everLoaded = false;
}
