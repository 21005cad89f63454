#!/bin/sh
# The mongosh check of issue 16: installs mongosh from the npm registry
# into a cache directory, starts `ttlkv serve` on a free loopback port,
# runs check.js with the real mongosh and fails on any difference from
# expected.txt; then runs shell.js with the real mongosh against the
# server and with ttlkv's own shell, and fails if they print differently;
# then runs each line of eval-cases.txt as mongosh --eval and as
# ttlkv eval --uri against the server, and fails if what they print or
# their exit codes differ. Without npm it says so and exits 0.
#
#   wire/testdata/mongosh/run.sh            (from anywhere in the repository)
#   MONGOSH_VERSION=2.12.0 TTLKV_MONGOSH_CACHE=~/.cache/ttlkv-mongosh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
version=${MONGOSH_VERSION:-2.12.0}
cache=${TTLKV_MONGOSH_CACHE:-$HOME/.cache/ttlkv-mongosh}
if ! command -v npm >/dev/null 2>&1; then
	echo "mongosh check: npm not found; skipped"
	exit 0
fi
mongosh="$cache/node_modules/.bin/mongosh"
if [ ! -x "$mongosh" ] || [ "$("$mongosh" --version 2>/dev/null)" != "$version" ]; then
	mkdir -p "$cache"
	npm install --no-audit --no-fund --silent --prefix "$cache" "mongosh@$version"
fi
work=$(mktemp -d)
pid=
cleanup() {
	[ -n "$pid" ] && kill -INT "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
(cd "$root" && go build -o "$work/ttlkv" ./cmd/ttlkv)
: >"$work/serve.log" # there before the loop reads it, whenever the server starts
"$work/ttlkv" --dir "$work/data" serve --port 0 2>"$work/serve.log" &
pid=$!
addr=
i=0
while [ -z "$addr" ] && [ $i -lt 600 ]; do
	addr=$(sed -n 's/.*waiting for connections on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$work/serve.log" | head -n 1)
	[ -n "$addr" ] || { kill -0 "$pid" 2>/dev/null || break; sleep 0.1; }
	i=$((i + 1))
done
if [ -z "$addr" ]; then
	echo "mongosh check: ttlkv serve did not start:"; cat "$work/serve.log"; exit 1
fi
export MONGOSH_NO_TELEMETRY=1
# mongosh reads the user's settings (~/.mongodb/mongosh/config, such as
# displayBatchSize); a home of its own keeps them out of the comparison.
mkdir -p "$work/home"
NO_COLOR=1 HOME="$work/home" "$mongosh" --quiet --norc "mongodb://$addr/test?serverSelectionTimeoutMS=10000" "$here/check.js" >"$work/out.txt" 2>&1 || {
	echo "mongosh check: mongosh failed:"; cat "$work/out.txt"; exit 1
}
if ! diff -u "$here/expected.txt" "$work/out.txt"; then
	echo "mongosh check: output differs from $here/expected.txt (server log below)"
	cat "$work/serve.log"
	exit 1
fi
# mongosh's code frames (a syntax error's) are coloured whenever CI is
# set in the environment, terminal or not: NO_COLOR keeps them plain.
# The shell differential: shell.js through the real mongosh against the
# server, and through ttlkv's own shell (eval -f) on a data directory of
# its own; the two outputs must be the same.
# Node's own warnings on standard error (the driver's "cursor.count is
# deprecated") carry the process id and are not mongosh's: dropped.
nodewarn='/^(node:[0-9]*) /d; /^(Use `node --trace-warnings/d'
NO_COLOR=1 HOME="$work/home" "$mongosh" --quiet --norc "mongodb://$addr/test?serverSelectionTimeoutMS=10000" "$here/shell.js" >"$work/shell-mongosh-raw.txt" 2>&1 || {
	echo "mongosh check: mongosh failed on shell.js:"; cat "$work/shell-mongosh-raw.txt"; exit 1
}
# explain's serverInfo names the port the server listens on; ttlkv's
# shell runs on a data directory with none (27017, as a bare mongod
# has): the port is masked on both sides. So is the version: the server
# claims mongod's 7.0.0, as its buildInfo does; the embedded engine
# names its own, as its buildInfo does.
srvport='s/(serverInfo: [{] host: [^,]*, port: )[0-9]+(, version: )[^,]*/\1PORT\2VERSION/'
sed "$nodewarn" "$work/shell-mongosh-raw.txt" | sed -E "$srvport" >"$work/shell-mongosh.txt"
"$work/ttlkv" --dir "$work/data-shell" eval -f "$here/shell.js" >"$work/shell-ttlkv-raw.txt" 2>&1 || {
	echo "mongosh check: ttlkv eval failed on shell.js:"; cat "$work/shell-ttlkv-raw.txt"; exit 1
}
sed -E "$srvport" "$work/shell-ttlkv-raw.txt" >"$work/shell-ttlkv.txt"
if ! diff -u "$work/shell-mongosh.txt" "$work/shell-ttlkv.txt"; then
	echo "mongosh check: ttlkv's shell prints shell.js differently from mongosh $version (- mongosh, + ttlkv)"
	exit 1
fi
# The --eval differential: each line of eval-cases.txt is a database
# name (and flags both take, after a space: --json=canonical), a tab and
# the code; what --eval prints (its last value in full, the show
# commands) and the exit code must be mongosh's. An error --json prints
# has a JavaScript stack of each shell's own: its "stack" line is
# masked on both sides.
failed=0
tab=$(printf '\t')
jsonstack='s/^(  "stack": ").*(",?)$/\1STACK\2/'
while IFS="$tab" read -r evaldb code; do
	case "$evaldb" in '' | '#'*) continue ;; esac
	evalflags=
	case "$evaldb" in *' '*) evalflags=${evaldb#* } evaldb=${evaldb%% *} ;; esac
	# (set -e: a failing command ends the line with its exit code, not the script)
	# shellcheck disable=SC2086 # the flags are words
	want=$(NO_COLOR=1 HOME="$work/home" "$mongosh" --quiet --norc "mongodb://$addr/$evaldb" $evalflags --eval "$code" 2>&1 && echo "exit 0" || echo "exit $?")
	want=$(printf '%s\n' "$want" | sed "$nodewarn" | sed -E "$jsonstack")
	# shellcheck disable=SC2086
	got=$("$work/ttlkv" eval --uri "mongodb://$addr/$evaldb" $evalflags "$code" 2>&1 && echo "exit 0" || echo "exit $?")
	got=$(printf '%s\n' "$got" | sed -E "$jsonstack")
	if [ "$want" != "$got" ]; then
		echo "mongosh check: --eval $code"
		printf '%s\n' "$want" >"$work/eval-mongosh.txt"
		printf '%s\n' "$got" >"$work/eval-ttlkv.txt"
		diff -u "$work/eval-mongosh.txt" "$work/eval-ttlkv.txt" || true
		failed=1
	fi
done <"$here/eval-cases.txt"
if [ "$failed" != 0 ]; then
	echo "mongosh check: ttlkv eval prints differently from mongosh $version --eval (- mongosh, + ttlkv)"
	exit 1
fi
echo "mongosh check: ok (mongosh $version, ttlkv serve on $addr; ttlkv's shell prints shell.js and eval-cases.txt as mongosh does)"
