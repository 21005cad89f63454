package query

import (
	"slices"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Collate returns the filter with its string comparisons made under
// collation c ($eq, $ne, $lt, $lte, $gt, $gte, $in, $nin, implicit
// equality, $all and the same inside $elemMatch), as MongoDB applies an
// operation's collation (docs/collation.md). Regular expressions, field
// names, $type, $size, $exists and $mod are not collated. The operands a
// planner reads through Bounds become collation keys, so bounds of a
// collated filter address an index with the same collation. A nil c (the
// simple collation) returns f itself. A $expr compares its values
// under c too.
func (f *Filter) Collate(c *collation.Collator) (*Filter, error) {
	if c == nil {
		return f, nil
	}
	if f == nil {
		return &Filter{coll: c}, nil
	}
	root := collateExpr(f.root, c).(andExpr)
	return &Filter{root: root, hasExpr: f.hasExpr, js: f.js, text: f.text, textOr: f.textOr, near: f.near, coll: c}, nil
}

// Collator returns the collation the filter compares strings with: nil
// for the simple collation.
func (f *Filter) Collator() *collation.Collator {
	if f == nil {
		return nil
	}
	return f.coll
}

// Collate returns the sort with strings ordered under collation c; a nil
// c returns s itself.
func (s *Sort) Collate(c *collation.Collator) *Sort {
	if s == nil || c == nil {
		return s
	}
	out := *s
	out.coll = c
	return &out
}

// Collator returns the collation of the sort's string order: nil for the
// simple collation.
func (s *Sort) Collator() *collation.Collator {
	if s == nil {
		return nil
	}
	return s.coll
}

func collateExpr(e expr, c *collation.Collator) expr {
	return mapLogical(e, func(x expr) expr {
		switch t := x.(type) {
		case *pathExpr:
			return collatePath(t, c)
		case exprNode:
			t.coll = c
			return t
		}
		return x
	})
}

// collateItem replaces the strings of a yielded value by their keys.
func collateItem(it item, c *collation.Collator) item {
	if !it.present {
		return it
	}
	return item{v: c.KeyValue(it.v), present: true}
}

func collatePath(p *pathExpr, c *collation.Collator) *pathExpr {
	q := *p
	switch p.kind {
	case opEq:
		k := c.KeyValue(p.arg)
		q.arg = k
		q.pred = func(it item) bool { return eqMatch(collateItem(it, c), k) }
	case opGt, opGte, opLt, opLte:
		op := map[opKind]string{opGt: "$gt", opGte: "$gte", opLt: "$lt", opLte: "$lte"}[p.kind]
		k := c.KeyValue(p.arg)
		q.arg = k
		q.pred = func(it item) bool { return cmpMatch(op, collateItem(it, c), k) }
	case opIn:
		type matcher func(raw, keyed item) bool
		ms := make([]matcher, 0, len(p.args))
		args := make(bson.A, len(p.args))
		for i, a := range p.args {
			if re, ok := a.(bson.Regex); ok {
				// Validated when the filter was parsed.
				rx, _ := compileRegex(re.Pattern, re.Options)
				args[i] = a
				ms = append(ms, func(raw, _ item) bool { return regexMatch(raw, rx, re) })
				continue
			}
			k := c.KeyValue(a)
			args[i] = k
			ms = append(ms, func(_, keyed item) bool { return eqMatch(keyed, k) })
		}
		q.args = args
		q.pred = func(it item) bool {
			keyed := collateItem(it, c)
			for _, m := range ms {
				if m(it, keyed) {
					return true
				}
			}
			return false
		}
	}
	if p.sub != nil {
		q.sub = collateExpr(p.sub, c)
		if p.valueForm {
			q.pred = elemMatchValuePred(q.sub)
		} else {
			q.pred = elemMatchObjectPred(q.sub)
		}
	}
	return &q
}

// SortDocs sorts docs stably in the sort's order. Each document's sort
// values are found once (under a collation, turned into collation keys,
// so that the comparisons compare bytes), rather than at every
// comparison as Compare finds them; equal documents keep their order by
// their position.
func (s *Sort) SortDocs(docs []bson.D) {
	if s == nil || len(s.keys) == 0 {
		return
	}
	order := s.Order(docs)
	sorted := make([]bson.D, len(docs))
	for i, j := range order {
		sorted[i] = docs[j]
	}
	copy(docs, sorted)
}

// Order returns the positions of docs in the sort's order, stably, as
// SortDocs would put them, without moving docs.
func (s *Sort) Order(docs []bson.D) []int {
	order := make([]int, len(docs))
	if s == nil || len(s.keys) == 0 {
		for i := range order {
			order[i] = i
		}
		return order
	}
	type keyed struct {
		d    bson.D
		vals []any
		i    int
	}
	ks := make([]keyed, len(docs))
	vals := make([]any, len(docs)*len(s.keys))
	for i, d := range docs {
		v := vals[i*len(s.keys) : (i+1)*len(s.keys) : (i+1)*len(s.keys)]
		copy(v, s.sortTuple(d))
		if s.coll != nil {
			for j := range v {
				v[j] = s.coll.KeyValue(v[j])
			}
		}
		ks[i] = keyed{d, v, i}
	}
	slices.SortFunc(ks, func(a, b keyed) int {
		for j, k := range s.keys {
			c := document.Compare(a.vals[j], b.vals[j])
			if k.Desc {
				c = -c
			}
			if c != 0 {
				return c
			}
		}
		return a.i - b.i
	})
	for i := range ks {
		order[i] = ks[i].i
	}
	return order
}

// Collate returns the update with its value comparisons made under
// collation c, as MongoDB applies an update's collation: $min and $max,
// $addToSet's membership, $pull's condition and $pullAll's values, and
// $push's $sort. A nil c returns u itself. Replacements and pipeline
// updates compare nothing and are returned as they are.
func (u *Update) Collate(c *collation.Collator) *Update {
	if u == nil || c == nil || u.isRepl {
		return u
	}
	if u.fn != nil {
		out := *u
		out.fnColl = c
		return &out
	}
	out := *u
	out.mods = make([]*modifier, len(u.mods))
	var af arrayFilters
	if len(u.mods) > 0 {
		// Array filters compare strings under the operation's collation,
		// as its filter does.
		af, _ = u.mods[0].af.collate(c)
	}
	for i, m := range u.mods {
		cm := *m
		cm.coll = c
		if m.af != nil {
			cm.af = af
		}
		if m.pull != nil {
			cm.pull = collateExpr(m.pull, c)
		}
		out.mods[i] = &cm
	}
	return &out
}
