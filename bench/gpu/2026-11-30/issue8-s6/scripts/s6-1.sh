#!/usr/bin/env bash
# Issue 8, sixth round, call 1: `npm run bench:gpu` (bench/gpu/run.sh), first half: the WGSL kernels checked and benched on the GPU.
mkdir -p "$OUT/k"
PART=kernels OUT="$OUT/k" timeout 560 bash bench/gpu/run.sh > /dev/null 2>&1
tail -c 3000 "$OUT/k/log-kernels.txt"
cd "$OUT" && tar czf k.tgz k && rm -rf k
