import { closeSync, fstatSync, openSync, readFileSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { fieldPath, MlaDiffError } from '../../errors';
import { statRegularFile } from '../../formats/regular-file';
import { jsonDepth, MAX_JSON_DEPTH } from '../../formats/safetensors/json-depth';
import type { EngineResult } from './job';

/**
 * The child's nodes.json and nodes.bin, read as data: the child runs a third party's library, and what
 * it wrote is checked as the EngineResult it should be (engine-failed naming the field otherwise),
 * every node's offset and count inside nodes.bin, before anything is allocated for it.
 */
const MAX_NODES_JSON_BYTES = 256 * 2 ** 20;
const count = z.number().int().nonnegative();
const name = z.string().max(4096);

const nodeSchema = z.object({
  piece: count,
  name,
  op: name,
  type: name,
  ne: z.array(z.number().int()).max(8),
  opParams: z.array(z.number().int()).max(64),
  src: z.array(name).max(16),
  offset: count.optional(),
  count: count.optional(),
});

const resultSchema = z.object({
  format: z.literal('mla-diff/llama-cpp-nodes'),
  version: z.literal(1),
  versions: z.object({ llama: name, ggml: name, commit: name }),
  devices: z.array(name),
  nodes: z.array(nodeSchema),
  decodeSeconds: z.array(z.number()),
  loadSeconds: z.number(),
});

const failed = (file: string, message: string, field?: string) =>
  new MlaDiffError('engine-failed', message, field ? { file, field } : { file }, 'the llama.cpp child wrote a broken nodes.json');

/** dir/nodes.json as an EngineResult, each node's values (when it has them) inside nodes.bin of `binBytes` bytes. */
export function readEngineResult(dir: string, binBytes: number): EngineResult {
  const file = join(dir, 'nodes.json');
  const st = statRegularFile(file, 'the engine result');
  if (st.size > MAX_NODES_JSON_BYTES) throw failed(file, `is ${st.size} bytes; at most ${MAX_NODES_JSON_BYTES} are read`);
  const text = readFileSync(file, 'utf8');
  if (jsonDepth(text) > MAX_JSON_DEPTH) throw failed(file, `nests deeper than ${MAX_JSON_DEPTH} levels`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw failed(file, `not JSON: ${(e as Error).message}`);
  }
  const parsed = resultSchema.safeParse(json);
  if (!parsed.success) {
    const i = parsed.error.issues[0]!;
    throw failed(file, i.message, fieldPath(i.path as PropertyKey[]) || undefined);
  }
  for (const [i, n] of parsed.data.nodes.entries()) {
    if ((n.offset === undefined) !== (n.count === undefined)) throw failed(file, 'offset and count go together', `nodes[${i}]`);
    if (n.offset !== undefined && (n.offset + n.count!) * 4 > binBytes)
      throw failed(file, `values at floats ${n.offset} + ${n.count} lie past nodes.bin's ${binBytes} bytes`, `nodes[${i}]`);
  }
  return parsed.data as EngineResult;
}

/** dir/nodes.bin opened for reading by node; `values` reads one node's float32 values at its (checked) offset. */
export function openNodeValues(dir: string): {
  bytes: number;
  values: (n: { offset?: number; count?: number }) => Float32Array;
  close: () => void;
} {
  const file = join(dir, 'nodes.bin');
  statRegularFile(file, 'the engine values');
  const fd = openSync(file, 'r');
  const bytes = fstatSync(fd).size;
  const values = (n: { offset?: number; count?: number }) => {
    const out = new Float32Array(n.count ?? 0);
    const buf = new Uint8Array(out.buffer);
    // one read returns at most about 2 GiB; kq of 64 heads at T = 2048 is 1 GiB
    for (let done = 0; done < buf.length;) {
      const got = readSync(fd, buf, done, Math.min(buf.length - done, 1 << 30), (n.offset ?? 0) * 4 + done);
      if (got === 0) throw new MlaDiffError('engine-failed', `nodes.bin ends at byte ${(n.offset ?? 0) * 4 + done}`, { file });
      done += got;
    }
    return out;
  };
  return { bytes, values, close: () => closeSync(fd) };
}
