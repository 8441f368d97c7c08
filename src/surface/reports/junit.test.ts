import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser, XMLValidator } from 'fast-xml-parser';
import type { RunReport } from '../../harness/run/trace';
import { checkExpectation } from '../../harness/compare/expect';
import { caseResult, runReport } from '../../test-utils/reports';
import { piece } from '../../test-utils/traces';
import { JUNIT_MARKER, renderJUnit } from './junit';

const load = (name: string) => JSON.parse(readFileSync(join(__dirname, '../../../fixtures', name), 'utf8')) as RunReport;
const LSE = load('tiny-schedule-lse-layout.report.json');
const SMOKE = load('tiny-smoke.report.json');
const SCALE = load('fault-mqa-scale-576.tp0.report.json');

interface Tc {
  '@_name': string;
  '@_classname': string;
  failure?: { '@_message': string; '@_type': string; '#text': string };
  error?: { '@_message': string };
  'system-out': string;
}
interface Ts {
  '@_name': string;
  '@_tests': string;
  '@_failures': string;
  '@_errors': string;
  properties?: { property: { '@_name': string; '@_value': string }[] };
  testcase: Tc[];
}
interface Doc {
  testsuites: { '@_tests': string; '@_failures': string; '@_errors': string; testsuite: Ts[] };
}

/** Checks well-formedness with fast-xml-parser's validator, then parses (testsuite/testcase/property always arrays). */
function parse(xml: string): Doc {
  expect(XMLValidator.validate(xml)).toBe(true);
  const p = new XMLParser({ ignoreAttributes: false, isArray: (name) => ['testsuite', 'testcase', 'property'].includes(name) });
  return p.parse(xml) as Doc;
}
const failing = (ts: Ts) => ts.testcase.filter((t) => t.failure).map((t) => t['@_name']);
/** The saved report with its expect: removed: a divergence is then a failure. */
const noExpect = (r: RunReport): RunReport => ({
  ...r,
  scenario: { ...r.scenario, expect: undefined },
  cases: r.cases.map((c) => ({ ...c, expectation: undefined })),
});

/** A synthetic case over two steps whose logits diverge in step 1 only (the mqa path). */
function twoSteps(): RunReport {
  const c = caseResult({
    name: 'all-heads',
    pieces: [piece(0, 'a<&>"x"'), piece(1, 'a<&>"x"')],
    rel: (w) => (w.step === 1 && w.stage === 'logits' ? { engine: 0.3, mqa: 0.3, mha: 1e-7 } : undefined),
  });
  return runReport([c], { scenario: { ...runReport([]).scenario, name: 'syn & <"quoted">' } });
}

