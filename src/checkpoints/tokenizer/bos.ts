/**
 * The special tokens a tokenizer's post-processor puts around a text (a template: the same ones for every text), and
 * the BOS taken out of them or put in front of them.
 */

/** Encodes a text with (`specials`) or without the post-processor's special tokens. */
type RawEncode = (text: string, specials: boolean) => number[];

/** Texts to find the template with; a vocabulary without 'a' (and no unknown token) fails on it, so there are others. */
const PROBES = ['a', 'e', '1', '.', 'A'];

/** The ids the post-processor adds before and after the text (found from one probe text; templates are constant). */
export function specialsAround(raw: RawEncode): { prefix: number[]; suffix: number[] } {
  for (const probe of PROBES) {
    let plain: number[];
    let full: number[];
    try {
      plain = raw(probe, false);
      full = raw(probe, true);
    } catch {
      continue; // not in this vocabulary: try the next probe
    }
    for (let k = 0; k + plain.length <= full.length; k++) {
      if (plain.every((id, i) => full[k + i] === id)) return { prefix: full.slice(0, k), suffix: full.slice(k + plain.length) };
    }
  }
  return { prefix: [], suffix: [] };
}

type Json = Record<string, unknown>;

/** tokenizer_config.json's bos_token: a string, or an AddedToken object with `content`. */
function configBos(config: object): string | undefined {
  const t = (config as Json).bos_token;
  if (typeof t === 'string') return t;
  if (typeof t === 'object' && t !== null && typeof (t as Json).content === 'string') return (t as Json).content as string;
  return undefined;
}

/**
 * The vocabulary's BOS: the config's bos_token when it is in the vocabulary, else the post-processor's first added id
 * (GPT-2's, Llama 3's template), else none.
 */
export function bosToken(
  config: object,
  prefix: readonly number[],
  idOf: (token: string) => number | undefined,
  tokenOf: (id: number) => string | undefined,
): { id: number; token: string } | undefined {
  const named = configBos(config);
  const id = named !== undefined ? idOf(named) : undefined;
  if (named !== undefined && id !== undefined) return { id, token: named };
  const first = prefix[0];
  const token = first === undefined ? undefined : tokenOf(first);
  return first !== undefined && token !== undefined ? { id: first, token } : undefined;
}

/** The prefix with the BOS in front (`want`: exactly one added, first) or taken out (not `want`). */
export function withBos(prefix: readonly number[], bos: number | undefined, want: boolean): number[] {
  const rest = prefix.filter((id) => id !== bos);
  return want && bos !== undefined ? [bos, ...rest] : rest;
}
