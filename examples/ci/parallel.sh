#!/bin/sh
# One machine, N processes: the run split into N shards with GNU parallel, then merged into the
# folder the unsharded run writes. Run from the repository root:
#   examples/ci/parallel.sh [N] [CONFIG] [OUT]
# (defaults: 4 shards of configs/all.yaml in --mock, into runs/sharded/). Set RUN_OPTIONS to run
# against a live model instead (RUN_OPTIONS="" runs it live; each process then gets 1/N of
# model.rate_limit). RAGBENCH names the command (default: deno task ragbench).
set -eu
N=${1:-4}
CONFIG=${2:-configs/all.yaml}
OUT=${3:-runs/sharded}
RAGBENCH=${RAGBENCH:-deno task ragbench}
RUN_OPTIONS=${RUN_OPTIONS---mock}

# The line: shard i of N into its own folder, N at a time; stop all when one fails.
seq 1 "$N" | parallel --jobs "$N" --halt now,fail=1 --line-buffer \
  $RAGBENCH run "$CONFIG" $RUN_OPTIONS --quiet --shard {}/"$N" --out "$OUT"/shard-{}

$RAGBENCH merge "$OUT"/merged "$OUT"/shard-*
