#!/usr/bin/env bash
# device call 8 (commit 9f264de: + full key parts, serial paths in long pieces, no probe child): 128k and 32k peaks, CLI 8192
set -uo pipefail
R=$OUT/r; mkdir -p $R
OUT=$R/long timeout 150 bash bench/long/run.sh scenarios/gpu/glm5-64-131072-mha-mqa.yaml > $R/long-128k-mm.log 2>&1
OUT=$R/long timeout 190 bash bench/long/run.sh scenarios/gpu/glm5-64-131072.yaml > $R/long-128k.log 2>&1
OUT=$R/long timeout 60 bash bench/long/run.sh scenarios/gpu/glm5-64-32768.yaml > $R/long-32k.log 2>&1
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
mkdir -p $R/cli
for i in 1 2 3; do
  t0=$(date +%s%N)
  node dist/surface/cli/main.js run scenarios/gpu/glm5-8192-64.yaml --device webgpu --format json \
    --out $R/cli/plain-$i.json --force --verbose 2> $R/cli/plain-$i.log
  echo "plain $i rc $? $(ms $t0) ms" >> $R/cli/wall.txt
done
echo "seconds $SECONDS" > $R/seconds.txt
tar -C $OUT -czf $OUT/r.tgz r && rm -rf $R
