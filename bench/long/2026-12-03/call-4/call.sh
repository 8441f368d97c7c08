#!/usr/bin/env bash
# device call 4 (commit 160e851, where.mjs with the live set): the live set of a 128k run, piece by piece
set -uo pipefail
R=$OUT/r; mkdir -p $R
timeout 130 node bench/long/where.mjs scenarios/gpu/glm5-64-131072-mha-mqa.yaml --json $R/where-128k-mm.json > $R/where-128k-mm.log 2>&1
timeout $(( 270 - SECONDS )) node bench/long/where.mjs scenarios/gpu/glm5-64-131072.yaml --json $R/where-128k.json > $R/where-128k.log 2>&1
echo "seconds $SECONDS" > $R/seconds.txt
tar -C $OUT -czf $OUT/r.tgz r && rm -rf $R
