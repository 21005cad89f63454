#!/bin/sh
# Records format.out: what the real mongosh prints for format.js, with no
# server (--nodb). The mongosh is the one wire/testdata/mongosh/run.sh
# installs from the npm registry into its cache.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
version=${MONGOSH_VERSION:-2.12.0}
cache=${TTLKV_MONGOSH_CACHE:-$HOME/.cache/ttlkv-mongosh}
mongosh="$cache/node_modules/.bin/mongosh"
if [ ! -x "$mongosh" ] || [ "$("$mongosh" --version 2>/dev/null)" != "$version" ]; then
	mkdir -p "$cache"
	npm install --no-audit --no-fund --silent --prefix "$cache" "mongosh@$version"
fi
MONGOSH_NO_TELEMETRY=1 "$mongosh" --nodb --quiet --norc "$here/format.js" > "$here/format.out"
