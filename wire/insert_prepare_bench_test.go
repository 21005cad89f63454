package wire

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// BenchmarkInsertPrepare compares, for one document of the wire
// benchmarks' shape, the server's per-document work before an insert
// reaches the store: "decoded" is the path before the raw insert (the
// sequence document to bson.D, then the engine's Normalize,
// ValidateForStorage and Marshal), "raw" is document.AppendInsertBSON.
func BenchmarkInsertPrepare(b *testing.B) {
	raw, err := bson.Marshal(bson.D{{Key: "_id", Value: int32(12345)}, {Key: "n", Value: int32(12345)}, {Key: "s", Value: strings.Repeat("p", 100)}})
	if err != nil {
		b.Fatal(err)
	}
	b.Run("decoded", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; i < b.N; i++ {
			d, err := rawToD(raw)
			if err != nil {
				b.Fatal(err)
			}
			if d, err = document.Normalize(d); err != nil {
				b.Fatal(err)
			}
			if err := document.ValidateForStorage(d); err != nil {
				b.Fatal(err)
			}
			if _, err := document.Marshal(d); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("raw", func(b *testing.B) {
		b.ReportAllocs()
		buf := make([]byte, 0, 256)
		for i := 0; i < b.N; i++ {
			if _, _, err := document.AppendInsertBSON(buf[:0], raw, bson.NewObjectID); err != nil {
				b.Fatal(err)
			}
		}
	})
}
