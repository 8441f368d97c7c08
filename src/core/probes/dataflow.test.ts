import { DATAFLOW } from './dataflow';
import type { DevicePath, PathName, StageName } from '../../trace/stages';
import type { StageDef } from '../../trace/stages';
import { STAGE_NAMES, STAGES } from '../../trace/stages';

const produces = (p: DevicePath, s: StageName) =>
  (STAGES[s].paths as readonly PathName[]).includes(p) || (p === 'mqa' && (s === 'k_nope' || s === 'v'));

describe.each(['mha', 'mqa', 'cold'] as DevicePath[])('the %s dataflow', (path) => {
  const flow = DATAFLOW[path];

  it('gives every stage the path records its inputs, and only those', () => {
    const recorded = STAGE_NAMES.filter((s) => produces(path, s) && !(path === 'cold' && STAGES[s].group === 'context'));
    expect(Object.keys(flow).sort()).toEqual(recorded.sort());
  });

  it('reads only stages the path records, each earlier in pipeline order (or an earlier chunk)', () => {
    for (const [stage, f] of Object.entries(flow) as [StageName, NonNullable<(typeof flow)[StageName]>][]) {
      for (const i of [...f.inputs.map((x) => x.stage), ...(f.history ?? [])]) {
        expect({ stage, input: i, recorded: produces(path, i) }).toEqual({ stage, input: i, recorded: true });
      }
      for (const i of f.inputs) {
        const earlier =
          STAGE_NAMES.indexOf(i.stage) < STAGE_NAMES.indexOf(stage) ||
          (i.stage === stage && i.chunk === 'prev') ||
          ((STAGES[i.stage] as StageDef).chunked && i.chunk !== 'same');
        expect({ stage, input: i.stage, earlier }).toEqual({ stage, input: i.stage, earlier: true });
      }
    }
  });
});
