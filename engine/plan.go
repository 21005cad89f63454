package engine

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// keyRange is a half-open byte range [lo, hi) of index keys.
type keyRange struct{ lo, hi []byte }

// plan is how a query reads a collection: a collection scan in
// natural order, or an index scan over key ranges followed by a fetch.
type plan struct {
	c      *coll
	m      *catalog.Coll
	filter *query.Filter
	sort   *query.Sort

	ix          *catalog.Index  // nil: collection scan
	ranges      []keyRange      // index scan ranges, ascending byte order
	reverse     bool            // scan ranges (or records) backwards
	sortByIndex bool            // the scan order satisfies sort
	boundsDesc  bson.D          // indexBounds for explain, when bounds is empty
	bounds      []ixFieldBounds // each index field's intervals, for explain's indexBounds
	keyPattern  bson.D          // keyPattern for explain; nil: ix.Key
	wcPath      string          // the path a wildcard index ix is scanned for
	// keyChecks are the bounds of fields the ranges do not enforce
	// (after the first field a range bounds): an index entry whose key
	// is out of them is skipped without fetching its document.
	keyChecks []fieldCheck
	// or, when set, is an index union: one plan a branch of the
	// filter's $or, each matching the whole filter, their documents
	// taken once each (ix is nil).
	or        []*plan
	orStats   []*execStats   // each branch scan's figures, once it runs
	fieldDesc []bool         // each index field's direction, to read its keys
	ixPrefix  []byte         // the index's key prefix, before the keystring
	filterRaw bson.D         // the filter as given, for explain
	sortDoc   bson.D         // the sort as given, for explain
	ts        *tsPlan        // non-nil: a read of a time-series collection
	text      *textPlan      // non-nil: a $text query through the text index
	near      *query.GeoNear // non-nil: a $near through a geo index, ordered by distance
	cwi       *cwiScan       // non-nil: how a compound wildcard index ix is read
	// whole: scan all of ix, its bounds unused (a hinted partial index
	// whose filter the query does not imply, as mongod scans it).
	whole bool
	// covered: a find's projection is answered from ix's entries, its
	// documents not read (coverable; explain's PROJECTION_COVERED).
	covered bool
}

// classPrefix returns the bytes every ascending key of like's BSON
// type class starts with.
func classPrefix(like any) []byte { return lsm.AppendTypeBound(nil, like, false, false) }

func invert(b []byte) []byte {
	out := make([]byte, len(b))
	for i, c := range b {
		out[i] = ^c
	}
	return out
}

// intervalRange converts a value interval on a single index field to
// a byte range of keys under prefix.
func intervalRange(prefix []byte, iv query.Interval, desc bool) keyRange {
	cat := func(b []byte) []byte { return append(append([]byte{}, prefix...), b...) }
	enc := func(v any) []byte { return lsm.AppendKey(nil, v, desc) }
	// value-order lower and upper bounds as byte bounds.
	var lo, hi []byte
	if !desc {
		switch v := iv.Lo.Value.(type) {
		case bson.MinKey:
			lo = cat(nil)
		case query.TypeBracket:
			lo = cat(classPrefix(v.Like))
			if v.Upper {
				lo = cat(lsm.PrefixEnd(classPrefix(v.Like)))
			}
		default:
			if iv.Lo.Inclusive {
				lo = cat(enc(v))
			} else {
				lo = lsm.PrefixEnd(cat(enc(v)))
			}
		}
		switch v := iv.Hi.Value.(type) {
		case bson.MaxKey:
			if iv.Hi.Inclusive {
				hi = lsm.PrefixEnd(prefix)
			} else {
				hi = cat(enc(v))
			}
		case query.TypeBracket:
			hi = cat(lsm.PrefixEnd(classPrefix(v.Like)))
			if !v.Upper {
				hi = cat(classPrefix(v.Like))
			}
		default:
			if iv.Hi.Inclusive {
				hi = lsm.PrefixEnd(cat(enc(v)))
			} else {
				hi = cat(enc(v))
			}
		}
		return keyRange{lo, hi}
	}
	// Descending: the value interval [Lo, Hi] maps to bytes [enc(Hi), enc(Lo)].
	switch v := iv.Hi.Value.(type) {
	case bson.MaxKey:
		if iv.Hi.Inclusive {
			lo = cat(nil)
		} else {
			lo = lsm.PrefixEnd(cat(enc(v)))
		}
	case query.TypeBracket:
		lo = cat(invert(classPrefix(v.Like)))
		if !v.Upper {
			lo = lsm.PrefixEnd(lo)
		}
	default:
		if iv.Hi.Inclusive {
			lo = cat(enc(v))
		} else {
			lo = lsm.PrefixEnd(cat(enc(v)))
		}
	}
	switch v := iv.Lo.Value.(type) {
	case bson.MinKey:
		if iv.Lo.Inclusive {
			hi = lsm.PrefixEnd(prefix)
		} else {
			hi = cat(enc(v))
		}
	case query.TypeBracket:
		hi = lsm.PrefixEnd(cat(invert(classPrefix(v.Like))))
		if v.Upper {
			hi = cat(invert(classPrefix(v.Like)))
		}
	default:
		if iv.Lo.Inclusive {
			hi = lsm.PrefixEnd(cat(enc(v)))
		} else {
			hi = cat(enc(v))
		}
	}
	return keyRange{lo, hi}
}

