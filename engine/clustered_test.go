package engine

import (
	"context"
	"reflect"
	"slices"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// clusteredColl creates db.name clustered by _id.
func clusteredColl(t *testing.T, db *DB, name string) *Collection {
	t.Helper()
	ctx := context.Background()
	err := db.Database("db").CreateCollection(ctx, name, bson.D{{Key: "clusteredIndex", Value: bson.D{
		{Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "unique", Value: true}}}})
	if err != nil {
		t.Fatalf("create clustered: %v", err)
	}
	return db.Database("db").Collection(name)
}

func docIDs(docs []bson.D) []any {
	out := make([]any, len(docs))
	for i, d := range docs {
		out[i], _ = get(d, "_id")
	}
	return out
}

func TestClusteredStoresDocumentsInIDEntries(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, _, _ := openTest(t)
	c := clusteredColl(t, db, "c")
	if _, err := c.CreateIndex(ctx, IndexModel{Keys: bson.D{{Key: "a", Value: int32(1)}}}); err != nil {
		t.Fatal(err)
	}
	for _, id := range []int32{5, 1, 3, 4, 2} {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "a", Value: id % 2}}); err != nil {
			t.Fatal(err)
		}
	}
	m := db.lookup("db", "c").m()
	if !m.Clustered {
		t.Fatal("catalog entry not clustered")
	}
	// Two keys a document: the _id entry (holding it) and the a entry.
	if n := countPrefix(t, db, lsm.RecordPrefix(m.ID)); n != 0 {
		t.Errorf("%d record keys, want none", n)
	}
	if n := countPrefix(t, db, lsm.CollectionIndexPrefix(m.ID)); n != 10 {
		t.Errorf("%d index keys, want 10", n)
	}
	// Natural order is _id order, both ways.
	docs := cfind(t, c, bson.D{}, nil)
	if got := docIDs(docs); !reflect.DeepEqual(got, []any{int32(1), int32(2), int32(3), int32(4), int32(5)}) {
		t.Errorf("natural order %v, want _id order", got)
	}
	docs = cfind(t, c, bson.D{}, &FindOptions{Sort: bson.D{{Key: "$natural", Value: int32(-1)}}})
	if got := docIDs(docs); !reflect.DeepEqual(got, []any{int32(5), int32(4), int32(3), int32(2), int32(1)}) {
		t.Errorf("reverse natural order %v", got)
	}
	// Point reads, secondary index reads.
	d, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: int32(3)}})
	if err != nil || d == nil {
		t.Fatalf("FindOne _id 3: %v %v", d, err)
	}
	if v, _ := get(d, "a"); v != int32(1) {
		t.Errorf("_id 3 has a=%v", v)
	}
	// Equal secondary keys are in record-id (insertion) order: sorted
	// here.
	docs = cfind(t, c, bson.D{{Key: "a", Value: int32(0)}}, &FindOptions{Hint: "a_1", Sort: bson.D{{Key: "_id", Value: int32(1)}}})
	if got := docIDs(docs); !reflect.DeepEqual(got, []any{int32(2), int32(4)}) {
		t.Errorf("a=0 through a_1: %v", got)
	}
	mustValidate(t, db, "db", "c")
	// Updates move secondary entries and rewrite the document in place.
	if _, err := c.UpdateMany(ctx, bson.D{{Key: "a", Value: int32(1)}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: int32(7)}}}}, false); err != nil {
		t.Fatal(err)
	}
	docs = cfind(t, c, bson.D{{Key: "a", Value: int32(7)}}, &FindOptions{Hint: "a_1", Sort: bson.D{{Key: "_id", Value: int32(1)}}})
	if got := docIDs(docs); !reflect.DeepEqual(got, []any{int32(1), int32(3), int32(5)}) {
		t.Errorf("a=7 after update: %v", got)
	}
	if _, err := c.ReplaceOne(ctx, bson.D{{Key: "_id", Value: int32(2)}}, bson.D{{Key: "b", Value: "x"}}, false); err != nil {
		t.Fatal(err)
	}
	d, _ = c.FindOne(ctx, bson.D{{Key: "_id", Value: int32(2)}})
	if v, _ := get(d, "b"); v != "x" {
		t.Errorf("replaced document %v", d)
	}
	mustValidate(t, db, "db", "c")
	// A duplicate _id is refused, and the stored document is untouched.
	_, err = c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(3)}, {Key: "a", Value: int32(9)}})
	checkCode(t, "duplicate _id", err, 11000, "dup key")
	// Deletes remove both keys.
	if r, err := c.DeleteMany(ctx, bson.D{{Key: "a", Value: int32(7)}}); err != nil || r.DeletedCount != 3 {
		t.Fatalf("DeleteMany: %v %v", r, err)
	}
	if r, err := c.DeleteOne(ctx, bson.D{{Key: "_id", Value: int32(4)}}); err != nil || r.DeletedCount != 1 {
		t.Fatalf("DeleteOne: %v %v", r, err)
	}
	// _id 2 is left, with its a entry (null: it has no a).
	if n := countPrefix(t, db, lsm.CollectionIndexPrefix(m.ID)); n != 2 {
		t.Errorf("%d index keys after deletes, want 2", n)
	}
	if r := mustValidate(t, db, "db", "c"); r.Records != 1 {
		t.Errorf("validate counts %d records, want 1", r.Records)
	}
}

