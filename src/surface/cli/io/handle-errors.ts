import { isMlaDiffError } from '../../../errors';
import { EXIT, EXIT_FOR } from './exit-codes';
import type { IO } from './process-io';

export { EXIT } from './exit-codes';

/**
 * Runs a command and maps what it throws to one clear message and an exit code. The stack is
 * shown only with --verbose.
 */
export async function handleErrors(verbose: boolean, io: IO, fn: () => Promise<number>): Promise<number> {
  try {
    return await fn();
  } catch (e) {
    if (isMlaDiffError(e)) {
      io.err(`mla-diff: error [${e.code}] ${e.headline()}`);
      if (e.hint) io.err(`  hint: ${e.hint}`);
      if (verbose && e.stack) io.err(e.stack);
      return EXIT_FOR[e.code];
    }
    const err = e instanceof Error ? e : new Error(String(e));
    io.err(`mla-diff: internal error: ${err.message}`);
    io.err(verbose ? (err.stack ?? '') : '  (pass --verbose for the stack trace)');
    return EXIT.internal;
  }
}
