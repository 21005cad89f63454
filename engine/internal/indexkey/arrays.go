package indexkey

import (
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// missingValue is a key value that no field gave: keyed as null, and
// left out by a sparse index when a key holds nothing else.
type missingValue struct{}

// keyWalker makes the value tuples of a compound key, one value a field,
// as MongoDB's key generator does:
//
//   - each field's path is followed through documents; a path that
//     ends, or meets a value that is neither a document nor an array,
//     gives that value or "missing";
//   - the fields that meet an array meet it at one path prefix (the same
//     array), or the document is refused with 171: two arrays in one
//     key are parallel arrays;
//   - the array's elements are taken one at a time, together for every
//     field through it: a field whose path ends at the array takes the
//     element itself (an empty array gives undefined), a field whose
//     path goes on continues into the element when it is a document and
//     is missing otherwise (an empty array: missing); inside the element
//     the same rules apply again, to those fields only.
//
// A path component of digits that meets an array takes the element at
// that position (a.0), alone; an array it reaches so is one value (an
// empty one undefined), not expanded.
//
// So {"a.b": 1, "a.c": 1} keys {a: [{b: 1}, {c: 2}]} as (1, null) and
// (null, 2), element by element, and {a: 1, b: 1} keys {a: [1, 2], b: 3}
// as (1, 3) and (2, 3).
type keyWalker struct {
	fields   []Field
	out      [][]any
	multikey bool
}

// walk sets cur's values for the fields idx, whose remaining path parts
// (rem, by field) start in document c, and emits every tuple.
func (w *keyWalker) walk(c bson.D, idx []int, rem [][]string, cur []any) error {
	var arr bson.A
	arrAt, arrField := "", -1
	var leaf, through []int
	var after [][]string // through fields' parts after the array, as through
	for _, i := range idx {
		parts := rem[i]
		var v any = c
		positional := false // v was reached by an array position (a.0)
		for j := 0; ; j++ {
			if a, ok := v.(bson.A); ok {
				if j < len(parts) && isPosition(parts[j]) {
					// a.0: that element, not each of them.
					if n, _ := strconv.Atoi(parts[j]); n < len(a) {
						v, positional = a[n], true
						continue
					}
					cur[i] = missingValue{}
					break
				}
				if j == len(parts) && positional {
					// An array reached by position is one value.
					if len(a) == 0 {
						cur[i] = bson.Undefined{}
					} else {
						cur[i] = a
					}
					break
				}
				at := strings.Join(parts[:j], ".")
				if arrField < 0 {
					arr, arrAt, arrField = a, at, i
				} else if at != arrAt {
					return document.Errorf(codeCannotIndexParallelArrays,
						"cannot index parallel arrays [%s] [%s]", w.fields[i].Path, w.fields[arrField].Path)
				}
				if j == len(parts) {
					leaf = append(leaf, i)
				} else {
					through = append(through, i)
					after = append(after, parts[j:])
				}
				break
			}
			if j == len(parts) {
				cur[i] = v
				break
			}
			sub, ok := v.(bson.D)
			if !ok {
				cur[i] = missingValue{}
				break
			}
			fv, found := document.Get(sub, parts[j])
			if !found {
				cur[i] = missingValue{}
				break
			}
			v, positional = fv, false
		}
	}
	if arrField < 0 {
		w.out = append(w.out, append([]any(nil), cur...))
		return nil
	}
	w.multikey = true
	if len(arr) == 0 {
		for _, i := range leaf {
			cur[i] = bson.Undefined{}
		}
		for _, i := range through {
			cur[i] = missingValue{}
		}
		w.out = append(w.out, append([]any(nil), cur...))
		return nil
	}
	var inner [][]string
	if len(through) > 0 {
		inner = make([][]string, len(rem))
		for k, i := range through {
			inner[i] = after[k]
		}
	}
	for _, e := range arr {
		for _, i := range leaf {
			cur[i] = e
		}
		if sub, ok := e.(bson.D); ok && len(through) > 0 {
			if err := w.walk(sub, through, inner, cur); err != nil {
				return err
			}
			continue
		}
		for _, i := range through {
			cur[i] = missingValue{}
		}
		w.out = append(w.out, append([]any(nil), cur...))
	}
	return nil
}

// isPosition reports whether a path component is all digits: an
// array position when it meets an array.
func isPosition(p string) bool {
	if p == "" {
		return false
	}
	for _, r := range p {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}
