import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import yargs from 'yargs';
import { ROOT } from './doc-lines';
import type { DocLine } from './doc-lines';
import { codeSpans } from './doc-lines';

/** A command of the CLI as yargs sees it: its name, its options (kebab-case, aliases included), which are boolean. */
export interface CliCommand {
  readonly name: string;
  readonly options: ReadonlySet<string>;
  readonly booleans: ReadonlySet<string>;
}

const kebab = (s: string) => s.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`);

// yargs's own typings leave out getOptions(), which every Argv has (the parser's option table)
type Table = { key: Record<string, unknown>; alias: Record<string, string[]>; boolean: string[] };

function optionsOf(y: Argv): { options: Set<string>; booleans: Set<string> } {
  const o = (y as unknown as { getOptions(): Table }).getOptions();
  const aliases = Object.values(o.alias).flat();
  return { options: new Set([...Object.keys(o.key), ...aliases].map(kebab)), booleans: new Set(o.boolean.map(kebab)) };
}

/**
 * The commands main.ts registers (every `xModule` it imports from ./commands/ and uses), each with its options, and
 * the global options (main.ts's own `.option(…)`s, help, version): read from the code, so a new command or flag
 * counts without touching this file.
 */
export function cliCommands(): { commands: CliCommand[]; global: CliCommand } {
  const main = readFileSync(join(ROOT, 'src/surface/cli/main.ts'), 'utf8');
  const imported = [...main.matchAll(/import \{ (\w+Module) \} from '\.\/commands\/([\w-]+)'/g)];
  const used = imported.filter(([, name = '']) => main.split(name).length > 2);
  const commands: CliCommand[] = [];
  for (const [, name = '', file = ''] of used) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- the command modules main.ts names, found at run time
    const mod = (require(`../commands/${file}`) as Record<string, CommandModule>)[name];
    if (!mod) throw new Error(`src/surface/cli/commands/${file}.ts exports no ${name}`);
    const first = [mod.command ?? ''].flat()[0] ?? '';
    const builder = mod.builder;
    const y = yargs([]);
    const built = typeof builder === 'function' ? (builder(y) as Argv) : y.options(builder ?? {});
    commands.push({ name: first.split(' ')[0] ?? '', ...optionsOf(built) });
  }
  const globals = [...main.matchAll(/\.option\('([\w-]+)',\s*\{\s*type:\s*'(\w+)'/g)];
  const global: CliCommand = {
    name: '(global)',
    options: new Set(['help', 'h', 'version', ...globals.map((m) => kebab(m[1] ?? ''))]),
    booleans: new Set(['help', 'version', ...globals.filter((m) => m[2] === 'boolean').map((m) => kebab(m[1] ?? ''))]),
  };
  return { commands, global };
}

/** `mla-diff <command> …` as a doc writes it: the command word and the flags that follow it on the line. */
export interface Invocation {
  readonly at: DocLine;
  readonly command: string;
  readonly flags: readonly string[];
  /** Written as `mla-diff <word>` at the start of a shell line or code span: the word must be a command. */
  readonly explicit: boolean;
}

function flagsOf(segment: string): string[] {
  const bare = segment.replace(/"[^"]*"|'[^']*'|\$\{\{[^}]*\}\}/g, ' ');
  const long = [...bare.matchAll(/(?<![\w-])--([a-zA-Z][\w-]*)/g)].map((m) => m[1] ?? '');
  const short = [...bare.matchAll(/(?<![\w-])-([a-zA-Z])(?![\w-])/g)].map((m) => m[1] ?? '');
  return [...long, ...short];
}

const SHELL = /(^|^\$ |^- run: |^run: |npx |[\s(])mla-diff\s+([a-z][\w-]*)(.*)$/;
const SPAN = /^(?:npx\s+)?mla-diff\s+([a-z][\w-]*)(.*)$/;

/** Every invocation in the lines: shell lines (with `\` and synopsis `[--x]` continuations) and inline code spans. */
export function invocations(lines: readonly DocLine[], commands: ReadonlySet<string>): Invocation[] {
  const found: Invocation[] = [];
  lines.forEach((l, i) => {
    if (l.code) {
      const m = SHELL.exec(l.text.trim());
      if (!m) return;
      let segment = (m[3] ?? '').split(/\s#\s|\s\|\s(?![^[]*\])|&&|;/)[0] ?? ''; // a pipe, not a synopsis's [a | b]
      for (let j = i + 1; j < lines.length; j++) {
        const next = lines[j];
        const more = next?.code && (segment.trimEnd().endsWith('\\') || /^\s+(\[|--)/.test(next.text));
        if (!next || !more) break;
        segment += ` ${(next.text.split(/\s#\s/)[0] ?? '').trim()}`;
      }
      const explicit = m[1] !== ' ' && m[1] !== '(';
      found.push({ at: l, command: m[2] ?? '', flags: flagsOf(segment), explicit });
      return;
    }
    for (const span of codeSpans(l.text)) {
      const m = SPAN.exec(span) ?? /^([a-z][\w-]*)\s+(.*)$/.exec(span);
      if (!m || (!SPAN.test(span) && !commands.has(m[1] ?? ''))) continue;
      found.push({ at: l, command: m[1] ?? '', flags: flagsOf(m[2] ?? ''), explicit: SPAN.test(span) });
    }
  });
  return found;
}

/** Whether `flag` (without dashes) is an option of the command or a global one; `no-x` negates a boolean x. */
export function knows(cmd: CliCommand, global: CliCommand, flag: string): boolean {
  const has = (c: CliCommand) => c.options.has(flag) || (flag.startsWith('no-') && c.booleans.has(flag.slice(3)));
  return has(cmd) || has(global);
}
