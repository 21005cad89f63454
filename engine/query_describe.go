package engine

import (
	"fmt"
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// describeQuery returns mongod's description of a find (its canonical
// query printed for an error message): the namespace, batchSize, limit
// and skip when given, the filter's expression tree, the sort, the
// projection and the collation when given, each tree line ending in a
// newline. A {$natural: 1} sort is a hint to mongod by then, so it shows
// as an empty sort. The tree is mongod's for the filters people write
// (equalities, comparisons, $in, $nin, $ne, $exists, regular
// expressions, $size, $mod, $not, and $and, $or, $nor of them, in
// mongod's order of its children); other operators print as their name
// and operand.
func describeQuery(ns string, filter bson.D, o FindOptions) string {
	var b strings.Builder
	b.WriteString("ns=" + ns)
	if o.BatchSize != 0 {
		fmt.Fprintf(&b, " batchSize=%d", o.BatchSize)
	}
	if o.Limit != 0 {
		fmt.Fprintf(&b, " limit=%d", o.Limit)
	}
	if o.Skip != 0 {
		fmt.Fprintf(&b, " skip=%d", o.Skip)
	}
	b.WriteString("Tree: ")
	matchAnd(matchPreds(filter)).write(&b, 0)
	sort := o.Sort
	if len(sort) == 1 && sort[0].Key == "$natural" {
		sort = nil
	}
	b.WriteString("Sort: " + document.Format(orEmpty(sort)) + "\n")
	b.WriteString("Proj: " + document.Format(orEmpty(o.Projection)) + "\n")
	if len(o.Collation) > 0 {
		b.WriteString("Collation: " + document.Format(o.Collation) + "\n")
	}
	return b.String()
}

func orEmpty(d bson.D) bson.D {
	if d == nil {
		return bson.D{}
	}
	return d
}

// matchKind orders a filter's predicates as mongod's MatchType does,
// which sorts the children of $and, $or and $nor by it, then by path.
type matchKind int

// The kinds, in mongod's order.
const (
	mkAnd matchKind = iota
	mkOr
	mkElemMatchObject
	mkElemMatchValue
	mkSize
	mkEq
	mkLte
	mkLt
	mkGt
	mkGte
	mkRegex
	mkMod
	mkExists
	mkIn
	mkBits
	mkNot
	mkNor
	mkType
	mkGeo
	mkWhere
	mkExpr
	mkAlwaysFalse
	mkAlwaysTrue
	mkOther
)

// matchNode is one node of a filter's expression tree, as mongod's
// debug string prints it: a line and its children, indented by four
// spaces a level.
type matchNode struct {
	kind matchKind
	path string
	line string
	kids []matchNode
}

func (n matchNode) write(b *strings.Builder, level int) {
	b.WriteString(strings.Repeat("    ", level) + n.line + "\n")
	for _, k := range n.kids {
		k.write(b, level+1)
	}
}

// matchAnd is the conjunction of preds: the one predicate alone, else
// an $and of them in mongod's order (an empty filter is an empty $and).
func matchAnd(preds []matchNode) matchNode {
	if len(preds) == 1 {
		return preds[0]
	}
	return matchNode{kind: mkAnd, line: "$and", kids: sortMatch(preds)}
}

func sortMatch(ns []matchNode) []matchNode {
	slices.SortStableFunc(ns, func(a, b matchNode) int {
		if a.kind != b.kind {
			return int(a.kind) - int(b.kind)
		}
		return strings.Compare(a.path, b.path)
	})
	return ns
}

// matchPreds returns the predicates of filter document d, nested $and
// flattened into them as mongod's optimizer does.
func matchPreds(d bson.D) []matchNode {
	var out []matchNode
	for _, e := range d {
		switch e.Key {
		case "$and":
			for _, sub := range matchDocs(e.Value) {
				out = append(out, matchPreds(sub)...)
			}
		case "$or", "$nor":
			var kids []matchNode
			for _, sub := range matchDocs(e.Value) {
				kids = append(kids, matchAnd(matchPreds(sub)))
			}
			if e.Key == "$or" && len(kids) == 1 {
				k := kids[0]
				if k.kind == mkAnd {
					out = append(out, k.kids...)
				} else {
					out = append(out, k)
				}
				continue
			}
			kind := mkOr
			if e.Key == "$nor" {
				kind = mkNor
			}
			out = append(out, matchNode{kind: kind, line: e.Key, kids: sortMatch(kids)})
		case "$comment":
		case "$alwaysTrue":
			out = append(out, matchNode{kind: mkAlwaysTrue, line: "$alwaysTrue"})
		case "$alwaysFalse":
			out = append(out, matchNode{kind: mkAlwaysFalse, line: "$alwaysFalse"})
		case "$expr":
			out = append(out, matchNode{kind: mkExpr, line: "$expr " + document.Format(e.Value)})
		case "$where":
			out = append(out, matchNode{kind: mkWhere, line: "$where"})
		default:
			if strings.HasPrefix(e.Key, "$") {
				out = append(out, matchNode{kind: mkOther, line: e.Key})
				continue
			}
			out = append(out, matchPath(e.Key, e.Value)...)
		}
	}
	return out
}

// matchDocs returns the documents of an $and, $or or $nor array.
func matchDocs(v any) []bson.D {
	arr, _ := v.(bson.A)
	var out []bson.D
	for _, x := range arr {
		if d, ok := x.(bson.D); ok {
			out = append(out, d)
		}
	}
	return out
}

// matchPath returns the predicates of path's condition v.
func matchPath(path string, v any) []matchNode {
	leaf := func(kind matchKind, line string) matchNode {
		return matchNode{kind: kind, path: path, line: path + " " + line}
	}
	not := func(kid matchNode) matchNode {
		return matchNode{kind: mkNot, line: "$not", kids: []matchNode{kid}}
	}
	if re, ok := v.(bson.Regex); ok {
		return []matchNode{leaf(mkRegex, "regex /"+re.Pattern+"/"+re.Options)}
	}
	ops, ok := v.(bson.D)
	if !ok || len(ops) == 0 || !strings.HasPrefix(ops[0].Key, "$") {
		return []matchNode{leaf(mkEq, "$eq "+document.Format(v))}
	}
	var out []matchNode
	for _, op := range ops {
		switch op.Key {
		case "$eq":
			out = append(out, leaf(mkEq, "$eq "+document.Format(op.Value)))
		case "$lt":
			out = append(out, leaf(mkLt, "$lt "+document.Format(op.Value)))
		case "$lte":
			out = append(out, leaf(mkLte, "$lte "+document.Format(op.Value)))
		case "$gt":
			out = append(out, leaf(mkGt, "$gt "+document.Format(op.Value)))
		case "$gte":
			out = append(out, leaf(mkGte, "$gte "+document.Format(op.Value)))
		case "$ne":
			out = append(out, not(leaf(mkEq, "$eq "+document.Format(op.Value))))
		case "$in":
			out = append(out, matchIn(path, op.Value))
		case "$nin":
			out = append(out, not(matchIn(path, op.Value)))
		case "$exists":
			if truthy(op.Value) {
				out = append(out, leaf(mkExists, "exists"))
			} else {
				out = append(out, not(leaf(mkExists, "exists")))
			}
		case "$regex":
			pat, opts := "", ""
			for _, x := range ops {
				switch r := x.Value.(type) {
				case string:
					if x.Key == "$regex" {
						pat = r
					} else if x.Key == "$options" {
						opts = r
					}
				case bson.Regex:
					if x.Key == "$regex" {
						pat, opts = r.Pattern, r.Options+opts
					}
				}
			}
			out = append(out, leaf(mkRegex, "regex /"+pat+"/"+opts))
		case "$options":
		case "$size":
			out = append(out, leaf(mkSize, "$size : "+document.Format(op.Value)))
		case "$mod":
			if arr, ok := op.Value.(bson.A); ok && len(arr) == 2 {
				out = append(out, leaf(mkMod, fmt.Sprintf("mod %s %% x == %s", document.Format(arr[0]), document.Format(arr[1]))))
			} else {
				out = append(out, leaf(mkMod, "mod"))
			}
		case "$not":
			out = append(out, not(matchAnd(matchPath(path, op.Value))))
		default:
			out = append(out, leaf(mkOther, op.Key+": "+document.Format(op.Value)))
		}
	}
	return out
}

// matchIn is path's $in of values v: an equality when it holds one
// value (mongod's optimizer), else its distinct values in BSON order.
func matchIn(path string, v any) matchNode {
	arr, _ := v.(bson.A)
	vals := slices.Clone(arr)
	slices.SortStableFunc(vals, document.Compare)
	vals = slices.CompactFunc(vals, func(a, b any) bool { return document.Compare(a, b) == 0 })
	if len(vals) == 1 {
		if _, isRe := vals[0].(bson.Regex); !isRe {
			return matchNode{kind: mkEq, path: path, line: path + " $eq " + document.Format(vals[0])}
		}
	}
	var b strings.Builder
	b.WriteString(path + " $in [ ")
	for _, x := range vals {
		b.WriteString(document.Format(x) + " ")
	}
	b.WriteString("]")
	return matchNode{kind: mkIn, path: path, line: b.String()}
}
