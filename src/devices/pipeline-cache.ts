import { createHash } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { readTextFile } from '../formats/text-file';

/**
 * Compiled pipelines reused across runs. A WebGPU pipeline is compiled twice over when tfjs-backend-webgpu first
 * runs a program: WGSL to SPIR-V by Dawn's Tint, then SPIR-V to GPU code by the driver, synchronously, on the
 * JavaScript thread (5.4 s of a cold 64-head T = 8192 run, 0.6-0.7 s when the driver's own cache has the second
 * step: bench/cli/results.md). Dawn keeps nothing across processes, so the shaders a run compiled are written to
 * a cache file; the next run on the same adapter asks Dawn for all of them at once (createComputePipelineAsync:
 * Dawn's worker threads, in parallel, while the weights are made) and hands them to tfjs when it asks for them.
 * A shader is found by its whole WGSL text, so a changed kernel is never served a stale pipeline: it compiles.
 * Best effort throughout: an unreadable, corrupt or unwritable cache file, or a shader that fails, means compiling
 * as before, never an error.
 */

/** The part of GPUDevice this wraps. */
export interface PipelineDevice {
  createShaderModule(d: { code: string; label?: string }): object;
  createComputePipeline(d: PipelineDescriptor): object;
  createComputePipelineAsync(d: PipelineDescriptor): Promise<object>;
  pushErrorScope(filter: 'validation'): void;
  popErrorScope(): Promise<unknown>;
}

export interface PipelineDescriptor {
  compute: { module: object; entryPoint: string };
  layout: unknown;
  label?: string;
}

export interface PipelineCache {
  /**
   * Starts compiling, on Dawn's threads, the shaders that earlier runs of this signature (the model's dimensions
   * and precision: a scenario family) compiled on this adapter; `save` then writes to that family's file.
   */
  warm(signature: string): void;
  /** Settles when the shaders asked for by the last `warm` are compiled or have failed (those compile when first used). */
  ready(): Promise<void>;
  /** Pipelines compiled in advance, found there when tfjs asked, and compiled when asked. */
  counts(): { warmed: number; found: number; compiled: number };
  /** Writes the shaders used since the last `warm` to its file when one was new; false when it could not. */
  save(): boolean;
}

/** Shaders a cache file keeps (the most recently used first): a GLM-5 run compiles about 80. */
export const MAX_SHADERS = 512;
const MAX_FILE_BYTES = 32 * 2 ** 20;
const FORMAT = 'mla-diff-pipelines';
/** The longest a run waits for the pipelines compiled in advance. */
const READY_MS = 20_000;

type Entry = [entryPoint: string, code: string];
const keyOf = (entryPoint: string, code: string) => `${entryPoint}\n${code}`;

/** The cache file of one adapter and scenario family ($XDG_CACHE_HOME/mla-diff, else ~/.cache/mla-diff); null: switched off. */
export function pipelineCacheFile(identity: string, env: NodeJS.ProcessEnv = process.env): string | null {
  if (env['MLA_DIFF_PIPELINE_CACHE'] === 'off') return null;
  const base = env['XDG_CACHE_HOME'] || join(homedir(), '.cache');
  return join(base, 'mla-diff', `pipelines-${createHash('sha256').update(identity).digest('hex').slice(0, 16)}.json`);
}

/** The entries of a cache file, or none when it is missing, unreadable or not one. */
export function readEntries(file: string): Entry[] {
  try {
    const j = JSON.parse(readTextFile(file, 'pipeline cache', undefined, MAX_FILE_BYTES)) as { format?: unknown; shaders?: unknown };
    if (j.format !== FORMAT || !Array.isArray(j.shaders)) return [];
    const ok = (e: unknown): e is Entry => Array.isArray(e) && e.length === 2 && e.every((s) => typeof s === 'string');
    return j.shaders.filter(ok).slice(0, MAX_SHADERS);
  } catch {
    return [];
  }
}