// rangesFor converts intervals to sorted, non-empty byte ranges.
func rangesFor(prefix []byte, ivs query.Intervals, desc bool) []keyRange {
	var out []keyRange
	for _, iv := range ivs {
		r := intervalRange(prefix, iv, desc)
		if bytes.Compare(r.lo, r.hi) < 0 {
			out = append(out, r)
		}
	}
	if desc {
		for i, j := 0, len(out)-1; i < j; i, j = i+1, j-1 {
			out[i], out[j] = out[j], out[i]
		}
	}
	return out
}

// usable reports whether the planner may choose ix without a hint for
// filter. A partial index is usable when the filter implies its
// partialFilterExpression (query.Filter.Implies, mongod's isSubsetOf):
// then every document the filter matches is in it.
func usable(ix *catalog.Index, filter *query.Filter) bool {
	return !ix.Hidden && partialUsable(ix, filter) && !ix.Sparse && !isTextKey(ix.Key) && !indexkey.IsGeo(ix.Key)
}

// partialUsable reports whether ix holds every document filter matches
// as far as its partialFilterExpression goes: it has none, or the filter
// implies it (and the index was not built under older null rules that
// may have left some out: catalog.Index.MayLackUndefined).
func partialUsable(ix *catalog.Index, filter *query.Filter) bool {
	if ix.Partial == nil && ix.PartialFilter == nil {
		return true
	}
	return ix.PartialFilter != nil && !ix.MayLackUndefined() && filter.Implies(ix.PartialFilter)
}

// sparseUsable reports whether the planner may choose the sparse index
// ix without a hint for filter: when the filter bounds ix's first field
// away from null, no document the index leaves out (one without any of
// its fields) can match, as mongod's planner reasons for a sparse index.
// A sparse index never only gives a sort order (it would leave
// documents out).
func sparseUsable(ix *catalog.Index, filter *query.Filter) bool {
	if !ix.Sparse || ix.Hidden || ix.PartialFilter != nil || indexkey.IsWildcard(ix.Key) {
		return false
	}
	for _, f := range ix.Key {
		if v, ok := f.Value.(string); ok && v != indexkey.Hashed {
			return false // text and geo indexes keep their own rules
		}
	}
	ivs, ok := filter.Bounds(ix.Key[0].Key, !ix.FieldMultikey(0))
	return ok && len(ivs) > 0 && !ivs.Contains(nil)
}

