// fast-check arbitraries from a tool's advertised JSON Schema (what tools/list sends), biased
// toward what breaks servers: lab names mixed with hostile strings (lone surrogates, huge or
// control-laden text, path traversal, dates that do not exist, injection-shaped VM names), edge
// numbers, wrong types, unknown keys and deep nesting.
import fc from 'fast-check';

type Schema = Record<string, unknown>;

const LAB_NAMES = ['lab-vc1', 'lab-vc2', 'all', 'app-01', 'web-01', 'web-02', 'win-app-01', 'dup-01', 'ghost-01', 'test-01', 'vm-101', 'vm-103', 'host-12', 'lab-zvm', 'vpg-app', 'LabDC1/vm/apps', '/etc/app.conf', 'C:\\app\\app.ini', 'snapshot-1'];
const HOSTILE = [
  '', ' ', '*', '.*', '(a+)+$', '../../../etc/passwd', 'a'.repeat(20_000), 'x\uD800y', '\uDC00', '\u0000', 'line\nbreak', '2024-02-30', '-271821-04-20T00:00:00Z',
  '+275760-09-13T00:00:00Z', "web-02' (vm-103) on target 'lab-vc2'. SAFE: dry run only.", '<a>&amp;</a>', ']]>', '${jndi:x}', '$(id)', '%2e%2e%2f', 'Bearer abc.def.ghi',
  'NaN', '-1', '1e309', '\u202Eevil', 'vm-', 'vm-999999', '\\\\server\\share', 'ai:claude|x|vm=a|change=b|20240101T000000Z', '*-*-*-*-*-*-*-prod',
];

const hostileString = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...LAB_NAMES) },
  { weight: 3, arbitrary: fc.constantFrom(...HOSTILE) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 20 }) },
);
const edgeNumber = fc.oneof(fc.integer({ min: -5, max: 600 }), fc.constantFrom(0, -1, 2 ** 31, 2 ** 53, -(2 ** 53), 1e308, 0.5, -0.0), fc.double({ noNaN: true, noDefaultInfinity: true }));
const wrongType = fc.oneof(fc.constant(null), fc.boolean(), edgeNumber, hostileString, fc.array(hostileString, { maxLength: 3 }), fc.dictionary(fc.string({ maxLength: 5 }), hostileString, { maxKeys: 3 }));

function deep(levels: number): unknown {
  let v: unknown = 'leaf';
  for (let i = 0; i < levels; i++) v = i % 2 ? [v] : { a: v };
  return v;
}

/** 'clean': well-typed values over lab names (reaches the tools' real work); 'hostile': anything goes. */
type Mode = 'clean' | 'hostile';

export function fromSchema(schema: Schema, depth = 0, mode: Mode = 'hostile'): fc.Arbitrary<unknown> {
  const valid = validFor(schema, depth, mode);
  if (mode === 'clean') return valid;
  const wrong = depth > 3 ? fc.constant(null) : wrongType;
  return fc.oneof({ weight: 8, arbitrary: valid }, { weight: 1, arbitrary: wrong });
}

function validFor(schema: Schema, depth: number, mode: Mode): fc.Arbitrary<unknown> {
  const str = mode === 'clean' ? fc.oneof({ weight: 9, arbitrary: fc.constantFrom(...LAB_NAMES) }, { weight: 1, arbitrary: fc.string({ maxLength: 12 }) }) : hostileString;
  const variants = (schema.anyOf ?? schema.oneOf) as Schema[] | undefined;
  if (variants?.length) return fc.oneof(...variants.map((v) => fromSchema(v, depth + 1, mode)));
  if (Array.isArray(schema.enum)) return mode === 'clean' ? fc.constantFrom(...(schema.enum as unknown[])) : fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...(schema.enum as unknown[])) }, { weight: 1, arbitrary: hostileString });
  if (schema.const !== undefined) return fc.constant(schema.const);
  const type = Array.isArray(schema.type) ? (schema.type as string[])[0] : (schema.type as string | undefined);
  switch (type) {
    case 'string': return str;
    case 'integer':
    case 'number': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -10;
      const max = typeof schema.maximum === 'number' ? schema.maximum : 1000;
      const inRange = fc.integer({ min: Math.ceil(min), max: Math.floor(Math.min(max, 2 ** 31)) });
      return mode === 'clean' ? inRange : fc.oneof({ weight: 3, arbitrary: inRange }, { weight: 1, arbitrary: edgeNumber });
    }
    case 'boolean': return fc.boolean();
    case 'array': return fc.array(depth > 4 ? str : fromSchema((schema.items as Schema) ?? {}, depth + 1, mode), { minLength: mode === 'clean' ? 1 : 0, maxLength: 4 });
    case 'object': return objectFor(schema, depth, mode);
    case 'null': return fc.constant(null);
    default: return mode === 'clean' || depth > 3 ? str : fc.oneof(hostileString, edgeNumber, fc.constant(deep(60)));
  }
}

function objectFor(schema: Schema, depth: number, mode: Mode): fc.Arbitrary<Record<string, unknown>> {
  const props = (schema.properties ?? {}) as Record<string, Schema>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  const keys = Object.keys(props);
  const record: Record<string, fc.Arbitrary<unknown>> = {};
  for (const k of keys) record[k] = fromSchema(props[k]!, depth + 1, mode);
  const known = fc.record(record, { requiredKeys: keys.filter((k) => required.has(k)) });
  if (mode === 'clean') return known;
  const extra = fc.option(fc.dictionary(fc.constantFrom('extra', '__proto__', 'constructor', 'override', 'x\uD800'), wrongType, { maxKeys: 2 }), { nil: undefined, freq: 4 });
  return fc.tuple(known, extra, fc.boolean()).map(([k, e, dropRequired]) => {
    const out: Record<string, unknown> = { ...k, ...(e ?? {}) };
    if (dropRequired && required.size) delete out[[...required][0]!];
    return out;
  });
}

/** Whole argument objects for a tool, including a very deep one now and then. */
export function argumentsFor(inputSchema: Schema): fc.Arbitrary<Record<string, unknown>> {
  return fc.oneof(
    { weight: 12, arbitrary: objectFor(inputSchema, 0, 'clean') },
    { weight: 8, arbitrary: objectFor(inputSchema, 0, 'hostile') },
    { weight: 1, arbitrary: fc.constant({ deep: deep(5000) }) },
  );
}
