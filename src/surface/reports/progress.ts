import { SingleBar } from 'cli-progress';
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

/**
 * A progress bar for long work (weight upload, the pieces of a schedule) on `stream`, drawn by
 * cli-progress (a well-kept library: redraw throttling, terminal width, cursor handling). Only on a
 * TTY: elsewhere (CI logs, pipes) it returns null and nothing is drawn.
 */
export function progressBar(stream: BarStream): ProgressBar | null {
  if (!stream.isTTY) return null;
  const bar = new SingleBar({
    stream,
    format: '{phase} [{bar}] {value}/{total} · {label}',
    barsize: 24,
    hideCursor: true,
    clearOnComplete: true,
    fps: 10,
  });
  let shown: { phase: ProgressEvent['phase']; total: number } | null = null;
  return {
    progress: (e) => {
      const payload = { phase: e.phase.padEnd(7), label: e.label };
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