// TestClusteredRecordIDsSurviveReopen: record ids come from a reserved
// block, so ids used before a reopen are never handed out again (a
// reused id would overwrite the secondary entry of an equal key).
func TestClusteredRecordIDsSurviveReopen(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, clk, dir := openTest(t)
	c := clusteredColl(t, db, "c")
	if _, err := c.CreateIndex(ctx, IndexModel{Keys: bson.D{{Key: "a", Value: int32(1)}}}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: int32(1)}}); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 3; round++ {
		db = reopen(t, db, dir, clk)
		c = db.Database("db").Collection("c")
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: int32(2 + round)}, {Key: "a", Value: int32(1)}}); err != nil {
			t.Fatal(err)
		}
		docs := cfind(t, c, bson.D{{Key: "a", Value: int32(1)}}, &FindOptions{Hint: "a_1"})
		if len(docs) != round+2 {
			t.Fatalf("round %d: a=1 finds %v, want %d documents", round, docIDs(docs), round+2)
		}
		mustValidate(t, db, "db", "c")
	}
}

// TestClusteredTTL: a TTL index on a clustered collection expires
// documents like any other, deleting two keys a document.
func TestClusteredTTL(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, clk := openMem(t)
	c := clusteredColl(t, db, "c")
	if _, err := c.CreateIndex(ctx, IndexModel{Keys: bson.D{{Key: "t", Value: int32(1)}},
		Options: bson.D{{Key: "expireAfterSeconds", Value: int32(60)}}}); err != nil {
		t.Fatal(err)
	}
	now := clk.Now()
	var docs []any
	for i := 0; i < 300; i++ {
		// _ids in reverse of expiry order, so a batch's documents are
		// read out of TTL-index order.
		at := now.Add(time.Duration(i) * time.Second)
		docs = append(docs, bson.D{{Key: "_id", Value: int64(1000 - i)}, {Key: "t", Value: bson.NewDateTimeFromTime(at)}})
	}
	if _, err := c.InsertMany(ctx, docs, true); err != nil {
		t.Fatal(err)
	}
	db.SetParameter("batchedDeletesTargetBatchDocs", int64(7))
	// Cut-off now+100s-60s: the documents dated at or before now+40s.
	clk.Advance(100 * time.Second)
	res, err := db.RunTTLPass(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if res.Deleted != 41 {
		t.Fatalf("pass deleted %d, want 41", res.Deleted)
	}
	left := cfind(t, c, bson.D{}, nil)
	if len(left) != 259 {
		t.Fatalf("%d documents left, want 259", len(left))
	}
	if id, _ := get(left[len(left)-1], "_id"); id != int64(959) {
		t.Errorf("highest _id left %v, want 959", id)
	}
	m := db.lookup("db", "c").m()
	if n := countPrefix(t, db, lsm.CollectionIndexPrefix(m.ID)); n != 2*259 {
		t.Errorf("%d index keys, want %d", n, 2*259)
	}
	mustValidate(t, db, "db", "c")
}

// TestClusteredCreateErrors: create's clusteredIndex option, with
// MongoDB's codes (create_command.cpp, create_collection.cpp,
// clustered_collection_util.cpp), and nothing created by a refusal.
func TestClusteredCreateErrors(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	cases := []struct {
		cmd  string
		code document.Code
		frag string
	}{
		{`{"create": "c", "clusteredIndex": "x"}`, 14, "wrong type 'string'"},
		{`{"create": "c", "clusteredIndex": true}`, 5979703, "legacy format"},
		{`{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true, "foo": 1}}`, 40415, "'create.clusteredIndex.foo' is an unknown field"},
		{`{"create": "c", "clusteredIndex": {"key": {"_id": 1}}}`, 40414, "'create.clusteredIndex.unique' is missing"},
		{`{"create": "c", "clusteredIndex": {"unique": true}}`, 40414, "'create.clusteredIndex.key' is missing"},
		{`{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": false}}`, 5979700, "requires unique: true"},
		{`{"create": "c", "clusteredIndex": {"key": {"a": 1}, "unique": false}}`, 5979700, "requires unique: true"},
		{`{"create": "c", "clusteredIndex": {"key": {"a": 1}, "unique": true}}`, 197, "only supported for key: {_id: 1}"},
		{`{"create": "c", "clusteredIndex": {"key": {"_id": -1}, "unique": true}}`, 197, "only supported for key: {_id: 1}"},
		{`{"create": "c", "clusteredIndex": {"key": {"_id": 1, "a": 1}, "unique": true}}`, 197, "only supported for key: {_id: 1}"},
		{`{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true, "v": 1}}`, 5979704, "cannot create a clusteredIndex with v=1"},
		{`{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true, "name": 3}}`, 14, "'create.clusteredIndex.name' is the wrong type"},
		{`{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}, "capped": true}`, 6127800, "Clustered capped collection"},
		{`{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}, "capped": true, "size": 4096}`, 6049200, "'size' field"},
		{`{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}, "max": 10}`, 6049204, "'max' field"},
		{`{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}, "idIndex": {"key": {"_id": 1}, "name": "_id_"}}`, 72, "not supported with the 'idIndex' option"},
		{`{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}, "autoIndexId": false}`, 6026501, "does not support {autoIndexId: false}"},
		{`{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}, "timeseries": {"timeField": "t"}}`, 72, "'timeseries' is not allowed with"},
	}
	for _, tc := range cases {
		wantCode(t, db, "db", tc.cmd, tc.code, tc.frag)
		if db.lookup("db", "c") != nil {
			t.Fatalf("%s: a refused create left the collection", tc.cmd)
		}
	}
	// clusteredIndex: false is an ordinary collection.
	mustRun(t, db, "db", `{"create": "plain", "clusteredIndex": false}`)
	if m := db.lookup("db", "plain").m(); m.Clustered {
		t.Error("clusteredIndex: false made a clustered collection")
	}
}

// TestClusteredListingsAndDrop: listCollections shows the filled-in
// clusteredIndex spec and no idIndex, listIndexes the clustered index
// with clustered: true; creating again with the same spec succeeds,
// with another fails 48; the clustered index cannot be dropped.
func TestClusteredListingsAndDrop(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "db", `{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`)
	r := mustRun(t, db, "db", `{"listCollections": 1}`)
	batch := field(r, "cursor.firstBatch").(bson.A)
	entry := batch[0].(bson.D)
	wantSpec := bson.D{{Key: "v", Value: int32(2)}, {Key: "key", Value: bson.D{{Key: "_id", Value: int32(1)}}}, {Key: "name", Value: "_id_"}, {Key: "unique", Value: true}}
	if got := field(entry, "options.clusteredIndex"); !document.Equal(got.(bson.D), wantSpec) {
		t.Errorf("listCollections clusteredIndex = %v, want %v", got, wantSpec)
	}
	if _, ok := get(entry, "idIndex"); ok {
		t.Error("listCollections shows an idIndex for a clustered collection")
	}
	r = mustRun(t, db, "db", `{"listIndexes": "c"}`)
	ixs := field(r, "cursor.firstBatch").(bson.A)
	want := append(slices.Clone(wantSpec), bson.E{Key: "clustered", Value: true})
	if len(ixs) != 1 || !document.Equal(ixs[0].(bson.D), want) {
		t.Errorf("listIndexes = %v, want [%v]", ixs, want)
	}
	// The same spec (name filled in or not) is no change; another is 48.
	mustRun(t, db, "db", `{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true, "name": "_id_"}}`)
	wantCode(t, db, "db", `{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true, "name": "other"}}`, 48, "already exists")
	wantCode(t, db, "db", `{"create": "c"}`, 48, "already exists")
	wantCode(t, db, "db", `{"dropIndexes": "c", "index": "_id_"}`, 5979800, "illegal to drop the clusteredIndex")
	wantCode(t, db, "db", `{"dropIndexes": "c", "index": {"_id": 1}}`, 5979800, "illegal to drop the clusteredIndex")
	// A custom name names the index.
	mustRun(t, db, "db", `{"create": "n", "clusteredIndex": {"key": {"_id": 1}, "unique": true, "name": "byId"}}`)
	r = mustRun(t, db, "db", `{"listIndexes": "n"}`)
	if n := field(field(r, "cursor.firstBatch").(bson.A)[0].(bson.D), "name"); n != "byId" {
		t.Errorf("clustered index name %v, want byId", n)
	}
}

