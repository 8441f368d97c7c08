import { parse, View } from 'vega';
import type { TopLevelSpec } from 'vega-lite';
import { compile } from 'vega-lite';

/**
 * Vega-Lite spec → standalone SVG markup, rendered in Node: compile to Vega, run a headless view
 * (renderer 'none': no canvas, no DOM, no network; data are inline), serialize, release the view.
 */
export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parse(compile(spec).spec), { renderer: 'none' });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}
