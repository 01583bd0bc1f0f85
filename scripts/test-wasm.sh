#!/usr/bin/env bash
# Runs tests/wasm.rs (the browser bindings) in headless Chromium through chromedriver.
set -euo pipefail
cd "$(dirname "$0")/.."
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=wasm-bindgen-test-runner
export CHROMEDRIVER="${CHROMEDRIVER:-/usr/bin/chromedriver}"
export WASM_BINDGEN_TEST_TIMEOUT="${WASM_BINDGEN_TEST_TIMEOUT:-120}"
cargo test --target wasm32-unknown-unknown --no-default-features --test wasm
