package ts

import (
	"bytes"
	"math"
	"math/rand"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// marshalColumns is the construction the column encodings replaced: the
// columns' rows from..count-1 as bson values, for document.Marshal.
func marshalColumns(b *Bucket, from int) bson.A {
	n := b.count - from
	cols := make(bson.A, 0, len(b.cols))
	for i := range b.cols {
		c := &b.cols[i]
		var tail []any
		var has []bool
		if from < len(c.vals) {
			tail, has = c.vals[from:], c.has[from:]
		}
		full := len(tail) == n
		for _, h := range has {
			full = full && h
		}
		var rows any
		vals := make(bson.A, 0, len(tail))
		if full {
			vals = append(vals, tail...)
		} else {
			rs := bson.A{}
			for r, v := range tail {
				if has[r] {
					rs = append(rs, int32(r))
					vals = append(vals, v)
				}
			}
			rows = rs
		}
		cols = append(cols, bson.A{c.name, rows, vals})
	}
	return cols
}

// marshalTail is the construction EncodeTail replaced.
func marshalTail(b *Bucket, from int) ([]byte, error) {
	d := bson.D{{Key: "n", Value: int32(b.count - from)}, {Key: "c", Value: marshalColumns(b, from)}}
	if b.HasMeta {
		d = append(d, bson.E{Key: "m", Value: int32(b.metaRank)})
	}
	var orders bson.A
	for r := from; r < b.count; r++ {
		if order, ok := b.orders[r]; ok {
			a := make(bson.A, len(order))
			for i, rank := range order {
				a[i] = rank
			}
			orders = append(orders, bson.A{int32(r - from), a})
		}
	}
	if orders != nil {
		d = append(d, bson.E{Key: "o", Value: orders})
	}
	return document.Marshal(d)
}

// The column encodings (cached per column, built without document.Marshal)
// are byte for byte what document.Marshal gives for the same values, for
// random buckets of every value type, with absent values and explicit
// field orders, encoded after every insert as a writer does (so the
// cache grows in steps), at every split point a writer uses.
func TestColumnEncodingMatchesMarshal(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(seed(t)))
	metas := []any{"a", int32(1), bson.D{{Key: "x", Value: int32(1)}}, bson.A{"q"}, nil}
	for _, od := range []bson.D{
		{{Key: "timeField", Value: "ts"}, {Key: "metaField", Value: "meta"}},
		{{Key: "timeField", Value: "ts"}},
	} {
		o := mustOptions(t, od)
		bk := NewBucketer(o)
		stored := map[*Bucket]int{}
		base := bson.DateTime(1_700_000_000_000)
		for i := 0; i < 2000; i++ {
			m := randMeasurement(r, o, base, metas)
			b, _, err := bk.Insert(m)
			if err != nil {
				t.Fatal(err)
			}
			if r.Intn(3) > 0 {
				continue // several measurements per "transaction"
			}
			from := stored[b]
			got, err := b.AppendTail([]byte("prefix"), from)
			if err != nil {
				t.Fatal(err)
			}
			want, err := marshalTail(b, from)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got[len("prefix"):], want) {
				t.Fatalf("tail from %d of %d:\n got %x\nwant %x", from, b.Count(), got[6:], want)
			}
			stored[b] = b.Count()
			if r.Intn(4) == 0 {
				checkColumnsMatch(t, b)
			}
		}
		for b := range stored {
			checkColumnsMatch(t, b)
		}
	}
}

// checkColumnsMatch compares CompressedDocument's data with document.Marshal
// of the old construction.
func checkColumnsMatch(t *testing.T, b *Bucket) {
	t.Helper()
	d, err := b.CompressedDocument(Options{TimeField: "ts"})
	if err != nil {
		t.Fatal(err)
	}
	var data bson.Binary
	for _, e := range d {
		if e.Key == "data" {
			data = e.Value.(bson.Binary)
		}
	}
	got, err := Decompress(data.Data)
	if err != nil {
		t.Fatal(err)
	}
	want, err := document.Marshal(bson.D{{Key: "c", Value: marshalColumns(b, 0)}})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("columns of %d rows:\n got %x\nwant %x", b.Count(), got, want)
	}
}

