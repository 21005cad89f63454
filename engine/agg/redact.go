package agg

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The values of $redact's variables $$DESCEND, $$PRUNE and $$KEEP, as
// mongod gives them.
const (
	redactDescend = "descend"
	redactPrune   = "prune"
	redactKeep    = "keep"
)

// parseRedact parses $redact: an expression, evaluated at each level of
// each document with $$CURRENT that level, which must give $$DESCEND
// (keep the level's fields, redacting the documents inside them),
// $$PRUNE (drop the level) or $$KEEP (keep it whole).
func parseRedact(arg any, sc pdepth) (stageSpec, error) {
	e, err := parseExpr(arg, sc.with("DESCEND", "PRUNE", "KEEP"))
	if err != nil {
		return stageSpec{}, err
	}
	return stageSpec{name: "$redact", spec: arg, make: func(up iter, o *Options) iter {
		return &redactIter{e: e, up: up, o: o}
	}}, nil
}

type redactIter struct {
	e  Expr
	up iter
	o  *Options
}

func (r *redactIter) next(ctx context.Context) (bson.D, error) {
	for {
		d, err := r.up.next(ctx)
		if err != nil || d == nil {
			return d, err
		}
		env := r.o.env(d)
		env = env.with("DESCEND", redactDescend).with("PRUNE", redactPrune).with("KEEP", redactKeep)
		out, keep, err := r.redact(env, d)
		if err != nil {
			return nil, err
		}
		if keep {
			return out, nil
		}
	}
}

// redact applies the expression to the level d.
func (r *redactIter) redact(env *Env, d bson.D) (bson.D, bool, error) {
	lvl := *env
	lvl.current = d
	v, err := r.e.Eval(&lvl)
	if err != nil {
		return nil, false, err
	}
	switch v {
	case redactKeep:
		return d, true, nil
	case redactPrune:
		return nil, false, nil
	case redactDescend:
		out := make(bson.D, 0, len(d))
		for _, f := range d {
			nv, keep, err := r.value(env, f.Value)
			if err != nil {
				return nil, false, err
			}
			if keep {
				out = append(out, bson.E{Key: f.Key, Value: nv})
			}
		}
		return out, true, nil
	}
	return nil, false, document.Errorf(document.Code(17053), "$redact's expression should not return anything aside from the variables $$KEEP, $$DESCEND, and $$PRUNE, but returned %s", valueString(v))
}

// value redacts a field's value: a document is a level of its own, an
// array keeps its elements but the documents the expression prunes, and
// anything else stays.
func (r *redactIter) value(env *Env, v any) (any, bool, error) {
	switch x := v.(type) {
	case bson.D:
		return r.redact(env, x)
	case bson.A:
		out := make(bson.A, 0, len(x))
		for _, el := range x {
			nv, keep, err := r.value(env, el)
			if err != nil {
				return nil, false, err
			}
			if keep {
				out = append(out, nv)
			}
		}
		return out, true, nil
	}
	return v, true, nil
}
