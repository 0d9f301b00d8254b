#!/usr/bin/env bash
# Instructions per flag evaluation of cohorts that compare dates, counted by callgrind (run by hand, not in CI):
# `flagkit-bench --dates --only VARIANT` for 1 and for 11 rounds of 1,000 installs x 20 flags; the difference over
# 200,000 evaluations cancels start-up, decoding and the contexts' making. Wall-clock figures on two shared cores move
# by +-20 %; instruction counts do not.
#
#   Benchmarks/flagkit-instructions.sh                       # this checkout's flagkit-bench
#   BIN=/path/to/other/flagkit-bench Benchmarks/flagkit-instructions.sh   # another build, to compare
#
# Needs: valgrind (Debian package, scripts/bench-packages.txt).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || { echo "valgrind is not installed (scripts/bootstrap --bench)" >&2; exit 2; }
if [ -z "${BIN:-}" ]; then
  swift build -c release --product flagkit-bench >/dev/null
  BIN=$PWD/.build/release/flagkit-bench
fi
DIR=$(mktemp -d "${TMPDIR:-/tmp}/flagkit-instructions.XXXXXX")
trap 'rm -rf "$DIR"' EXIT

ir() {  # variant rounds
  valgrind --tool=callgrind --callgrind-out-file="$DIR/cg.out" "$BIN" --dates --only "$1" --rounds "$2" >/dev/null 2>"$DIR/err" \
    || { cat "$DIR/err" >&2; exit 1; }
  awk '/^(summary|totals):/ {print $2; exit}' "$DIR/cg.out"
}

per_round() {  # variant: instructions of 10 more rounds (1 and 11 rounds counted)
  local one eleven
  one=$(ir "$1" 1)
  eleven=$(ir "$1" 11)
  echo $(( eleven - one ))
}

echo "== instructions per flag evaluation (callgrind), $BIN"
text=$(per_round text)
for variant in custom-date install-date text; do
  if [ "$variant" = text ]; then ten=$text; else ten=$(per_round "$variant"); fi
  printf "%-13s %8d instructions  %s the text peer\n" "$variant" $(( ten / 200000 )) "$(awk -v a="$ten" -v b="$text" 'BEGIN { printf "%.2fx", a / b }')"
done
printf "%-13s %8d instructions per EvaluationContext(attributes:) of 7 attributes\n" make-context $(( $(per_round make-context) / 10000 ))
