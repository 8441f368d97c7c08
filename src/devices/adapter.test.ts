import type { Missing } from './adapter';
import { dawnFlags, webgpuUnavailable } from './adapter';

describe('dawnFlags', () => {
  it('reads MLA_DIFF_DAWN_FLAGS as ;-separated Dawn flags, none when unset or blank', () => {
    expect(dawnFlags({})).toEqual([]);
    expect(dawnFlags({ MLA_DIFF_DAWN_FLAGS: '  ' })).toEqual([]);
    expect(dawnFlags({ MLA_DIFF_DAWN_FLAGS: 'enable-dawn-features=disable_robustness,disable_workgroup_init' })).toEqual([
      'enable-dawn-features=disable_robustness,disable_workgroup_init',
    ]);
    expect(dawnFlags({ MLA_DIFF_DAWN_FLAGS: 'enable-dawn-features=a; disable-dawn-features=b;' })).toEqual([
      'enable-dawn-features=a',
      'disable-dawn-features=b',
    ]);
  });
});

describe('webgpuUnavailable', () => {
  it('is device-unavailable on --device with a hint, whichever is missing (the probe in a child or Dawn in-process)', () => {
    for (const missing of ['package', 'driver', 'adapter'] satisfies Missing[]) {
      const e = webgpuUnavailable(missing);
      expect({ code: e.code, where: e.where, hint: Boolean(e.hint) }).toEqual({
        code: 'device-unavailable',
        where: { field: '--device' },
        hint: true,
      });
    }
    expect(webgpuUnavailable('package').hint).toMatch(/^npm install webgpu@/);
  });
});
