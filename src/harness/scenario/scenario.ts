import type { ToleranceSpec } from '../compare/tolerance';
import type { FaultName } from '../../core/faults/catalogue';
import type { MlaConfig } from '../../core/model/config';
import type { StageName } from '../../core/probes/stages';
import type { RequestPlan } from '../../core/schedule/schedule';
import type { HeadSlice } from '../../core/weights/layer';
import type { PrecisionSpec } from '../../core/precision/plan';
import type { AttentionMode } from '../../devices/kernels/attention-kernel';
import type { WeightName } from '../../core/weights/records';
import type { SourceSpec } from '../../checkpoints/checkpoint/source';

export type ReferenceMode = 'auto' | 'on' | 'off';
export type { ReplayMode } from '../compare/origin';
import type { ReplayMode } from '../compare/origin';
export type Culprit = 'mha' | 'mqa' | 'cold' | 'both' | 'shared' | 'external' | 'unknown';
export const CULPRITS: readonly Culprit[] = ['mha', 'mqa', 'cold', 'both', 'shared', 'external', 'unknown'];

/** An external backend (scenario `external:`): a command computing the layer over the schedule. */
export interface ExternalSpec {
  command: string;
  /** Label in reports (default "external"). */
  name: string;
  timeoutS: number;
  /** Stages asked for (default: every stage). */
  stages: StageName[] | null;
  /** Layouts the backend writes where they differ from the canonical ones. */
  layouts: Record<string, string>;
  /** Backend tensor names → mla-diff stage names. */
  names: Record<string, string>;
}

/** An engine's dump of named tensors or norms (scenario `trace:`, or `--trace`). */
export interface TraceSpec {
  file: string;
  layouts: Record<string, string>;
  names: Record<string, string>;
}

/** One run of both paths: all heads, or a head slice such as one tensor-parallel rank. */
export interface CaseSpec {
  name: string;
  heads: HeadSlice;
  /** e.g. `tp rank 0 of 8` */
  label: string;
}

export interface Expectation {
  outcome: 'agree' | 'diverge';
  first_divergence?: StageName;
  culprit?: Culprit;
  /** Engine step and request of the first divergence. */
  step?: number;
  request?: string;
  weights?: WeightsExpectation;
}

/** The outcome across two weight sources (`compare_weights:`). */
export interface WeightsExpectation {
  outcome: 'agree' | 'diverge';
  first_divergence?: WeightName;
  mha?: StageName;
  mqa?: StageName;
}

/** How the engine runs a schedule (scenario `schedule:`). */
export interface ScheduleOptions {
  blockSize: number;
  decodeThreshold: number;
  contextChunk: number;
  kvSplits: number;
  prefillKernel: 'fa3' | 'fa2';
  cold: 'auto' | 'on' | 'off';
  /** Fused (or tiled) attention without the score tensor: auto = where the unfused scores would not fit. */
  attention: AttentionMode;
  /** Sampled logits rows (`logits_rows:`): query token indices within each piece, negative from its end; absent: every row. */
  logitsRows?: readonly number[];
}

/** A validated scenario, ready to run. */
export interface Scenario {
  file: string | null;
  name: string;
  description?: string;
  /** The preset, or the checkpoint kind whose config runs. */
  preset: string;
  config: MlaConfig;
  /** Seeds synthetic weights and ids, and shuffles the block tables. */
  seed: number;
  weights: SourceSpec;
  /** A second source of the same layer, compared weight by weight and activation by activation. */
  compareWeights?: SourceSpec;
  /** Where prompt text was tokenized, e.g. `GGUF vocabulary (…)`. */
  tokenizer?: string;
  text?: string;
  requests: RequestPlan[];
  schedule: ScheduleOptions;
  reference: ReferenceMode;
  /** Stage replay of divergent records: auto (selected records, capped), on (every divergent record), off. */
  replay: ReplayMode;
  cases: CaseSpec[];
  faults: { mha: ReadonlySet<FaultName>; mqa: ReadonlySet<FaultName> };
  /** Storage dtypes and rounding points of the paths (float32: none). */
  precision: PrecisionSpec;
  tolerances: ToleranceSpec;
  expect?: Expectation;
  external?: ExternalSpec;
  trace?: TraceSpec;
}
