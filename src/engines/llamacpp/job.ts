/**
 * What the parent hands the llama.cpp child process (job.json) and what the child writes back
 * (nodes.json + nodes.bin). Plain data: the child imports nothing of the harness.
 */
export type CacheType = 'f32' | 'f16';
export const CACHE_TYPES: readonly CacheType[] = ['f32', 'f16'];

export interface EngineParams {
  flashAttn: boolean;
  cacheType: CacheType;
  threads: number;
  /** Layers offloaded to a GPU backend (0 = CPU only). */
  gpuLayers: number;
}

/** One llama_decode: a piece of the schedule, its tokens fed as embeddings into sequence `seq`. */
export interface JobPiece {
  step: number;
  request: string;
  seq: number;
  kind: 'prefill' | 'decode' | 'cached';
  positions: number[];
  /** Row offset of its embeddings in embeddings.bin ([rows, hidden] float32). */
  row: number;
}

export interface EngineJob {
  format: 'mla-diff/llama-cpp-job';
  version: 1;
  /** Directory of libllama / libggml (the npm package's bins/<platform>); its backends (CPU, Vulkan) load from it too. */
  libDir: string;
  /** The runnable one-layer GGUF. */
  model: string;
  /** float32 [rows, hidden]: every piece's embeddings, in piece order. */
  embeddings: string;
  hidden: number;
  params: EngineParams;
  /** Cache cells (every token of the schedule, rounded up to 256). */
  nCtx: number;
  /** n_batch = n_ubatch: the longest piece, so that each piece is one graph evaluation. */
  nBatch: number;
  /** Sequences: one per request. */
  nSeq: number;
  pieces: JobPiece[];
  /** Write into this directory. */
  out: string;
}

/** One captured node: which decode, its ggml identity, where its values are in nodes.bin. */
export interface CapturedNode {
  piece: number;
  name: string;
  op: string;
  type: string;
  /** ggml order (ne[0] contiguous). */
  ne: number[];
  opParams: number[];
  /** Names of its sources (up to 3). */
  src: string[];
  /** float32 element offset and count in nodes.bin, values gathered contiguous in ne order; absent: metadata only. */
  offset?: number;
  count?: number;
}

export interface EngineVersions {
  llama: string;
  ggml: string;
  commit: string;
}

export interface EngineResult {
  format: 'mla-diff/llama-cpp-nodes';
  version: 1;
  versions: EngineVersions;
  devices: string[];
  nodes: CapturedNode[];
  /** Seconds inside llama_decode, per piece. */
  decodeSeconds: number[];
  loadSeconds: number;
}
