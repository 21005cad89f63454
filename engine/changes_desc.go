package engine

import (
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/changestream"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// describeOps is the updateDescription of an update with operators as
// mongod logs one: each modifier's path as it applied, with the whole
// value now there (a $set of an array is that array, not a truncation),
// a field created under a missing parent as that parent, the elements a
// $push appended as their own paths, a removed field as removed. A path
// holding a positional component this document's update did not resolve
// ($[]) is described as the difference below it. A modifier that left its
// path as it was is not logged.
func describeOps(old, new bson.D, touched []query.Touched) *changestream.UpdateDescription {
	u := &changestream.UpdateDescription{UpdatedFields: bson.D{}}
	for _, t := range touched {
		if t.Op == "$rename" {
			logRemoved(u, old, new, t.Path)
			logWritten(u, old, new, t.To, "$set")
			continue
		}
		if i := positionalAt(t.Path); i >= 0 {
			ov, _ := valueAt(old, t.Path[:i])
			nv, _ := valueAt(new, t.Path[:i])
			u.DiffAt(strings.Join(t.Path[:i], "."), componentsOf(new, t.Path[:i]), ov, nv)
			continue
		}
		switch t.Op {
		case "$unset", "$pull", "$pullAll", "$pop":
			if _, still := valueAt(new, t.Path); !still {
				logRemoved(u, old, new, t.Path)
				continue
			}
		}
		logWritten(u, old, new, t.Path, t.Op)
	}
	return u
}

// logWritten logs the value path holds in new when it differs from old's.
func logWritten(u *changestream.UpdateDescription, old, new bson.D, path []string, op string) {
	nv, ok := valueAt(new, path)
	if !ok {
		return
	}
	ov, had := valueAt(old, path)
	if had && sameStored(ov, nv) {
		return // a no-op modifier is not logged
	}
	if !had {
		// Created: logged at the first component old lacked, whole.
		for k := 1; k <= len(path); k++ {
			if _, ok := valueAt(old, path[:k]); !ok {
				v, _ := valueAt(new, path[:k])
				u.Updated(strings.Join(path[:k], "."), componentsOf(new, path[:k]), v)
				return
			}
		}
	}
	if oa, isArr := ov.(bson.A); isArr && op == "$push" {
		if na, ok := nv.(bson.A); ok && len(na) > len(oa) && sameStored(oa, na[:len(oa)]) {
			// Appended only: the new elements, each at its index.
			for i := len(oa); i < len(na); i++ {
				p := append(append([]string{}, path...), strconv.Itoa(i))
				u.Updated(strings.Join(p, "."), componentsOf(new, p), na[i])
			}
			return
		}
	}
	u.Updated(strings.Join(path, "."), componentsOf(new, path), nv)
}

// logRemoved logs path removed when old held it and new does not.
func logRemoved(u *changestream.UpdateDescription, old, new bson.D, path []string) {
	if _, had := valueAt(old, path); !had {
		return
	}
	if _, still := valueAt(new, path); still {
		return
	}
	u.Removed(strings.Join(path, "."), componentsOf(old, path))
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

// componentsOf is path's components as d's structure reads them: an
// index into an array as an int32, any other component a field name.
func componentsOf(d bson.D, path []string) []any {
	out := make([]any, len(path))
	var cur any = d
	for i, p := range path {
		out[i] = p
		switch c := cur.(type) {
		case bson.D:
			cur = nil
			for _, e := range c {
				if e.Key == p {
					cur = e.Value
					break
				}
			}
		case bson.A:
			if n, err := strconv.Atoi(p); err == nil && n >= 0 && n < len(c) {
				out[i] = int32(n)
				cur = c[n]
			} else {
				cur = nil
			}
		default:
			cur = nil
		}
	}
	return out
}

// sameStored reports whether two values are stored alike: same types
// and values (1 and 1.0 differ).
func sameStored(a, b any) bool {
	ba, err1 := document.MarshalValue(a)
	bb, err2 := document.MarshalValue(b)
	return err1 == nil && err2 == nil && string(ba) == string(bb)
}
