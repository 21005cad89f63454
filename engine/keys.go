package engine

import (
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// codeCannotIndexParallelArrays is MongoDB's code for a compound key
// over two array fields of one document.
const codeCannotIndexParallelArrays = document.Code(171)

// pathValues returns the values an index on path holds for d, as
// MongoDB's key generator does: arrays along the path are traversed,
// a final array contributes each element (an empty one contributes
// undefined), a missing field contributes nothing. isArray reports
// whether an array was met.
func pathValues(d bson.D, path string) (vals []any, isArray bool) {
	if strings.IndexByte(path, '.') < 0 {
		// A top-level field, the common case: what the walk below does
		// for one part, without splitting the path.
		v, ok := get(d, path)
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
			if fv, ok := get(x, parts[i]); ok {
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
					if fv, ok := get(sd, parts[i]); ok {
						walk(fv, i+1)
					}
				}
			}
		}
	}
	walk(d, 0)
	return vals, isArray
}

// keyField is one field of an index key pattern.
type keyField struct {
	path string
	desc bool
}

func keyFields(key bson.D) []keyField {
	out := make([]keyField, len(key))
	for i, e := range key {
		f, _ := asFloat(e.Value)
		out[i] = keyField{path: e.Key, desc: f < 0}
	}
	return out
}

// indexKeys returns the distinct keystrings d has in ix, and whether
// the document made the index multikey. A document excluded by a
// sparse or partial index has no keys.
func indexKeys(ix *indexMeta, d bson.D) (keys [][]byte, multikey bool, err error) {
	if ix.partial != nil && !ix.partial.Match(d) {
		return nil, false, nil
	}
	fields := keyFields(ix.Key)
	perField := make([][]any, len(fields))
	arrayField := -1
	allMissing := true
	coll := ix.collator() // a collated index keys strings by their collation keys
	for i, f := range fields {
		vals, isArr := pathValues(d, f.path)
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
					"cannot index parallel arrays [%s] [%s]", f.path, fields[arrayField].path)
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
			prefix = lsm.AppendKey(prefix, perField[i][0], f.desc)
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
			k = lsm.AppendKey(k, val, f.desc)
		}
		if !seen[string(k)] {
			seen[string(k)] = true
			keys = append(keys, k)
		}
	}
	return keys, multikey, nil
}

// keyValue rebuilds the key document {field: value} of d for ix, for
// DuplicateKey errors.
func keyValue(ix *indexMeta, d bson.D) bson.D {
	out := bson.D{}
	for _, f := range keyFields(ix.Key) {
		vals, _ := pathValues(d, f.path)
		var v any
		if len(vals) > 0 {
			v = vals[0]
		}
		out = append(out, bson.E{Key: f.path, Value: v})
	}
	return out
}
