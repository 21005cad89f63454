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
	if IsText(ix.Key) {
		return textKeys(ix, d)
	}
	if IsGeo(ix.Key) {
		return geoKeys(ix, d)
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
	coll := ix.Collator() // a collated index keys strings by their collation keys
	if k, ok, err := scalarKey(ix, fields, d, coll); ok || err != nil {
		if k == nil {
			return nil, false, err
		}
		return [][]byte{k}, false, nil
	}
	return walkedKeys(ix, fields, d, coll)
}

// walkedKeys is ofFields by keyWalker, for a document that meets arrays
// on the fields' paths.
func walkedKeys(ix *catalog.Index, fields []Field, d bson.D, coll *collation.Collator) (keys [][]byte, multikey bool, err error) {
	cur := make([]any, len(fields))
	hashedMissing := make([]bool, len(fields))
	rem := make([][]string, len(fields))
	var idx []int
	for i, f := range fields {
		if f.Hashed {
			present, _ := PathValues(d, f.Path)
			h, err := hashedValue(d, f.Path, coll)
			if err != nil {
				return nil, false, err
			}
			cur[i], hashedMissing[i] = h, len(present) == 0
			continue
		}
		rem[i] = strings.Split(f.Path, ".")
		idx = append(idx, i)
	}
	w := keyWalker{fields: fields}
	if err := w.walk(d, idx, rem, cur); err != nil {
		return nil, false, err
	}
	var seen map[string]bool
	if len(w.out) > 1 {
		seen = make(map[string]bool, len(w.out))
	}
	for _, t := range w.out {
		if ix.Sparse {
			// A sparse index leaves out a key that only missing fields
			// made.
			onlyMissing := true
			for i, v := range t {
				if fields[i].Hashed {
					onlyMissing = onlyMissing && hashedMissing[i]
				} else if _, m := v.(missingValue); !m {
					onlyMissing = false
				}
			}
			if onlyMissing {
				continue
			}
		}
		var k []byte
		for i, f := range fields {
			v := t[i]
			if _, m := v.(missingValue); m {
				v = nil
			} else if coll != nil && !f.Hashed {
				v = coll.KeyValue(v)
			}
			k = lsm.AppendKey(k, v, f.Desc)
		}
		if seen != nil {
			if seen[string(k)] {
				continue
			}
			seen[string(k)] = true
		}
		keys = append(keys, k)
	}
	return keys, w.multikey && len(keys) > 0, nil
}

// scalarKey is ofFields for a document that meets no array on the
// fields' paths, the common case: its one key (nil when a sparse index
// leaves it out), and ok. ok is false when an array is met.
func scalarKey(ix *catalog.Index, fields []Field, d bson.D, coll *collation.Collator) (key []byte, ok bool, err error) {
	var buf [4]any
	vals := buf[:0]
	allMissing := true
	for _, f := range fields {
		if f.Hashed {
			if present, _ := PathValues(d, f.Path); len(present) > 0 {
				allMissing = false
			}
			h, err := hashedValue(d, f.Path, coll)
			if err != nil {
				return nil, true, err
			}
			vals = append(vals, h)
			continue
		}
		v, found, arr := scalarAt(d, f.Path)
		if arr {
			return nil, false, nil
		}
		if found {
			allMissing = false
			if coll != nil {
				v = coll.KeyValue(v)
			}
		}
		vals = append(vals, v)
	}
	if ix.Sparse && allMissing {
		return nil, true, nil
	}
	for i, f := range fields {
		key = lsm.AppendKey(key, vals[i], f.Desc)
	}
	return key, true, nil
}

// ScalarAt returns the value at path in d, following documents: found
// is false when the path ends early (a missing field, a scalar on the
// way), arr is true when it meets an array (then v and found say
// nothing).
func ScalarAt(d bson.D, path string) (v any, found, arr bool) { return scalarAt(d, path) }

func scalarAt(d bson.D, path string) (v any, found, arr bool) {
	var cur any = d
	rest := path
	for {
		part, tail, more := strings.Cut(rest, ".")
		sub, isDoc := cur.(bson.D)
		if !isDoc {
			return nil, false, false
		}
		fv, ok := document.Get(sub, part)
		if !ok {
			return nil, false, false
		}
		if isArray(fv) {
			return nil, false, true
		}
		if !more {
			return fv, true, false
		}
		cur, rest = fv, tail
	}
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

// MultikeyFields returns the fields of ix's key (bit i for field i) on
// whose paths d meets an array: every field for a wildcard, text or geo
// index, whose keys are not one value a field.
func MultikeyFields(ix *catalog.Index, d bson.D) uint64 {
	if IsWildcard(ix.Key) || IsText(ix.Key) || IsGeo(ix.Key) {
		return catalog.AllFields
	}
	var out uint64
	for i, f := range ix.Key {
		if i >= 64 {
			return catalog.AllFields
		}
		if _, arr := PathValues(d, f.Key); arr {
			out |= 1 << uint(i)
		}
	}
	return out
}
