#!/usr/bin/env bash
# What a CPU user downloads: `npm pack` of this tree, `npm install <tarball>` into an empty folder
# (npm's cache warm from `npm ci`: --prefer-offline), then the size of that folder's node_modules and
# its largest entries. Usage: bash bench/install/measure.sh (after npm run build); results.md has the figures.
set -euo pipefail
cd "$(dirname "$0")/../.."
user=$(mktemp -d) && trap 'rm -rf "$user"' EXIT
npm pack --ignore-scripts --silent --pack-destination "$user" >/dev/null
cd "$user" && echo '{ "name": "cpu-user", "private": true }' >package.json
start=$(date +%s)
npm install --prefer-offline --no-audit --no-fund ./mla-diff-*.tgz 2>&1 | grep -v '^$'
echo "install: $(($(date +%s) - start)) s, tarball $(du -h mla-diff-*.tgz | cut -f1)"
echo "node_modules: $(du -sh node_modules | cut -f1), $(npm ls --all --parseable 2>/dev/null | tail -n +2 | wc -l) packages"
du -sh node_modules/* node_modules/@*/* 2>/dev/null | sort -h | tail -10