/**
 * Wraps `device`'s createShaderModule and createComputePipeline (tfjs's compileProgram calls them in turn); `warm`
 * starts compiling a cache file's shaders in advance. A module of a shader compiled in advance is a stand-in that
 * only its pipeline lookup reads: Tint parses nothing twice. `fileOf` names a signature's cache file (null: no cache).
 */
export function pipelineCache(device: PipelineDevice, fileOf: ((signature: string) => string | null) | null): PipelineCache {
  const createModule = device.createShaderModule.bind(device);
  const createPipeline = device.createComputePipeline.bind(device);
  const moduleKey = new WeakMap<object, { code: string }>();
  const ready = new Map<string, object>(); // key → pipeline compiled in advance
  const readyCodes = new Set<string>();
  const counts = { warmed: 0, found: 0, compiled: 0 };
  // the last warm's file, the shaders it held, those used since, whether one of them was new
  let run = { file: null as string | null, known: [] as Entry[], used: new Map<string, Entry>(), fresh: false };
  let settled: Promise<void> = Promise.resolve();

  device.createShaderModule = (d) => {
    if (readyCodes.has(d.code)) return { code: d.code }; // a stand-in: its pipeline is ready
    const m = createModule(d);
    moduleKey.set(m, { code: d.code });
    return m;
  };
  device.createComputePipeline = (d) => {
    const code = moduleKey.get(d.compute.module)?.code ?? (d.compute.module as { code?: unknown }).code;
    if (typeof code !== 'string') return createPipeline(d); // a module made before the wrap
    const key = keyOf(d.compute.entryPoint, code);
    if (!run.used.has(key)) run.used.set(key, [d.compute.entryPoint, code]);
    const p = ready.get(key);
    if (p) {
      counts.found++;
      return p;
    }
    counts.compiled++;
    run.fresh = true;
    const module = moduleKey.has(d.compute.module) ? d.compute.module : createModule({ code });
    return createPipeline({ ...d, compute: { ...d.compute, module } });
  };

  return {
    warm(signature) {
      const file = fileOf?.(signature) ?? null;
      const known = file ? readEntries(file) : [];
      run = { file, known, used: new Map(), fresh: false };
      device.pushErrorScope('validation'); // a cached shader that no longer validates is skipped, not a device error
      const pending = known
        .filter(([e, c]) => !ready.has(keyOf(e, c)))
        .map(([entryPoint, code]) =>
          device
            .createComputePipelineAsync({ compute: { module: createModule({ code }), entryPoint }, layout: 'auto' })
            .then((p) => {
              ready.set(keyOf(entryPoint, code), p);
              readyCodes.add(code);
              counts.warmed++;
            })
            .catch(() => {}),
        );
      const scope = device.popErrorScope().catch(() => null);
      // never held up longer than READY_MS: what is not compiled by then compiles when first used
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, READY_MS).unref()));
      settled = Promise.race([Promise.all([...pending, scope]), late]).then(() => clearTimeout(timer));
    },
    ready: () => settled,
    counts: () => ({ ...counts }),
    save() {
      const { file, known, used } = run;
      if (!file || !run.fresh) return true;
      const keep = new Map(used);
      for (const [e, c] of known) if (keep.size < MAX_SHADERS && !keep.has(keyOf(e, c))) keep.set(keyOf(e, c), [e, c]);
      const tmp = `${file}.tmp-${process.pid}`;
      try {
        mkdirSync(dirname(file), { recursive: true });
        writeFileSync(tmp, JSON.stringify({ format: FORMAT, version: 1, shaders: [...keep.values()].slice(0, MAX_SHADERS) }));
        renameSync(tmp, file);
        run.fresh = false;
        return true;
      } catch {
        try {
          rmSync(tmp, { force: true });
        } catch {
          // nothing was written there (a path under a file)
        }
        return false;
      }
    },
  };
}