// makePlan chooses how to run filter with sort on c. hint, if not nil,
// names an index (by name string or key pattern document).
func makePlan(c *coll, m *catalog.Coll, filter *query.Filter, sort *query.Sort, hint any) (*plan, error) {
	p := &plan{c: c, m: m, filter: filter, sort: sort}
	if filter.TextUnderOr() {
		// docs/text.md: an index union, the $text's branch through the
		// text index, every other branch through an index of its own.
		if hint != nil {
			return nil, document.Errorf(document.CodeBadValue, "error processing query: planner returned error :: caused by :: a $text query cannot be hinted")
		}
		if subs := orPlans(c, m, filter); subs != nil {
			p.or = subs
			return p, nil
		}
		return nil, document.Errorf(document.CodeNoQueryExecutionPlans, "error processing query: planner returned error :: caused by :: Failed to produce a solution for TEXT under OR - other non-TEXT clauses under OR have to be indexed as well.")
	}
	if filter.Text() != nil {
		if err := p.useText(hint); err != nil {
			return nil, err
		}
		return p, nil
	}
	if filter.Near() != nil {
		if err := p.useNear(hint); err != nil {
			return nil, err
		}
		return p, nil
	}
	if sort != nil {
		if dir, ok := sort.NaturalOrder(); ok {
			p.reverse = dir < 0
			p.sortByIndex = true
			return p, nil
		}
	}
	if hint != nil {
		ix, natural, err := resolveHint(m, hint)
		if err != nil {
			return nil, err
		}
		if ix != nil && isTextKey(ix.Key) {
			return nil, document.Errorf(document.CodeBadValue, "error processing query: planner returned error :: caused by :: a text index answers only a $text query; hint %s", ix.Name)
		}
		if ix != nil && indexkey.IsGeo(ix.Key) {
			// Only documents with a geometry are in it.
			if pos, _ := indexkey.GeoField(ix.Key); !slices.Contains(filter.GeoPaths(), ix.Key[pos].Key) {
				return nil, document.Errorf(document.CodeBadValue, "error processing query: planner returned error :: caused by :: the hinted geospatial index %s answers only a $geoWithin or $geoIntersects on its field", ix.Name)
			}
		}
		if natural != 0 {
			p.reverse = natural < 0
			return p, nil
		}
		if indexkey.IsWildcard(ix.Key) && len(ix.Key) > 1 {
			s, ok := cwiRead(ix, filter, sort, true)
			if !ok {
				return nil, document.Errorf(document.CodeBadValue, "error processing query: planner returned error :: caused by :: the hinted compound wildcard index %s cannot answer a query without an equality or range on a wildcard path or on its first regular field", ix.Name)
			}
			p.cwi = s
		} else if indexkey.IsWildcard(ix.Key) {
			path, _, _, ok := wildcardPath(ix, filter, sort)
			if !ok {
				// Documents without the fields it keeps are not in it.
				return nil, document.Errorf(document.CodeBadValue, "error processing query: planner returned error :: caused by :: the hinted wildcard index %s cannot answer a query without an equality or range on a field it keeps", ix.Name)
			}
			p.wcPath = path
		} else if !partialUsable(ix, filter) {
			// mongod plans no bounds on a partial index the query does
			// not imply, and a hint then scans all of it: only the
			// documents it holds are found (SERVER-26413).
			p.whole = true
		}
		p.useIndex(ix)
		return p, nil
	}
	// Prefer an index whose first field the filter bounds: equality
	// first, then unique, then any range; else one that gives the sort.
	var best *catalog.Index
	bestScore := 0
	bestPath := ""       // best's path, when best is a wildcard index
	var bestCWI *cwiScan // best's reading, when best is a compound wildcard index
	eq := map[string]bool{}
	for _, path := range filter.EqualityPaths() {
		eq[path] = true
	}
	for _, ix := range m.Indexes {
		if !usable(ix, filter) && !sparseUsable(ix, filter) {
			continue
		}
		if indexkey.IsWildcard(ix.Key) && len(ix.Key) > 1 {
			s, ok := cwiFor(ix, filter, sort)
			if !ok {
				continue
			}
			score := 1
			if s.eq {
				score = 3
			}
			_, enforced := compoundRanges(nil, s.fields, s.ivs, s.bounded)
			score = score*16 + min(enforced, 15)
			if score > bestScore {
				best, bestScore, bestPath, bestCWI = ix, score, "", s
			}
			continue
		}
		if indexkey.IsWildcard(ix.Key) {
			path, _, isEq, ok := wildcardPath(ix, filter, sort)
			if !ok {
				continue
			}
			score := 1
			if isEq {
				score = 3
			}
			score = score*16 + 1 // its ranges enforce one field
			if score > bestScore {
				best, bestScore, bestPath = ix, score, path
			}
			continue
		}
		first := ix.Key[0].Key
		ivs, ok := filter.Bounds(first, !ix.FieldMultikey(0))
		if !ok || !indexBoundsUsable(ix, filter, sort, ivs, ok) {
			continue
		}
		if ix.Key[0].Value == indexkey.Hashed {
			if _, ok := hashedIntervals(ivs); !ok {
				continue // a hashed index answers equalities only
			}
		}
		same := sameCollation(ix, filter, sort)
		score := 1
		if eq[first] {
			score = 3
			if ix.Unique && len(ix.Key) == 1 {
				score = 4
			}
		}
		fivs, fbounded := fieldBounds(ix, filter, sort)
		if same && sort != nil && sortMatchesAfter(sort, ix, pointPrefix(fivs, fbounded)) >= 0 {
			score++
		}
		// Between indexes of one score, the one whose ranges enforce
		// more of the filter's fields reads fewer keys.
		_, enforced := compoundRanges(nil, indexkey.Fields(ix.Key), fivs, fbounded)
		score = score*16 + min(enforced, 15)
		if score > bestScore || score == bestScore && best != nil && tsOwnIndex(m, best) && !tsOwnIndex(m, ix) {
			// Between equals, an index the user can list reads the
			// buckets rather than ttlkv's own (explain names it).
			best, bestScore, bestPath = ix, score, ""
		}
	}
	if bestScore < 3*16 && p.useGeo() {
		// A 2dsphere index bounded by the region, unless an equality
		// picked an index.
		return p, nil
	}
	if best == nil {
		if subs := orPlans(c, m, filter); subs != nil {
			p.or = subs
			return p, nil
		}
	}
	if best == nil && sort != nil {
		for _, ix := range m.Indexes {
			if usable(ix, filter) && sameCollation(ix, filter, sort) && !indexkey.IsWildcard(ix.Key) && sortMatches(sort, ix) >= 0 {
				best = ix
				break
			}
		}
	}
	if best != nil {
		p.wcPath, p.cwi = bestPath, bestCWI
		p.useIndex(best)
	}
	return p, nil
}

