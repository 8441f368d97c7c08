import { MlaDiffError } from '../../errors';
import type { FaultName } from '../../core/faults/catalogue';
import { FAULTS } from '../../core/faults/catalogue';
import { readTextFile } from '../../formats/text-file';
import { validateConfig } from '../../core/model/config';
import { fail } from './fail';
import { bosMode, resolveRequests } from './requests';
import type { LoadOptions } from './tolerances';
import { resolveTolerances } from './tolerances';
import type { StageName } from '../../trace/stages';
import type { Culprit, Scenario, WeightsExpectation } from './scenario';
import type { WeightName } from '../../core/weights/records';
import type { ScenarioFile } from './schema';
import { scenarioSchema } from './schema';
import { resolveCases } from './cases';
import { resolveExternal } from './external';
import { issueError } from './issue-error';
import { precisionTolerances, resolvePrecision } from './precision';
import { resolveWeights } from './weights';
import { checkScheduleLimits } from './limits';
import { YamlSource } from './yaml-source';

function expectWeights(f: ScenarioFile, src: YamlSource): WeightsExpectation {
  if (!f.compare_weights)
    fail(src, 'invalid-value', ['expect', 'weights'], 'expects a comparison across weight sources, but there is no compare_weights:');
  const e = f.expect!.weights!;
  return {
    outcome: e.outcome,
    ...(e.first_divergence ? { first_divergence: e.first_divergence as WeightName } : {}),
    ...(e.mha ? { mha: e.mha as StageName } : {}),
    ...(e.mqa ? { mqa: e.mqa as StageName } : {}),
  };
}

/** Reads and validates a scenario file; every failure is one MlaDiffError naming file, line and field. */
export function loadScenario(file: string, opts: LoadOptions = {}): Scenario {
  const text = readTextFile(file, 'a scenario file', 'scenarios live in scenarios/*.yaml; `mla-diff run scenarios/capital-of-france.yaml`');
  return parseScenario(text, file, opts);
}

export function parseScenario(text: string, file = '<scenario>', opts: LoadOptions = {}): Scenario {
  return parseScenarioSource(new YamlSource(text, file), opts);
}

/** Validates the scenario a YamlSource holds (a sweep's matrix point overrides toJS and locate). */
export function parseScenarioSource(src: YamlSource, opts: LoadOptions = {}): Scenario {
  const raw = src.toJS();
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new MlaDiffError('invalid-type', 'a scenario must be a YAML mapping (name:, model:, prompt:, …)', { file: src.file, line: 1 });
  }
  const parsed = scenarioSchema.safeParse(raw);
  if (!parsed.success) {
    // A misspelt key also leaves a required field missing; the unknown key is the one to report.
    const issues = parsed.error.issues;
    throw issueError(src, issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]!);
  }
  return resolve(parsed.data, src, opts);
}

function resolve(f: ScenarioFile, src: YamlSource, opts: LoadOptions): Scenario {
  const w = resolveWeights(f, src);
  const config = w.config;
  try {
    validateConfig(config, { file: src.file });
  } catch (e) {
    if (!(e instanceof MlaDiffError)) throw e;
    const key = (e.where.field ?? 'model').split('.').slice(1);
    fail(src, e.code, ['model', ...key], e.message, e.hint);
  }
  checkScheduleLimits(f, config, src);
  const N = config.num_attention_heads;
  const requests = resolveRequests(f, config, src, w.seed, w.tokenizer);
  const cases = resolveCases(f, N, src);
  const faults = { mha: new Set<FaultName>(), mqa: new Set<FaultName>() };
  f.faults.forEach(({ path, fault }, i) => {
    const def = FAULTS[fault as FaultName];
    if (!def.paths.includes(path)) {
      fail(
        src,
        'invalid-value',
        ['faults', i, 'path'],
        `${fault} breaks code that only the ${def.paths.join(' and ')} path has`,
        `plant it in path: ${def.paths[0]}`,
      );
    }
    faults[path].add(fault as FaultName);
  });
  const precision = resolvePrecision(f, config, src);
  return {
    file: src.file,
    name: f.name,
    description: f.description,
    preset: w.presetLabel,
    config,
    seed: w.seed,
    weights: w.weights,
    ...(w.compare ? { compareWeights: w.compare } : {}),
    ...(f.prompt?.text !== undefined && f.prompt.ids === undefined && f.prompt.length === undefined
      ? { tokenizer: w.tokenizer()!.source, bos: bosMode(f.prompt.bos), tokens: w.tokenizer()!.tokens(requests[0]!.ids) }
      : {}),
    ...(f.prompt?.text ? { text: f.prompt.text } : {}),
    requests,
    schedule: {
      blockSize: f.schedule.block_size,
      decodeThreshold: f.schedule.decode_threshold,
      contextChunk: f.schedule.context_chunk,
      kvSplits: f.schedule.kv_splits,
      prefillKernel: f.schedule.prefill_kernel,
      cold: f.schedule.cold,
      attention: f.schedule.attention,
      ...(f.schedule.logits_rows ? { logitsRows: f.schedule.logits_rows } : {}),
    },
    reference: f.reference,
    replay: f.replay,
    cases,
    faults,
    precision,
    tolerances: precisionTolerances(resolveTolerances(f, src, opts), precision, f, src),
    expect: f.expect && {
      outcome: f.expect.outcome,
      first_divergence: f.expect.first_divergence as StageName | undefined,
      culprit: f.expect.culprit as Culprit | undefined,
      ...(f.expect.step === undefined ? {} : { step: f.expect.step }),
      ...(f.expect.request === undefined ? {} : { request: f.expect.request }),
      ...(f.expect.weights ? { weights: expectWeights(f, src) } : {}),
    },
    ...resolveExternal(f, src),
  };
}
