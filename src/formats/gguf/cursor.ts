import { MlaDiffError } from '../../errors';
import type { RandomAccessFile } from '../file';

/** A metadata string (a chat template, a tokenizer piece) is far below this; V8 cannot hold a string past 512 M characters. */
export const MAX_STRING_BYTES = 64 * 2 ** 20;

/**
 * A forward cursor over a file's header that pulls it through RandomAccessFile a chunk at a time
 * (headers reach tens of MB with tokenizer arrays; the file behind them hundreds of GB).
 * `field` names what is being read, for errors; the parser keeps it current.
 */
export class HeaderCursor {
  field = 'header';
  private buf: Buffer = Buffer.alloc(0);
  /** File offset of buf[0]. */
  private start = 0;
  /** Absolute file offset of the next byte. */
  pos = 0;

  constructor(
    readonly file: RandomAccessFile,
    private readonly chunk = 1 << 20,
  ) {}

  get remaining(): number {
    return this.file.size - this.pos;
  }

  /** Throws checkpoint-truncated unless `n` more bytes exist. */
  need(n: number): void {
    if (n > this.remaining) this.truncated(`needs ${n} bytes at byte ${this.pos}, only ${this.remaining} remain`);
  }

  truncated(detail: string): never {
    throw new MlaDiffError(
      'checkpoint-truncated',
      `the file ends inside the header: ${this.field} ${detail}`,
      { file: this.file.path, field: this.field },
      'the file is truncated (an interrupted download?) or its header is corrupt',
    );
  }

  /** Makes bytes [pos, pos + n) available in buf; returns their index in buf. */
  private at(n: number): number {
    const i = this.pos - this.start;
    if (i + n <= this.buf.length) return i;
    this.need(n);
    const len = Math.min(Math.max(n, this.chunk), this.remaining);
    this.buf = this.file.read(this.pos, len, this.field);
    this.start = this.pos;
    return 0;
  }

  u8(): number {
    const i = this.at(1);
    this.pos += 1;
    return this.buf[i]!;
  }
  i8(): number {
    const i = this.at(1);
    this.pos += 1;
    return this.buf.readInt8(i);
  }
  u16(): number {
    const i = this.at(2);
    this.pos += 2;
    return this.buf.readUInt16LE(i);
  }
  i16(): number {
    const i = this.at(2);
    this.pos += 2;
    return this.buf.readInt16LE(i);
  }
  u32(): number {
    const i = this.at(4);
    this.pos += 4;
    return this.buf.readUInt32LE(i);
  }
  i32(): number {
    const i = this.at(4);
    this.pos += 4;
    return this.buf.readInt32LE(i);
  }
  f32(): number {
    const i = this.at(4);
    this.pos += 4;
    return this.buf.readFloatLE(i);
  }
  f64(): number {
    const i = this.at(8);
    this.pos += 8;
    return this.buf.readDoubleLE(i);
  }
  u64(): bigint {
    const i = this.at(8);
    this.pos += 8;
    return this.buf.readBigUInt64LE(i);
  }
  i64(): bigint {
    const i = this.at(8);
    this.pos += 8;
    return this.buf.readBigInt64LE(i);
  }

  /**
   * A u64 count or length that must fit in the file, at least `minBytes` (≥ 1) per item, and be at most
   * `max` (what this reader holds in memory: limit-exceeded beyond it, before anything is allocated).
   */
  count(what: string, minBytes: number, max: number): number {
    const i = this.at(8);
    const lo = this.buf.readUInt32LE(i);
    const hi = this.buf.readUInt32LE(i + 4);
    this.pos += 8;
    // Past 2^53 the product is inexact, but then it is far beyond any file anyway.
    const n = hi * 2 ** 32 + lo;
    if (n * minBytes > this.remaining) {
      const exact = (BigInt(hi) << 32n) | BigInt(lo);
      this.truncated(`declares ${what} ${exact} (at least ${minBytes} bytes each) but only ${this.remaining} bytes remain`);
    }
    if (n > max) {
      throw new MlaDiffError(
        'limit-exceeded',
        `${this.field} declares ${what} ${n}; at most ${max} are read`,
        { file: this.file.path, field: this.field },
        'no model has so many; the header is corrupt',
      );
    }
    return n;
  }

  /** A gguf_string_t (u64 length + UTF-8 bytes) and its length in bytes. */
  strAndBytes(): [string, number] {
    const len = this.count('a string of length', 1, MAX_STRING_BYTES);
    const i = this.at(len);
    this.pos += len;
    return [this.buf.toString('utf8', i, i + len), len];
  }

  str(): string {
    return this.strAndBytes()[0];
  }
}
