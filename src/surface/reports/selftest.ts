import Table from 'cli-table3';
import type { FaultRates, SelftestReport, SelftestScore } from '../../trace';
import { fitText } from './fit';
import type { Style } from './style';

const pct = (n: number, of: number) => (of ? `${((100 * n) / of).toFixed(0)} %` : '—');

/** One tolerance mode: rates per fault, the clean runs, the misses, the verdict. */
function renderScore(r: SelftestScore, s: Style): string[] {
  const t = new Table({
    head: ['fault', 'runs', 'detected', 'localized', 'attributed', 'diagnosed', 'origin'].map((h) => s.bold(h)),
    style: { head: [], border: [], compact: true },
  });
  const row = (name: string, x: FaultRates) => {
    const all = x.detected === x.runs && x.localized === x.runs && x.attributed === x.runs;
    const cell = (n: number) => (all ? s.ok(pct(n, x.runs)) : n === x.runs ? pct(n, x.runs) : s.bad(pct(n, x.runs)));
    t.push([
      name,
      String(x.runs),
      cell(x.detected),
      cell(x.localized),
      cell(x.attributed),
      x.diagnosed === x.runs ? pct(x.diagnosed, x.runs) : s.warn(pct(x.diagnosed, x.runs)),
      x.origin === x.runs ? pct(x.origin, x.runs) : s.warn(pct(x.origin, x.runs)),
    ]);
  };
  for (const [name, x] of Object.entries(r.perFault)) row(name, x);
  row(s.bold('all faults'), r.total);
  const fp = r.clean.falsePositives;
  t.push([
    'clean runs (must agree)',
    String(r.clean.runs),
    fp ? s.bad(`${fp} false positive(s)`) : s.ok('0 false positives'),
    '',
    '',
    '',
    '',
  ]);
  const misses = r.rows.filter((x) => (x.fault ? !(x.detected && x.localized && x.attributed) : x.detected));
  return [
    t.toString(),
    ...misses.map((m) =>
      s.bad(
        fitText(
          `miss: ${m.name}: ` +
            (m.first
              ? `first divergence ${m.first.stage} (culprit ${m.first.culprit}, step ${m.first.step}, ${m.first.request})`
              : 'no divergence'),
          s,
        ),
      ),
    ),
    ...r.rows
      .filter((x) => x.fault && x.detected && !x.diagnosed)
      .map((m) => s.warn(fitText(`undiagnosed: ${m.name}: likely cause ${m.cause ?? 'none'}`, s))),
    ...r.rows
      .filter((x) => x.fault && x.detected && !x.origin)
      .map((m) => s.warn(fitText(`origin missed: ${m.name}: the stage replay did not mark only the fault's entry stages introduced`, s))),
    r.goalMet
      ? s.ok(`PASS: every fault detected at the stage it enters and blamed on its path; no clean run diverged (${r.seconds.toFixed(1)} s)`)
      : s.bad(`FAIL: ${misses.length} miss(es) (${r.seconds.toFixed(1)} s)`),
  ];
}

/** `mla-diff selftest`: the default tolerances, then (when run) the same plan under `{floor: k}`. */
export function renderSelftest(r: SelftestReport, s: Style): string {
  const lines = [
    s.bold(`mla-diff selftest · seeds ${r.options.seeds.join(', ')} · shapes ${r.options.shapes.join(', ')} · ${r.device.description}`),
    ...(r.floor ? [s.bold('tolerance: default (rel 1e-5 for fp32)')] : []),
    ...renderScore(r, s),
    ...(r.floor
      ? [
          '',
          s.bold(`tolerance: ${r.floor.tolerance} × each record's noise floor (cold path on; docs/noise-floors.md)`),
          ...renderScore(r.floor, s),
        ]
      : []),
    fitText(
      'diagnosed: the first likely cause names the planted fault; ' +
        "origin: the stage replay marks the fault's entry stages introduced and the rest of its piece inherited " +
        '(both reported, not part of the pass/fail goal)',
      s,
    ),
  ];
  return lines.join('\n');
}
