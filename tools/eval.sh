#!/usr/bin/env bash
# Recomputes a shipped model's held-out metric from its committed files:
#   build/native/tfp eval NAME [--model DIR] [--limit N]     (npm run eval -- brown-pos)
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: tools/eval.sh brown-gpt|brown-pos|dates [options]" >&2; exit 2; }
bash tools/build.sh native >/dev/null
exec build/native/tfp eval "$@"
