import { comparedStages, dropsValues, retainedStages, STATS_ONLY_FROM } from './retain';
import { STAGE_NAMES } from '../../trace/stages';

describe('comparedStages', () => {
  it('engine paths alone: the stages two of them record; MQA-only and context stages are statistics only', () => {
    const present = ['mha', 'mqa', 'cold'] as const;
    const mqa = comparedStages('mqa', present);
    expect(mqa.has('q_nope') && mqa.has('lse') && mqa.has('kv_cache')).toBe(true);
    expect(mqa.has('ql_nope') || mqa.has('mqa_q') || mqa.has('split_lse') || mqa.has('W_UK_T')).toBe(false);
    const mha = comparedStages('mha', present);
    expect(mha.has('kv_nope') && mha.has('k')).toBe(true); // shared with cold
    expect(mha.has('suffix_output') || mha.has('chunk_lse') || mha.has('context_output')).toBe(false); // mha and reference only
    expect(dropsValues('mqa', present) && dropsValues('mha', present)).toBe(true);
  });

  it('without cold, kv_nope and k have no partner either', () => {
    expect(comparedStages('mha', ['mha', 'mqa']).has('kv_nope')).toBe(false);
  });

  it('with the float64 reference or an external path every stage a path records is compared', () => {
    for (const third of ['reference', 'external'] as const) {
      expect(comparedStages('mqa', ['mha', 'mqa', third]).has('ql_nope')).toBe(true);
      expect(comparedStages('mha', ['mha', 'mqa', third]).has('context_lse')).toBe(true);
      expect(dropsValues('mha', ['mha', 'mqa', 'cold', third])).toBe(false);
    }
  });

  it('only from STATS_ONLY_FROM token-heads in the largest piece: a smaller case keeps every value', () => {
    const present = ['mha', 'mqa', 'cold'] as const;
    expect(retainedStages('mqa', present, STATS_ONLY_FROM - 1).size).toBe(STAGE_NAMES.length);
    expect(retainedStages('mqa', present, STATS_ONLY_FROM)).toEqual(comparedStages('mqa', present));
  });
});
