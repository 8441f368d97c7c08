import type { FaultName } from '../../core/faults/catalogue';
import { FAULTS } from '../../core/faults/catalogue';
import type { DeviceRequest } from '../../devices/runtime';
import type { AxisName, ExpectEntry, FaultEntry, MatrixFile } from './schema';
import { AXIS_NAMES } from './schema';

/**
 * A matrix's points: the cross product of its axes in AXIS_NAMES order (the last axis varies
 * fastest), each a concrete scenario (the base with the axis values written in). Pure.
 */
export type AxisValue = number | string | { size: number; rank: number } | FaultEntry;
type Raw = Record<string, unknown>;

export interface PointSpec {
  /** Position in the full, unsharded point list (0-based). */
  index: number;
  /** Stable id, e.g. `seed=1,tokens=64,fault=mqa:softmax-scale-latent`. */
  id: string;
  axes: Partial<Record<AxisName, AxisValue>>;
  /** The device axis' value, or null (the sweep's --device). */
  device: DeviceRequest | null;
  /** The scenario, as its YAML would hold it. */
  scenario: Raw;
}

/** Where the axis' values enter the scenario (an error in such a field is reported at the axis). */
export const AXIS_FIELDS: Record<AxisName, readonly string[]> = {
  seed: ['weights'],
  tokens: ['prompt', 'requests'],
  heads: ['model', 'cases'],
  tp: ['cases'],
  chunk: ['requests', 'prompt'],
  device: [],
  faults: ['faults', 'expect'],
};

const LABEL: Record<AxisName, string> = {
  seed: 'seed',
  tokens: 'tokens',
  heads: 'heads',
  tp: 'tp',
  chunk: 'chunk',
  device: 'device',
  faults: 'fault',
};

function valueText(axis: AxisName, v: AxisValue): string {
  if (typeof v !== 'object') return String(v); // a number, a device, or none
  if (axis === 'tp') {
    const t = v as { size: number; rank: number };
    return `${t.rank}/${t.size}`;
  }
  const f = v as FaultEntry; // the faults axis' only object value
  return `${f.path}:${f.fault}`;
}

/** The expectation a planted fault implies: diverge where it enters, blamed on its path. */
export function derivedExpect(faults: readonly { path: string; fault: string }[]): ExpectEntry {
  const [f] = faults;
  if (!f) return { outcome: 'agree' };
  if (faults.length > 1) return { outcome: 'diverge' };
  return { outcome: 'diverge', first_divergence: FAULTS[f.fault as FaultName].enters, culprit: f.path };
}

/** Writes one axis value into the scenario; `fail` reports a value the base cannot take. */
function apply(axis: AxisName, v: AxisValue, s: Raw, fail: (axis: AxisName, msg: string) => never): void {
  const prompt = (s.prompt ?? {}) as Raw;
  switch (axis) {
    case 'seed':
      s.weights = { ...((s.weights ?? {}) as Raw), synthetic: { seed: v } };
      return;
    case 'tokens': {
      const { ids: _ids, text: _text, ...rest } = prompt;
      s.prompt = { ...rest, length: v };
      return;
    }
    case 'heads':
      s.model = { ...((s.model ?? {}) as Raw), num_attention_heads: v };
      return;
    case 'tp': {
      const t = v as { size: number; rank: number };
      s.cases = [{ name: `tp${t.rank}-of-${t.size}`, tp: t }];
      return;
    }
    case 'chunk': {
      if (v === 'none') return;
      const T = (prompt.length as number | undefined) ?? (prompt.ids as unknown[] | undefined)?.length;
      if (T === undefined)
        fail('chunk', "a chunked prefill needs the prompt's length: give the base a prompt (length: or ids:) or a tokens: axis");
      s.requests = [
        {
          name: 'chunked',
          ...(prompt.ids && prompt.length === undefined ? { ids: prompt.ids } : {}),
          position_offset: (prompt.start_position as number | undefined) ?? 0,
          steps: [{ prefill: T, chunk: v }],
        },
      ];
      delete s.prompt;
      return;
    }
    case 'device':
      return;
    case 'faults': {
      const f = v === 'none' ? [] : [{ path: (v as FaultEntry).path, fault: (v as FaultEntry).fault }];
      s.faults = f;
      s.expect = (v !== 'none' && (v as FaultEntry).expect) || derivedExpect(f);
      return;
    }
  }
}

export function expandMatrix(m: MatrixFile, base: Raw, fail: (axis: AxisName, msg: string) => never): PointSpec[] {
  const axes = AXIS_NAMES.filter((a) => m.axes[a] !== undefined);
  const lists = axes.map((a) => m.axes[a] as AxisValue[]);
  const total = lists.reduce((n, l) => n * l.length, 1);
  const out: PointSpec[] = [];
  for (let index = 0; index < total; index++) {
    const values: Partial<Record<AxisName, AxisValue>> = {};
    let rest = index;
    for (let k = axes.length - 1; k >= 0; k--) {
      const l = lists[k]!;
      values[axes[k]!] = l[rest % l.length]!;
      rest = Math.floor(rest / l.length);
    }
    const scenario = structuredClone(base);
    if (!('faults' in values)) scenario.expect ??= derivedExpect((scenario.faults ?? []) as { path: string; fault: string }[]);
    for (const a of axes) apply(a, values[a]!, scenario, fail);
    const id = axes.map((a) => `${LABEL[a]}=${valueText(a, values[a]!)}`).join(',');
    scenario.name = id ? `${m.name}[${id}]` : m.name;
    out.push({ index, id: id || m.name, axes: values, device: (values.device as DeviceRequest | undefined) ?? null, scenario });
  }
  return out;
}
