import { writeFileSync } from 'node:fs';
import { toolVersion } from '../../version';
import { isMlaDiffError, MlaDiffError } from '../../errors';
import { runScenario } from '../run/run-scenario';
import type { DeviceRequest } from '../../devices/runtime';
import { selectRuntime } from '../../devices/select';
import { signalExit, stopRun } from '../external/stop';
import { loadMatrix, scenarioOf } from './matrix';

/**
 * One sweep point in its own process (the pool starts one per point, --jobs at a time):
 * `node worker.js <matrix> <index> <hash> <device> <out.json>` writes the point's run report to
 * out.json. Exit 0 when it ran (whatever the verdict), 2 bad input, 3 internal error.
 */
export async function runPoint(argv: readonly string[]): Promise<void> {
  const [file, index, hash, device, out] = argv;
  if (!file || !index || !hash || !device || !out) throw new MlaDiffError('usage', 'worker.js <matrix> <index> <hash> <device> <out.json>');
  const m = loadMatrix(file, { validate: false });
  if (m.hash !== hash) throw new MlaDiffError('sweep-mismatch', 'the matrix changed while the sweep ran', { file });
  const scenario = scenarioOf(m, Number(index));
  const runtime = await selectRuntime(device as DeviceRequest);
  const report = await runScenario(scenario, { runtime, toolVersion: toolVersion() });
  writeFileSync(out, JSON.stringify(report));
}

if (require.main === module) {
  // the pool's SIGTERM (the sweep was stopped) or a Ctrl-C at the terminal: the point's backend and exchange directory go with it
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const)
    process.on(signal, () => {
      stopRun();
      process.exit(signalExit(signal));
    });
  runPoint(process.argv.slice(2)).then(
    () => process.exit(0),
    (e: unknown) => {
      process.stderr.write(
        `${isMlaDiffError(e) ? `[${e.code}] ${e.headline()}` : `internal error: ${e instanceof Error ? e.message : String(e)}`}\n`,
      );
      process.exit(isMlaDiffError(e) ? 2 : 3);
    },
  );
}
