#!/usr/bin/env bash
# Installs everything fairsight needs on a fresh Debian machine with rustup, node and npm.
# Idempotent: skips what is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

rustup target add wasm32-unknown-unknown >/dev/null 2>&1 || rustup target add wasm32-unknown-unknown

# Debian's Stockfish: a second, native UCI engine for the CLI tests.
if [ ! -x /usr/games/stockfish ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq stockfish >/dev/null
  else
    echo "note: /usr/games/stockfish missing (sudo apt-get install stockfish); its test will skip" >&2
  fi
fi

# The npm `stockfish` package (Stockfish 19 in WebAssembly): the default engine.
if [ ! -f node_modules/stockfish/bin/stockfish-19-lite-single.js ] \
   || ! cmp -s package-lock.json node_modules/.package-lock.json 2>/dev/null; then
  npm ci --ignore-scripts --no-audit --no-fund
fi
