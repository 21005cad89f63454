package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// InsertMany chunks fit the store's transaction limits, whatever the
// documents: insert chunks are sized from Store.MaxBatchSize and
// MaxBatchCount (2.4 MiB and ~26,000 entries with the default 16 MiB
// memtables), and a chunk whose index entries overflow anyway is
// redone shorter. With a fixed 4 MiB chunk, 2000 documents of 3 KB
// failed with "lsm: transaction too big" under 16 MiB memtables; with
// a per-document entry estimate alone, multikey documents overflow the
// entry count. The store runs with 1 MiB memtables (smallTxns: 150 KiB
// and 1,600 entries a transaction), so 200 documents of 3 KB are four
// times its limit, as 2000 were 2.5 times the default's, and the
// multikey case, which needed ~60,000 index entries and TTLKV_LONG
// before, runs every time.
func TestInsertChunkFitsTxnLimit(t *testing.T) {
	t.Parallel()
	arr := func(id, n int) bson.D {
		a := make(bson.A, n)
		for j := range a {
			a[j] = id*1000 + j
		}
		return bson.D{{Key: "_id", Value: id}, {Key: "a", Value: a}}
	}
	cases := []struct {
		name    string
		index   string // field to index, "" for none
		ordered bool
		docs    func(maxEntries int) []any // maxEntries: Store.MaxBatchCount
		want    int                        // documents stored
		werrs   []int                      // indexes of failed documents
		inflate bool                       // budget 4x the store's limits: chunks overflow and are redone
	}{
		{"200 docs of 3 KB (inline values, over the transaction limit)", "", true, func(int) []any {
			var docs []any
			for i := 0; i < 200; i++ {
				docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "p", Value: strings.Repeat("x", 3000)}})
			}
			return docs
		}, 200, nil, false},
		{"unordered 3 KB docs keep going past duplicates", "", false, func(int) []any {
			var docs []any
			for i := 0; i < 200; i++ {
				docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "p", Value: strings.Repeat("x", 3000)}})
			}
			docs[70], docs[199] = bson.D{{Key: "_id", Value: 3}}, bson.D{{Key: "_id", Value: 100}}
			return docs
		}, 198, []int{70, 199}, false},
		{"ordered 3 KB docs overflowing an overestimated chunk stop at a duplicate in a redone chunk", "", true, func(int) []any {
			var docs []any
			for i := 0; i < 200; i++ {
				docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "p", Value: strings.Repeat("x", 3000)}})
			}
			return append(docs, bson.D{{Key: "_id", Value: 5}}, bson.D{{Key: "_id", Value: 200}})
		}, -1, []int{-1}, true},
		{"unordered 3 KB docs overflowing an overestimated chunk keep going past duplicates", "", false, func(int) []any {
			var docs []any
			for i := 0; i < 200; i++ {
				docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "p", Value: strings.Repeat("x", 3000)}})
			}
			docs[10], docs[190] = bson.D{{Key: "_id", Value: 3}}, bson.D{{Key: "_id", Value: 100}}
			return docs
		}, 198, []int{10, 190}, true},
		{"ordered multikey docs over the entry count stop at a duplicate in a redone chunk", "a", true, func(maxEntries int) []any {
			// 301 entries per document, 1.2x the limit before the duplicate.
			var docs []any
			for i := 0; i < maxEntries*6/5/301; i++ {
				docs = append(docs, arr(i, 300))
			}
			return append(docs, arr(5, 300), arr(len(docs)+1, 300)) // duplicate _id 5
		}, -1, []int{-1}, false},
		{"value-log documents of 3 MiB between small ones", "p", true, func(int) []any {
			var docs []any
			for i := 0; i < 12; i++ {
				n := 100
				if i%3 == 1 {
					n = 3 << 20
				}
				docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "p", Value: strings.Repeat("y", 50)}, {Key: "q", Value: strings.Repeat("z", n)}})
			}
			return docs
		}, 12, nil, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			opts := Options{DisableTTLMonitor: true}
			smallTxns(&opts)
			if tc.inflate {
				opts.seams.chunkBudgetHook = func(b chunkBudget) chunkBudget {
					return chunkBudget{bytes: 4 * 2 * b.bytes, entries: 4 * 2 * b.entries}
				}
			}
			db, err := Open(t.TempDir(), opts)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			ctx := context.Background()
			c := db.Database("t").Collection("c")
			if tc.index != "" {
				if _, err := c.CreateIndex(ctx, IndexModel{Keys: bson.D{{Key: tc.index, Value: 1}}}); err != nil {
					t.Fatal(err)
				}
			}
			docs := tc.docs(int(db.store.MaxBatchCount()))
			want, werrs := tc.want, tc.werrs
			if want < 0 { // ordered, failing at its next-to-last document
				want, werrs = len(docs)-2, []int{len(docs) - 2}
			}
			res, err := c.InsertMany(ctx, docs, tc.ordered)
			var bwe *BulkWriteError
			switch {
			case len(werrs) == 0 && err != nil:
				t.Fatal(err)
			case len(werrs) > 0 && !errors.As(err, &bwe):
				t.Fatalf("err = %v, want a BulkWriteError", err)
			}
			if bwe != nil {
				var got []int
				for _, we := range bwe.WriteErrors {
					if we.Err.Code != document.CodeDuplicateKey {
						t.Errorf("write error %d: %v, want duplicate key", we.Index, we.Err)
					}
					got = append(got, we.Index)
				}
				if fmt.Sprint(got) != fmt.Sprint(werrs) {
					t.Errorf("failed documents %v, want %v", got, werrs)
				}
			}
			inserted := 0
			for i, id := range res.InsertedIDs {
				if id == nil {
					continue
				}
				inserted++
				if want := docs[i].(bson.D)[0].Value; fmt.Sprint(id) != fmt.Sprint(want) {
					t.Errorf("InsertedIDs[%d] = %v, want %v", i, id, want)
				}
			}
			if n := count(t, db, "t", "c"); n != int64(want) || inserted != want {
				t.Fatalf("stored %d, reported %d, want %d", n, inserted, want)
			}
			mustValidate(t, db, "t", "c")
		})
	}
}

