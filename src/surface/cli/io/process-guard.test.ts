import { EventEmitter } from 'node:events';
import { PassThrough } from 'node:stream';
import { onStop, signalExit, stopRun } from '../../../harness/external/stop';
import { EXIT } from './exit-codes';
import type { GuardedProcess } from './process-guard';
import { guardProcess } from './process-guard';

/** A stand-in process: an EventEmitter with stdout/stderr that record, and an exit that throws its code instead of ending jest. */
function fakeProcess() {
  const p = new EventEmitter() as EventEmitter & GuardedProcess & { said: () => string };
  let text = '';
  const stderr = new PassThrough();
  stderr.on('data', (c: Buffer) => (text += String(c)));
  Object.assign(p, {
    stdout: new PassThrough(),
    stderr,
    setUncaughtExceptionCaptureCallback: () => {},
    exit: (code: number) => {
      throw Object.assign(new Error('exit'), { exitCode: code });
    },
    said: () => text,
  });
  return p;
}

const exitOf = (f: () => void): number => {
  try {
    f();
  } catch (e) {
    return (e as { exitCode: number }).exitCode;
  }
  return -1;
};

describe('guardProcess: signals', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s: kills before it removes, one line with the notes, exit %i', async (signal, code) => {
    const p = fakeProcess();
    guardProcess(p, false);
    const order: string[] = [];
    onStop('remove', () => void order.push('remove'), p);
    onStop('remove', () => 'exchange directory kept: /tmp/x', p);
    onStop('kill', () => void order.push('kill'), p);
    onStop(
      'kill',
      () => {
        throw new Error('a kill that fails');
      },
      p,
    );
    expect(exitOf(() => p.emit(signal))).toBe(code);
    await new Promise((t) => setImmediate(t));
    expect(order).toEqual(['kill', 'remove']);
    expect(p.said()).toBe(`mla-diff: interrupted (${signal}); exchange directory kept: /tmp/x\n`);
    expect(p.listenerCount(signal)).toBe(0); // a second signal gets the default action: the process ends at once
  });

  it('the exit codes are the shell convention, and EXIT names the two the docs list', () => {
    expect(signalExit('SIGINT')).toBe(EXIT.sigint);
    expect(signalExit('SIGTERM')).toBe(EXIT.sigterm);
  });

  it('an unregistered action does not run; stopRun without actions says nothing', () => {
    const p = fakeProcess();
    let ran = false;
    const off = onStop('kill', () => void (ran = true), p);
    off();
    expect(stopRun(p)).toEqual([]);
    expect(ran).toBe(false);
  });
});
