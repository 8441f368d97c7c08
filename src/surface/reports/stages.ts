import Table from 'cli-table3';
import { LOADER_FAULT_DOCS } from '../../checkpoints/checkpoint/kv-b';
import { FAULTS } from '../../core/faults/catalogue';
import { STAGE_NAMES, STAGES } from '../../trace/stages';
import { WEIGHT_NAMES } from '../../core/weights/records';
import { faultsTable, loaderFaultsTable } from './faults';
import { fitTable, fitText } from './fit';
import type { Style } from './style';

/** The stage ontology for `mla-diff stages`. */
export function renderStages(format: 'table' | 'json', s: Style): string {
  if (format === 'json')
    return JSON.stringify({ stages: STAGES, faults: FAULTS, weights: WEIGHT_NAMES, loaderFaults: LOADER_FAULT_DOCS }, null, 2);
  const t = new Table({
    head: ['stage', 'shape', 'layout', 'paths', 'compared', 'definition'].map((h) => s.bold(h)),
    style: { head: [], border: [], compact: true },
  });
  for (const name of STAGE_NAMES) {
    const d = STAGES[name];
    t.push([name, d.shape, d.layout, d.paths.join(', '), d.compare, d.doc]);
  }
  return [
    fitTable(t, s, { wrap: [3, 5], minWrap: 28, fallback: 'list' }),
    fitText(`Weight stage W (with a checkpoint, or compare_weights:): ${WEIGHT_NAMES.join(', ')}`, s),
    `${fitText('Plantable faults (scenario faults: [{path: mha|mqa, fault: NAME}]):', s)}\n${faultsTable(s)}`,
    `${fitText('Loader faults (weights: {gguf: FILE, loader_fault: NAME}):', s)}\n${loaderFaultsTable(s)}`,
  ].join('\n\n');
}
