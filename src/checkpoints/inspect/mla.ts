import { isMlaDiffError } from '../../errors';
import { expectedShape, kBShape, vBShape } from '../checkpoint/shapes';
import { ggufKB, ggufName, ggufVB, hfName } from '../checkpoint/names';
import type { MlaConfig } from '../../core/model/config';
import { latentWidth, qkHeadDim, softmaxScale } from '../../core/model/config';
import { LAYER_TENSORS } from '../../core/weights/layer';
import type { NameScheme } from './layers';
import { layerRanges } from './layers';
import type { InspectIssue, LayerPattern, MlaFacts } from './types';

export function mlaFacts(config: MlaConfig, configLayer: number): MlaFacts {
  return { configLayer, config, qkHeadDim: qkHeadDim(config), latentWidth: latentWidth(config), softmaxScale: softmaxScale(config) };
}

/**
 * Reads the config with `read`; an MlaDiffError becomes an `error` issue (the header facts are
 * still shown, the command exits 2), anything else is rethrown.
 */
export function tryConfig(read: () => MlaConfig, configLayer: number, issues: InspectIssue[]): MlaFacts | null {
  try {
    return mlaFacts(read(), configLayer);
  } catch (e) {
    if (!isMlaDiffError(e)) throw e;
    issues.push({
      severity: 'error',
      code: e.code,
      message: `cannot read the MLA config: ${e.message}`,
      ...(e.where.file ? { file: e.where.file } : {}),
      ...(e.where.field ? { field: e.where.field } : {}),
      ...(e.hint ? { hint: e.hint } : {}),
    });
    return null;
  }
}

const strip = (name: string): string => name.replace(/^(?:blk|model\.layers)\.0\.(?:self_attn\.)?/, '').replace(/\.weight$/, '');

/** The PyTorch shape each attention tensor must have under `c`, by short name. */
export function expectedShapes(c: MlaConfig, scheme: NameScheme): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const t of LAYER_TENSORS) out.set(strip(scheme === 'gguf' ? ggufName(0, t) : hfName(0, t)), expectedShape(c, t));
  if (scheme === 'gguf') {
    out.set(strip(ggufKB(0)), kBShape(c));
    out.set(strip(ggufVB(0)), vBShape(c));
  }
  return out;
}

/** One `tensor-shape` error per tensor of a layer pattern whose shape the config does not imply. */
export function shapeIssues(patterns: readonly LayerPattern[], c: MlaConfig, scheme: NameScheme, file: string): InspectIssue[] {
  const want = expectedShapes(c, scheme);
  const issues: InspectIssue[] = [];
  for (const p of patterns) {
    for (const t of p.tensors) {
      const w = want.get(t.short);
      if (!w || (w.length === t.shape.length && w.every((d, i) => d === t.shape[i]))) continue;
      issues.push({
        severity: 'error',
        code: 'tensor-shape',
        file,
        field: t.short,
        message: `layers ${layerRanges(p.layers)}: ${t.short} has shape [${t.shape.join(', ')}], the config implies [${w.join(', ')}]`,
        hint: 'the header and the config disagree: a converter bug, or metadata of another model',
      });
    }
  }
  return issues;
}
