#!/bin/sh
# move-catalog.sh rewrites the files of package engine (engine/*.go) to
# call the catalog entry and the index-key code by their names in
# engine/internal/catalog and engine/internal/indexkey (issue 18, step 4;
# docs/layout.md). Every change it makes is syntactic (gofmt -r rules, a
# sed on six method declarations of clustered.go, scripts/movecatalog
# for methods other branches declare on the old types, comment renames,
# then goimports on the files it changed), and running it again on its
# own output changes nothing, so it can be re-run after merging a branch
# written against the old names:
#
#	git merge -X theirs BRANCH          # conflicting hunks: the branch's side
#	sh scripts/move-catalog.sh          # rewrite, then go build and go vet ./engine/
#	sh scripts/move-catalog.sh -n       # rewrite only
#
# (-X theirs is safe for the hunks this move changed only mechanically,
# which the script redoes; see docs/layout.md for what it cannot do.)
#
# It needs the Go toolchain; goimports is run through `go run` at a
# pinned version of golang.org/x/tools (fetched from the module proxy
# the first time).
set -eu
cd "$(dirname "$0")/.."
check=1
[ "${1:-}" = "-n" ] && check=0

goimports="go run golang.org/x/tools/cmd/goimports@v0.52.0"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
md5sum engine/*.go >"$tmp/before"

# clustered.go's methods on the catalog entry (a type engine no longer
# defines) become functions of the entry, in the same file.
sed -i -E \
	-e 's/^func \(m \*(collMeta|catalog\.Coll)\) (recKey|splitRecKey|idKeyOf|entryValue)\(/func \2(m *\1, /' \
	-e 's/^func \(m \*(collMeta|catalog\.Coll)\) idsOf\(/func clusteredIDs(m *\1, /' \
	-e 's|^// idsOf returns the ids map|// clusteredIDs returns the ids map|' \
	-e 's/^func \(m \*(collMeta|catalog\.Coll)\) recPrefix\(\)/func recPrefix(m *\1)/' \
	engine/*.go

# One gofmt -r rule a line: old -> new. A single lower-case letter is a
# wildcard; every other name matches itself only. The selector rules
# name only methods and fields that no other type of package engine has
# (ix.partial, fields[i].path: tsRule has a partial field, other types
# a path field).
cat >"$tmp/rules" <<'RULES'
# engine/internal/catalog
collMeta -> catalog.Coll
indexMeta -> catalog.Index
collKind -> catalog.Kind
kindNormal -> catalog.KindNormal
kindCapped -> catalog.KindCapped
kindTimeseries -> catalog.KindTimeseries
decodeCollMeta -> catalog.Decode
collatorOf -> catalog.CollatorOf
parseCollation -> catalog.ParseCollation
a.ns() -> a.NS()
a.index(b) -> a.Index(b)
a.clone() -> a.Clone()
a.encode() -> a.Encode()
a.defaultCollator() -> a.DefaultCollator()
a.collator() -> a.Collator()
ix.partial -> ix.PartialFilter
a.Indexes[b].partial -> a.Indexes[b].PartialFilter
# engine/internal/indexkey
pathValues -> indexkey.PathValues
keyField -> indexkey.Field
keyFields -> indexkey.Fields
indexKeys -> indexkey.Of
keyValue -> indexkey.Value
idBound -> indexkey.IDBound
a.desc -> a.Desc
fields[a].path -> fields[a].Path
# clustered.go's former methods (see the sed above; idsOf is a test
# helper's name, so that one is clusteredIDs)
a.recKey(b, c) -> recKey(a, b, c)
a.recPrefix() -> recPrefix(a)
a.splitRecKey(b) -> splitRecKey(a, b)
a.idKeyOf(b) -> idKeyOf(a, b)
a.entryValue(b, c, d) -> entryValue(a, b, c, d)
a.idsOf(b, c) -> clusteredIDs(a, b, c)
RULES

# Methods a merged branch declared on the old types become functions
# too, and copies of moved declarations that a merge brought back are
# deleted (scripts/movecatalog says which on stderr); it prints the
# rules that rewrite the calls of the converted methods.
go run ./scripts/movecatalog engine/*.go >>"$tmp/rules"

while IFS= read -r rule; do
	case "$rule" in '' | '#'*) continue ;; esac
	gofmt -r "$rule" -w engine/*.go
done <"$tmp/rules"

# The old names in comments (after //), so that they do not point at
# names that no longer exist. String literals are left alone.
perl -i -pe 's{(//.*)$}{ my $c = $1;
	$c =~ s/\bdecodeCollMeta\b/catalog.Decode/g;
	$c =~ s/\bcollMeta\b/catalog.Coll/g;
	$c =~ s/\bindexMeta\b/catalog.Index/g;
	$c =~ s/\bidBound\b/indexkey.IDBound/g;
	$c =~ s/\bindexKeys\b/indexkey.Of/g;
	$c =~ s/\bpathValues\b/indexkey.PathValues/g;
	$c =~ s/\bkeyFields\b/indexkey.Fields/g;
	$c }e' engine/*.go

# Imports of the files changed: goimports adds catalog and indexkey
# where they are now named and drops what is no longer used.
md5sum engine/*.go >"$tmp/after"
changed=$(diff "$tmp/before" "$tmp/after" | sed -n 's/^> [0-9a-f]*  //p')
if [ -n "$changed" ]; then
	# shellcheck disable=SC2086
	$goimports -w $changed
	echo "move-catalog: rewrote" $(echo "$changed" | wc -l) "files"
else
	echo "move-catalog: nothing to rewrite"
fi

if [ "$check" = 1 ]; then
	go build ./engine/...
	go vet ./engine/
fi
