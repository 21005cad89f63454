package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// BenchmarkTypeBitsInsert is what an insert adds per index entry for
// type bits, on the steady-state benchmark's document: nothing past a
// byte compare for its TTL index's date, the codes of its int64 _id
// (built in the transaction's value block, as writeCtx.typeBits does).
func BenchmarkTypeBitsInsert(b *testing.B) {
	m := &catalog.Coll{Kind: catalog.KindNormal, Name: "docs"}
	d := bson.D{{Key: "_id", Value: int64(12345)}, {Key: "n", Value: int64(7)}, {Key: "exp", Value: bson.DateTime(1700000000000)},
		{Key: "name", Value: "user-12345"}, {Key: "pad", Value: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}
	for _, c := range []struct {
		name string
		key  bson.D
	}{{"ttl-date", bson.D{{Key: "exp", Value: int32(1)}}}, {"int64-id", bson.D{{Key: "_id", Value: int32(1)}}}} {
		ix := &catalog.Index{Key: c.key}
		ix.TypeBits = typedIndex(m, ix)
		keys, _, _ := indexkey.Of(ix, d)
		k := keys[0]
		b.Run(c.name, func(b *testing.B) {
			vals := make([]byte, 0, 4<<10)
			b.ReportAllocs()
			for range b.N {
				if ix.TypeBits && mayNeedTypeBits(ix, k) && keepsTypeBits(m, ix) {
					if len(vals) > 3<<10 {
						vals = vals[:0]
					}
					vals, _ = appendTypeBits(vals, ix, d)
				}
			}
		})
	}
}
