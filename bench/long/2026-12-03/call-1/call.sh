#!/usr/bin/env bash
# device call 1 (before the diff kernel; commit 3f08af9 + the pool trimmer): the 8192 CLI profile, then the long runs
set -uo pipefail
OUT=$OUT/cli bash bench/cli/profile.sh > $OUT/cli.log 2>&1
OUT=$OUT/long timeout 150 bash bench/long/run.sh scenarios/gpu/glm5-64-32768.yaml > $OUT/long-32k.log 2>&1
OUT=$OUT/long timeout 330 bash bench/long/run.sh scenarios/gpu/glm5-64-131072.yaml > $OUT/long-128k.log 2>&1
echo exit $? >> $OUT/long-128k.log
