package document

import (
	"math"
	"reflect"
	"slices"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Normalize turns a caller's document into a canonical bson.D: nested
// documents become bson.D, arrays bson.A, null nil, and every scalar one
// of the canonical types listed in the package comment. It accepts bson.D,
// bson.M, map[string]T, bson.Raw, a struct with bson tags, or anything
// else bson.Marshal accepts as a document, and converts values the way the
// official driver encodes them: a Go int becomes int32 if it fits, else
// int64; int8, int16, uint8 and uint16 become int32; uint32 becomes int64;
// uint64 and uint become int64 or fail if too large; float32 becomes
// float64; time.Time becomes a DateTime truncated to milliseconds; []byte
// becomes binary subtype 0; other slices and arrays become bson.A; a nil
// slice (bson.D and bson.A included), map or pointer becomes null.
//
// Unlike the driver, Normalize orders the fields of a Go map by key, so
// the result is deterministic.
//
// A bson.D whose values are already canonical is returned as is, without
// copying (the insert fast path); otherwise only the parts that change
// are copied. Normalize returns an error with CodeBadValue for a value the
// driver cannot encode, and CodeOverflow for nesting deeper than
// MaxReadDepth (which also stops cyclic values).
func Normalize(v any) (bson.D, error) {
	switch x := v.(type) {
	case bson.D:
		return normDoc(x, 1)
	case bson.M:
		return normMap(x, 1)
	case map[string]any:
		return normMap(x, 1)
	case bson.Raw:
		return rawToDoc(x)
	case nil:
		return nil, Errorf(CodeBadValue, "cannot use null as a document")
	}
	b, err := bson.Marshal(v)
	if err != nil {
		return nil, Errorf(CodeBadValue, "cannot convert %T to a document: %v", v, err)
	}
	return rawToDoc(b)
}

// NormalizeValue is Normalize for a single value of any kind: it returns
// the canonical form of v (a document becomes bson.D, bson.Null nil, and
// so on) or an error with CodeBadValue.
func NormalizeValue(v any) (any, error) {
	return normValue(v, 0)
}

func rawToDoc(b bson.Raw) (bson.D, error) {
	var d bson.D
	if err := bson.Unmarshal(b, &d); err != nil {
		return nil, Errorf(CodeBadValue, "invalid BSON document: %v", err)
	}
	if d == nil {
		d = bson.D{}
	}
	return normDoc(d, 1)
}

func overflow() error {
	return Errorf(CodeOverflow, "value exceeds %d levels of nesting", MaxReadDepth)
}

// normDoc normalises d, copying it only when some value changes.
func normDoc(d bson.D, depth int) (bson.D, error) {
	if depth > MaxReadDepth {
		return nil, overflow()
	}
	var out bson.D
	for i := range d {
		nv, changed, err := normChild(d[i].Value, depth)
		if err != nil {
			return nil, err
		}
		if out == nil && changed {
			out = make(bson.D, len(d))
			copy(out, d[:i])
		}
		if out != nil {
			out[i] = bson.E{Key: d[i].Key, Value: nv}
		}
	}
	if out == nil {
		if d == nil {
			return bson.D{}, nil
		}
		return d, nil
	}
	return out, nil
}

func normArray(a bson.A, depth int) (bson.A, error) {
	if depth > MaxReadDepth {
		return nil, overflow()
	}
	var out bson.A
	for i := range a {
		nv, changed, err := normChild(a[i], depth)
		if err != nil {
			return nil, err
		}
		if out == nil && changed {
			out = make(bson.A, len(a))
			copy(out, a[:i])
		}
		if out != nil {
			out[i] = nv
		}
	}
	if out == nil {
		return a, nil
	}
	return out, nil
}

// normChild normalises a value inside a container at level depth and
// reports whether it changed. An unchanged document or array is returned
// as the original interface value, so the fast path allocates nothing.
func normChild(v any, depth int) (any, bool, error) {
	switch x := v.(type) {
	case nil, float64, string, int32, int64, bool, bson.DateTime, bson.ObjectID, bson.Binary,
		bson.Decimal128, bson.Timestamp, bson.Undefined, bson.Regex, bson.DBPointer,
		bson.JavaScript, bson.Symbol, bson.MinKey, bson.MaxKey:
		return v, false, nil
	case bson.D:
		if x == nil {
			return nil, true, nil // the driver encodes a nil bson.D as null
		}
		nd, err := normDoc(x, depth+1)
		if err != nil {
			return nil, false, err
		}
		if sameValue(nd, x) {
			return v, false, nil
		}
		return nd, true, nil
	case bson.A:
		if x == nil {
			return nil, true, nil // the driver encodes a nil bson.A as null
		}
		na, err := normArray(x, depth+1)
		if err != nil {
			return nil, false, err
		}
		if sameValue(na, x) {
			return v, false, nil
		}
		return na, true, nil
	}
	nv, err := normValue(v, depth)
	if err != nil {
		return nil, false, err
	}
	return nv, !sameValue(nv, v), nil
}

// sameValue reports whether normValue returned its input unchanged. Only
// documents and arrays can be returned as the same slice; scalars that
// normValue returns unchanged are canonical already.
func sameValue(nv, v any) bool {
	switch x := nv.(type) {
	case bson.D:
		y, ok := v.(bson.D)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0]) && (x == nil) == (y == nil)
	case bson.A:
		y, ok := v.(bson.A)
		return ok && len(x) == len(y) && (len(x) == 0 || &x[0] == &y[0]) && (x == nil) == (y == nil)
	case bson.CodeWithScope:
		y, ok := v.(bson.CodeWithScope)
		if !ok {
			return false
		}
		ys, ok := y.Scope.(bson.D)
		return ok && sameValue(x.Scope, ys)
	}
	return isCanonicalType(v) && reflect.TypeOf(nv) == reflect.TypeOf(v)
}

