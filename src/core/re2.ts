// re2js, the linear-time engine for the regular expressions a model supplies (name_regex,
// entity_name), loaded on the first pattern instead of at startup: it is a quarter of a megabyte
// of code that most runs never call, and compiling it was ~10% of a Node 20 start. The package
// ships a CommonJS build beside its ES module, so a synchronous require keeps every caller as it
// was.
import { createRequire } from 'node:module';
import type { RE2JS as Engine } from 're2js';

export type RE2JS = Engine;

const require = createRequire(import.meta.url);
let engine: typeof Engine | undefined;

/** The RE2JS class (loaded on the first call). */
export function re2(): typeof Engine {
  engine ??= (require('re2js') as typeof import('re2js')).RE2JS;
  return engine;
}