// orPlans returns an index union for filter when its $or's branches
// can each be read through an index: a plan a branch, bounded by the
// branch, matching the whole filter. It returns nil when a branch has
// no index to use, and for collections other than ordinary ones.
func orPlans(c *coll, m *catalog.Coll, filter *query.Filter) []*plan {
	if m.Kind != catalog.KindNormal || isBucketsColl(m) {
		return nil
	}
	branches, ok := filter.OrBranches()
	if !ok {
		return nil
	}
	subs := make([]*plan, 0, len(branches))
	for _, br := range branches {
		sp, err := makePlan(c, m, br, nil, nil)
		if err != nil || sp.ix == nil || sp.or != nil {
			return nil
		}
		sp.filter = filter
		if sp.text != nil {
			// The $text's branch first: a document both find is then
			// taken with its text score.
			subs = append([]*plan{sp}, subs...)
			continue
		}
		subs = append(subs, sp)
	}
	return subs
}

// wildcardPath returns the path of filter that wildcard index ix
// answers, its intervals, and whether they come from an equality: the
// first path the index keeps that has an equality, else the first with
// a range. ok is false when the index answers none: a document without
// a field has no key in it, so intervals that hold null (or undefined)
// are not answered, nor are documents or arrays, whose keys are their
// leaves'.
func wildcardPath(ix *catalog.Index, filter *query.Filter, sort *query.Sort) (path string, ivs query.Intervals, eq, ok bool) {
	for i, paths := range [][]string{filter.EqualityPaths(), filter.RangePaths()} {
		for _, path := range paths {
			if !indexkey.WildcardCovers(ix, path) {
				continue
			}
			ivs, ok := filter.Bounds(path, !ix.Multikey)
			if !ok || !indexBoundsUsable(ix, filter, sort, ivs, ok) || !scalarIntervals(ivs) {
				continue
			}
			return path, ivs, i == 0, true
		}
	}
	return "", nil, false, false
}

// scalarIntervals reports whether every interval lies within one type
// class of scalars other than null and undefined, or is the empty
// document (which a wildcard index keeps as a value).
func scalarIntervals(ivs query.Intervals) bool {
	if len(ivs) == 0 {
		return false
	}
	for _, iv := range ivs {
		if d, ok := iv.Lo.Value.(bson.D); ok && len(d) == 0 && iv.Lo.Inclusive && iv.Hi.Inclusive && query.CompareBound(iv.Lo.Value, iv.Hi.Value) == 0 {
			continue
		}
		lo, hi := boundClass(iv.Lo.Value), boundClass(iv.Hi.Value)
		if lo != hi {
			return false
		}
		switch lo {
		case document.ClassMinKey, document.ClassMaxKey, document.ClassUndefined, document.ClassNull,
			document.ClassObject, document.ClassArray, document.ClassUnknown:
			return false
		}
	}
	return true
}

// useWildcard makes p scan wildcard index ix, under prefix, for the
// keys of p.wcPath in the filter's intervals on it.
func (p *plan) useWildcard(prefix []byte) {
	_, ivs, _, _ := wildcardPath(p.ix, p.filter, p.sort)
	desc := indexkey.Fields(p.ix.Key)[0].Desc
	pathPrefix := lsm.AppendKey(append([]byte(nil), prefix...), p.wcPath, false)
	p.ranges = rangesFor(pathPrefix, ivs, desc)
	quoted := fmt.Sprintf("%q", p.wcPath)
	p.boundsDesc = bson.D{{Key: "$_path", Value: bson.A{"[" + quoted + ", " + quoted + "]"}},
		{Key: p.wcPath, Value: describeIntervals(ivs, desc)}} // a wildcard scan runs forward
	dir := int32(1)
	if desc {
		dir = -1
	}
	p.keyPattern = bson.D{{Key: "$_path", Value: int32(1)}, {Key: p.wcPath, Value: dir}}
}

