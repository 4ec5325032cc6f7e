#!/usr/bin/env bash
# Time proving the period of 0.16 (149,459 from heap 105,351; Gangolli & Plambeck 1989).
# Target: well under a second with the sparse engine (EngineKind::Auto).
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release
time target/release/nimseq period 0.16 --json
