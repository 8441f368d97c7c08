import { existsSync } from 'node:fs';
import { basename } from 'node:path';
import { MlaDiffError } from '../../errors';
import { statRegularFile } from '../../formats/regular-file';
import type { TraceSpec } from '../../trace';
import type { ExternalRun } from './external';
import type { ImportContext, NamedStats } from './records';
import { importRecords } from './records';
import { statsEntrySchema, zodMessage } from './response';
import { readNamedTensors } from './tensors-file';
import { parseJsonText, readBoundedText } from './json-input';

/** A norms dump is a line per stage record: far below these (a larger file or line is no norms dump). */
const MAX_JSONL_BYTES = 256 * 2 ** 20;
const MAX_LINE_CHARS = 2 ** 20;
const JSONL_HINT = 'a line is {"step": 0, "request": "a", "stage": "attn_out", "norm": 30.2}';

/** Lines of a jsonl norms dump: {step?, request?, stage, chunk?, norm, max_abs?, nan?, inf?, shape?}. */
function readJsonl(file: string): NamedStats[] {
  const out: NamedStats[] = [];
  readBoundedText(file, 'an engine dump (.jsonl)', MAX_JSONL_BYTES, JSONL_HINT)
    .split('\n')
    .forEach((text, i) => {
      if (!text.trim()) return;
      if (text.length > MAX_LINE_CHARS)
        throw new MlaDiffError('limit-exceeded', `a line of ${text.length} characters; a line is at most ${MAX_LINE_CHARS}`, {
          file,
          line: i + 1,
        });
      const json = parseJsonText(text, file, 'external-bad-response', i + 1, JSONL_HINT);
      const parsed = statsEntrySchema.safeParse(json);
      if (!parsed.success) throw new MlaDiffError('external-bad-response', zodMessage(parsed.error), { file, line: i + 1 }, JSONL_HINT);
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
  const hint = 'docs/engine-trace.md shows the few lines of Python that write one';
  if (!existsSync(file)) throw new MlaDiffError('file-not-found', 'no such engine dump', { file, field: 'trace.file' }, hint);
  // a directory, FIFO or device named like a dump is refused before anything opens it
  statRegularFile(file, 'an engine dump', hint);
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
