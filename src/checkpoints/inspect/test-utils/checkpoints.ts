import { closeSync, fstatSync, openSync, writeSync } from 'node:fs';
import type { GgufEntry } from '../../../formats/gguf/types';
import { writeGguf } from '../../../formats/gguf/write';
import type { MlaConfig } from '../../../core/model/config';
import { mlaMetadata } from '../../checkpoint/write-gguf';

/**
 * Overwrites every file's tensor-data region (from its first tensor to the end) with `byte`,
 * keeping the header intact: a reader that touches tensor data now sees other values.
 * 0x11 keeps F32, F16 and Q8_0 scales finite, so reads succeed with different checksums.
 */
export function overwriteTensorData(tensors: Iterable<{ file: string; offset: number }>, byte = 0x11): void {
  const start = new Map<string, number>();
  for (const t of tensors) start.set(t.file, Math.min(start.get(t.file) ?? Infinity, t.offset));
  for (const [file, from] of start) {
    const fd = openSync(file, 'r+');
    try {
      const size = fstatSync(fd).size;
      writeSync(fd, Buffer.alloc(size - from, byte), 0, size - from, from);
    } finally {
      closeSync(fd);
    }
  }
}

/** A GGUF of zero-valued F32 tensors with these PyTorch shapes. */
export function writeF32Gguf(path: string, meta: ReadonlyMap<string, GgufEntry>, tensors: Record<string, number[]>): void {
  writeGguf(
    path,
    meta,
    Object.entries(tensors).map(([name, shape]) => {
      const n = shape.reduce((a, b) => a * b, 1);
      return { name, ne: [...shape].reverse(), type: 'F32' as const, data: new Uint8Array(4 * n) };
    }),
  );
}

/** A Llama-style (not MLA) GGUF with two layers of attn_q/k/v/output. */
export function writeLlamaGguf(path: string): void {
  const meta = new Map<string, GgufEntry>([
    ['general.architecture', { type: 'STRING', value: 'llama' }],
    ['llama.block_count', { type: 'UINT32', value: 2 }],
    ['llama.embedding_length', { type: 'UINT32', value: 32 }],
  ]);
  const tensors: Record<string, number[]> = { 'token_embd.weight': [16, 32] };
  for (const l of [0, 1])
    for (const t of ['attn_norm', 'attn_q', 'attn_k', 'attn_v', 'attn_output'])
      tensors[`blk.${l}.${t}.weight`] = t === 'attn_norm' ? [32] : [32, 32];
  writeF32Gguf(path, meta, tensors);
}

/** MLA metadata of `c` with the given keys (after the `deepseek2.` prefix) removed. */
export function mlaMeta(c: MlaConfig, layers: number, drop: string[] = []): Map<string, GgufEntry> {
  const m = mlaMetadata(c, 'deepseek2', layers);
  for (const k of drop) m.delete(`deepseek2.${k}`);
  return m;
}
