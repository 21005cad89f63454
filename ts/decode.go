package ts

import (
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// DecodeBucket is the inverse of Bucket.Document: it rebuilds a bucket
// from its stored form under options o. It checks the document's shape
// completely and returns an error (a *document.Error with code 1
// InternalError, since a bad bucket is corruption, not a user mistake)
// for anything Document would not produce: unknown or duplicate
// top-level fields, a missing _id, control, control.min.<timeField> or
// data, a version other than 1, a count outside 0..MaxBucketCount, row
// keys that are not increasing decimal row numbers below count, a row
// without a date in the time column or with a time before the min time,
// a meta value in a collection without metaField, a data column named
// like the metaField, or a layout that does not match the rows. It never
// panics.
//
// control.min and control.max other than the time min are recomputed
// from the data, so a bucket's control block always agrees with its
// measurements. The bucket shares values with d; the caller must not
// modify d afterwards.
func DecodeBucket(o Options, d bson.D) (*Bucket, error) {
	b := &Bucket{colIndex: map[string]int{}, timeCol: -1}
	var control, data, layout bson.D
	var data0 any // data as stored
	var haveID, haveControl, haveData, haveLayout bool
	for _, e := range d {
		var dup bool
		switch e.Key {
		case "_id":
			id, ok := e.Value.(bson.ObjectID)
			if !ok {
				return nil, malformed("_id is %s, not an objectId", typeNameOf(e.Value))
			}
			dup, haveID, b.ID = haveID, true, id
		case "control":
			c, ok := e.Value.(bson.D)
			if !ok {
				return nil, malformed("control is %s, not an object", typeNameOf(e.Value))
			}
			dup, haveControl, control = haveControl, true, c
		case "meta":
			dup, b.HasMeta, b.Meta = b.HasMeta, true, e.Value
		case "data":
			// Version 2 keeps data as binary; its type is checked once
			// control.version is known.
			c, ok := e.Value.(bson.D)
			if !ok {
				if _, isBin := e.Value.(bson.Binary); !isBin {
					return nil, malformed("data is %s, not an object", typeNameOf(e.Value))
				}
			}
			dup, haveData, data, data0 = haveData, true, c, e.Value
		case "layout":
			c, ok := e.Value.(bson.D)
			if !ok {
				return nil, malformed("layout is %s, not an object", typeNameOf(e.Value))
			}
			dup, haveLayout, layout = haveLayout, true, c
		default:
			return nil, malformed("unknown field %q", e.Key)
		}
		if dup {
			return nil, malformed("field %q given twice", e.Key)
		}
	}
	switch {
	case !haveID:
		return nil, malformed("no _id")
	case !haveControl:
		return nil, malformed("no control")
	case !haveData:
		return nil, malformed("no data")
	case b.HasMeta && o.MetaField == "":
		return nil, malformed("meta in a collection without metaField")
	}
	if err := b.decodeControl(o, control); err != nil {
		return nil, err
	}
	if b.version == 2 {
		var err error
		if data, err = expandColumns(data0); err != nil {
			return nil, err
		}
	}
	if _, isBin := data0.(bson.Binary); b.version == 1 && isBin {
		return nil, malformed("version-1 data is binary")
	}
	if err := b.decodeData(o, data); err != nil {
		return nil, err
	}
	if err := b.decodeLayout(layout, haveLayout); err != nil {
		return nil, err
	}
	b.size = b.baseSize(o)
	for i := range b.cols {
		c := &b.cols[i]
		b.size += 2 + len(c.name) + 5 + 2*(2+len(c.name)+c.maxV)
		for r, v := range c.vals {
			if c.has[r] {
				b.size += 2 + len(rowKey(r)) + valueSize(v)
			}
		}
	}
	for r, ranks := range b.orders {
		b.size += layoutSize(r, ranks)
	}
	return b, nil
}

func (b *Bucket) decodeControl(o Options, control bson.D) error {
	var haveVersion, haveMin, haveMax, haveCount bool
	var min bson.D
	for _, e := range control {
		var dup bool
		switch e.Key {
		case "version":
			v, ok := e.Value.(int32)
			if !ok || (v != 1 && v != 2) {
				return malformed("control.version is %v, not int32 1 or 2", e.Value)
			}
			dup, haveVersion, b.version = haveVersion, true, int(v)
		case "min", "max":
			m, ok := e.Value.(bson.D)
			if !ok {
				return malformed("control.%s is %s, not an object", e.Key, typeNameOf(e.Value))
			}
			if e.Key == "min" {
				dup, haveMin, min = haveMin, true, m
			} else {
				dup, haveMax = haveMax, true
			}
		case "count":
			n, ok := e.Value.(int32)
			if !ok || n < 0 || n > MaxBucketCount {
				return malformed("control.count is %v, not an int32 in 0..%d", e.Value, MaxBucketCount)
			}
			dup, haveCount, b.count = haveCount, true, int(n)
		default:
			return malformed("unknown field control.%s", e.Key)
		}
		if dup {
			return malformed("field control.%s given twice", e.Key)
		}
	}
	if !haveVersion || !haveMin || !haveMax || !haveCount {
		return malformed("control lacks version, min, max or count")
	}
	v, ok := document.Get(min, o.TimeField)
	if !ok {
		return malformed("control.min has no time field %q", o.TimeField)
	}
	t, ok := v.(bson.DateTime)
	if !ok {
		return malformed("control.min.%s is %s, not a date", o.TimeField, typeNameOf(v))
	}
	b.MinTime, b.maxTime = t, t
	return nil
}

func (b *Bucket) decodeData(o Options, data bson.D) error {
	for _, e := range data {
		if _, ok := b.colIndex[e.Key]; ok {
			return malformed("data.%s given twice", e.Key)
		}
		if o.MetaField != "" && e.Key == o.MetaField {
			return malformed("data holds the meta field %q", e.Key)
		}
		vals, ok := e.Value.(bson.D)
		if !ok || len(vals) == 0 {
			return malformed("data.%s is not a non-empty object", e.Key)
		}
		ci := len(b.cols)
		b.cols = append(b.cols, column{name: e.Key})
		b.colIndex[e.Key] = ci
		c := &b.cols[ci]
		last := -1
		for _, ve := range vals {
			r, ok := parseRow(ve.Key)
			if !ok || r <= last || r >= b.count {
				return malformed("data.%s has row key %q out of order or beyond count %d", e.Key, ve.Key, b.count)
			}
			last = r
			c.set(r, ve.Value, b.count)
			if vs := valueSize(ve.Value); vs > c.maxV {
				c.maxV = vs
			}
		}
	}
	ci, ok := b.colIndex[o.TimeField]
	if !ok {
		if b.count > 0 {
			return malformed("data has no time column %q", o.TimeField)
		}
		return nil
	}
	b.timeCol = ci
	c := &b.cols[ci]
	for r := 0; r < b.count; r++ {
		v, ok := c.at(r)
		if !ok {
			return malformed("row %d has no time", r)
		}
		t, ok := v.(bson.DateTime)
		if !ok {
			return malformed("row %d time is %s, not a date", r, typeNameOf(v))
		}
		if t < b.MinTime {
			return malformed("row %d time %d is before the bucket min time %d", r, int64(t), int64(b.MinTime))
		}
		if r == 0 || t > b.maxTime {
			b.maxTime = t
		}
	}
	return nil
}

func (b *Bucket) decodeLayout(layout bson.D, haveLayout bool) error {
	var haveMetaPos, haveRows bool
	var rows bson.D
	for _, e := range layout {
		var dup bool
		switch e.Key {
		case "metaPos":
			n, ok := e.Value.(int32)
			if !ok || !b.HasMeta || n < 0 || int(n) > len(b.cols) {
				return malformed("layout.metaPos is %v: not an int32 in 0..%d, or the bucket has no meta", e.Value, len(b.cols))
			}
			dup, haveMetaPos, b.metaRank = haveMetaPos, true, int(n)
		case "rows":
			r, ok := e.Value.(bson.D)
			if !ok || len(r) == 0 {
				return malformed("layout.rows is not a non-empty object")
			}
			dup, haveRows, rows = haveRows, true, r
		default:
			return malformed("unknown field layout.%s", e.Key)
		}
		if dup {
			return malformed("field layout.%s given twice", e.Key)
		}
	}
	if b.HasMeta && !haveMetaPos {
		return malformed("a bucket with meta has no layout.metaPos")
	}
	if haveLayout && !haveMetaPos && !haveRows {
		return malformed("empty layout")
	}
	nr := b.ranks()
	last := -1
	for _, e := range rows {
		r, ok := parseRow(e.Key)
		if !ok || r <= last || r >= b.count {
			return malformed("layout.rows has row key %q out of order or beyond count %d", e.Key, b.count)
		}
		last = r
		a, ok := e.Value.(bson.A)
		if !ok {
			return malformed("layout.rows.%s is not an array", e.Key)
		}
		present := 0
		for rank := 0; rank < nr; rank++ {
			if b.rankPresent(rank, r) {
				present++
			}
		}
		if len(a) != present {
			return malformed("layout.rows.%s lists %d fields, the row has %d", e.Key, len(a), present)
		}
		order := make([]int32, len(a))
		used := make(map[int32]bool, len(a))
		for i, x := range a {
			rank, ok := x.(int32)
			if !ok || rank < 0 || int(rank) >= nr || used[rank] || !b.rankPresent(int(rank), r) {
				return malformed("layout.rows.%s has bad rank %v", e.Key, x)
			}
			used[rank] = true
			order[i] = rank
		}
		if b.orders == nil {
			b.orders = map[int][]int32{}
		}
		b.orders[r] = order
	}
	return nil
}

// rankPresent reports whether row r has the field of the given rank.
func (b *Bucket) rankPresent(rank, r int) bool {
	if b.HasMeta && rank == b.metaRank {
		return true
	}
	_, ok := b.cols[b.colOfRank(rank)].at(r)
	return ok
}

// parseRow parses a row key: a decimal number without sign or leading
// zeros, below 10000.
func parseRow(s string) (int, bool) {
	if s == "" || len(s) > 4 || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}
