#!/usr/bin/env bash
# device call 5 (commit a11936b: foldParts in the MHA context chunks and the cold path): 128k peaks
set -uo pipefail
R=$OUT/r; mkdir -p $R
OUT=$R/long timeout 150 bash bench/long/run.sh scenarios/gpu/glm5-64-131072-mha-mqa.yaml > $R/long-128k-mm.log 2>&1
OUT=$R/long timeout 190 bash bench/long/run.sh scenarios/gpu/glm5-64-131072.yaml > $R/long-128k.log 2>&1
timeout $(( 560 - SECONDS )) node bench/long/where.mjs scenarios/gpu/glm5-64-131072.yaml --json $R/where-128k.json > $R/where-128k.log 2>&1
echo "seconds $SECONDS" > $R/seconds.txt
tar -C $OUT -czf $OUT/r.tgz r && rm -rf $R
