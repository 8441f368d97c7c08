import { colorWanted, makeStyle, PLAIN } from './style';

const ANSI = /\u001b\[/;

describe('colorWanted', () => {
  it.each<[string, NodeJS.ProcessEnv, boolean, boolean]>([
    ['NO_COLOR=1 on a TTY', { NO_COLOR: '1' }, true, false],
    ['NO_COLOR set but empty, on a TTY', { NO_COLOR: '' }, true, false],
    ['NO_COLOR wins over FORCE_COLOR', { NO_COLOR: '', FORCE_COLOR: '1' }, true, false],
    ['FORCE_COLOR=1, not a TTY', { FORCE_COLOR: '1' }, false, true],
    ['FORCE_COLOR=0 on a TTY', { FORCE_COLOR: '0' }, true, false],
    ['FORCE_COLOR=1 with TERM=dumb', { FORCE_COLOR: '1', TERM: 'dumb' }, false, true],
    ['not a TTY', {}, false, false],
    ['not a TTY, TERM=xterm-256color', { TERM: 'xterm-256color' }, false, false],
    ['a TTY', {}, true, true],
    ['a TTY, TERM=xterm-256color', { TERM: 'xterm-256color' }, true, true],
    ['a TTY with TERM=dumb', { TERM: 'dumb' }, true, false],
  ])('%s → %p', (_what, env, isTTY, want) => {
    expect(colorWanted(env, isTTY)).toBe(want);
  });
});

describe('makeStyle', () => {
  const fns = ['ok', 'bad', 'warn', 'dim', 'bold', 'mark'] as const;

  it.each(fns)('plain %s returns its text unchanged', (f) => {
    expect(makeStyle(false)[f]('text ◀')).toBe('text ◀');
    expect(PLAIN[f]('text')).toBe('text');
  });

  it.each(fns)('colour %s wraps its text in ANSI escapes', (f) => {
    const s = makeStyle(true)[f]('text');
    expect(s).toMatch(ANSI);
    expect(s.replace(/\u001b\[[0-9;]*m/g, '')).toBe('text');
  });

  it('colour does not depend on the environment', () => {
    const saved = process.env['NO_COLOR'];
    process.env['NO_COLOR'] = '1';
    try {
      expect(makeStyle(true).bad('x')).toMatch(ANSI);
    } finally {
      if (saved === undefined) delete process.env['NO_COLOR'];
      else process.env['NO_COLOR'] = saved;
    }
  });
});
