import { parse, View } from 'vega';
import type { TopLevelSpec } from 'vega-lite';
import { toVega } from './html-vega';

/**
 * Vega-Lite spec → standalone SVG markup, rendered in Node: its pre-compiled Vega spec (html-vega.ts),
 * a headless view (renderer 'none': no canvas, no DOM, no network; data are inline), serialized, released.
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(toVega(spec)), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