describe('renderJUnit', () => {
  it('starts with its marker (so --junit may overwrite what it wrote) and counts every step of every case', () => {
    const xml = renderJUnit([SMOKE, LSE, SCALE]);
    expect(xml.startsWith(JUNIT_MARKER)).toBe(true);
    const doc = parse(xml);
    const suites = doc.testsuites.testsuite;
    expect(suites.map((s) => s['@_name'])).toEqual([
      'tiny-smoke · all-heads',
      'tiny-smoke · tp1-of-2',
      'tiny-schedule-lse-layout · full',
      'fault-mqa-scale-576 · tp0-of-8',
    ]);
    const steps = (r: RunReport) => r.cases.map((c) => new Set(c.trace.pieces.filter((p) => p.kind !== 'cached').map((p) => p.step)).size);
    expect(suites.map((s) => Number(s['@_tests']))).toEqual([...steps(SMOKE), ...steps(LSE), ...steps(SCALE)]);
    expect(Number(doc.testsuites['@_tests'])).toBe(suites.reduce((a, s) => a + s.testcase.length, 0));
    expect(suites[2]!.testcase.map((t) => t['@_name'])).toEqual(['full step 0', 'full step 1', 'full step 2']);
    expect(suites[2]!.testcase.every((t) => t['@_classname'] === 'tiny-schedule-lse-layout')).toBe(true);
  });

  it('carries device, tool version and scenario file as properties', () => {
    const props = parse(renderJUnit([LSE])).testsuites.testsuite[0]!.properties!.property;
    const get = (n: string) => props.find((p) => p['@_name'] === n)?.['@_value'];
    expect(get('device')).toBe(LSE.device.description);
    expect(get('tool')).toBe(`mla-diff ${LSE.tool.version}`);
    expect(get('scenario.file')).toBe(LSE.scenario.file);
  });

  it('a divergence the scenario declares and meets passes, with the raw verdict in system-out', () => {
    const doc = parse(renderJUnit([LSE, SCALE]));
    expect(Number(doc.testsuites['@_failures'])).toBe(0);
    const step1 = doc.testsuites.testsuite[0]!.testcase[1]!;
    expect(step1['system-out']).toContain('first divergence at context_lse[chunk 0] (step 1, request chat): out-of-tolerance, culprit mha');
    expect(step1['system-out']).toContain('expectation met');
  });

  it('without expect:, exactly the divergent steps fail, with stage, culprit, origin and likely cause', () => {
    const doc = parse(renderJUnit([noExpect(LSE), noExpect(SMOKE)]));
    const [lse, ...smoke] = doc.testsuites.testsuite;
    expect(failing(lse!)).toEqual(['full step 1']);
    expect(smoke.flatMap(failing)).toEqual([]);
    const f = lse!.testcase[1]!.failure!;
    expect(f['@_type']).toBe('out-of-tolerance');
    expect(f['@_message']).toMatch(
      new RegExp(
        /^first divergence at context_lse\[chunk 0\] \(step 1, request chat\): /.source +
          /out-of-tolerance, culprit mha; first introduced at context_lse/.source,
      ),
    );
    expect(f['@_message']).toContain(`likely cause: ${LSE.cases[0]!.diagnosis[0]!.summary}`);
    const divergent = LSE.cases[0]!.comparison.stages.filter((v) => v.verdict !== 'ok');
    expect(f['#text'].split('\n')).toHaveLength(divergent.length);
    expect(f['#text']).toMatch(
      /^lse \(step 1, request chat\): invariant-violated, rel err .*lse_bounds violated on mha \(3\), culprit mha, inherited$/m,
    );
  });

  it('a missed expectation fails the step where it was decided, naming the misses', () => {
    const r = noExpect(LSE);
    const expect0 = { outcome: 'diverge' as const, first_divergence: 'q_pe' as const, culprit: 'mqa' as const };
    const wrong: RunReport = {
      ...r,
      scenario: { ...r.scenario, expect: expect0 },
      cases: r.cases.map((c) => ({ ...c, expectation: checkExpectation(expect0, c.comparison) })),
    };
    const ts = parse(renderJUnit([wrong])).testsuites.testsuite[0]!;
    expect(failing(ts)).toEqual(['full step 1']);
    expect(ts.testcase[1]!.failure!['@_message']).toMatch(
      /^expectation not met \(first divergence context_lse, expected q_pe; culprit mha, expected mqa\): first divergence at context_lse/,
    );
  });

  it('a declared divergence that does not happen fails the declared step', () => {
    const e = { outcome: 'diverge' as const, step: 0 };
    const r: RunReport = {
      ...SMOKE,
      scenario: { ...SMOKE.scenario, expect: e },
      cases: SMOKE.cases.map((c) => ({ ...c, expectation: checkExpectation(e, c.comparison) })),
    };
    const ts = parse(renderJUnit([r])).testsuites.testsuite[0]!;
    expect(failing(ts)).toEqual(['all-heads step 0']);
    expect(ts.testcase[0]!.failure!['@_message']).toContain('outcome agree, expected diverge');
  });

  it('escapes markup in names and messages (synthetic two-step case), failing only step 1', () => {
    const xml = renderJUnit([twoSteps()], [{ scenario: 'broken.yaml', message: "exit 2: <bad> & 'odd'\u0001" }]);
    expect(xml).toContain('syn &amp; &lt;&quot;quoted&quot;&gt;');
    const doc = parse(xml);
    const [ts, err] = doc.testsuites.testsuite;
    // The parser decodes entities: what was written round-trips.
    expect(ts!['@_name']).toBe('syn & <"quoted"> · all-heads');
    expect(failing(ts!)).toEqual(['all-heads step 1']);
    expect(ts!.testcase[1]!.failure!['@_message']).toMatch(
      /^first divergence at logits \(step 1, request a<&>"x"\): out-of-tolerance, culprit mqa/,
    );
    expect(Number(err!['@_errors'])).toBe(1);
    expect(Number(doc.testsuites['@_errors'])).toBe(1);
    expect(err!.testcase[0]!.error!['@_message']).toBe("exit 2: <bad> & 'odd'\uFFFD");
  });
});
