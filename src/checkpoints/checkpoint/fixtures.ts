import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { MlaConfig } from '../../core/model/config';
import { preset } from '../../core/model/presets';
import type { TrainedBpe } from '../tokenizer';
import { trainByteLevelBpe } from '../tokenizer';
import { SyntheticWeights } from '../../core/weights/synthetic';
import { FIXTURE_CORPUS } from './fixture-corpus';
import { writeGgufCheckpoint } from './write-gguf';
import { writeSafetensorsCheckpoint } from './write-safetensors';

/** Vocabulary of the fixture tokenizer: 256 bytes, merges, one special token. */
export const FIXTURE_VOCAB = 512;
export const FIXTURE_LAYERS = 2;

export function fixtureTokenizer(): TrainedBpe {
  return trainByteLevelBpe(FIXTURE_CORPUS, FIXTURE_VOCAB, ['<|endoftext|>']);
}

const vocabSize = (t: TrainedBpe): number => (t.ggufEntries.get('tokenizer.ggml.tokens')!.value as unknown[]).length;

/** The tiny preset with the fixture tokenizer's vocabulary. */
export function tinyFixtureConfig(t: TrainedBpe = fixtureTokenizer()): MlaConfig {
  return { ...preset('tiny'), vocab_size: vocabSize(t) };
}

/**
 * Rows of 256 so that K-quants fit (ggml blocks of 256 along ne[0]): q_a, q_b, kv_a and kv_b
 * take the K-quant; attn_k_b (ne[0] = 32) and o_proj (ne[0] = 64) fall back as llama.cpp does.
 */
export function smallFixtureConfig(t: TrainedBpe = fixtureTokenizer()): MlaConfig {
  return {
    ...preset('tiny'),
    hidden_size: 256,
    num_attention_heads: 2,
    q_lora_rank: 256,
    kv_lora_rank: 256,
    qk_nope_head_dim: 32,
    qk_rope_head_dim: 16,
    v_head_dim: 32,
    vocab_size: vocabSize(t),
  };
}

/** blk.N holds SyntheticWeights(config, seed N); the embedding table is seed 0's. */
export const fixtureLayers = (c: MlaConfig, n = FIXTURE_LAYERS) => Array.from({ length: n }, (_, i) => new SyntheticWeights(c, i));

export interface FixtureFile {
  path: string;
  bytes: number;
}

/**
 * The checkpoint fixtures the scenarios and tests read, written by our own writers from
 * synthetic weights: GGUF in Q8_0 (split k_b/v_b) and Q4_K (merged kv_b, 2 shards), safetensors
 * in BF16 (one file) and FP8 block-scaled (2 shards with an index), each with its tokenizer.
 */
export function writeFixtures(dir: string): FixtureFile[] {
  mkdirSync(dir, { recursive: true });
  const tok = fixtureTokenizer();
  const tiny = tinyFixtureConfig(tok);
  const small = smallFixtureConfig(tok);
  const out: string[] = [];
  out.push(
    ...writeGgufCheckpoint(join(dir, 'tiny-q8_0.gguf'), {
      config: tiny,
      layers: fixtureLayers(tiny),
      type: 'Q8_0',
      kvB: 'split',
      vocab: tok.ggufEntries,
    }),
  );
  out.push(
    ...writeGgufCheckpoint(join(dir, 'small-q4_k.gguf'), {
      config: small,
      layers: fixtureLayers(small),
      type: 'Q4_K',
      kvB: 'merged',
      vocab: tok.ggufEntries,
      shards: 2,
    }),
  );
  writeSafetensorsCheckpoint(join(dir, 'tiny-bf16'), { config: tiny, layers: fixtureLayers(tiny), dtype: 'BF16', tokenizer: tok });
  out.push(join(dir, 'tiny-bf16', 'model.safetensors'));
  writeSafetensorsCheckpoint(join(dir, 'small-fp8'), {
    config: small,
    layers: fixtureLayers(small),
    dtype: 'F8_E4M3',
    shards: 2,
    tokenizer: tok,
  });
  out.push(join(dir, 'small-fp8', 'model.safetensors.index.json'));
  return out.map((path) => ({ path, bytes: statSync(path).size }));
}
