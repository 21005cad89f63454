#!/bin/sh
# The mongo-tools check: mongodump of a ttlkv server and mongorestore into
# a second one carry every kind of collection over (ordinary with TTL and
# partial indexes, capped, time-series with expiry, validated, a view);
# mongoexport and mongoimport round-trip; mongofiles puts and gets a file;
# mongostat and mongotop read the server. The tools come from $MONGO_TOOLS_BIN (a directory holding the
# binaries) or are built from $MONGO_TOOLS_SRC (a checkout of
# github.com/mongodb/mongo-tools, which vendors its dependencies) into
# $TTLKV_MONGOTOOLS_CACHE. Neither the Go module proxy nor Debian nor npm
# serves mongo-tools, so without one of those it says so and exits 0.
#
#   MONGO_TOOLS_SRC=~/src/mongo-tools wire/testdata/mongotools/run.sh
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
cache=${TTLKV_MONGOTOOLS_CACHE:-$HOME/.cache/ttlkv-mongotools}
bin=${MONGO_TOOLS_BIN:-}
if [ -z "$bin" ] && [ -n "${MONGO_TOOLS_SRC:-}" ]; then
	bin="$cache/bin"
	mkdir -p "$bin"
	for t in mongodump mongorestore mongoexport mongoimport mongostat mongotop mongofiles; do
		if [ ! -x "$bin/$t" ]; then
			(cd "$MONGO_TOOLS_SRC" && GOFLAGS=-mod=vendor go build -o "$bin/$t" "./$t/main")
		fi
	done
fi
if [ -z "$bin" ] || [ ! -x "$bin/mongodump" ]; then
	echo "mongo-tools check: no mongo-tools (set MONGO_TOOLS_BIN or MONGO_TOOLS_SRC); skipped"
	exit 0
fi
work=$(mktemp -d)
pids=
cleanup() {
	for p in $pids; do kill -INT "$p" 2>/dev/null && wait "$p" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT INT TERM
(cd "$root" && go build -o "$work/ttlkv" ./cmd/ttlkv)
start() { # start NAME: a server on a free port; its address in $work/NAME.addr
	"$work/ttlkv" --dir "$work/$1" serve --port 0 2>"$work/$1.log" &
	pids="$pids $!"
	i=0
	while [ $i -lt 600 ]; do
		a=$(sed -n 's/.*waiting for connections on \(127\.0\.0\.1:[0-9]*\).*/\1/p' "$work/$1.log" | head -n 1)
		if [ -n "$a" ]; then echo "$a" >"$work/$1.addr"; return; fi
		sleep 0.1
		i=$((i + 1))
	done
	echo "mongo-tools check: ttlkv serve did not start:"; cat "$work/$1.log"; exit 1
}
start src
start dst
src=$(cat "$work/src.addr")
dst=$(cat "$work/dst.addr")
"$work/ttlkv" eval --uri "mongodb://$src/" -f "$here/seed.js" >"$work/seed.out"
"$bin/mongodump" --quiet --uri "mongodb://$src" --out "$work/dump"
"$bin/mongorestore" --quiet --uri "mongodb://$dst" "$work/dump"
"$work/ttlkv" eval --uri "mongodb://$src/" -f "$here/describe.js" >"$work/src.txt"
"$work/ttlkv" eval --uri "mongodb://$dst/" -f "$here/describe.js" >"$work/dst.txt"
if ! diff -u "$work/src.txt" "$work/dst.txt"; then
	echo "mongo-tools check: the restored server differs from the dumped one"; exit 1
fi
# A restored user logs in with its old password.
n=$("$work/ttlkv" eval --uri "mongodb://alice:alicepw@$dst/?authSource=app" --db app 'print(db.events.countDocuments({}))')
[ "$n" = "3" ] || { echo "mongo-tools check: the restored user alice read $n documents, want 3"; exit 1; }
# A restored user holding a restored user-defined role logs in with it
# (the servers run without access control: what the role allows is
# checked by wire/roles_test.go).
n=$("$work/ttlkv" eval --uri "mongodb://rita:ritapw@$dst/?authSource=app" --db app 'print(db.events.countDocuments({}), db.runCommand({connectionStatus: 1}).authInfo.authenticatedUserRoles[0].role, db.getRole("eventReader", {showPrivileges: true}).privileges[0].actions.join())')
[ "$n" = "3 eventReader find" ] || { echo "mongo-tools check: the restored user rita printed $n, want 3 eventReader find"; exit 1; }
"$bin/mongoexport" --quiet --uri "mongodb://$src/app" -c events --out "$work/events.json"
"$bin/mongoimport" --quiet --uri "mongodb://$dst/app" -c events2 --file "$work/events.json"
n=$("$work/ttlkv" eval --uri "mongodb://$dst/" --db app 'print(db.events2.countDocuments({}))')
[ "$n" = "3" ] || { echo "mongo-tools check: mongoimport gave $n documents, want 3"; exit 1; }
# GridFS: a file in, the same bytes out.
head -c 600000 /dev/urandom >"$work/blob"
"$bin/mongofiles" --quiet --uri "mongodb://$src/files" put --local "$work/blob" blob
"$bin/mongofiles" --quiet --uri "mongodb://$src/files" get --local "$work/blob.out" blob
cmp "$work/blob" "$work/blob.out" || { echo "mongo-tools check: mongofiles gave back other bytes"; exit 1; }
"$bin/mongostat" --uri "mongodb://$src" -n 1 >"$work/stat.txt" 2>&1 || { cat "$work/stat.txt"; exit 1; }
"$bin/mongotop" --uri "mongodb://$src" -n 1 1 >"$work/top.txt" 2>&1 || { cat "$work/top.txt"; exit 1; }
echo "mongo-tools check: ok (mongodump, mongorestore, mongoexport, mongoimport, mongofiles, mongostat, mongotop against ttlkv serve)"
