import type { MlaConfig } from '../../core/model/config';
import type { Phase, RequestPlan } from '../../core/schedule/schedule';
import { requestLength } from '../../core/schedule/schedule';
import { fmix32, streamKey } from '../../core/weights/normal';
import { isMlaDiffError } from '../../errors';
import { fail } from './fail';
import { checkPromptTokens } from './limits';
import type { ScenarioFile } from './schema';
import type { YamlSource } from './yaml-source';
import type { BosMode, TextTokenizer } from '../../checkpoints/tokenizer';

/** prompt.bos as the tokenizer takes it (YAML's true/false are booleans). */
export function bosMode(bos: NonNullable<ScenarioFile['prompt']>['bos']): BosMode {
  return bos === undefined ? 'auto' : typeof bos === 'boolean' ? (String(bos) as BosMode) : bos;
}

/** Token ids drawn from the weight seed, uniform over the vocabulary, one stream per `name`. */
export function syntheticIds(n: number, vocab: number, seed: number, name = 'prompt_ids'): number[] {
  const key = streamKey(seed, name);
  return Array.from({ length: n }, (_, i) => fmix32(Math.imul(i, 0x9e3779b1) ^ key) % vocab);
}

/**
 * The scenario's requests: `prompt:` is one request prefilled in one engine step (the one-shot
 * case); `requests:` a serving schedule. Ids beyond the given ones are drawn from the seed.
 */
export function resolveRequests(
  f: ScenarioFile,
  config: MlaConfig,
  src: YamlSource,
  seed: number,
  tokenizerOf: () => TextTokenizer | undefined = () => undefined,
): RequestPlan[] {
  if (f.prompt !== undefined && f.requests !== undefined) {
    fail(
      src,
      'invalid-value',
      ['requests'],
      'give prompt: (one prefill) or requests: (a schedule), not both',
      'move the prompt into requests: as its first request',
    );
  }
  if (f.prompt === undefined && f.requests === undefined) {
    fail(
      src,
      'invalid-value',
      [],
      'the scenario has neither prompt: nor requests:',
      'add prompt: {ids: [...]} for one prefill, or requests: for a serving schedule',
    );
  }
  let plans: { path: PropertyKey[]; plan: RequestPlan; offset: number }[];
  if (f.prompt) {
    const p = f.prompt;
    const tokenize = p.ids === undefined && p.length === undefined && p.text !== undefined;
    const tokenizer = tokenize ? tokenizerOf() : undefined;
    if (tokenize && !tokenizer) {
      fail(
        src,
        'invalid-value',
        ['prompt', 'text'],
        'prompt text needs a tokenizer, and these weights have none',
        'give ids: [..], or weights.tokenizer: path/to/tokenizer.json (or a .gguf with a vocabulary), or weights from a GGUF with one',
      );
    }
    if (!tokenize && p.bos !== undefined) {
      fail(src, 'invalid-value', ['prompt', 'bos'], 'bos: applies to prompt text; ids are taken as they are', 'put the BOS id into ids:');
    }
    const bos = bosMode(p.bos);
    if (tokenize && bos === 'true' && !tokenizer!.bos) {
      fail(
        src,
        'invalid-value',
        ['prompt', 'bos'],
        `bos: true, but ${tokenizer!.source} names no BOS token`,
        'use bos: auto, or a tokenizer that names one (bos_token in tokenizer_config.json, tokenizer.ggml.bos_token_id)',
      );
    }
    if (!tokenize && (p.ids === undefined) === (p.length === undefined)) {
      fail(
        src,
        'invalid-value',
        ['prompt'],
        'give exactly one of ids: [..] or length: N (or text: with a tokenizer)',
        'ids for a real prompt, length for a long synthetic one',
      );
    }
    const ids = tokenize ? encodeText(src, tokenizer!, p.text!, bos) : (p.ids ?? syntheticIds(p.length!, config.vocab_size, seed));
    if (!ids.length) fail(src, 'invalid-value', ['prompt', 'text'], 'the text tokenizes to no tokens');
    checkPromptTokens(ids.length, src);
    plans = [
      {
        path: ['prompt', 'ids'],
        offset: p.start_position,
        plan: { name: 'prompt', ids, startStep: 0, positionOffset: p.start_position, phases: [{ kind: 'prefill', tokens: ids.length }] },
      },
    ];
  } else {
    plans = f.requests!.map((r, i) => {
      const phases = r.steps.map((st, j): Phase => {
        const kinds = (['prefill', 'decode', 'cached'] as const).filter((k) => st[k] !== undefined);
        if (kinds.length !== 1)
          fail(src, 'invalid-value', ['requests', i, 'steps', j], 'a step is exactly one of prefill: N, decode: N, cached: N');
        if (st.chunk !== undefined && kinds[0] !== 'prefill')
          fail(src, 'invalid-value', ['requests', i, 'steps', j, 'chunk'], 'chunk: splits a prefill; it has no meaning here');
        const kind = kinds[0]!;
        return kind === 'prefill' ? { kind, tokens: st.prefill!, ...(st.chunk ? { chunk: st.chunk } : {}) } : { kind, tokens: st[kind]! };
      });
      const total = phases.reduce((a, ph) => a + ph.tokens, 0);
      if ((r.ids?.length ?? 0) > total) fail(src, 'invalid-value', ['requests', i, 'ids'], `${r.ids!.length} ids for ${total} tokens`);
      const ids = [...(r.ids ?? []), ...syntheticIds(total, config.vocab_size, seed, `request_ids:${r.name}`).slice(r.ids?.length ?? 0)];
      return {
        path: ['requests', i, 'ids'],
        offset: r.position_offset,
        plan: { name: r.name, ids, startStep: r.start_step, positionOffset: r.position_offset, phases },
      };
    });
    const seen = new Set<string>();
    plans.forEach(({ plan }, i) => {
      if (seen.has(plan.name)) fail(src, 'invalid-value', ['requests', i, 'name'], `duplicate request name "${plan.name}"`);
      seen.add(plan.name);
    });
  }
  for (const { path, plan, offset } of plans) {
    plan.ids.forEach((id, k) => {
      if (id >= config.vocab_size) fail(src, 'invalid-value', [...path, k], `token id ${id} ≥ vocab_size ${config.vocab_size}`);
    });
    const last = offset + requestLength(plan) - 1;
    if (last >= config.max_position_embeddings) {
      fail(
        src,
        'invalid-value',
        path.slice(0, -1),
        `positions reach ${last}, beyond max_position_embeddings ${config.max_position_embeddings}`,
      );
    }
  }
  return plans.map((p) => p.plan);
}

/** The prompt's text encoded; the tokenizer's own refusal (a text past its limit, bos) is placed at the scenario's prompt field. */
function encodeText(src: YamlSource, tokenizer: TextTokenizer, text: string, bos: BosMode): number[] {
  try {
    return tokenizer.encode(text, bos);
  } catch (e) {
    if (isMlaDiffError(e) && !e.where.file) fail(src, e.code, ['prompt', e.where.field === 'bos' ? 'bos' : 'text'], e.message, e.hint);
    throw e;
  }
}
