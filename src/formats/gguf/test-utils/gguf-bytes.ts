/** Hand-assembled GGUF bytes for tests: every field spelled out, independent of our writer. */
export class Bytes {
  private parts: Buffer[] = [];
  length = 0;

  private push(b: Buffer): this {
    this.parts.push(b);
    this.length += b.length;
    return this;
  }

  u32(v: number): this {
    const b = Buffer.alloc(4);
    b.writeUInt32LE(v);
    return this.push(b);
  }
  u64(v: number | bigint): this {
    const b = Buffer.alloc(8);
    b.writeBigUInt64LE(BigInt(v));
    return this.push(b);
  }
  str(s: string): this {
    const b = Buffer.from(s, 'utf8');
    return this.u64(b.length).push(b);
  }
  raw(b: Uint8Array): this {
    return this.push(Buffer.from(b));
  }
  f32s(v: readonly number[]): this {
    return this.raw(new Uint8Array(Float32Array.from(v).buffer));
  }
  padTo(a: number): this {
    return this.push(Buffer.alloc((a - (this.length % a)) % a));
  }
  build(): Buffer {
    return Buffer.concat(this.parts);
  }
}

export interface HandTensor {
  name: string;
  ne: readonly number[];
  typeId: number;
  offset: number;
}

export interface HandGguf {
  version?: number;
  /** Each kv writes its key, u32 type and value. */
  kvs?: ((b: Bytes) => void)[];
  tensors?: readonly HandTensor[];
  /** The data section (written after padding the header to 32). */
  data?: Uint8Array;
}

/** A GGUF file assembled field by field (alignment 32). */
export function handGguf(g: HandGguf): Buffer {
  const b = new Bytes().raw(Buffer.from('GGUF', 'latin1')).u32(g.version ?? 3);
  const tensors = g.tensors ?? [];
  b.u64(tensors.length).u64(g.kvs?.length ?? 0);
  for (const kv of g.kvs ?? []) kv(b);
  for (const t of tensors) {
    b.str(t.name).u32(t.ne.length);
    for (const d of t.ne) b.u64(d);
    b.u32(t.typeId).u64(t.offset);
  }
  b.padTo(32);
  if (g.data) b.raw(g.data);
  return b.build();
}

/** A STRING kv. */
export const kvString =
  (key: string, v: string) =>
  (b: Bytes): void =>
    void b.str(key).u32(8).str(v);
/** A UINT32 kv. */
export const kvU32 =
  (key: string, v: number) =>
  (b: Bytes): void =>
    void b.str(key).u32(4).u32(v);
