#!/usr/bin/env bash
# Issue 8, sixth round, call 2: `npm run bench:gpu` (bench/gpu/run.sh), second half: the layer beside PyTorch, T = 512…32768, the CLI scenarios.
mkdir -p "$OUT/l"
PART=layer OUT="$OUT/l" timeout 570 bash bench/gpu/run.sh > /dev/null 2>&1
tail -c 6000 "$OUT/l/log-layer.txt"
cd "$OUT" && tar czf l.tgz l && rm -rf l
