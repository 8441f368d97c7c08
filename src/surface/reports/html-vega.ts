import { createHash } from 'node:crypto';
import type { Spec } from 'vega';
import type { TopLevelSpec } from 'vega-lite';
import TEMPLATES from './html-vega.json';

/**
 * The plots' Vega-Lite specs, compiled to Vega ahead of time (html-vega.json, `npm run vega`):
 * vega-lite is only a compiler, so the installed package runs without it. A template is keyed by
 * what makes a plot's kind (its marks, encodings, scales); the parts that vary per plot, the inline
 * rows, the title and the width, are put back into a copy. html-vega.test.ts checks each template
 * against vega-lite's own compile.
 */

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
const stable = (v: Json): string =>
  Array.isArray(v)
    ? `[${v.map(stable).join(',')}]`
    : v && typeof v === 'object'
      ? `{${Object.keys(v)
          .sort()
          .map((k) => `${JSON.stringify(k)}:${stable(v[k]!)}`)
          .join(',')}}`
      : JSON.stringify(v);

/** A spec's kind: a hash of the spec without its rows, title and width. */
export function templateKey(spec: TopLevelSpec): string {
  const { data: _data, title: _title, width: _width, ...kind } = spec as unknown as Record<string, Json>;
  return createHash('sha256').update(stable(kind)).digest('hex').slice(0, 16);
}

/** The template's Vega spec with the rows, title and width of this plot. */
export function fillTemplate(template: Spec, spec: TopLevelSpec): Spec {
  const out = structuredClone(template);
  const rows = (spec as { data?: { values?: unknown[] } }).data?.values ?? [];
  out.data = (out.data ?? []).map((d) => ('values' in d ? { ...d, values: rows as object[] } : d));
  const title = spec.title as { text: string; subtitle?: string } | undefined;
  if (title) {
    const { text: _text, subtitle: _subtitle, ...style } = (out.title ?? {}) as Record<string, unknown>;
    out.title = { ...style, text: title.text, ...(title.subtitle !== undefined ? { subtitle: title.subtitle } : {}) };
  } else delete out.title;
  if (typeof (spec as { width?: unknown }).width === 'number') out.width = (spec as { width: number }).width;
  return out;
}

/** Vega-Lite spec → Vega spec, through the pre-compiled template of its kind. */
export function toVega(spec: TopLevelSpec, templates: Record<string, Spec> = TEMPLATES as unknown as Record<string, Spec>): Spec {
  const template = templates[templateKey(spec)];
  // A plot spec changed in html-specs.ts without `npm run vega`: a bug of this build, caught by html-vega.test.ts.
  if (!template) throw new Error(`no pre-compiled Vega template for this plot (key ${templateKey(spec)}): run \`npm run vega\``);
  return fillTemplate(template, spec);
}
