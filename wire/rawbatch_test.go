package wire

import (
	"bytes"
	"context"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestFastBSONRawDocuments: a bson.Raw in a reply (engine.DB.RunCommandRaw's
// batches) is written as the embedded document it encodes, and
// document.Size counts it, so the reply is the one bson.Marshal gives
// for the same batch of bson.D.
func TestFastBSONRawDocuments(t *testing.T) {
	t.Parallel()
	d := richDoc()
	raw, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	reply := func(doc any) bson.D {
		return bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(0)}, {Key: "ns", Value: "a.b"},
			{Key: "firstBatch", Value: bson.A{doc, doc}}}}, {Key: "ok", Value: 1.0}}
	}
	want, err := bson.Marshal(reply(d))
	if err != nil {
		t.Fatal(err)
	}
	got, err := marshalD(reply(bson.Raw(raw)))
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("a reply of bson.Raw documents: %v\n got %x\nwant %x", err, got, want)
	}
	if n := document.Size(reply(bson.Raw(raw))); n != len(want) {
		t.Fatalf("document.Size = %d, want %d", n, len(want))
	}
	if n := largestDoc(bson.A{bson.Raw(raw)}); n != len(raw) {
		t.Fatalf("largestDoc = %d, want %d", n, len(raw))
	}
}

// TestDriverFindRawBatches reads documents of every type through the
// driver with finds the engine answers from stored bytes (no filter,
// projections of whole fields, getMore with and without batchSize) and
// with finds it decodes, and compares each with the embedded API's.
func TestDriverFindRawBatches(t *testing.T) {
	t.Parallel()
	transports(t, func(t *testing.T, inproc bool) {
		e := newEnv(t, Options{})
		ctx := context.Background()
		coll := e.client(t, inproc).Database("app").Collection("things")
		docs := make([]any, 300)
		for i := range docs {
			d := richDoc()
			d[0].Value = int32(i)
			docs[i] = d
		}
		if _, err := coll.InsertMany(ctx, docs); err != nil {
			t.Fatal(err)
		}
		embedded := e.db.Database("app").Collection("things")
		for _, tc := range []struct {
			name   string
			filter bson.D
			opts   *options.FindOptionsBuilder
			eo     engine.FindOptions
		}{
			{"all", bson.D{}, options.Find(), engine.FindOptions{}},
			{"batches of 7", bson.D{}, options.Find().SetBatchSize(7), engine.FindOptions{}},
			{"_id only", bson.D{}, options.Find().SetProjection(bson.D{{Key: "_id", Value: 1}}),
				engine.FindOptions{Projection: bson.D{{Key: "_id", Value: 1}}}},
			{"exclusion", bson.D{}, options.Find().SetProjection(bson.D{{Key: "a", Value: 0}, {Key: "nan", Value: 0}}).SetSkip(5).SetLimit(200),
				engine.FindOptions{Projection: bson.D{{Key: "a", Value: 0}, {Key: "nan", Value: 0}}, Skip: 5, Limit: 200}},
			{"filtered", bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: 250}}}}, options.Find(), engine.FindOptions{}},
		} {
			cur, err := coll.Find(ctx, tc.filter, tc.opts)
			if err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			var got []bson.Raw
			for cur.Next(ctx) {
				got = append(got, append(bson.Raw(nil), cur.Current...))
			}
			if err := cur.Err(); err != nil {
				t.Fatalf("%s: %v", tc.name, err)
			}
			ecur, err := embedded.Find(ctx, tc.filter, tc.eo)
			if err != nil {
				t.Fatalf("%s: embedded: %v", tc.name, err)
			}
			want, err := ecur.All(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(want) || len(got) == 0 {
				t.Fatalf("%s: driver %d documents, embedded %d", tc.name, len(got), len(want))
			}
			for i := range got {
				wb, err := bson.Marshal(want[i])
				if err != nil {
					t.Fatal(err)
				}
				if !bytes.Equal(got[i], wb) {
					t.Fatalf("%s: document %d through the driver %v, embedded %v", tc.name, i, got[i], want[i])
				}
			}
		}
	})
}
