import type { ToleranceSpec } from '../compare/tolerance';
import type { FaultName } from '../faults/catalogue';
import type { MlaConfig } from '../model/config';
import type { StageName } from '../probes/stages';
import type { HeadSlice } from '../weights/layer';

export type ReferenceMode = 'auto' | 'on' | 'off';
export type Culprit = 'mha' | 'mqa' | 'both' | 'shared' | 'unknown';

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
}

/** A validated scenario, ready to run. */
export interface Scenario {
  file: string | null;
  name: string;
  description?: string;
  preset: string;
  config: MlaConfig;
  seed: number;
  text?: string;
  ids: number[];
  positions: number[];
  reference: ReferenceMode;
  cases: CaseSpec[];
  faults: { mha: ReadonlySet<FaultName>; mqa: ReadonlySet<FaultName> };
  tolerances: ToleranceSpec;
  expect?: Expectation;
}
