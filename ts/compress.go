package ts

import (
	"bytes"
	"fmt"
	"sync"

	"github.com/klauspost/compress/zstd"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Compressed buckets (version 2).
//
// CompressedDocument stores a bucket like Document, except that
// control.version is 2 and data is one binary value:
//
//	data: BinData(ColumnsSubtype, zstd(<columns>))
//
// where <columns> is the doc codec's encoding of
//
//	{c: [[<field>, <rows>, [v, ...]], ...]}
//
// one entry per column in column order; <rows> is null when the column
// has a value in every row 0..count-1 (the values are then in row order),
// otherwise an array of the int32 row numbers that have one, increasing,
// aligned with the values. Dropping the per-value row keys of version 1
// and grouping each column's values is what lets a general-purpose
// compressor find the regularity of a series (a 1000-row bucket of four
// fields is ~50 KB in version 1 and ~5 KB here). control, meta and layout
// stay uncompressed so that indexes and bucket filters read them as in
// version 1.

// ColumnsSubtype is the binary subtype of a version-2 bucket's data
// (0x80, the first user-defined subtype).
const ColumnsSubtype byte = 0x80

// maxColumnsBytes bounds the decompressed size of a version-2 data
// value: far above what a bucket of MaxBucketBytes encodes to, it only
// stops a corrupt or hostile value from exhausting memory.
const maxColumnsBytes = 64 << 20

var (
	zstdOnce sync.Once
	zstdEnc  *zstd.Encoder
	zstdDec  *zstd.Decoder
	zstdErr  error
)

// codecs returns the shared zstd encoder and decoder; EncodeAll and
// DecodeAll are safe for concurrent use.
func codecs() (*zstd.Encoder, *zstd.Decoder, error) {
	zstdOnce.Do(func() {
		zstdEnc, zstdErr = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedFastest),
			zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true))
		if zstdErr != nil {
			return
		}
		zstdDec, zstdErr = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0),
			zstd.WithDecoderMaxMemory(maxColumnsBytes), zstd.WithDecoderMaxWindow(maxColumnsBytes))
	})
	return zstdEnc, zstdDec, zstdErr
}

// Compress returns src compressed with zstd, in the frame format
// Decompress reads.
func Compress(src []byte) ([]byte, error) {
	enc, _, err := codecs()
	if err != nil {
		return nil, fmt.Errorf("ts: zstd: %w", err)
	}
	return enc.EncodeAll(src, nil), nil
}

// Decompress is the inverse of Compress. It returns an error for
// anything Compress did not produce and for output beyond 64 MiB.
func Decompress(src []byte) ([]byte, error) {
	_, dec, err := codecs()
	if err != nil {
		return nil, fmt.Errorf("ts: zstd: %w", err)
	}
	out, err := dec.DecodeAll(src, nil)
	if err != nil {
		return nil, fmt.Errorf("ts: zstd: %w", err)
	}
	return out, nil
}

// CompressedDocument returns the version-2 stored form of the bucket
// (see above): Document with control.version 2 and the data columns
// compressed. DecodeBucket reads both versions and gives back the same
// bucket. The error is only ever an encoding failure.
func (b *Bucket) CompressedDocument(o Options) (bson.D, error) {
	bufp := encBufs.Get().(*[]byte)
	defer encBufs.Put(bufp)
	raw, err := b.appendColumns(append((*bufp)[:0], 0x81, 0xa1, 'c'), 0) // {c: ...}
	*bufp = raw[:0]
	if err != nil {
		return nil, err
	}
	enc, _, err := codecs()
	if err != nil {
		return nil, fmt.Errorf("ts: zstd: %w", err)
	}
	// Compressed into a recycled buffer too (EncodeAll would allocate
	// one as large as its input), then copied out at its size.
	zp := encBufs.Get().(*[]byte)
	defer encBufs.Put(zp)
	*zp = enc.EncodeAll(raw, (*zp)[:0])
	return b.document(o, 2, bson.Binary{Subtype: ColumnsSubtype, Data: bytes.Clone(*zp)}), nil
}

// expandColumns turns a version-2 data value back into version 1's
// data object, for decodeData to check and load.
func expandColumns(v any) (bson.D, error) {
	bin, ok := v.(bson.Binary)
	if !ok || bin.Subtype != ColumnsSubtype {
		return nil, malformed("version-2 data is %s, not binary subtype 0x80", typeNameOf(v))
	}
	raw, err := Decompress(bin.Data)
	if err != nil {
		return nil, malformed("version-2 data: %v", err)
	}
	d, err := document.Unmarshal(raw)
	if err != nil {
		return nil, malformed("version-2 data: %v", err)
	}
	if len(d) != 1 || d[0].Key != "c" {
		return nil, malformed("version-2 data is not {c: [...]}")
	}
	cols, ok := d[0].Value.(bson.A)
	if !ok {
		return nil, malformed("version-2 data.c is not an array")
	}
	data := make(bson.D, 0, len(cols))
	for _, x := range cols {
		col, ok := x.(bson.A)
		if !ok || len(col) != 3 {
			return nil, malformed("version-2 column is not [name, rows, values]")
		}
		name, ok1 := col[0].(string)
		vals, ok2 := col[2].(bson.A)
		if !ok1 || !ok2 {
			return nil, malformed("version-2 column has a bad name or values")
		}
		out := make(bson.D, 0, len(vals))
		switch rows := col[1].(type) {
		case nil:
			for r, v := range vals {
				out = append(out, bson.E{Key: rowKey(r), Value: v})
			}
		case bson.A:
			if len(rows) != len(vals) {
				return nil, malformed("version-2 column %q has %d rows and %d values", name, len(rows), len(vals))
			}
			for i, rv := range rows {
				r, ok := rv.(int32)
				if !ok || r < 0 || r >= MaxBucketCount {
					return nil, malformed("version-2 column %q has bad row %v", name, rv)
				}
				out = append(out, bson.E{Key: rowKey(int(r)), Value: vals[i]})
			}
		default:
			return nil, malformed("version-2 column %q rows are %s", name, typeNameOf(col[1]))
		}
		data = append(data, bson.E{Key: name, Value: out})
	}
	return data, nil
}

// Rows returns measurements from..Count()-1, as Measurements does (empty
// when from >= Count()).
func (b *Bucket) Rows(o Options, from int) []bson.D {
	if from < 0 {
		from = 0
	}
	if from >= b.count {
		return nil
	}
	return b.measurements(o, from)
}

// Append adds measurement m to the bucket without the span and size
// checks of Add: it is for rebuilding, from stored deltas, a bucket the
// Bucketer already filled (after a collMod the span may differ; size
// estimates of a decoded bucket may differ slightly from the Bucketer's).
// It still refuses, leaving the bucket unchanged, a measurement whose
// time is not a date or before MinTime, whose meta differs
// (ErrMetaMismatch), with a field twice (2 BadValue), or beyond
// MaxBucketCount (ErrNoFit).
func (b *Bucket) Append(o Options, m bson.D) error {
	t, hasMeta, err := b.admit(o, m)
	if err != nil {
		return err
	}
	if t < b.MinTime || b.count >= MaxBucketCount {
		return ErrNoFit
	}
	b.add(o, m, t, hasMeta, b.addedSize(o, m))
	return nil
}
