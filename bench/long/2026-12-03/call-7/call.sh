#!/usr/bin/env bash
# device call 7 (commit 0f3323d): the live set of the 128k mha+mqa run, piece by piece
set -uo pipefail
R=$OUT/r; mkdir -p $R
timeout 200 node bench/long/where.mjs scenarios/gpu/glm5-64-131072-mha-mqa.yaml --json $R/where-128k-mm.json > $R/where-128k-mm.log 2>&1
echo "seconds $SECONDS" > $R/seconds.txt
tar -C $OUT -czf $OUT/r.tgz r && rm -rf $R
