package engine

import (
	"bytes"
	"slices"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cwiScan is how a compound wildcard index answers a filter
// (docs/commands.md, "Compound wildcard indexes"): its key read as the
// regular fields before the wildcard, the leaf's path ($_path), the
// leaf's value, and the regular fields after.
type cwiScan struct {
	// path is the wildcard path the filter bounds; "" for the generic
	// scan, which reads every path (and the key of a document with no
	// leaf) under bounds on the regular fields before the wildcard.
	path    string
	fields  []indexkey.Field
	ivs     []query.Intervals
	bounded []bool
	eq      bool // the first bounded field is bounded by an equality
}

// pathIntervals are the $_path bounds of a generic scan: MinKey (the
// key of a document without a leaf) and every string.
var pathIntervals = query.Intervals{
	{Lo: query.Bound{Value: bson.MinKey{}, Inclusive: true}, Hi: query.Bound{Value: bson.MinKey{}, Inclusive: true}},
	{Lo: query.Bound{Value: "", Inclusive: true}, Hi: query.Bound{Value: bson.D{}, Inclusive: false}},
}

// cwiFor returns how compound wildcard index ix can answer filter: by
// a wildcard path the filter bounds (as a wildcard index answers it),
// else by an equality or range on the first regular field when that
// field comes before the wildcard. ok is false when neither holds.
func cwiFor(ix *catalog.Index, filter *query.Filter, sort *query.Sort) (*cwiScan, bool) {
	return cwiRead(ix, filter, sort, false)
}

// cwiRead is cwiFor; hinted, a generic scan needs no bounds on the first
// regular field (mongod reads the whole index then, and so misses the
// documents that have no key in it, as with any hinted sparse index).
func cwiRead(ix *catalog.Index, filter *query.Filter, sort *query.Sort, hinted bool) (*cwiScan, bool) {
	pos := indexkey.WildcardPos(ix.Key)
	base := indexkey.Fields(ix.Key)
	eqPaths := map[string]bool{}
	for _, p := range filter.EqualityPaths() {
		eqPaths[p] = true
	}
	build := func(path string, pathIvs, valIvs query.Intervals, valBounded bool) *cwiScan {
		s := &cwiScan{path: path}
		first := true
		for i, f := range base {
			if i == pos {
				name := path
				if name == "" {
					name = "$_value"
				}
				s.fields = append(s.fields, indexkey.Field{Path: "$_path"}, indexkey.Field{Path: name, Desc: f.Desc})
				s.ivs = append(s.ivs, pathIvs, valIvs)
				s.bounded = append(s.bounded, true, valBounded)
				if first && path != "" {
					s.eq, first = eqPaths[path], false
				}
				continue
			}
			iv, ok := filter.Bounds(f.Path, true)
			if ok && !indexBoundsUsable(ix, filter, sort, iv, ok) {
				ok = false
			}
			if !ok {
				iv = allValues
			}
			if ok && first {
				s.eq, first = eqPaths[f.Path], false
			}
			s.fields = append(s.fields, f)
			s.ivs = append(s.ivs, iv)
			s.bounded = append(s.bounded, ok)
		}
		return s
	}
	if path, ivs, _, ok := wildcardPath(ix, filter, sort); ok {
		return build(path, query.Intervals{{Lo: query.Bound{Value: path, Inclusive: true}, Hi: query.Bound{Value: path, Inclusive: true}}}, ivs, true), true
	}
	if pos > 0 {
		// A document with its first regular field has a key even
		// without a leaf; one without it may have none, so bounds that
		// hold null (or undefined) cannot be answered.
		iv, ok := filter.Bounds(base[0].Path, true)
		if hinted || ok && indexBoundsUsable(ix, filter, sort, iv, ok) && scalarIntervals(iv) {
			return build("", pathIntervals, allValues, false), true
		}
	}
	return nil, false
}

// useCompoundWildcard makes p scan compound wildcard index p.ix as
// p.cwi says: the ranges its leading bounded fields make, key checks
// for the bounded fields after them.
func (p *plan) useCompoundWildcard(prefix []byte) {
	s := p.cwi
	defer p.cwiSort()
	var enforced int
	p.ixPrefix = prefix
	p.ranges, enforced = compoundRanges(prefix, s.fields, s.ivs, s.bounded)
	p.fieldDesc = make([]bool, len(s.fields))
	p.keyChecks = nil
	for i, f := range s.fields {
		p.fieldDesc[i] = f.Desc
		if i >= enforced && s.bounded[i] {
			ck := fieldCheck{field: i}
			for _, iv := range s.ivs[i] {
				ck.ranges = append(ck.ranges, intervalRange(nil, iv, f.Desc))
			}
			slices.SortFunc(ck.ranges, func(a, b keyRange) int { return bytes.Compare(a.lo, b.lo) })
			p.keyChecks = append(p.keyChecks, ck)
		}
	}
	p.keyPattern, p.bounds = bson.D{}, p.bounds[:0]
	for i, f := range s.fields {
		if f.Path == "$_value" {
			continue // the generic scan shows $_path alone, as mongod
		}
		dir := any(int32(1))
		if f.Desc {
			dir = int32(-1)
		}
		p.keyPattern = append(p.keyPattern, bson.E{Key: f.Path, Value: dir})
		p.bounds = append(p.bounds, ixFieldBounds{path: f.Path, ivs: s.ivs[i], desc: f.Desc})
	}
}

// cwiSort makes a compound wildcard index's scan give p's sort when the
// sort names regular fields before the wildcard, from the first, in the
// index's directions or all reversed (mongod's prefix sorts): those
// fields hold one value a document, and every key of a document has
// them, so taking each document at its first key keeps their order.
func (p *plan) cwiSort() {
	if p.sort == nil || !sameCollation(p.ix, p.filter, p.sort) {
		return
	}
	keys := p.sort.Keys()
	pos := indexkey.WildcardPos(p.ix.Key)
	if len(keys) == 0 || len(keys) > pos {
		return
	}
	fields := indexkey.Fields(p.ix.Key)
	fwd, bwd := true, true
	for i, k := range keys {
		if k.Path != fields[i].Path {
			return
		}
		if k.Desc != fields[i].Desc {
			fwd = false
		} else {
			bwd = false
		}
	}
	if fwd || bwd {
		p.sortByIndex, p.reverse = true, bwd
	}
}
