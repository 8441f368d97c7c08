import { SingleBar } from 'cli-progress';
import type { Params as BarParams } from 'cli-progress';
import type { Progress, ProgressEvent } from '../../trace';

/** What the bar draws on: stderr, or a test's stand-in. cli-progress moves the cursor with escape codes. */
export interface BarStream extends NodeJS.WritableStream {
  isTTY?: boolean;
  columns?: number;
}

export interface ProgressBar {
  progress: Progress;
  stop(): void;
}

/** Filled and empty cells of the bar. */
const BAR = 24;
/** Columns the phase name is padded to, so that bars of successive phases line up. */
const PHASE = 10;

/** What the line needs of what cli-progress passes its format function. */
type Params = Pick<BarParams, 'value' | 'total' | 'startTime' | 'maxWidth'>;

/**
 * One line: `pieces     [████░░░░] 3/7 · case all-heads · step 0, request a · 4 s` for counted work,
 * `reference  · float64 reference · 12 s` for a wait of unknown length (one unit, not done yet).
 * The seconds are the phase's own, and tick while the event loop is free (cli-progress redraws on a
 * timer); the line is cut to the terminal's width, never wrapped.
 */
export function progressLine(p: Params, payload: { phase: string; label: string }, now = Date.now()): string {
  const seconds = `${Math.max(0, Math.floor((now - (p.startTime || now)) / 1000))} s`;
  const phase = payload.phase.padEnd(PHASE);
  const filled = p.total > 0 ? Math.min(BAR, Math.round((p.value / p.total) * BAR)) : 0;
  const line =
    p.total <= 1 && p.value < p.total
      ? `${phase} · ${payload.label} · ${seconds}`
      : `${phase} [${'█'.repeat(filled)}${'░'.repeat(BAR - filled)}] ${p.value}/${p.total} · ${payload.label} · ${seconds}`;
  return p.maxWidth > 1 && line.length >= p.maxWidth ? `${line.slice(0, p.maxWidth - 2)}…` : line;
}

/**
 * A progress line for every wait of a run (weights, pieces, the reference, replay, …) on `stream`,
 * drawn by cli-progress (a well-kept library: redraw throttling, cursor handling). Only on a TTY:
 * elsewhere (CI logs, pipes) it returns null and nothing is drawn. Each phase restarts the line;
 * stop() clears it, so the report that follows starts on a clean line.
 */
export function progressBar(stream: BarStream): ProgressBar | null {
  if (!stream.isTTY) return null;
  const bar = new SingleBar({
    stream,
    format: (_o, p, payload: { phase: string; label: string }) => progressLine(p, payload),
    hideCursor: true,
    clearOnComplete: true,
    fps: 5,
  });
  let shown: { phase: ProgressEvent['phase']; total: number } | null = null;
  return {
    progress: (e) => {
      const payload = { phase: e.phase, label: e.label };
      if (!shown || shown.phase !== e.phase || shown.total !== e.total) {
        if (shown) bar.stop();
        bar.start(e.total, e.done, payload);
        shown = { phase: e.phase, total: e.total };
      } else {
        bar.update(e.done, payload);
      }
    },
    stop: () => {
      if (shown) bar.stop();
      shown = null;
    },
  };
}

/**
 * Progress as log lines (--verbose, where no bar is drawn): each piece through the device paths, and the
 * start of every other phase, with the seconds since the first event: `pieces 3/18 · case all-heads · step 3,
 * request doc · 41.2 s`. A long run in a CI log says where it is and how fast it goes.
 */
export function progressLog(log: (line: string) => void, now: () => number = () => performance.now()): Progress {
  const t0 = now();
  let last: ProgressEvent['phase'] | null = null;
  return (e) => {
    if (e.phase !== 'pieces' && e.phase === last) return;
    last = e.phase;
    log(`${e.phase} ${e.done}/${e.total} · ${e.label} · ${((now() - t0) / 1000).toFixed(1)} s`);
  };
}
