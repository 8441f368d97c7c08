import { writeSync } from 'node:fs';

/** Little-endian writes to a file descriptor through a 1 MiB buffer; `pos` counts every byte written. */
export class FileWriter {
  private buf = Buffer.allocUnsafe(1 << 20);
  private len = 0;
  pos = 0;

  constructor(private readonly fd: number) {}

  private room(n: number): number {
    if (this.len + n > this.buf.length) this.flush();
    const at = this.len;
    this.len += n;
    this.pos += n;
    return at;
  }

  u8(v: number): void {
    this.buf.writeUInt8(v, this.room(1));
  }
  i8(v: number): void {
    this.buf.writeInt8(v, this.room(1));
  }
  u16(v: number): void {
    this.buf.writeUInt16LE(v, this.room(2));
  }
  i16(v: number): void {
    this.buf.writeInt16LE(v, this.room(2));
  }
  u32(v: number): void {
    this.buf.writeUInt32LE(v, this.room(4));
  }
  i32(v: number): void {
    this.buf.writeInt32LE(v, this.room(4));
  }
  f32(v: number): void {
    this.buf.writeFloatLE(v, this.room(4));
  }
  f64(v: number): void {
    this.buf.writeDoubleLE(v, this.room(8));
  }
  u64(v: bigint | number): void {
    if (typeof v === 'bigint' || v >= 2 ** 32) {
      this.buf.writeBigUInt64LE(BigInt(v), this.room(8));
      return;
    }
    const at = this.room(8);
    this.buf.writeUInt32LE(v, at);
    this.buf.writeUInt32LE(0, at + 4);
  }
  i64(v: bigint | number): void {
    this.buf.writeBigInt64LE(BigInt(v), this.room(8));
  }

  /** A gguf_string_t: u64 byte length + UTF-8 bytes. */
  str(s: string): void {
    const n = Buffer.byteLength(s, 'utf8');
    this.u64(n);
    if (n > this.buf.length - this.len) this.bytes(Buffer.from(s, 'utf8'));
    else this.buf.write(s, this.room(n), 'utf8');
  }

  bytes(b: Uint8Array): void {
    if (b.length <= this.buf.length - this.len) {
      this.buf.set(b, this.room(b.length));
      return;
    }
    this.flush();
    this.writeAll(b);
    this.pos += b.length;
  }

  zeros(n: number): void {
    for (let left = n; left > 0;) {
      const k = Math.min(left, this.buf.length);
      this.buf.fill(0, this.room(k), this.len);
      left -= k;
    }
  }

  /** Zero bytes up to the next multiple of `alignment`. */
  pad(alignment: number): void {
    this.zeros((alignment - (this.pos % alignment)) % alignment);
  }

  flush(): void {
    this.writeAll(this.buf.subarray(0, this.len));
    this.len = 0;
  }

  private writeAll(b: Uint8Array): void {
    for (let done = 0; done < b.length;) done += writeSync(this.fd, b, done, b.length - done);
  }
}
