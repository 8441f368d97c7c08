/**
 * The versioned JSON that joins run → compare → report: its types and format constants are the
 * trace contract's (src/trace, documented in docs/trace-format.md), re-exported for the run layer.
 */
export { RUN_FORMAT, RUN_VERSION } from '../../trace';
export type { CaseDetail, CaseResult, CaseTrace, PieceInfo, RecordDetail, RunReport, ScenarioEcho } from '../../trace';