// TestClusteredRenameAndConvert: a renamed clustered collection stays
// clustered with its documents; convertToCapped makes an ordinary
// capped collection of its documents, in natural (_id) order.
func TestClusteredRenameAndConvert(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, clk, dir := openTest(t)
	c := clusteredColl(t, db, "c")
	for _, id := range []int32{3, 1, 2} {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
			t.Fatal(err)
		}
	}
	mustRun(t, db, "admin", `{"renameCollection": "db.c", "to": "db.r"}`)
	db = reopen(t, db, dir, clk)
	if m := db.lookup("db", "r").m(); !m.Clustered {
		t.Fatal("renamed collection is not clustered after reopen")
	}
	r := db.Database("db").Collection("r")
	if got := docIDs(cfind(t, r, bson.D{}, nil)); !reflect.DeepEqual(got, []any{int32(1), int32(2), int32(3)}) {
		t.Errorf("renamed collection holds %v", got)
	}
	mustValidate(t, db, "db", "r")
	mustRun(t, db, "db", `{"convertToCapped": "r", "size": 100000}`)
	if m := db.lookup("db", "r").m(); m.Kind != catalog.KindCapped || m.Clustered {
		t.Fatalf("converted collection kind %s clustered %v", m.Kind, m.Clustered)
	}
	if got := docIDs(cfind(t, r, bson.D{}, nil)); !reflect.DeepEqual(got, []any{int32(1), int32(2), int32(3)}) {
		t.Errorf("capped collection holds %v", got)
	}
}

