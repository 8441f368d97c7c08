import { MlaDiffError } from '../errors';

/** The MlaDiffError code `fn` throws (tests assert codes, not prose); a marker when it throws something else or nothing. */
export function thrownCode(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return e instanceof MlaDiffError ? e.code : 'not an MlaDiffError';
  }
  return 'nothing thrown';
}

/** Runs `fn`, which must throw an MlaDiffError, and returns that error. */
export function failure(fn: () => unknown): MlaDiffError {
  try {
    fn();
  } catch (e) {
    if (e instanceof MlaDiffError) return e;
    throw new Error(`expected an MlaDiffError, got ${String(e)}`, { cause: e });
  }
  throw new Error('expected an MlaDiffError, nothing was thrown');
}
