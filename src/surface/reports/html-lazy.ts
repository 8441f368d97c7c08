import type * as html from './html';

/**
 * The HTML report loads vega (its plots are pre-compiled Vega specs): commands load it through this
 * function, only when a page is asked for, so that every other run of the CLI starts without them.
 */
export type HtmlModule = typeof html;

export const loadHtml = (): HtmlModule => require('./html') as HtmlModule;
