package agg

import (
	"context"
	"math"
	"time"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// graphLookup is $graphLookup: a breadth-first search of from, starting
// at the values of startWith and following connectFromField to
// connectToField, each document found once, at most maxDepth steps
// beyond the first (docs/aggregation.md, "$graphLookup").
type graphLookup struct {
	from        string
	startWith   Expr
	connectFrom []string
	connectTo   string
	as          []string
	depthField  []string // nil: none
	maxDepth    int64    // < 0: none
	restrict    bson.D   // nil: none
	// restrictVars: restrict reads user variables (a command's or a
	// $lookup's let), so the search applies it to what each find
	// returns rather than sending it with the find; scope is what it
	// was parsed in.
	restrictVars bool
	scope        pdepth
}

func parseGraphLookup(arg any, sc pdepth) (stageSpec, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return stageSpec{}, document.Errorf(document.CodeFailedToParse, "the $graphLookup stage specification must be an object, but found %s", document.TypeName(arg))
	}
	if v, ok := getField(spec, "from"); !ok {
		return stageSpec{}, document.Errorf(document.CodeFailedToParse, "missing 'from' option to $graphLookup stage specification: %s", document.Format(spec))
	} else if _, isStr := v.(string); !isStr {
		return stageSpec{}, document.Errorf(document.CodeFailedToParse, "$graphLookup 'from' field must be a string, but found %s", document.TypeName(v))
	}
	g := &graphLookup{maxDepth: -1}
	var as, from, to string
	for _, el := range spec {
		switch el.Key {
		case "startWith":
			e, err := parseExpr(el.Value, sc)
			if err != nil {
				return stageSpec{}, err
			}
			g.startWith = e
			continue
		case "maxDepth":
			if !document.IsNumber(el.Value) {
				return stageSpec{}, document.Errorf(document.Code(40100), "maxDepth must be numeric, found type: %s", document.TypeName(el.Value))
			}
			n, exact := safeLong(el.Value)
			if n < 0 {
				return stageSpec{}, document.Errorf(document.Code(40101), "maxDepth requires a nonnegative argument, found: %d", n)
			}
			if !exact {
				return stageSpec{}, document.Errorf(document.Code(40102), "maxDepth could not be represented as a long long: %d", n)
			}
			g.maxDepth = n
			continue
		case "restrictSearchWithMatch":
			d, ok := el.Value.(bson.D)
			if !ok {
				return stageSpec{}, document.Errorf(document.Code(40185), "restrictSearchWithMatch must be an object, found %s", document.TypeName(el.Value))
			}
			if _, err := query.ParseFilterWith(d, time.Now(), filterVars{scope: sc}); err != nil {
				return stageSpec{}, err
			}
			_, err := query.ParseFilter(d)
			g.restrict, g.restrictVars, g.scope = d, err != nil, sc
			continue
		}
		s, isStr := el.Value.(string)
		switch el.Key {
		case "from", "as", "connectFromField", "connectToField", "depthField":
			if !isStr {
				return stageSpec{}, document.Errorf(document.Code(40103), "expected string as argument for %s, found: %s", el.Key, document.TypeName(el.Value))
			}
		default:
			return stageSpec{}, document.Errorf(document.Code(40104), "Unknown argument to $graphLookup: %s", el.Key)
		}
		var err error
		switch el.Key {
		case "from":
			from = s
		case "as":
			as = s
		case "connectFromField":
			if s != "" {
				g.connectFrom, err = lookupPath(s)
			}
		case "connectToField":
			to = s
			if s != "" {
				_, err = lookupPath(s)
			}
		case "depthField":
			g.depthField, err = lookupPath(s)
		}
		if err != nil {
			return stageSpec{}, err
		}
	}
	// An empty from was refused by the engine, which knows the database
	// mongod names in its 73 (checkInvolvedNames); here from is given.
	if as == "" || g.startWith == nil || g.connectFrom == nil || to == "" {
		return stageSpec{}, document.Errorf(document.Code(40105), "$graphLookup requires 'from', 'as', 'startWith', 'connectFromField', and 'connectToField' to be specified.")
	}
	var err error
	if g.as, err = lookupPath(as); err != nil {
		return stageSpec{}, err
	}
	g.from, g.connectTo = from, to
	return stageSpec{name: "$graphLookup", spec: spec, make: func(up iter, o *Options) iter {
		return &graphIter{graphLookup: g, up: up, o: o}
	}}, nil
}

