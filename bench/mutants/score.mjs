// Scores mla-diff against our own mutant set (examples/backends/mutants/): each mutant scenario runs
// through the built CLI (`mla-diff run X --format json`) and is scored on what its report says:
//   detected    the run diverges
//   localized   its first divergence is the stage (and piece) where the mutant's bug enters
//   attributed  the culprit there is `external`
//   origin      the origin mla-diff gives that record (replay results of path external): introduced
//   diagnosed   ≥ 1 likely cause; right: the top cause is one that names the bug (mutants.mjs `causes`), rightAny: one of them
// and the clean scenario for a false positive. Output: results.json (one entry per size: tiny, glm-5/K-heads) and results.md.
//
//   npm run build && node bench/mutants/score.mjs                  # tiny preset: scenarios/mutants/*.yaml
//   node bench/mutants/score.mjs --dims glm-5 [--heads 8]           # GLM-5 dims on a head slice (tp 64/heads, rank 0)
//   node bench/mutants/score.mjs --only latent-mean,scale-twice     # a subset (results not written)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { MUTANTS } from '../../examples/backends/mutants/mutants.mjs';
import { renderMarkdown } from './render.mjs';
import { BACKEND, PIECES, tinyScenarios, writeScenarios } from './scenarios.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = join(HERE, '..', '..');
const CLI = join(ROOT, 'dist', 'surface', 'cli', 'main.js');
const { values: flags } = parseArgs({
  options: { dims: { type: 'string', default: 'tiny' }, heads: { type: 'string', default: '8' }, only: { type: 'string' } },
});
if (!['tiny', 'glm-5'].includes(flags.dims)) throw new Error(`--dims tiny|glm-5, not ${flags.dims}`);
if (!existsSync(CLI)) throw new Error(`${relative(ROOT, CLI)} missing: npm run build first`);
const heads = Number(flags.heads);
if (flags.dims === 'glm-5' && !(Number.isInteger(heads) && heads > 0 && 64 % heads === 0)) throw new Error('--heads: a divisor of 64');
const only = flags.only ? flags.only.split(',') : null;
for (const n of only ?? []) if (!MUTANTS[n] && n !== 'clean') throw new Error(`--only: unknown mutant ${n}`);

/** The scenario files of this run: the committed tiny ones (checked against the generator), or GLM-5 ones in a temp dir. */
function scenarioFiles() {
  if (flags.dims === 'tiny') {
    const { files, stale } = tinyScenarios();
    if (stale.length)
      throw new Error(`${stale.map((f) => relative(ROOT, f)).join(', ')}: not what bench/mutants/scenarios.mjs writes: rerun it`);
    return { dir: null, files };
  }
  const dir = mkdtempSync(join(tmpdir(), 'mla-mutants-'));
  const tp = 64 / heads;
  return { dir, files: writeScenarios(dir, { dims: 'glm-5', command: `node ${BACKEND}`, tp: tp > 1 ? tp : null }) };
}

const same = (a, b) => a.step === b.step && a.request === b.request && a.stage === b.stage && (a.chunk ?? null) === (b.chunk ?? null);

/** The origin mla-diff gives the record `w`: introduced if any result there says so, else the results' common value. */
function originAt(result, w) {
  const rs = (result.replay?.results ?? []).filter((r) => same(r, w));
  if (!rs.length) return null;
  if (rs.some((r) => r.origin === 'introduced')) return 'introduced';
  return rs.every((r) => r.origin === rs[0].origin) ? rs[0].origin : 'undetermined';
}

