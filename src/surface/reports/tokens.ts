import type { ScenarioEcho } from '../../trace';
import { lineWidth } from './visible-width';

const SEP = ' · ';
const MORE = '…';

/** A token's text made visible on one line: spaces as ␣, \n \r \t and other control or format characters escaped. */
export function visibleToken(text: string): string {
  if (text === '') return '∅';
  let out = '';
  for (const ch of text) {
    const cp = ch.codePointAt(0)!;
    if (ch === ' ') out += '␣';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) out += `\\x${cp.toString(16).toUpperCase().padStart(2, '0')}`;
    else if (/[\p{Cf}\p{Zl}\p{Zp}\p{Co}\p{Cs}]|[^\S ]/u.test(ch)) out += `\\u{${cp.toString(16).toUpperCase()}}`;
    else out += ch;
  }
  return out;
}

/**
 * The prompt's tokens on one line: `tokens: 5 · [0] 0 <bos> · [1] 19923 Hello · [2] 2058 ␣world`, each token's text
 * visible (visibleToken); without `tokens`, the ids alone (`ids: 3 · [0] 5 · …`). With a `width`, shortened to fit it:
 * the first tokens, `…` and the last one.
 */
export function tokensLine(ids: readonly number[], tokens?: readonly string[], width?: number): string {
  const head = `${tokens ? 'tokens' : 'ids'}: ${ids.length}`;
  const items = ids.map((id, i) => {
    const t = tokens?.[i];
    return t === undefined ? `[${i}] ${id}` : `[${i}] ${id} ${visibleToken(t)}`;
  });
  const full = [head, ...items].join(SEP);
  if (width === undefined || lineWidth(full) <= width || items.length === 0) return full;
  const last = items[items.length - 1]!;
  const fits = (first: number, tail: boolean) =>
    lineWidth([head, ...items.slice(0, first), MORE, ...(tail ? [last] : [])].join(SEP)) <= width;
  const tail = fits(0, true);
  let first = 0;
  while (first < items.length - 1 && fits(first + 1, tail)) first++;
  return [head, ...items.slice(0, first), MORE, ...(tail ? [last] : [])].join(SEP);
}

/** The line of a run's tokenized prompt text (the first request's ids and their tokens), or undefined without one. */
export function promptTokensLine(scenario: Pick<ScenarioEcho, 'requests' | 'tokens'>, width?: number): string | undefined {
  const ids = scenario.requests[0]?.ids;
  return scenario.tokens && ids ? tokensLine(ids, scenario.tokens, width) : undefined;
}
