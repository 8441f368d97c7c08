import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import type { RunReport } from '../../harness/run/trace';
import { caseResult, runReport } from '../../test-utils/reports';
import { piece } from '../../test-utils/traces';
import { renderJUnit } from './junit';

const load = (name: string) => JSON.parse(readFileSync(join(__dirname, '../../../fixtures', name), 'utf8')) as RunReport;
const LSE = load('tiny-schedule-lse-layout.report.json');
const SMOKE = load('tiny-smoke.report.json');
const SCALE = load('fault-mqa-scale-576.tp0.report.json');
const noExpect = (r: RunReport): RunReport => ({
  ...r,
  scenario: { ...r.scenario, expect: undefined },
  cases: r.cases.map((c) => ({ ...c, expectation: undefined })),
});
/** Two steps, step 1's logits diverging, markup in the names. */
const twoSteps = (): RunReport =>
  runReport(
    [
      caseResult({
        pieces: [piece(0, 'a<&>"x"'), piece(1, 'a<&>"x"')],
        rel: (w) => (w.step === 1 && w.stage === 'logits' ? { engine: 0.3, mqa: 0.3, mha: 1e-7 } : undefined),
      }),
    ],
    { scenario: { ...runReport([]).scenario, name: 'syn & <"quoted">' } },
  );

/**
 * The content model of Jenkins' junit-4.xsd (dtkit-junit-model), checked on the parsed tree: each
 * element's children in the order the schema's sequence allows, its required attributes present.
 */
const MODEL: Record<string, { children: string[]; once: string[]; required: string[] }> = {
  testsuites: { children: ['testsuite'], once: [], required: [] },
  testsuite: {
    children: ['properties', 'testcase', 'system-out', 'system-err'],
    once: ['properties', 'system-out', 'system-err'],
    required: ['name', 'tests'],
  },
  properties: { children: ['property'], once: [], required: [] },
  property: { children: [], once: [], required: ['name', 'value'] },
  testcase: { children: ['skipped', 'error', 'failure', 'system-out', 'system-err'], once: ['skipped'], required: ['name'] },
  failure: { children: ['#text'], once: [], required: [] },
  error: { children: ['#text'], once: [], required: [] },
  'system-out': { children: ['#text'], once: [], required: [] },
};
type Node = Record<string, Node[] | string> & { ':@'?: Record<string, string> };

function conforms(name: string, node: Node, problems: string[]): void {
  const m = MODEL[name];
  if (!m) return void problems.push(`unexpected element ${name}`);
  for (const a of m.required) if (node[':@']?.[`@_${a}`] === undefined) problems.push(`${name} lacks ${a}`);
  const kids = (node[name] as Node[]).map((k) => Object.keys(k).find((x) => x !== ':@')!);
  const order = kids.map((k) => m.children.indexOf(k));
  if (order.some((i, j) => i < 0 || (j > 0 && i < order[j - 1]!)))
    problems.push(`${name} children out of the schema's order: ${kids.join(',')}`);
  for (const o of m.once) if (kids.filter((k) => k === o).length > 1) problems.push(`${name} has ${o} more than once`);
  if (name === 'properties' && !kids.length) problems.push('properties without a property');
  for (const k of node[name] as Node[]) {
    const kn = Object.keys(k).find((x) => x !== ':@')!;
    if (kn !== '#text') conforms(kn, k, problems);
  }
}

describe('JUnit schema (Jenkins junit-4.xsd content model)', () => {
  it.each([
    ['saved reports', () => renderJUnit([SMOKE, LSE, SCALE])],
    ['failing steps and an error', () => renderJUnit([noExpect(LSE), twoSteps()], [{ scenario: 'x.yaml', message: 'exit 2' }])],
  ])('%s conform', (_what, make) => {
    const tree = new XMLParser({ ignoreAttributes: false, preserveOrder: true }).parse(make()) as Node[];
    const root = tree.find((n) => 'testsuites' in n)!;
    const problems: string[] = [];
    conforms('testsuites', root, problems);
    expect(problems).toEqual([]);
    expect((root.testsuites as Node[]).length).toBeGreaterThan(0);
  });

  it('the check itself catches order and attribute violations', () => {
    const bad =
      '<testsuites><testsuite tests="1"><testcase name="a"><system-out>x</system-out><failure message="m">b</failure></testcase>' +
      '<properties/></testsuite></testsuites>';
    const problems: string[] = [];
    conforms('testsuites', (new XMLParser({ ignoreAttributes: false, preserveOrder: true }).parse(bad) as Node[])[0]!, problems);
    expect(problems).toEqual([
      'testsuite lacks name',
      "testsuite children out of the schema's order: testcase,properties",
      "testcase children out of the schema's order: system-out,failure",
      'properties without a property',
    ]);
  });
});
