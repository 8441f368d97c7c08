import { MlaDiffError } from '../../../errors';
import type { ErrorCode } from '../../../errors';
import { EXIT, EXIT_FOR } from './exit-codes';
import { handleErrors } from './handle-errors';
import type { IO } from './process-io';

/** Every error code has its exit code; handleErrors returns it, and 3 for what is not an MlaDiffError. */
const silent: IO = { out: () => {}, err: () => {} };
const thrown = (e: Error) => handleErrors(false, silent, () => Promise.reject(e));

describe('exit codes', () => {
  it('classes every error code as bad input (2) or runtime/device failure (3)', () => {
    for (const code of Object.values(EXIT_FOR)) expect([EXIT.badInput, EXIT.internal]).toContain(code);
    const runtime = Object.entries(EXIT_FOR)
      .filter(([, c]) => c === EXIT.internal)
      .map(([k]) => k)
      .sort();
    expect(runtime).toEqual([
      'device-limit',
      'engine-failed',
      'engine-timeout',
      'external-failed',
      'external-timeout',
      'interrupted',
      'write-failed',
    ]);
    expect(EXIT_FOR['device-unavailable']).toBe(EXIT.badInput); // README: "no GPU" for --device webgpu is bad input
  });

  it.each(Object.entries(EXIT_FOR) as [ErrorCode, number][])('handleErrors: %s → exit %i', async (code, exit) => {
    expect(await thrown(new MlaDiffError(code, 'x'))).toBe(exit);
  });

  it('an unexpected error → 3; a result passes through', async () => {
    expect(await thrown(new TypeError('boom'))).toBe(EXIT.internal);
    expect(await handleErrors(false, silent, async () => EXIT.diverge)).toBe(1);
  });
});
