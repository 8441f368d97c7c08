import { createHash } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { fieldPath, MlaDiffError } from '../../errors';
import { readTextFile } from '../../formats/text-file';
import { issueError } from '../scenario/issue-error';
import { parseScenarioSource } from '../scenario/load';
import type { Scenario } from '../scenario/scenario';
import { YamlSource } from '../scenario/yaml-source';
import type { PointSpec } from './expand';
import { AXIS_FIELDS, expandMatrix } from './expand';
import { PointSource } from './point-source';
import type { AxisName, MatrixFile } from './schema';
import { AXIS_NAMES, matrixSchema } from './schema';

/** A loaded sweep matrix: every point expanded and validated as a scenario. */
export interface Matrix {
  file: string;
  name: string;
  description?: string;
  /** sha256 of the expanded points: shards of one matrix carry the same hash. */
  hash: string;
  points: PointSpec[];
  /** Where the base scenario's lines are: the matrix file under `base:`, or the base_file. */
  base: BaseSource;
}

interface BaseSource {
  text: string;
  file: string;
  prefix: PropertyKey[];
}

/** Points a matrix may expand to, and points × the base's characters (each point is a copy of the base, hashed as JSON). */
export const MATRIX_MAX = { points: 4096, pointChars: 2 ** 25 };

/** Parses the matrix; a fault entry's issue inside the `none | {path, fault}` union is reported as the mapping's own. */
function parseMatrix(src: YamlSource): MatrixFile {
  const raw = src.toJS();
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new MlaDiffError('invalid-type', 'a sweep matrix must be a YAML mapping (format:, version:, name:, base:, axes:)', {
      file: src.file,
      line: 1,
    });
  }
  const parsed = matrixSchema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  let issue = issues.find((i) => i.code === 'unrecognized_keys') ?? issues[0]!;
  if (issue.code === 'invalid_union') {
    const branch = issue.errors.find((b) => b.every((i) => i.code !== 'invalid_value' || i.path.length > 0)) ?? issue.errors[0]!;
    const inner = branch.find((i) => i.code === 'unrecognized_keys') ?? branch[0];
    if (inner) issue = { ...inner, path: [...issue.path, ...inner.path] } as typeof issue;
  }
  throw issueError(src, issue, matrixSchema);
}

/** An expanded point that is not a valid scenario: reported at the axis that wrote the field, else in the base. */
function pointError(e: MlaDiffError, p: PointSpec, src: YamlSource): MlaDiffError {
  const field = e.where.field ?? '';
  const axis = (Object.keys(p.axes) as AxisName[]).find((a) =>
    AXIS_FIELDS[a].some((f) => field === f || field.startsWith(`${f}.`) || field.startsWith(`${f}[`)),
  );
  const where = axis ? { ...src.locate(['axes', axis]), file: src.file, field: fieldPath(['axes', axis]) } : e.where;
  const at = where as { file?: string; line?: number; column?: number; field?: string };
  return new MlaDiffError(e.code, `point ${p.id}: ${axis && field ? `${field}: ` : ''}${e.message}`, at, e.hint);
}

/** The cross product's size, from the axes' lengths, before any point is built: limit-exceeded at axes. */
function checkPointCount(m: MatrixFile, baseChars: number, src: YamlSource): void {
  const lengths = AXIS_NAMES.map((a) => [a, (m.axes[a] as unknown[] | undefined)?.length ?? 1] as const);
  const points = lengths.reduce((n, [, l]) => n * l, 1);
  const longest = lengths.reduce((a, b) => (b[1] > a[1] ? b : a))[0];
  const over = points > MATRIX_MAX.points ? MATRIX_MAX.points : points * baseChars > MATRIX_MAX.pointChars ? MATRIX_MAX.pointChars : 0;
  if (!over) return;
  const path = m.axes[longest] === undefined ? ['axes'] : ['axes', longest];
  throw new MlaDiffError(
    'limit-exceeded',
    over === MATRIX_MAX.points
      ? `the axes give ${points} points (${lengths
          .filter(([, l]) => l > 1)
          .map(([a, l]) => `${a} ${l}`)
          .join(' × ')}), over the limit of ${over}`
      : `${points} points of a ${baseChars}-character base are ${points * baseChars} characters, over the limit of ${over}`,
    { ...src.locate(path), file: src.file, field: fieldPath(path) },
    `at most ${MATRIX_MAX.points} points (and ${MATRIX_MAX.pointChars} characters of points): split the matrix into several`,
  );
}

/** `validate: false` skips checking every point as a scenario (a worker checks only its own). */
export function loadMatrix(file: string, opts: { validate: boolean } = { validate: true }): Matrix {
  return parseMatrixText(readTextFile(file, 'a sweep matrix'), file, opts);
}

export function parseMatrixText(text: string, file = '<matrix>', opts: { validate: boolean } = { validate: true }): Matrix {
  const src = new YamlSource(text, file);
  const m = parseMatrix(src);
  const fail = (path: PropertyKey[], message: string): never => {
    throw new MlaDiffError('invalid-value', message, { ...src.locate(path), file, field: fieldPath(path) });
  };
  if ((m.base === undefined) === (m.base_file === undefined))
    fail(m.base ? ['base_file'] : [], 'give the base scenario as base: (inline) or base_file:, exactly one');
  let baseSrc: BaseSource & { raw: Record<string, unknown>; parsed: YamlSource };
  if (m.base) {
    baseSrc = { text, file, prefix: ['base'], raw: m.base, parsed: src };
  } else {
    const path = file.startsWith('<') ? resolve(m.base_file!) : resolve(dirname(file), m.base_file!);
    const baseText = readTextFile(path, 'a base scenario');
    const parsed = new YamlSource(baseText, path);
    const raw = parsed.toJS();
    if (raw === null || typeof raw !== 'object' || Array.isArray(raw))
      throw new MlaDiffError('invalid-type', 'a scenario must be a YAML mapping', { file: path, line: 1 });
    baseSrc = { text: baseText, file: path, prefix: [], raw: raw as Record<string, unknown>, parsed };
  }
  checkPointCount(m, baseSrc.text.length, src);
  const points = expandMatrix(m, baseSrc.raw, (axis, msg) => fail(['axes', axis], msg));
  for (const p of opts.validate ? points : []) {
    try {
      parseScenarioSource(new PointSource(baseSrc.text, baseSrc.file, baseSrc.prefix, p.scenario, baseSrc.parsed));
    } catch (e) {
      throw e instanceof MlaDiffError ? pointError(e, p, src) : e;
    }
  }
  const hash = createHash('sha256')
    .update(JSON.stringify([m.name, points.map((p) => [p.id, p.device, p.scenario])]))
    .digest('hex');
  return {
    file,
    name: m.name,
    ...(m.description ? { description: m.description } : {}),
    hash,
    points,
    base: { text: baseSrc.text, file: baseSrc.file, prefix: baseSrc.prefix },
  };
}

function pointScenario(base: BaseSource, p: PointSpec): Scenario {
  return parseScenarioSource(new PointSource(base.text, base.file, base.prefix, p.scenario));
}

/** The validated scenario of one point (relative paths resolve against the base's file). */
export function scenarioOf(m: Matrix, index: number): Scenario {
  const p = m.points[index];
  if (!p) throw new MlaDiffError('invalid-value', `no point ${index} (the matrix has ${m.points.length})`, { file: m.file });
  return pointScenario(m.base, p);
}
