import type { ErrorCode } from '../../errors';
import type { MlaConfig } from '../../core/model/config';
import type { WeightRecord } from '../../core/weights/records';

/** Version of the `mla-diff inspect --format json` object; bump it when a field changes meaning. */
export const INSPECT_VERSION = 1;

/** One tensor as the header describes it: never its values. */
export interface InspectTensor {
  /** The full name in the file, e.g. `blk.0.attn_k_b.weight`. */
  name: string;
  /** The name within its layer, e.g. `attn_k_b`, `q_a_proj.weight_scale_inv`. */
  short: string;
  /** ggml type (Q4_K, F16, …) or safetensors dtype (BF16, F8_E4M3, …). */
  type: string;
  /** PyTorch order (GGUF ne reversed). */
  shape: number[];
  bytes: number;
}

/** Layers whose attention tensors have the same names, types and shapes. */
export interface LayerPattern {
  layers: number[];
  tensors: Omit<InspectTensor, 'name' | 'bytes'>[];
}

/** How kv_b_proj is stored: one merged tensor, the converter's attn_k_b + attn_v_b, both, or neither. */
export type KvBLayout = 'split' | 'merged' | 'both' | 'none' | 'mixed';

/** The MLA dims the tool runs with, and what follows from them. */
export interface MlaFacts {
  /** The layer the config was read for (GGUF keys may be per-layer arrays). */
  configLayer: number;
  config: MlaConfig;
  /** qk_nope + qk_rope. */
  qkHeadDim: number;
  /** kv_lora_rank + qk_rope: one latent cache row (576 for GLM-5). */
  latentWidth: number;
  /** qk_head_dim^-0.5 (× mscale² under YaRN). */
  softmaxScale: number;
}

export interface TokenizerFacts {
  present: boolean;
  /** `gguf` metadata or the `tokenizer.json` beside the safetensors files. */
  source: 'gguf' | 'tokenizer.json' | null;
  file?: string;
  /** tokenizer.ggml.model (gpt2, llama, …) or tokenizer.json model.type (BPE, …). */
  model?: string;
  /** tokenizer.ggml.pre. */
  pre?: string;
  tokens?: number;
  merges?: number;
  /** tokenizer.json added_tokens. */
  added?: number;
}

/** Something the header says that the user should know; `error` makes the command exit 2 (after printing). */
export interface InspectIssue {
  severity: 'warning' | 'error';
  code: ErrorCode;
  message: string;
  file?: string;
  field?: string;
  hint?: string;
}

export type ContainerFacts =
  | { kind: 'gguf'; version: number; alignment: number; metadataKeys: number }
  | {
      kind: 'safetensors';
      /** The *.safetensors.index.json read, if any. */
      index: string | null;
      /** config.json beside the checkpoint, if any. */
      config: string | null;
      /** `__metadata__` (and the index's metadata), as stored. */
      metadata: Record<string, string>;
      /** FP8 weight_scale_inv block size [rows, cols] when F8_E4M3 tensors are present. */
      fp8Block: [number, number] | null;
    };

/** Everything `mla-diff inspect` knows of a checkpoint. */
export interface InspectReport {
  format: 'mla-diff/inspect';
  version: typeof INSPECT_VERSION;
  /** The path as given. */
  path: string;
  container: ContainerFacts;
  files: { path: string; bytes: number }[];
  totalBytes: number;
  tensorCount: number;
  /** general.architecture, or config.json model_type. */
  architecture: string | null;
  /** Whether the architecture has MLA attention (deepseek2, glm-dsa; deepseek_v3, glm_moe_dsa, …). */
  isMla: boolean;
  /** null when not MLA or the config could not be read (see issues). */
  mla: MlaFacts | null;
  kvB: KvBLayout;
  layers: {
    /** block_count / num_hidden_layers, when the file says. */
    declared: number | null;
    /** Layers with any tensor. */
    present: number[];
    /** Layers with attention tensors. */
    attention: number[];
  };
  /** The attention tensors of one layer: --layer, else the first. */
  attention: { layer: number; tensors: InspectTensor[] } | null;
  patterns: LayerPattern[];
  tokenizer: TokenizerFacts;
  /** With --layer: that layer's weights read and summarized (weightValues records, embedding rows `ids`). */
  weights: { layer: number; ids: number[]; records: WeightRecord[] } | null;
  issues: InspectIssue[];
}

/** The report before any tensor data is read. */
export type HeaderReport = Omit<InspectReport, 'weights'>;
