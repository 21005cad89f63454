#!/bin/sh
# Builds the SQLite peer of the benchmarks (a module of its own, so that
# ttlkv's build and CI never compile SQLite) into a cache directory and
# prints the binary's path. Give it to the benchmarks as
# TTLKV_BENCH_SQLITE:
#
#   TTLKV_BENCH_SQLITE=$(sh benchmarks/sqlitepeer/build.sh) go test ./benchmarks -run '^$' -bench ...
#
# TTLKV_SQLITEPEER_OUT names another output path.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
out=${TTLKV_SQLITEPEER_OUT:-${XDG_CACHE_HOME:-$HOME/.cache}/ttlkv/sqlitepeer}
mkdir -p "$(dirname "$out")"
(cd "$here" && go build -o "$out" .) >&2
echo "$out"