// safeLong is v as mongod's safeNumberLong reads it (a double truncated
// and clamped), and whether that is v exactly.
func safeLong(v any) (int64, bool) {
	if n, ok := int64Value(v); ok {
		return n, true
	}
	f := query.ToFloat(v)
	switch {
	case math.IsNaN(f):
		return 0, false
	case f >= math.MaxInt64:
		return math.MaxInt64, false
	case f <= math.MinInt64:
		return math.MinInt64, false
	}
	return int64(f), false
}

type graphIter struct {
	*graphLookup
	up    iter
	o     *Options
	local *query.Filter // restrict with the run's variables, when restrictVars
}

func (g *graphIter) next(ctx context.Context) (bson.D, error) {
	d, err := g.up.next(ctx)
	if err != nil || d == nil {
		return nil, err
	}
	if g.o.Lookup == nil {
		return nil, document.Errorf(codeUnrecognizedStage, "$graphLookup is not available here")
	}
	if g.restrictVars && g.local == nil {
		if g.local, err = query.ParseFilterWith(g.restrict, g.o.Now.Time(), filterVars{scope: g.scope, vals: g.o.vars}); err != nil {
			return nil, err
		}
		if g.local, err = g.local.Collate(g.o.Collator); err != nil {
			return nil, err
		}
	}
	start, err := g.startWith.Eval(g.o.env(d))
	if err != nil {
		return nil, err
	}
	frontier := newOrderedSet(g.o.Collator)
	if arr, ok := start.(bson.A); ok {
		for _, v := range arr {
			frontier.add(v)
		}
	} else if !isMissing(start) {
		frontier.add(start)
	}
	found, err := g.search(ctx, frontier)
	if err != nil {
		return nil, err
	}
	return setNested(d, g.as, found), nil
}

// orderedSet is a set of values under BSON equality with strings
// compared under a collation, in insertion order, with their
// approximate size.
type orderedSet struct {
	seen map[string]bool
	list bson.A
	size int64
	coll *collation.Collator
}

func newOrderedSet(c *collation.Collator) *orderedSet {
	return &orderedSet{seen: map[string]bool{}, coll: c}
}

func (s *orderedSet) add(v any) {
	k := collKey(s.coll, v)
	if !s.seen[k] {
		s.seen[k] = true
		s.list = append(s.list, v)
		s.size += approxSize(v)
	}
}

// search runs the breadth-first search from frontier and returns the
// documents found, in the order they were found.
func (g *graphIter) search(ctx context.Context, frontier *orderedSet) (bson.A, error) {
	visited := map[string]bool{}
	found := bson.A{}
	var held int64
	for depth := int64(0); len(frontier.list) > 0 && (g.maxDepth < 0 || depth <= g.maxDepth); depth++ {
		next := newOrderedSet(g.o.Collator)
		err := g.o.Lookup(ctx, g.from, g.query(frontier.list), func(m bson.D) error {
			if g.local != nil {
				if ok, err := g.local.MatchErr(m); err != nil || !ok {
					return err
				}
			}
			id, ok := docGet(m, "_id")
			if !ok {
				return document.Errorf(document.Code(40271), "Documents in the '%s' namespace must contain an _id for de-duplication in $graphLookup", g.from)
			}
			k := GroupKey(id) // documents are told apart by _id without the collation, as in mongod
			if visited[k] {
				return nil
			}
			visited[k] = true
			if g.depthField != nil {
				m = setNested(m, g.depthField, depth)
			}
			visitPathValues(m, g.connectFrom, next.add)
			found = append(found, m)
			if held += approxSize(m) + approxSize(id); held+next.size >= g.o.MaxMemoryBytes {
				return document.Errorf(document.Code(40099), "$graphLookup reached maximum memory consumption")
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		frontier = next
	}
	return found, nil
}

// query is the find mongod runs for a frontier: connectToField in the
// frontier's values (and restrictSearchWithMatch), never a document
// without connectToField, and null and undefined kept apart, which $in
// alone would conflate.
func (g *graphIter) query(values bson.A) bson.D {
	and := bson.A{}
	if g.restrict != nil && !g.restrictVars {
		and = append(and, g.restrict)
	}
	and = append(and, bson.D{{Key: g.connectTo, Value: bson.D{{Key: "$in", Value: values}}}})
	null, undef := false, false
	for _, v := range values {
		switch v.(type) {
		case nil:
			null = true
		case bson.Undefined:
			undef = true
		}
	}
	if null || undef {
		and = append(and, bson.D{{Key: g.connectTo, Value: bson.D{{Key: "$exists", Value: true}}}})
		other := "undefined"
		if !null {
			other = "null"
		}
		if !(null && undef) {
			and = append(and, bson.D{{Key: g.connectTo, Value: bson.D{{Key: "$not", Value: bson.D{{Key: "$type", Value: other}}}}}})
		}
	}
	return bson.D{{Key: "$and", Value: and}}
}
