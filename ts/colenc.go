package ts

import (
	"encoding/binary"
	"math"
	"sync"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Column encodings. CompressedDocument and EncodeTail write a column's
// values as the doc codec (msgpack) encodes them inside an array:
//
//	{c: [[<field>, <rows>, [v, ...]], ...], ...}
//
// A growing bucket is encoded again and again (a delta per insert, a
// new base at every fold), so each column keeps the encoding of its
// values, appended the first time an encoding needs them: encoding a
// bucket then copies each value's bytes instead of encoding it again,
// and the output is built directly, without the intermediate bson.A
// values document.Marshal would need. The bytes are exactly document.Marshal's
// (TestColumnEncodingMatchesMarshal checks it against the old
// construction), so the stored format is unchanged.

// colEnc is the cached encoding of a column's first rows values.
type colEnc struct {
	buf  []byte   // encodings of the present values of rows 0..rows-1, in row order
	ends []uint32 // ends[r]: where the encodings of rows 0..r end in buf
	rows int      // rows encoded
}

// encode extends c's cached encoding to every row it has (len(c.vals)).
// Composite values are encoded by document.Marshal at the depth they have in
// the bucket's encodings, so its nesting limit applies as before.
func (c *column) encode() error {
	e := &c.enc
	todo := len(c.vals) - e.rows
	if todo <= 0 {
		return nil
	}
	// The buffers follow the rows' capacity (see column.reserve) at the
	// size per row seen so far, rather than append's doubling.
	if cap(e.ends) < cap(c.vals) {
		ends := make([]uint32, len(e.ends), cap(c.vals))
		copy(ends, e.ends)
		e.ends = ends
	}
	per := 16
	if e.rows > 0 {
		per = len(e.buf)/e.rows + 1
	}
	if need := len(e.buf) + per*todo; need > cap(e.buf) {
		buf := make([]byte, len(e.buf), max(need, per*cap(c.vals)+64))
		copy(buf, e.buf)
		e.buf = buf
	}
	for r := e.rows; r < len(c.vals); r++ {
		if c.has[r] {
			buf, err := appendValue(e.buf, c.vals[r])
			if err != nil {
				return err // rows 0..r-1 stay encoded
			}
			e.buf = buf
		}
		e.ends = append(e.ends, uint32(len(e.buf)))
		e.rows = r + 1
	}
	return nil
}

// span returns the encoded values of rows from..len(c.vals)-1, after
// encode.
func (c *column) span(from int) []byte {
	switch {
	case from >= c.enc.rows:
		return nil
	case from == 0:
		return c.enc.buf
	}
	return c.enc.buf[c.enc.ends[from-1]:]
}

// colPrefix is document.Marshal's encoding of {c: [["", null, [ — what comes
// before a value v in the encoding of {c: [["", null, [v]]]}, which puts
// v at the depth column values have in both bucket encodings.
var colPrefix = []byte{0x81, 0xa1, 'c', 0x91, 0x93, 0xa0, 0xc0, 0x91}

// appendValue appends the doc codec's encoding of v, as an element of a
// column's values array, to dst.
func appendValue(dst []byte, v any) ([]byte, error) {
	switch x := v.(type) {
	case float64:
		return binary.BigEndian.AppendUint64(append(dst, 0xcb), math.Float64bits(x)), nil
	case int32:
		return appendInt(dst, int64(x)), nil
	case int64:
		return binary.BigEndian.AppendUint64(append(dst, 0xd3), uint64(x)), nil
	case bson.DateTime:
		// fixext 8, extension 1 (doc's extDateTime)
		return binary.BigEndian.AppendUint64(append(dst, 0xd7, 1), uint64(x)), nil
	case bson.ObjectID:
		// ext 8 of 12 bytes, extension 2 (doc's extObjectID)
		return append(append(dst, 0xc7, 12, 2), x[:]...), nil
	case string:
		return append(appendStrLen(dst, len(x)), x...), nil
	case bool:
		if x {
			return append(dst, 0xc3), nil
		}
		return append(dst, 0xc2), nil
	case nil:
		return append(dst, 0xc0), nil
	case bson.Null:
		return append(dst, 0xc0), nil
	}
	raw, err := document.Marshal(bson.D{{Key: "c", Value: bson.A{bson.A{"", nil, bson.A{v}}}}})
	if err != nil {
		return dst, err
	}
	return append(dst, raw[len(colPrefix):]...), nil
}

// appendInt appends msgpack's shortest form of n (the doc codec's int32
// encoding).
func appendInt(dst []byte, n int64) []byte {
	switch {
	case n >= 0 && n <= math.MaxInt8:
		return append(dst, byte(n))
	case n >= 0 && n <= math.MaxUint8:
		return append(dst, 0xcc, byte(n))
	case n >= 0 && n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(dst, 0xcd), uint16(n))
	case n >= 0 && n <= math.MaxUint32:
		return binary.BigEndian.AppendUint32(append(dst, 0xce), uint32(n))
	case n >= 0:
		return binary.BigEndian.AppendUint64(append(dst, 0xcf), uint64(n))
	case n >= -32:
		return append(dst, byte(n))
	case n >= math.MinInt8:
		return append(dst, 0xd0, byte(n))
	case n >= math.MinInt16:
		return binary.BigEndian.AppendUint16(append(dst, 0xd1), uint16(n))
	case n >= math.MinInt32:
		return binary.BigEndian.AppendUint32(append(dst, 0xd2), uint32(n))
	}
	return binary.BigEndian.AppendUint64(append(dst, 0xd3), uint64(n))
}