func normMap[T any](m map[string]T, depth int) (bson.D, error) {
	if m == nil {
		return nil, nil
	}
	if depth > MaxReadDepth {
		return nil, overflow()
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	out := make(bson.D, len(keys))
	for i, k := range keys {
		nv, err := normValue(m[k], depth)
		if err != nil {
			return nil, err
		}
		out[i] = bson.E{Key: k, Value: nv}
	}
	return out, nil
}

// normValue returns the canonical form of v, which sits inside a
// document at nesting level depth.
func normValue(v any, depth int) (any, error) {
	switch x := v.(type) {
	case nil, float64, string, bson.Undefined, bson.ObjectID, bool, bson.DateTime,
		bson.Regex, bson.DBPointer, bson.JavaScript, bson.Symbol, int32, bson.Timestamp,
		int64, bson.Decimal128, bson.MinKey, bson.MaxKey, bson.Binary:
		return v, nil
	case bson.D:
		if x == nil {
			return nil, nil
		}
		return normDoc(x, depth+1)
	case bson.A:
		if x == nil {
			return nil, nil
		}
		return normArray(x, depth+1)
	case bson.Null:
		return nil, nil
	case int:
		return fitInt(int64(x)), nil
	case int8:
		return int32(x), nil
	case int16:
		return int32(x), nil
	case uint8:
		return int32(x), nil
	case uint16:
		return int32(x), nil
	case uint32:
		return int64(x), nil
	case uint64:
		if x > math.MaxInt64 {
			return nil, Errorf(CodeBadValue, "%d overflows int64", x)
		}
		return int64(x), nil
	case uint:
		if uint64(x) > math.MaxInt64 {
			return nil, Errorf(CodeBadValue, "%d overflows int64", x)
		}
		return int64(x), nil
	case float32:
		return float64(x), nil
	case time.Time:
		return bson.NewDateTimeFromTime(x), nil
	case bson.M:
		return nilIfNilDoc(normMap(x, depth+1))
	case map[string]any:
		return nilIfNilDoc(normMap(x, depth+1))
	case []any:
		if x == nil {
			return nil, nil
		}
		return normArray(bson.A(x), depth+1)
	case []byte:
		if x == nil {
			return nil, nil
		}
		return bson.Binary{Subtype: 0, Data: x}, nil
	case bson.CodeWithScope:
		var scope bson.D
		if x.Scope != nil {
			s, err := normValue(x.Scope, depth)
			if err != nil {
				return nil, err
			}
			d, ok := s.(bson.D)
			if !ok {
				return nil, Errorf(CodeBadValue, "code with scope: scope must be a document, not %T", x.Scope)
			}
			scope = d
		} else {
			scope = bson.D{}
		}
		if old, ok := x.Scope.(bson.D); ok && sameValue(scope, old) {
			return v, nil
		}
		return bson.CodeWithScope{Code: x.Code, Scope: scope}, nil
	case bson.Raw:
		d, err := rawToDoc(x)
		if err != nil {
			return nil, err
		}
		return d, nil
	}
	if depth > MaxReadDepth {
		return nil, overflow()
	}
	// Anything else goes through the driver: encode it as the only field
	// of a document and decode that back.
	b, err := bson.Marshal(bson.D{{Key: "v", Value: v}})
	if err != nil {
		return nil, Errorf(CodeBadValue, "cannot convert %T to BSON: %v", v, err)
	}
	var d bson.D
	if err := bson.Unmarshal(b, &d); err != nil || len(d) != 1 {
		return nil, Errorf(CodeBadValue, "cannot convert %T to BSON: %v", v, err)
	}
	switch d[0].Value.(type) {
	case bson.D, bson.A, bson.CodeWithScope:
		return normValue(d[0].Value, depth)
	}
	return d[0].Value, nil
}

func nilIfNilDoc(d bson.D, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, nil
	}
	return d, nil
}
