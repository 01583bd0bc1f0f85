#!/usr/bin/env bash
# Installs everything fairsight needs on a fresh Debian machine with rustup, node and npm.
# Idempotent: skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "fairsight: need root for: $*" >&2; return 1; fi
}

rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || rustup target add wasm32-unknown-unknown

# wasm-bindgen-cli at exactly the crate's wasm-bindgen version (from Cargo.lock).
want=$(grep -A1 '^name = "wasm-bindgen"$' Cargo.lock | sed -n 's/^version = "\(.*\)"$/\1/p')
have=$(wasm-bindgen --version 2>/dev/null | awk '{print $2}' || true)
if [ "$have" != "$want" ]; then
  cargo install wasm-bindgen-cli --version "$want"
fi

# Debian packages: Stockfish (a second, native UCI engine for the CLI tests), Chromium
# with its driver (browser tests), and Slurm with munge (scripts/slurm/test.sh runs the
# job-array script on a single-node cluster, scripts/slurm/local-cluster.sh; Slurm's
# recommended extra plugins are not needed).
missing=()
[ -x /usr/games/stockfish ] || missing+=(stockfish)
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/bin/chromedriver ] || missing+=(chromium-driver)
slurm=()
[ -x /usr/sbin/slurmctld ] && [ -x /usr/sbin/slurmd ] && [ -x /usr/bin/sbatch ] || slurm+=(slurm-wlm)
[ -x /usr/sbin/munged ] || slurm+=(munge)
if [ ${#missing[@]} -gt 0 ] || [ ${#slurm[@]} -gt 0 ]; then
  as_root apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ${#slurm[@]} -gt 0 ]; then
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
    "${slurm[@]}" >/dev/null
fi

# npm packages: stockfish (the engine), chessground (the board), binaryen (wasm-opt),
# playwright-core (browser tests; it drives Debian's chromium, downloads nothing),
# axe-core (the browser tests' accessibility checks).
if [ ! -f node_modules/stockfish/bin/stockfish-19-lite-single.js ] \
   || ! cmp -s package-lock.json node_modules/.package-lock.json 2>/dev/null; then
  npm ci --ignore-scripts --no-audit --no-fund
fi
