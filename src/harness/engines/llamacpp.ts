import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isMlaDiffError, MlaDiffError } from '../../errors';
import type { PieceInput } from '../../paths/backend';
import type { EngineSpec, ExternalInfo, SourceSpec } from '../../trace';
import type { HeadSlice, WeightSource } from '../../core/weights/layer';
import { slicedConfig } from '../../core/weights/layer';
import { findLibDir, loadLlama } from '../../engines/llamacpp/library';
import type { EngineJob, EngineResult } from '../../engines/llamacpp/job';
import { openNodeValues, readEngineResult } from '../../engines/llamacpp/nodes-read';
import { engineModel } from './engine-model';
import type { ExternalRun } from '../external/external';
import { importRecords } from '../external/records';
import { runBackend } from '../external/runner';
import { scratchDir, writeInto } from '../external/scratch-dir';
import { escapeControl } from '../external/stderr-tail';
import { onStop } from '../external/stop';
import { collect, ropeAngleError, shapes } from './collect';

/** The compiled child script (dist/engines/llamacpp/child.js), also when this module runs from src/ under ts-jest. */
function childScript(): string {
  const here = join(__dirname, '../../engines/llamacpp/child.js');
  if (existsSync(here)) return here;
  return resolve(__dirname, '../../../dist/engines/llamacpp/child.js');
}

export interface EngineCase {
  source: WeightSource;
  /** The scenario's weights as data: a GGUF checkpoint is extracted for llama.cpp with its own bytes. */
  weights?: SourceSpec;
  heads: HeadSlice;
  pieces: readonly PieceInput[];
  kvSplits: number;
  keep: boolean;
  log?: (line: string) => void;
}

const CTX_PAD = 256;

/** With gpu_layers > 0: the Vulkan build when it is installed (else the CPU build runs every layer on the CPU). */
function gpuDir(gpuLayers: number): string | null {
  if (gpuLayers <= 0 || process.env.MLA_DIFF_LLAMA_CPP_DIR) return null;
  try {
    return findLibDir('vulkan');
  } catch {
    return null;
  }
}

/** Checks in-process that the engine is installed and is the verified release (engine-unavailable / engine-version / engine-abi). */
export function checkEngine(gpuLayers = 0): string {
  const dir = gpuDir(gpuLayers) ?? findLibDir('cpu');
  loadLlama(dir);
  return dir;
}

/**
 * One case through llama.cpp: writes the case's head slice of the layer as a runnable GGUF (plants
 * applied to it only), runs the child over the schedule, maps the captured nodes onto stages and
 * imports them as the third-party path, named llama.cpp.
 */
