package engine

import (
	"slices"
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/changestream"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// describeOps is the updateDescription of an update with operators as
// mongod 7.0 reports one (docs/change-streams.md, "updateDescription of
// an operator update"): each modifier's application becomes what
// mongod's update system logs of it (an update of an existing path, a
// creation, a deletion), those are gathered into the tree of its $v:2
// oplog diff in the order mongod applies modifiers, and the tree is read
// back in the order its change stream reads a diff.
func describeOps(old, new bson.D, touched []query.Touched) *changestream.UpdateDescription {
	for _, t := range touched {
		if positionalAt(t.Path) >= 0 || positionalAt(t.To) >= 0 {
			// A path this document's update did not resolve: describe the
			// difference rather than guess.
			return changestream.Describe(old, new)
		}
	}
	var recs []logRec
	per := make([][]logRec, len(touched))
	for i, t := range touched {
		per[i] = logOf(old, new, t)
	}
	drop := make([]bool, len(touched))
	all := make([]int, len(touched))
	for i := range all {
		all[i] = i
	}
	recs = collapseArrays(new, touched, per, all, 0, drop, recs)
	for i := range touched {
		if !drop[i] {
			recs = append(recs, per[i]...)
		}
	}
	slices.SortStableFunc(recs, func(a, b logRec) int { return compareApplyPaths(a.key, b.key) })
	root := newDiffNode(diffDoc)
	for _, r := range recs {
		root.add(old, new, r)
	}
	u := &changestream.UpdateDescription{UpdatedFields: bson.D{}}
	root.emit(u, nil, nil)
	return u
}

// logKind is what mongod's update system logs of one modification.
type logKind int

const (
	logUpdated logKind = iota // an existing path given a new value ("u")
	logCreated                // a path created ("i", or "u" in an array)
	logDeleted                // a field removed ("d")
)

// logRec is one modification as mongod's log builder receives it.
type logRec struct {
	kind  logKind
	path  []string
	value any
	// newAt is, for a creation, the index in path of the first
	// component the document lacked.
	newAt int
	// key is the path where mongod applies the modifier, which orders
	// the records (mongod's update tree is walked in field-name order).
	key []string
}

// logOf is what mongod logs of t's application, old and new being the
// document before and after the whole update (the paths of an update's
// modifiers never overlap, so each path's before and after are its
// modifier's). A modifier that leaves its path as it was logs nothing.
func logOf(old, new bson.D, t query.Touched) []logRec {
	if t.Pattern != nil && len(t.Path) < len(t.Pattern) {
		return nil // elements selected, nothing applied
	}
	p := t.Path
	ov, had := valueAt(old, p)
	nv, has := valueAt(new, p)
	switch t.Op {
	case "$rename":
		if !had {
			return nil
		}
		var out []logRec
		if r, ok := written(old, new, t.To); ok {
			out = append(out, r)
		}
		out = append(out, logRec{kind: logDeleted, path: p})
		for i := range out {
			out[i].key = t.To
		}
		return out
	case "$unset":
		if !had {
			return nil
		}
		if _, inArray := parentArray(old, p); inArray {
			// An element is set to null, never removed: always logged.
			return []logRec{{kind: logUpdated, path: p, value: nil, key: p}}
		}
		return []logRec{{kind: logDeleted, path: p, key: p}}
	case "$push":
		if had && has && t.Appended > 0 {
			na, _ := nv.(bson.A)
			var out []logRec
			for i := max(len(na)-t.Appended, 0); i < len(na); i++ {
				ip := append(slices.Clip(p), strconv.Itoa(i))
				out = append(out, logRec{kind: logCreated, path: ip, value: na[i], newAt: len(p), key: p})
			}
			return out
		}
	}
	if had && has && sameStored(ov, nv) {
		return nil
	}
	if r, ok := written(old, new, p); ok {
		return []logRec{r}
	}
	return nil
}

// written is the record of path p written with its value in new: an
// update when old held p, a creation otherwise.
func written(old, new bson.D, p []string) (logRec, bool) {
	nv, ok := valueAt(new, p)
	if !ok {
		return logRec{}, false
	}
	ov, had := valueAt(old, p)
	if had {
		if sameStored(ov, nv) {
			return logRec{}, false
		}
		return logRec{kind: logUpdated, path: p, value: nv, key: p}, true
	}
	k := 0
	for k < len(p)-1 {
		if _, ok := valueAt(old, p[:k+1]); !ok {
			break
		}
		k++
	}
	return logRec{kind: logCreated, path: p, value: nv, newAt: k, key: p}, true
}

// parentArray is the array holding the last component of p in d, if the
// component is an index into one.
func parentArray(d bson.D, p []string) (bson.A, bool) {
	if len(p) < 2 {
		return nil, false
	}
	v, _ := valueAt(d, p[:len(p)-1])
	a, ok := v.(bson.A)
	return a, ok
}

// collapseArrays applies mongod's rule for an array updated through $[]
// or $[<id>] (its UpdateArrayNode): when the update's array components
// there select more than one element, the elements do not log their own
// changes; the array logs the whole array when more than one element
// changed, the one element that changed when only one did. members are
// the indexes in touched of the applications under the arrays at their
// level-th array component; the records of those the rule replaces are
// marked in drop, and the records that replace them are appended to recs.
func collapseArrays(new bson.D, touched []query.Touched, per [][]logRec, members []int, level int, drop []bool, recs []logRec) []logRec {
	type group struct {
		at      int // position of the array component in the paths
		members []int
	}
	var keys []string
	groups := map[string]*group{}
	for _, i := range members {
		t := touched[i]
		comps := arrayComponents(t.Pattern)
		if level >= len(comps) {
			continue
		}
		k := comps[level]
		if k > len(t.Path) {
			continue
		}
		key := strings.Join(t.Path[:k], "\x00")
		g := groups[key]
		if g == nil {
			g = &group{at: k}
			groups[key] = g
			keys = append(keys, key)
		}
		g.members = append(g.members, i)
	}
	for _, key := range keys {
		g := groups[key]
		selected := map[int]bool{}
		for _, i := range g.members {
			for _, x := range touched[i].Matched[g.at] {
				selected[x] = true
			}
		}
		if len(selected) <= 1 {
			recs = collapseArrays(new, touched, per, g.members, level+1, drop, recs)
			continue
		}
		arr := touched[g.members[0]].Path[:g.at]
		var changed []string
		for _, i := range g.members {
			drop[i] = true
			if len(per[i]) > 0 && !slices.Contains(changed, touched[i].Path[g.at]) {
				changed = append(changed, touched[i].Path[g.at])
			}
		}
		p := arr
		switch len(changed) {
		case 0:
			continue
		case 1:
			p = append(slices.Clip(arr), changed[0])
		}
		if v, ok := valueAt(new, p); ok {
			recs = append(recs, logRec{kind: logUpdated, path: p, value: v, key: p})
		}
	}
	return recs
}

// arrayComponents is the positions of the $[] and $[<id>] components of
// pattern.
func arrayComponents(pattern []string) []int {
	var out []int
	for k, p := range pattern {
		if strings.HasPrefix(p, "$[") {
			out = append(out, k)
		}
	}
	return out
}

// compareApplyPaths orders paths as mongod applies an update's modifiers:
// component by component, in the order of its update tree's children
// (pathsupport's cmpPathsAndArrayIndexes: two names that are numbers
// without leading zeros by value, any other two as strings), a path
// before the paths below it.
func compareApplyPaths(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		if c := compareApplyNames(a[i], b[i]); c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

func compareApplyNames(a, b string) int {
	numeric := func(s string) bool {
		return s != "" && s[0] >= '0' && s[0] <= '9' && !(s[0] == '0' && len(s) > 1)
	}
	if !numeric(a) || !numeric(b) || len(a) == len(b) {
		return strings.Compare(a, b)
	}
	return len(a) - len(b)
}

// diffKind is the kind of a node of mongod's $v:2 diff tree.
type diffKind int

const (
	diffDoc       diffKind = iota // a sub-document changed in place ("s<field>")
	diffArray                     // an array changed in place ("s<field>" with a: true)
	diffDocInsert                 // a document created along a created path
	diffUpdate                    // a leaf given a new value
	diffInsert                    // a leaf created
	diffDelete                    // a leaf removed
)

// diffNode is a node of the diff tree mongod's V2LogBuilder builds: a
// document node keeps its children's names by section, each in the
// order they were added (updates, inserts, deletes, sub-diffs); an
// array node keeps its children by index.
type diffNode struct {
	kind     diffKind
	value    any
	children map[string]*diffNode
	updates  []string
	inserts  []string
	deletes  []string
	subs     []string
}

func newDiffNode(k diffKind) *diffNode {
	n := &diffNode{kind: k}
	if k == diffDoc || k == diffArray || k == diffDocInsert {
		n.children = map[string]*diffNode{}
	}
	return n
}

// addChild adds c as n's child name, in the section its kind belongs
// to (an array node's children need no section: they are read by index).
func (n *diffNode) addChild(name string, c *diffNode) {
	n.children[name] = c
	if n.kind == diffArray {
		return
	}
	switch c.kind {
	case diffDoc, diffArray:
		n.subs = append(n.subs, name)
	case diffInsert, diffDocInsert:
		n.inserts = append(n.inserts, name)
	case diffDelete:
		n.deletes = append(n.deletes, name)
	case diffUpdate:
		n.updates = append(n.updates, name)
	}
}

// add places r in the tree below n (the root) as mongod's
// V2LogBuilder.addNodeAtPath does: the nodes on the way are sub-diffs of
// existing documents, arrays where the next component is an index, and
// created documents from the first component the document lacked.
func (n *diffNode) add(old, new bson.D, r logRec) {
	in := new
	if r.kind == logDeleted {
		in = old
	}
	cur := n
	for i, part := range r.path[:len(r.path)-1] {
		child := cur.children[part]
		if child == nil {
			var k diffKind
			switch {
			case isIndexAt(in, r.path, i+1):
				k = diffArray
			case r.kind == logCreated && i >= r.newAt:
				k = diffDocInsert
			default:
				k = diffDoc
			}
			child = newDiffNode(k)
			cur.addChild(part, child)
		}
		if child.children == nil {
			return // a leaf on the way: paths never overlap, so never
		}
		cur = child
	}
	last := r.path[len(r.path)-1]
	if cur.children[last] != nil {
		return
	}
	leaf := &diffNode{value: r.value}
	switch r.kind {
	case logUpdated:
		leaf.kind = diffUpdate
	case logCreated:
		leaf.kind = diffInsert
	case logDeleted:
		leaf.kind = diffDelete
	}
	cur.addChild(last, leaf)
}

// isIndexAt reports whether component k of p is an index into an array
// of d.
func isIndexAt(d bson.D, p []string, k int) bool {
	v, _ := valueAt(d, p[:k])
	_, ok := v.(bson.A)
	return ok
}

// emit reads n (at path, of components comps) into u as mongod's change
// stream reads a $v:2 diff (change_stream_document_diff_parser): at each
// document, its updated then its created fields into updatedFields, its
// removed ones into removedFields, then each sub-diff in turn; at each
// array, its elements by index.
func (n *diffNode) emit(u *changestream.UpdateDescription, path []string, comps []any) {
	at := func(name string) ([]string, []any) {
		p := append(slices.Clip(path), name)
		var c any = name
		if n.kind == diffArray {
			i, _ := strconv.Atoi(name)
			c = int32(i)
		}
		return p, append(slices.Clip(comps), c)
	}
	if n.kind == diffArray {
		idx := make([]int, 0, len(n.children))
		for name := range n.children {
			i, _ := strconv.Atoi(name)
			idx = append(idx, i)
		}
		slices.Sort(idx)
		for _, i := range idx {
			name := strconv.Itoa(i)
			c := n.children[name]
			p, cs := at(name)
			switch c.kind {
			case diffDoc, diffArray:
				c.emit(u, p, cs)
			default:
				u.Updated(strings.Join(p, "."), cs, c.built())
			}
		}
		return
	}
	for _, name := range n.updates {
		p, cs := at(name)
		u.Updated(strings.Join(p, "."), cs, n.children[name].value)
	}
	for _, name := range n.inserts {
		p, cs := at(name)
		u.Updated(strings.Join(p, "."), cs, n.children[name].built())
	}
	for _, name := range n.deletes {
		p, cs := at(name)
		u.Removed(strings.Join(p, "."), cs)
	}
	for _, name := range n.subs {
		p, cs := at(name)
		n.children[name].emit(u, p, cs)
	}
}

// built is the value a leaf or a created document writes: a created
// document holds its created fields in the order they were created.
func (n *diffNode) built() any {
	if n.kind != diffDocInsert {
		return n.value
	}
	d := make(bson.D, 0, len(n.inserts))
	for _, name := range n.inserts {
		d = append(d, bson.E{Key: name, Value: n.children[name].built()})
	}
	return d
}

// positionalAt is the index of the first component of path that is a
// positional operator ($, $[], $[id]), -1 if none.
func positionalAt(path []string) int {
	for i, p := range path {
		if p == "$" || strings.HasPrefix(p, "$[") {
			return i
		}
	}
	return -1
}

// valueAt is the value at path in d: documents by field, arrays by index.
func valueAt(d bson.D, path []string) (any, bool) {
	var cur any = d
	for _, p := range path {
		switch c := cur.(type) {
		case bson.D:
			found := false
			for _, e := range c {
				if e.Key == p {
					cur, found = e.Value, true
					break
				}
			}
			if !found {
				return nil, false
			}
		case bson.A:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(c) || strconv.Itoa(i) != p {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// sameStored reports whether two values are stored alike: same types
// and values (1 and 1.0 differ).
func sameStored(a, b any) bool {
	ba, err1 := document.MarshalValue(a)
	bb, err2 := document.MarshalValue(b)
	return err1 == nil && err2 == nil && string(ba) == string(bb)
}
