import { MlaDiffError } from '../../errors';
import type { SweepPoint, SweepReport } from './report';
import { summarize, SWEEP_FORMAT, SWEEP_VERSION } from './report';
import type { ShardSpec } from './shard';
import { shardText } from './shard';

/** A shard's report read from a file. */
export interface ShardFile {
  file: string;
  report: unknown;
}

function asSweep(f: ShardFile): SweepReport {
  const r = f.report as Partial<SweepReport> | null;
  if (!r || typeof r !== 'object' || r.format !== SWEEP_FORMAT || !Array.isArray(r.points) || !r.matrix) {
    throw new MlaDiffError(
      'sweep-mismatch',
      `not a ${SWEEP_FORMAT} report`,
      { file: f.file },
      'merge joins the JSON files of `mla-diff sweep --shard i/n --out FILE`',
    );
  }
  if (r.version !== SWEEP_VERSION)
    throw new MlaDiffError('sweep-mismatch', `sweep report version ${String(r.version)}; this mla-diff reads version ${SWEEP_VERSION}`, {
      file: f.file,
    });
  return r as SweepReport;
}

/**
 * Joins shard reports of one matrix into one report, as if it had run unsharded: the same matrix
 * hash in every file, no point twice, and (unless allowMissing) every point of the matrix present.
 */
export function mergeReports(files: readonly ShardFile[], opts: { allowMissing: boolean; toolVersion: string }): SweepReport {
  const reports = files.map(asSweep);
  const head = reports[0];
  if (!head) throw new MlaDiffError('usage', 'name the shard reports to merge', { field: 'reports' });
  const where = new Map<number, string>();
  const points: SweepPoint[] = [];
  reports.forEach((r, k) => {
    const file = files[k]!.file;
    if (r.matrix.hash !== head.matrix.hash) {
      throw new MlaDiffError(
        'sweep-mismatch',
        `comes from another matrix (${r.matrix.name} ${r.matrix.hash.slice(0, 12)}, ` +
          `not ${head.matrix.name} ${head.matrix.hash.slice(0, 12)} of ${files[0]!.file})`,
        { file },
        'merge the shards of one sweep; a matrix edited between shard runs changes its hash',
      );
    }
    for (const p of r.points) {
      const seen = where.get(p.index);
      if (seen !== undefined)
        throw new MlaDiffError(
          'sweep-mismatch',
          `point ${p.id} (#${p.index}) is also in ${seen}`,
          { file },
          'each point must come from one shard: the same --shard given twice?',
        );
      where.set(p.index, file);
      points.push(p);
    }
  });
  points.sort((a, b) => a.index - b.index);
  const missing = [...Array(head.matrix.points).keys()].filter((i) => !where.has(i)).map((i) => `#${i}`);
  if (missing.length && !opts.allowMissing) {
    const shards = reports.map((r) => (r.shard ? shardText(r.shard) : 'all')).join(', ');
    throw new MlaDiffError(
      'sweep-incomplete',
      `${missing.length} of the matrix's ${head.matrix.points} points are in none of the reports ` +
        `(${missing.slice(0, 10).join(' ')}${missing.length > 10 ? ' …' : ''}); shards given: ${shards}`,
      {},
      'merge every shard i/n for i = 1..n, or pass --allow-missing',
    );
  }
  const merged: ShardSpec[] = reports.flatMap((r) => r.merged ?? [r.shard ?? { index: 1, count: 1 }]);
  return {
    format: SWEEP_FORMAT,
    version: SWEEP_VERSION,
    tool: { name: 'mla-diff', version: opts.toolVersion },
    created: new Date().toISOString(),
    matrix: head.matrix,
    shard: null,
    merged,
    missing,
    points,
    summary: summarize(points),
    seconds: reports.reduce((s, r) => s + r.seconds, 0),
  };
}
