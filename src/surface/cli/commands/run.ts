import { resolve } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { MlaDiffError } from '../../../errors';
import { renderJUnit } from '../../reports/junit';
import { renderMarkdown } from '../../reports/markdown';
import { progressBar } from '../../reports/progress';
import { oneLine, renderRun } from '../../reports/summary';
import { colorWanted, makeStyle } from '../../reports/style';
import { runScenario } from '../../../harness/run/run-scenario';
import type { RunReport } from '../../../harness/run/trace';
import type { DeviceRequest } from '../../../devices/runtime';
import { DEVICE_REQUESTS } from '../../../devices/runtime';
import { selectRuntime } from '../../../devices/select';
import { loadScenario } from '../../../harness/scenario/load';
import { withExternalFlags } from '../../../harness/external/join';
import type { ReferenceMode, ReplayMode, Scenario } from '../../../harness/scenario/scenario';
import { EXIT, handleErrors } from '../io/handle-errors';
import { loadHtml } from '../../reports/html-lazy';
import { finishGolden, prepareGolden } from './run-golden';
import type { IO } from '../io/process-io';
import { toolVersion } from '../../../version';
import { processIO, writeOutput } from '../io/process-io';

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
  keepExternal?: boolean;
  trace?: string;
  golden?: string;
  writeTolerances?: string;
  allowLooser?: boolean;
}

function pickCases(s: Scenario, names: string[] | undefined): Scenario {
  if (!names?.length) return s;
  const unknown = names.filter((n) => !s.cases.some((c) => c.name === n));
  if (unknown.length) {
    throw new MlaDiffError(
      'invalid-value',
      `no case named ${unknown.map((n) => `"${n}"`).join(', ')}`,
      { file: s.file ?? undefined, field: '--case' },
      `cases: ${s.cases.map((c) => c.name).join(', ')}`,
    );
  }
  return { ...s, cases: s.cases.filter((c) => names.includes(c.name)) };
}

/** --out, --junit and --markdown must name different files (one would silently replace another). */
function checkOutputs(args: RunArgs): void {
  const outs = (['out', 'junit', 'markdown', 'html'] as const).filter((k) => args[k] !== undefined);
  for (const [i, k] of outs.entries()) {
    const twin = outs.slice(0, i).find((j) => resolve(args[j]!) === resolve(args[k]!));
    if (twin)
      throw new MlaDiffError(
        'invalid-value',
        `--${k} names the same file as --${twin}`,
        { file: args[k], field: `--${k}` },
        'give each report its own file',
      );
  }
}

function render(format: RunFormat, reports: RunReport[], args: RunArgs): string {
  if (format === 'json')
    return JSON.stringify(reports.length === 1 ? reports[0] : { format: 'mla-diff/runs', version: 1, runs: reports }, null, 2);
  if (format === 'junit') return renderJUnit(reports);
  if (format === 'markdown') return renderMarkdown(reports);
  return ['mla-diff report', ...reports.map((r) => renderRun(r, makeStyle(!args.out && colorWanted()), args.verbose))].join('\n\n');
}

/** `mla-diff run`: load every scenario first (bad input fails before any work), run, report. */
export async function runCommand(args: RunArgs, io: IO = processIO): Promise<number> {
  checkOutputs(args);
  const flags = { external: args.external, trace: args.trace };
  const scenarios = args.scenarios.map((f) =>
    withExternalFlags(pickCases(loadScenario(f, { allowLooser: args.allowLooser ?? false }), args.case), flags),
  );
  const golden = prepareGolden(args);
  const log = args.verbose ? (m: string) => io.err(`mla-diff: ${m}`) : () => {};
  const runtime = await selectRuntime(args.device, log);
  log(`device: ${runtime.device.description} (${runtime.device.reason})`);
  const reports: RunReport[] = [];
  // A bar on stderr only on a terminal, and not under --quiet or beside --verbose's log lines.
  const bar = !args.quiet && !args.verbose && io.errStream ? progressBar(io.errStream) : null;
  try {
    for (const s of scenarios) {
      reports.push(
        await runScenario(s, {
          runtime,
          reference: args.reference,
          replay: args.replay,
          log,
          toolVersion: toolVersion(),
          keepExternal: args.keepExternal ?? false,
          ...(bar ? { progress: bar.progress } : {}),
        }),
      );
    }
  } finally {
    bar?.stop();
  }
  const text = render(args.format, reports, args);
  for (const k of ['junit', 'markdown'] as const) {
    if (args[k] === undefined) continue;
    writeOutput(args[k]!, render(k, reports, args), { force: args.force, inputs: args.scenarios, field: `--${k}` });
    log(`${k} report: ${args[k]}`);
  }
  if (args.html) {
    const { renderHtml } = loadHtml();
    writeOutput(args.html, await renderHtml(reports), { force: args.force, inputs: args.scenarios, field: '--html' });
    log(`html report: ${args.html}`);
  }
  if (args.out) {
    writeOutput(args.out, text, { force: args.force, inputs: args.scenarios });
    if (!args.quiet) for (const r of reports) io.out(`${oneLine(r)} (report: ${args.out})`);
  } else if (!args.quiet || args.format !== 'table') {
    io.out(text);
  }
  const changed = finishGolden(
    args,
    golden,
    reports,
    args.format === 'json' && !args.out ? { out: io.err, err: io.err } : io,
    !args.out && colorWanted(),
    args.quiet,
  );
  return reports.every((r) => r.verdict === 'agree') && !changed ? EXIT.agree : EXIT.diverge;
}

export const runModule: CommandModule<object, RunArgs> = {
  command: 'run <scenarios..>',
  describe: 'run both MLA paths of each scenario, trace every stage, report where they part',
  builder: (y: Argv) =>
    y
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
        'a planted fault: exits 1 and names logits / mqa',
      ) as unknown as Argv<RunArgs>,
  handler: async (args) => {
    process.exitCode = await handleErrors(args.verbose, processIO, () => runCommand(args));
  },
};
