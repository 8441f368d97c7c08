/**
 * GGUF files written by llama.cpp itself: llama_model_quantize (libllama) turns a F32/F16 model into
 * a llama.cpp-quantized one, with llama.cpp's own per-tensor type choice (or every tensor the
 * ftype's default type, `pure`). It runs in quantize-child.js: a GGML_ASSERT aborts its process,
 * never mla-diff's. With `ggml: true` the child also dequantizes every non-F32 tensor of the output
 * through ggml's own to_float, the reference our decoders are checked against bit for bit.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MlaDiffError } from '../../errors';
import { openGguf } from '../../formats/gguf/read';
import type { GgmlType } from '../../formats/gguf/ggml-types';
import type { EngineVersions } from './job';
import { VERIFIED } from './abi';
import { ENGINE_PACKAGES, findLibDir } from './library';
import type { LlamaFtype, QuantizeChildResult, QuantizeJob } from './quantize-abi';
import { LLAMA_FTYPES } from './quantize-abi';

export type { LlamaFtype } from './quantize-abi';
export { LLAMA_FTYPES } from './quantize-abi';

export interface QuantizeOptions {
  /** llama.cpp's nthread (default 2). */
  threads?: number;
  /** Every tensor the ftype's default type instead of llama.cpp's mix (llama-quantize --pure). */
  pure?: boolean;
  /** Also return ggml's own dequantization of every non-F32 tensor. */
  ggml?: boolean;
  /** Kill the child after this long (default 120 s): 'engine-timeout'. */
  timeoutMs?: number;
  /** libllama's directory (default findLibDir('cpu')). */
  libDir?: string;
}

export interface QuantizeResult {
  /** The file llama.cpp wrote. */
  file: string;
  ftype: LlamaFtype;
  /** Each tensor's type in that file, in file order. */
  types: Map<string, GgmlType>;
  versions: EngineVersions;
  /** llama_model_quantize's wall time. */
  seconds: number;
  /** ggml's float32 values of each non-F32 tensor (PyTorch order, as readTensorF32 returns them); with `ggml` only. */
  ggml?: Map<string, Float32Array>;
  /** llama.cpp's log (its per-tensor lines, fallbacks, sizes): the whole child's, for every target of one call. */
  log: string;
}

/** The child's script: the built .js beside this file, else the .ts through ts-node (tests run from src/). */
function childCommand(): string[] {
  const js = join(__dirname, 'quantize-child.js');
  if (existsSync(js)) return [js];
  return ['-r', 'ts-node/register/transpile-only', join(__dirname, 'quantize-child.ts')];
}

/** The end of llama.cpp's log for an error: its last 2000 characters, control characters (ANSI escapes, \r) written out visibly. */
const tail = (s: string, n = 2000) =>
  (s.length > n ? `…${s.slice(-n)}` : s).replace(
    /[\x00-\x09\x0b-\x1f\x7f-\x9f]/g,
    (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`,
  );

/**
 * Quantizes `input` (a GGUF llama.cpp can load) into `output` as `ftype`. Throws 'engine-unavailable'
 * (no llama.cpp package), 'invalid-value' (an unknown ftype), 'engine-timeout', 'engine-failed'
 * (llama.cpp refused or crashed: its log's tail in the message).
 */
export function quantizeWithLlama(input: string, output: string, ftype: LlamaFtype, opts: QuantizeOptions = {}): QuantizeResult {
  return quantizeManyWithLlama(input, [{ output, ftype }], opts)[0]!;
}

/** quantizeWithLlama for several outputs of one input in one child process (one start of node and llama.cpp). */
export function quantizeManyWithLlama(
  input: string,
  targets: readonly { output: string; ftype: LlamaFtype }[],
  opts: QuantizeOptions = {},
): QuantizeResult[] {
  for (const t of targets)
    if (!Object.prototype.hasOwnProperty.call(LLAMA_FTYPES, t.ftype))
      throw new MlaDiffError(
        'invalid-value',
        `unknown llama.cpp ftype ${t.ftype}`,
        { field: 'ftype' },
        `one of ${Object.keys(LLAMA_FTYPES).join(', ')}`,
      );
  const libDir = opts.libDir ?? findLibDir('cpu');
  if (!existsSync(join(libDir, VERIFIED.libllama)))
    throw new MlaDiffError(
      'engine-unavailable',
      `no ${VERIFIED.libllama} in ${libDir}`,
      { file: libDir },
      `npm install ${ENGINE_PACKAGES.cpu}@${VERIFIED.npm}`,
    );
  const dir = mkdtempSync(join(tmpdir(), 'mla-diff-quantize-'));
  try {
    const job: QuantizeJob = {
      libDir,
      input,
      targets: targets.map((t) => ({ output: t.output, ftype: LLAMA_FTYPES[t.ftype] })),
      threads: opts.threads ?? 2,
      pure: opts.pure ?? false,
      dequantize: opts.ggml ?? false,
      dir,
    };
    writeFileSync(join(dir, 'job.json'), JSON.stringify(job));
    const timeout = opts.timeoutMs ?? 120_000;
    const r = spawnSync(process.execPath, [...childCommand(), join(dir, 'job.json')], {
      encoding: 'utf8',
      timeout,
      maxBuffer: 64 << 20,
      killSignal: 'SIGKILL',
    });
    const log = r.stderr ?? '';
    const what = targets.map((t) => t.ftype).join(', ');
    const where = { file: input, field: what };
    if (r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT')
      throw new MlaDiffError('engine-timeout', `llama_model_quantize (${what}) ran past ${timeout / 1000} s and was killed`, where);
    if (r.status !== 0 || !existsSync(join(dir, 'result.json')))
      throw new MlaDiffError(
        'engine-failed',
        `llama.cpp failed to quantize ${input} to ${what} (exit ${r.status ?? r.signal}): ${tail(log.trim())}`,
        where,
        'llama.cpp must be able to load the input (a runnable model: writeEngineModel)',
      );
    const res = JSON.parse(readFileSync(join(dir, 'result.json'), 'utf8')) as QuantizeChildResult;
    return targets.map((t, i) => {
      const o = res.outputs[i]!;
      const types = new Map([...openGguf(t.output).tensors.values()].map((x) => [x.name, x.type] as const));
      const out: QuantizeResult = { file: t.output, ftype: t.ftype, types, versions: res.versions, seconds: o.seconds, log };
      if (job.dequantize) {
        const bin = readFileSync(o.bin);
        const all = new Float32Array(bin.buffer.slice(bin.byteOffset, bin.byteOffset + bin.byteLength));
        out.ggml = new Map(o.dequantized.map((d) => [d.name, all.slice(d.offset, d.offset + d.count)]));
      }
      return out;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
