import type { Phase, RequestPlan } from '../../trace';
/**
 * Serving schedules as engines run them: requests made of phases (a prefill, possibly chunked over
 * several engine steps; decode steps of one token; a prefix-cache hit whose rows are already cached),
 * expanded into engine steps, each a batch of pieces ordered decodes first (vLLM reorders the batch
 * so). Pure data; no tensors.
 */
export type { Phase, RequestPlan } from '../../trace';

/** Which MLA path an engine sends a piece through (vLLM: query_len ≤ reorder_batch_threshold → decode). */
export type Route = 'mqa' | 'mha';

/** One request's share of one engine step. */
export interface Piece {
  step: number;
  request: string;
  kind: Phase['kind'];
  /** Absolute position of the piece's first token = tokens of this request already in the cache. */
  start: number;
  count: number;
  route: Route;
  /** Token ids of the piece. */
  ids: number[];
}

export interface EngineStep {
  index: number;
  /** Decodes first, then prefills, then cache fills; request order within each. */
  pieces: Piece[];
}

export const pieceKey = (p: { step: number; request: string }): string => `${p.step}/${p.request}`;

/** Tokens a request holds in total. */
export const requestLength = (r: RequestPlan): number => r.phases.reduce((n, p) => n + p.tokens, 0);

/** A request's pieces in order, one per engine step it is active in. */
function pieces(r: RequestPlan, decodeThreshold: number): Omit<Piece, 'step'>[] {
  const out: Omit<Piece, 'step'>[] = [];
  let pos = 0;
  const push = (kind: Phase['kind'], count: number) => {
    const route: Route = kind !== 'cached' && count <= decodeThreshold ? 'mqa' : 'mha';
    out.push({ request: r.name, kind, start: pos, count, route, ids: r.ids.slice(pos, pos + count) });
    pos += count;
  };
  for (const ph of r.phases) {
    if (ph.kind === 'cached') push('cached', ph.tokens);
    else if (ph.kind === 'decode') for (let i = 0; i < ph.tokens; i++) push('decode', 1);
    else
      for (let done = 0; done < ph.tokens; done += ph.chunk ?? ph.tokens)
        push('prefill', Math.min(ph.chunk ?? ph.tokens, ph.tokens - done));
  }
  return out;
}

const ORDER: Record<Piece['kind'], number> = { decode: 0, prefill: 1, cached: 2 };

/** Expands requests into engine steps. A piece with count ≤ decodeThreshold routes to MQA. */
export function planSchedule(requests: readonly RequestPlan[], decodeThreshold: number): EngineStep[] {
  const steps: EngineStep[] = [];
  for (const r of requests) {
    pieces(r, decodeThreshold).forEach((p, i) => {
      const index = r.startStep + i;
      while (steps.length <= index) steps.push({ index: steps.length, pieces: [] });
      steps[index]!.pieces.push({ ...p, step: index });
    });
  }
  const rank = new Map(requests.map((r, i) => [r.name, i]));
  for (const s of steps) {
    s.pieces.sort(
      (a, b) =>
        (a.route === b.route ? 0 : a.route === 'mqa' ? -1 : 1) ||
        ORDER[a.kind] - ORDER[b.kind] ||
        rank.get(a.request)! - rank.get(b.request)!,
    );
  }
  return steps.filter((s) => s.pieces.length > 0);
}

/**
 * Context chunks of one engine step (vLLM _compute_prefill_context): the MHA-routed prefills with
 * context share chunk boundaries of `chunkSize` tokens, as many chunks as the longest context
 * needs, so a shorter context gets empty chunks at the end. A piece the engine routes to MQA has no
 * MHA batch; the MHA computed beside it for comparison chunks its context on its own.
 * Returns, per piece key, its [start, end) ranges (empty when start = end).
 */
export function contextChunks(step: EngineStep, chunkSize: number): Map<string, [number, number][]> {
  const out = new Map<string, [number, number][]>();
  const split = (group: Piece[]) => {
    if (!group.length) return;
    const n = Math.ceil(Math.max(...group.map((p) => p.start)) / chunkSize);
    for (const p of group) {
      out.set(
        pieceKey(p),
        Array.from({ length: n }, (_, i): [number, number] => [Math.min(i * chunkSize, p.start), Math.min((i + 1) * chunkSize, p.start)]),
      );
    }
  };
  const withContext = step.pieces.filter((p) => p.kind !== 'cached' && p.start > 0);
  split(withContext.filter((p) => p.route === 'mha'));
  for (const p of withContext.filter((q) => q.route === 'mqa')) split([p]);
  return out;
}
