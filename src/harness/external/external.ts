import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { isMlaDiffError, MlaDiffError } from '../../errors';
import type { Recording } from '../../core/probes/recorder';
import type { ExternalInfo, ExternalSpec } from '../../trace';
import { slicedConfig } from '../../core/weights/layer';
import type { ExternalJob } from './request';
import { writeRequest } from './request';
import { readResponse } from './response';
import { runBackend } from './runner';
import { scratchDir, writeInto } from './scratch-dir';
import { onStop } from './stop';

/** What the run JSON says about the external path of a case (CaseTrace.external): src/trace/case-trace.ts. */
export type { ExternalInfo } from '../../trace';

export interface ExternalRun {
  recording: Recording;
  info: ExternalInfo;
  seconds: number;
  /** The layouts its stages were read in where not canonical (the scenario's, then the backend's): the swapped-axes check names the fix. */
  layouts?: Record<string, string>;
}

export interface ExternalOptions {
  /** Where the command runs: the scenario file's directory. */
  cwd: string;
  /** Keep the exchange directory after a successful read. */
  keep: boolean;
  kvSplits: number;
  log?: (line: string) => void;
}

/** The same error with the kept exchange directory in its hint. */
const withDir = (e: MlaDiffError, dir: string) =>
  new MlaDiffError(e.code, e.message, e.where, `${e.hint ? `${e.hint}; ` : ''}exchange directory kept: ${dir}`);

/**
 * One case through an external backend: writes the exchange directory (request, weights, inputs),
 * runs the command, reads its response. The directory goes after a successful read unless kept;
 * on failure it stays and the error names it. A TMPDIR that cannot hold it is write-failed naming
 * it, nothing left; a signal that stops the run removes it too, unless kept (stopRun's line says where).
 */
export async function runExternal(spec: ExternalSpec, job: ExternalJob, o: ExternalOptions): Promise<ExternalRun> {
  const dir = scratchDir('mla-diff-external-', 'the external exchange directory');
  const out = join(dir, 'out');
  const unStop = onStop('remove', () => (o.keep ? `exchange directory kept: ${dir}` : rmSync(dir, { recursive: true, force: true })));
  try {
    writeInto(dir, 'the external exchange directory', () => {
      mkdirSync(out);
      writeRequest(dir, job);
    });
    o.log?.(`external ${spec.name}: ${spec.command} (exchange ${dir})`);
    const env = { MLA_DIFF_REQUEST: join(dir, 'request.json'), MLA_DIFF_DIR: dir, MLA_DIFF_OUT: out };
    const run = await runBackend(spec.command, { cwd: o.cwd, env, timeoutS: spec.timeoutS, label: `external backend ${spec.name}` });
    const r = readResponse(out, {
      config: slicedConfig(job.source.config, job.heads),
      kvSplits: o.kvSplits,
      layouts: spec.layouts,
      names: spec.names,
      pieces: job.pieces.map((p) => ({
        step: p.step,
        request: p.request,
        kind: p.kind,
        start: p.start,
        count: p.ids.length,
        chunks: p.chunks,
      })),
    });
    if (!o.keep) rmSync(dir, { recursive: true, force: true });
    const statsOnly = r.recording.trace.stages.filter((x) => x.statsOnly).length;
    return {
      recording: r.recording,
      seconds: run.seconds,
      layouts: r.layouts,
      info: {
        name: spec.name !== 'external' ? spec.name : (r.name ?? spec.name),
        kind: 'command',
        source: spec.command,
        statsOnly,
        ...(r.precision ? { precision: r.precision } : {}),
        ...(r.device ? { device: r.device } : {}),
        ...(o.keep ? { dir } : {}),
      },
    };
  } catch (e) {
    throw isMlaDiffError(e) && e.code !== 'write-failed' ? withDir(e, dir) : e;
  } finally {
    unStop();
  }
}
