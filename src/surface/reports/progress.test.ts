import { Writable } from 'node:stream';
import type { BarStream } from './progress';
import { progressBar } from './progress';

/** A writable that records what the bar writes; `tty` decides whether it claims to be a terminal. */
function sink(tty: boolean): BarStream & { text: () => string } {
  const chunks: string[] = [];
  const w = new Writable({
    write(c, _e, done) {
      chunks.push(String(c));
      done();
    },
  }) as Writable & BarStream & { text: () => string };
  w.isTTY = tty;
  w.columns = 120;
  w.text = () => chunks.join('');
  Object.assign(w, { cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
  return w;
}

describe('progress bar', () => {
  it('draws nothing where stderr is not a terminal (CI logs, pipes)', () => {
    expect(progressBar(sink(false))).toBeNull();
  });

  it('on a terminal, shows the phase, the count and what is running, and restarts per phase', () => {
    const s = sink(true);
    const bar = progressBar(s)!;
    bar.progress({ phase: 'weights', done: 0, total: 1, label: 'weights: synthetic glm-5' });
    bar.progress({ phase: 'pieces', done: 1, total: 4, label: 'case all-heads · step 0, request a' });
    bar.progress({ phase: 'pieces', done: 4, total: 4, label: 'case all-heads · step 3, request a' });
    bar.stop();
    const out = s.text();
    expect(out).toContain('weights');
    expect(out).toContain('0/1 · weights: synthetic glm-5');
    expect(out).toContain('1/4 · case all-heads · step 0, request a');
  });
});
