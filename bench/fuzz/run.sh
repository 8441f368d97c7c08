#!/usr/bin/env bash
# The full fuzz campaign (issue 23, point 6): 10^5 in-process inputs over the scenario loader, GGUF, safetensors,
# tokenizer, trace import and saved reports, and 300 spawned CLI runs (outputs naming inputs through links, special files,
# a full tmpfs, SIGINT/SIGTERM during an external backend). Writes bench/fuzz/summary.json and bench/fuzz/results.md.
# Full-disk cases need `mount -t tmpfs` (root); without it they are skipped and results.md says so.
#
#   bash bench/fuzz/run.sh                 # seed 1, the committed summary
#   bash bench/fuzz/run.sh --seed 7 --inputs 20000 --cli 60 --out /tmp/fuzz   # a reduced run elsewhere
#
# Exit 1 when any input crashed, hung (> 15 s), blew up (> 2 GiB RSS), lost data, leaked or was rejected uncoded;
# each bad signature is printed with `node dist/fuzz/repro.js TARGET SEED INDEX`, which rebuilds and reruns that input.
set -euo pipefail
cd "$(dirname "$0")/../.."
npm run -s build
node scripts/write-fixtures.mjs fixtures/checkpoints > /dev/null
exec node dist/fuzz/campaign.js --seed 1 --inputs 100000 --cli 300 --out bench/fuzz "$@"
