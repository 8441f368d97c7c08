import Table from 'cli-table3';
import { LOADER_FAULT_DOCS, LOADER_FAULTS } from '../../checkpoints/checkpoint/kv-b';
import { FAULTS, FAULT_NAMES } from '../../core/faults/catalogue';
import { fitTable, fitText } from './fit';
import type { Style } from './style';

const compact = { style: { head: [], border: [], compact: true } };

/** The plantable faults: where each enters, what it needs, which paths, the bug it models. */
export function faultsTable(s: Style): string {
  const t = new Table({ ...compact, head: ['fault', 'paths', 'enters at', 'needs', 'models'].map((h) => s.bold(h)) });
  for (const name of FAULT_NAMES) {
    const f = FAULTS[name];
    t.push([name, f.paths.join(','), f.enters, f.needs, `${f.summary} — ${f.bug}`]);
  }
  return fitTable(t, s, { wrap: [4], minWrap: 30, fallback: 'list' });
}

/** Faults of the checkpoint loaders (scenario weights: {gguf: FILE, loader_fault: NAME}). */
export function loaderFaultsTable(s: Style): string {
  const t = new Table({ ...compact, head: ['loader fault', 'enters at', 'models'].map((h) => s.bold(h)) });
  for (const name of LOADER_FAULTS)
    t.push([name, LOADER_FAULT_DOCS[name].enters, `${LOADER_FAULT_DOCS[name].summary} — ${LOADER_FAULT_DOCS[name].bug}`]);
  return fitTable(t, s, { wrap: [1, 2], minWrap: 24, fallback: 'list' });
}

/** `mla-diff faults`. */
export function renderFaults(format: 'table' | 'json', s: Style): string {
  if (format === 'json')
    return JSON.stringify({ format: 'mla-diff/faults', version: 1, faults: FAULTS, loaderFaults: LOADER_FAULT_DOCS }, null, 2);
  return [
    fitText(
      `Plantable faults (scenario faults: [{path: mha|mqa, fault: NAME}]), ${FAULT_NAMES.length}, each modelled on a real MLA bug:`,
      s,
    ),
    faultsTable(s),
    fitText('Loader faults (weights: {gguf: FILE, loader_fault: NAME}):', s),
    loaderFaultsTable(s),
  ].join('\n\n');
}
