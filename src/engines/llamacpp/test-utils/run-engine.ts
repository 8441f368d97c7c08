import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { EngineJob, EngineResult } from '../job';
import { findLibDir } from '../library';

/** The llama.cpp library directory, or undefined when the optional package is not installed (the test says so and skips). */
export function engineLibDir(): string | undefined {
  try {
    return findLibDir('cpu');
  } catch {
    return undefined;
  }
}

/**
 * Loads `model` in llama.cpp's own child process (child.ts through ts-node, so the test needs no build)
 * and decodes `tokens` embeddings of width `hidden` as one prefill and one decode. Returns the
 * captured nodes, or throws with llama.cpp's log tail.
 */
export function runEngine(libDir: string, dir: string, model: string, hidden: number, tokens = 5): EngineResult {
  mkdirSync(join(dir, 'out'), { recursive: true });
  const embd = Float32Array.from({ length: tokens * hidden }, (_, i) => Math.sin(i * 0.37) * 0.5);
  writeFileSync(join(dir, 'e.bin'), Buffer.from(embd.buffer));
  const positions = Array.from({ length: tokens - 1 }, (_, i) => i);
  const job: EngineJob = {
    format: 'mla-diff/llama-cpp-job',
    version: 1,
    libDir,
    model,
    embeddings: join(dir, 'e.bin'),
    hidden,
    params: { flashAttn: false, cacheType: 'f32', threads: 2, gpuLayers: 0 },
    nCtx: 256,
    nBatch: 8,
    nSeq: 1,
    pieces: [
      { step: 0, request: 'a', seq: 0, kind: 'prefill', positions, row: 0 },
      { step: 1, request: 'a', seq: 0, kind: 'decode', positions: [tokens - 1], row: tokens - 1 },
    ],
    out: join(dir, 'out'),
  };
  writeFileSync(join(dir, 'job.json'), JSON.stringify(job));
  const child = join(__dirname, '..', 'child.ts');
  const r = spawnSync(process.execPath, ['-r', 'ts-node/register/transpile-only', child, join(dir, 'job.json')], {
    encoding: 'utf8',
    env: { ...process.env, TS_NODE_PROJECT: join(__dirname, '../../../../tsconfig.json') },
    timeout: 120_000,
  });
  if (r.status !== 0) throw new Error(`llama.cpp child exited ${r.status}: ${(r.stderr ?? '').slice(-3000)}`);
  return JSON.parse(readFileSync(join(dir, 'out', 'nodes.json'), 'utf8')) as EngineResult;
}
