/**
 * mla-diff's public API: what a tool embedding the harness needs to load a scenario, pick a device,
 * run the two MLA paths side by side, re-judge and compare saved runs, and render the results. Every
 * name is exported explicitly; the modules behind them are internal and may move. The kernel-level
 * pieces (WGSL kernels, their host oracles) are the `mla-diff/devices` subpath.
 */

// Errors: every failure is an MlaDiffError with a code from a closed set; EXIT_FOR maps a code to the CLI's exit code.
export { MlaDiffError, isMlaDiffError } from './errors';
export type { ErrorCode, ErrorLocation } from './errors';
export { EXIT, EXIT_FOR } from './surface/cli/io/exit-codes';
export type { ExitCode } from './surface/cli/io/exit-codes';

// Scenarios: a YAML file (or its text) to a resolved Scenario.
export { loadScenario, parseScenario } from './harness/scenario/load';
export type { LoadOptions } from './harness/scenario/tolerances';
export { CULPRITS } from './harness/scenario/scenario';
export type { Scenario, CaseSpec, Culprit, Expectation, ReferenceMode, ScheduleOptions } from './harness/scenario/scenario';
export { syntheticIds } from './harness/scenario/requests';
export { PRECISION_K } from './harness/scenario/precision';

// Runtimes: the device the paths run on (webgpu, tensorflow, wasm, cpu; 'auto' picks the first that works).
export { selectRuntime, probeAdapter } from './devices/select';
export { DEVICE_NAMES, DEVICE_REQUESTS } from './devices/runtime';
export type { Runtime, DeviceName, DeviceRequest, DeviceInfo, AdapterInfo, Log } from './devices/runtime';

// Running a scenario: returns the run report (data; nothing is printed).
export { runScenario } from './harness/run/run-scenario';
export type { RunOptions } from './harness/run/run-scenario';
export type { Progress } from './harness/run/progress';
// The float64 reference on its own (bench/reference): a scenario's job, its estimated cost, the plan `reference: auto` makes of it.
export { runReferenceJob, scenarioReference } from './harness/run/reference-job';
export type { ReferenceJob, ReferenceResult } from './harness/run/reference-job';
export { planReference, referenceCost, referenceSeconds, REFERENCE_RATES } from './harness/run/plan-reference';
export type { ReferenceCost, ReferenceEstimate, ReferenceHost } from './harness/run/plan-reference';

// Saved runs: load a report written by `mla-diff run --format json --out`, re-judge it, compare two runs.
export { loadRunReport } from './harness/golden/load-report';
export type { SavedRuns } from './harness/golden/load-report';
export { rejudgeRun, rejudgeCase } from './harness/golden/rejudge';
export { compareRuns, DEFAULT_RULE, DEFAULT_FLOOR_K } from './harness/golden/compare-runs';
export type { CompareRule, RunsComparison, ScenarioDiff, CaseDiff, RecordChange, ChangeKind } from './harness/golden/compare-runs';
export { judgeCase, judgeWeights, withOutcome, allPass, caseOutcomeOf, weightsOutcomeOf } from './harness/compare/outcome';
export type { PartOutcome } from './harness/compare/outcome';
export { tokenizerFromFile } from './checkpoints/tokenizer/from-file';
export { tokensLine, promptTokensLine } from './surface/reports/tokens';
export { DEFAULT_REL } from './harness/compare/tolerance';
export type { ToleranceSpec, ToleranceRule } from './harness/compare/tolerance';
export { CALIBRATED_K } from './harness/compare/floors';

// Self-test: the fault catalogue injected into tiny runs, scored for detection and localisation.
export { runSelftest } from './harness/selftest/run';
export type { SelftestReport, SelftestRow, SelftestScore } from './harness/selftest/run';
export { selftestCases, SELFTEST_QUICK, SELFTEST_FULL } from './harness/selftest/cases';
export type { SelftestCase, SelftestOptions } from './harness/selftest/cases';

// Renderers: terminal summary and tables (a Style says whether to colour), JUnit XML, Markdown, HTML.
export { makeStyle, colorWanted, PLAIN } from './surface/reports/style';
export type { Style } from './surface/reports/style';
export { renderRun, renderCase, oneLine } from './surface/reports/summary';
export { pieceSummaryTable, normTraceTable } from './surface/reports/table';
export { renderComparison } from './surface/reports/golden';
export { renderSelftest } from './surface/reports/selftest';
export { renderStages } from './surface/reports/stages';
export { renderFaults } from './surface/reports/faults';
export { renderJUnit, JUNIT_MARKER } from './surface/reports/junit';
export type { RunError } from './surface/reports/junit';
export { renderMarkdown, MARKDOWN_MARKER } from './surface/reports/markdown';
export { renderHtml, HTML_MARKER } from './surface/reports/html';

