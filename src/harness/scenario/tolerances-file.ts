import { z } from 'zod';
import type { ToleranceRule } from '../compare/tolerance';
import { readTextFile, SCENARIO_FILE_BYTES } from '../../formats/text-file';
import type { StageName } from '../../trace/stages';
import { STAGE_NAMES } from '../../trace/stages';
import { fail } from './fail';
import { YamlSource } from './yaml-source';

/** A tolerances file (`format: mla-diff/tolerances`, version 1), as `--write-tolerances` writes it. */
const fileSchema = z.strictObject({
  format: z.literal('mla-diff/tolerances'),
  version: z.literal(1),
  scenario: z.string().optional(),
  device: z.string().optional(),
  margin: z.number().positive().optional(),
  stages: z.partialRecord(
    z.enum(STAGE_NAMES as [string, ...string[]]),
    z.strictObject({ rel: z.number().nonnegative().optional(), floor: z.number().positive().optional() }),
  ),
});

/** Reads a tolerances file: per stage its rule. Every failure names the file, line and field. */
export function readTolerancesFile(file: string): Partial<Record<StageName, ToleranceRule>> {
  // opened without blocking and bounded (a FIFO or /dev/zero as the tolerances file is refused, not read)
  const text = readTextFile(
    file,
    'a tolerances file',
    'write one with `mla-diff run SCENARIO --write-tolerances FILE`',
    SCENARIO_FILE_BYTES,
  );
  const src = new YamlSource(text, file);
  const parsed = fileSchema.safeParse(src.toJS());
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0]!] : issue.path;
    fail(
      src,
      issue.code === 'invalid_type' ? 'invalid-type' : issue.code === 'unrecognized_keys' ? 'unknown-key' : 'invalid-value',
      path as PropertyKey[],
      issue.message.replace(/^Invalid input: /, ''),
      'a tolerances file: format: mla-diff/tolerances, version: 1, stages: {STAGE: {rel: X}}',
    );
  }
  const out: Partial<Record<StageName, ToleranceRule>> = {};
  for (const [k, v] of Object.entries(parsed.data.stages)) {
    if ((v!.rel === undefined) === (v!.floor === undefined))
      fail(src, 'invalid-value', ['stages', k], 'give exactly one of rel: and floor:');
    out[k as StageName] = v!.rel ?? { floor: v!.floor! };
  }
  return out;
}
