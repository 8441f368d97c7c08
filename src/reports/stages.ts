import Table from 'cli-table3';
import { FAULTS, FAULT_NAMES } from '../faults/catalogue';
import { STAGE_NAMES, STAGES } from '../probes/stages';
import type { Style } from './style';

/** The stage ontology for `mla-diff stages`. */
export function renderStages(format: 'table' | 'json', s: Style): string {
  if (format === 'json') return JSON.stringify({ stages: STAGES, faults: FAULTS }, null, 2);
  const t = new Table({ head: ['stage', 'shape', 'layout', 'paths', 'compared', 'definition'].map((h) => s.bold(h)), style: { head: [], border: [], compact: true } });
  for (const name of STAGE_NAMES) {
    const d = STAGES[name];
    t.push([name, d.shape, d.layout, d.paths.join(','), d.compare, d.doc]);
  }
  const f = new Table({ head: ['fault', 'enters at', 'models'].map((h) => s.bold(h)), style: { head: [], border: [], compact: true } });
  for (const name of FAULT_NAMES) f.push([name, FAULTS[name].enters, `${FAULTS[name].summary} — ${FAULTS[name].bug}`]);
  return `${t.toString()}\n\nPlantable faults (scenario faults: [{path: mha|mqa, fault: NAME}]):\n${f.toString()}`;
}
