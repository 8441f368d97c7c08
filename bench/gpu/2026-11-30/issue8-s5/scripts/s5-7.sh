#!/usr/bin/env bash
# Issue 8, fifth round, call 7: T = 512 (and 2048) layer A/B, the fourth round's build (.old, 5068239) against this one, interleaved;
# flash candidates at T = 512/2048/8192.
set -uo pipefail
out=$OUT/ab; mkdir -p "$out"
for i in 1 2; do
  for v in old new; do
    s=bench/gpu/attention.mjs; [[ $v == old ]] && s=.old/bench/gpu/attention.mjs
    timeout 100 node $s --device webgpu --tokens 512,2048 --attention fused --probes both --out "$out/layer-$v-$i.json" 2>&1 | grep -v '^Warning' | grep pipelined | sed "s/^/$v $i: /"
  done
done
MHA='[{"outRows":8},{"rows":128,"keys":64,"threads":512,"scoreRows":4,"outRows":8}]'
MQA='[{"outRows":16},{"valueKeys":4}]'
for T in 512 2048 8192; do
  timeout 100 node bench/kernels/flash-tiles.mjs --device webgpu --forms mha --tokens $T --sets "$MHA" --reps 5 --out "$out/mha-$T.json" 2>&1 | grep TFLOP | grep -v BEST | sed "s/^/T=$T /"
  timeout 100 node bench/kernels/flash-tiles.mjs --device webgpu --forms mqa --tokens $T --sets "$MQA" --reps 5 --out "$out/mqa-$T.json" 2>&1 | grep TFLOP | grep -v BEST | sed "s/^/T=$T /"
done
cd $OUT && tar czf ab.tgz ab
