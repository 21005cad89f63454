package document

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// benchDoc is a typical ~200-byte document: an id, a TTL date, a few
// scalars, a small nested document and array.
var benchDoc = bson.D{
	{Key: "_id", Value: bson.ObjectID{0x65, 0x1f, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9}},
	{Key: "createdAt", Value: bson.DateTime(1700000000000)},
	{Key: "user", Value: "alice@example.com"},
	{Key: "count", Value: int32(42)},
	{Key: "total", Value: int64(1234567890123)},
	{Key: "score", Value: 98.6},
	{Key: "active", Value: true},
	{Key: "session", Value: bson.D{{Key: "ip", Value: "192.0.2.10"}, {Key: "agent", Value: "Mozilla/5.0 (X11; Linux x86_64)"}}},
	{Key: "tags", Value: bson.A{"red", "green", "blue"}},
	{Key: "note", Value: nil},
}

func BenchmarkMarshal(b *testing.B) {
	b.ReportAllocs()
	var buf []byte
	var err error
	for b.Loop() {
		if buf, err = AppendMarshal(buf[:0], benchDoc); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(buf)))
	b.ReportMetric(float64(Size(benchDoc)), "bson-bytes")
}

func BenchmarkUnmarshal(b *testing.B) {
	enc, err := Marshal(benchDoc)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(enc)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Unmarshal(enc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBSONMarshal is the driver's BSON encoding of the same
// document, as a baseline.
func BenchmarkBSONMarshal(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := bson.Marshal(benchDoc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBSONUnmarshal(b *testing.B) {
	enc, err := bson.Marshal(benchDoc)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var d bson.D
		if err := bson.Unmarshal(enc, &d); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNormalizeCanonical is the insert fast path: a canonical
// bson.D is walked and returned without copying.
func BenchmarkNormalizeCanonical(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Normalize(benchDoc); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNormalizeGoInts is a document a Go caller writes with plain
// ints, which must be converted.
func BenchmarkNormalizeGoInts(b *testing.B) {
	d := bson.D{{Key: "a", Value: 1}, {Key: "b", Value: "x"}, {Key: "c", Value: bson.D{{Key: "d", Value: 2}}}}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Normalize(d); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCompareDocs(b *testing.B) {
	other := CloneDoc(benchDoc)
	other[len(other)-1].Value = int32(1)
	b.ReportAllocs()
	for b.Loop() {
		if Compare(benchDoc, other) >= 0 {
			b.Fatal("order")
		}
	}
}

func BenchmarkValidateForStorage(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if err := ValidateForStorage(benchDoc); err != nil {
			b.Fatal(err)
		}
	}
}
