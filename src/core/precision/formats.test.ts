import { bitMismatches, bitsOf, edgeValues, fromBits, randomValues } from './edge-values';
import { FORMATS, overflowPoint, roundArray, roundInto, STORAGE_DTYPES } from './formats';
import { buildOracle, oracleOverflowPoint, oracleRound, oracleRoundArray } from './oracle';

describe('the reference rounding (oracle) itself', () => {
  it('knows each format: value count, max, smallest subnormal, what lies beyond max', () => {
    const facts = STORAGE_DTYPES.map((d) => {
      const o = buildOracle(d);
      return {
        d,
        finite: o.values.length,
        max: o.values[o.values.length - 1],
        minSub: o.values[1],
        beyond: o.beyond.value,
        overflow: o.overflow,
      };
    });
    expect(facts).toEqual([
      { d: 'bfloat16', finite: 0x7f80, max: FORMATS.bfloat16.max, minSub: 2 ** -133, beyond: 2 ** 128, overflow: 'inf' },
      { d: 'float16', finite: 0x7c00, max: 65504, minSub: 2 ** -24, beyond: 65536, overflow: 'inf' },
      { d: 'fp8_e4m3', finite: 127, max: 448, minSub: 2 ** -9, beyond: 480, overflow: 'saturate' },
    ]);
  });

  it('rounds hand-checked cases: ties to even patterns, saturation, signed zero', () => {
    const fp8 = buildOracle('fp8_e4m3');
    const fp16 = buildOracle('float16');
    const r = (o: ReturnType<typeof buildOracle>, x: number) => oracleRound(o, x).value;
    expect([r(fp8, 1.0625), r(fp8, 1.1875), r(fp8, 464), r(fp8, 465), r(fp8, -Infinity), r(fp8, 2 ** -10), r(fp8, 3 * 2 ** -10)]).toEqual([
      1,
      1.25,
      448,
      448,
      -448,
      0,
      2 ** -8,
    ]);
    expect([r(fp16, 65519), r(fp16, 65520), r(fp16, 2 ** -25), r(fp16, 1 + 2 ** -11)]).toEqual([65504, Infinity, 0, 1]);
    expect(Object.is(r(fp16, -(2 ** -26)), -0)).toBe(true);
    expect(Number.isNaN(r(fp16, NaN))).toBe(true);
    expect([oracleRound(fp8, 465).overflowed, oracleRound(fp8, 464).overflowed, oracleRound(fp16, Infinity).overflowed]).toEqual([
      true,
      false,
      false,
    ]);
  });
});

describe.each(STORAGE_DTYPES)('roundInto(%s) against the oracle, bit for bit', (dtype) => {
  const o = buildOracle(dtype);

  it('edge values: ties in the subnormal range, at the normal boundary, near 1 and max; ±0, ±max, overflow point, ±inf, NaN', () => {
    const input = edgeValues(o);
    const want = oracleRoundArray(o, input);
    const got = new Float32Array(input.length);
    const past = roundInto(input, got, dtype);
    expect(bitMismatches(input, got, want.out)).toEqual({ count: 0, first: [] });
    expect(past).toBe(want.overflowed);
    expect(input.length).toBeGreaterThan(500);
  });

  it('100k random float32 bit patterns of wide exponent range', () => {
    const input = randomValues(o, 100_000, 7);
    const want = oracleRoundArray(o, input);
    const got = roundArray(input, dtype);
    expect(bitMismatches(input, got, want.out)).toEqual({ count: 0, first: [] });
    expect(roundInto(input, new Float32Array(input.length), dtype)).toBe(want.overflowed);
  });

  it('rounds in place (dst = src) the same way', () => {
    const input = edgeValues(o);
    const want = oracleRoundArray(o, input).out;
    const inPlace = input.slice();
    roundInto(inPlace, inPlace, dtype);
    expect(bitMismatches(input, inPlace, want)).toEqual({ count: 0, first: [] });
  });

  it('overflowPoint agrees with the oracle, and the values either side of it', () => {
    const p = overflowPoint(dtype);
    expect(p).toEqual(oracleOverflowPoint(o));
    const below = fromBits(bitsOf(p.at) - 1);
    const above = fromBits(bitsOf(p.at) + 1);
    const at = Float32Array.of(below, p.at, above);
    expect(roundInto(at, new Float32Array(3), dtype)).toBe(p.inclusive ? 2 : 1);
  });
});
