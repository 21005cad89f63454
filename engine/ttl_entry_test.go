package engine

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// fastShape is a collection shape whose TTL reap may run from the TTL
// entries (docs/ttl-indexes.md §3).
type fastShape struct {
	name  string
	setup string // commands run before the inserts, one per line
	field string // the TTL field ("_id" for clustered TTL)
}

var fastShapes = []fastShape{
	{"ordinary", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`, "t"},
	{"descending", `{"createIndexes": "c", "indexes": [{"key": {"t": -1}, "name": "t_-1", "expireAfterSeconds": 10}]}`, "t"},
	{"clustered", `{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "name": "_id_1", "unique": true}}
{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`, "t"},
	{"clustered-by-id", `{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "name": "_id_1", "unique": true}, "expireAfterSeconds": 10}`, "_id"},
}

func (s fastShape) open(t *testing.T) (*DB, *fakeClock) {
	t.Helper()
	db, clk, _ := openTest(t)
	for _, line := range strings.Split(s.setup, "\n") {
		mustRun(t, db, "test", line)
	}
	return db, clk
}

// doc returns document i of a fast-path test: expired when i%3 != 0
// (dated an hour ago), else dated an hour ahead, except that every
// seventh holds a string where the date goes (it never expires), and
// of a size that varies with i.
func (s fastShape) doc(i int, now time.Time) bson.D {
	var at any = dt(now.Add(-time.Hour).Add(time.Duration(i) * time.Millisecond))
	if i%3 == 0 {
		at = dt(now.Add(time.Hour).Add(time.Duration(i) * time.Millisecond))
	}
	if i%7 == 0 && s.field != "_id" {
		at = fmt.Sprint("not a date ", i)
	}
	pad := strings.Repeat("x", i%50)
	if i%11 == 0 {
		// Over lsm's ValueThreshold: held in Badger's value log.
		pad = strings.Repeat("v", 16400+i) // a 3-byte length in the log
	}
	if s.field == "_id" {
		return bson.D{{Key: "_id", Value: at}, {Key: "n", Value: i}, {Key: "pad", Value: pad}}
	}
	return bson.D{{Key: "_id", Value: i}, {Key: "t", Value: at}, {Key: "n", Value: i}, {Key: "pad", Value: pad}}
}

func (s fastShape) expired(i int) bool { return i%3 != 0 && (i%7 != 0 || s.field == "_id") }

// countFast makes db's TTL visits add the documents their batches
// deleted from TTL entries to n.
func countFast(db *DB, n *atomic.Int64) {
	db.opts.seams.deleterHook = func(bd *batchDeleter) {
		bd.beforeCommit = nil
		prev := bd
		db.opts.seams.visitHook = func(string, int64, bool) { n.Add(prev.fast.Swap(0)) }
	}
}

// passCountingFast runs one TTL pass and returns how many documents it
// deleted and how many of those it deleted from their TTL entries.
func passCountingFast(t *testing.T, db *DB) (deleted, fast int64) {
	t.Helper()
	var n atomic.Int64
	countFast(db, &n)
	res, err := db.RunTTLPass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return res.Deleted, n.Load()
}

// survivors returns the n fields of c's documents, sorted.
func survivors(t *testing.T, db *DB) []int {
	t.Helper()
	var got []int
	for _, d := range findAll(t, db, "test", "c", bson.D{}) {
		v, _ := get(d, "n")
		got = append(got, int(toInt64(t, v)))
	}
	slices.Sort(got)
	return got
}

// A TTL pass over each fast shape deletes exactly the expired documents,
// all from their TTL entries, and counts exactly their bytes
// (batchedDeletes.stagedSizeBytes against collStats before and after),
// in batches that end inside the chunks they read.
func TestReapFastPath(t *testing.T) {
	t.Parallel()
	for _, s := range fastShapes {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			db, clk := s.open(t)
			now := clk.Now()
			var docs []bson.D
			var want []int
			wantDeleted := int64(0)
			for i := 1; i <= 600; i++ {
				docs = append(docs, s.doc(i, now))
				if s.expired(i) {
					wantDeleted++
				} else {
					want = append(want, i)
				}
			}
			insertDocs(t, db, "c", docs...)
			mustValidate(t, db, "test", "c")
			// Batches of 500 staged bytes end inside the chunks they
			// read, so a batch that staged its deletes out of the order
			// of its record ids (a descending index's entries come in
			// reverse) would skip some of them.
			mustRun(t, db, "admin", `{"setParameter": 1, "batchedDeletesTargetStagedDocBytes": 500}`)
			var fast atomic.Int64
			countFast(db, &fast)
			c := db.lookup("test", "c")
			before := db.collStats(c)
			staged := db.stats.bdStagedBytes.Load()
			res, err := db.RunTTLPass(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if res.Deleted != wantDeleted {
				t.Fatalf("deleted %d, want %d", res.Deleted, wantDeleted)
			}
			if got := fast.Load(); got != wantDeleted {
				t.Fatalf("%d deleted from their TTL entries, want all %d", got, wantDeleted)
			}
			if got := survivors(t, db); !slices.Equal(got, want) {
				t.Fatalf("survivors %v, want %v", got, want)
			}
			after := db.collStats(c)
			if after.count != int64(len(want)) || count(t, db, "test", "c") != int64(len(want)) {
				t.Fatalf("collStats count %d, want %d", after.count, len(want))
			}
			if got := db.stats.bdStagedBytes.Load() - staged; got != before.size-after.size {
				t.Fatalf("staged %d bytes, the collection lost %d", got, before.size-after.size)
			}
			mustValidate(t, db, "test", "c")
		})
	}
}

// The fast path is not taken where the delete needs more than the TTL
// entry: another secondary index, a multikey or partial TTL index, or
// change streams; the documents are still deleted, the old way.
func TestReapFastFallsBack(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name  string
		set   func(*Options)
		setup []string
		doc   func(i int, at bson.DateTime) bson.D
	}{
		{"second index", nil, []string{`{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}, {"key": {"n": 1}, "name": "n_1"}]}`}, nil},
		{"multikey", nil, []string{`{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`},
			func(i int, at bson.DateTime) bson.D {
				return bson.D{{Key: "_id", Value: i}, {Key: "t", Value: bson.A{at, at + 1}}, {Key: "n", Value: i}}
			}},
		{"partial", nil, []string{`{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10, "partialFilterExpression": {"n": {"$gt": 0}}}]}`}, nil},
		{"change streams", func(o *Options) { o.ChangeStreams = true }, []string{`{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`}, nil},
		{"clustered, second index", nil, []string{`{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "name": "_id_1", "unique": true}}`,
			`{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}, {"key": {"n": 1}, "name": "n_1"}]}`}, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			set := tc.set
			if set == nil {
				set = func(*Options) {}
			}
			db, clk, _ := openTestWith(t, set)
			for _, cmd := range tc.setup {
				mustRun(t, db, "test", cmd)
			}
			at := dt(clk.Now().Add(-time.Hour))
			var docs []bson.D
			for i := 1; i <= 50; i++ {
				if tc.doc != nil {
					docs = append(docs, tc.doc(i, at))
				} else {
					docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "t", Value: at}, {Key: "n", Value: i}})
				}
			}
			insertDocs(t, db, "c", docs...)
			deleted, fast := passCountingFast(t, db)
			if deleted != 50 || fast != 0 {
				t.Fatalf("deleted %d (%d from TTL entries), want 50 (none)", deleted, fast)
			}
			mustValidate(t, db, "test", "c")
		})
	}
}

// stripTTLValues gives every other TTL entry of c's index named index
// the value a store written before the carried values holds: none, or
// in a clustered collection the bare _id keystring.
func stripTTLValues(t *testing.T, db *DB, index string) int {
	t.Helper()
	m := db.lookup("test", "c").m()
	ix := m.Index(index)
	var keys, vals [][]byte
	err := db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: lsm.IndexPrefix(m.ID, ix.ID)})
		defer it.Close()
		for n := 0; it.Next(); n++ {
			if n%2 == 0 {
				v, err := it.Value()
				if err != nil {
					return err
				}
				_, id, ok := parseTTLEntry(v)
				if !ok {
					return fmt.Errorf("entry value %x does not parse", v)
				}
				if !m.Clustered {
					id = nil
				}
				keys = append(keys, append([]byte(nil), it.Key()...))
				vals = append(vals, slices.Clone(id))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := db.store.Update(func(txn *lsm.Txn) error {
		for i, k := range keys {
			if err := txn.Set(k, vals[i]); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return len(keys)
}

// A store whose TTL entries carry no value (written before the format;
// clustered: the bare _id keystring) stays valid, and its documents are
// reaped the old way (ordinary: the record read; clustered: from the
// entry, the size read from the _id entry), beside those whose entries
// carry it, with every size counted.
func TestReapFastOldEntries(t *testing.T) {
	t.Parallel()
	for _, s := range []fastShape{fastShapes[0], fastShapes[2]} {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			db, clk := s.open(t)
			at := dt(clk.Now().Add(-time.Hour))
			var docs []bson.D
			for i := 1; i <= 200; i++ {
				docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "t", Value: at + bson.DateTime(i)}, {Key: "n", Value: i}, {Key: "pad", Value: strings.Repeat("x", i)}})
			}
			insertDocs(t, db, "c", docs...)
			stripped := stripTTLValues(t, db, "t_1")
			mustValidate(t, db, "test", "c")
			c := db.lookup("test", "c")
			before := db.collStats(c)
			staged := db.stats.bdStagedBytes.Load()
			deleted, fast := passCountingFast(t, db)
			wantFast := int64(200 - stripped)
			if s.name == "clustered" {
				wantFast = 200 // the bare keystring says how to delete
			}
			if deleted != 200 || fast != wantFast {
				t.Fatalf("deleted %d, %d from TTL entries; want 200, %d", deleted, fast, wantFast)
			}
			if n := count(t, db, "test", "c"); n != 0 {
				t.Fatalf("%d documents left", n)
			}
			if got := db.stats.bdStagedBytes.Load() - staged; got != before.size {
				t.Fatalf("staged %d bytes, the collection held %d", got, before.size)
			}
			mustValidate(t, db, "test", "c")
		})
	}
}

// setTTLEntrySizes adds add to the size carried by every TTL entry of
// c's index named index, and returns how many it changed.
func setTTLEntrySizes(t *testing.T, db *DB, index string, add int) int {
	t.Helper()
	m := db.lookup("test", "c").m()
	ix := m.Index(index)
	n := 0
	err := db.store.Update(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: lsm.IndexPrefix(m.ID, ix.ID)})
		var keys, vals [][]byte
		for it.Next() {
			v, err := it.Value()
			if err != nil {
				it.Close()
				return err
			}
			size, id, ok := parseTTLEntry(v)
			if !ok {
				it.Close()
				return fmt.Errorf("entry value %x does not parse", v)
			}
			keys = append(keys, append([]byte(nil), it.Key()...))
			vals = append(vals, appendTTLEntry(id, size+add))
		}
		it.Close()
		for i, k := range keys {
			if err := txn.Set(k, vals[i]); err != nil {
				return err
			}
		}
		n = len(keys)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// A delete from a TTL entry reads neither the document nor, in a
// clustered collection, its _id entry: the size it counts is the one
// the entry carries. Entries made to carry sizes 1000 bytes too large
// are counted so (validate reports them; the documents still go).
func TestReapFastUsesCarriedSize(t *testing.T) {
	t.Parallel()
	for _, s := range []fastShape{fastShapes[0], fastShapes[2]} {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			db, clk := s.open(t)
			at := dt(clk.Now().Add(-time.Hour))
			var docs []bson.D
			for i := 1; i <= 100; i++ {
				docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "t", Value: at}, {Key: "pad", Value: strings.Repeat("x", i)}})
			}
			insertDocs(t, db, "c", docs...)
			changed := setTTLEntrySizes(t, db, "t_1", 1000)
			if res, err := db.Validate(context.Background(), "test", "c"); err != nil || res.Valid() {
				t.Fatalf("validate: %v %v, want the carried sizes reported", res, err)
			}
			before := db.collStats(db.lookup("test", "c"))
			staged := db.stats.bdStagedBytes.Load()
			deleted, fast := passCountingFast(t, db)
			if deleted != 100 || fast != 100 {
				t.Fatalf("deleted %d (%d from TTL entries), want 100 (100)", deleted, fast)
			}
			if got, want := db.stats.bdStagedBytes.Load()-staged, before.size+int64(1000*changed); got != want {
				t.Fatalf("staged %d bytes, want the carried %d", got, want)
			}
		})
	}
}

// Updates, replacements and findAndModify keep a TTL entry's carried
// value true (validate compares it with the record), and a reap then
// counts the documents' new sizes.
func TestTTLEntryFollowsUpdates(t *testing.T) {
	t.Parallel()
	for _, s := range []fastShape{fastShapes[0], fastShapes[2]} {
		t.Run(s.name, func(t *testing.T) {
			t.Parallel()
			testTTLEntryFollowsUpdates(t, s)
		})
	}
}

func testTTLEntryFollowsUpdates(t *testing.T, s fastShape) {
	db, clk := s.open(t)
	at := dt(clk.Now().Add(-time.Hour))
	var docs []bson.D
	for i := 1; i <= 6; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "t", Value: at}, {Key: "n", Value: i}})
	}
	insertDocs(t, db, "c", docs...)
	c := db.Database("test").Collection("c")
	ctx := context.Background()
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "pad", Value: strings.Repeat("y", 300)}}}}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.UpdateMany(ctx, bson.D{{Key: "n", Value: bson.D{{Key: "$gte", Value: 5}}}}, bson.D{{Key: "$set", Value: bson.D{{Key: "pad", Value: "z"}}}}, false); err != nil {
		t.Fatal(err)
	}
	if _, err := c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "t", Value: at}, {Key: "n", Value: 2}, {Key: "big", Value: strings.Repeat("w", 1000)}}, false); err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "test", `{"findAndModify": "c", "query": {"_id": 3}, "update": {"$unset": {"n": 1}}}`)
	// A document whose date moves stays out of the expired range.
	if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: 4}}, bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: dt(clk.Now().Add(time.Hour))}}}}, false); err != nil {
		t.Fatal(err)
	}
	// Found and updated through the TTL index: its entries name the
	// documents (a clustered entry's _id is inside its carried value).
	byDate := bson.D{{Key: "t", Value: bson.D{{Key: "$lte", Value: at}}}}
	if got := findAll(t, db, "test", "c", byDate); len(got) != 5 {
		t.Fatalf("found %d documents by date, want 5", len(got))
	}
	if r, err := c.UpdateMany(ctx, byDate, bson.D{{Key: "$set", Value: bson.D{{Key: "u", Value: 1}}}}, false); err != nil || r.ModifiedCount != 5 {
		t.Fatalf("update by date: %+v, %v; want 5 modified", r, err)
	}
	mustValidate(t, db, "test", "c")
	before := db.collStats(db.lookup("test", "c"))
	staged := db.stats.bdStagedBytes.Load()
	var fast atomic.Int64
	countFast(db, &fast)
	res, err := db.RunTTLPass(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Deleted != 5 || fast.Load() != 5 {
		t.Fatalf("deleted %d (%d from TTL entries), want 5 (5)", res.Deleted, fast.Load())
	}
	after := db.collStats(db.lookup("test", "c"))
	if got := db.stats.bdStagedBytes.Load() - staged; got != before.size-after.size || after.count != 1 {
		t.Fatalf("staged %d bytes, the collection lost %d; %d left", got, before.size-after.size, after.count)
	}
	mustValidate(t, db, "test", "c")
}

// validate reports a TTL entry whose carried value is not its
// document's (a size one more, or another _id), and in a clustered
// collection an entry of the old form (the bare _id keystring) naming
// another _id.
func TestValidateChecksTTLEntryValue(t *testing.T) {
	t.Parallel()
	type tamper struct {
		name string
		val  func(size int, id []byte) []byte
		want string
	}
	other := lsm.AppendKey(nil, int32(2), false)
	tampers := []tamper{
		{"size", func(size int, id []byte) []byte { return appendTTLEntry(id, size+1) }, "carries another size or _id"},
		{"id", func(size int, id []byte) []byte { return appendTTLEntry(other, size) }, "carries another size or _id"},
	}
	for _, s := range []fastShape{fastShapes[0], fastShapes[2]} {
		ts := tampers
		if s.name == "clustered" {
			ts = append(ts, tamper{"bare id", func(int, []byte) []byte { return other }, "names another _id"})
		}
		for _, tc := range ts {
			t.Run(s.name+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				db, clk := s.open(t)
				insertDocs(t, db, "c", bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: dt(clk.Now())}})
				mustValidate(t, db, "test", "c")
				m := db.lookup("test", "c").m()
				ix := m.Index("t_1")
				err := db.store.Update(func(txn *lsm.Txn) error {
					it := txn.NewIter(lsm.IterOptions{Prefix: lsm.IndexPrefix(m.ID, ix.ID)})
					var k, v []byte
					if it.Next() {
						k = append([]byte(nil), it.Key()...)
						v, _ = it.Value()
						v = append([]byte(nil), v...)
					}
					it.Close()
					size, id, ok := parseTTLEntry(v)
					if !ok {
						return fmt.Errorf("entry value %x does not parse", v)
					}
					return txn.Set(k, tc.val(size, id))
				})
				if err != nil {
					t.Fatal(err)
				}
				res, err := db.Validate(context.Background(), "test", "c")
				if err != nil {
					t.Fatal(err)
				}
				if res.Valid() || !strings.Contains(strings.Join(res.Errors, "\n"), tc.want) {
					t.Fatalf("validate: %v, want %q", res.Errors, tc.want)
				}
			})
		}
	}
}

// The guard of a delete from TTL entries: a batch reads the entries in
// its own transaction, so an update that moves a document's date after
// the scan, or after the batch staged its delete, keeps the document
// (the batch finds the entry gone, or its commit conflicts and it is
// staged again), and one that changes only the document's size has it
// deleted with its new size counted. Without the reads in the batch's
// transaction the document whose date moved after staging is deleted.
func TestReapFastGuard(t *testing.T) {
	t.Parallel()
	for _, when := range []string{"after scan", "before commit"} {
		for _, s := range fastShapes[:3] {
			t.Run(when+"/"+s.name, func(t *testing.T) {
				t.Parallel()
				db, clk := s.open(t)
				now := clk.Now()
				var docs []bson.D
				for i := 1; i <= 20; i++ {
					docs = append(docs, bson.D{{Key: "_id", Value: i}, {Key: "t", Value: dt(now.Add(-time.Hour))}, {Key: "n", Value: i}})
				}
				insertDocs(t, db, "c", docs...)
				c := db.Database("test").Collection("c")
				// Document 5's date moves out of the expired range;
				// document 6 grows.
				change := func() {
					ctx := context.Background()
					if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: 5}}, bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: dt(now.Add(time.Hour))}}}}, false); err != nil {
						t.Error(err)
					}
					if _, err := c.UpdateOne(ctx, bson.D{{Key: "_id", Value: 6}}, bson.D{{Key: "$set", Value: bson.D{{Key: "pad", Value: strings.Repeat("p", 500)}}}}, false); err != nil {
						t.Error(err)
					}
				}
				m := db.lookup("test", "c")
				var once atomic.Bool
				var atChange int64 // the collection's bytes right after the change
				hook := func() {
					if once.CompareAndSwap(false, true) {
						change()
						atChange = db.collStats(m).size
					}
				}
				var fast atomic.Int64
				countFast(db, &fast)
				if when == "after scan" {
					db.opts.seams.scanHook = hook
				} else {
					inner := db.opts.seams.deleterHook
					db.opts.seams.deleterHook = func(bd *batchDeleter) {
						inner(bd)
						bd.beforeCommit = hook
					}
				}
				staged := db.stats.bdStagedBytes.Load()
				res, err := db.RunTTLPass(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				if !once.Load() {
					t.Fatal("the change did not run")
				}
				if res.Deleted != 19 {
					t.Fatalf("deleted %d, want 19", res.Deleted)
				}
				if got := survivors(t, db); !slices.Equal(got, []int{5}) {
					t.Fatalf("survivors %v, want [5]", got)
				}
				if fast.Load() == 0 {
					t.Fatal("nothing deleted from TTL entries")
				}
				if got, want := db.stats.bdStagedBytes.Load()-staged, atChange-db.collStats(m).size; got != want {
					t.Fatalf("staged %d bytes, the deleted documents held %d", got, want)
				}
				mustValidate(t, db, "test", "c")
			})
		}
	}
}

// A TTL index built over existing documents writes the carried values
// (validate checks them), and the collection's collation, which keys
// its _id entries, keys the carried _id alike: the reap leaves no _id
// entry behind.
func TestReapFastBuiltIndexAndCollation(t *testing.T) {
	t.Parallel()
	db, clk, _ := openTest(t)
	mustRun(t, db, "test", `{"create": "c", "collation": {"locale": "en", "strength": 2}}`)
	at := dt(clk.Now().Add(-time.Hour))
	var docs []bson.D
	for i := 1; i <= 100; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: fmt.Sprintf("Id-%03d", i)}, {Key: "t", Value: at}, {Key: "n", Value: i}})
	}
	insertDocs(t, db, "c", docs...)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`)
	// And inserted after the build: the carried _id is the _id entry's.
	docs = docs[:0]
	for i := 101; i <= 150; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: fmt.Sprintf("iD-%03d", i)}, {Key: "t", Value: at}, {Key: "n", Value: i}})
	}
	insertDocs(t, db, "c", docs...)
	mustValidate(t, db, "test", "c")
	deleted, fast := passCountingFast(t, db)
	if deleted != 150 || fast != 150 {
		t.Fatalf("deleted %d (%d from TTL entries), want 150 (150)", deleted, fast)
	}
	if r := mustValidate(t, db, "test", "c"); r.KeysPerIndex["_id_"] != 0 || r.Records != 0 {
		t.Fatalf("after the reap: %d records, %d _id entries", r.Records, r.KeysPerIndex["_id_"])
	}
}

