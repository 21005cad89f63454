package engine

import (
	"bytes"
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// followCursor runs cmd through run and follows its cursor to the end
// with getMores, batchSize 5 twice then none (none first when
// unsizedFirst), and returns every document of every batch and the
// number of batches.
func followCursor(t *testing.T, run func(bson.D) (bson.D, error), coll string, cmd bson.D, unsizedFirst bool) (bson.A, int) {
	t.Helper()
	reply, err := run(cmd)
	if err != nil {
		t.Fatalf("%v: %v", cmd, err)
	}
	var all bson.A
	batches := 0
	for i := 0; ; i++ {
		name := "cursor.firstBatch"
		if i > 0 {
			name = "cursor.nextBatch"
		}
		b, _ := document.Lookup(reply, name)
		batch, ok := b.(bson.A)
		if !ok {
			t.Fatalf("%v: reply without %s: %v", cmd, name, reply)
		}
		all = append(all, batch...)
		batches++
		v, _ := document.Lookup(reply, "cursor.id")
		id, _ := v.(int64)
		if id == 0 {
			return all, batches
		}
		gm := bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: coll}}
		sized := i%3 != 2
		if unsizedFirst {
			sized = i > 0
		}
		if sized {
			gm = append(gm, bson.E{Key: "batchSize", Value: int32(5)})
		}
		if reply, err = run(gm); err != nil {
			t.Fatalf("%v: %v", gm, err)
		}
	}
}

// TestRunCommandRawBatches runs finds through RunCommand and
// RunCommandRaw, following their cursors, and checks that the raw run
// returns the same documents: bson.Raw equal to bson.Marshal of
// RunCommand's document where the query needs no decoded document (no
// $expr, no sort in memory, no projection or one of whole top-level
// fields, an ordinary or clustered collection; a filter of top-level
// fields is matched on those fields alone), bson.D otherwise.
func TestRunCommandRawBatches(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	ctx := context.Background()
	mustRun(t, db, "db", `{"create": "cap", "capped": true, "size": 1000000}`)
	clusteredColl(t, db, "clust")
	mustRun(t, db, "db", `{"createIndexes": "plain", "indexes": [{"key": {"n": 1}, "name": "n_1"}]}`)
	for _, coll := range []string{"plain", "clust", "cap"} {
		docs := make([]any, 60)
		for i := range docs {
			docs[i] = bson.D{
				{Key: "_id", Value: int32(i)}, {Key: "n", Value: int32(i % 13)}, {Key: "s", Value: fmt.Sprint("s", i)},
				{Key: "a", Value: bson.D{{Key: "x", Value: int64(i)}, {Key: "y", Value: bson.A{1.5, nil, "z"}}}},
				{Key: "when", Value: bson.DateTime(1700000000000 + int64(i))},
				{Key: "re", Value: bson.Regex{Pattern: "^a", Options: "mi"}},
				{Key: "bin", Value: bson.Binary{Subtype: 2, Data: []byte{byte(i)}}},
				{Key: "dec", Value: bson.NewDecimal128(1, uint64(i))},
				{Key: "s", Value: "a duplicate name"},
			}
		}
		if _, err := db.Database("db").Collection(coll).InsertMany(ctx, docs, true); err != nil {
			t.Fatal(err)
		}
	}
	plain := func(extra ...bson.E) bson.D {
		return append(bson.D{{Key: "find", Value: "plain"}, {Key: "batchSize", Value: int32(7)}}, extra...)
	}
	tests := []struct {
		name string
		coll string
		cmd  bson.D
		raw  bool
	}{
		{"no filter", "plain", plain(), true},
		{"empty filter", "plain", plain(bson.E{Key: "filter", Value: bson.D{}}), true},
		{"first batch of everything", "plain", bson.D{{Key: "find", Value: "plain"}, {Key: "batchSize", Value: int32(1000)}}, true},
		{"default first batch", "plain", bson.D{{Key: "find", Value: "plain"}}, true},
		{"_id only", "plain", plain(bson.E{Key: "projection", Value: bson.D{{Key: "_id", Value: int32(1)}}}), true},
		{"inclusion", "plain", plain(bson.E{Key: "projection", Value: bson.D{{Key: "s", Value: true}, {Key: "_id", Value: int32(0)}}}), true},
		{"exclusion", "plain", plain(bson.E{Key: "projection", Value: bson.D{{Key: "s", Value: int32(0)}, {Key: "a", Value: int32(0)}}}), true},
		{"skip and limit", "plain", plain(bson.E{Key: "skip", Value: int32(3)}, bson.E{Key: "limit", Value: int32(17)}), true},
		{"skip past an empty first batch", "plain", bson.D{{Key: "find", Value: "plain"}, {Key: "batchSize", Value: int32(0)}, {Key: "skip", Value: int64(10)}}, true},
		{"single batch", "plain", plain(bson.E{Key: "limit", Value: int32(4)}, bson.E{Key: "singleBatch", Value: true}), true},
		{"index hint", "plain", plain(bson.E{Key: "hint", Value: bson.D{{Key: "n", Value: int32(1)}}}), true},
		{"clustered", "clust", bson.D{{Key: "find", Value: "clust"}, {Key: "batchSize", Value: int32(7)}}, true},
		{"dotted projection", "plain", plain(bson.E{Key: "projection", Value: bson.D{{Key: "a.x", Value: int32(1)}}}), false},
		{"filter", "plain", plain(bson.E{Key: "filter", Value: bson.D{{Key: "n", Value: bson.D{{Key: "$gt", Value: int32(5)}}}}}), true},
		{"filter on a dotted path", "plain", plain(bson.E{Key: "filter", Value: bson.D{{Key: "a.x", Value: bson.D{{Key: "$lt", Value: int64(30)}}}}}), true},
		{"$or, $not and a duplicate name", "plain", plain(bson.E{Key: "filter", Value: bson.D{{Key: "$or", Value: bson.A{
			bson.D{{Key: "n", Value: int32(1)}}, bson.D{{Key: "s", Value: bson.D{{Key: "$not", Value: bson.D{{Key: "$gt", Value: "s3"}}}}}}}}}}), true},
		{"filter and projection", "plain", plain(bson.E{Key: "filter", Value: bson.D{{Key: "n", Value: int32(3)}}},
			bson.E{Key: "projection", Value: bson.D{{Key: "_id", Value: int32(1)}}}), true},
		{"filter on an indexed field", "plain", plain(bson.E{Key: "filter", Value: bson.D{{Key: "n", Value: bson.D{{Key: "$in", Value: bson.A{int32(2), int32(4)}}}}}}), true},
		{"$expr", "plain", plain(bson.E{Key: "filter", Value: bson.D{{Key: "$expr", Value: bson.D{{Key: "$gt", Value: bson.A{"$n", int32(5)}}}}}}), false},
		{"sort in memory", "plain", plain(bson.E{Key: "sort", Value: bson.D{{Key: "s", Value: int32(-1)}}}), false},
		{"capped", "cap", bson.D{{Key: "find", Value: "cap"}, {Key: "batchSize", Value: int32(7)}}, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			unsized := tc.name == "skip past an empty first batch"
			want, wantBatches := followCursor(t, func(c bson.D) (bson.D, error) { return db.RunCommand(ctx, "db", c) }, tc.coll, tc.cmd, unsized)
			got, gotBatches := followCursor(t, func(c bson.D) (bson.D, error) { return db.RunCommandRaw(ctx, "db", c) }, tc.coll, tc.cmd, unsized)
			if len(got) != len(want) || gotBatches != wantBatches {
				t.Fatalf("RunCommandRaw: %d documents in %d batches, RunCommand %d in %d", len(got), gotBatches, len(want), wantBatches)
			}
			if len(want) == 0 {
				t.Fatal("the query returned nothing")
			}
			for i := range got {
				wd, ok := want[i].(bson.D)
				if !ok {
					t.Fatalf("RunCommand's document %d is %T, not bson.D", i, want[i])
				}
				switch g := got[i].(type) {
				case bson.Raw:
					if !tc.raw {
						t.Fatalf("document %d is bson.Raw; this query must decode", i)
					}
					wb, err := bson.Marshal(wd)
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(g, wb) {
						t.Fatalf("document %d: raw %v, RunCommand %v", i, g, wd)
					}
				case bson.D:
					if tc.raw {
						t.Fatalf("document %d is bson.D, want bson.Raw", i)
					}
					if !reflect.DeepEqual(g, wd) {
						t.Fatalf("document %d: %v, RunCommand %v", i, g, wd)
					}
				default:
					t.Fatalf("document %d is %T", i, got[i])
				}
			}
		})
	}
}

