import { closest } from 'fastest-levenshtein';
import type { z } from 'zod';
import { fieldPath, MlaDiffError } from '../../errors';
import type { ErrorCode } from '../../errors';
import type { FaultName } from '../../core/faults/catalogue';
import { FAULTS } from '../../core/faults/catalogue';
import { readTextFile } from '../../formats/text-file';
import { validateConfig } from '../../core/model/config';
import { fail } from './fail';
import { resolveRequests } from './requests';
import type { LoadOptions } from './tolerances';
import { resolveTolerances } from './tolerances';
import type { StageName } from '../../trace/stages';
import type { CaseSpec, Culprit, Scenario, WeightsExpectation } from './scenario';
import type { WeightName } from '../../core/weights/records';
import { allowedKeys } from './schema-keys';
import type { ScenarioFile } from './schema';
import { scenarioSchema } from './schema';
import { resolveExternal } from './external';
import { precisionTolerances, resolvePrecision } from './precision';
import { resolveWeights } from './weights';
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

/** One zod issue as an MlaDiffError at its line; `root` is the schema the issue's path walks (default the scenario's). */
export function issueError(src: YamlSource, issue: z.core.$ZodIssue, root?: unknown): MlaDiffError {
  if (issue.code === 'invalid_union' && issue.errors.length) {
    // Of the union's branches, report the one that got deepest into the value (e.g. the bad item of a list).
    const deepest = issue.errors.flat().reduce((a, b) => (b.path.length > a.path.length ? b : a));
    if (deepest.path.length) return issueError(src, { ...deepest, path: [...issue.path, ...deepest.path] } as z.core.$ZodIssue, root);
    const words = issue.errors
      .flat()
      .flatMap((e) => (e.code === 'invalid_value' ? e.values.filter((v): v is string => typeof v === 'string') : []));
    if (words.length) return issueError(src, { ...issue, code: 'invalid_value', values: words } as unknown as z.core.$ZodIssue, root);
  }
  const path = issue.path as PropertyKey[];
  if (issue.code === 'unrecognized_keys') {
    const key = issue.keys[0]!;
    const allowed = allowedKeys(path, root);
    const guess = allowed.length ? closest(key, allowed) : undefined;
    const at = src.locate([...path, key], true);
    return new MlaDiffError(
      'unknown-key',
      `unknown key "${key}"${guess ? ` (did you mean "${guess}"?)` : ''}`,
      { file: src.file, line: at?.line, column: at?.column, field: fieldPath([...path, key]) },
      allowed.length ? `allowed here: ${allowed.join(', ')}` : undefined,
    );
  }
  const at = src.locate(path);
  const value = valueAt(src.toJS(), path);
  if (issue.code === 'invalid_value' && value === undefined) {
    return new MlaDiffError('invalid-type', `missing required field (expected one of ${issue.values.map(String).join(', ')})`, {
      file: src.file,
      line: at?.line,
      column: at?.column,
      field: fieldPath(path),
    });
  }
  if (issue.code === 'invalid_value' && issue.values.every((v) => typeof v === 'string')) {
    const got = String(value);
    const options = issue.values as string[];
    return new MlaDiffError(
      path[0] === 'model' && path[1] === 'preset' ? 'unknown-preset' : 'invalid-value',
      `"${got}" is not one of ${options.join(', ')} (did you mean "${closest(got, options)}"?)`,
      { file: src.file, line: at?.line, column: at?.column, field: fieldPath(path) },
    );
  }
  const code: ErrorCode = issue.code === 'invalid_type' ? 'invalid-type' : 'invalid-value';
  const missing = issue.code === 'invalid_type' && issue.message.includes('received undefined');
  const message = missing ? `missing required field (expected ${issue.expected})` : issue.message.replace(/^Invalid input: /, '');
  return new MlaDiffError(code, message, { file: src.file, line: at?.line, column: at?.column, field: fieldPath(path) || undefined });
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  return path.reduce<unknown>((v, k) => (v !== null && typeof v === 'object' ? (v as Record<PropertyKey, unknown>)[k] : undefined), root);
}

function resolve(f: ScenarioFile, src: YamlSource, opts: LoadOptions): Scenario {
  const w = resolveWeights(f, src);
  const config = w.config;
  try {
    validateConfig(config, { file: src.file });
  } catch (e) {
    if (!(e instanceof MlaDiffError)) throw e;
    const key = (e.where.field ?? 'model').split('.').slice(1);
    fail(src, 'invalid-config', ['model', ...key], e.message, e.hint);
  }
  const N = config.num_attention_heads;
  const requests = resolveRequests(f, config, src, w.seed, w.tokenizer);
  const cases: CaseSpec[] = f.cases.map((c, i) => {
    if (c.heads && c.tp) fail(src, 'invalid-value', ['cases', i], 'give either heads: or tp:, not both');
    if (c.tp) {
      const { size, rank } = c.tp;
      if (N % size !== 0) {
        fail(
          src,
          'invalid-value',
          ['cases', i, 'tp', 'size'],
          `tp size ${size} does not divide num_attention_heads ${N}`,
          `divisors of ${N}: ${[...Array(N).keys()]
            .map((k) => k + 1)
            .filter((d) => N % d === 0)
            .join(', ')}`,
        );
      }
      if (rank >= size) fail(src, 'invalid-value', ['cases', i, 'tp', 'rank'], `tp rank ${rank} must be < size ${size}`);
      const count = N / size;
      return {
        name: c.name,
        heads: { start: rank * count, count },
        label: `tp rank ${rank} of ${size}: heads ${rank * count}–${(rank + 1) * count - 1}`,
      };
    }
    const heads = c.heads ?? { start: 0, count: N };
    if (heads.start + heads.count > N) {
      fail(
        src,
        'invalid-value',
        ['cases', i, 'heads'],
        `heads ${heads.start}–${heads.start + heads.count - 1} exceed the model's ${N} heads`,
      );
    }
    return {
      name: c.name,
      heads,
      label: heads.count === N ? `all ${N} heads` : `heads ${heads.start}–${heads.start + heads.count - 1} of ${N}`,
    };
  });
  const seen = new Set<string>();
  cases.forEach((c, i) => {
    if (seen.has(c.name)) fail(src, 'invalid-value', ['cases', i, 'name'], `duplicate case name "${c.name}"`);
    seen.add(c.name);
  });
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
      ? { tokenizer: w.tokenizer()!.source }
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