// hashedIntervals returns the intervals of a hashed index's keys for
// ivs, a filter's intervals on the hashed field: one point a value, its
// hash. ok is false unless every interval is a point (an equality or an
// $in), the only filters a hashed index answers; two values may share a
// hash, so the filter still decides each document fetched.
func hashedIntervals(ivs query.Intervals) (out query.Intervals, ok bool) {
	hashes := make([]int64, 0, len(ivs))
	for _, iv := range ivs {
		if !iv.Lo.Inclusive || !iv.Hi.Inclusive || query.CompareBound(iv.Lo.Value, iv.Hi.Value) != 0 {
			return nil, false
		}
		if _, bracket := iv.Lo.Value.(query.TypeBracket); bracket {
			return nil, false
		}
		hashes = append(hashes, document.HashedKey(iv.Lo.Value))
		if alt, ok := otherIntegerOf(iv.Lo.Value); ok {
			hashes = append(hashes, document.HashedKey(alt))
		}
	}
	slices.Sort(hashes)
	hashes = slices.Compact(hashes)
	out = make(query.Intervals, len(hashes))
	for i, h := range hashes {
		b := query.Bound{Value: h, Inclusive: true}
		out[i] = query.Interval{Lo: b, Hi: b}
	}
	return out, len(out) > 0
}

// otherIntegerOf returns, for a number that is not a whole one, the
// integer it hashes as in the other numeric type: a double hashes as its
// truncation and a decimal as its rounding half to even
// (document.HashedKey), so a double 1.5 and a decimal 1.5, equal under
// the filter, have different keys. Looking both up finds a document
// holding either (mongod looks up one and misses the other).
func otherIntegerOf(v any) (int64, bool) {
	const limit = 1 << 62 // well inside int64, where the conversions are exact enough
	switch n := v.(type) {
	case float64:
		if n != math.Trunc(n) && math.Abs(n) < limit {
			return int64(math.RoundToEven(n)), true
		}
	case bson.Decimal128:
		f, err := strconv.ParseFloat(n.String(), 64)
		if err == nil && f != math.Trunc(f) && math.Abs(f) < limit {
			return int64(math.Trunc(f)), true
		}
	}
	return 0, false
}

// sortMatches returns 0 if scanning ix forwards gives sort's order, 1
// if backwards, -1 if neither.
func sortMatches(s *query.Sort, ix *catalog.Index) int { return sortMatchesAfter(s, ix, 0) }

// sortMatchesAfter is sortMatches for a scan whose first fixed fields
// hold one value each (an equality on each): the sort may name the
// fields after them, or start from the first.
func sortMatchesAfter(s *query.Sort, ix *catalog.Index, fixed int) int {
	if r := sortMatchesFrom(s, ix, 0); r >= 0 || fixed == 0 {
		return r
	}
	return sortMatchesFrom(s, ix, fixed)
}

// sortMatchesFrom is sortMatches against the fields of ix from the
// from-th on. A field some document met an array on gives no order (a
// document has several of its values), as mongod's multikey paths say;
// the fields before and after the sort's may (the scan takes each
// document once, at its first key).
func sortMatchesFrom(s *query.Sort, ix *catalog.Index, from int) int {
	keys := s.Keys()
	if len(keys) == 0 || from+len(keys) > len(ix.Key) {
		return -1
	}
	for i := range keys {
		if ix.FieldMultikey(from + i) {
			return -1
		}
	}
	fields := indexkey.Fields(ix.Key)[from:]
	fwd, bwd := true, true
	for i, k := range keys {
		if k.Path != fields[i].Path || fields[i].Hashed {
			return -1
		}
		if k.Desc != fields[i].Desc {
			fwd = false
		} else {
			bwd = false
		}
	}
	switch {
	case fwd:
		return 0
	case bwd:
		return 1
	}
	return -1
}

