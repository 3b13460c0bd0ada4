// A downstream's JSON schemas are another server's words. Two things are done to them here:
// - listed, they are normalised to what MCP expects (JSON Schema 2020-12 when no `$schema` is
//   given): the draft-07 `$schema` is dropped and its draft-only keywords rewritten (`definitions`
//   -> `$defs`, tuple `items` -> `prefixItems`, `additionalItems` -> `items`, `dependencies` ->
//   `dependentRequired`/`dependentSchemas`), so strict 2020-12 validators in clients compile them;
//   `$id`s are dropped, so no schema names another;
// - checked, each tool's schema gets its own validator (no `$id` of one tool's schema can stand in
//   for another's) whose `pattern`s run on re2js, in linear time: a backtracking RegExp in the
//   event loop would let one call freeze every session. A pattern re2 cannot run (backreferences,
//   lookaround) makes the schema uncompilable, and such a tool's calls are refused, not forwarded.
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { re2 } from '../core/re2.js';

type Json = Record<string, unknown>;

/** A normalised copy; the input is left as it came. */
export function normalisedSchema(schema: Json): Json {
  return walk(schema) as Json;
}

function walk(node: unknown): unknown {
  if (Array.isArray(node)) return node.map((n) => walk(n));
  if (typeof node !== 'object' || node === null) return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === '$schema' || key === '$id' || (key === 'id' && typeof value === 'string')) continue;
    if (key === 'definitions' && isObject(value)) out.$defs = { ...(out.$defs as Json | undefined), ...mapValues(value) };
    else if (key === '$ref' && typeof value === 'string') out.$ref = value.replace(/^#\/definitions\//, '#/$defs/');
    else if (key === 'items' && Array.isArray(value)) out.prefixItems = value.map((v) => walk(v));
    // Without tuple items, draft-07 ignores additionalItems; 2020-12 has no such keyword.
    else if (key === 'additionalItems') { if (Array.isArray((node as Json).items)) out.items = walk(value); }
    else if (key === 'dependencies' && isObject(value)) {
      for (const [prop, dep] of Object.entries(value)) {
        const into = Array.isArray(dep) ? 'dependentRequired' : 'dependentSchemas';
        out[into] = { ...(out[into] as Json | undefined), [prop]: walk(dep) };
      }
    } else if (isSchemaMap(key) && isObject(value)) out[key] = mapValues(value);
    else out[key] = walk(value);
  }
  return out;
}

/** Keywords whose value maps names to schemas: the names are data, never keywords. */
export function isSchemaMap(key: string): boolean {
  return key === 'properties' || key === 'patternProperties' || key === '$defs' || key === 'dependentSchemas';
}

function mapValues(value: Json): Json {
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]));
}

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export type SchemaCheck = (input: unknown) => { valid: true } | { valid: false; errorMessage: string };

/** re2js behind Ajv's RegExp interface (`test`, and `source`/`flags` for messages). */
function linearRegExp(pattern: string, flags: string): { test(s: string): boolean; source: string; flags: string } {
  const engine = re2();
  const compiled = engine.compile(pattern, flags.includes('i') ? engine.CASE_INSENSITIVE : 0);
  return { source: pattern, flags, test: (s: string) => compiled.matcher(s).find() };
}

// Ajv names the engine in standalone code only, which is never generated here.
linearRegExp.code = 'linearRegExp';

const addFormats = (addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ?? addFormatsModule;

/**
 * A validator of its own for one tool's (normalised) input schema. Throws when the schema cannot
 * be compiled; the caller turns that into a refusal of every call.
 */
export function compileSchemaCheck(schema: Json): SchemaCheck {
  // Lenient about unknown keywords (a downstream's business), strict about what it checks.
  const ajv = new Ajv2020({ strict: false, validateFormats: true, validateSchema: false, allErrors: true, code: { regExp: linearRegExp } });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const validate = ajv.compile(schema);
  return (input) => (validate(input) ? { valid: true } : { valid: false, errorMessage: ajv.errorsText(validate.errors as ErrorObject[]) });
}
