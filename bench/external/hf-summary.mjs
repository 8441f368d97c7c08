// Summarises bench/external/hf-gpu.sh's results (issue 21 acceptance): per scenario the verdict, whether its declared
// outcome was met, the third party's worst error against float64 over its bound, the first divergence with its culprit,
// origin and likely causes, and the wall time. Writes bench/external/hf-results.{json,md}.
// Usage: node bench/external/hf-summary.mjs <dir holding results.tar.xz>
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const dir = process.argv[2];
if (!dir) throw new Error('usage: node bench/external/hf-summary.mjs <dir holding results.tar.xz>');
const tmp = mkdtempSync(join(tmpdir(), 'hf-'));
execFileSync('tar', ['-C', tmp, '-xJf', join(dir, 'results.tar.xz')]);
const versions = readFileSync(join(tmp, 'versions.txt'), 'utf8').trim().split('\n');
const times = Object.fromEntries(
  readFileSync(join(tmp, 'summary.txt'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(': ')),
);
const finite = (x) => typeof x === 'number' && Number.isFinite(x);
const f = (x) => (finite(x) ? (Math.abs(x) >= 0.01 && Math.abs(x) < 1e4 ? x.toPrecision(3) : x.toExponential(2)) : String(x));
const rows = [];
for (const file of readdirSync(join(tmp, 'runs')).filter((x) => x.endsWith('.json'))) {
  const name = file.replace('.json', '');
  let r;
  try {
    r = JSON.parse(readFileSync(join(tmp, 'runs', file), 'utf8'));
  } catch {
    rows.push({
      name,
      error: readFileSync(join(tmp, 'runs', `${name}.log`), 'utf8')
        .trim()
        .split('\n')
        .slice(-3)
        .join(' / '),
      time: times[name],
    });
    continue;
  }
  const c = r.cases[0];
  let worst = { ratio: 0 };
  for (const v of c.comparison.stages) {
    const p = v.pairs.find((x) => [x.a, x.b].includes('external') && [x.a, x.b].includes('reference'));
    if (p && finite(p.relErr) && finite(v.externalTolerance) && p.relErr / v.externalTolerance > worst.ratio)
      worst = { ratio: p.relErr / v.externalTolerance, stage: v.stage, err: p.relErr, bound: v.externalTolerance };
  }
  const d = c.comparison.firstDivergence;
  const origin = c.replay?.results?.find((x) => x.stage === d?.stage && x.step === d?.step && x.request === d?.request)?.origin ?? null;
  rows.push({
    name,
    verdict: r.verdict,
    met: c.expectation?.met ?? null,
    device: c.trace.external?.device ?? null,
    tokens: c.trace.pieces.reduce((n, p) => n + p.count, 0),
    worst,
    first: d ? { stage: d.stage, culprit: d.culprit, relErr: d.relErr, origin } : null,
    causes: (c.diagnosis ?? []).map((x) => x.cause),
    seconds: r.seconds,
    time: times[name],
  });
}
const reference = readdirSync(join(tmp, 'runs'))
  .filter((x) => /^reference-\d+\.jsonl$/.test(x))
  .map((x) =>
    JSON.parse(
      readFileSync(join(tmp, 'runs', x), 'utf8')
        .trim()
        .split('\n')
        .pop(),
    ),
  )
  .sort((a, b) => a.T - b.T);
writeFileSync('bench/external/hf-results.json', JSON.stringify({ versions, rows, reference }, null, 1) + '\n');
const md = [
  "# transformers' MLA attention through the external protocol on the H200 (issue 21)",
  '',
  `\`bash bench/external/hf-gpu.sh\` on the GPU machine (${versions.join('; ')}), summarised by`,
  '`node bench/external/hf-summary.mjs`. Our paths on webgpu; the third party judged against the float64 reference at',
  'k × its floor. "worst" is the third party\'s largest error over its bound across every record it wrote (< 1 passes).',
  '',
  '| scenario | tokens | verdict | expectation | worst err / bound | at | first divergence | culprit | origin | likely causes | wall |',
  '|---|---|---|---|---|---|---|---|---|---|---|',
  ...rows.map((x) =>
    x.error
      ? `| ${x.name} | | error | | | | ${x.error} | | | | ${x.time} |`
      : `| ${x.name} | ${x.tokens} | ${x.verdict} | ${x.met ? 'met' : 'NOT met'} | ${f(x.worst.ratio)} | ${x.worst.stage ?? ''} | ` +
        `${x.first ? `${x.first.stage} (${f(x.first.relErr)})` : '—'} | ${x.first?.culprit ?? ''} | ${x.first?.origin ?? ''} | ` +
        `${x.causes.join(', ')} | ${x.time} |`,
  ),
  '',
  ...(reference.length
    ? [
        '## The float64 reference alone on this machine (bench/reference/one.mjs, GLM-5, 64 heads, one prefill)',
        '',
        '| T | GEMM | TMAC | seconds | GMAC/s | estimate s | peak RSS GiB |',
        '|---|---|---|---|---|---|---|',
        ...reference.map(
          (x) => `| ${x.T} | ${x.gemm} | ${f(x.tmac)} | ${f(x.seconds)} | ${f(x.gmacPerS)} | ${f(x.estimate)} | ${f(x.rssGiB)} |`,
        ),
        '',
      ]
    : []),
];
writeFileSync('bench/external/hf-results.md', md.join('\n'));
console.log(md.join('\n'));
