// Package indexkey computes the keys an index holds for a document, as
// MongoDB's key generator does, and keeps the upper bound of a
// collection's _id index entries that lets a unique-key check skip a
// read (IDBound). docs/layout.md says where the package sits.
package indexkey

import (
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// codeCannotIndexParallelArrays is MongoDB's code for a compound key
// over two array fields of one document.
const codeCannotIndexParallelArrays = document.Code(171)

// PathValues returns the values an index on path holds for d, as
// MongoDB's key generator does: arrays along the path are traversed,
// a final array contributes each element (an empty one contributes
// undefined), a missing field contributes nothing. isArray reports
// whether an array was met.
func PathValues(d bson.D, path string) (vals []any, isArray bool) {
	if strings.IndexByte(path, '.') < 0 {
		// A top-level field, the common case: what the walk below does
		// for one part, without splitting the path.
		v, ok := document.Get(d, path)
		if !ok {
			return nil, false
		}
		if arr, ok := v.(bson.A); ok {
			if len(arr) == 0 {
				return []any{bson.Undefined{}}, true
			}
			return append([]any(nil), arr...), true
		}
		return []any{v}, false
	}
	parts := strings.Split(path, ".")
	var walk func(v any, i int)
	walk = func(v any, i int) {
		if i == len(parts) {
			if arr, ok := v.(bson.A); ok {
				isArray = true
				if len(arr) == 0 {
					vals = append(vals, bson.Undefined{})
				}
				vals = append(vals, arr...)
				return
			}
			vals = append(vals, v)
			return
		}
		switch x := v.(type) {
		case bson.D:
			if fv, ok := document.Get(x, parts[i]); ok {
				walk(fv, i+1)
			}
		case bson.A:
			isArray = true
			if n, err := strconv.Atoi(parts[i]); err == nil && n >= 0 {
				if n < len(x) {
					walk(x[n], i+1)
				}
				return
			}
			for _, el := range x {
				if sd, ok := el.(bson.D); ok {
					if fv, ok := document.Get(sd, parts[i]); ok {
						walk(fv, i+1)
					}
				}
			}
		}
	}
	walk(d, 0)
	return vals, isArray
}

// Field is one field of an index key pattern.
type Field struct {
	Path   string // the field's dotted path
	Desc   bool   // the field's direction is descending (a negative number)
	Hashed bool   // the field is "hashed": keyed by document.HashedKey of its value
}

// Fields returns the fields of key pattern key, in order.
func Fields(key bson.D) []Field {
	out := make([]Field, len(key))
	for i, e := range key {
		out[i] = Field{Path: e.Key, Desc: negative(e.Value), Hashed: e.Value == Hashed}
	}
	return out
}

// Hashed is the value of a hashed field in an index key pattern
// ({a: "hashed"}).
const Hashed = "hashed"

// codeCannotHashArrays is MongoDB's code for an array on the path of a
// hashed index's field.
const codeCannotHashArrays = document.Code(16766)

// hashedValue returns the key value of a hashed field of d at path: the
// hash of its value (of null when it is missing), under coll when not
// nil. An array anywhere on the path is an error, as in MongoDB.
func hashedValue(d bson.D, path string, coll *collation.Collator) (any, error) {
	var v any = d
	rest := path
	for v != nil {
		sub, ok := v.(bson.D)
		if !ok {
			v = nil // a scalar on the way: the field is missing
			break
		}
		part, tail, more := strings.Cut(rest, ".")
		fv, found := document.Get(sub, part)
		if !found {
			v = nil
			break
		}
		if _, isArr := fv.(bson.A); isArr {
			at := path[:len(path)-len(rest)] + part
			return nil, document.Errorf(codeCannotHashArrays,
				"Error: hashed indexes do not currently support array values. Found array at path: %s", at)
		}
		v = fv
		if !more {
			break
		}
		rest = tail
	}
	if coll != nil && v != nil {
		v = coll.KeyValue(v)
	}
	return document.HashedKey(v), nil
}

// negative reports whether a key pattern's value is a number below
// zero; anything else (a string such as "hashed") is ascending.
func negative(v any) bool {
	switch n := v.(type) {
	case int32:
		return n < 0
	case int64:
		return n < 0
	case int:
		return n < 0
	case float64:
		return n < 0
	case bson.Decimal128:
		// Out of float64's range it rounds to an infinity or a zero of
		// its sign, which orders it the same; NaN is not negative.
		f, _ := strconv.ParseFloat(n.String(), 64)
		return f < 0
	}
	return false
}

// Of returns the distinct keystrings d has in ix, and whether the
// document made the index multikey. A document excluded by a sparse or
// partial index has no keys. Two array fields in one compound key are
// MongoDB's CannotIndexParallelArrays (171).
func Of(ix *catalog.Index, d bson.D) (keys [][]byte, multikey bool, err error) {
	if ix.PartialFilter != nil && !ix.PartialFilter.Match(d) {
		return nil, false, nil
	}
	if IsWildcard(ix.Key) {
		return wildcardKeys(ix, d)
	}
	if len(ix.Key) == 1 && strings.IndexByte(ix.Key[0].Key, '.') < 0 && ix.Key[0].Value != Hashed {
		// One top-level field, the common case (every insert keys its
		// _id and a TTL index its date): what the general code below
		// does when the value is not an array, in one allocation.
		if v, ok := document.Get(d, ix.Key[0].Key); !(ok && isArray(v)) {
			if !ok && ix.Sparse {
				return nil, false, nil
			}
			if coll := ix.Collator(); coll != nil && ok {
				v = coll.KeyValue(v)
			}
			one := new(oneKey)
			one.keys[0] = lsm.AppendKey(one.buf[:0], v, negative(ix.Key[0].Value))
			return one.keys[:], false, nil
		}
	}
	return ofFields(ix, d)
}

// ofFields is Of for any key pattern, past the partial filter.
func ofFields(ix *catalog.Index, d bson.D) (keys [][]byte, multikey bool, err error) {
	fields := Fields(ix.Key)
	perField := make([][]any, len(fields))
	arrayField := -1
	allMissing := true
	coll := ix.Collator() // a collated index keys strings by their collation keys
	for i, f := range fields {
		if f.Hashed {
			if present, _ := PathValues(d, f.Path); len(present) > 0 {
				allMissing = false
			}
			h, err := hashedValue(d, f.Path, coll)
			if err != nil {
				return nil, false, err
			}
			perField[i] = []any{h}
			continue
		}
		vals, isArr := PathValues(d, f.Path)
		if coll != nil {
			for j, v := range vals {
				vals[j] = coll.KeyValue(v)
			}
		}
		if len(vals) == 0 {
			vals = []any{nil}
		} else {
			allMissing = false
		}
		if isArr {
			if arrayField >= 0 {
				return nil, false, document.Errorf(codeCannotIndexParallelArrays,
					"cannot index parallel arrays [%s] [%s]", f.Path, fields[arrayField].Path)
			}
			arrayField = i
			multikey = true
		}
		perField[i] = vals
	}
	if ix.Sparse && allMissing {
		return nil, false, nil
	}
	// Cross product: at most one field has several values.
	var prefix []byte
	if arrayField < 0 {
		for i, f := range fields {
			prefix = lsm.AppendKey(prefix, perField[i][0], f.Desc)
		}
		return [][]byte{prefix}, false, nil
	}
	seen := map[string]bool{}
	for _, v := range perField[arrayField] {
		var k []byte
		for i, f := range fields {
			val := perField[i][0]
			if i == arrayField {
				val = v
			}
			k = lsm.AppendKey(k, val, f.Desc)
		}
		if !seen[string(k)] {
			seen[string(k)] = true
			keys = append(keys, k)
		}
	}
	return keys, multikey, nil
}

// oneKey holds the result of Of for a document with one key: the
// slice of keys and, when it fits, the key's bytes.
type oneKey struct {
	keys [1][]byte
	buf  [24]byte
}

// isArray reports whether v is an array (its elements are keyed).
func isArray(v any) bool {
	_, ok := v.(bson.A)
	return ok
}

// Value rebuilds the key document {field: value} of d for ix, as a
// DuplicateKey error's keyValue shows it.
func Value(ix *catalog.Index, d bson.D) bson.D {
	out := bson.D{}
	for _, f := range Fields(ix.Key) {
		vals, _ := PathValues(d, f.Path)
		var v any
		if len(vals) > 0 {
			v = vals[0]
		}
		out = append(out, bson.E{Key: f.Path, Value: v})
	}
	return out
}
