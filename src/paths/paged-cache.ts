import * as tf from '@tensorflow/tfjs-core';

/**
 * A paged latent cache on the device, as vLLM keeps it: `numSlots` rows of [kv_c_normed | k_pe]
 * (num_blocks × block_size flattened). Unwritten slots hold NaN, the FlashMLA tests' poison: a read
 * through a wrong block table or slot mapping turns into NaN instead of plausible numbers.
 */
export class PagedLatentCache {
  private rows: tf.Tensor2D; // [numSlots, L+R]

  constructor(
    numSlots: number,
    readonly width: number,
  ) {
    this.rows = tf.keep(tf.fill([numSlots, width], NaN)) as tf.Tensor2D;
  }

  /** concat_and_cache_mla: rows [n, L+R] into `slots`, before attention reads the cache. */
  write(slots: Int32Array, rows: tf.Tensor2D): void {
    if (!slots.length) return;
    const next = tf.keep(tf.tensorScatterUpdate(this.rows, tf.tensor2d(slots, [slots.length, 1], 'int32'), rows)) as tf.Tensor2D;
    this.rows.dispose();
    this.rows = next;
  }

  /** gather_and_maybe_dequant_cache: the rows of `slots`, [n, L+R]. */
  gather(slots: Int32Array): tf.Tensor2D {
    return tf.gather(this.rows, tf.tensor1d(slots, 'int32')) as tf.Tensor2D;
  }

  dispose(): void {
    this.rows.dispose();
  }
}
