import type { CaseComparison } from '../compare/compare';
import type { ExternalInfo } from '../external/external';
import type { Diagnosis } from '../compare/diagnose';
import type { ToleranceRule } from '../compare/tolerance';
import type { ExpectationResult } from '../compare/expect';
import type { CaseReplay } from '../compare/origin';
import type { FaultName } from '../../core/faults/catalogue';
import type { PathTrace, Scope } from '../../core/probes/recorder';
import type { DevicePath, PathName, StageName } from '../../core/probes/stages';
import type { StageDtype } from '../../core/precision/formats';
import type { DeviceInfo } from '../../devices/runtime';
import type { Scenario } from '../scenario/scenario';
import type { HeadSlice } from '../../core/weights/layer';
import type { PairDiff, Where } from './diff';
import type { WeightsReport } from './run-weights';

/**
 * The versioned JSON that joins run → compare → report. Bump RUN_VERSION on any change a reader
 * could trip over; docs/trace-format.md documents the fields.
 */
export const RUN_FORMAT = 'mla-diff/run';
export const RUN_VERSION = 5;

/** One request's share of one engine step, as the schedule made it. */
export interface PieceInfo {
  step: number;
  request: string;
  kind: 'prefill' | 'decode' | 'cached';
  /** The path the engine sends it through. */
  route: 'mha' | 'mqa';
  /** Cache index of its first token (tokens already in the cache). */
  start: number;
  count: number;
  /** MHA context chunks (0 without context). */
  chunks: number;
}

/** What was recorded for one case: per-path traces and the elementwise diffs between paths. */
export interface CaseTrace {
  name: string;
  label: string;
  heads: HeadSlice;
  totalHeads: number;
  /** Every piece of the schedule, in execution order (cache fills included). */
  pieces: PieceInfo[];
  paths: Partial<Record<PathName, PathTrace>>;
  diffs: PairDiff[];
  /** Softmax scale the config calls for: qk_head_dim^-0.5 (· mscale²). */
  expectedSoftmaxScale: number;
  /** Seconds per device path over all pieces, recording included: each step from its encoding to its completion (the paths of a piece overlap on the GPU: see stepPaths). */
  seconds: Partial<Record<PathName, number>>;
  notes: string[];
  /** The external path's origin (a backend's command or an engine dump), when the case has one. */
  external?: ExternalInfo;
  /** Per device path, the stages it keeps in a narrower dtype than float32 (absent: all float32). */
  dtypes?: Partial<Record<DevicePath, Partial<Record<StageName, StageDtype>>>>;
}

/** Where inside one divergent record it diverges: per query token and per head, culprit against witness. */
export interface RecordDetail extends Where {
  /** The pair measured: the culprit (or the first engine path) and the reference (or another engine path). */
  a: PathName;
  b: PathName;
  /** RoPE positions of the piece's query tokens: the `t` axis. */
  positions: number[];
  /** ‖a_t − b_t‖ / max(‖a_t‖, ‖b_t‖) per query token; null without a `t` axis. */
  perToken: number[] | null;
  /** The same per head; null without an `h` axis. */
  perHead: number[] | null;
}

/** Measurements of the first divergent records taken while their values were alive (version 4). */
export interface CaseDetail {
  records: RecordDetail[];
  /** Per piece of those records: each path's mean attn_probs row entropy / ln(keys seen) (1 = uniform). */
  entropy: (Scope & { paths: Partial<Record<PathName, number>> })[];
}

export interface CaseResult {
  trace: CaseTrace;
  comparison: CaseComparison;
  /** Per-token, per-head errors and attention entropy at the first divergent records (absent when they agree). */
  detail?: CaseDetail;
  /** Likely causes of the first divergence (the first introduced one after a replay), most specific first (empty when the paths agree). */
  diagnosis: Diagnosis[];
  /** Stage replay of divergent records: introduced there or inherited from upstream (absent when off or the case agrees). */
  replay?: CaseReplay;
  expectation?: ExpectationResult;
}

/** The resolved scenario as JSON: sets become arrays, cases live in `cases[].trace`. */
export type ScenarioEcho = Omit<Scenario, 'cases' | 'faults' | 'tolerances'> & {
  faults: { mha: FaultName[]; mqa: FaultName[] };
  /** A number is a relative bound (`{rel: x}`), `{floor: k}` k × the record's noise floor. */
  tolerances: { default?: ToleranceRule; stages?: Record<string, ToleranceRule> };
};

export interface RunReport {
  format: typeof RUN_FORMAT;
  version: typeof RUN_VERSION;
  tool: { name: 'mla-diff'; version: string };
  created: string;
  scenario: ScenarioEcho;
  device: DeviceInfo;
  /** 'agree' when every case agrees and, with compare_weights:, the two weight sources agree. */
  verdict: 'agree' | 'diverge';
  /** The weight stage W: per weight its source, dtype, shape, norm and checksum; across sources, their diffs. */
  weights?: WeightsReport;
  /** Wall seconds: weight build and upload, the float64 reference (on its own thread), the whole run. */
  seconds: { weights: number; reference: number | null; total: number };
  cases: CaseResult[];
}
