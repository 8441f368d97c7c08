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
