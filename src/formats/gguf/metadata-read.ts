import { MlaDiffError } from '../../errors';
import type { HeaderCursor } from './cursor';
import type { GgufEntry, GgufValue, GgufValueType } from './types';
import { DEFAULT_ALIGNMENT, MAX_ARRAY_DEPTH, MAX_ARRAY_LENGTH, MIN_VALUE_BYTES, VALUE_TYPES, int64Value, isPowerOf2 } from './value-types';

function valueType(c: HeaderCursor): GgufValueType {
  const id = c.u32();
  const t = VALUE_TYPES[id];
  if (t === undefined) {
    throw new MlaDiffError(
      'checkpoint-invalid',
      `bad metadata value type id ${id} (valid: 0..${VALUE_TYPES.length - 1})`,
      { file: c.file.path, field: c.field },
      'the header is corrupt',
    );
  }
  return t;
}

function scalar(c: HeaderCursor, t: Exclude<GgufValueType, 'ARRAY'>): GgufValue {
  switch (t) {
    case 'UINT8':
      return c.u8();
    case 'INT8':
      return c.i8();
    case 'UINT16':
      return c.u16();
    case 'INT16':
      return c.i16();
    case 'UINT32':
      return c.u32();
    case 'INT32':
      return c.i32();
    case 'FLOAT32':
      return c.f32();
    case 'BOOL':
      return c.u8() !== 0;
    case 'STRING':
      return c.str();
    case 'UINT64':
      return int64Value(c.u64());
    case 'INT64':
      return int64Value(c.i64());
    case 'FLOAT64':
      return c.f64();
  }
}

/** An ARRAY's body (element type, count, elements); nested arrays keep their own entries in `items`. */
function array(c: HeaderCursor, depth: number): GgufEntry {
  if (depth >= MAX_ARRAY_DEPTH) {
    throw new MlaDiffError(
      'checkpoint-invalid',
      `arrays nested deeper than ${MAX_ARRAY_DEPTH}`,
      { file: c.file.path, field: c.field },
      'the header is corrupt',
    );
  }
  const itemType = valueType(c);
  const n = c.count('an array of length', MIN_VALUE_BYTES[itemType], MAX_ARRAY_LENGTH);
  const value: GgufValue[] = new Array<GgufValue>(n);
  if (itemType !== 'ARRAY') {
    for (let i = 0; i < n; i++) value[i] = scalar(c, itemType);
    return { type: 'ARRAY', itemType, value };
  }
  const items: GgufEntry[] = new Array<GgufEntry>(n);
  for (let i = 0; i < n; i++) {
    const e = array(c, depth + 1);
    items[i] = e;
    value[i] = e.value;
  }
  return { type: 'ARRAY', itemType, value, items };
}

/** Reads `n` metadata key/value pairs at the cursor. */
export function readMetadata(c: HeaderCursor, n: number): Map<string, GgufEntry> {
  const out = new Map<string, GgufEntry>();
  for (let i = 0; i < n; i++) {
    c.field = `metadata[${i}].key`;
    const key = c.str();
    c.field = key;
    const type = valueType(c);
    const entry: GgufEntry = type === 'ARRAY' ? array(c, 0) : { type, value: scalar(c, type) };
    if (out.has(key)) {
      throw new MlaDiffError(
        'checkpoint-invalid',
        `duplicate metadata key ${key}`,
        { file: c.file.path, field: key },
        'the header is corrupt',
      );
    }
    out.set(key, entry);
  }
  return out;
}

/** `general.alignment` (a UINT32 power of 2), else 32. */
export function alignmentOf(metadata: ReadonlyMap<string, GgufEntry>, file: string): number {
  const e = metadata.get('general.alignment');
  if (e === undefined) return DEFAULT_ALIGNMENT;
  if (e.type !== 'UINT32' || !isPowerOf2(e.value as number)) {
    throw new MlaDiffError('checkpoint-invalid', `general.alignment must be a UINT32 power of 2, got ${e.type} ${String(e.value)}`, {
      file,
      field: 'general.alignment',
    });
  }
  return e.value as number;
}
