import type { FaultDef } from '../../core/faults/catalogue';
import { FAULT_NAMES, FAULTS } from '../../core/faults/catalogue';
import { originOf } from '../compare/origin';
import type { CaseResult, FaultRates, SelftestReport, SelftestRow, SelftestScore } from '../../trace';
import { runScenario } from '../run/run-scenario';
import type { Log, Runtime } from '../../devices/runtime';
import { parseScenario } from '../scenario/load';
import type { Progress } from '../run/progress';
import { NO_PROGRESS } from '../run/progress';
import type { SelftestOptions } from './cases';
import { selftestCases } from './cases';

/** The selftest report and its rows and scores: src/trace/report.ts. */
export type { FaultRates, SelftestReport, SelftestRow, SelftestScore } from '../../trace';

/**
 * Runs every case of the plan on `rt` and scores it; with `floorK`, runs the plan again judged by k × the noise floor.
 * `progress` hears of each planted run before it starts (phase selftest: runs done of both blocks' runs).
 */
export async function runSelftest(
  rt: Runtime,
  options: SelftestOptions,
  log: Log = () => {},
  floorK?: number,
  progress: Progress = NO_PROGRESS,
): Promise<SelftestReport> {
  const { floor: _, ...plain } = options;
  const blocks = floorK === undefined ? 1 : 2;
  const runs = selftestCases(plain).length;
  const tick = (block: number) => (done: number, label: string) =>
    progress({ phase: 'selftest', done: block * runs + done, total: blocks * runs, label });
  const base = await score(rt, plain, log, tick(0));
  const floor = floorK === undefined ? undefined : await score(rt, { ...plain, floor: floorK }, log, tick(1));
  progress({ phase: 'selftest', done: blocks * runs, total: blocks * runs, label: 'scored' });
  return { format: 'mla-diff/selftest', version: 1, device: rt.device, options: plain, ...base, ...(floor ? { floor } : {}) };
}

async function score(rt: Runtime, options: SelftestOptions, log: Log, tick: (done: number, label: string) => void): Promise<SelftestScore> {
  const t0 = performance.now();
  const tolerance = options.floor === undefined ? 'default' : `floor ${options.floor}`;
  const rows: SelftestRow[] = [];
  for (const c of selftestCases(options)) {
    tick(rows.length, `${tolerance} · ${c.name}`);
    const t = performance.now();
    const r = await runScenario(parseScenario(c.yaml, `<selftest ${c.name}>`), { runtime: rt, toolVersion: 'selftest', worker: false });
    const f = r.cases[0]!.comparison.firstDivergence;
    const first = f && { step: f.step, request: f.request, stage: f.stage, culprit: f.culprit };
    const detected = r.verdict === 'diverge';
    const top = r.cases[0]!.diagnosis[0];
    const origin = Boolean(c.fault && f && originScored(r.cases[0]!, FAULTS[c.fault.fault]));
    rows.push({
      name: c.name,
      fault: c.fault?.fault ?? null,
      path: c.fault?.path ?? null,
      detected,
      localized: Boolean(c.expect && first?.stage === c.expect.stage),
      attributed: Boolean(c.expect && first?.culprit === c.expect.culprit),
      diagnosed: Boolean(c.fault && top?.matches === c.fault.fault),
      origin,
      cause: top ? `${top.cause}${top.matches ? ` (${top.matches})` : ''}` : null,
      first,
      seconds: (performance.now() - t) / 1000,
    });
    log(`${tolerance}: ${c.name}: ${detected ? `diverge at ${first?.stage} (${first?.culprit})` : 'agree'}`);
  }
  const rate = (rs: SelftestRow[]): FaultRates => ({
    runs: rs.length,
    detected: rs.filter((x) => x.detected).length,
    localized: rs.filter((x) => x.localized).length,
    attributed: rs.filter((x) => x.attributed).length,
    diagnosed: rs.filter((x) => x.diagnosed).length,
    origin: rs.filter((x) => x.origin).length,
  });
  const faultRows = rows.filter((x) => x.fault);
  const perFault = Object.fromEntries(FAULT_NAMES.map((n) => [n, rate(faultRows.filter((x) => x.fault === n))]));
  const total = rate(faultRows);
  const cleanRows = rows.filter((x) => !x.fault);
  const clean = { runs: cleanRows.length, falsePositives: cleanRows.filter((x) => x.detected).length };
  const goalMet =
    total.detected === total.runs && total.localized === total.runs && total.attributed === total.runs && clean.falsePositives === 0;
  return { tolerance, rows, perFault, total, clean, goalMet, seconds: (performance.now() - t0) / 1000 };
}

/** The origin score of a fault run: its entry stages introduced, every other divergent record of the first divergent piece inherited. */
function originScored(c: CaseResult, def: FaultDef): boolean {
  const f = c.comparison.firstDivergence;
  if (!f || !c.replay) return false;
  const entry = new Set([def.enters, ...(def.alsoEnters ?? [])]);
  const piece = c.comparison.stages.filter((v) => v.verdict !== 'ok' && v.step === f.step && v.request === f.request);
  return (
    f.stage === def.enters &&
    piece.every((v) => {
      const o = originOf(c.replay, v);
      return v.stage === f.stage && v.chunk === f.chunk
        ? o === 'introduced'
        : entry.has(v.stage)
          ? o !== null && o !== 'undetermined' && o !== 'not-replayed'
          : o === 'inherited';
    })
  );
}
