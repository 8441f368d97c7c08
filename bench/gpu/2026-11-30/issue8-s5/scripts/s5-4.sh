#!/usr/bin/env bash
# Issue 8, fifth round, call 4: the MQA form's tile sets (all unrolled) on a causal prefill of T = 8192, and the MHA form at 2048 again.
set -uo pipefail
out=$OUT/t; mkdir -p "$out"
timeout 300 node bench/kernels/flash-tiles.mjs --device webgpu --fast 1 --forms mqa --tokens 8192 --reps 3 --out "$out/tiles-mqa-8192.json" 2>&1 | grep -v '^Warning' > "$out/log-mqa-8192.txt"
timeout 200 node bench/kernels/flash-tiles.mjs --device webgpu --fast 1 --forms mha --tokens 2048 --reps 5 --out "$out/tiles-mha-2048.json" 2>&1 | grep -v '^Warning' > "$out/log-mha-2048.txt"
for f in "$out"/log-*.txt; do echo "== $f"; grep TFLOP "$f" | awk -F', ' '{print $NF" | "$0}' | sort -rn | head -6; grep default "$f"; done