// The hand-written msgpack forms match document.MarshalValue at every size
// boundary of integers, strings and arrays.
func TestAppendValueBoundaries(t *testing.T) {
	t.Parallel()
	var vals []any
	for _, n := range []int64{0, 1, 31, 32, 127, 128, 255, 256, 65535, 65536, math.MaxInt32, -1, -31, -32, -33, -127, -128, -129, -32768, -32769, math.MinInt32} {
		if n >= math.MinInt32 && n <= math.MaxInt32 {
			vals = append(vals, int32(n))
		}
		vals = append(vals, n, n<<31, float64(n), bson.DateTime(n))
	}
	vals = append(vals, int64(math.MaxInt64), int64(math.MinInt64), math.NaN(), math.Copysign(0, -1), math.Inf(1),
		true, false, nil, bson.Null{}, bson.NewObjectID(), bson.ObjectID{})
	for _, n := range []int{0, 1, 31, 32, 255, 256, 65535, 65536} {
		vals = append(vals, strings.Repeat("é", n/2)+strings.Repeat("x", n%2))
		a := make(bson.A, n)
		for i := range a {
			a[i] = int32(i)
		}
		vals = append(vals, a)
	}
	for _, v := range vals {
		want, err := document.MarshalValue(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := appendValue([]byte{7}, v)
		if err != nil || !bytes.Equal(got[1:], want) {
			t.Fatalf("%T %.40v: got %x (%v), want %x", v, v, got, err, want)
		}
	}
	for _, n := range []int{0, 15, 16, 65535, 65536} {
		for _, f := range []func([]byte, int) []byte{appendArrayLen, appendMapLen, appendStrLen} {
			got := f(nil, n)
			var want []byte
			var err error
			switch {
			case bytes.Equal(f(nil, 0), appendArrayLen(nil, 0)):
				want, err = document.MarshalValue(make(bson.A, n))
				want = want[:len(want)-n]
			case bytes.Equal(f(nil, 0), appendMapLen(nil, 0)):
				want, err = document.MarshalValue(make(bson.D, n))
				want = want[:len(want)-2*n]
			default:
				want, err = document.MarshalValue(strings.Repeat("x", n))
				want = want[:len(want)-n]
			}
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("header of %d: got %x, want %x (%v)", n, got, want, err)
			}
		}
	}
}

// A value nested too deeply for the bucket encodings fails them as
// document.Marshal did (measurements are checked for storage first, with a
// lower limit, so the engine never meets one).
func TestColumnEncodingDepth(t *testing.T) {
	t.Parallel()
	o := Options{TimeField: "t", Granularity: GranularitySeconds, BucketMaxSpanSeconds: 3600, BucketRoundingSeconds: 60}
	var deep any = int32(1)
	for i := 0; i < document.MaxReadDepth; i++ {
		deep = bson.A{deep}
	}
	b := NewBucket(o, 0, nil, false)
	if err := b.Add(o, bson.D{{Key: "t", Value: bson.DateTime(0)}, {Key: "v", Value: int32(1)}}); err != nil {
		t.Fatal(err)
	}
	if _, err := b.EncodeTail(0); err != nil {
		t.Fatal(err)
	}
	if err := b.Add(o, bson.D{{Key: "t", Value: bson.DateTime(1)}, {Key: "v", Value: deep}}); err != nil {
		t.Fatal(err)
	}
	_, err := b.EncodeTail(0)
	_, want := marshalTail(b, 0)
	if err == nil || want == nil {
		t.Fatalf("EncodeTail of a too deep value: %v (document.Marshal: %v)", err, want)
	}
	if _, err := b.CompressedDocument(o); err == nil {
		t.Fatal("CompressedDocument of a too deep value succeeded")
	}
	if _, err := b.EncodeTail(0); err == nil {
		t.Fatal("EncodeTail again succeeded")
	}
	if raw, err := b.EncodeTail(1); err == nil {
		t.Fatalf("EncodeTail of the deep row alone: %x", raw)
	}
}
