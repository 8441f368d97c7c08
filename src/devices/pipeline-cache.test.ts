import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PipelineDescriptor, PipelineDevice } from './pipeline-cache';
import { MAX_SHADERS, pipelineCache, pipelineCacheFile, readEntries } from './pipeline-cache';

/** A device that compiles by name: a module is { real: code }, a pipeline { pipeline: code }; 'bad' shaders fail. */
function fakeDevice() {
  const log = { sync: [] as string[], async: [] as string[], modules: 0, scopes: 0 };
  const device: PipelineDevice = {
    createShaderModule: (d) => (log.modules++, { real: d.code }),
    createComputePipeline: (d: PipelineDescriptor) => {
      const code = (d.compute.module as { real: string }).real;
      log.sync.push(code);
      return { pipeline: code };
    },
    createComputePipelineAsync: async (d: PipelineDescriptor) => {
      const code = (d.compute.module as { real: string }).real;
      log.async.push(code);
      if (code.includes('bad')) throw new Error('GPUPipelineError');
      return { pipeline: code };
    },
    pushErrorScope: () => void log.scopes++,
    popErrorScope: async () => null,
  };
  return { device, log };
}

/** A cache over `device` whose signatures name files in `dir` (sig.json), warmed for `signature`. */
function warmed(device: PipelineDevice, fileOf: (sig: string) => string, signature = 'glm-5 fp32') {
  const c = pipelineCache(device, fileOf);
  c.warm(signature);
  return c;
}

/** What tfjs's compileProgram does: a module, then a pipeline from it with entry point _start. */
const compile = (device: PipelineDevice, code: string) =>
  device.createComputePipeline({ compute: { module: device.createShaderModule({ code }), entryPoint: '_start' }, layout: 'auto' });

describe('pipelineCache', () => {
  let dir = '';
  beforeEach(() => (dir = mkdtempSync(join(tmpdir(), 'mla-pipelines-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('a second run compiles the first run’s shaders in advance and finds them; a new shader still compiles', async () => {
    const file = join(dir, 'p.json');
    const one = fakeDevice();
    const first = warmed(one.device, () => file);
    await first.ready();
    expect(compile(one.device, 'A')).toEqual({ pipeline: 'A' });
    compile(one.device, 'B');
    expect(first.counts()).toEqual({ warmed: 0, found: 0, compiled: 2 });
    expect(first.save()).toBe(true);
    expect(readEntries(file)).toEqual([
      ['_start', 'A'],
      ['_start', 'B'],
    ]);

    const two = fakeDevice();
    const second = warmed(two.device, () => file);
    await second.ready();
    expect(two.log.async).toEqual(['A', 'B']);
    const modules = two.log.modules;
    expect(compile(two.device, 'B')).toEqual({ pipeline: 'B' });
    expect(two.log.modules).toBe(modules); // a stand-in module: Tint parses nothing twice
    expect(compile(two.device, 'C')).toEqual({ pipeline: 'C' });
    expect(two.log.sync).toEqual(['C']);
    expect(second.counts()).toEqual({ warmed: 2, found: 1, compiled: 1 });
    second.save();
    expect(readEntries(file).map(([, c]) => c)).toEqual(['B', 'C', 'A']); // this run's first, then the earlier ones
  });

  it('a shader that fails in advance compiles when asked (and the device error is its own to report)', async () => {
    const file = join(dir, 'p.json');
    writeFileSync(
      file,
      JSON.stringify({
        format: 'mla-diff-pipelines',
        version: 1,
        shaders: [
          ['_start', 'bad'],
          ['_start', 'A'],
        ],
      }),
    );
    const d = fakeDevice();
    const c = warmed(d.device, () => file);
    await c.ready();
    expect(c.counts().warmed).toBe(1);
    compile(d.device, 'bad');
    expect(d.log.sync).toEqual(['bad']);
    expect(d.log.scopes).toBe(1); // the advance compiles under an error scope: no uncaptured device error
  });

  it.each([
    ['not JSON', '{', []],
    ['another format', JSON.stringify({ format: 'x', shaders: [['_start', 'A']] }), []],
    [
      'partly entries of the wrong shape',
      JSON.stringify({ format: 'mla-diff-pipelines', shaders: [1, ['_start'], ['_start', 2], ['_start', 'A']] }),
      [['_start', 'A']],
    ],
  ])('a cache file that is %s is read for what it holds of use, never an error', (_, text, want) => {
    const file = join(dir, 'p.json');
    writeFileSync(file, text);
    expect(readEntries(file)).toEqual(want);
  });

  it('a missing cache file: compiles as before and writes it; an unwritable one: save says it could not', async () => {
    const d = fakeDevice();
    const c = warmed(d.device, () => join(dir, 'missing', 'p.json'));
    await c.ready();
    compile(d.device, 'A');
    expect(c.save()).toBe(true);
    expect(readEntries(join(dir, 'missing', 'p.json'))).toEqual([['_start', 'A']]);
    writeFileSync(join(dir, 'file'), '');
    const b = fakeDevice();
    const blocked = warmed(b.device, () => join(dir, 'file', 'p.json')); // a path under a file
    compile(b.device, 'A');
    expect(blocked.save()).toBe(false);
  });

  it('one file a scenario family: a run warms only its own family’s shaders; without a cache nothing is read or written', async () => {
    const fileOf = (sig: string) => join(dir, `${sig}.json`);
    const one = fakeDevice();
    const a = warmed(one.device, fileOf, 'glm-5');
    compile(one.device, 'G');
    a.save();
    a.warm('deepseek-v3'); // a second scenario in the same process
    compile(one.device, 'D');
    a.save();
    expect([readEntries(fileOf('glm-5')), readEntries(fileOf('deepseek-v3'))]).toEqual([[['_start', 'G']], [['_start', 'D']]]);
    const two = fakeDevice();
    await warmed(two.device, fileOf, 'deepseek-v3').ready();
    expect(two.log.async).toEqual(['D']);
    const none = fakeDevice();
    const off = pipelineCache(none.device, null);
    off.warm('glm-5');
    compile(none.device, 'G');
    expect([off.save(), none.log.async, none.log.sync]).toEqual([true, [], ['G']]);
  });

  it('keeps at most MAX_SHADERS; the file is per identity under XDG_CACHE_HOME; MLA_DIFF_PIPELINE_CACHE=off switches it off', async () => {
    const file = join(dir, 'p.json');
    const many = Array.from({ length: MAX_SHADERS + 5 }, (_, i) => ['_start', `S${i}`]);
    writeFileSync(file, JSON.stringify({ format: 'mla-diff-pipelines', version: 1, shaders: many }));
    expect(readEntries(file).length).toBe(MAX_SHADERS);
    const a = pipelineCacheFile('webgpu H200', { XDG_CACHE_HOME: dir });
    expect(a!.startsWith(join(dir, 'mla-diff', 'pipelines-'))).toBe(true);
    expect(pipelineCacheFile('webgpu lavapipe', { XDG_CACHE_HOME: dir })).not.toBe(a);
    expect(pipelineCacheFile('webgpu H200', { MLA_DIFF_PIPELINE_CACHE: 'off' })).toBeNull();
    expect(JSON.parse(readFileSync(file, 'utf8')).shaders.length).toBe(MAX_SHADERS + 5); // reading never rewrites
  });
});