// TestClusteredTTLByID: a clustered collection with expireAfterSeconds
// expires the documents whose _id is a date at or before the cut-off;
// other _ids never expire. collMod changes the value or turns it off;
// reopening keeps it.
func TestClusteredTTLByID(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, clk, dir := openTest(t)
	mustRun(t, db, "db", `{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}, "expireAfterSeconds": 60}`)
	r := mustRun(t, db, "db", `{"listCollections": 1}`)
	entry := field(r, "cursor.firstBatch").(bson.A)[0].(bson.D)
	if v := field(entry, "options.expireAfterSeconds"); v != int64(60) {
		t.Errorf("listCollections expireAfterSeconds = %v (%T), want int64 60", v, v)
	}
	r = mustRun(t, db, "db", `{"listIndexes": "c"}`)
	ix := field(r, "cursor.firstBatch").(bson.A)[0].(bson.D)
	if v := field(ix, "expireAfterSeconds"); v != int64(60) || field(ix, "clustered") != true {
		t.Errorf("listIndexes entry %v", ix)
	}
	c := db.Database("db").Collection("c")
	now := clk.Now()
	at := func(d time.Duration) bson.DateTime { return bson.NewDateTimeFromTime(now.Add(d)) }
	docs := []any{
		bson.D{{Key: "_id", Value: at(-2 * time.Minute)}},
		bson.D{{Key: "_id", Value: at(-60 * time.Second)}}, // exactly at the cut-off: expires
		bson.D{{Key: "_id", Value: at(-30 * time.Second)}},
		bson.D{{Key: "_id", Value: at(time.Hour)}},
		bson.D{{Key: "_id", Value: int32(1)}},
		bson.D{{Key: "_id", Value: "x"}},
	}
	if _, err := c.InsertMany(ctx, docs, true); err != nil {
		t.Fatal(err)
	}
	pass := func(want int64) {
		t.Helper()
		res, err := db.RunTTLPass(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if res.Deleted != want {
			t.Fatalf("pass deleted %d, want %d", res.Deleted, want)
		}
	}
	pass(2)
	if n, _ := c.CountDocuments(ctx, bson.D{}); n != 4 {
		t.Fatalf("%d documents left, want 4", n)
	}
	mustRun(t, db, "db", `{"collMod": "c", "expireAfterSeconds": 10}`)
	pass(1) // the one dated 30 s ago
	mustRun(t, db, "db", `{"collMod": "c", "expireAfterSeconds": "off"}`)
	r = mustRun(t, db, "db", `{"listCollections": 1}`)
	if _, ok := getDoc(field(r, "cursor.firstBatch").(bson.A)[0].(bson.D), "options"); !ok {
		t.Fatal("no options")
	} else if v := field(field(r, "cursor.firstBatch").(bson.A)[0].(bson.D), "options.expireAfterSeconds"); v != nil {
		t.Errorf("expireAfterSeconds %v after \"off\"", v)
	}
	clk.Advance(2 * time.Hour)
	pass(0) // off: the date an hour ahead is now past, but nothing expires
	mustRun(t, db, "db", `{"collMod": "c", "expireAfterSeconds": 0}`)
	db = reopen(t, db, dir, clk)
	c = db.Database("db").Collection("c")
	pass(1)
	left := docIDs(cfind(t, c, bson.D{}, nil))
	if !reflect.DeepEqual(left, []any{int32(1), "x"}) {
		t.Errorf("left %v, want the non-date _ids", left)
	}
	mustValidate(t, db, "db", "c")
	// docs/collmod.md §5.2's errors, on a clustered collection.
	wantCode(t, db, "db", `{"collMod": "c", "expireAfterSeconds": "on"}`, 72, "expected \"off\"")
	wantCode(t, db, "db", `{"collMod": "c", "expireAfterSeconds": {"a": 1}}`, 14, "wrong type")
	wantCode(t, db, "db", `{"collMod": "c", "expireAfterSeconds": -1}`, 72, "cannot be less than 0")
	wantCode(t, db, "db", `{"create": "d", "clusteredIndex": {"key": {"_id": 1}, "unique": true}, "expireAfterSeconds": -5}`, 72, "cannot be less than 0")
	wantCode(t, db, "db", `{"create": "d", "clusteredIndex": false, "expireAfterSeconds": 5}`, 72, "only supported on time-series")
	wantCode(t, db, "db", `{"collMod": "c", "index": {"name": "_id_", "expireAfterSeconds": 5}}`, 72, "_id field does not support TTL")
}
