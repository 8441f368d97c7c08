/** `mla-diff run`'s flags: the formats, the parsed arguments and the yargs option definitions with examples. */
import type { Argv } from 'yargs';
import type { DeviceRequest } from '../../../devices/runtime';
import { DEVICE_REQUESTS } from '../../../devices/runtime';
import type { ReferenceMode, ReplayMode } from '../../../harness/scenario/scenario';

export const RUN_FORMATS = ['table', 'json', 'junit', 'markdown'] as const;
export type RunFormat = (typeof RUN_FORMATS)[number];

export interface RunArgs {
  scenarios: string[];
  device: DeviceRequest;
  format: RunFormat;
  out?: string;
  /** Also write the HTML report (plots) here. */
  html?: string;
  junit?: string;
  markdown?: string;
  force: boolean;
  reference?: ReferenceMode;
  replay?: ReplayMode;
  case?: string[];
  verbose: boolean;
  quiet: boolean;
  external?: string;
  engine?: 'llama.cpp';
  keepExternal?: boolean;
  trace?: string;
  golden?: string;
  writeTolerances?: string;
  allowLooser?: boolean;
  /** false (`--no-expect`): judge raw agreement, ignoring `expect:`. */
  expect?: boolean;
  wide?: boolean;
}

/** The rule of the exit code (and of every report), as --help states it. */
export const VERDICT_RULE =
  'a case with expect: passes when its declared outcome is met (a declared divergence that does not happen fails, as does a ' +
  'declared first divergence, culprit, step or request that differs); one without passes when its paths agree. ' +
  'Exit 0 when every case passes (and --golden found no change), 1 otherwise, 2 bad input, 3 runtime failure.';

/** run's positional and options, with its examples. */
export function runOptions(y: Argv): Argv<RunArgs> {
  return y
    .positional('scenarios', { type: 'string', array: true, demandOption: true, describe: 'scenario YAML files' })
    .option('device', {
      choices: DEVICE_REQUESTS,
      default: 'auto' as DeviceRequest,
      describe: 'tfjs backend: auto = webgpu on a hardware GPU, else tensorflow if it loads, else wasm',
    })
    .option('format', {
      choices: RUN_FORMATS,
      default: 'table' as RunFormat,
      describe: 'report format: table, json (the run JSON), junit (JUnit XML), markdown (a CI step summary)',
    })
    .option('out', { type: 'string', describe: 'write the report to this file (stdout gets one line per scenario)' })
    .option('junit', { type: 'string', describe: 'also write JUnit XML here: a test case per scenario case × engine step (for CI)' })
    .option('markdown', {
      type: 'string',
      describe: 'also write a Markdown summary here (for a CI step summary, e.g. $GITHUB_STEP_SUMMARY)',
    })
    .option('html', {
      type: 'string',
      describe: 'also write the HTML report to this file: per-stage norms and errors, per-head error map (one self-contained page)',
    })
    .option('force', {
      type: 'boolean',
      default: false,
      describe: 'let --out, --junit, --markdown and --html overwrite a file mla-diff did not write',
    })
    .option('reference', { choices: ['auto', 'on', 'off'] as const, describe: "override the scenario's float64 reference setting" })
    .option('replay', {
      choices: ['auto', 'on', 'off'] as const,
      describe:
        "override the scenario's stage replay: re-run divergent records from another path's inputs to tell introduced from inherited",
    })
    .option('case', { type: 'string', array: true, describe: 'run only these cases of the scenario' })
    .option('external', {
      type: 'string',
      describe: "an external backend's command (sets or overrides the scenario's external: command; docs/external-backends.md)",
    })
    .option('engine', {
      choices: ['llama.cpp'] as const,
      describe: "run this engine as the third-party path, at its defaults (the scenario's engines: gives its settings; docs/llama-cpp.md)",
    })
    .option('keep-external', {
      type: 'boolean',
      default: false,
      describe: "keep the external backend's exchange directory (request, weights, inputs, out/)",
    })
    .option('trace', {
      type: 'string',
      describe: "an engine's dump (.safetensors tensors or .jsonl norms) compared as path external (docs/engine-trace.md)",
    })
    .option('golden', {
      type: 'string',
      describe: 'a saved run (run --format json --out) to compare this run with: exit 1 when a record changed (docs/golden.md)',
    })
    .option('write-tolerances', {
      type: 'string',
      describe: 'write the tolerance ratchet: per stage the smallest passing tolerance × 2, as YAML a scenario can reference',
    })
    .option('allow-looser', {
      type: 'boolean',
      default: false,
      describe: "let a scenario's inline tolerance be looser than its tolerances file",
    })
    .option('expect', {
      type: 'boolean',
      default: true,
      describe: "--no-expect: judge raw agreement (a divergence fails), ignoring the scenario's expect:",
    })
    .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print nothing but errors; the exit code tells' })
    .example('$0 run scenarios/capital-of-france.yaml', 'GLM-5 layer, 5 tokens, all 64 heads and TP rank 0 of 8')
    .example('$0 run scenarios/*.yaml --device webgpu --format json --out trace.json', 'every scenario on the GPU, JSON report to a file')
    .example(
      '$0 run scenarios/external-node.yaml',
      'an external backend (examples/backends/node-mla.mjs) against mha, mqa and the reference',
    )
    .example(
      '$0 run scenarios/tiny-smoke.yaml --trace dump.safetensors',
      "an engine's dump of named stage tensors, localized against our paths",
    )
    .example(
      '$0 run scenarios/*.yaml --junit out/junit.xml --markdown out/summary.md',
      'CI: JUnit XML and a Markdown step summary besides the usual report',
    )
    .example(
      '$0 run scenarios/fault-mqa-scale-576.yaml; echo $?',
      'a planted fault, declared under expect: exits 0 (divergence as declared) and names logits / mqa',
    )
    .example('$0 run scenarios/fault-mqa-scale-576.yaml --no-expect; echo $?', 'the same judged by agreement: exits 1')
    .epilogue(`The verdict: ${VERDICT_RULE}`) as unknown as Argv<RunArgs>;
}
