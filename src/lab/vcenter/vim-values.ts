// The in-memory shape of vim25 values. Property values are plain JS so handlers stay readable;
// the few things XML needs that JS cannot carry (a managed-object reference's type, a data
// object's concrete type, an enum's type name, int vs long) are expressed here once, and the XML
// writer reads them back when it has to emit `xsi:type`.

/** A ManagedObjectReference: `<obj type="VirtualMachine">vm-101</obj>` on the wire. */
export class MoRef {
  constructor(
    readonly type: string,
    readonly value: string,
  ) {}
}

export function ref(type: string, value: string): MoRef {
  return new MoRef(type, value);
}

/**
 * A data object: `_type` is its concrete vim25 type (written as `xsi:type`); every other own
 * property is a field, emitted in insertion order. Undefined fields are omitted, like vCenter.
 */
export interface DataObject {
  _type: string;
  [field: string]: unknown;
}

/** Tags a fresh object literal as a data object. Mutates rather than copies: listings build millions. */
export function data(type: string, fields: Record<string, unknown>): DataObject {
  (fields as DataObject)._type = type;
  return fields as DataObject;
}

export function isDataObject(v: unknown): v is DataObject {
  return typeof v === 'object' && v !== null && typeof (v as DataObject)._type === 'string';
}

/**
 * A primitive that needs a specific `xsi:type` when it is a top-level property value, e.g. an
 * enum (`VirtualMachinePowerState`) or an `xsd:long`. Nested inside a data object it is written
 * bare, which is what vCenter does.
 */
export class Typed {
  constructor(
    readonly xsiType: string,
    readonly value: string | number | boolean,
  ) {}
}

export function long(value: number): Typed {
  return new Typed('xsd:long', value);
}

/**
 * An array whose `ArrayOf<base>` type cannot be guessed from its elements (a device list is
 * ArrayOfVirtualDevice although the elements are VirtualDisk, VirtualVmxnet3, ...). Plain JS
 * arrays also work; the writer then derives the base type from the first element.
 */
export class VimArray<T = unknown> {
  constructor(
    readonly baseType: string,
    readonly items: T[],
  ) {}
}

export function arrayOf<T>(baseType: string, items: T[]): VimArray<T> {
  return new VimArray(baseType, items);
}

/** Unwraps a VimArray or Typed, leaves anything else alone. Handlers compare raw values. */
export function plain(v: unknown): unknown {
  if (v instanceof VimArray) return v.items;
  if (v instanceof Typed) return v.value;
  return v;
}

/** vCenter writes timestamps as ISO 8601 with milliseconds and a `Z`. */
export function isoTime(ms: number): string {
  return new Date(ms).toISOString();
}

/** A point in time; kept distinct from strings so the writer can say `xsd:dateTime`. */
export class VimTime {
  constructor(readonly ms: number) {}
}

export function time(ms: number): VimTime {
  return new VimTime(ms);
}

/**
 * A value in an `xsd:anyType` field (TaskInfo.result): written with its `xsi:type`, so a reference
 * comes out as `<result type="VirtualMachine" xsi:type="ManagedObjectReference">`.
 */
export class AnyValue {
  constructor(readonly value: unknown) {}
}
