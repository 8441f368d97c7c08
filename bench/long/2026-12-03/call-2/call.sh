#!/usr/bin/env bash
# device call 2 (commit c07770a: the diff kernel, before its subnormal fix): the kernel check, the 8192 CLI profile,
# where the 8192 and 32k runs' time goes, 128k through the CLI
set -uo pipefail
R=$OUT/r; mkdir -p $R
node test/e2e/checks/diff-check.mjs --out $R --time 1 > $R/diff-check.log 2>&1
OUT=$R/cli bash bench/cli/profile.sh > $R/cli.log 2>&1
for f in $R/cli/*.cpuprofile; do node bench/cli/summarize.mjs $f > ${f%.cpuprofile}.summary.txt 2>&1; rm -f $f; done
node bench/long/where.mjs scenarios/gpu/glm5-8192-64.yaml --json $R/where-8192.json > $R/where-8192.log 2>&1
timeout 120 node bench/long/where.mjs scenarios/gpu/glm5-64-32768.yaml --json $R/where-32768.json > $R/where-32768.log 2>&1
OUT=$R/long timeout 330 bash bench/long/run.sh scenarios/gpu/glm5-64-131072.yaml > $R/long-128k.log 2>&1
tar -C $OUT -czf $OUT/r.tgz r && rm -rf $R