// TestRunCommandRawGetMoreBounded: a raw getMore without batchSize ends
// its batch near getMoreBatchBytes, as the decoded one does.
func TestRunCommandRawGetMoreBounded(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	ctx := context.Background()
	pad := string(bytes.Repeat([]byte("x"), 64<<10))
	docs := make([]any, 0, 100)
	n := 400 // about 26 MiB
	if raceOn {
		// Under the race detector (one goroutine): about 19.5 MiB,
		// still more than the first getMore's 16 MiB batch holds.
		n = 300
	}
	for i := 0; i < n; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "pad", Value: pad}})
		if len(docs) == cap(docs) {
			if _, err := db.Database("db").Collection("big").InsertMany(ctx, docs, true); err != nil {
				t.Fatal(err)
			}
			docs = docs[:0]
		}
	}
	reply, err := db.RunCommandRaw(ctx, "db", bson.D{{Key: "find", Value: "big"}, {Key: "batchSize", Value: int32(1)}})
	if err != nil {
		t.Fatal(err)
	}
	v, _ := document.Lookup(reply, "cursor.id")
	id, _ := v.(int64)
	reply, err = db.RunCommandRaw(ctx, "db", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "big"}})
	if err != nil {
		t.Fatal(err)
	}
	b, _ := document.Lookup(reply, "cursor.nextBatch")
	batch, _ := b.(bson.A)
	size := 0
	for _, d := range batch {
		r, ok := d.(bson.Raw)
		if !ok {
			t.Fatalf("a getMore document is %T, want bson.Raw", d)
		}
		size += len(r)
	}
	if size < getMoreBatchBytes || size > getMoreBatchBytes+256*(64<<10+100) {
		t.Fatalf("a raw getMore without batchSize returned %d documents, %d bytes; want about %d", len(batch), size, getMoreBatchBytes)
	}
	if v, _ := document.Lookup(reply, "cursor.id"); v.(int64) == 0 {
		t.Fatalf("the cursor closed after %d of %d documents", 1+len(batch), n)
	}
}
