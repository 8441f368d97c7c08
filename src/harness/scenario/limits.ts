/**
 * Bounds on what a scenario's schedule asks the run to build, checked after the config and before any id array,
 * block table or step list exists (a 2-line file once asked for 1.7 GB of ids). Generous for real work: GLM-5 or
 * DeepSeek-V3 at every head over a 128k-token context with decodes after it (issue 24) fits each bound.
 */
import type { MlaConfig } from '../../core/model/config';
import { fail } from './fail';
import type { ScenarioFile } from './schema';
import type { YamlSource } from './yaml-source';

export const SCHEDULE_MAX = {
  /** Tokens of all requests together: each gets an id array, a RoPE row and cache rows. */
  tokens: 2 ** 18,
  /** The engine step a request starts at: planSchedule lists every step up to it. */
  startStep: 2 ** 18,
  /** Slots of the paged latent cache (each a kv_lora_rank + rope row): 2^19 × 576 floats of GLM-5 = 1.1 GiB. */
  cacheSlots: 2 ** 19,
  /** Context chunks the MHA path attends over in all (each an attention call and an LSE merge). */
  contextChunks: 2 ** 20,
  /** heads × T² summed over cases and requests (the scores the paths compute): 128 heads × 131k² × 2 cases is 2^42. */
  attentionWork: 2 ** 42,
};

interface Req {
  /** Where the request's length is written. */
  path: PropertyKey[];
  startStep: number;
  /** Pieces as planSchedule cuts them: [kind, tokens, chunk]. */
  phases: { kind: 'prefill' | 'decode' | 'cached'; tokens: number; chunk?: number; path: PropertyKey[] }[];
}

function requestsOf(f: ScenarioFile): Req[] {
  if (f.prompt) {
    const T = f.prompt.length ?? f.prompt.ids?.length ?? 0; // text: counted once tokenized (checkPromptTokens)
    const path = f.prompt.length !== undefined ? ['prompt', 'length'] : ['prompt', 'ids'];
    return [{ path, startStep: 0, phases: [{ kind: 'prefill', tokens: T, path }] }];
  }
  return (f.requests ?? []).map((r, i) => ({
    path: ['requests', i, 'steps'],
    startStep: r.start_step,
    phases: r.steps.flatMap((st, j) =>
      (['prefill', 'decode', 'cached'] as const)
        .filter((k) => st[k] !== undefined)
        .map((kind) => ({ kind, tokens: st[kind]!, path: ['requests', i, 'steps', j, kind], ...(st.chunk ? { chunk: st.chunk } : {}) })),
    ),
  }));
}

/** Throws limit-exceeded at the field that passes a bound; the hint names the bound. */
export function checkScheduleLimits(f: ScenarioFile, config: MlaConfig, src: YamlSource): void {
  const reqs = requestsOf(f);
  const M = SCHEDULE_MAX;
  let total = 0;
  const lengths: number[] = [];
  for (const [i, r] of reqs.entries()) {
    if (r.startStep > M.startStep) {
      fail(src, 'limit-exceeded', ['requests', i, 'start_step'], `start_step ${r.startStep} is over the limit of ${M.startStep}`);
    }
    let T = 0;
    for (const ph of r.phases) {
      T += ph.tokens;
      if (total + T > M.tokens) {
        fail(
          src,
          'limit-exceeded',
          ph.path,
          `the scenario's requests reach ${total + T} tokens here, over the limit of ${M.tokens}`,
          `at most ${M.tokens} tokens over all requests`,
        );
      }
    }
    lengths.push(T);
    total += T;
  }
  const B = f.schedule.block_size;
  const slots = lengths.reduce((a, T) => a + Math.ceil(T / B) * B, B);
  if (slots > M.cacheSlots) {
    fail(
      src,
      'limit-exceeded',
      ['schedule', 'block_size'],
      `the paged cache would hold ${slots} slots (${reqs.length} requests in blocks of ${B}), over the limit of ${M.cacheSlots}`,
      `at most ${M.cacheSlots} cache slots: a smaller block_size`,
    );
  }
  // Each piece with context attends it in chunks of context_chunk; a step's pieces share the longest one's boundaries.
  const C = f.schedule.context_chunk;
  const longest = Math.max(0, ...lengths);
  let chunks = 0;
  for (const r of reqs) {
    let pos = 0;
    for (const ph of r.phases) {
      const size = ph.kind === 'decode' ? 1 : ph.kind === 'cached' ? ph.tokens : (ph.chunk ?? ph.tokens);
      for (let done = 0; done < ph.tokens; done += size) {
        if (ph.kind !== 'cached' && pos > 0) chunks += Math.ceil(longest / C);
        pos += Math.min(size, ph.tokens - done);
      }
    }
  }
  if (chunks > M.contextChunks) {
    fail(
      src,
      'limit-exceeded',
      ['schedule', 'context_chunk'],
      `the pieces would attend their context in about ${chunks} chunks of ${C} tokens, over the limit of ${M.contextChunks}`,
      `at most ${M.contextChunks} context chunks: a larger context_chunk, or fewer, longer pieces`,
    );
  }
  const N = config.num_attention_heads;
  const heads = f.cases.reduce((a, c) => a + (c.heads ? Math.min(c.heads.count, N) : c.tp ? N / c.tp.size : N), 0);
  const work = heads * lengths.reduce((a, T) => a + T * T, 0);
  if (work > M.attentionWork) {
    fail(
      src,
      'limit-exceeded',
      reqs.length === 1 ? reqs[0]!.path : ['requests'],
      `heads × tokens² over the cases and requests is ${work.toExponential(2)}, over the limit of ${M.attentionWork.toExponential(2)}`,
      'fewer tokens, heads (cases: heads: or tp:) or cases',
    );
  }
}

/** A tokenized prompt text against the token bound (its length is known only after encoding). */
export function checkPromptTokens(n: number, src: YamlSource): void {
  if (n > SCHEDULE_MAX.tokens) {
    fail(src, 'limit-exceeded', ['prompt', 'text'], `the text tokenizes to ${n} tokens, over the limit of ${SCHEDULE_MAX.tokens}`);
  }
}
