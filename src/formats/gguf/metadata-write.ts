import { MlaDiffError } from '../../errors';
import type { FileWriter } from './file-writer';
import type { GgufEntry, GgufValue, GgufValueType } from './types';
import { INT_RANGE, MAX_ARRAY_DEPTH, valueTypeId } from './value-types';

const bad = (field: string, msg: string): MlaDiffError => new MlaDiffError('invalid-value', msg, { field });

const INT64_RANGE: Readonly<Record<'UINT64' | 'INT64', readonly [bigint, bigint]>> = {
  UINT64: [0n, 2n ** 64n - 1n],
  INT64: [-(2n ** 63n), 2n ** 63n - 1n],
};

function writeScalar(w: FileWriter, t: Exclude<GgufValueType, 'ARRAY'>, v: GgufValue, field: string): void {
  const range = INT_RANGE[t];
  if (range !== undefined) {
    if (typeof v !== 'number' || !Number.isInteger(v) || v < range[0] || v > range[1]) {
      throw bad(field, `${String(v)} is not a ${t}`);
    }
  }
  switch (t) {
    case 'UINT8':
      return w.u8(v as number);
    case 'INT8':
      return w.i8(v as number);
    case 'UINT16':
      return w.u16(v as number);
    case 'INT16':
      return w.i16(v as number);
    case 'UINT32':
      return w.u32(v as number);
    case 'INT32':
      return w.i32(v as number);
    case 'FLOAT32':
    case 'FLOAT64':
      if (typeof v !== 'number') throw bad(field, `${String(v)} is not a ${t}`);
      return t === 'FLOAT32' ? w.f32(v) : w.f64(v);
    case 'BOOL':
      if (typeof v !== 'boolean') throw bad(field, `${String(v)} is not a BOOL`);
      return w.u8(v ? 1 : 0);
    case 'STRING':
      if (typeof v !== 'string') throw bad(field, `${String(v)} is not a STRING`);
      return w.str(v);
    case 'UINT64':
    case 'INT64': {
      const [lo, hi] = INT64_RANGE[t];
      const ok = typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v));
      const b = ok ? BigInt(v as number | bigint) : 0n;
      if (!ok || b < lo || b > hi) throw bad(field, `${String(v)} is not a ${t}`);
      return t === 'UINT64' ? w.u64(b) : w.i64(b);
    }
  }
}

/** An ARRAY body: element type, count, elements (nested arrays from `items`). */
function writeArray(w: FileWriter, e: GgufEntry, field: string, depth: number): void {
  const { itemType, value } = e;
  if (e.type !== 'ARRAY' || itemType === undefined || !Array.isArray(value)) {
    throw bad(field, 'an ARRAY entry needs an itemType and an array value');
  }
  if (depth >= MAX_ARRAY_DEPTH) throw bad(field, `arrays nested deeper than ${MAX_ARRAY_DEPTH}`);
  w.u32(valueTypeId(itemType));
  if (itemType === 'ARRAY') {
    if (e.items === undefined) throw bad(field, 'an ARRAY of ARRAYs needs `items` (each inner array with its itemType)');
    w.u64(e.items.length);
    e.items.forEach((inner, i) => writeArray(w, inner, `${field}[${i}]`, depth + 1));
    return;
  }
  w.u64(value.length);
  value.forEach((v, i) => writeScalar(w, itemType, v, `${field}[${i}]`));
}

/** One metadata key/value pair. */
export function writeEntry(w: FileWriter, key: string, e: GgufEntry): void {
  const id = valueTypeId(e.type);
  if (id < 0) throw bad(key, `unknown value type ${String(e.type)}`);
  w.str(key);
  w.u32(id);
  if (e.type === 'ARRAY') writeArray(w, e, key, 0);
  else writeScalar(w, e.type, e.value, key);
}
