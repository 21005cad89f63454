package engine

import (
	"context"
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// This file holds what every explain answer carries around its plan, in
// mongod 7.0's classic-engine shape (src/mongo/db/query/explain.cpp,
// explain_common.cpp): explainVersion, the queryPlanner's fixed fields,
// serverInfo and serverParameters.

// explainVersion is the classic engine's explain version.
const explainVersion = "1"

// plannerHeader is queryPlanner's fields before winningPlan, in mongod's
// order: namespace, indexFilterSet (ttlkv has no index filters),
// parsedQuery (filter as mongod normalises it), queryHash and
// planCacheKey (ttlkv's own hashes of the query's shape, see
// queryShapeHash), and the three enumeration limits, never reached in
// ttlkv's planner.
func plannerHeader(ns string, filter bson.D, coll *collation.Collator, shape ...any) bson.D {
	pq := parsedQuery(filter, coll)
	qh := queryShapeHash(pq, shape...)
	return bson.D{{Key: "namespace", Value: ns}, {Key: "indexFilterSet", Value: false},
		{Key: "parsedQuery", Value: pq},
		{Key: "queryHash", Value: qh}, {Key: "planCacheKey", Value: hash32(ns, qh)},
		{Key: "maxIndexedOrSolutionsReached", Value: false},
		{Key: "maxIndexedAndSolutionsReached", Value: false},
		{Key: "maxScansToExplodeReached", Value: false}}
}

// queryShapeHash is the query's shape (its parsed filter with every
// value replaced by its BSON type, then the other parts as given: the
// command, sort, projection, collation) hashed to 8 upper-case hex
// digits, as mongod prints its queryHash. Two queries that differ only
// in their filter's values share it; the digits are not mongod's.
func queryShapeHash(filter bson.D, parts ...any) string {
	return hash32(append([]any{valueShape(filter)}, parts...)...)
}

// hash32 is parts, printed, hashed to 8 upper-case hex digits.
func hash32(parts ...any) string {
	h := fnv.New32a()
	for _, p := range parts {
		fmt.Fprintf(h, "%v|", p)
	}
	return fmt.Sprintf("%08X", h.Sum32())
}

// valueShape replaces the values under v's operators by their types.
func valueShape(v any) any {
	switch x := v.(type) {
	case bson.D:
		out := make(bson.D, len(x))
		for i, e := range x {
			out[i] = bson.E{Key: e.Key, Value: valueShape(e.Value)}
		}
		return out
	case bson.A:
		// A list of values ($in's) is one value of the shape, whatever
		// its length; the branches of an $and, $or or $nor are not.
		out := make(bson.A, len(x))
		for i, e := range x {
			if _, isDoc := e.(bson.D); !isDoc {
				return "?array"
			}
			out[i] = valueShape(e)
		}
		return out
	case string:
		return "?string"
	case nil:
		return nil
	default:
		return fmt.Sprintf("?%T", v)
	}
}

// matchTypeRank orders the predicates of an $and as mongod's
// canonicalisation sorts them (by MatchExpression::MatchType, then by
// path): tree types, array types, then the leaf comparisons.
var matchTypeRank = map[string]int{
	"$and": 0, "$or": 1, "$elemMatch": 2, "$size": 4,
	"$eq": 5, "$lte": 6, "$lt": 7, "$gt": 8, "$gte": 9, "$regex": 10, "$mod": 11,
	"$exists": 12, "$in": 13, "$bitsAllSet": 14, "$bitsAllClear": 15, "$bitsAnySet": 16,
	"$bitsAnyClear": 17, "$not": 18, "$nor": 19, "$type": 20, "$geoWithin": 21, "$geoIntersects": 21,
	"$where": 22, "$expr": 23, "$alwaysFalse": 24, "$alwaysTrue": 25, "$near": 26, "$nearSphere": 26,
	"$geoNear": 26, "$text": 27,
}

// parsedQuery is filter as mongod's explain shows it once parsed and
// normalised: each field's condition its own predicate with its
// operator ({a: 1} is {a: {$eq: 1}}), $ne and $nin under $not, a
// one-value $in an $eq, nested $and flattened, a one-branch $and or $or
// its branch, an $or of equalities on one path an $in (orToIn),
// several predicates an $and sorted as mongod sorts them. An empty
// filter is {}.
func parsedQuery(filter bson.D, coll *collation.Collator) bson.D {
	preds := normalisePreds(filter, coll)
	if len(preds) == 0 {
		return bson.D{}
	}
	return predsAnd(preds)
}

// predsAnd is preds as one filter: nil for none, the predicate itself
// for one, else their $and.
func predsAnd(preds []bson.D) bson.D {
	switch len(preds) {
	case 0:
		return nil
	case 1:
		return preds[0]
	}
	return bson.D{{Key: "$and", Value: predsArray(preds)}}
}

func predsArray(preds []bson.D) bson.A {
	a := make(bson.A, len(preds))
	for i, p := range preds {
		a[i] = p
	}
	return a
}

// normalisePreds is the filter's predicates, an implicit $and's
// branches, each normalised and sorted.
func normalisePreds(filter bson.D, coll *collation.Collator) []bson.D {
	var out []bson.D
	for _, e := range orToIn(filter, coll) {
		switch e.Key {
		case "$and":
			for _, b := range branches(e.Value) {
				out = append(out, normalisePreds(b, coll)...)
			}
			continue
		case "$or", "$nor":
			var bs bson.A
			for _, b := range branches(e.Value) {
				bs = append(bs, parsedQuery(b, coll))
			}
			if e.Key == "$or" && len(bs) == 1 {
				out = append(out, normalisePreds(bs[0].(bson.D), coll)...)
				continue
			}
			// mongod's canonical query sorts every $and, $or and $nor's
			// branches alike (CanonicalQuery::sortTree).
			slices.SortStableFunc(bs, func(a, b any) int { return comparePreds(a.(bson.D), b.(bson.D)) })
			out = append(out, bson.D{{Key: e.Key, Value: bs}})
			continue
		}
		if strings.HasPrefix(e.Key, "$") {
			out = append(out, bson.D{e})
			continue
		}
		ops, isOps := e.Value.(bson.D)
		if !isOps || len(ops) == 0 || !strings.HasPrefix(ops[0].Key, "$") {
			if re, ok := e.Value.(bson.Regex); ok {
				out = append(out, regexPred(e.Key, re.Pattern, re.Options))
				continue
			}
			out = append(out, bson.D{{Key: e.Key, Value: bson.D{{Key: "$eq", Value: e.Value}}}})
			continue
		}
		var opts string
		if o, ok := get(ops, "$options"); ok {
			opts, _ = o.(string)
		}
		for _, op := range ops {
			switch op.Key {
			case "$options":
				continue
			case "$regex":
				if re, ok := op.Value.(bson.Regex); ok {
					out = append(out, regexPred(e.Key, re.Pattern, re.Options+opts))
				} else {
					s, _ := op.Value.(string)
					out = append(out, regexPred(e.Key, s, opts))
				}
			case "$ne":
				out = append(out, bson.D{{Key: e.Key, Value: bson.D{{Key: "$not", Value: bson.D{{Key: "$eq", Value: op.Value}}}}}})
			case "$nin":
				out = append(out, bson.D{{Key: e.Key, Value: bson.D{{Key: "$not", Value: bson.D{{Key: "$in", Value: inValues(op.Value, coll)}}}}}})
			case "$in":
				vals := inValues(op.Value, coll)
				if a, ok := vals.(bson.A); ok && len(a) == 1 {
					if _, isRe := a[0].(bson.Regex); !isRe {
						out = append(out, bson.D{{Key: e.Key, Value: bson.D{{Key: "$eq", Value: a[0]}}}})
						continue
					}
				}
				out = append(out, bson.D{{Key: e.Key, Value: bson.D{{Key: "$in", Value: vals}}}})
			default:
				out = append(out, bson.D{{Key: e.Key, Value: bson.D{op}}})
			}
		}
	}
	slices.SortStableFunc(out, comparePreds)
	return out
}

// comparePreds orders two normalised predicates as mongod's
// matchExpressionComparator does: by match type, then path, then (an
// $and, $or or $nor) their branches in turn, then the number of
// branches. Values are not compared: equal predicates keep their order.
func comparePreds(a, b bson.D) int {
	ra, pa := predRank(a)
	rb, pb := predRank(b)
	if ra != rb {
		return ra - rb
	}
	if c := strings.Compare(pa, pb); c != 0 {
		return c
	}
	ba, bb := treeBranches(a), treeBranches(b)
	for i := 0; i < len(ba) && i < len(bb); i++ {
		if c := comparePreds(ba[i], bb[i]); c != 0 {
			return c
		}
	}
	return len(ba) - len(bb)
}

// treeBranches is the branches of a normalised $and, $or or $nor
// predicate, nil for any other.
func treeBranches(p bson.D) []bson.D {
	if len(p) != 1 || (p[0].Key != "$and" && p[0].Key != "$or" && p[0].Key != "$nor") {
		return nil
	}
	return branches(p[0].Value)
}

// inValues is an $in's (or $nin's) list as mongod's InMatchExpression
// serializes it: the equalities sorted and without duplicates, then the
// regexes as given. Anything but an array is returned as is.
func inValues(v any, coll *collation.Collator) any {
	a, ok := v.(bson.A)
	if !ok {
		return v
	}
	var eqs, regexes bson.A
	for _, x := range a {
		if _, isRe := x.(bson.Regex); isRe {
			regexes = append(regexes, x)
		} else {
			eqs = append(eqs, x)
		}
	}
	return sortedInValues(eqs, regexes, coll)
}

// regexPred is {path: {$regex: pattern}}, with $options when there are
// flags.
func regexPred(path, pattern, opts string) bson.D {
	d := bson.D{{Key: "$regex", Value: pattern}}
	if opts != "" {
		d = append(d, bson.E{Key: "$options", Value: opts})
	}
	return bson.D{{Key: path, Value: d}}
}

// predRank is a normalised predicate's place in mongod's order: its
// match type and its path.
func predRank(p bson.D) (int, string) {
	if len(p) == 0 {
		return 99, ""
	}
	k := p[0].Key
	if strings.HasPrefix(k, "$") {
		if r, ok := matchTypeRank[k]; ok {
			return r, ""
		}
		return 98, ""
	}
	if ops, ok := p[0].Value.(bson.D); ok && len(ops) > 0 {
		if r, ok := matchTypeRank[ops[0].Key]; ok {
			return r, k
		}
	}
	return 98, k
}

// branches is the documents of an $and, $or or $nor (its parser has
// checked them).
func branches(v any) []bson.D {
	a, _ := v.(bson.A)
	out := make([]bson.D, 0, len(a))
	for _, b := range a {
		if d, ok := b.(bson.D); ok {
			out = append(out, d)
		}
	}
	return out
}

// explainServerInfo is serverInfo: the host, the port a client reached
// (mongod's default, 27017, when the engine is embedded), the version
// (WithServerVersion's when a front end set one) and gitVersion
// buildInfo gives.
func explainServerInfo(ctx context.Context) bson.D {
	port := listenPort(ctx)
	if port == 0 {
		port = 27017
	}
	return bson.D{{Key: "host", Value: hostName()}, {Key: "port", Value: int32(port)},
		{Key: "version", Value: serverVersion(ctx)}, {Key: "gitVersion", Value: "ttlkv"}}
}

// explainServerParameters is serverParameters: the memory limits of
// the query system, in mongod 7.0's order, the two ttlkv lets
// setParameter change at their current values; the query framework is
// the classic engine, whose shapes ttlkv's explain gives.
func (db *DB) explainServerParameters() bson.D {
	const mib100 = int32(100 << 20)
	return bson.D{
		{Key: "internalQueryFacetBufferSizeBytes", Value: mib100},
		{Key: "internalQueryFacetMaxOutputDocSizeBytes", Value: mib100},
		{Key: "internalLookupStageIntermediateDocumentMaxSizeBytes", Value: mib100},
		{Key: "internalDocumentSourceGroupMaxMemoryBytes", Value: int32OrLong(db.params.int("internalDocumentSourceGroupMaxMemoryBytes"))},
		{Key: "internalQueryMaxBlockingSortMemoryUsageBytes", Value: int32OrLong(db.params.int("internalQueryMaxBlockingSortMemoryUsageBytes"))},
		{Key: "internalQueryProhibitBlockingMergeOnMongoS", Value: int32(0)},
		{Key: "internalQueryMaxAddToSetBytes", Value: mib100},
		{Key: "internalDocumentSourceSetWindowFieldsMaxMemoryBytes", Value: mib100},
		{Key: "internalQueryFrameworkControl", Value: "forceClassicEngine"},
	}
}

// explainCommand is the explained command as mongod echoes it, with the
// database it ran on as $db.
func explainCommand(inner bson.D, dbName string) bson.D {
	if _, ok := get(inner, "$db"); ok {
		return inner
	}
	return append(slices.Clone(inner), bson.E{Key: "$db", Value: dbName})
}

// simpleParsedQuery is parsedQuery under the simple collation, for the
// $match stages an aggregate's explain lists.
func simpleParsedQuery(filter bson.D) bson.D { return parsedQuery(filter, nil) }
