#!/usr/bin/env bash
# Builds the browser app into www/pkg/ (git-ignored): the core compiled to wasm with its
# JS bindings (wasm-bindgen --target web, optimised with npm binaryen's wasm-opt), the
# Stockfish builds from the npm `stockfish` package and chessground's module and styles.
# Needs scripts/install.sh first (rustup target, wasm-bindgen-cli, npm ci).
set -euo pipefail
cd "$(dirname "$0")/.."

out=www/pkg
mkdir -p "$out/engine" "$out/chessground"

cargo build --lib --profile wasm-release --target wasm32-unknown-unknown --no-default-features
wasm-bindgen --target web --out-dir "$out" --out-name fairsight \
  target/wasm32-unknown-unknown/wasm-release/fairsight.wasm
node_modules/.bin/wasm-opt -O3 \
  --enable-bulk-memory --enable-nontrapping-float-to-int --enable-sign-ext \
  --enable-mutable-globals --enable-reference-types --enable-multivalue \
  "$out/fairsight_bg.wasm" -o "$out/fairsight_bg.wasm"

# Engines: the lite single-threaded build (default) and the full-net single-threaded
# build ("strong"). Hard links when possible: the full net is ~99 MB. Each script gets
# www/engine-lines.js in front (its lines posted a search at a time, not one message a
# line); the engine's code is unchanged.
for build in stockfish-19-lite-single stockfish-19-single; do
  src=node_modules/stockfish/bin/$build.wasm
  dst=$out/engine/$build.wasm
  if ! cmp -s "$src" "$dst" 2>/dev/null; then
    rm -f "$dst"
    ln "$src" "$dst" 2>/dev/null || cp "$src" "$dst"
  fi
  rm -f "$out/engine/$build.js" # a hard link to node_modules' copy in earlier builds
  cat www/engine-lines.js "node_modules/stockfish/bin/$build.js" > "$out/engine/$build.js"
done
cp node_modules/stockfish/Copying.txt "$out/engine/COPYING.txt"

cp node_modules/chessground/dist/chessground.min.js "$out/chessground/"
cp node_modules/chessground/assets/chessground.base.css \
   node_modules/chessground/assets/chessground.brown.css \
   node_modules/chessground/assets/chessground.cburnett.css "$out/chessground/"
cp node_modules/chessground/LICENSE "$out/chessground/LICENSE"

echo "built $out: $(du -sh --apparent-size "$out/fairsight_bg.wasm" | cut -f1) core wasm" >&2
