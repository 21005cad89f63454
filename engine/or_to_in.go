package engine

import (
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// orToIn rewrites the $or's of filter whose branches test one path for
// equality into an $in on that path, as mongod 7.0's match-expression
// optimizer does before it plans (jstests/core/query/or/or_to_in.js):
//
//   - a branch counts when it is a single equality ({a: v}, {a: {$eq:
//     v}}, {a: {$in: [v]}}) or regex ({a: /re/}, {a: {$regex: ...}}) on
//     a path; {a: {$eq: /re/}} does not (it matches the regex as a
//     value, where $in would match strings with it);
//   - the path is the first counting branch's; when at least two
//     branches count on it they become one {path: {$in: [...]}}, the
//     other branches stay beside it in the $or, and an $or left with
//     that one branch is the $in itself;
//   - the branches are rewritten first, so nested $or's, and those
//     under $and and $nor, are rewritten too; an $or of two rewritten
//     $or's stays an $or of two $in's.
//
// The $in's values are those of its InMatchExpression: the equalities
// sorted and without duplicates, then the regexes as given. The rewrite
// keeps what matches: an equality and a regex match the same documents
// as one $in value. filter is not modified; it is returned as is when
// nothing changes.
func orToIn(filter bson.D, coll *collation.Collator) bson.D {
	out, _ := rewriteOrToIn(filter, coll)
	return out
}

// rewriteOrToIn is orToIn, and whether it changed anything.
func rewriteOrToIn(filter bson.D, coll *collation.Collator) (bson.D, bool) {
	var out bson.D
	for i, e := range filter {
		var nv any
		changed := false
		switch e.Key {
		case "$and", "$or", "$nor":
			if a, ok := e.Value.(bson.A); ok {
				na, c := branchesOrToIn(a, coll)
				nv, changed = na, c
				if e.Key == "$or" {
					if in, rest, ok := mergeEqualities(na, coll); ok {
						if len(rest) == 0 {
							out = addPredicate(ensureCopy(out, filter, i), filter, in)
							continue
						}
						nv, changed = append(rest, in), true
					}
				}
			}
		default:
			nv, changed = elemMatchOrToIn(e.Value, coll)
		}
		if changed {
			out = append(ensureCopy(out, filter, i), bson.E{Key: e.Key, Value: nv})
		} else if out != nil {
			out = append(out, e)
		}
	}
	if out == nil {
		return filter, false
	}
	return out, true
}

// ensureCopy is out, or when nil a copy of filter's first i elements:
// the rewritten filter being built.
func ensureCopy(out, filter bson.D, i int) bson.D {
	if out != nil {
		return out
	}
	return append(make(bson.D, 0, len(filter)), filter[:i]...)
}

// addPredicate adds the one-path predicate p to d, the rewrite of the
// filter document orig: as its own field when orig has none of that
// path, else into d's $and (a document cannot hold a path twice).
func addPredicate(d, orig bson.D, p bson.D) bson.D {
	if _, has := get(orig, p[0].Key); !has {
		return append(d, p[0])
	}
	for i, e := range d {
		if e.Key == "$and" {
			if a, ok := e.Value.(bson.A); ok {
				d[i].Value = append(slices.Clone(a), p)
				return d
			}
		}
	}
	return append(d, bson.E{Key: "$and", Value: bson.A{p}})
}

// branchesOrToIn rewrites each branch of an $and, $or or $nor.
func branchesOrToIn(a bson.A, coll *collation.Collator) (bson.A, bool) {
	var out bson.A
	for i, b := range a {
		d, ok := b.(bson.D)
		if !ok {
			if out != nil {
				out = append(out, b)
			}
			continue
		}
		nd, changed := rewriteOrToIn(d, coll)
		if !changed {
			if out != nil {
				out = append(out, b)
			}
			continue
		}
		if out == nil {
			out = append(make(bson.A, 0, len(a)), a[:i]...)
		}
		out = append(out, nd)
	}
	if out == nil {
		return a, false
	}
	return out, true
}

// mergeEqualities finds the $or branches that count (orToIn) on the
// first counting branch's path; with two or more it returns their $in
// and the other branches.
func mergeEqualities(branches bson.A, coll *collation.Collator) (in bson.D, rest bson.A, ok bool) {
	path := ""
	var eqs, regexes bson.A
	n := 0
	for _, b := range branches {
		d, _ := b.(bson.D)
		p, v, isRe, counts := orBranchValue(d)
		if counts && path == "" {
			path = p
		}
		if !counts || p != path {
			rest = append(rest, b)
			continue
		}
		n++
		if isRe {
			regexes = append(regexes, v)
		} else {
			eqs = append(eqs, v)
		}
	}
	if n < 2 {
		return nil, nil, false
	}
	return bson.D{{Key: path, Value: bson.D{{Key: "$in", Value: sortedInValues(eqs, regexes, coll)}}}}, rest, true
}

// sortedInValues is an $in's list from its equalities and regexes, as
// mongod's InMatchExpression keeps it once given the query's collator:
// the equalities sorted and without duplicates under coll (nil, the
// simple collation, is BSON comparison; under {locale: "en", strength:
// 2} "A" and "a" are one value, the first given), then the regexes as
// given.
func sortedInValues(eqs, regexes bson.A, coll *collation.Collator) bson.A {
	eqs = slices.Clone(eqs)
	slices.SortStableFunc(eqs, coll.CompareValues)
	vals := make(bson.A, 0, len(eqs)+len(regexes))
	for i, v := range eqs {
		if i > 0 && coll.CompareValues(vals[len(vals)-1], v) == 0 {
			continue
		}
		vals = append(vals, v)
	}
	return append(vals, regexes...)
}

// orBranchValue reports whether an $or branch is a single equality or
// regex on one path (orToIn), and its path and value.
func orBranchValue(d bson.D) (path string, v any, isRegex, ok bool) {
	if len(d) != 1 || strings.HasPrefix(d[0].Key, "$") || d[0].Key == "" {
		return "", nil, false, false
	}
	path = d[0].Key
	switch x := d[0].Value.(type) {
	case bson.Regex:
		return path, x, true, true
	case bson.D:
		if len(x) == 0 || !strings.HasPrefix(x[0].Key, "$") {
			return path, x, false, true // a document's equality
		}
		var re, opts any
		for _, op := range x {
			switch op.Key {
			case "$eq":
				if len(x) != 1 {
					return "", nil, false, false
				}
				if _, isRe := op.Value.(bson.Regex); isRe {
					return "", nil, false, false
				}
				return path, op.Value, false, true
			case "$in":
				a, isArr := op.Value.(bson.A)
				if len(x) != 1 || !isArr || len(a) != 1 {
					return "", nil, false, false
				}
				if _, isRe := a[0].(bson.Regex); isRe {
					return "", nil, false, false
				}
				return path, a[0], false, true
			case "$regex":
				re = op.Value
			case "$options":
				opts = op.Value
			default:
				return "", nil, false, false
			}
		}
		o, optsOK := opts.(string)
		if opts != nil && !optsOK {
			return "", nil, false, false
		}
		switch r := re.(type) {
		case string:
			return path, bson.Regex{Pattern: r, Options: o}, true, true
		case bson.Regex:
			if o != "" && r.Options != "" {
				return "", nil, false, false
			}
			if o != "" {
				r.Options = o
			}
			return path, r, true, true
		}
		return "", nil, false, false
	default:
		return path, x, false, true
	}
}

// elemMatchOrToIn rewrites the $or's inside an {$elemMatch: {...}} of a
// field's operators, as mongod's optimizer rewrites an $elemMatch's
// sub-expression: {a: {$elemMatch: {$or: [{b: 1}, {b: 2}]}}} is
// {a: {$elemMatch: {b: {$in: [1, 2]}}}}. v is returned as is, with
// false, when nothing changes.
func elemMatchOrToIn(v any, coll *collation.Collator) (any, bool) {
	ops, ok := v.(bson.D)
	if !ok {
		return v, false
	}
	var out bson.D
	for i, op := range ops {
		sub, isDoc := op.Value.(bson.D)
		if op.Key != "$elemMatch" || !isDoc {
			if out != nil {
				out = append(out, op)
			}
			continue
		}
		nsub, changed := rewriteOrToIn(sub, coll)
		if !changed {
			if out != nil {
				out = append(out, op)
			}
			continue
		}
		out = append(ensureCopy(out, ops, i), bson.E{Key: op.Key, Value: nsub})
	}
	if out == nil {
		return v, false
	}
	return out, true
}