// A document whose index entries alone exceed one transaction cannot be
// inserted: the insert fails with an error wrapping lsm.ErrTxnTooBig
// and stores nothing of it (the documents of earlier chunks stay).
func TestInsertDocumentOverTxnLimit(t *testing.T) {
	t.Parallel()
	db, err := Open(t.TempDir(), Options{DisableTTLMonitor: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	ctx := context.Background()
	c := db.Database("t").Collection("c")
	if _, err := c.CreateIndex(ctx, IndexModel{Keys: bson.D{{Key: "a", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	huge := make(bson.A, db.store.MaxBatchCount()+10)
	for i := range huge {
		huge[i] = i
	}
	docs := []any{bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: 1}}, bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: huge}}}
	if _, err := c.InsertMany(ctx, docs, false); !errors.Is(err, lsm.ErrTxnTooBig) {
		t.Fatalf("err = %v, want lsm.ErrTxnTooBig", err)
	}
	if _, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: 2}}); !errors.Is(err, ErrNoDocuments) {
		t.Fatalf("the oversized document: %v, want ErrNoDocuments", err)
	}
	if n := count(t, db, "t", "c"); n != 1 {
		t.Fatalf("count %d, want 1 (the document before the oversized one)", n)
	}
	mustValidate(t, db, "t", "c")
}

