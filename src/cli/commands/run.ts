import type { Argv, CommandModule } from 'yargs';
import { MlaDiffError } from '../../errors';
import { oneLine, renderRun } from '../../reports/summary';
import { colorWanted, makeStyle } from '../../reports/style';
import { runScenario } from '../../run/run-scenario';
import type { RunReport } from '../../run/trace';
import type { DeviceRequest } from '../../runtime/device';
import { DEVICE_REQUESTS } from '../../runtime/device';
import { selectRuntime } from '../../runtime/select';
import { loadScenario } from '../../scenario/load';
import { withExternalFlags } from '../../external/join';
import type { ReferenceMode, ReplayMode, Scenario } from '../../scenario/scenario';
import { EXIT, handleErrors } from '../handle-errors';
import { finishGolden, prepareGolden } from './run-golden';
import type { IO } from '../io';
import { processIO, toolVersion, writeOutput } from '../io';

export interface RunArgs {
  scenarios: string[];
  device: DeviceRequest;
  format: 'table' | 'json';
  out?: string;
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
    throw new MlaDiffError('invalid-value', `no case named ${unknown.map((n) => `"${n}"`).join(', ')}`, { file: s.file ?? undefined, field: '--case' },
      `cases: ${s.cases.map((c) => c.name).join(', ')}`);
  }
  return { ...s, cases: s.cases.filter((c) => names.includes(c.name)) };
}

/** `mla-diff run`: load every scenario first (bad input fails before any work), run, report. */
export async function runCommand(args: RunArgs, io: IO = processIO): Promise<number> {
  const flags = { external: args.external, trace: args.trace };
  const scenarios = args.scenarios.map((f) => withExternalFlags(pickCases(loadScenario(f, { allowLooser: args.allowLooser ?? false }), args.case), flags));
  const golden = prepareGolden(args);
  const log = args.verbose ? (m: string) => io.err(`mla-diff: ${m}`) : () => {};
  const runtime = await selectRuntime(args.device, log);
  log(`device: ${runtime.device.description} (${runtime.device.reason})`);
  const reports: RunReport[] = [];
  for (const s of scenarios) reports.push(await runScenario(s, { runtime, reference: args.reference, replay: args.replay, log, toolVersion: toolVersion(), keepExternal: args.keepExternal ?? false }));
  const text = args.format === 'json'
    ? JSON.stringify(reports.length === 1 ? reports[0] : { format: 'mla-diff/runs', version: 1, runs: reports }, null, 2)
    : ['mla-diff report', ...reports.map((r) => renderRun(r, makeStyle(!args.out && colorWanted()), args.verbose))].join('\n\n');
  if (args.out) {
    writeOutput(args.out, text, { force: args.force, inputs: args.scenarios });
    if (!args.quiet) for (const r of reports) io.out(`${oneLine(r)} (report: ${args.out})`);
  } else if (!args.quiet || args.format === 'json') {
    io.out(text);
  }
  const changed = finishGolden(args, golden, reports, args.format === 'json' && !args.out ? { out: io.err, err: io.err } : io, !args.out && colorWanted(), args.quiet);
  return reports.every((r) => r.verdict === 'agree') && !changed ? EXIT.agree : EXIT.diverge;
}

export const runModule: CommandModule<object, RunArgs> = {
  command: 'run <scenarios..>',
  describe: 'run both MLA paths of each scenario, trace every stage, report where they part',
  builder: (y: Argv) =>
    y
      .positional('scenarios', { type: 'string', array: true, demandOption: true, describe: 'scenario YAML files' })
      .option('device', { choices: DEVICE_REQUESTS, default: 'auto' as DeviceRequest, describe: 'tfjs backend: auto = webgpu on a hardware GPU, else tensorflow if it loads, else wasm' })
      .option('format', { choices: ['table', 'json'] as const, default: 'table' as const, describe: 'report format' })
      .option('out', { type: 'string', describe: 'write the report to this file (stdout gets one line per scenario)' })
      .option('force', { type: 'boolean', default: false, describe: 'let --out overwrite a file mla-diff did not write' })
      .option('reference', { choices: ['auto', 'on', 'off'] as const, describe: "override the scenario's float64 reference setting" })
      .option('replay', { choices: ['auto', 'on', 'off'] as const, describe: "override the scenario's stage replay: re-run divergent records from another path's inputs to tell introduced from inherited" })
      .option('case', { type: 'string', array: true, describe: 'run only these cases of the scenario' })
      .option('external', { type: 'string', describe: 'an external backend\'s command (sets or overrides the scenario\'s external: command; docs/external-backends.md)' })
      .option('keep-external', { type: 'boolean', default: false, describe: 'keep the external backend\'s exchange directory (request, weights, inputs, out/)' })
      .option('trace', { type: 'string', describe: 'an engine\'s dump (.safetensors tensors or .jsonl norms) compared as path external (docs/engine-trace.md)' })
      .option('golden', { type: 'string', describe: 'a saved run (run --format json --out) to compare this run with: exit 1 when a record changed (docs/golden.md)' })
      .option('write-tolerances', { type: 'string', describe: 'write the tolerance ratchet: per stage the smallest passing tolerance × 2, as YAML a scenario can reference' })
      .option('allow-looser', { type: 'boolean', default: false, describe: "let a scenario's inline tolerance be looser than its tolerances file" })
      .option('quiet', { alias: 'q', type: 'boolean', default: false, describe: 'print nothing but errors; the exit code tells' })
      .example('$0 run scenarios/capital-of-france.yaml', 'GLM-5 layer, 5 tokens, all 64 heads and TP rank 0 of 8')
      .example('$0 run scenarios/*.yaml --device webgpu --format json --out trace.json', 'every scenario on the GPU, JSON report to a file')
      .example('$0 run scenarios/external-node.yaml', 'an external backend (examples/backends/node-mla.mjs) against mha, mqa and the reference')
      .example('$0 run scenarios/tiny-smoke.yaml --trace dump.safetensors', "an engine's dump of named stage tensors, localized against our paths")
      .example('$0 run scenarios/fault-mqa-scale-576.yaml; echo $?', 'a planted fault: exits 1 and names logits / mqa') as unknown as Argv<RunArgs>,
  handler: async (args) => {
    process.exitCode = await handleErrors(args.verbose, processIO, () => runCommand(args));
  },
};
