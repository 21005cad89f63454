package engine

import (
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/engine/query"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// stageTree renders a plan's stages for explain, innermost first
// wrapped by the outer ones; stats, when non-nil, add execution fields.
func stageTree(p *plan, st *execStats, isEOF bool) bson.D {
	if p.ts != nil {
		return tsStageTree(p, st, isEOF)
	}
	var leaf bson.D
	if p.or != nil {
		// mongod's index union: FETCH (the whole filter) over OR over an
		// IXSCAN a branch.
		// ttlkv drops a document a branch already gave before fetching
		// it; mongod's OR does, counting dupsTested and dupsDropped:
		// the branch scans' figures are shown there.
		inputs := bson.A{}
		var tested, dropped int64
		for i, sp := range p.or {
			var sst *execStats
			if st != nil && i < len(p.orStats) {
				b := *p.orStats[i]
				tested += b.docsExamined + b.dupsDropped
				dropped += b.dupsDropped
				b.docsExamined += b.dupsDropped // the keys handed to the OR
				if !sp.ix.Multikey {
					b.dupsTested, b.dupsDropped = 0, 0
				}
				sst = &b
			}
			inputs = append(inputs, ixscanDoc(sp, sst))
		}
		or := bson.D{{Key: "stage", Value: "OR"}}
		if st != nil {
			or = append(or, bson.E{Key: "nReturned", Value: int32OrLong(tested - dropped)}, bson.E{Key: "isEOF", Value: int32(1)},
				bson.E{Key: "dupsTested", Value: int32OrLong(tested)}, bson.E{Key: "dupsDropped", Value: int32OrLong(dropped)})
		}
		or = append(or, bson.E{Key: "inputStages", Value: inputs})
		leaf = bson.D{{Key: "stage", Value: "FETCH"}}
		if len(p.filterDoc()) > 0 {
			leaf = append(leaf, bson.E{Key: "filter", Value: p.filterDoc()})
		}
		if st != nil {
			leaf = append(leaf, bson.E{Key: "docsExamined", Value: int32OrLong(st.docsExamined)}, bson.E{Key: "alreadyHasObj", Value: int32(0)})
		}
		leaf = append(leaf, bson.E{Key: "inputStage", Value: or})
	} else if p.ix == nil || p.m != nil && tsOwnIndex(p.m, p.ix) {
		// A scan of ttlkv's own buckets index (by min time or meta),
		// which mongod's buckets collection has not and a user cannot
		// list or hint, shows as what mongod would run without it: a
		// scan of the buckets with the bucket filter, examining the
		// buckets the index found (tsOwnIndex).
		dir := "forward"
		if p.reverse {
			dir = "backward"
		}
		leaf = bson.D{{Key: "stage", Value: "COLLSCAN"}}
		if f := p.filterDoc(); len(f) > 0 {
			leaf = append(leaf, bson.E{Key: "filter", Value: f})
		}
		leaf = append(leaf, bson.E{Key: "direction", Value: dir})
		if st != nil {
			leaf = append(leaf, bson.E{Key: "docsExamined", Value: int32OrLong(st.docsExamined)})
		}
	} else if p.text != nil && len(p.ranges) > 0 {
		leaf = textMatchDoc(p, textScanDoc(p, st))
	} else if p.covered {
		// The projection reads the keys: no FETCH.
		leaf = ixscanDoc(p, st)
	} else {
		ixscan := ixscanDoc(p, st)
		leaf = bson.D{{Key: "stage", Value: "FETCH"}}
		if f := fetchFilter(p); len(f) > 0 {
			leaf = append(leaf, bson.E{Key: "filter", Value: f})
		}
		if st != nil {
			leaf = append(leaf, bson.E{Key: "docsExamined", Value: int32OrLong(st.docsExamined)}, bson.E{Key: "alreadyHasObj", Value: int32(0)})
		}
		leaf = append(leaf, bson.E{Key: "inputStage", Value: ixscan})
		if p.text != nil {
			leaf = textMatchDoc(p, leaf)
		}
		if p.near != nil {
			// The documents the index finds, ordered by distance.
			leaf = bson.D{{Key: "stage", Value: nearStageName(p.ix)}, {Key: "keyPattern", Value: p.ix.Key},
				{Key: "indexName", Value: p.ix.Name}, {Key: "inputStage", Value: leaf}}
		}
	}
	if st != nil && p.ts == nil {
		// The scan hands on what its filter passed; a LIMIT, SKIP or
		// projection above takes its figures from there (execTree).
		leaf = withExec(leaf, st.matched, isEOF && !st.partial)
	}
	if p.sort != nil && !p.sortByIndex && len(p.sort.Keys()) > 0 {
		leaf = sortStageDoc(p, st, leaf)
		if st != nil {
			leaf = withExec(leaf, st.matched, isEOF)
		}
	}
	return leaf
}

// ixFieldBounds is one index field's intervals, which explain prints in
// the order the scan reads them.
type ixFieldBounds struct {
	path string
	ivs  query.Intervals
	desc bool // the field is descending in the index
}

// indexBounds is explain's indexBounds of index plan p: each field's
// intervals in the order the scan reads them (describeIntervals).
func (p *plan) indexBounds() bson.D {
	if len(p.bounds) == 0 {
		return p.boundsDesc
	}
	out := make(bson.D, 0, len(p.bounds))
	for _, f := range p.bounds {
		out = append(out, bson.E{Key: f.path, Value: describeIntervals(f.ivs, f.desc != p.reverse)})
	}
	return out
}

// ixscanDoc is the IXSCAN stage of index plan p; stats, when non-nil,
// add its keysExamined.
func ixscanDoc(p *plan, st *execStats) bson.D {
	dir := "forward"
	if p.reverse {
		dir = "backward"
	}
	keyPattern := p.ix.Key
	if p.keyPattern != nil {
		keyPattern = p.keyPattern
	}
	ixscan := bson.D{{Key: "stage", Value: "IXSCAN"}, {Key: "keyPattern", Value: keyPattern},
		{Key: "indexName", Value: p.ix.Name}, {Key: "isMultiKey", Value: p.ix.Multikey},
		{Key: "isUnique", Value: p.ix.Unique}, {Key: "isSparse", Value: p.ix.Sparse},
		{Key: "isPartial", Value: p.ix.Partial != nil}, {Key: "direction", Value: dir},
		{Key: "indexBounds", Value: p.indexBounds()}}
	if mkp := multiKeyPathsDoc(p.ix, keyPattern); mkp != nil {
		// After isMultiKey, as mongod's appendMultikeyPaths.
		ixscan = append(ixscan[:4], append(bson.D{{Key: "multiKeyPaths", Value: mkp}}, ixscan[4:]...)...)
	}
	for i, e := range ixscan {
		if e.Key == "direction" {
			ixscan = append(ixscan[:i], append(bson.D{{Key: "indexVersion", Value: int32(2)}}, ixscan[i:]...)...)
			break
		}
	}
	ixscan = tsShownIXSCAN(p, ixscan)
	if c := p.ix.Collator(); c != nil {
		// As MongoDB's explain: the index's collation after its name.
		ixscan = append(ixscan[:3], append(bson.D{{Key: "collation", Value: c.Doc()}}, ixscan[3:]...)...)
	}
	if st != nil {
		// Every key in bounds and not a duplicate is handed to the
		// FETCH, which examines its document.
		ixscan = withExec(ixscan, st.docsExamined+st.coveredKeys, !st.partial)
		ixscan = append(ixscan, bson.E{Key: "keysExamined", Value: int32OrLong(st.keysExamined)},
			bson.E{Key: "seeks", Value: int32OrLong(st.seeks)}, bson.E{Key: "dupsTested", Value: int32OrLong(st.dupsTested)},
			bson.E{Key: "dupsDropped", Value: int32OrLong(st.dupsDropped)})
	}
	return ixscan
}

// multiKeyPathsDoc is mongod's multiKeyPaths of an index with key
// pattern key: for each field, the paths on which some document met an
// array (ttlkv keeps which fields, not which component of a dotted
// path: it names the whole path). nil for the index kinds mongod keeps
// no such paths for (text, 2d, wildcard).
func multiKeyPathsDoc(ix *catalog.Index, key bson.D) bson.D {
	out := bson.D{}
	for i, e := range key {
		switch e.Value {
		case "text", "2d":
			return nil
		}
		if strings.Contains(e.Key, "$**") || e.Key == "$_path" {
			return nil
		}
		paths := bson.A{}
		if ix.Multikey && ix.FieldMultikey(i) {
			paths = append(paths, e.Key)
		}
		out = append(out, bson.E{Key: e.Key, Value: paths})
	}
	return out
}

// sortStageDoc is the SORT stage over in; with execution figures it
// adds mongod's: memLimit, type, totalDataSizeSorted, usedDisk, spills.
func sortStageDoc(p *plan, st *execStats, in bson.D) bson.D {
	memLimit := int64(0)
	if p.c != nil && p.c.db != nil {
		memLimit = p.c.db.params.int("internalQueryMaxBlockingSortMemoryUsageBytes")
	}
	if st != nil && st.sort.memLimit > 0 {
		memLimit = st.sort.memLimit
	}
	d := bson.D{{Key: "stage", Value: "SORT"}, {Key: "sortPattern", Value: p.sortDoc},
		{Key: "memLimit", Value: int32OrLong(memLimit)}, {Key: "type", Value: "simple"}}
	if st != nil {
		d = append(d, bson.E{Key: "totalDataSizeSorted", Value: int32OrLong(st.sort.bytes)}, bson.E{Key: "usedDisk", Value: st.sort.spills > 0},
			bson.E{Key: "spills", Value: int32OrLong(st.sort.spills)})
	}
	return append(d, bson.E{Key: "inputStage", Value: in})
}

// withSortLimit sets limitAmount on the first SORT stage of tree
// (mongod's SORT keeps only that many, the skip included), after its
// memLimit, and caps its nReturned at it. It reports whether there was
// one.
func withSortLimit(tree bson.D, limit int64) (bson.D, bool) {
	if s, _ := get(tree, "stage"); s == "SORT" {
		out := make(bson.D, 0, len(tree)+1)
		for _, e := range tree {
			if e.Key == "nReturned" {
				e.Value = int32OrLong(min(figure(e.Value, true), limit))
			}
			out = append(out, e)
			if e.Key == "memLimit" {
				out = append(out, bson.E{Key: "limitAmount", Value: int32OrLong(limit)})
			}
		}
		return out, true
	}
	in, ok := get2D(tree, "inputStage")
	if !ok {
		return tree, false
	}
	in, found := withSortLimit(in, limit)
	if !found {
		return tree, false
	}
	out := slices.Clone(tree)
	for i := range out {
		if out[i].Key == "inputStage" {
			out[i].Value = in
		}
	}
	return out, true
}

func get2D(d bson.D, key string) (bson.D, bool) {
	v, ok := get(d, key)
	in, isD := v.(bson.D)
	return in, ok && isD
}

// withExec adds a stage's execution figures after its name. MongoDB
// appends nReturned with appendNumber and isEOF, a bool, through
// appendNumber(int) (src/mongo/db/query/plan_explainer_impl.cpp,
// statsToBSON), so both are int32 in practice.
func withExec(stage bson.D, nReturned int64, isEOF bool) bson.D {
	out := bson.D{stage[0], {Key: "nReturned", Value: int32OrLong(nReturned)}, {Key: "isEOF", Value: boolInt32(isEOF)}}
	for _, e := range stage[1:] {
		if e.Key != "nReturned" && e.Key != "isEOF" {
			out = append(out, e)
		}
	}
	return out
}

func boolInt32(b bool) int32 {
	if b {
		return 1
	}
	return 0
}

// filterDoc is the filter as the plan's stages show it: parsed and
// normalised as mongod shows it (parsedQuery), nil when there is none.
func (p *plan) filterDoc() bson.D {
	if len(p.filterRaw) == 0 {
		return nil
	}
	return parsedQuery(p.filterRaw, p.filter.Collator())
}

// execFields are the stage fields that only executionStats shows.
var execFields = map[string]bool{"nReturned": true, "isEOF": true, "nWouldDelete": true,
	"executionTimeMillisEstimate": true, "works": true, "advanced": true, "needTime": true,
	"needYield": true, "saveState": true, "restoreState": true,
	"nMatched": true, "nWouldModify": true, "nWouldUpsert": true, "nCounted": true, "nSkipped": true,
	"docsExamined": true, "alreadyHasObj": true, "keysExamined": true, "seeks": true, "dupsTested": true,
	"dupsDropped": true, "bucketsUnpacked": true, "measurementsExamined": true,
	"nBucketsUnpacked": true, "nMeasurementsDeleted": true,
	"totalDataSizeSorted": true, "usedDisk": true, "spills": true}

// planOnly returns a copy of a stage tree without its execution
// figures, as queryPlanner.winningPlan shows it (MongoDB keeps those
// in executionStats.executionStages).
func planOnly(stage bson.D) bson.D {
	out := make(bson.D, 0, len(stage))
	for _, e := range stage {
		if execFields[e.Key] {
			continue
		}
		switch v := e.Value.(type) {
		case bson.D:
			if e.Key == "inputStage" {
				e.Value = planOnly(v)
			}
		case bson.A:
			if e.Key == "inputStages" {
				in := make(bson.A, len(v))
				for i, c := range v {
					if d, ok := c.(bson.D); ok {
						in[i] = planOnly(d)
					} else {
						in[i] = c
					}
				}
				e.Value = in
			}
		}
		out = append(out, e)
	}
	return out
}

// commonFields are the figures mongod's statsToBSON gives every stage
// when executed, in its order, after the stage's name and filter.
var commonFields = []string{"nReturned", "executionTimeMillisEstimate", "works", "advanced",
	"needTime", "needYield", "saveState", "restoreState", "isEOF"}

// execTree gives every stage of an executed tree mongod's common
// figures (commonFields), in mongod's order, and returns it with the
// root's works. ttlkv runs a plan to its end in one pass, never
// yielding: a stage's advanced is its nReturned; its works are the
// calls a classic-engine stage would take for what it read (a scan one
// a key or document examined and one to find its end, a SORT its
// input's, then one a document returned and one more, any other stage
// its input's); needTime the works that returned nothing;
// executionTimeMillisEstimate the whole explain's time. A stage without
// nReturned (a LIMIT, SKIP or projection over the plan) takes it from
// its input.
func execTree(stage bson.D, ms int64) (bson.D, int64) {
	var childWorks, childReturned int64
	children, childEOF := 0, true
	rest := make(bson.D, 0, len(stage))
	var name string
	var filter *bson.E
	have := map[string]any{}
	for i, e := range stage {
		switch {
		case e.Key == "stage":
			name, _ = e.Value.(string)
			continue
		case e.Key == "filter" && filter == nil:
			filter = &stage[i]
			continue
		case slices.Contains(commonFields, e.Key):
			have[e.Key] = e.Value
			continue
		case e.Key == "inputStage":
			if d, ok := e.Value.(bson.D); ok {
				var w int64
				e.Value, w = execTree(d, ms)
				childWorks += w
				childReturned += figure(get(e.Value.(bson.D), "nReturned"))
				childEOF = childEOF && figure(get(e.Value.(bson.D), "isEOF")) != 0
				children++
			}
		case e.Key == "inputStages":
			if a, ok := e.Value.(bson.A); ok {
				in := make(bson.A, len(a))
				for j, c := range a {
					if d, ok := c.(bson.D); ok {
						var w int64
						d, w = execTree(d, ms)
						childWorks += w
						childReturned += figure(get(d, "nReturned"))
						children++
						in[j] = d
					} else {
						in[j] = c
					}
				}
				e.Value = in
			}
		}
		rest = append(rest, e)
	}
	nRet, known := have["nReturned"]
	n := figure(nRet, known)
	if !known {
		n = childReturned
		if v, ok := get(stage, "skipAmount"); ok && name == "SKIP" {
			n = max(0, n-figure(v, true))
		}
		if v, ok := get(stage, "limitAmount"); ok && name == "LIMIT" {
			n = min(n, figure(v, true))
		}
	}
	// A stage that does not say takes its input's: a LIMIT is at its
	// end once it has handed on its limit, the stages under it may not
	// be.
	eof := childEOF
	if v, ok := have["isEOF"]; ok {
		eof = figure(v, true) != 0
	} else if name == "LIMIT" || children == 0 {
		eof = true
	}
	var works int64
	switch {
	case children == 0:
		examined := figure(get(stage, "docsExamined"))
		if k, ok := get(stage, "keysExamined"); ok {
			examined = figure(k, true)
		}
		if name == "EOF" {
			examined = 0
		} else if examined == 0 {
			examined = n
		}
		works = examined + boolInt64(eof)
	case name == "SORT":
		works = childWorks + n + 1
	default:
		works = childWorks
	}
	if works < n+boolInt64(eof) {
		works = n + boolInt64(eof)
	}
	out := bson.D{{Key: "stage", Value: name}}
	if filter != nil {
		out = append(out, *filter)
	}
	out = append(out, bson.E{Key: "nReturned", Value: int32OrLong(n)},
		bson.E{Key: "executionTimeMillisEstimate", Value: int32OrLong(ms)},
		bson.E{Key: "works", Value: int32OrLong(works)}, bson.E{Key: "advanced", Value: int32OrLong(n)},
		bson.E{Key: "needTime", Value: int32OrLong(works - n - boolInt64(eof))},
		bson.E{Key: "needYield", Value: int32(0)}, bson.E{Key: "saveState", Value: int32(0)},
		bson.E{Key: "restoreState", Value: int32(0)}, bson.E{Key: "isEOF", Value: boolInt32(eof)})
	return append(out, rest...), works
}

func boolInt64(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// figure is a figure's value (v, when ok), 0 if none.
func figure(v any, ok bool) int64 {
	if !ok {
		return 0
	}
	switch x := v.(type) {
	case int32:
		return int64(x)
	case int64:
		return x
	case float64:
		return int64(x)
	}
	return 0
}

// idHackable reports whether mongod's classic engine would read a query
// by filter with options o as an IDHACK, the _id lookup that bypasses
// the planner: a filter of _id alone, equal to a value that is not an
// array, a regex or an operator other than $eq, on the _id index (not
// a clustered collection's), with no sort, skip, hint, min, max,
// returnKey, showRecordId or non-simple collation. ttlkv reads it
// through the _id index as it reads any other; explain names it as
// mongod does.
func idHackable(p *plan, filter bson.D, o FindOptions) bool {
	if p == nil || p.ix == nil || p.ix.ID != idIndexID || p.or != nil || p.ts != nil || p.text != nil || p.near != nil ||
		p.m == nil || p.m.Clustered || p.ix.Collator() != nil {
		return false
	}
	if len(o.Sort) > 0 || o.Skip != 0 || o.Hint != nil || len(o.Min)+len(o.Max) > 0 || o.ShowRecordID || o.ReturnKey || o.Tailable {
		return false
	}
	if len(o.Collation) > 0 {
		if l, _ := get(o.Collation, "locale"); l != "simple" {
			return false
		}
	}
	if len(filter) != 1 || filter[0].Key != "_id" {
		return false
	}
	return simpleIDValue(filter[0].Value, true)
}

// simpleIDValue reports whether v, an _id's condition, is one value:
// not an array or regex, a document with no operator, or (when eq) a
// {$eq: value} of such a value.
func simpleIDValue(v any, eq bool) bool {
	switch x := v.(type) {
	case bson.A, bson.Regex:
		return false
	case bson.D:
		if len(x) > 0 && strings.HasPrefix(x[0].Key, "$") {
			return eq && len(x) == 1 && x[0].Key == "$eq" && simpleIDValue(x[0].Value, false)
		}
	}
	return true
}

// idHackDoc is the IDHACK stage; stats, when non-nil, add its
// keysExamined and docsExamined.
func idHackDoc(st *execStats) bson.D {
	d := bson.D{{Key: "stage", Value: "IDHACK"}}
	if st != nil {
		d = withExec(d, st.matched, true)
		d = append(d, bson.E{Key: "keysExamined", Value: int32OrLong(st.keysExamined)},
			bson.E{Key: "docsExamined", Value: int32OrLong(st.docsExamined)})
	}
	return d
}

// fetchFilter is the filter the FETCH over index plan p shows, as
// mongod's planner leaves it: the predicates of the parsed filter that
// the index's bounds do not answer exactly (all of them on an index
// whose keys cannot: multikey, hashed, wildcard, text, geo, a hinted
// partial index scanned whole), nil when none is left.
func fetchFilter(p *plan) bson.D {
	full := p.filterDoc()
	if p.text != nil && len(full) > 0 {
		return textFetchFilter(p)
	}
	if len(full) == 0 || p.ix == nil || p.whole || p.wcPath != "" || p.cwi != nil || p.text != nil || p.near != nil ||
		p.ix.Multikey || indexkey.IsWildcard(p.ix.Key) || p.m == nil || p.m.Kind != catalog.KindNormal || p.m.Clustered {
		return full
	}
	fields := indexkey.Fields(p.ix.Key)
	for _, f := range fields {
		if f.Hashed {
			return full
		}
	}
	_, bounded := fieldBounds(p.ix, p.filter, p.sort)
	var rest []bson.D
	for _, pr := range normalisePreds(p.filterRaw, p.filter.Collator()) {
		if !exactOn(pr, fields, bounded) {
			rest = append(rest, pr)
		}
	}
	return predsAnd(rest)
}

// exactOn reports whether the index bounds of a field in bounded answer
// predicate pr exactly (query.Filter.ExactPaths).
func exactOn(pr bson.D, fields []indexkey.Field, bounded []bool) bool {
	f, err := query.ParseFilter(pr)
	if err != nil {
		return false
	}
	paths, ok := f.ExactPaths()
	if !ok || len(paths) != 1 {
		return false
	}
	for i, fl := range fields {
		if fl.Path == paths[0] && i < len(bounded) && bounded[i] {
			return true
		}
	}
	return false
}
