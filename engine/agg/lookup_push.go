package agg

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// pushedEq is an equality of a $lookup sub-pipeline's leading $match
// that the foreign find can serve with an index: field (a path) equal to
// the value of val (a let variable or a constant).
type pushedEq struct {
	field string
	val   Expr
}

// lookupPush is what of a $lookup sub-pipeline's leading $match goes into
// the find that reads the foreign collection: its plain predicates as
// written, and the equalities of its $expr with their variables' values.
// The find then returns a superset of what the $match keeps (a query's
// $eq matches what an expression's $eq matches, and array elements and
// missing fields besides), and the $match, which still runs, keeps the
// rest out; mongod uses indexes for the same shapes.
type lookupPush struct {
	plain bson.D
	eqs   []pushedEq
}

// parseLookupPush reads the leading $match of a $lookup's pipeline, if
// any, in the scope sc (the $lookup's let names in it); nil when nothing
// can be pushed.
func parseLookupPush(pipeline bson.A, sc pdepth) *lookupPush {
	if len(pipeline) == 0 {
		return nil
	}
	st, ok := pipeline[0].(bson.D)
	if !ok || len(st) != 1 || st[0].Key != "$match" {
		return nil
	}
	match, ok := st[0].Value.(bson.D)
	if !ok {
		return nil
	}
	p := &lookupPush{}
	for _, el := range match {
		if el.Key == "$expr" {
			p.eqs = append(p.eqs, exprEqualities(el.Value, sc)...)
			continue
		}
		if !strings.HasPrefix(el.Key, "$") {
			p.plain = append(p.plain, el) // a plain predicate reads no variable
		}
	}
	if len(p.plain) == 0 && len(p.eqs) == 0 {
		return nil
	}
	return p
}

// exprEqualities finds {$eq: ["$field", other]} (either way round), alone
// or in an $and, where other is a let variable ("$$name") or a constant.
func exprEqualities(v any, sc pdepth) []pushedEq {
	d, ok := v.(bson.D)
	if !ok || len(d) != 1 {
		return nil
	}
	args, ok := d[0].Value.(bson.A)
	if !ok {
		return nil
	}
	switch d[0].Key {
	case "$and":
		var out []pushedEq
		for _, a := range args {
			out = append(out, exprEqualities(a, sc)...)
		}
		return out
	case "$eq":
		if len(args) != 2 {
			return nil
		}
		for i := range 2 {
			f, ok := args[i].(string)
			if !ok || !strings.HasPrefix(f, "$") || strings.HasPrefix(f, "$$") || len(f) < 2 {
				continue
			}
			other := args[1-i]
			if s, isStr := other.(string); isStr && strings.HasPrefix(s, "$") && !strings.HasPrefix(s, "$$") {
				continue // two fields: nothing to push
			}
			if !readsNothing(other, sc, 0) && !isLetVar(other, sc) {
				continue
			}
			e, err := parseExpr(other, sc)
			if err != nil {
				return nil
			}
			return []pushedEq{{field: f[1:], val: e}}
		}
	}
	return nil
}

// isLetVar reports whether v is "$$name" (or "$$name.path") for a
// variable in scope.
func isLetVar(v any, sc pdepth) bool {
	s, ok := v.(string)
	if !ok {
		return false
	}
	name, ok := strings.CutPrefix(s, "$$")
	if !ok {
		return false
	}
	base, _, _ := strings.Cut(name, ".")
	return sc.defined(base)
}

// filter is the find's filter for the variables env binds: the $match's
// plain predicates and an equality for each pushed $expr equality whose
// value is known; nil when there is nothing to add.
func (p *lookupPush) filter(env *Env) bson.D {
	if p == nil {
		return nil
	}
	out := append(bson.D{}, p.plain...)
	for _, q := range p.eqs {
		v, err := q.val.Eval(env)
		if err != nil || isMissing(v) {
			// A failing value fails the $match itself, for each document
			// it reads; {$eq: ["$f", <missing>]} keeps the documents
			// without f. Neither narrows the find.
			continue
		}
		out = append(out, bson.E{Key: q.field, Value: bson.D{{Key: "$eq", Value: v}}})
	}
	if len(out) == 0 {
		return nil
	}
	return out
}
