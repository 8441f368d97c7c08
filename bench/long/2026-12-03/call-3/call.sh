#!/usr/bin/env bash
# device call 3 (commit 160e851: + compared-stage retention, the pipeline cache): the final figures of points 2-3
set -uo pipefail
R=$OUT/r; mkdir -p $R
node test/e2e/checks/diff-check.mjs --out $R --time 0 > $R/diff-check.log 2>&1
OUT=$R/cli bash bench/cli/profile.sh > $R/cli.log 2>&1
for f in $R/cli/*.cpuprofile; do node bench/cli/summarize.mjs $f > ${f%.cpuprofile}.summary.txt 2>&1; rm -f $f; done
ms() { echo $(( ($(date +%s%N) - $1) / 1000000 )); }
for v in nocache cache cache; do
  t0=$(date +%s%N)
  if [[ $v == nocache ]]; then export MLA_DIFF_PIPELINE_CACHE=off; else unset MLA_DIFF_PIPELINE_CACHE; fi
  node dist/surface/cli/main.js run scenarios/gpu/glm5-8192-64.yaml --device webgpu --format json \
    --out $R/cli/plain-$v-$SECONDS.json --force --verbose 2> $R/cli/plain-$v-$SECONDS.log
  echo "plain $v rc $? $(ms $t0) ms" >> $R/cli/wall.txt
done
unset MLA_DIFF_PIPELINE_CACHE
OUT=$R/long timeout 90 bash bench/long/run.sh scenarios/gpu/glm5-64-32768.yaml > $R/long-32k.log 2>&1
OUT=$R/long timeout 100 bash bench/long/run.sh scenarios/gpu/fault-glm5-64-32768-lse-base-2.yaml > $R/long-32k-fault.log 2>&1
OUT=$R/long timeout 200 bash bench/long/run.sh scenarios/gpu/glm5-64-131072.yaml > $R/long-128k.log 2>&1
OUT=$R/long timeout 150 bash bench/long/run.sh scenarios/gpu/glm5-64-131072-mha-mqa.yaml > $R/long-128k-mm.log 2>&1
if (( SECONDS < 400 )); then
  MLA_DIFF_POOL_FREE_GIB=64 MLA_DIFF_TAG=free64 OUT=$R/long timeout $(( 560 - SECONDS )) \
    bash bench/long/run.sh scenarios/gpu/glm5-64-131072-mha-mqa.yaml > $R/long-128k-mm-free64.log 2>&1
fi
tar -C $OUT -czf $OUT/r.tgz r && rm -rf $R
