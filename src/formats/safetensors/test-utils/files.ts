import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { ErrorCode } from '../../../errors';
import { isMlaDiffError, type MlaDiffError } from '../../../errors';

/** A fresh temp dir; call the returned cleanup in afterEach/afterAll. */
export function tempDir(): { dir: string; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'mla-diff-st-'));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** 8-byte LE header length, the header text padded with spaces to `pad`, then the data bytes. */
export function rawSafetensors(header: string | object, data: readonly number[] | Uint8Array, pad = 8): Buffer {
  const json = Buffer.from(typeof header === 'string' ? header : JSON.stringify(header), 'utf8');
  const n = Math.ceil(json.length / pad) * pad;
  const out = Buffer.alloc(8 + n + data.length, 0x20);
  out.writeBigUInt64LE(BigInt(n), 0);
  json.copy(out, 8);
  Buffer.from(data).copy(out, 8 + n);
  return out;
}

export function writeRaw(dir: string, name: string, header: string | object, data: readonly number[] | Uint8Array): string {
  const p = join(dir, name);
  writeFileSync(p, rawSafetensors(header, data));
  return p;
}

/** The MlaDiffError `fn` throws; fails the test if it throws something else or nothing. */
export function thrown(fn: () => unknown): MlaDiffError {
  try {
    fn();
  } catch (e) {
    if (isMlaDiffError(e)) return e;
    throw e;
  }
  throw new Error('expected an MlaDiffError, nothing was thrown');
}

export function expectCode(fn: () => unknown, code: ErrorCode): MlaDiffError {
  const e = thrown(fn);
  expect({ code: e.code, message: e.message }).toMatchObject({ code });
  return e;
}

/** Deterministic uniform numbers in [-1, 1) (an LCG; no Math.random, so failures reproduce). */
export function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  };
}