func (p *plan) useIndex(ix *catalog.Index) {
	p.ix = ix
	prefix := lsm.IndexPrefix(p.m.ID, ix.ID)
	if p.wcPath != "" {
		p.useWildcard(prefix)
		return
	}
	if p.cwi != nil {
		p.useCompoundWildcard(prefix)
		return
	}
	fields := indexkey.Fields(ix.Key)
	ivs, bounded := fieldBounds(ix, p.filter, p.sort)
	if p.whole {
		for i := range ivs {
			ivs[i], bounded[i] = allValues, false
		}
	}
	p.ixPrefix = prefix
	var enforced int
	p.ranges, enforced = compoundRanges(prefix, fields, ivs, bounded)
	p.fieldDesc = make([]bool, len(fields))
	for i, f := range fields {
		p.fieldDesc[i] = f.Desc
		if i >= enforced && bounded[i] {
			ck := fieldCheck{field: i}
			for _, iv := range ivs[i] {
				ck.ranges = append(ck.ranges, intervalRange(nil, iv, f.Desc))
			}
			slices.SortFunc(ck.ranges, func(a, b keyRange) int { return bytes.Compare(a.lo, b.lo) })
			p.keyChecks = append(p.keyChecks, ck)
		}
	}
	p.bounds = p.bounds[:0]
	for i, f := range fields {
		p.bounds = append(p.bounds, ixFieldBounds{path: f.Path, ivs: ivs[i], desc: f.Desc})
	}
	if p.sort != nil && sameCollation(ix, p.filter, p.sort) {
		switch sortMatchesAfter(p.sort, ix, pointPrefix(ivs, bounded)) {
		case 0:
			p.sortByIndex = true
		case 1:
			p.sortByIndex, p.reverse = true, true
		}
	}
}

// allValues is the interval of every key value, [MinKey, MaxKey].
var allValues = query.Intervals{{Lo: query.Bound{Value: bson.MinKey{}, Inclusive: true}, Hi: query.Bound{Value: bson.MaxKey{}, Inclusive: true}}}

// fieldBounds returns the intervals filter puts on each field of ix,
// in key-value terms (a hashed field's hashes), and whether the index
// may use them: a field the filter does not bound, whose bounds a
// collation other than the index's changes, or a hashed field that is
// not an equality, is [MinKey, MaxKey] and unbounded. A multikey
// index's fields on whose paths some document met an array
// (catalog.Index.FieldMultikey) take one conjunct's bounds each (a
// field's conjuncts may be met by different elements of an array); its
// other fields intersect theirs, as any index's do. All are compounded
// as any index's, except two multikey fields whose paths begin alike
// (a.b, a.c): a document keys the fields through one array element by
// element, and the rest with their single values (two arrays are
// refused, 171), so a document that meets the bounds of fields of
// different beginnings has a key within all of them, but a.b and a.c
// may be met by different elements, unless one $elemMatch on a bounds
// both. (A field no document met an array on cannot share one: any
// array on its path would have marked it.)
func fieldBounds(ix *catalog.Index, filter *query.Filter, sort *query.Sort) ([]query.Intervals, []bool) {
	fields := indexkey.Fields(ix.Key)
	ivs := make([]query.Intervals, len(fields))
	bounded := make([]bool, len(fields))
	firsts := map[string]int{}    // the first path part of each field bounded so far: the field
	shared := map[string]string{} // a first path part: the $elemMatch path bounding its fields together
	for i, f := range fields {
		ivs[i] = allValues
		if kind := geoKindOf(ix, i); kind != "" {
			if iv, ok := geoFieldBounds(ix, kind, f.Path, filter); ok {
				ivs[i], bounded[i] = iv, true
			}
			continue
		}
		first, _, _ := strings.Cut(f.Path, ".")
		if j, seen := firsts[first]; seen && ix.FieldMultikey(i) {
			// Fields through one array are compounded only under one
			// $elemMatch, whose conditions hold for one element: both
			// bounded by it alone.
			em, at, ok := filter.ElemMatchOn(fields[j].Path, f.Path)
			if !ok || (shared[first] != "" && shared[first] != at) {
				continue
			}
			// Only fields one part below the $elemMatch's path: a.b.c
			// and a.b.d under an $elemMatch on a may be met by
			// different elements of an array at a.b.
			if strings.Contains(fields[j].Path[len(at)+1:], ".") || strings.Contains(f.Path[len(at)+1:], ".") {
				continue
			}
			ivj, okj := em.Bounds(fields[j].Path[len(at)+1:], false)
			ivi, oki := em.Bounds(f.Path[len(at)+1:], false)
			if !okj || !oki || fields[j].Hashed || f.Hashed || !indexBoundsUsable(ix, filter, sort, ivi, true) || !indexBoundsUsable(ix, filter, sort, ivj, true) {
				continue
			}
			shared[first] = at
			ivs[j], ivs[i], bounded[i] = ivj, ivi, true
			continue
		}
		iv, ok := filter.Bounds(f.Path, !ix.FieldMultikey(i))
		if !ok || !indexBoundsUsable(ix, filter, sort, iv, ok) {
			continue
		}
		if f.Hashed {
			if iv, ok = hashedIntervals(iv); !ok {
				continue
			}
		}
		ivs[i], bounded[i] = iv, true
		if ix.FieldMultikey(i) {
			// (A field no document met an array on is compounded
			// freely: the arrays two such fields meet are their own.)
			firsts[first] = i
		}
	}
	return ivs, bounded
}

