import { Writable } from 'node:stream';
import type { BarStream } from './progress';
import { progressBar, progressLine, progressLog } from './progress';

/** A writable that records what the bar writes; `tty` decides whether it claims to be a terminal. */
function sink(tty: boolean, columns = 120): BarStream & { text: () => string } {
  const chunks: string[] = [];
  const w = new Writable({
    write(c, _e, done) {
      chunks.push(String(c));
      done();
    },
  }) as Writable & BarStream & { text: () => string };
  w.isTTY = tty;
  w.columns = columns;
  w.text = () => chunks.join('');
  Object.assign(w, { cursorTo: () => true, clearLine: () => true, moveCursor: () => true });
  return w;
}

/** Erase-line escape (readline.clearLine, what cli-progress clears with). */
const CLEAR = '\x1b[2K';

describe('progress bar', () => {
  it('draws nothing where stderr is not a terminal (CI logs, pipes)', () => {
    expect(progressBar(sink(false))).toBeNull();
  });

  it('on a terminal, shows the phase, the count and what is running, restarts per phase, and clears on stop', () => {
    const s = sink(true);
    const bar = progressBar(s)!;
    bar.progress({ phase: 'weights', done: 0, total: 7, label: 'weights: synthetic glm-5 · q_a_proj' });
    bar.progress({ phase: 'pieces', done: 1, total: 4, label: 'case all-heads · step 0, request a' });
    bar.progress({ phase: 'reference', done: 0, total: 1, label: 'float64 reference' });
    const drawn = s.text();
    bar.stop();
    expect(drawn).toContain('weights');
    expect(drawn).toContain('0/7 · weights: synthetic glm-5 · q_a_proj · 0 s');
    expect(drawn).toContain('1/4 · case all-heads · step 0, request a');
    expect(drawn).toContain('reference  · float64 reference · 0 s');
    const after = s.text().slice(drawn.length);
    expect(after).toContain('\x1b[?25h'); // the cursor shown again
    expect(after.endsWith(CLEAR)).toBe(true); // and the last line erased: the report starts on a clean line
  });

  it('stop before any progress writes nothing', () => {
    const s = sink(true);
    progressBar(s)!.stop();
    expect(s.text()).toBe('');
  });
});

describe('progressLog', () => {
  it('logs every piece and the start of each other phase, with the seconds since the first event', () => {
    const lines: string[] = [];
    let t = 1_000;
    const progress = progressLog(
      (l) => lines.push(l),
      () => t,
    );
    progress({ phase: 'weights', done: 0, total: 7, label: 'q_a_proj' });
    progress({ phase: 'weights', done: 1, total: 7, label: 'q_b_proj' });
    t += 2_500;
    progress({ phase: 'pieces', done: 0, total: 2, label: 'case c · step 0, request a' });
    progress({ phase: 'pieces', done: 1, total: 2, label: 'case c · step 1, request a' });
    progress({ phase: 'compare', done: 0, total: 40, label: 'case c · records compared' });
    progress({ phase: 'compare', done: 1, total: 40, label: 'case c · records compared' });
    expect(lines).toEqual([
      'weights 0/7 · q_a_proj · 0.0 s',
      'pieces 0/2 · case c · step 0, request a · 2.5 s',
      'pieces 1/2 · case c · step 1, request a · 2.5 s',
      'compare 0/40 · case c · records compared · 2.5 s',
    ]);
  });
});

describe('progressLine', () => {
  const at = (value: number, total: number, maxWidth = 200) => ({ value, total, startTime: 1_000, maxWidth });
  const payload = { phase: 'pieces', label: 'case all-heads · step 3, request d' };

  it('counted work: a bar, done/total, what runs, the phase seconds', () => {
    expect(progressLine(at(2, 4), payload, 13_500)).toBe(
      `pieces     [${'█'.repeat(12)}${'░'.repeat(12)}] 2/4 · case all-heads · step 3, request d · 12 s`,
    );
  });

  it('a wait of unknown length (one unit): no bar, the seconds it has lasted', () => {
    expect(progressLine(at(0, 1), { phase: 'replay', label: 'stage replay' }, 4_000)).toBe('replay     · stage replay · 3 s');
    expect(progressLine(at(1, 1), { phase: 'replay', label: 'stage replay' }, 4_000)).toContain('1/1');
  });

  it('never wider than the terminal', () => {
    const line = progressLine(at(2, 4, 40), payload, 2_000);
    expect(line.length).toBeLessThan(40);
    expect(line.endsWith('…')).toBe(true);
  });
});
