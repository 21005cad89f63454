package indexkey

import (
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
		for j := 0; ; j++ {
			if a, ok := v.(bson.A); ok {
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
			v = fv
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

// hasNumericPart reports whether a path has a component that is all
// digits, which may index into an array positionally.
func hasNumericPart(path string) bool {
	for _, p := range strings.Split(path, ".") {
		if p == "" {
			continue
		}
		digits := true
		for _, r := range p {
			if r < '0' || r > '9' {
				digits = false
				break
			}
		}
		if digits {
			return true
		}
	}
	return false
}
