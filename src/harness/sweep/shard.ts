import { MlaDiffError } from '../../errors';

/**
 * `--shard i/n`: 1-based like jest's --shard (i = 1..n). Points are dealt round-robin by their
 * index in the full matrix: shard i runs the points whose index % n = i − 1, so neighbouring
 * points (which differ in the fastest axis, often the costly one) land on different machines.
 * The shards of one n are disjoint and together are the whole matrix.
 */
export interface ShardSpec {
  index: number;
  count: number;
}

export function parseShard(text: string): ShardSpec {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || !(count >= 1) || !(index >= 1) || index > count) {
    throw new MlaDiffError(
      'usage',
      `expected i/n with 1 ≤ i ≤ n (1-based), got "${text}"`,
      { field: '--shard' },
      'e.g. --shard 1/4 … --shard 4/4; in GitHub Actions --shard ${{ matrix.shard }}/4, ' +
        'in a Kubernetes indexed job $((JOB_COMPLETION_INDEX + 1))/N',
    );
  }
  return { index, count };
}

/** Whether the point at `pointIndex` (0-based, of the full matrix) belongs to the shard. */
export const inShard = (pointIndex: number, shard: ShardSpec | null): boolean => !shard || pointIndex % shard.count === shard.index - 1;

export const shardText = (s: ShardSpec): string => `${s.index}/${s.count}`;
