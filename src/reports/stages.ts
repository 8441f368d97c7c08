import Table from 'cli-table3';
import { LOADER_FAULT_DOCS, LOADER_FAULTS } from '../checkpoint/kv-b';
import { FAULTS, FAULT_NAMES } from '../faults/catalogue';
import { WEIGHT_NAMES } from '../weights/records';
import { STAGE_NAMES, STAGES } from '../probes/stages';
import type { Style } from './style';

/** The stage ontology for `mla-diff stages`. */
export function renderStages(format: 'table' | 'json', s: Style): string {
  if (format === 'json') return JSON.stringify({ stages: STAGES, faults: FAULTS, weights: WEIGHT_NAMES, loaderFaults: LOADER_FAULT_DOCS }, null, 2);
  const t = new Table({ head: ['stage', 'shape', 'layout', 'paths', 'compared', 'definition'].map((h) => s.bold(h)), style: { head: [], border: [], compact: true } });
  for (const name of STAGE_NAMES) {
    const d = STAGES[name];
    t.push([name, d.shape, d.layout, d.paths.join(','), d.compare, d.doc]);
  }
  const f = new Table({ head: ['fault', 'enters at', 'models'].map((h) => s.bold(h)), style: { head: [], border: [], compact: true } });
  for (const name of FAULT_NAMES) f.push([name, FAULTS[name].enters, `${FAULTS[name].summary} — ${FAULTS[name].bug}`]);
  const l = new Table({ head: ['loader fault', 'enters at', 'models'].map((h) => s.bold(h)), style: { head: [], border: [], compact: true } });
  for (const name of LOADER_FAULTS) l.push([name, LOADER_FAULT_DOCS[name].enters, `${LOADER_FAULT_DOCS[name].summary} — ${LOADER_FAULT_DOCS[name].bug}`]);
  return [
    t.toString(),
    `Weight stage W (with a checkpoint, or compare_weights:): ${WEIGHT_NAMES.join(', ')}`,
    `Plantable faults (scenario faults: [{path: mha|mqa, fault: NAME}]):\n${f.toString()}`,
    `Loader faults (weights: {gguf: FILE, loader_fault: NAME}):\n${l.toString()}`,
  ].join('\n\n');
}