// A TTL batch deleting from TTL entries stages its deletes after its
// reads (flushFast); when they overflow the transaction there, the batch
// is redone with fewer documents (errBatchFull), as when they are
// staged one by one: with 1 MiB memtables (smallTxns) and one 1000
// document batch, the 3,000 deletes are about twice the transaction
// limit.
func TestReapFastFitsTxnLimit(t *testing.T) {
	t.Parallel()
	const n = 1000
	db, clk, _ := openTestWith(t, smallTxns)
	for name, v := range map[string]any{"batchedDeletesTargetBatchDocs": 1000,
		"batchedDeletesTargetBatchTimeMS": 0, "batchedDeletesTargetStagedDocBytes": 0} {
		if _, err := db.SetParameter(name, v); err != nil {
			t.Fatal(err)
		}
	}
	if 3*n < 3*db.store.MaxBatchCount()/2 { // at least one and a half transactions' worth
		t.Fatalf("the fixture no longer overflows a transaction: %d deletes, limit %d", 3*n, db.store.MaxBatchCount())
	}
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}]}`)
	old := dt(clk.Now().Add(-time.Hour))
	docs := make([]bson.D, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: old}}
	}
	insertDocs(t, db, "c", docs...)
	var fast atomic.Int64
	countFast(db, &fast)
	before := db.Stats().BatchedDeleteBatches
	if r := pass(t, db); r.Deleted != n || fast.Load() != n {
		t.Fatalf("pass deleted %d, %d from TTL entries; want %d, all", r.Deleted, fast.Load(), n)
	}
	if got := db.Stats().BatchedDeleteBatches - before; got < 2 {
		t.Errorf("%d batches, want at least 2 (the deletes are over a transaction's worth)", got)
	}
	if c := count(t, db, "test", "c"); c != 0 {
		t.Errorf("%d documents left", c)
	}
	mustValidate(t, db, "test", "c")
}

// A TTL index built over a clustered collection's documents writes the
// carried values (validate checks them), and the reap deletes every
// document from them.
func TestReapFastClusteredBuiltIndex(t *testing.T) {
	t.Parallel()
	db, clk, _ := openTest(t)
	mustRun(t, db, "test", `{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`)
	at := dt(clk.Now().Add(-time.Hour))
	var docs []bson.D
	for i := 1; i <= 100; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: fmt.Sprintf("id-%03d", i)}, {Key: "t", Value: at}, {Key: "pad", Value: strings.Repeat("x", i)}})
	}
	insertDocs(t, db, "c", docs...)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`)
	mustValidate(t, db, "test", "c")
	m := db.lookup("test", "c").m()
	err := db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: lsm.IndexPrefix(m.ID, m.Index("t_1").ID)})
		defer it.Close()
		for it.Next() {
			if v, err := it.Value(); err != nil || !isTTLEntry(v) {
				return fmt.Errorf("built entry value %x (%v) is not a carried value", v, err)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	deleted, fast := passCountingFast(t, db)
	if deleted != 100 || fast != 100 {
		t.Fatalf("deleted %d (%d from TTL entries), want 100 (100)", deleted, fast)
	}
	if r := mustValidate(t, db, "test", "c"); r.Records != 0 || r.KeysPerIndex["t_1"] != 0 {
		t.Fatalf("after the reap: %d records, %d TTL entries", r.Records, r.KeysPerIndex["t_1"])
	}
}
