// Rewrites the JSON Schema zod renders into the subset every major MCP client accepts (the rule
// set of MCP Inspector's schema-portability linter, which test/contract/schema-portability.test.ts
// runs): a `type` array such as ["string","null"] becomes `anyOf` branches of one type each
// (Gemini's function declarations take one type), and the empty schema `{}` zod writes for a loose
// object's extra keys is dropped (it only restates the default and reads as "accepts anything").
// Output schemas are also made lean (`lean`): models choose tools by name, description and input
// schema, so an output schema keeps every field and its type but drops what only restates or
// tightens them (descriptions that duplicated the tool description, `required` lists,
// `additionalProperties: false`, `propertyNames: {type: string}`), about half of the bytes.
// Both kinds drop zod's ±2^53-1 integer bounds, which are implied.

type Node = Record<string, unknown>;

const BY_TYPE: Record<string, string[]> = {
  string: ['minLength', 'maxLength', 'pattern', 'format', 'contentEncoding', 'contentMediaType'],
  number: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  integer: ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'],
  array: ['items', 'prefixItems', 'minItems', 'maxItems', 'uniqueItems', 'contains'],
  object: ['properties', 'required', 'additionalProperties', 'patternProperties', 'propertyNames', 'minProperties', 'maxProperties'],
};
const MAP_KEYWORDS = ['properties', 'patternProperties', '$defs', 'definitions'];
const LIST_KEYWORDS = ['anyOf', 'oneOf', 'allOf', 'prefixItems'];
const ONE_KEYWORDS = ['items', 'additionalProperties', 'not', 'propertyNames', 'contains', 'if', 'then', 'else'];

export interface PortableOptions {
  /** Output schemas: keep fields and types, drop descriptions and presence/strictness keywords. */
  lean: boolean;
}

const SAFE_INTEGER_BOUNDS = new Set([Number.MAX_SAFE_INTEGER, Number.MIN_SAFE_INTEGER]);

function dropped(k: string, v: unknown, lean: boolean): boolean {
  if ((k === 'maximum' || k === 'minimum') && SAFE_INTEGER_BOUNDS.has(v as number)) return true;
  if (!lean) return false;
  if (k === 'description' || k === 'required') return true;
  if (k === 'additionalProperties' && v === false) return true;
  return k === 'propertyNames' && isNode(v) && v.type === 'string' && Object.keys(v).length === 1;
}

export function portableSchema(schema: Node, opts: PortableOptions): Node {
  return rewrite(schema, opts) as Node;
}

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function rewrite(value: unknown, opts: PortableOptions): unknown {
  if (!isNode(value)) return value;
  const node: Node = {};
  for (const [k, v] of Object.entries(value)) {
    if (dropped(k, v, opts.lean)) continue;
    if (MAP_KEYWORDS.includes(k) && isNode(v)) node[k] = Object.fromEntries(Object.entries(v).map(([name, sub]) => [name, rewrite(sub, opts)]));
    else if (LIST_KEYWORDS.includes(k) && Array.isArray(v)) node[k] = v.map((sub) => rewrite(sub, opts));
    else if (ONE_KEYWORDS.includes(k)) node[k] = Array.isArray(v) ? v.map((sub) => rewrite(sub, opts)) : rewrite(v, opts);
    else node[k] = v;
  }
  if (isNode(node.additionalProperties) && Object.keys(node.additionalProperties).length === 0) delete node.additionalProperties;
  return Array.isArray(node.type) ? splitTypes(node) : node;
}

/** `{type: [a, b], ...}` -> `{anyOf: [{type: a, ...a's keywords}, {type: b, ...}], ...shared}`. */
function splitTypes(node: Node): Node {
  const types = node.type as string[];
  if (types.length === 1) return { ...node, type: types[0] };
  const shared: Node = {};
  const branches: Node[] = types.map((t) => ({ type: t }));
  for (const [k, v] of Object.entries(node)) {
    if (k === 'type') continue;
    const owner = types.findIndex((t) => BY_TYPE[t]?.includes(k));
    if (owner >= 0) branches[owner]![k] = v;
    else shared[k] = v;
  }
  const existing = Array.isArray(shared.anyOf) ? (shared.anyOf as Node[]) : undefined;
  // A node that already has anyOf keeps it: both must hold, so the split goes into allOf.
  if (existing) {
    delete shared.anyOf;
    return { ...shared, allOf: [{ anyOf: existing }, { anyOf: branches }] };
  }
  return { ...shared, anyOf: branches };
}