// A delete batch whose documents have more index entries than one
// transaction holds ends before the document that overflowed and
// commits the others: with batchedDeletesTargetBatchDocs 1000 (the
// default) and no time or byte target, a batch of documents with 40
// indexed array elements each is 42 deletes a document, and the 150
// documents here (6,300 deletes) are about four times the ~1,600-entry
// limit of the 1 MiB memtables the store runs with (smallTxns), as
// 1,500 documents were of the default's ~26,000. Before, the batch
// failed with "transaction too big" every time, so deleteMany returned
// an error and the TTL monitor could never get past such documents.
func TestDeleteBatchFitsTxnLimit(t *testing.T) {
	t.Parallel()
	const n, tags = 150, 40
	docs := func(date bson.DateTime) []bson.D {
		out := make([]bson.D, n)
		for i := range out {
			a := make(bson.A, tags)
			for j := range a {
				a[j] = i*tags + j
			}
			out[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: date}, {Key: "tags", Value: a}}
		}
		return out
	}
	setup := func(t *testing.T) (*DB, bson.DateTime) {
		db, clk, _ := openTestWith(t, smallTxns)
		for name, v := range map[string]any{"batchedDeletesTargetBatchDocs": 1000,
			"batchedDeletesTargetBatchTimeMS": 0, "batchedDeletesTargetStagedDocBytes": 0} {
			if _, err := db.SetParameter(name, v); err != nil {
				t.Fatal(err)
			}
		}
		if all := int64(n * (tags + 2)); all < 3*db.store.MaxBatchCount() {
			t.Fatalf("the fixture no longer overflows a transaction three times: %d entries, limit %d", all, db.store.MaxBatchCount())
		}
		mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"tags": 1}, "name": "tags_1"},
			{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}]}`)
		return db, dt(clk.Now().Add(-time.Hour))
	}
	t.Run("deleteMany", func(t *testing.T) {
		t.Parallel()
		db, old := setup(t)
		insertDocs(t, db, "c", docs(old)...)
		before := db.Stats().BatchedDeleteBatches
		r, err := db.Database("test").Collection("c").DeleteMany(context.Background(), bson.D{})
		if err != nil || r.DeletedCount != n {
			t.Fatalf("DeleteMany = %+v, %v; want %d deleted", r, err, n)
		}
		if got := db.Stats().BatchedDeleteBatches - before; got < 3 {
			t.Errorf("%d batches, want at least 3 (the %d documents are over three transactions' worth)", got, n)
		}
		if c := count(t, db, "test", "c"); c != 0 {
			t.Errorf("%d documents left", c)
		}
		mustValidate(t, db, "test", "c")
	})
	t.Run("ttl", func(t *testing.T) {
		t.Parallel()
		db, old := setup(t)
		insertDocs(t, db, "c", docs(old)...)
		if r := pass(t, db); r.Deleted != n {
			t.Fatalf("pass deleted %d, want %d", r.Deleted, n)
		}
		if c := count(t, db, "test", "c"); c != 0 {
			t.Errorf("%d documents left", c)
		}
		mustValidate(t, db, "test", "c")
	})
}

// An index build that would give a document more entries than one
// transaction holds is refused (67 CannotCreateIndex), as an insert of
// such a document is: before, the build succeeded and the document
// could never be deleted again (its delete is one transaction), so
// deleteMany failed on it and the TTL monitor would have stalled. The
// refused build leaves no index and no entry behind, and the documents
// stay deletable.
func TestIndexBuildOverTxnLimit(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	ctx := context.Background()
	c := db.Database("t").Collection("c")
	huge := make(bson.A, db.store.MaxBatchCount()+10)
	for i := range huge {
		huge[i] = i
	}
	if _, err := c.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}, {Key: "a", Value: huge}}}, true); err != nil {
		t.Fatal(err)
	}
	_, err := c.CreateIndex(ctx, IndexModel{Keys: bson.D{{Key: "a", Value: 1}}})
	var e *document.Error
	if !errors.As(err, &e) || e.Code != document.CodeCannotCreateIndex || !strings.Contains(e.Message, "_id 2") {
		t.Fatalf("createIndex: %v, want 67 CannotCreateIndex naming _id 2", err)
	}
	ixs := mustRun(t, db, "t", `{"listIndexes": "c"}`)
	if got := len(field(ixs, "cursor.firstBatch").(bson.A)); got != 1 {
		t.Errorf("%d indexes listed after the refused build, want 1 (_id_)", got)
	}
	mustValidate(t, db, "t", "c")
	// Under the limit the same build succeeds, and the document deletes.
	if _, err := c.CreateIndex(ctx, IndexModel{Keys: bson.D{{Key: "a", Value: 1}}, Options: bson.D{{Key: "partialFilterExpression", Value: bson.D{{Key: "_id", Value: 1}}}}}); err != nil {
		t.Fatalf("a partial index leaving the large document out: %v", err)
	}
	if r, err := c.DeleteMany(ctx, bson.D{}); err != nil || r.DeletedCount != 2 {
		t.Fatalf("DeleteMany = %+v, %v; want 2 deleted", r, err)
	}
	mustValidate(t, db, "t", "c")
}
