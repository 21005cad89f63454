package benchmarks

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/changestream"
	"github.com/ttlkv/ttlkv/document"
)

// BenchmarkChangeStreamEncode: building an insert event's stored form
// for a ~200-byte document, the way it was first done (the whole event
// as one document given to the codec, which encodes the document again)
// and now (changestream.Change.Encode with the record's bytes, FullRaw).
// Same bytes out; CPU only, no store.
func BenchmarkChangeStreamEncode(b *testing.B) {
	d := makeDoc(12345, baseTime)
	raw, err := document.Marshal(d)
	mustNoErr(b, err, "marshal")
	key := bson.D{{Key: "_id", Value: d[0].Value}}
	b.Run("codec-wrapper", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			w := bson.D{{Key: "o", Value: "insert"}, {Key: "db", Value: "bench"}, {Key: "c", Value: "c"},
				{Key: "k", Value: key}, {Key: "f", Value: d}, {Key: "w", Value: bson.NewDateTimeFromTime(baseTime)}}
			if _, err := document.Marshal(w); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			c := changestream.Change{Op: changestream.Insert, DB: "bench", Coll: "c", DocumentKey: key, FullDocument: d, FullRaw: raw, WallTime: baseTime}
			if _, err := c.Encode(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkChangeStreamEncodeExpired: a TTL delete event with its
// pre-image from the record's bytes, as the reaper stages one per
// expired document. CPU only, no store.
func BenchmarkChangeStreamEncodeExpired(b *testing.B) {
	d := makeDoc(12345, baseTime)
	raw, err := document.Marshal(d)
	mustNoErr(b, err, "marshal")
	x := &changestream.Expiry{Index: "exp_1"}
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		c := changestream.Change{Op: changestream.Delete, DB: "bench", Coll: "c", DocumentKey: bson.D{{Key: "_id", Value: d[0].Value}}, BeforeRaw: raw, Expiry: x, WallTime: baseTime}
		if _, err := c.Encode(); err != nil {
			b.Fatal(err)
		}
	}
}
