#!/usr/bin/env bash
# Issue 8, fifth round, call 3: the MHA form's tile sets (all unrolled) at T = S = 512 and 8192.
set -uo pipefail
out=$OUT/t; mkdir -p "$out"
for T in 512 8192; do
  timeout 240 node bench/kernels/flash-tiles.mjs --device webgpu --fast 1 --forms mha --tokens $T --reps 5 --out "$out/tiles-mha-$T.json" 2>&1 | grep -v '^Warning' | tee "$out/log-$T.txt" | grep -i 'default\|BEST\|64 keys 128 chunk 8 threads 256 score 8x4 outRows 4'
done
