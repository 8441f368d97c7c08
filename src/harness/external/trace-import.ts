import { existsSync, readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { MlaDiffError } from '../../errors';
import type { TraceSpec } from '../../trace';
import type { ExternalRun } from './external';
import type { ImportContext, NamedStats } from './records';
import { importRecords } from './records';
import { statsEntrySchema, zodMessage } from './response';
import { readNamedTensors } from './tensors-file';

/** Lines of a jsonl norms dump: {step?, request?, stage, chunk?, norm, max_abs?, nan?, inf?, shape?}. */
function readJsonl(file: string): NamedStats[] {
  const out: NamedStats[] = [];
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (!text.trim()) return;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (e) {
        throw new MlaDiffError('external-bad-response', `not a JSON line: ${(e as Error).message}`, { file, line: i + 1 });
      }
      const parsed = statsEntrySchema.safeParse(json);
      if (!parsed.success) {
        throw new MlaDiffError(
          'external-bad-response',
          zodMessage(parsed.error),
          { file, line: i + 1 },
          'a line is {"step": 0, "request": "a", "stage": "attn_out", "norm": 30.2}',
        );
      }
      out.push(parsed.data as NamedStats);
    });
  return out;
}

/**
 * An engine's dump as path `external`: named stage tensors (.safetensors, the same names and
 * layouts as an external backend's stages.safetensors) or norms (.jsonl, stats-only records).
 */
export function importTrace(spec: TraceSpec, ctx: Omit<ImportContext, 'file' | 'layouts' | 'names'>): ExternalRun {
  const file = spec.file;
  if (!existsSync(file))
    throw new MlaDiffError(
      'file-not-found',
      'no such engine dump',
      { file, field: 'trace.file' },
      'docs/engine-trace.md shows the few lines of Python that write one',
    );
  const t0 = performance.now();
  const full = { ...ctx, file, layouts: spec.layouts, names: spec.names };
  let recording;
  if (file.endsWith('.jsonl')) recording = importRecords(full, [], readJsonl(file));
  else if (file.endsWith('.safetensors')) recording = importRecords(full, readNamedTensors(file, 'external-bad-response'), []);
  else
    throw new MlaDiffError('external-bad-response', 'an engine dump is a .safetensors file (tensors) or a .jsonl file (norms)', {
      file,
      field: 'trace.file',
    });
  const statsOnly = recording.trace.stages.filter((x) => x.statsOnly).length;
  const info = { name: basename(file), kind: 'trace' as const, source: file, statsOnly };
  return { recording, seconds: (performance.now() - t0) / 1000, info, layouts: spec.layouts };
}