// appendStrLen appends a msgpack string header.
func appendStrLen(dst []byte, n int) []byte {
	switch {
	case n < 32:
		return append(dst, 0xa0|byte(n))
	case n < 256:
		return append(dst, 0xd9, byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(dst, 0xda), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(dst, 0xdb), uint32(n))
}

// appendArrayLen appends a msgpack array header.
func appendArrayLen(dst []byte, n int) []byte {
	switch {
	case n < 16:
		return append(dst, 0x90|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(dst, 0xdc), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(dst, 0xdd), uint32(n))
}

// appendMapLen appends a msgpack map header.
func appendMapLen(dst []byte, n int) []byte {
	switch {
	case n < 16:
		return append(dst, 0x80|byte(n))
	case n <= math.MaxUint16:
		return binary.BigEndian.AppendUint16(append(dst, 0xde), uint16(n))
	}
	return binary.BigEndian.AppendUint32(append(dst, 0xdf), uint32(n))
}

// appendColumns appends the encoding of the columns' rows from..count-1
// as the array c of both encodings: [[<field>, <rows>, [v, ...]], ...],
// with row numbers relative to from. Every column is listed, in column
// order; <rows> is null when the column has a value in every row of the
// range, else an array of the rows that have one.
func (b *Bucket) appendColumns(dst []byte, from int) ([]byte, error) {
	n := b.count - from
	dst = appendArrayLen(dst, len(b.cols))
	for i := range b.cols {
		c := &b.cols[i]
		if err := c.encode(); err != nil {
			return dst, err
		}
		dst = append(appendStrLen(append(dst, 0x93), len(c.name)), c.name...)
		has := c.has[min(from, len(c.has)):]
		present := 0
		for _, h := range has {
			if h {
				present++
			}
		}
		if present == n {
			dst = append(dst, 0xc0)
		} else {
			dst = appendArrayLen(dst, present)
			for r, h := range has {
				if h {
					dst = appendInt(dst, int64(r))
				}
			}
		}
		dst = append(appendArrayLen(dst, present), c.span(from)...)
	}
	return dst, nil
}

// encBufs recycles the buffers encodings are built in before they are
// compressed.
var encBufs = sync.Pool{New: func() any { return new([]byte) }}
