import type { FaultName } from '../../core/faults/catalogue';
import type { HeadSlice, ScenarioEcho } from '../../trace';

/**
 * A validated scenario, ready to run: the echo a report carries (src/trace/scenario.ts, where
 * its parts are defined: sources, requests, schedule, precision, tolerances, expect:, external:,
 * trace:) with its cases and its fault sets.
 */
export type {
  Culprit,
  Expectation,
  ExternalSpec,
  ReferenceMode,
  ReplayMode,
  ScheduleOptions,
  TraceSpec,
  WeightsExpectation,
} from '../../trace';
export { CULPRITS } from '../../trace';

/** One run of both paths: all heads, or a head slice such as one tensor-parallel rank. */
export interface CaseSpec {
  name: string;
  heads: HeadSlice;
  /** e.g. `tp rank 0 of 8` */
  label: string;
}

export type Scenario = Omit<ScenarioEcho, 'faults'> & {
  cases: CaseSpec[];
  faults: { mha: ReadonlySet<FaultName>; mqa: ReadonlySet<FaultName> };
};
