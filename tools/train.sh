#!/usr/bin/env bash
# Trains a shipped model (or a toy task) natively: builds build/native, then
#   build/native/tfp train NAME --out models/NAME [extra options]
# NAME: brown-gpt | brown-pos | numbers-transformer | numbers-gru | dates (models/NAME), or a toy task (copy, reverse, sort, add).
#   npm run train -- brown-gpt        npm run train -- reverse --steps 500
set -euo pipefail
cd "$(dirname "$0")/.."
[ $# -ge 1 ] || { echo "usage: tools/train.sh NAME [options]" >&2; exit 2; }
name=$1; shift
bash tools/build.sh native >/dev/null
case "$name" in
  brown-gpt|brown-pos|numbers-transformer|numbers-gru|dates)
    exec build/native/tfp train "$name" --out "models/$name" "$@" ;;
  *) exec build/native/tfp train "$name" "$@" ;;
esac
