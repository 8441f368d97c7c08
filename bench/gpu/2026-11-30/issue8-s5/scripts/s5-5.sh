#!/usr/bin/env bash
# Issue 8, fifth round, call 5: MQA-form candidates (chunk 16/32 × outRows 4/8) at T = 512…8192 and in the 512-after-1536 form.
set -uo pipefail
out=$OUT/t; mkdir -p "$out"
SETS='[{"chunk":32,"outRows":8},{"chunk":32},{"outRows":8}]'
for T in 512 2048 4096 8192 offset; do
  tok=(--tokens $T); [[ $T == offset ]] && tok=()
  timeout 150 node bench/kernels/flash-tiles.mjs --device webgpu --forms mqa "${tok[@]}" --sets "$SETS" --reps 5 --out "$out/mqa-$T.json" 2>&1 | grep -v '^Warning' | tee "$out/log-mqa-$T.txt" | grep TFLOP | sed "s/^/T=$T /"
done
