import type { FaultName, FaultPath } from '../../core/faults/catalogue';
import { FAULT_NAMES, FAULTS } from '../../core/faults/catalogue';
import { qkHeadDim } from '../../core/model/config';
import { preset } from '../../core/model/presets';
import type { StageName } from '../../trace/stages';
import type { SelftestOptions } from '../../trace';

/**
 * The mutation self-test's plan: every fault of the catalogue, in every path that has the code it
 * breaks, over seeds, layer shapes and schedules that let it act; and clean runs of the same
 * scenarios, which must agree. Pure: scenario texts in, no running.
 */
export type SelftestSchedule = 'prefill' | 'schedule' | 'schedule-fa2';

/** Tiny layers that differ where bugs hide: V ≠ D (tiny), V = D (GLM-5's qk = v), fewer heads. */
export const SHAPES: Readonly<Record<string, Readonly<Record<string, string | number>>>> = {
  tiny: { preset: 'tiny' },
  'tiny-v-eq-d': { preset: 'tiny', v_head_dim: 24 },
  'tiny-2-heads': { preset: 'tiny', num_attention_heads: 2, q_lora_rank: 32 },
};
const TINY = preset('tiny');
const YARN = 'rope_scaling: {type: yarn, factor: 40, mscale: 1, mscale_all_dim: 1, original_max_position_embeddings: 256}';

/**
 * prefill: one 9-token prompt at position 3. schedule: `chat` prefills 12 tokens in chunks of 5
 * (later chunks attend to cached context), decodes 2 through MQA; `hit` finds 7 tokens cached and
 * prefills 6; blocks of 4, context chunks of 5 (empty chunks occur), 3 KV splits. fa2: the same
 * with FA2's +inf LSE for empty chunks.
 */
function scheduleYaml(s: SelftestSchedule): string[] {
  if (s === 'prefill') return ['prompt: {length: 9, start_position: 3}'];
  return [
    `schedule: {block_size: 4, context_chunk: 5, kv_splits: 3, prefill_kernel: ${s === 'schedule-fa2' ? 'fa2' : 'fa3'}}`,
    'requests:',
    '  - {name: chat, steps: [{prefill: 12, chunk: 5}, {decode: 2}]}',
    '  - {name: hit, steps: [{cached: 7}, {prefill: 6}]}',
  ];
}

export interface SelftestCase {
  name: string;
  yaml: string;
  fault: { path: FaultPath; fault: FaultName } | null;
  /** Where the fault must be reported (null: a clean run, which must agree). */
  expect: { stage: StageName; culprit: FaultPath } | null;
}

/** Seeds, shapes and an optional floor k of a selftest run: src/trace/report.ts. */
export type { SelftestOptions } from '../../trace';

/** The shape as the fault needs it: W_UK and W_UV of one shape for p-eq-v (v_head_dim = qk_nope_head_dim). */
function model(shape: string, pEqV: boolean): string {
  const m = { ...SHAPES[shape], ...(pEqV ? { v_head_dim: TINY.qk_nope_head_dim } : {}) };
  return Object.entries(m)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ');
}

/** Shapes where a fault can act: context-v-lt-d needs v_head_dim < qk_head_dim. */
const actsOn = (f: FaultName, shape: string) =>
  FAULTS[f].needs !== 'context-v-lt-d' || ((SHAPES[shape]!.v_head_dim as number | undefined) ?? TINY.v_head_dim) < qkHeadDim(TINY);

function scenario(
  name: string,
  shape: string,
  yarn: boolean,
  seed: number,
  schedule: SelftestSchedule,
  fault: SelftestCase['fault'],
  floor: number | undefined,
  pEqV = false,
): SelftestCase {
  const yaml = [
    `name: ${name}`,
    `model: {${model(shape, pEqV || (fault !== null && FAULTS[fault.fault].needs === 'p-eq-v'))}${yarn ? `, ${YARN}` : ''}}`,
    `weights: {synthetic: {seed: ${seed}}}`,
    ...scheduleYaml(schedule),
    'reference: on',
    fault ? `faults: [{path: ${fault.path}, fault: ${fault.fault}}]` : 'faults: []',
    ...(floor === undefined ? [] : [`tolerances: {default: {floor: ${floor}}}`]),
  ].join('\n');
  return { name, yaml, fault, expect: fault && { stage: FAULTS[fault.fault].enters, culprit: fault.path } };
}

/** The schedules a fault can act in: a prefill suffices for most; merges need context; the +inf one FA2. */
function schedulesFor(f: FaultName): SelftestSchedule[] {
  switch (FAULTS[f].needs) {
    case 'context':
    case 'kv-splits':
    case 'context-v-lt-d':
      return ['schedule'];
    case 'context-fa2':
      return ['schedule-fa2'];
    default:
      return ['prefill', 'schedule'];
  }
}

export function selftestCases(opts: SelftestOptions): SelftestCase[] {
  const out: SelftestCase[] = [];
  for (const shape of opts.shapes) {
    for (const seed of opts.seeds) {
      for (const f of FAULT_NAMES.filter((x) => actsOn(x, shape))) {
        const yarn = FAULTS[f].needs === 'yarn';
        for (const schedule of schedulesFor(f)) {
          for (const path of FAULTS[f].paths)
            out.push(scenario(`${f}.${path}.${shape}.s${seed}.${schedule}`, shape, yarn, seed, schedule, { path, fault: f }, opts.floor));
        }
      }
      for (const schedule of ['prefill', 'schedule', 'schedule-fa2'] as const) {
        for (const yarn of [false, true])
          out.push(scenario(`clean.${shape}.s${seed}.${schedule}${yarn ? '.yarn' : ''}`, shape, yarn, seed, schedule, null, opts.floor));
      }
      out.push(scenario(`clean.${shape}.s${seed}.prefill.p-eq-v`, shape, false, seed, 'prefill', null, opts.floor, true));
    }
  }
  return out;
}

export const SELFTEST_QUICK: SelftestOptions = { seeds: [1], shapes: ['tiny', 'tiny-v-eq-d'] };
export const SELFTEST_FULL: SelftestOptions = { seeds: [1, 2, 3], shapes: Object.keys(SHAPES) };
