import { readdirSync, readFileSync } from 'node:fs';
import { constants } from 'node:os';

/**
 * How a signal stops a run without leaving anything behind. Whatever starts a process or writes a
 * temp directory registers a stop action for as long as it lives (onStop); the CLI's signal handler
 * (guardProcess) and a sweep worker's call stopRun, which runs every action synchronously, kills
 * before removals (a backend still running could write into a directory being removed), and returns
 * what they have to say (a kept exchange directory) for the one line. The actions are listeners of
 * two events of the process object: the registry is the process's own, as its 'exit' listeners are.
 */
export type StopPhase = 'kill' | 'remove';
const EVENT: Readonly<Record<StopPhase, string>> = { kill: 'mla-diff:stop-kill', remove: 'mla-diff:stop-remove' };

/** A stop action: kills or removes, synchronously, and may return a note for the interrupt line. */
export type StopAction = () => string | void;

/** What of the process the registry uses: `process`, or a stand-in in tests. */
export interface StopHost {
  on(event: string, fn: StopAction): unknown;
  removeListener(event: string, fn: StopAction): unknown;
  listeners(event: string): unknown[];
}

/** Registers `fn` for the `phase` of a stop; returns the function that unregisters it (call it in a finally). */
export function onStop(phase: StopPhase, fn: StopAction, host: StopHost = process): () => void {
  host.on(EVENT[phase], fn);
  return () => void host.removeListener(EVENT[phase], fn);
}

/** Runs every kill action, then every removal; one that throws does not keep the others from running. The notes they return. */
export function stopRun(host: StopHost = process, between?: () => void): string[] {
  const notes: string[] = [];
  const run = (phase: StopPhase) => {
    for (const fn of host.listeners(EVENT[phase]) as StopAction[]) {
      try {
        const note = fn();
        if (note) notes.push(note);
      } catch {
        // a failed kill or removal must not keep the next one from running, nor the process from exiting
      }
    }
  };
  run('kill');
  between?.();
  run('remove');
  return notes;
}

/** The shell's convention for a process ended by a signal: 128 + its number (SIGINT 130, SIGTERM 143, SIGHUP 129). */
export const signalExit = (signal: NodeJS.Signals): number => 128 + (constants.signals[signal] ?? 0);

/** pid → [parent pid, process group, session] of every process /proc lists (empty where there is no /proc). */
function processTable(): Map<number, [number, number, number]> {
  const table = new Map<number, [number, number, number]>();
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return table;
  }
  for (const name of names) {
    if (!/^\d+$/.test(name)) continue;
    try {
      // "pid (comm) state ppid pgrp session …": comm may hold spaces and parentheses, so read after the last ')'.
      const stat = readFileSync(`/proc/${name}/stat`, 'latin1');
      const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      table.set(Number(name), [Number(f[1]), Number(f[2]), Number(f[3])]);
    } catch {
      // gone meanwhile
    }
  }
  return table;
}

/**
 * Every process of what `leader` started: its process group, its session (a child that made its own
 * group with setpgid stays in it), and the descendants of those (a child that left the session with
 * setsid while its parent lives). A daemon that forked twice and left the session escapes them all.
 */
export function treeOf(leader: number, table = processTable()): number[] {
  // The leader itself is one of its session (detached: setsid); once it is reaped its pid is free, so no bare pid is trusted.
  const members = new Set<number>();
  for (const [pid, [, pgid, sid]] of table) if (pgid === leader || sid === leader) members.add(pid);
  const children = new Map<number, number[]>();
  for (const [pid, [ppid]] of table) children.set(ppid, [...(children.get(ppid) ?? []), pid]);
  const queue = [...members];
  while (queue.length)
    for (const c of children.get(queue.pop()!) ?? []) {
      if (members.has(c)) continue;
      members.add(c);
      queue.push(c);
    }
  members.delete(process.pid);
  return [...members];
}

const tryKill = (pid: number) => {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone (ESRCH)
  }
};

/**
 * SIGKILLs everything `leader` (a process started with `detached: true`: its own session and group)
 * started, twice over: a process forked while the first pass ran is caught by the second. Synchronous,
 * so it can run inside a signal handler or an 'exit' listener.
 */
export function killTree(leader: number): void {
  for (let pass = 0; pass < 2; pass++) {
    const tree = treeOf(leader);
    tryKill(-leader);
    for (const pid of tree) tryKill(pid);
  }
}
