package query

import (
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// item is one value a path reaches in a document, as MongoDB's element
// iterator yields it. present is false for a missing field.
type item struct {
	v       any
	present bool
}

// collect appends to out every value the dotted path parts reaches in v,
// with MongoDB's matching semantics:
//
//   - a document yields the field's value, or a missing item when the
//     field is absent;
//   - an array met before the last component is traversed: its document
//     elements are searched for the rest of the path, and when the
//     component is a number the element at that index is followed too;
//     scalar and array elements yield nothing, so an empty array or one
//     of scalars yields nothing at all (mongod 7.0: {"a.b": null} does
//     not match {a: [1]}; 9.0's SERVER-36681 changed that);
//   - a scalar met before the last component yields a missing item;
//   - at the end of the path an array yields its elements (when expand is
//     true) and then itself.
func collect(v any, parts []string, expand bool, out []item) []item {
	if len(parts) == 0 {
		if a, ok := v.(bson.A); ok && expand {
			for _, e := range a {
				out = append(out, item{v: e, present: true})
			}
		}
		return append(out, item{v: v, present: true})
	}
	switch t := v.(type) {
	case bson.D:
		fv, ok := getField(t, parts[0])
		if !ok {
			return append(out, item{})
		}
		return collect(fv, parts[1:], expand, out)
	case bson.A:
		if idx, ok := arrayIndex(parts[0]); ok && idx < len(t) {
			out = collect(t[idx], parts[1:], expand, out)
		}
		for _, e := range t {
			if ed, ok := e.(bson.D); ok {
				out = collect(ed, parts, expand, out)
			}
		}
		return out
	default:
		return append(out, item{})
	}
}

// getField returns the value of d's first field named key.
func getField(d bson.D, key string) (any, bool) {
	for i := range d {
		if d[i].Key == key {
			return d[i].Value, true
		}
	}
	return nil, false
}

// fieldIndex returns the position of d's first field named key, or -1.
func fieldIndex(d bson.D, key string) int {
	for i := range d {
		if d[i].Key == key {
			return i
		}
	}
	return -1
}

// arrayIndex parses a path component that MongoDB treats as an array
// index: ASCII digits only, no sign, no leading zero unless it is "0".
func arrayIndex(s string) (int, bool) {
	if s == "" || len(s) > 9 {
		return 0, false
	}
	if len(s) > 1 && s[0] == '0' {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	return n, true
}

// splitPath splits a dotted path; it reports false for an empty path or
// an empty component.
func splitPath(p string) ([]string, bool) {
	if p == "" {
		return nil, false
	}
	parts := strings.Split(p, ".")
	for _, s := range parts {
		if s == "" {
			return nil, false
		}
	}
	return parts, true
}

// lookupPlain follows a dotted path without array expansion: documents by
// field name, arrays by numeric index. It is the path semantics of
// sorting's fallback and of projections' positional reads.
func lookupPlain(v any, parts []string) (any, bool) {
	for _, p := range parts {
		switch t := v.(type) {
		case bson.D:
			fv, ok := getField(t, p)
			if !ok {
				return nil, false
			}
			v = fv
		case bson.A:
			i, ok := arrayIndex(p)
			if !ok || i >= len(t) {
				return nil, false
			}
			v = t[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// arrayAsDoc returns an array as a document whose keys are the element
// indexes, the way MongoDB lets an $elemMatch object filter see an array
// element that is itself an array.
func arrayAsDoc(a bson.A) bson.D {
	d := make(bson.D, len(a))
	for i, e := range a {
		d[i] = bson.E{Key: strconv.Itoa(i), Value: e}
	}
	return d
}

// cloneValue returns a deep copy of v's documents and arrays; scalars are
// shared (they are immutable values, except bson.Binary's byte slice,
// which is copied too).
func cloneValue(v any) any {
	switch t := v.(type) {
	case bson.D:
		return cloneDoc(t)
	case bson.A:
		c := make(bson.A, len(t))
		for i, e := range t {
			c[i] = cloneValue(e)
		}
		return c
	case bson.Binary:
		return bson.Binary{Subtype: t.Subtype, Data: append([]byte(nil), t.Data...)}
	}
	return v
}

// cloneDoc deep-copies a document; a nil document stays nil.
func cloneDoc(d bson.D) bson.D {
	if d == nil {
		return nil
	}
	c := make(bson.D, len(d))
	for i, e := range d {
		c[i] = bson.E{Key: e.Key, Value: cloneValue(e.Value)}
	}
	return c
}