// maxPointPrefixes bounds how many key prefixes equalities on leading
// fields expand to ($in x $in ...); past it, the field's intervals bound
// a range under the prefixes so far instead.
const maxPointPrefixes = 4096

// compoundRanges converts per-field intervals to sorted byte ranges of
// keys under prefix: each leading field whose intervals are all points
// extends the key prefixes (one a combination of points), and the first
// other field bounds a range under each prefix. A field's bounds after
// that one do not narrow the ranges: the filter, run on each document,
// still holds them.
func compoundRanges(prefix []byte, fields []indexkey.Field, ivs []query.Intervals, bounded []bool) (ranges []keyRange, enforced int) {
	prefixes := [][]byte{prefix}
	for i, f := range fields {
		if !bounded[i] {
			break
		}
		enforced = i + 1
		if i < len(fields)-1 && allPoints(ivs[i]) && len(prefixes)*len(ivs[i]) <= maxPointPrefixes {
			next := make([][]byte, 0, len(prefixes)*len(ivs[i]))
			for _, pre := range prefixes {
				for _, iv := range ivs[i] {
					next = append(next, lsm.AppendKey(append([]byte(nil), pre...), iv.Lo.Value, f.Desc))
				}
			}
			slices.SortFunc(next, bytes.Compare)
			prefixes = next
			continue
		}
		var out []keyRange
		for _, pre := range prefixes {
			out = append(out, rangesFor(pre, ivs[i], f.Desc)...)
		}
		return out, enforced
	}
	out := make([]keyRange, 0, len(prefixes))
	for _, pre := range prefixes {
		out = append(out, keyRange{pre, lsm.PrefixEnd(pre)})
	}
	return out, enforced
}

// fieldCheck is the bounds of one index field, as ranges of the bytes
// of its own key (hi nil: no upper end).
type fieldCheck struct {
	field  int
	ranges []keyRange
}

// keyInBounds reports whether the keystring ks of an index entry (its
// fields, without the record id) is within p's key checks; a key it
// cannot read counts as within, so that the filter decides.
func (p *plan) keyInBounds(ks []byte) bool {
	ok, _, _ := p.keyCheck(ks)
	return ok
}

// keyCheck is keyInBounds that also returns, for a key out of bounds,
// where the scan can go on from. Forward, next: the least keystring
// after ks that can be within the failing field's bounds (the fields
// before it as in ks, then the start of the field's next range above
// its value in ks), or past every keystring that begins with those
// fields (nil: nowhere within this index). Backward, prev: the bound
// below which the greatest such keystring lies (those fields, then the
// end of the field's range below its value in ks, or the fields alone).
func (p *plan) keyCheck(ks []byte) (ok bool, next, prev []byte) {
	last := p.keyChecks[len(p.keyChecks)-1].field
	ci := 0
	rest := ks
	for i := 0; i <= last; i++ {
		_, after, err := lsm.DecodeKey(rest, p.fieldDesc[i])
		if err != nil {
			return true, nil, nil
		}
		if ck := p.keyChecks[ci]; ck.field == i {
			fb := rest[:len(rest)-len(after)]
			if !inRanges(fb, ck.ranges) {
				head := ks[:len(ks)-len(rest)]
				next = lsm.PrefixEnd(head)
				for _, r := range ck.ranges { // sorted by their starts
					if bytes.Compare(r.lo, fb) > 0 {
						next = append(append([]byte(nil), head...), r.lo...)
						break
					}
				}
				prev = append([]byte(nil), head...)
				for j := len(ck.ranges) - 1; j >= 0; j-- {
					if r := ck.ranges[j]; r.hi != nil && bytes.Compare(r.hi, fb) <= 0 {
						prev = append(prev, r.hi...)
						break
					}
				}
				return false, next, prev
			}
			ci++
		}
		rest = after
	}
	return true, nil, nil
}

// inRanges reports whether a field's key bytes fb lie in one of ranges.
func inRanges(fb []byte, ranges []keyRange) bool {
	for _, r := range ranges {
		if bytes.Compare(fb, r.lo) >= 0 && (r.hi == nil || bytes.Compare(fb, r.hi) < 0) {
			return true
		}
	}
	return false
}

// allPoints reports whether every interval is a single value.
func allPoints(ivs query.Intervals) bool {
	for _, iv := range ivs {
		if !isPoint(iv) {
			return false
		}
	}
	return len(ivs) > 0
}

