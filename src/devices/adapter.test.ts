import { dawnFlags } from './adapter';

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