// Catalogues: the stages (layout, shape, paths, description in `doc`), the paths, the injectable faults, the model presets.
export { STAGES, STAGE_NAMES, PATH_NAMES, isStageName, stageIndex } from './trace/stages';
export type { StageName, StageDef, StageGroup, StageKind, PathName, DevicePath, Comparison } from './trace/stages';
export { FAULTS, FAULT_NAMES, isFaultName, NO_FAULTS } from './core/faults/catalogue';
export type { FaultName, FaultDef, FaultPath, FaultSet } from './core/faults/catalogue';
export { LOADER_FAULTS, LOADER_FAULT_DOCS } from './checkpoints/checkpoint/kv-b';
export type { LoaderFault } from './checkpoints/checkpoint/kv-b';
export { PRESETS, PRESET_NAMES, isPresetName, preset } from './core/model/presets';
export type { PresetName } from './core/model/presets';
export type { MlaConfig } from './core/model/config';

// Report formats: the `format`/`version` of each JSON document mla-diff writes, and their types.
export { RUN_FORMAT, RUN_VERSION } from './trace';
export type { RunReport, CaseResult, CaseTrace, PieceInfo, ScenarioEcho } from './trace';
export { COMPARE_FORMAT, COMPARE_VERSION } from './harness/golden/compare-runs';
export { SWEEP_FORMAT, SWEEP_VERSION } from './harness/sweep/report';
export { TOLERANCES_FORMAT, TOLERANCES_VERSION } from './harness/golden/ratchet';
export { REQUEST_FORMAT, RESPONSE_FORMAT, PROTOCOL_VERSION } from './harness/external/request';
export { INSPECT_VERSION } from './checkpoints/inspect/types';
export { reportValidator } from './trace/validate';
export { schemaFiles } from './trace/reports';
export type { ReportKind, Validation, SchemaError } from './trace/validate';

// Weights and checkpoints: synthetic layers, a layer of a GGUF or safetensors checkpoint, writing checkpoints.
export { SyntheticWeights } from './core/weights/synthetic';
export { LAYER_TENSORS, LINEAR_NAMES, NORM_NAMES, linearShape, normLength } from './core/weights/layer';
export type { WeightSource, LayerTensor, LinearName, NormName, HeadSlice } from './core/weights/layer';
export { openSource } from './checkpoints/checkpoint/source';
export type { SourceSpec } from './checkpoints/checkpoint/source';
export { writeGgufCheckpoint, mlaMetadata, fallbackType } from './checkpoints/checkpoint/write-gguf';
export { writeGgufSplit } from './formats/gguf/write-split';
export type { GgufCheckpointSpec } from './checkpoints/checkpoint/write-gguf';
export { writeSafetensorsCheckpoint } from './checkpoints/checkpoint/write-safetensors';
export { splitKvB, mergeKvB } from './checkpoints/checkpoint/kv-b';
export { GGUF_EMBEDDINGS, ggufName, ggufKB, ggufVB, hfName } from './checkpoints/checkpoint/names';
export { writeFixtures } from './checkpoints/checkpoint/fixtures';

// GGUF files: reading at offsets, writing headers and (quantized) tensors.
export { RandomAccessFile } from './formats/file';
export { GGML_TYPES } from './formats/gguf/ggml-types';
export type { GgmlType } from './formats/gguf/ggml-types';
export { quantizeRows } from './formats/gguf/codecs';
export { writeGguf, tensorBytes } from './formats/gguf/write';
export { FileWriter } from './formats/gguf/file-writer';
export { writeEntry } from './formats/gguf/metadata-write';

// Driving the paths directly (what runScenario does per step): plan a scenario's pieces, upload a layer,
// run the MHA and MQA backends with a recorder (or NULL_PROBE) — for benchmarks and profiling.
export { planRun } from './harness/run/pieces';
export type { PlannedRun } from './harness/run/pieces';
export { planAttention, planKeyPart } from './harness/run/plan';
export { stepPaths } from './harness/run/step-paths';
export { RETAINED } from './harness/run/reference-job';
export { uploadLayer, disposeLayer } from './paths/layer';
export type { DeviceLayer } from './paths/layer';
export { MhaBackend } from './paths/mha';
export { MqaBackend } from './paths/mqa';
export { DEFAULT_KERNELS } from './paths/backend';
export type { KernelOptions, MlaBackend, PieceInput } from './paths/backend';
export { rmsNorm, applyRope } from './paths/shared';
export { TensorRecorder } from './core/probes/tensor-recorder';
export { NULL_PROBE } from './core/probes/probe';
export type { TensorProbe } from './core/probes/probe';
