#!/usr/bin/env bash
# Installs everything, builds the page and the CLI, and serves the page on
# http://127.0.0.1:8080/ (PORT=... to change) with the sample games one click away.
set -euo pipefail
cd "$(dirname "$0")"
scripts/install.sh
scripts/build-web.sh
cargo build --release
exec node scripts/serve.mjs --port "${PORT:-8080}" --quiet