func isPoint(iv query.Interval) bool {
	switch iv.Lo.Value.(type) {
	case query.TypeBracket, bson.MinKey, bson.MaxKey:
		return false
	}
	return iv.Lo.Inclusive && iv.Hi.Inclusive && query.CompareBound(iv.Lo.Value, iv.Hi.Value) == 0
}

// pointPrefix returns how many leading fields the bounds fix to one
// value each: scanning the index under them gives the next fields'
// order.
func pointPrefix(ivs []query.Intervals, bounded []bool) int {
	n := 0
	for i := range ivs {
		if !bounded[i] || len(ivs[i]) != 1 || !isPoint(ivs[i][0]) {
			break
		}
		n++
	}
	return n
}

// describeIntervals returns ivs as explain's indexBounds print them, in
// the order the scan reads them: reversed (each interval from its high
// end, the last first) when the scan runs against the field's order, a
// descending field read forward or an ascending one read backward, as
// mongod prints "[MaxKey, MinKey]" for a backward scan of {_id: 1}.
func describeIntervals(ivs query.Intervals, reversed bool) bson.A {
	out := bson.A{}
	if reversed {
		for j := len(ivs) - 1; j >= 0; j-- {
			out = append(out, boundString(ivs[j].Hi, true)+", "+boundString(ivs[j].Lo, false))
		}
		return out
	}
	for _, iv := range ivs {
		out = append(out, boundString(iv.Lo, true)+", "+boundString(iv.Hi, false))
	}
	return out
}

// boundString prints bound b first in its interval (with an opening
// bracket) or last (with a closing one).
func boundString(b query.Bound, first bool) string {
	s, inclusive := boundText(b)
	if first {
		if inclusive {
			return "[" + s
		}
		return "(" + s
	}
	if inclusive {
		return s + "]"
	}
	return s + ")"
}

// boundText returns bound b's value as explain prints it, and whether
// the interval includes it.
func boundText(b query.Bound) (string, bool) {
	switch v := b.Value.(type) {
	case bson.MinKey:
		return "MinKey", b.Inclusive
	case bson.MaxKey:
		return "MaxKey", b.Inclusive
	case query.TypeBracket:
		// Numbers and dates print as MongoDB prints their type's ends
		// ([new Date(-9223372036854775808), new Date(...)) for a TTL
		// field's {$lt: date}); other types by name.
		switch document.CanonicalType(v.Like) {
		case document.ClassNumber:
			if v.Upper {
				return "inf.0", b.Inclusive
			}
			return "-inf.0", b.Inclusive
		case document.ClassDate:
			if v.Upper {
				return fmtValue(bson.DateTime(math.MaxInt64)), b.Inclusive
			}
			return fmtValue(bson.DateTime(math.MinInt64)), b.Inclusive
		case document.ClassString, document.ClassObject:
			// As mongod bounds a type: from its least value, inclusive,
			// to the next type's least value, exclusive ("", then {},
			// then []).
			lower, upper := `""`, "{}"
			if document.CanonicalType(v.Like) == document.ClassObject {
				lower, upper = "{}", "[]"
			}
			if v.Upper {
				return upper, false
			}
			return lower, true
		case document.ClassObjectID:
			if v.Upper {
				return "ObjectId('ffffffffffffffffffffffff')", true
			}
			return "ObjectId('000000000000000000000000')", true
		default:
			if v.Upper {
				return "end of " + typeName(v.Like), b.Inclusive
			}
			return "start of " + typeName(v.Like), b.Inclusive
		}
	default:
		return fmtValue(v), b.Inclusive
	}
}

// resolveHint finds the index a hint names; {$natural: ±1} asks for a
// collection scan.
func resolveHint(m *catalog.Coll, hint any) (*catalog.Index, int, error) {
	switch h := hint.(type) {
	case string:
		// A hidden index cannot be hinted, as in MongoDB.
		if ix := m.Index(h); ix != nil && !ix.Hidden {
			return ix, 0, nil
		}
	case bson.D:
		if len(h) == 1 && h[0].Key == "$natural" {
			n, _ := asFloat(h[0].Value)
			if n < 0 {
				return nil, -1, nil
			}
			return nil, 1, nil
		}
		for _, ix := range m.Indexes {
			if !ix.Hidden && document.Equal(ix.Key, h) {
				return ix, 0, nil
			}
		}
	}
	if ix := tsBucketsHint(m, hint); ix != nil {
		return ix, 0, nil
	}
	return nil, 0, document.Errorf(document.CodeBadValue, "error processing query: planner returned error :: caused by :: hint provided does not correspond to an existing index")
}