export async function runLlamaCpp(spec: EngineSpec, c: EngineCase): Promise<ExternalRun> {
  const libDir = checkEngine(spec.gpuLayers);
  const dir = scratchDir('mla-diff-llama-cpp-', "llama.cpp's job directory");
  // a signal that stops the run removes the job directory, unless kept (--keep-external): then the interrupt line names it
  const unStop = onStop('remove', () => (c.keep ? `llama.cpp job kept: ${dir}` : rmSync(dir, { recursive: true, force: true })));
  try {
    const config = slicedConfig(c.source.config, c.heads);
    const total = c.pieces.reduce((n, p) => n + p.ids.length, 0);
    const maxPos = Math.max(0, ...c.pieces.flatMap((p) => p.positions)) + 1;
    const write = <T>(f: () => T) => writeInto(dir, "llama.cpp's job directory", f);
    const model = write(() => engineModel(join(dir, 'model.gguf'), spec, c, Math.max(maxPos, total)));
    const requests = [...new Set(c.pieces.map((p) => p.request))];
    let row = 0;
    const pieces = c.pieces.map((p) => {
      const j = { step: p.step, request: p.request, seq: requests.indexOf(p.request), kind: p.kind, positions: [...p.positions], row };
      row += p.ids.length;
      return j;
    });
    const embd = new Float32Array(row * config.hidden_size);
    let at = 0;
    for (const p of c.pieces) {
      embd.set(p.embeddings, at);
      at += p.embeddings.length;
    }
    write(() => writeFileSync(join(dir, 'embeddings.bin'), embd));
    const job: EngineJob = {
      format: 'mla-diff/llama-cpp-job',
      version: 1,
      libDir,
      model: join(dir, 'model.gguf'),
      embeddings: join(dir, 'embeddings.bin'),
      hidden: config.hidden_size,
      params: { flashAttn: spec.flashAttn, cacheType: spec.cacheType, threads: spec.threads, gpuLayers: spec.gpuLayers },
      nCtx: Math.ceil(Math.max(total, 1) / CTX_PAD) * CTX_PAD,
      nBatch: Math.max(1, ...c.pieces.map((p) => p.ids.length)),
      nSeq: Math.max(1, requests.length),
      pieces,
      out: dir,
    };
    write(() => writeFileSync(join(dir, 'job.json'), JSON.stringify(job)));
    c.log?.(
      `llama.cpp: ${pieces.length} decodes, ${model.arch}, ${model.graph} graph, cache ${spec.cacheType}, ` +
        `flash attention ${spec.flashAttn ? 'on' : 'off'} (${dir})`,
    );
    const run = await runBackend(`"${process.execPath}" "${childScript()}" "${join(dir, 'job.json')}"`, {
      cwd: dir,
      env: {},
      timeoutS: spec.timeoutS,
      label: 'llama.cpp',
      errors: { timeout: 'engine-timeout', failed: 'engine-failed', field: 'engines', hint: `its job and model are kept: ${dir}` },
    });
    for (const line of run.stderr.split('\n')) if (line.trim()) c.log?.(`llama.cpp| ${escapeControl(line)}`);
    // nodes.bin passes 2 GiB at 64 heads and T = 2048 (kq and kq_soft_max are 1 GiB each): read each node at its offset.
    const bin = openNodeValues(dir);
    let collected: ReturnType<typeof collect>;
    let result: EngineResult;
    try {
      result = readEngineResult(dir, bin.bytes);
      collected = collect(config, model.graph, c, result, bin.values);
    } finally {
      bin.close();
    }
    const { tensors, scalars, opScalars } = collected;
    const recording = importRecords(
      { config, pieces: shapes(c.pieces), kvSplits: c.kvSplits, file: join(dir, 'nodes.bin'), layouts: {}, names: {} },
      tensors,
      [],
      scalars,
    );
    const info: ExternalInfo = {
      name: 'llama.cpp',
      kind: 'engine',
      source: `llama.cpp ${result.versions.llama} (ggml ${result.versions.ggml}, ${result.versions.commit})`,
      precision:
        spec.cacheType === 'f16' || spec.flashAttn ? `float32, ${spec.flashAttn ? 'K/V f16 (flash attention)' : 'f16 K cache'}` : 'float32',
      device: result.devices.join('; '),
      statsOnly: 0,
      ...(c.keep ? { dir } : {}),
      engine: {
        versions: result.versions,
        devices: result.devices,
        arch: model.arch,
        graph: model.graph,
        activation: model.activation,
        cacheType: spec.cacheType,
        flashAttn: spec.flashAttn,
        threads: spec.threads,
        gpuLayers: spec.gpuLayers,
        plants: model.planted,
        opScalars,
        ropeAngleError: ropeAngleError(config, maxPos - 1),
        filled: model.filled,
        loadSeconds: result.loadSeconds,
        decodeSeconds: result.decodeSeconds.reduce((a, b) => a + b, 0),
        nodes: result.nodes.length,
      },
    };
    if (!c.keep) rmSync(dir, { recursive: true, force: true });
    return { recording, info, seconds: run.seconds };
  } catch (e) {
    if (isMlaDiffError(e) && e.code !== 'write-failed' && !e.hint?.includes(dir))
      throw new MlaDiffError(e.code, e.message, e.where, `${e.hint ? `${e.hint}; ` : ''}its job and model are kept: ${dir}`);
    throw e;
  } finally {
    unStop();
  }
}

/** The engine path of one case, as the thunk runCase calls after the device paths; null when the scenario runs no engine. */
export function engineFor(
  s: { engine?: EngineSpec | undefined; weights?: SourceSpec },
  source: WeightSource,
  heads: HeadSlice,
  pieces: readonly PieceInput[],
  kvSplits: number,
  keep: boolean,
  log?: (l: string) => void,
): (() => Promise<ExternalRun>) | null {
  const spec = s.engine;
  if (!spec) return null;
  const weights = s.weights ? { weights: s.weights } : {};
  return () => runLlamaCpp(spec, { source, heads, pieces, kvSplits, keep, ...weights, ...(log ? { log } : {}) });
}
