#!/usr/bin/env bash
# device call 9 (commit 65e933b: the pool settles where the host waits, between the paths of a long piece): 128k mha+mqa peak
set -uo pipefail
R=$OUT/r; mkdir -p $R
OUT=$R/long timeout 150 bash bench/long/run.sh scenarios/gpu/glm5-64-131072-mha-mqa.yaml > $R/long-128k-mm.log 2>&1
echo "seconds $SECONDS" > $R/seconds.txt
tar -C $OUT -czf $OUT/r.tgz r && rm -rf $R
