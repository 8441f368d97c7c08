import type { CaseResult, RunReport } from '../../trace';
import type { StepOutcome } from './steps';
import { caseOutcome, recordLine } from './steps';
import type { Attrs } from './xml';
import { xmlElement } from './xml';
import { weightsOutcomeOf } from '../../harness/compare/outcome';
import { judgeText } from './outcome-text';
import { promptTokensLine } from './tokens';

/**
 * JUnit XML for CI: one <testsuite> per scenario × case (name `scenario · case`), one <testcase>
 * per engine step (name `case step n`, classname the scenario), failing as src/surface/reports/steps.ts
 * says (divergence, or a missed `expect:`). The suite's time is the case's measured device-path
 * seconds; steps carry no time (it is not measured per step). A scenario with compare_weights:
 * adds a suite `scenario · weights`. Runs that gave no report become a suite with one <error>.
 */
export const JUNIT_MARKER = '<?xml version="1.0" encoding="UTF-8"?>\n<!-- mla-diff junit';

/** A scenario that produced no report (the CLI failed on it). */
export interface RunError {
  scenario: string;
  message: string;
}

interface Suite {
  xml: string;
  tests: number;
  failures: number;
  errors: number;
  time: number;
}

const secs = (x: number) => x.toFixed(3);
/** JUnit's timestamp: ISO 8601 without zone or fraction. */
const stamp = (iso: string) => iso.slice(0, 19);

function properties(r: RunReport, c: CaseResult | null): string {
  const e = r.scenario.expect;
  const faults = [...r.scenario.faults.mha.map((x) => `mha:${x}`), ...r.scenario.faults.mqa.map((x) => `mqa:${x}`)];
  const props: [string, string | undefined][] = [
    ['device', r.device.description],
    ['tool', `${r.tool.name} ${r.tool.version}`],
    ['scenario.file', r.scenario.file ?? undefined],
    ['preset', r.scenario.preset],
    ['case', c ? `${c.trace.name} (${c.trace.label})` : undefined],
    ['external', c?.trace.external ? JSON.stringify(c.trace.external) : undefined],
    ['faults', faults.length ? faults.join(', ') : undefined],
    ['expect', e ? JSON.stringify(e) : undefined],
    ['prompt.ids', r.scenario.tokens ? JSON.stringify(r.scenario.requests[0]?.ids ?? []) : undefined],
    ['prompt.tokens', promptTokensLine(r.scenario)],
    ['prompt.bos', r.scenario.bos],
    ['judge', judgeText(r)],
  ];
  return xmlElement(
    'properties',
    {},
    props.filter(([, v]) => v !== undefined).map(([name, value]) => xmlElement('property', { name, value })),
  );
}

function stepCase(r: RunReport, c: CaseResult, s: StepOutcome, raw: string): string {
  const pieces = s.pieces.map((p) => `${p.request} ${p.kind} tokens ${p.start}–${p.start + p.count - 1} via ${p.route}`).join('; ');
  const body = s.divergent.map((v) => recordLine(c, v)).join('\n');
  const first = s.divergent[0];
  const expectation = c.expectation ? [`expectation ${c.expectation.met ? 'met' : `not met: ${c.expectation.misses.join('; ')}`}`] : [];
  const out = [`pieces: ${pieces}`, s.message ?? 'agree', ...(s.message === raw ? [] : [`case verdict: ${raw}`]), ...expectation].join(
    '\n',
  );
  const children = [
    ...(s.failed
      ? [xmlElement('failure', { message: s.message ?? '', type: first?.verdict ?? 'expectation' }, body || (s.message ?? ''))]
      : []),
    xmlElement('system-out', {}, s.failed || !body ? out : `${out}\n${body}`),
  ];
  return xmlElement('testcase', { name: `${c.trace.name} step ${s.step}`, classname: r.scenario.name }, children);
}

function caseSuite(r: RunReport, c: CaseResult): Suite {
  const o = caseOutcome(r, c);
  const time = Object.values(c.trace.seconds).reduce((a, x) => a + (x ?? 0), 0);
  const failures = o.steps.filter((s) => s.failed).length;
  const attrs: Attrs = {
    name: `${r.scenario.name} · ${c.trace.name}`,
    tests: o.steps.length,
    failures,
    errors: 0,
    skipped: 0,
    time: secs(time),
    timestamp: stamp(r.created),
  };
  return {
    xml: xmlElement('testsuite', attrs, [properties(r, c), ...o.steps.map((s) => stepCase(r, c, s, o.raw))]),
    tests: o.steps.length,
    failures,
    errors: 0,
    time,
  };
}

function weightsSuite(r: RunReport): Suite | null {
  const w = r.weights;
  const wc = w?.comparison;
  if (!w || !wc) return null;
  const raw =
    wc.verdict === 'agree'
      ? `weights agree with ${w.compare?.label ?? 'the second source'}`
      : `weights differ from ${w.compare?.label ?? 'the second source'} at ${wc.firstWeight ?? 'no single weight'}${(
          ['mha', 'mqa'] as const
        )
          .filter((p) => wc.firstActivation[p])
          .map((p) => `; ${p} first moves at ${wc.firstActivation[p]!.stage}`)
          .join('')}`;
  const o = weightsOutcomeOf(r)!; // the one rule: src/harness/compare/outcome.ts
  const failed = o.outcome === 'fail';
  const message = o.misses.length ? `expectation not met (${o.misses.join('; ')}): ${raw}` : raw;
  const tc = xmlElement('testcase', { name: 'weights across sources', classname: r.scenario.name }, [
    ...(failed ? [xmlElement('failure', { message, type: 'weights' }, message)] : []),
    xmlElement('system-out', {}, raw),
  ]);
  const attrs: Attrs = {
    name: `${r.scenario.name} · weights`,
    tests: 1,
    failures: failed ? 1 : 0,
    errors: 0,
    skipped: 0,
    time: secs(r.seconds.weights),
    timestamp: stamp(r.created),
  };
  return {
    xml: xmlElement('testsuite', attrs, [properties(r, null), tc]),
    tests: 1,
    failures: failed ? 1 : 0,
    errors: 0,
    time: r.seconds.weights,
  };
}

function errorSuite(e: RunError): Suite {
  const tc = xmlElement('testcase', { name: 'run', classname: e.scenario }, [
    xmlElement('error', { message: e.message, type: 'no-report' }, e.message),
  ]);
  return {
    xml: xmlElement('testsuite', { name: e.scenario, tests: 1, failures: 0, errors: 1, skipped: 0, time: secs(0) }, [tc]),
    tests: 1,
    failures: 0,
    errors: 1,
    time: 0,
  };
}

/** The whole JUnit document for a set of runs (and runs that failed to report). */
export function renderJUnit(reports: readonly RunReport[], errors: readonly RunError[] = []): string {
  const suites = [
    ...reports.flatMap((r) => [...(weightsSuite(r) ? [weightsSuite(r)!] : []), ...r.cases.map((c) => caseSuite(r, c))]),
    ...errors.map(errorSuite),
  ];
  const sum = (f: (s: Suite) => number) => suites.reduce((a, s) => a + f(s), 0);
  const root = xmlElement(
    'testsuites',
    {
      name: 'mla-diff',
      tests: sum((s) => s.tests),
      failures: sum((s) => s.failures),
      errors: sum((s) => s.errors),
      time: secs(sum((s) => s.time)),
    },
    suites.map((s) => s.xml),
  );
  return `${JUNIT_MARKER} report -->\n${root}\n`;
}
