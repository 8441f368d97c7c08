import Table from 'cli-table3';
import type { SweepPoint, SweepReport } from '../../harness/sweep/report';
import { shardText } from '../../harness/sweep/shard';
import { err } from './format';
import type { Style } from './style';

const expectText = (p: SweepPoint): string =>
  p.expect
    ? `${p.expect.outcome}${p.expect.first_divergence ? ` at ${p.expect.first_divergence}` : ''}` +
      `${p.expect.culprit ? ` (${p.expect.culprit})` : ''}`
    : '—';

function foundText(p: SweepPoint, s: Style): string {
  if (p.error) return s.bad(`error (exit ${p.error.exit})`);
  const f = p.firstDivergence;
  if (!f) return s.ok('agree');
  return (
    `${s.warn('diverge')} at ${f.stage}${f.chunk === undefined ? '' : `#${f.chunk}`} (${f.culprit}) ` +
    `${err(f.relErr)} · step ${f.step} ${f.request}`
  );
}

/** One line per finished point, for the stderr progress. */
export const progressLine = (p: SweepPoint, done: number, total: number): string =>
  `[${done}/${total}] ${p.id}: ` +
  (p.error
    ? `error: ${p.error.message}`
    : p.firstDivergence
      ? `diverge at ${p.firstDivergence.stage} (${p.firstDivergence.culprit})`
      : 'agree') +
  `${p.met ? '' : ' — expectation NOT met'} (${p.seconds.toFixed(1)} s)`;

/** `mla-diff sweep` / `merge`: one row per point, its misses, the verdict. */
export function renderSweep(r: SweepReport, s: Style): string {
  const scope = r.merged
    ? `merged from shards ${r.merged.map(shardText).join(', ')}`
    : r.shard
      ? `shard ${shardText(r.shard)}`
      : 'all points';
  const t = new Table({
    head: ['#', 'point', 'device', 'found', 'expected', 'met', 's'].map((h) => s.bold(h)),
    style: { head: [], border: [], compact: true },
  });
  for (const p of r.points) {
    t.push([
      String(p.index),
      p.id,
      p.device ?? '—',
      foundText(p, s),
      expectText(p),
      p.met ? s.ok('yes') : s.bad('no'),
      p.seconds.toFixed(1),
    ]);
  }
  const { points, met, unmet, errors } = r.summary;
  const failed = r.points.filter((p) => !p.met);
  return [
    s.bold(`mla-diff sweep ${r.matrix.name} · ${scope} · ${points} of ${r.matrix.points} points · matrix ${r.matrix.hash.slice(0, 12)}`),
    t.toString(),
    ...failed.map((p) => s.bad(`not met: ${p.id}: ${p.misses.join('; ')}`)),
    ...(r.missing.length ? [s.warn(`missing: ${r.missing.length} point(s): ${r.missing.join(' ')}`)] : []),
    met === points && !r.missing.length
      ? s.ok(`PASS: all ${points} points met their expectation (${r.seconds.toFixed(1)} s)`)
      : s.bad(
          `FAIL: ${unmet} point(s) missed their expectation, ${errors} failed to run` +
            `${r.missing.length ? `, ${r.missing.length} missing` : ''} (${r.seconds.toFixed(1)} s)`,
        ),
  ].join('\n');
}
