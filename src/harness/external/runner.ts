import execa from 'execa';
import type { ErrorCode } from '../../errors';
import { MlaDiffError } from '../../errors';

/** Lines of stderr an error quotes. */
const TAIL_LINES = 15;

export interface CommandOptions {
  /** The scenario file's directory. */
  cwd: string;
  /** MLA_DIFF_REQUEST, MLA_DIFF_DIR, MLA_DIFF_OUT. */
  env: Record<string, string>;
  timeoutS: number;
  /** Named in errors. */
  label: string;
  /** The codes and field of its errors: external-timeout / external-failed at external.* unless given. */
  errors?: { timeout: ErrorCode; failed: ErrorCode; field: string; hint: string };
}

const tail = (text: string) => text.trimEnd().split('\n').slice(-TAIL_LINES).join('\n');

/**
 * Runs the backend's command through the shell, in its own process group so that a timeout kills
 * everything it started, and so does mla-diff's exit while it runs (an interrupt: see guardProcess).
 * Resolves with its stdout and stderr; throws external-timeout past the limit and external-failed
 * (exit code or signal, the last lines of stderr) when it fails.
 */
export async function runBackend(command: string, o: CommandOptions): Promise<{ stdout: string; stderr: string; seconds: number }> {
  const t0 = performance.now();
  const child = execa(command, {
    shell: true,
    cwd: o.cwd,
    env: o.env,
    extendEnv: true,
    stdin: 'ignore',
    reject: false,
    detached: true,
    buffer: true,
    stripFinalNewline: false,
  });
  let timedOut = false;
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      child.kill('SIGKILL');
    }
  };
  const timer = setTimeout(() => {
    timedOut = true;
    killGroup();
  }, o.timeoutS * 1000);
  // In its own process group, Ctrl-C at the terminal does not reach it: if mla-diff exits first (SIGINT, SIGTERM, a crash), so does it.
  process.once('exit', killGroup);
  const r = await child.finally(() => {
    clearTimeout(timer);
    process.removeListener('exit', killGroup);
  });
  const seconds = (performance.now() - t0) / 1000;
  const e = o.errors;
  if (timedOut) {
    throw new MlaDiffError(
      e?.timeout ?? 'external-timeout',
      `${o.label} ran past its timeout of ${o.timeoutS} s and was killed`,
      { field: e ? `${e.field}.timeout_s` : 'external.timeout_s' },
      e ? `raise ${e.field}: timeout_s` : 'raise external: timeout_s, or make the backend faster',
    );
  }
  if (r.exitCode !== 0 || r.failed) {
    const how = r.signal ? `was killed by ${r.signal}` : `exited with code ${r.exitCode}`;
    const err = tail(r.stderr ?? '');
    throw new MlaDiffError(
      e?.failed ?? 'external-failed',
      `${o.label} ${how}${err ? `; its stderr ends:\n${err}` : ' (no stderr)'}`,
      { field: e?.field ?? 'external.command' },
      e?.hint ?? `the command: ${command}`,
    );
  }
  return { stdout: r.stdout ?? '', stderr: r.stderr ?? '', seconds };
}
