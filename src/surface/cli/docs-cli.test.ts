import { at, docLines, userDocs } from './test-utils/doc-lines';
import { cliCommands, invocations, knows } from './test-utils/cli-options';

// The README's command list and every `mla-diff <command> --flag` of README.md and docs/*.md against the CLI itself:
// the commands main.ts registers and the options each one's yargs builder declares. A failure names the doc line.

const lines = userDocs().flatMap(docLines);
const { commands, global } = cliCommands();

describe("the docs against the CLI's commands and options", () => {
  it('reads the commands from main.ts', () => {
    expect(commands.map((c) => c.name)).toEqual(expect.arrayContaining(['run', 'report', 'compare', 'rejudge', 'sweep']));
    expect(commands.find((c) => c.name === 'run')?.options.has('junit')).toBe(true);
    expect(global.booleans.has('wide')).toBe(true);
  });

  it("README's command list (## Command line) is every command the CLI registers, once", () => {
    const readme = lines.filter((l) => l.file === 'README.md');
    const start = readme.findIndex((l) => /^## Command line/.test(l.text));
    const block: typeof readme = [];
    for (const l of readme.slice(start + 1)) {
      if (l.code) block.push(l);
      else if (block.length > 0 && /^\s*```/.test(l.text)) break;
    }
    const listed = block.flatMap((l) => {
      const m = /^mla-diff ([a-z][\w-]*)/.exec(l.text);
      return m ? [{ l, name: m[1] ?? '' }] : [];
    });
    const names = new Set(commands.map((c) => c.name));
    const drift = [
      ...(start < 0 ? ['README.md: no "## Command line" section'] : []),
      ...listed.filter((c) => !names.has(c.name)).map((c) => at(c.l, `\`${c.name}\` is not a command of the CLI`)),
      ...listed.filter((c, i) => listed.findIndex((d) => d.name === c.name) !== i).map((c) => at(c.l, `\`${c.name}\` is listed twice`)),
      ...[...names]
        .filter((n) => !listed.some((c) => c.name === n))
        .map((n) => `README.md:${(block[0]?.line ?? 1) - 1}: the command list lacks \`mla-diff ${n}\` (registered in main.ts)`),
    ];
    expect(drift).toEqual([]);
  });

  it('every `mla-diff <command> --flag` in README.md and docs/*.md is an option of that command', () => {
    const byName = new Map(commands.map((c) => [c.name, c]));
    const drift = invocations(lines, new Set(byName.keys())).flatMap((inv) => {
      const cmd = byName.get(inv.command);
      if (!cmd) return inv.explicit ? [at(inv.at, `\`mla-diff ${inv.command}\`: no such command`)] : [];
      return inv.flags
        .filter((f) => !knows(cmd, global, f))
        .map((f) => at(inv.at, `\`mla-diff ${inv.command}\` has no option ${f.length === 1 ? '-' : '--'}${f}`));
    });
    expect(drift).toEqual([]);
  });

  it('finds the flags of shell lines, continuations and code spans', () => {
    const doc = (text: string, code: boolean, line = 1) => ({ file: 'x.md', line, text, code });
    const found = invocations(
      [
        doc('npx mla-diff run a.yaml --device wasm \\', true),
        doc('  --format json --out "r --q.json"   # --comment', true, 2),
        doc('mla-diff sweep <matrix.yaml> [--jobs N | -j N] | head -1', true, 3),
        doc('                          [--shard i/n]', true, 4),
        doc('then `run … --golden g.json`, `mla-diff nope -x` and `merge_attn_states` (`--quiet`)', false, 5),
      ],
      new Set(['run', 'sweep']),
    );
    expect(found.map((i) => [i.at.line, i.command, i.flags, i.explicit])).toEqual([
      [1, 'run', ['device', 'format', 'out'], true],
      [3, 'sweep', ['jobs', 'shard', 'j'], true],
      [5, 'run', ['golden'], false],
      [5, 'nope', ['x'], true],
    ]);
  });
});
