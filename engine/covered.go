package engine

import (
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// projectionKeepsSort reports whether a covered find's projection proj
// keeps every field of srt, a sort in memory (nil or given by the
// scan: false): mongod's planner then moves the projection under the
// SORT (tryPushdownProjectBeneathSort: no computed field, not a top-k
// sort, every sort field kept), so SORT is over PROJECTION_COVERED.
func projectionKeepsSort(proj bson.D, srt *query.Sort) bool {
	keys := srt.Keys()
	if len(keys) == 0 {
		return false
	}
	for _, k := range keys {
		kept := k.Path == "_id"
		for _, e := range proj {
			if e.Key == k.Path {
				f, isNum := asFloat(e.Value)
				b, isBool := e.Value.(bool)
				kept = isNum && f != 0 || isBool && b
			}
		}
		if !kept {
			return false
		}
	}
	return true
}

// underSort returns explain's tree with stage (a projection without
// its input) moved under its SORT: SORT (or SKIP over SORT) over the
// projection over what the SORT read. A tree without a SORT there gets
// the projection on top.
func underSort(tree, stage bson.D) bson.D {
	sortDoc := tree
	if name, _ := get(tree, "stage"); name == "SKIP" {
		sortDoc, _ = get2D(tree, "inputStage")
	}
	if name, _ := get(sortDoc, "stage"); name != "SORT" {
		return append(stage, bson.E{Key: "inputStage", Value: tree})
	}
	for i, e := range sortDoc {
		if e.Key == "inputStage" {
			sortDoc[i].Value = append(stage, bson.E{Key: "inputStage", Value: e.Value})
		}
	}
	return tree
}

// coverable reports whether index plan p can answer a find with
// projection proj from its index's entries alone, without reading a
// document (mongod's PROJECTION_COVERED over an IXSCAN, no FETCH;
// docs/commands.md, "Covered queries"):
//
//   - one scan of an index whose entries carry type bits (made since
//     ttlkv kept them, so that its keys give back each value exactly),
//     on an ordinary collection; not multikey (a document's key would
//     be one element of an array), not bounded from a hinted partial
//     index's whole range;
//   - a filter whose every condition the index's bounds answer exactly
//     (query.Filter.CoveredPaths: as for a count of keys, and an
//     equality to null; no $exists, $type, regular expression, $or,
//     $expr...), on fields the index bounds; the filter runs on the
//     values the entries give back;
//   - no sort, one the scan's order gives, or one of the index's fields
//     alone, which a SORT under the projection makes of the values the
//     entries give back (under the query's collation);
//   - a projection that includes top-level fields only, each a field of
//     the index and none a field the filter compares with null (its
//     key is null's, undefined's or a missing field's: mongod's rule),
//     with _id excluded unless the index has it.
//
// A missing field keys as null; the type bits tell the two apart, so a
// covered document leaves out a field its document lacks, as the
// fetched one does (mongod's covered projection shows it as null).
func coverable(p *plan, proj bson.D) bool {
	if len(proj) == 0 || p == nil || p.ix == nil || p.or != nil || p.ts != nil || p.text != nil || p.near != nil ||
		p.wcPath != "" || p.cwi != nil || p.whole {
		return false
	}
	ix, m := p.ix, p.m
	if !keepsTypeBits(m, ix) || m.Kind != catalog.KindNormal || ix.Multikey || ix.Collator() != nil || !typedIndex(m, ix) {
		return false
	}
	fields := indexkey.Fields(ix.Key)
	inIndex := func(path string) bool {
		for _, f := range fields {
			if f.Path == path {
				return true
			}
		}
		return false
	}
	if p.sort != nil && !p.sortByIndex {
		// A sort in memory, of the values the entries give back.
		for _, k := range p.sort.Keys() {
			if !inIndex(k.Path) {
				return false
			}
		}
	}
	for i, f := range fields {
		for j, g := range fields {
			if i != j && (f.Path == g.Path || strings.HasPrefix(g.Path, f.Path+".")) {
				return false // one field's value inside another's
			}
		}
	}
	var nulls []string
	if !p.filter.IsEmpty() {
		var paths []string
		var ok bool
		paths, nulls, ok = p.filter.CoveredPaths()
		if !ok {
			return false
		}
		if !pathsBounded(p, paths) {
			return false
		}
	}
	included, idOut := false, false
	for _, e := range proj {
		if strings.ContainsAny(e.Key, ".$") {
			return false
		}
		on, ok := projectionFlag(e.Value)
		if !ok {
			return false // a computed field
		}
		switch {
		case !on && e.Key == "_id":
			idOut = true
		case !on:
			return false // an exclusion needs the whole document
		case !inIndex(e.Key) || slices.Contains(nulls, e.Key):
			return false
		default:
			included = true
		}
	}
	return included && (idOut || inIndex("_id"))
}
