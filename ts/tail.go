package ts

import (
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Tails: the measurements a bucket gained since a given row, in a
// column layout, for the engine's delta records. EncodeTail writes
//
//	{n: <rows>, c: [[<field>, <rows>, [v, ...]], ...], m?: <metaPos>, o?: [[<row>, [rank, ...]], ...]}
//
// with the doc codec: n is the int32 number of rows (row numbers are
// relative to the first one); c has one entry per column of the bucket,
// in column order (a column without a value in the tail has empty rows
// and values), <rows> as in version-2 buckets (null when every row has
// a value); m is the meta field's rank, present when the bucket has a
// meta value, which the tail does not hold; o lists the explicit field
// order of rows not in rank order. Keeping every column, in order, keeps
// ranks equal to the bucket's, so DecodeTail gives back each
// measurement with the fields and field order it was added with. Field
// names are written once per column instead of once per measurement.

// EncodeTail returns the encoding of measurements from..Count()-1 (see
// above); from must be in 0..Count(). The error is only ever an
// encoding failure.
func (b *Bucket) EncodeTail(from int) ([]byte, error) { return b.AppendTail(nil, from) }

// AppendTail appends EncodeTail(from) to dst and returns the extended
// slice; on error dst's contents past its length are undefined.
func (b *Bucket) AppendTail(dst []byte, from int) ([]byte, error) {
	from = max(0, min(from, b.count))
	var orders int
	if len(b.orders) > 0 {
		for r := from; r < b.count; r++ {
			if _, ok := b.orders[r]; ok {
				orders++
			}
		}
	}
	fields := 2
	if b.HasMeta {
		fields++
	}
	if orders > 0 {
		fields++
	}
	dst = appendMapLen(dst, fields)
	dst = appendInt(append(dst, 0xa1, 'n'), int64(b.count-from))
	dst, err := b.appendColumns(append(dst, 0xa1, 'c'), from)
	if err != nil {
		return dst, err
	}
	if b.HasMeta {
		dst = appendInt(append(dst, 0xa1, 'm'), int64(b.metaRank))
	}
	if orders > 0 {
		dst = appendArrayLen(append(dst, 0xa1, 'o'), orders)
		for r := from; r < b.count; r++ {
			if order, ok := b.orders[r]; ok {
				dst = appendInt(append(dst, 0x92), int64(r-from))
				dst = appendArrayLen(dst, len(order))
				for _, rank := range order {
					dst = appendInt(dst, int64(rank))
				}
			}
		}
	}
	return dst, nil
}

// DecodeTail returns the measurements of an EncodeTail encoding of a
// bucket of a collection with options o, in order, each with its fields
// in the order it was added with. The meta field, when the bucket had
// one, is in its place with the value meta. A malformed encoding is an
// error with code 1 InternalError; DecodeTail never panics.
func DecodeTail(o Options, raw []byte, meta any) ([]bson.D, error) {
	d, err := document.Unmarshal(raw)
	if err != nil {
		return nil, tailBad("%v", err)
	}
	return DecodeTailDocument(o, d, meta)
}

// DecodeTailDocument is DecodeTail of an encoding already decoded with
// document.Unmarshal.
func DecodeTailDocument(o Options, d bson.D, meta any) ([]bson.D, error) {
	t := &Bucket{colIndex: map[string]int{}, timeCol: -1, Meta: meta}
	var cols bson.A
	var orders bson.A
	haveN, haveC := false, false
	seen := map[string]bool{}
	for _, e := range d {
		if seen[e.Key] {
			return nil, tailBad("field %q given twice", e.Key)
		}
		seen[e.Key] = true
		switch e.Key {
		case "n":
			n, ok := e.Value.(int32)
			if !ok || n < 0 || n > MaxBucketCount {
				return nil, tailBad("n is %v, not an int32 in 0..%d", e.Value, MaxBucketCount)
			}
			t.count, haveN = int(n), true
		case "c":
			a, ok := e.Value.(bson.A)
			if !ok {
				return nil, tailBad("c is %s, not an array", typeNameOf(e.Value))
			}
			cols, haveC = a, true
		case "m":
			if o.MetaField == "" {
				return nil, tailBad("m in a collection without metaField")
			}
			r, ok := e.Value.(int32)
			if !ok || r < 0 {
				return nil, tailBad("m is %v, not a non-negative int32", e.Value)
			}
			t.HasMeta, t.metaRank = true, int(r)
		case "o":
			a, ok := e.Value.(bson.A)
			if !ok {
				return nil, tailBad("o is %s, not an array", typeNameOf(e.Value))
			}
			orders = a
		default:
			return nil, tailBad("unknown field %q", e.Key)
		}
	}
	if !haveN || !haveC {
		return nil, tailBad("n or c missing")
	}
	for _, x := range cols {
		col, ok := x.(bson.A)
		if !ok || len(col) != 3 {
			return nil, tailBad("column is not [name, rows, values]")
		}
		name, ok1 := col[0].(string)
		vals, ok2 := col[2].(bson.A)
		_, dup := t.colIndex[name]
		if !ok1 || !ok2 || dup {
			return nil, tailBad("column has a bad or repeated name, or bad values")
		}
		if o.MetaField != "" && name == o.MetaField {
			return nil, tailBad("column holds the meta field %q", name)
		}
		t.colIndex[name] = len(t.cols)
		t.cols = append(t.cols, column{name: name})
		c := &t.cols[len(t.cols)-1]
		switch rows := col[1].(type) {
		case nil:
			if len(vals) != t.count {
				return nil, tailBad("column %q has %d values for %d rows", name, len(vals), t.count)
			}
			for r, v := range vals {
				c.set(r, v, t.count)
			}
		case bson.A:
			if len(rows) != len(vals) {
				return nil, tailBad("column %q has %d rows and %d values", name, len(rows), len(vals))
			}
			last := -1
			for i, rv := range rows {
				r, ok := rv.(int32)
				if !ok || int(r) <= last || int(r) >= t.count {
					return nil, tailBad("column %q has bad row %v", name, rv)
				}
				last = int(r)
				c.set(int(r), vals[i], t.count)
			}
		default:
			return nil, tailBad("column %q rows are %s", name, typeNameOf(col[1]))
		}
	}
	if t.HasMeta && t.metaRank > len(t.cols) {
		return nil, tailBad("m is %d, beyond %d columns", t.metaRank, len(t.cols))
	}
	nr := t.ranks()
	last := -1
	for _, x := range orders {
		e, ok := x.(bson.A)
		if !ok || len(e) != 2 {
			return nil, tailBad("order is not [row, ranks]")
		}
		r, ok1 := e[0].(int32)
		a, ok2 := e[1].(bson.A)
		if !ok1 || !ok2 || int(r) <= last || int(r) >= t.count {
			return nil, tailBad("order has a bad row %v", e[0])
		}
		last = int(r)
		present := 0
		for rank := 0; rank < nr; rank++ {
			if t.rankPresent(rank, int(r)) {
				present++
			}
		}
		if len(a) != present {
			return nil, tailBad("order of row %d lists %d fields, the row has %d", r, len(a), present)
		}
		order := make([]int32, len(a))
		used := make(map[int32]bool, len(a))
		for i, y := range a {
			rank, ok := y.(int32)
			if !ok || rank < 0 || int(rank) >= nr || used[rank] || !t.rankPresent(int(rank), int(r)) {
				return nil, tailBad("order of row %d has bad rank %v", r, y)
			}
			used[rank] = true
			order[i] = rank
		}
		if t.orders == nil {
			t.orders = map[int][]int32{}
		}
		t.orders[int(r)] = order
	}
	if t.count == 0 {
		return nil, nil
	}
	return t.measurements(o, 0), nil
}

func tailBad(format string, args ...any) error {
	return document.Errorf(document.CodeInternalError, "ts: malformed bucket tail: "+format, args...)
}