function scoreOne(file) {
  const name = file
    .split('/')
    .pop()
    .replace(/\.yaml$/, '');
  const mutant = name === 'clean' ? null : name;
  const t0 = performance.now();
  const r = spawnSync(process.execPath, [CLI, 'run', file, '--format', 'json', '--no-expect'], {
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    cwd: ROOT,
  });
  const seconds = (performance.now() - t0) / 1000;
  let report;
  try {
    report = JSON.parse(r.stdout);
  } catch {
    return { mutant, error: `exit ${r.status}: ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`, seconds };
  }
  const c = report.cases[0];
  const f = c.comparison.firstDivergence;
  const first = f && { step: f.step, request: f.request, stage: f.stage, chunk: f.chunk ?? null, culprit: f.culprit, verdict: f.verdict };
  const causes = c.diagnosis.map((d) => `${d.cause}${d.matches ? ` (${d.matches})` : ''}`);
  const row = { mutant, exit: r.status, detected: report.verdict === 'diverge', first, relErr: f?.relErr ?? null, causes, seconds };
  if (!mutant) return row;
  const m = MUTANTS[mutant];
  const at = PIECES[m.piece];
  const origin = f && f.stage === m.enters ? originAt(c, f) : null;
  // the other divergent records of the first divergent piece, by origin (inherited is what a clean localization shows)
  const rest = c.comparison.stages.filter((v) => f && v.verdict !== 'ok' && v.step === f.step && v.request === f.request && !same(v, f));
  const restOrigins = {};
  for (const v of rest) restOrigins[originAt(c, v) ?? 'none'] = (restOrigins[originAt(c, v) ?? 'none'] ?? 0) + 1;
  return {
    ...row,
    enters: m.enters,
    localized: Boolean(f && f.stage === m.enters && f.step === at.step && f.request === at.request),
    attributed: f?.culprit === 'external',
    origin,
    originIntroduced: origin === 'introduced',
    restOrigins,
    diagnosed: causes.length > 0,
    rightCauses: m.causes,
    right: m.causes.length ? c.diagnosis.length > 0 && m.causes.includes(c.diagnosis[0].cause) : null,
    rightAny: m.causes.length ? c.diagnosis.some((d) => m.causes.includes(d.cause)) : null,
  };
}

const { dir, files } = scenarioFiles();
const chosen = files.filter(
  (f) =>
    !only ||
    only.includes(
      f
        .split('/')
        .pop()
        .replace(/\.yaml$/, ''),
    ),
);
const rows = [];
for (const file of chosen) {
  const row = scoreOne(file);
  rows.push(row);
  const mark = (b) => (b ? 'y' : b === null ? '-' : 'n');
  const f = row.first;
  console.error(
    `${(row.mutant ?? 'clean').padEnd(24)} ${row.error ?? (f ? `${f.stage}@${f.step}/${f.request} (${f.culprit})` : 'agree')}` +
      (row.mutant && !row.error
        ? `  det ${mark(row.detected)} loc ${mark(row.localized)} att ${mark(row.attributed)} origin ${row.origin ?? '-'} ` +
          `diag ${row.causes.join('; ') || '-'} right ${mark(row.right)}`
        : '') +
      `  ${row.seconds.toFixed(1)} s`,
  );
}
if (dir) rmSync(dir, { recursive: true, force: true });

const muts = rows.filter((r) => r.mutant);
const count = (k) => muts.filter((r) => r[k] === true).length;
const entry = {
  command: `node bench/mutants/score.mjs --dims ${flags.dims}${flags.dims === 'glm-5' ? ` --heads ${heads}` : ''}`,
  dims: flags.dims,
  heads: flags.dims === 'glm-5' ? { count: heads, total: 64 } : { count: 4, total: 4 },
  created: new Date().toISOString(),
  commit: spawnSync('git', ['rev-parse', '--short', 'HEAD'], { cwd: ROOT, encoding: 'utf8' }).stdout.trim(),
  host: `${cpus().length} cores, Node.js ${process.version}`,
  totals: {
    mutants: muts.length,
    detected: count('detected'),
    localized: count('localized'),
    attributed: count('attributed'),
    origin: count('originIntroduced'),
    diagnosed: count('diagnosed'),
    right: count('right'),
    rightAny: count('rightAny'),
    rightPossible: muts.filter((r) => r.right !== null).length,
    cleanFalsePositive: rows.some((r) => !r.mutant && r.detected),
    errors: rows.filter((r) => r.error).length,
  },
  seconds: rows.reduce((s, r) => s + r.seconds, 0),
  rows,
};
console.error(JSON.stringify(entry.totals));
if (only) process.exit(0);
const jsonFile = join(HERE, 'results.json');
const all = existsSync(jsonFile) ? JSON.parse(readFileSync(jsonFile, 'utf8')) : { format: 'mla-diff/mutant-scores', version: 1, runs: {} };
all.runs[flags.dims === 'tiny' ? 'tiny' : `glm-5/${heads}-heads`] = entry;
writeFileSync(jsonFile, `${JSON.stringify(all, null, 2)}\n`);
writeFileSync(join(HERE, 'results.md'), renderMarkdown(all));
console.error(`wrote ${relative(ROOT, jsonFile)} and results.md`);
