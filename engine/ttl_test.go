package engine

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// docs/ttl-indexes.md §1.2–1.4: TTL option validation; nothing is created on error.
func TestTTLIndexValidation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	cases := []struct {
		spec string
		code document.Code
		frag string
	}{
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": "3600"}`, document.CodeCannotCreateIndex, "must be numeric"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": true}`, document.CodeCannotCreateIndex, "must be numeric"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": null}`, document.CodeCannotCreateIndex, "must be numeric"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"a": 1}}`, document.CodeCannotCreateIndex, "must be numeric"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$numberDouble": "NaN"}}`, document.CodeCannotCreateIndex, "must not be NaN"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 2147483648}`, document.CodeCannotCreateIndex, "within the range of a 32-bit integer"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 999999999999999}`, document.CodeCannotCreateIndex, "within the range of a 32-bit integer"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 9.223372036854775807e18}`, document.CodeCannotCreateIndex, "within the range of a 32-bit integer"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": -2147483649}`, document.CodeCannotCreateIndex, "within the range of a 32-bit integer"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": -1}`, document.CodeCannotCreateIndex, "cannot be less than 0"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$numberLong": "-1"}}`, document.CodeCannotCreateIndex, "cannot be less than 0"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$numberDecimal": "-5"}}`, document.CodeCannotCreateIndex, "cannot be less than 0"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$numberLong": "2147483648"}}`, document.CodeCannotCreateIndex, "within the range of a 32-bit integer"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$numberLong": "9223372036854775807"}}`, document.CodeCannotCreateIndex, "within the range of a 32-bit integer"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$numberDecimal": "2147483648"}}`, document.CodeCannotCreateIndex, "within the range of a 32-bit integer"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$numberDouble": "Infinity"}}`, document.CodeCannotCreateIndex, "within the range of a 32-bit integer"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$numberDouble": "-Infinity"}}`, document.CodeCannotCreateIndex, "within the range of a 32-bit integer"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$numberDecimal": "NaN"}}`, document.CodeCannotCreateIndex, "must not be NaN"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": [5]}`, document.CodeCannotCreateIndex, "must be numeric"},
		{`{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": {"$date": "2020-01-01T00:00:00Z"}}`, document.CodeCannotCreateIndex, "must be numeric"},
		{`{"key": {"t": 1, "u": 1}, "name": "t_1_u_1", "expireAfterSeconds": 10}`, document.CodeCannotCreateIndex, "compound indexes do not support TTL"},
		{`{"key": {"$**": 1}, "name": "w", "expireAfterSeconds": 10}`, document.CodeCannotCreateIndex, "expireAfterSeconds"},
		{`{"key": {"_id": 1}, "name": "_id_", "expireAfterSeconds": 10}`, document.CodeInvalidIndexSpecificationOption, "is not valid for an _id index specification"},
		{`{"key": {"_id": 1}, "name": "other", "expireAfterSeconds": 10}`, document.CodeInvalidIndexSpecificationOption, "is not valid for an _id index specification"},
		// MongoDB's isIdIndexPattern takes {_id: -1} for the _id pattern too.
		{`{"key": {"_id": -1}, "name": "_id_-1", "expireAfterSeconds": 10}`, document.CodeInvalidIndexSpecificationOption, "is not valid for an _id index specification"},
		{`{"key": {"t": 1}, "name": "t_1", "sparse": true, "partialFilterExpression": {"a": 1}, "expireAfterSeconds": 10}`, document.CodeCannotCreateIndex, "sparse"},
	}
	coll := db.Database("test").Collection("c")
	for _, c := range cases {
		cmd := fmt.Sprintf(`{"createIndexes": "c", "indexes": [%s]}`, c.spec)
		wantCode(t, db, "test", cmd, c.code, c.frag)
		// The Go API: the same code and message, both ways in.
		spec, err := document.ParseExtJSON([]byte(c.spec))
		if err != nil {
			t.Fatal(err)
		}
		_, err = coll.CreateIndexes(context.Background(), []bson.D{spec})
		checkCode(t, "CreateIndexes "+c.spec, err, c.code, c.frag)
		key, _ := get(spec, "key")
		var opts bson.D
		for _, e := range spec {
			if e.Key != "key" {
				opts = append(opts, e)
			}
		}
		_, err = coll.CreateIndex(context.Background(), IndexModel{Keys: key.(bson.D), Options: opts})
		checkCode(t, "CreateIndex "+c.spec, err, c.code, c.frag)
		if db.lookup("test", "c") != nil {
			t.Fatalf("%s: the failed createIndexes created the collection", c.spec)
		}
	}
	// One invalid spec among several: none is created (and no collection).
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"_id": 1}, "name": "_id_", "expireAfterSeconds": 5}]}`,
		document.CodeInvalidIndexSpecificationOption, "_id index")
	if c := db.lookup("test", "c"); c != nil {
		t.Fatalf("a failed createIndexes created the collection with %d indexes", len(c.m().Indexes))
	}
	// On an existing collection, too, one invalid spec means none is
	// built, through the command and the Go API.
	mustRun(t, db, "test", `{"create": "c"}`)
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1", "expireAfterSeconds": 5}, {"key": {"b": 1}, "name": "b_1", "expireAfterSeconds": -1}]}`,
		document.CodeCannotCreateIndex, "cannot be less than 0")
	_, err := coll.CreateIndexes(context.Background(), []bson.D{
		{{Key: "key", Value: bson.D{{Key: "a", Value: 1}}}, {Key: "name", Value: "a_1"}, {Key: "expireAfterSeconds", Value: 5}},
		{{Key: "key", Value: bson.D{{Key: "a", Value: 1}, {Key: "b", Value: 1}}}, {Key: "name", Value: "a_1_b_1"}, {Key: "expireAfterSeconds", Value: 5}}})
	checkCode(t, "CreateIndexes with a compound TTL spec", err, document.CodeCannotCreateIndex, "compound indexes do not support TTL")
	if names := indexNames(t, db, "test", "c"); names != "_id_" {
		t.Fatalf("failed createIndexes built indexes: %s", names)
	}
	if len(db.ttlTargets()) != 0 {
		t.Fatal("failed createIndexes left a TTL target")
	}
}

// docs/ttl-indexes.md §1.2: the bounds and every numeric type are accepted, truncated
// toward zero and listed as int32, through the command and the Go API.
func TestTTLIndexValidValues(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	cases := []struct {
		value string
		goVal any
		want  int32
	}{
		{`0`, int32(0), 0},
		{`7`, 7, 7}, // a Go int
		{`2147483647`, int32(math.MaxInt32), math.MaxInt32},
		{`{"$numberLong": "2147483647"}`, int64(math.MaxInt32), math.MaxInt32},
		{`{"$numberLong": "3600"}`, int64(3600), 3600},
		{`3600.9`, 3600.9, 3600},
		{`2147483647.9`, 2147483647.9, math.MaxInt32},
		{`{"$numberDecimal": "3600.9"}`, mustDecimal(t, "3600.9"), 3600},
		{`{"$numberDecimal": "0"}`, mustDecimal(t, "0"), 0},
		{`{"$numberDecimal": "-0.0"}`, mustDecimal(t, "-0.0"), 0},
	}
	for i, c := range cases {
		cmdColl, goColl := fmt.Sprintf("cmd%d", i), fmt.Sprintf("go%d", i)
		mustRun(t, db, "test", fmt.Sprintf(`{"createIndexes": %q, "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": %s}]}`, cmdColl, c.value))
		if got := field(listedIndex(t, db, cmdColl, "t_1"), "expireAfterSeconds"); got != c.want {
			t.Errorf("createIndexes expireAfterSeconds %s: listed %#v, want int32(%d)", c.value, got, c.want)
		}
		name, err := db.Database("test").Collection(goColl).CreateIndex(context.Background(),
			IndexModel{Keys: bson.D{{Key: "t", Value: 1}}, Options: bson.D{{Key: "expireAfterSeconds", Value: c.goVal}}})
		if err != nil || name != "t_1" {
			t.Fatalf("CreateIndex expireAfterSeconds %#v = %q, %v", c.goVal, name, err)
		}
		if got := field(listedIndex(t, db, goColl, "t_1"), "expireAfterSeconds"); got != c.want {
			t.Errorf("CreateIndex expireAfterSeconds %#v: listed %#v, want int32(%d)", c.goVal, got, c.want)
		}
		res, err := db.Database("test").Collection(goColl+"s").CreateIndexes(context.Background(), []bson.D{
			{{Key: "key", Value: bson.D{{Key: "t", Value: 1}}}, {Key: "name", Value: "t_1"}, {Key: "expireAfterSeconds", Value: c.goVal}}})
		if err != nil || res.NumIndexesAfter != 2 || !res.CreatedCollectionAutomatically {
			t.Fatalf("CreateIndexes expireAfterSeconds %#v = %+v, %v", c.goVal, res, err)
		}
		if got := field(listedIndex(t, db, goColl+"s", "t_1"), "expireAfterSeconds"); got != c.want {
			t.Errorf("CreateIndexes expireAfterSeconds %#v: listed %#v, want int32(%d)", c.goVal, got, c.want)
		}
	}
}

// docs/ttl-indexes.md §1.1: a field named expireAfterSeconds inside key is an
// ordinary compound index.
func TestTTLFieldNamedExpireAfterSecondsIsNotTTL(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "expireAfterSeconds": 1}, "name": "x"}]}`)
	ixs, _ := db.Database("test").Collection("c").ListIndexes(context.Background())
	if len(ixs) != 2 {
		t.Fatalf("indexes = %v", ixs)
	}
	if _, ok := get(ixs[1], "expireAfterSeconds"); ok {
		t.Fatalf("compound index became TTL: %v", ixs[1])
	}
	if len(db.ttlTargets()) != 0 {
		t.Fatalf("monitor targets a non-TTL index")
	}
}

// docs/ttl-indexes.md §1.2, §1.6: fractional values truncate; reply and listing shapes.
func TestCreateIndexesReplyAndListing(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	r := mustRun(t, db, "test", `{"createIndexes": "events", "indexes": [{"key": {"createdAt": 1}, "name": "createdAt_1", "expireAfterSeconds": 3600.9}]}`)
	if field(r, "numIndexesBefore") != int32(1) || field(r, "numIndexesAfter") != int32(2) || field(r, "createdCollectionAutomatically") != true {
		t.Fatalf("reply = %v", r)
	}
	mustRun(t, db, "test", `{"createIndexes": "events", "indexes": [{"key": {"t": -1}, "name": "t_-1"}, {"key": {"a": 1, "b": -1}, "name": "a_1_b_-1"}]}`)
	r = mustRun(t, db, "test", `{"listIndexes": "events"}`)
	batch := field(r, "cursor.firstBatch").(bson.A)
	var names []string
	for _, e := range batch {
		d := e.(bson.D)
		names = append(names, field(d, "name").(string))
		if field(d, "v") != int32(2) {
			t.Errorf("index %v: v != 2", d)
		}
	}
	want := []string{"_id_", "createdAt_1", "t_-1", "a_1_b_-1"}
	if fmt.Sprint(names) != fmt.Sprint(want) {
		t.Fatalf("names = %v, want %v", names, want)
	}
	if v := field(batch[1].(bson.D), "expireAfterSeconds"); v != int32(3600) {
		t.Fatalf("expireAfterSeconds listed as %#v, want int32(3600)", v)
	}
	// Entries start {v, key, name}; the Go API lists the same entries.
	goList, err := db.Database("test").Collection("events").ListIndexes(context.Background())
	if err != nil || len(goList) != len(batch) {
		t.Fatalf("ListIndexes = %v, %v", goList, err)
	}
	for i, e := range batch {
		d := e.(bson.D)
		if len(d) < 3 || d[0].Key != "v" || d[1].Key != "key" || d[2].Key != "name" {
			t.Errorf("listIndexes entry %v does not start with v, key, name", d)
		}
		if !docIdentical(d, goList[i]) {
			t.Errorf("ListIndexes[%d] = %v, listIndexes has %v", i, goList[i], d)
		}
	}
}

// docs/ttl-indexes.md §1.5: conflicts and identical specs.
func TestTTLIndexConflicts(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 100}]}`)
	r := mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 100}]}`)
	if field(r, "note") != "all indexes already exist" || field(r, "numIndexesBefore") != field(r, "numIndexesAfter") {
		t.Fatalf("identical spec reply = %v", r)
	}
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 200}]}`,
		document.CodeIndexOptionsConflict, "already exists with the same name but different options")
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"u": 1}, "name": "u_1"}]}`)
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"u": 1}, "name": "u_1", "expireAfterSeconds": 5}]}`,
		document.CodeIndexOptionsConflict, "already exists with the same name but different options")
	// Another name for the same key: MongoDB's message says the names differ.
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"u": 1}, "name": "u_ttl", "expireAfterSeconds": 5}]}`,
		document.CodeIndexOptionsConflict, "An equivalent index already exists with a different name and options.")
	// The 64-index limit.
	for i := 3; i < maxIndexes; i++ {
		mustRun(t, db, "test", fmt.Sprintf(`{"createIndexes": "c", "indexes": [{"key": {"f%d": 1}, "name": "f%d"}]}`, i, i))
	}
	wantCode(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"g": 1}, "name": "g"}]}`, document.CodeCannotCreateIndex, "too many indexes")
}

// insertDates inserts {_id: i, t: v} for each value.
func insertDocs(t *testing.T, db *DB, coll string, docs ...bson.D) {
	t.Helper()
	in := make([]any, len(docs))
	for i, d := range docs {
		in[i] = d
	}
	if _, err := db.Database("test").Collection(coll).InsertMany(context.Background(), in, true); err != nil {
		t.Fatalf("insert: %v", err)
	}
}

func ids(t *testing.T, db *DB, coll string) []any {
	t.Helper()
	var out []any
	for _, d := range findAll(t, db, "test", coll, bson.D{}) {
		out = append(out, idOf(d))
	}
	return out
}

func pass(t *testing.T, db *DB) *TTLPassResult {
	t.Helper()
	r, err := db.RunTTLPass(context.Background())
	if err != nil {
		t.Fatalf("ttl pass: %v", err)
	}
	return r
}

func dt(tm time.Time) bson.DateTime { return bson.NewDateTimeFromTime(tm) }

// docs/ttl-indexes.md §2.1–2.4: which documents expire.
func TestExpiryRules(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	c := db.Database("test").Collection("c")
	if _, err := c.CreateIndex(context.Background(), IndexModel{Keys: bson.D{{Key: "t", Value: 1}}, Options: bson.D{{Key: "expireAfterSeconds", Value: 60}}}); err != nil {
		t.Fatal(err)
	}
	oid := bson.NewObjectID()
	insertDocs(t, db, "c",
		bson.D{{Key: "_id", Value: "exactly-cutoff"}, {Key: "t", Value: dt(now.Add(-60 * time.Second))}},
		bson.D{{Key: "_id", Value: "one-ms-after-cutoff"}, {Key: "t", Value: dt(now.Add(-60*time.Second + time.Millisecond))}},
		bson.D{{Key: "_id", Value: "old"}, {Key: "t", Value: dt(now.Add(-time.Hour))}},
		bson.D{{Key: "_id", Value: "pre-1970"}, {Key: "t", Value: dt(time.Date(1960, 1, 1, 0, 0, 0, 0, time.UTC))}},
		bson.D{{Key: "_id", Value: "string"}, {Key: "t", Value: "2000-01-01"}},
		bson.D{{Key: "_id", Value: "number"}, {Key: "t", Value: int64(0)}},
		bson.D{{Key: "_id", Value: "null"}, {Key: "t", Value: nil}},
		bson.D{{Key: "_id", Value: "bool"}, {Key: "t", Value: true}},
		bson.D{{Key: "_id", Value: "timestamp"}, {Key: "t", Value: bson.Timestamp{T: 1, I: 1}}},
		bson.D{{Key: "_id", Value: "objectid"}, {Key: "t", Value: oid}},
		bson.D{{Key: "_id", Value: "regex"}, {Key: "t", Value: bson.Regex{Pattern: "x"}}},
		bson.D{{Key: "_id", Value: "embedded"}, {Key: "t", Value: bson.D{{Key: "d", Value: dt(now.Add(-time.Hour))}}}},
		bson.D{{Key: "_id", Value: "missing"}},
		bson.D{{Key: "_id", Value: "array-earliest-old"}, {Key: "t", Value: bson.A{dt(now.Add(time.Hour)), "x", dt(now.Add(-2 * time.Hour))}}},
		bson.D{{Key: "_id", Value: "array-all-new"}, {Key: "t", Value: bson.A{dt(now.Add(time.Hour)), int32(5)}}},
		bson.D{{Key: "_id", Value: "future"}, {Key: "t", Value: dt(now.Add(time.Hour))}},
	)
	// §2.6: expired documents stay visible until the monitor runs.
	if n := count(t, db, "test", "c"); n != 16 {
		t.Fatalf("count before pass = %d", n)
	}
	r := pass(t, db)
	if r.Deleted != 4 {
		t.Fatalf("deleted %d, want 4 (%v)", r.Deleted, ids(t, db, "c"))
	}
	got := fmt.Sprint(ids(t, db, "c"))
	want := "[one-ms-after-cutoff string number null bool timestamp objectid regex embedded missing array-all-new future]"
	if got != want {
		t.Fatalf("survivors = %v\nwant        %v", got, want)
	}
	// A future date expires once date + expireAfterSeconds <= now.
	clk.Advance(time.Hour + 59*time.Second)
	if n := pass(t, db).Deleted; n != 1 { // one-ms-after-cutoff only
		t.Fatalf("deleted %d, want 1", n)
	}
	clk.Advance(time.Second)
	if n := pass(t, db).Deleted; n != 2 { // future and array-all-new's date
		t.Fatalf("deleted %d, want 2: %v", n, ids(t, db, "c"))
	}
	mustValidate(t, db, "test", "c")
	if got := db.Stats().TTLDeletedDocuments; got != 7 {
		t.Fatalf("ttl.deletedDocuments = %d, want 7", got)
	}
}

// docs/ttl-indexes.md §2.4: expireAfterSeconds 0 expires each document at its own time.
func TestExpireAtClockTime(t *testing.T) {
	t.Parallel()
	db, clk, _ := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "log_events", "indexes": [{"key": {"expireAt": 1}, "name": "expireAt_1", "expireAfterSeconds": 0}]}`)
	now := clk.Now()
	insertDocs(t, db, "log_events",
		bson.D{{Key: "_id", Value: 1}, {Key: "expireAt", Value: dt(now.Add(10 * time.Second))}},
		bson.D{{Key: "_id", Value: 2}, {Key: "expireAt", Value: dt(now.Add(20 * time.Second))}})
	if n := pass(t, db).Deleted; n != 0 {
		t.Fatalf("deleted %d before any expireAt", n)
	}
	clk.Advance(10 * time.Second)
	if n := pass(t, db).Deleted; n != 1 {
		t.Fatalf("deleted %d at the first expireAt", n)
	}
	clk.Advance(10 * time.Second)
	if n := pass(t, db).Deleted; n != 1 || count(t, db, "test", "log_events") != 0 {
		t.Fatalf("second document not expired")
	}
}

// docs/ttl-indexes.md §2.5: descending keys, partial and hidden indexes, drop and reopen.
func TestExpiryIndexKinds(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"createIndexes": "desc", "indexes": [{"key": {"t": -1}, "name": "t_-1", "expireAfterSeconds": 10}]}`)
	mustRun(t, db, "test", `{"createIndexes": "part", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10, "partialFilterExpression": {"kind": "temp"}}]}`)
	mustRun(t, db, "test", `{"createIndexes": "hid", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10, "hidden": true}]}`)
	mustRun(t, db, "test", `{"createIndexes": "dropped", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`)
	mustRun(t, db, "test", `{"createIndexes": "reopened", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`)
	old, fresh := dt(now.Add(-time.Minute)), dt(now)
	for _, c := range []string{"desc", "hid", "dropped", "reopened"} {
		insertDocs(t, db, c, bson.D{{Key: "_id", Value: "old"}, {Key: "t", Value: old}}, bson.D{{Key: "_id", Value: "new"}, {Key: "t", Value: fresh}})
	}
	insertDocs(t, db, "part",
		bson.D{{Key: "_id", Value: "old-temp"}, {Key: "t", Value: old}, {Key: "kind", Value: "temp"}},
		bson.D{{Key: "_id", Value: "old-keep"}, {Key: "t", Value: old}, {Key: "kind", Value: "keep"}},
		bson.D{{Key: "_id", Value: "new-temp"}, {Key: "t", Value: fresh}, {Key: "kind", Value: "temp"}})
	mustRun(t, db, "test", `{"dropIndexes": "dropped", "index": "t_1"}`)
	db = reopen(t, db, dir, clk)
	pass(t, db)
	for c, want := range map[string]string{"desc": "[new]", "hid": "[new]", "dropped": "[old new]", "reopened": "[new]", "part": "[old-keep new-temp]"} {
		if got := fmt.Sprint(ids(t, db, c)); got != want {
			t.Errorf("%s: survivors %s, want %s", c, got, want)
		}
		mustValidate(t, db, "test", c)
	}
}

// docs/ttl-indexes.md §2.6: a document updated so it no longer qualifies is not
// deleted by a batch that read the old version.
func TestReapRechecksInsideBatch(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`)
	insertDocs(t, db, "c", bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: dt(now.Add(-time.Hour))}})
	co := db.lookup("test", "c")
	rids := []uint64{1}
	// The reaper has chosen record 1; now a writer refreshes it.
	if _, err := db.Database("test").Collection("c").UpdateOne(context.Background(), bson.D{{Key: "_id", Value: 1}},
		bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: dt(now)}}}}, false); err != nil {
		t.Fatal(err)
	}
	ix := co.m().Index("t_1")
	bd := &batchDeleter{db: db, c: co, recheck: func(m *catalog.Coll, d bson.D) bool {
		return expiredUnder(indexByID(m, ix.ID), d, cutoffFor(db.now(), indexByID(m, ix.ID).Expire))
	}}
	n, err := bd.run(context.Background(), rids, nil)
	if err != nil || n != 0 {
		t.Fatalf("deleted %d (err %v): a refreshed document was reaped", n, err)
	}
	if count(t, db, "test", "c") != 1 {
		t.Fatal("document lost")
	}
}

// docs/ttl-monitor.md §3.1: parameters, validation, BadValue changes nothing.
func TestTTLParameters(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	r := mustRun(t, db, "admin", `{"getParameter": 1, "ttlMonitorSleepSecs": 1, "ttlMonitorEnabled": 1, "ttlIndexDeleteTargetDocs": 1, "ttlIndexDeleteTargetTimeMS": 1, "ttlMonitorSubPassTargetSecs": 1, "ttlMonitorBatchDeletes": 1}`)
	want := map[string]any{"ttlMonitorSleepSecs": int32(60), "ttlMonitorEnabled": true, "ttlIndexDeleteTargetDocs": int32(50000),
		"ttlIndexDeleteTargetTimeMS": int32(1000), "ttlMonitorSubPassTargetSecs": int32(60), "ttlMonitorBatchDeletes": true}
	for k, v := range want {
		if got := field(r, k); got != v {
			t.Errorf("%s = %#v, want %#v", k, got, v)
		}
	}
	bad := []string{
		`{"setParameter": 1, "ttlMonitorSleepSecs": 0}`,
		`{"setParameter": 1, "ttlMonitorSleepSecs": -5}`,
		`{"setParameter": 1, "ttlMonitorSleepSecs": "fast"}`,
		`{"setParameter": 1, "ttlIndexDeleteTargetDocs": -1}`,
		`{"setParameter": 1, "ttlIndexDeleteTargetTimeMS": -1}`,
		`{"setParameter": 1, "ttlMonitorSubPassTargetSecs": -1}`,
		`{"setParameter": 1, "ttlMonitorEnabled": "yes"}`,
		`{"setParameter": 1, "batchedDeletesTargetBatchDocs": -1}`,
	}
	for _, b := range bad {
		wantCode(t, db, "admin", b, document.CodeBadValue, "")
	}
	// A bad value next to a good one changes nothing.
	wantCode(t, db, "admin", `{"setParameter": 1, "ttlIndexDeleteTargetDocs": 7, "ttlMonitorSleepSecs": 0}`, document.CodeBadValue, "")
	if v, _ := db.GetParameter("ttlIndexDeleteTargetDocs"); v != int32(50000) {
		t.Fatalf("failed setParameter changed a value: %v", v)
	}
	r = mustRun(t, db, "admin", `{"setParameter": 1, "ttlMonitorSleepSecs": 5}`)
	if field(r, "was") != int32(60) {
		t.Fatalf("was = %v", field(r, "was"))
	}
	if _, err := db.SetParameter("ttlIndexDeleteTargetTimeMS", 0); err != nil {
		t.Fatalf("0 is valid for ttlIndexDeleteTargetTimeMS: %v", err)
	}
	wantCode(t, db, "test", `{"setParameter": 1, "ttlMonitorSleepSecs": 5}`, document.Code(13), "admin")
	if _, err := Open(t.TempDir(), Options{Params: map[string]any{"ttlMonitorSleepSecs": 0}}); err == nil {
		t.Fatal("Open accepted an invalid startup parameter")
	}
}

// docs/ttl-monitor.md §3.2: an index with many expired documents does
// not delay one with a single expired document by more than one visit.
// 2,500 documents at 50 a visit (ttlIndexDeleteTargetDocs) are fifty
// visits of the big index, which is what the check needs; the page's
// 25,000 took ten times as long to write and delete.
func TestTTLFairness(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	old := dt(clk.Now().Add(-time.Hour))
	mustRun(t, db, "test", `{"createIndexes": "big", "indexes": [{"key": {"t": 1}, "name": "big_t", "expireAfterSeconds": 1}]}`)
	mustRun(t, db, "test", `{"createIndexes": "small", "indexes": [{"key": {"t": 1}, "name": "small_t", "expireAfterSeconds": 1}]}`)
	const n = 2500
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: old}}
	}
	if _, err := db.Database("test").Collection("big").InsertMany(context.Background(), docs, true); err != nil {
		t.Fatal(err)
	}
	insertDocs(t, db, "small", bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: old}})
	db.SetParameter("ttlIndexDeleteTargetDocs", 50)
	bigVisits, smallSeen := 0, false
	db.opts.seams.visitHook = func(index string, deleted int64, more bool) {
		switch index {
		case "big_t":
			if !smallSeen {
				bigVisits++
			}
			if deleted > 50 {
				t.Errorf("a visit deleted %d documents, target 50", deleted)
			}
		case "small_t":
			if !smallSeen {
				smallSeen = true
				if c := count(t, db, "test", "small"); c != 0 {
					t.Errorf("small index's document survived its first visit")
				}
			}
		}
	}
	r := pass(t, db)
	if !smallSeen || bigVisits > 1 {
		t.Fatalf("small index visited after %d visits of the big one", bigVisits)
	}
	if r.Deleted != n+1 || count(t, db, "test", "big") != 0 {
		t.Fatalf("pass deleted %d, want %d", r.Deleted, n+1)
	}
	if s := db.Stats(); s.TTLPasses != 1 || s.TTLSubPasses < 1 {
		t.Fatalf("passes %d subPasses %d", s.TTLPasses, s.TTLSubPasses)
	}
}

// docs/ttl-monitor.md §3.2 with ttlMonitorSubPassTargetSecs 0: each index once per
// sub-pass, so a big index takes several sub-passes.
func TestSubPassPerVisit(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	old := dt(clk.Now().Add(-time.Hour))
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 1}]}`)
	var docs []bson.D
	for i := 0; i < 250; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: old}})
	}
	insertDocs(t, db, "c", docs...)
	db.SetParameter("ttlIndexDeleteTargetDocs", 100)
	db.SetParameter("ttlMonitorSubPassTargetSecs", 0)
	r := pass(t, db)
	// 100 + 100 + 50, the third visit finds no more: three sub-passes.
	if r.SubPasses != 3 || r.Deleted != 250 {
		t.Fatalf("subPasses %d deleted %d", r.SubPasses, r.Deleted)
	}
	st := mustRun(t, db, "admin", `{"serverStatus": 1}`)
	if field(st, "metrics.ttl.subPasses") != int64(3) || field(st, "metrics.ttl.passes") != int64(1) || field(st, "metrics.ttl.deletedDocuments") != int64(250) {
		t.Fatalf("metrics.ttl = %v", field(st, "metrics.ttl"))
	}
}

// docs/ttl-monitor.md §3.3: ttlMonitorBatchDeletes false deletes everything in one
// visit and leaves the batchedDeletes counters alone.
func TestTTLWithoutBatchDeletes(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	old := dt(clk.Now().Add(-time.Hour))
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 1}]}`)
	var docs []bson.D
	for i := 0; i < 300; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: old}})
	}
	insertDocs(t, db, "c", docs...)
	mustRun(t, db, "admin", `{"setParameter": 1, "ttlMonitorBatchDeletes": false, "ttlIndexDeleteTargetDocs": 10}`)
	visits := 0
	db.opts.seams.visitHook = func(string, int64, bool) { visits++ }
	r := pass(t, db)
	if r.Deleted != 300 || visits != 1 {
		t.Fatalf("deleted %d in %d visits", r.Deleted, visits)
	}
	if s := db.Stats(); s.BatchedDeleteBatches != 0 || s.BatchedDeleteDocs != 0 {
		t.Fatalf("batchedDeletes counters moved: %+v", s)
	}
}

// docs/ttl-monitor.md §3.4: currentOp shows the running TTL deletion.
func TestCurrentOpShowsTTLMonitor(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 1}]}`)
	insertDocs(t, db, "c", bson.D{{Key: "t", Value: dt(clk.Now().Add(-time.Hour))}})
	var seen bson.D
	db.opts.seams.visitStartHook = func() {
		r := mustRun(t, db, "admin", `{"currentOp": 1}`)
		for _, op := range field(r, "inprog").(bson.A) {
			if field(op.(bson.D), "desc") == "TTLMonitor" {
				seen = op.(bson.D)
			}
		}
	}
	pass(t, db)
	if seen == nil || field(seen, "op") != "remove" || field(seen, "ns") != "test.c" {
		t.Fatalf("currentOp during TTL deletion: %v", seen)
	}
	if len(db.CurrentOp()) != 0 {
		t.Fatalf("operation still listed after the pass: %v", db.CurrentOp())
	}
}

// currentOp's other fields filter the operations, as in MongoDB
// (db.currentOp({desc: "TTLMonitor"})); $all is an option, not a filter.
func TestCurrentOpFilter(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 1}]}`)
	insertDocs(t, db, "c", bson.D{{Key: "t", Value: dt(clk.Now().Add(-time.Hour))}})
	cases := []struct {
		cmd  string
		want int
	}{
		{`{"currentOp": 1}`, 1},
		{`{"currentOp": 1, "desc": "TTLMonitor"}`, 1},
		{`{"currentOp": 1, "$all": true, "ns": "test.c", "op": "remove"}`, 1},
		{`{"currentOp": 1, "op": "insert"}`, 0},
		{`{"currentOp": 1, "ns": {"$regex": "^other\\."}}`, 0},
	}
	got := make([]int, len(cases))
	var badErr error
	db.opts.seams.visitStartHook = func() {
		for i, tc := range cases {
			got[i] = len(field(mustRun(t, db, "admin", tc.cmd), "inprog").(bson.A))
		}
		_, badErr = db.RunCommand(context.Background(), "admin", bson.D{{Key: "currentOp", Value: 1}, {Key: "ns", Value: bson.D{{Key: "$bogus", Value: 1}}}})
	}
	pass(t, db)
	for i, tc := range cases {
		if got[i] != tc.want {
			t.Errorf("%s: %d operation(s), want %d", tc.cmd, got[i], tc.want)
		}
	}
	if document.CodeOf(badErr) != document.CodeBadValue {
		t.Errorf("currentOp with a bad filter: %v, want BadValue", badErr)
	}
}

// docs/ttl-monitor.md §3.5: only a primary deletes.
func TestSecondaryDoesNotReap(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	clk := newClock()
	db, err := Open(dir, Options{Clock: clk.Now, DisableTTLMonitor: true})
	if err != nil {
		t.Fatal(err)
	}
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 1}]}`)
	insertDocs(t, db, "c", bson.D{{Key: "t", Value: dt(clk.Now().Add(-time.Hour))}})
	db.Close()
	sec, err := Open(dir, Options{Clock: clk.Now, Role: RoleSecondary, Params: map[string]any{"ttlMonitorSleepSecs": 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer sec.Close()
	_, err = sec.RunTTLPass(context.Background())
	checkCode(t, "RunTTLPass on a secondary", err, document.CodeNotWritablePrimary, "")
	_, err = sec.Database("test").Collection("c").InsertOne(context.Background(), bson.D{})
	checkCode(t, "insert on a secondary", err, document.CodeNotWritablePrimary, "")
	if count(t, sec, "test", "c") != 1 {
		t.Fatal("secondary lost the document")
	}
}

// docs/ttl-monitor.md §3.1: the background monitor runs, and a change of
// ttlMonitorSleepSecs wakes it at once (60 s would time the test out).
func TestMonitorLoopWakesOnSleepChange(t *testing.T) {
	t.Parallel()
	clk := newClock()
	db, err := Open(t.TempDir(), Options{Clock: clk.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 1}]}`)
	insertDocs(t, db, "c", bson.D{{Key: "t", Value: dt(clk.Now().Add(-time.Hour))}})
	passes := make(chan TTLPassResult, 16)
	db.mon.SetPassHook(func(r TTLPassResult) { passes <- r })
	if _, err := db.SetParameter("ttlMonitorSleepSecs", 1); err != nil {
		t.Fatal(err)
	}
	select {
	case r := <-passes:
		if r.Deleted != 1 {
			t.Fatalf("background pass deleted %d", r.Deleted)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("monitor did not run within 20 s of ttlMonitorSleepSecs=1")
	}
}

// An explained delete of expired documents ({t: {$lt: cut-off}} on a TTL
// index) shows MongoDB's index bounds for a date range, the date type's
// ends printed as dates, not as words; numbers end at ±inf.0.
func TestExplainDateAndNumberBounds(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}, {"key": {"n": 1}, "name": "n_1"}]}`)
	cases := []struct{ cmd, path, want string }{
		{`{"explain": {"delete": "c", "deletes": [{"q": {"t": {"$lt": {"$date": "1970-01-01T00:00:01Z"}}}, "limit": 0}]}}`,
			"queryPlanner.winningPlan.inputStage.inputStage.indexBounds.t", "[[new Date(-9223372036854775808), new Date(1000))]"},
		{`{"explain": {"find": "c", "filter": {"t": {"$gte": {"$date": "1970-01-01T00:00:01Z"}}}}}`,
			"queryPlanner.winningPlan.inputStage.indexBounds.t", "[[new Date(1000), new Date(9223372036854775807)]]"},
		{`{"explain": {"find": "c", "filter": {"n": {"$gt": 5}}}}`,
			"queryPlanner.winningPlan.inputStage.indexBounds.n", "[(5, inf.0]]"},
	}
	for _, tc := range cases {
		r := mustRun(t, db, "test", tc.cmd)
		if got := fmt.Sprint(field(r, tc.path)); got != tc.want {
			t.Errorf("%s: %s = %s, want %s", tc.cmd, tc.path, got, tc.want)
		}
	}
}

// docs/ttl-monitor.md §3.1 through the Go setters and at open time: the defaults, the
// bounds of every TTL parameter (MongoDB's are 32-bit ints, and a
// larger sleep overflowed the monitor's timer into a busy loop), and a
// rejected value changes nothing.
func TestTTLParameterBounds(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t)
	ints := []struct {
		name     string
		def, min int32
	}{
		{"ttlMonitorSleepSecs", 60, 1},
		{"ttlMonitorSubPassTargetSecs", 60, 0},
		{"ttlIndexDeleteTargetTimeMS", 1000, 0},
		{"ttlIndexDeleteTargetDocs", 50000, 0},
	}
	for _, p := range ints {
		if v, err := db.GetParameter(p.name); err != nil || v != p.def {
			t.Fatalf("GetParameter(%s) = %#v, %v; want int32(%d)", p.name, v, err, p.def)
		}
		for _, bad := range []any{p.min - 1, int64(math.MaxInt32) + 1, int64(1) << 40, "5", 1.5, math.NaN(), math.Inf(1), nil, true} {
			_, err := db.SetParameter(p.name, bad)
			checkCode(t, fmt.Sprintf("SetParameter(%s, %#v)", p.name, bad), err, document.CodeBadValue, p.name)
		}
		for _, bad := range []string{fmt.Sprint(p.min - 1), `{"$numberLong": "2147483648"}`, `{"$numberLong": "1099511627776"}`, `2.5`} {
			wantCode(t, db, "admin", fmt.Sprintf(`{"setParameter": 1, %q: %s}`, p.name, bad), document.CodeBadValue, p.name)
		}
		if v, _ := db.GetParameter(p.name); v != p.def {
			t.Fatalf("%s changed by rejected values: %#v", p.name, v)
		}
		// Both ends of the range are valid; the setter returns the old value.
		if old, err := db.SetParameter(p.name, int64(math.MaxInt32)); err != nil || old != p.def {
			t.Fatalf("SetParameter(%s, MaxInt32) = %#v, %v", p.name, old, err)
		}
		if old, err := db.SetParameter(p.name, p.min); err != nil || old != int32(math.MaxInt32) {
			t.Fatalf("SetParameter(%s, %d) = %#v, %v", p.name, p.min, old, err)
		}
		if got := field(mustRun(t, db, "admin", fmt.Sprintf(`{"getParameter": 1, %q: 1}`, p.name)), p.name); got != p.min {
			t.Fatalf("getParameter %s = %#v after SetParameter(%d)", p.name, got, p.min)
		}
	}
	for _, name := range []string{"ttlMonitorEnabled", "ttlMonitorBatchDeletes"} {
		if v, _ := db.GetParameter(name); v != true {
			t.Fatalf("GetParameter(%s) = %#v, want true", name, v)
		}
		for _, bad := range []any{"false", nil, bson.D{}} {
			_, err := db.SetParameter(name, bad)
			checkCode(t, fmt.Sprintf("SetParameter(%s, %#v)", name, bad), err, document.CodeBadValue, name)
		}
		wantCode(t, db, "admin", fmt.Sprintf(`{"setParameter": 1, %q: "no"}`, name), document.CodeBadValue, name)
		if v, _ := db.GetParameter(name); v != true {
			t.Fatalf("%s changed by rejected values: %#v", name, v)
		}
		if old, err := db.SetParameter(name, false); err != nil || old != true {
			t.Fatalf("SetParameter(%s, false) = %#v, %v", name, old, err)
		}
		if got := field(mustRun(t, db, "admin", fmt.Sprintf(`{"getParameter": 1, %q: 1}`, name)), name); got != false {
			t.Fatalf("getParameter %s = %#v after SetParameter(false)", name, got)
		}
	}
	// Settable at open time, with the same validation.
	db2, err := Open(t.TempDir(), Options{DisableTTLMonitor: true, Params: map[string]any{
		"ttlMonitorSleepSecs": 5, "ttlMonitorEnabled": false, "ttlIndexDeleteTargetDocs": 0, "ttlMonitorBatchDeletes": false}})
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	r := mustRun(t, db2, "admin", `{"getParameter": 1, "ttlMonitorSleepSecs": 1, "ttlMonitorEnabled": 1, "ttlIndexDeleteTargetDocs": 1, "ttlMonitorBatchDeletes": 1}`)
	if got := replyKeys(r); got != "ttlMonitorSleepSecs=5 ttlMonitorEnabled=false ttlIndexDeleteTargetDocs=0 ttlMonitorBatchDeletes=false ok=1" {
		t.Fatalf("startup parameters: %s", got)
	}
	for _, bad := range []map[string]any{{"ttlMonitorSleepSecs": int64(1) << 40}, {"ttlIndexDeleteTargetDocs": -1}, {"ttlMonitorEnabled": "yes"}} {
		if db3, err := Open(t.TempDir(), Options{DisableTTLMonitor: true, Params: bad}); err == nil {
			db3.Close()
			t.Fatalf("Open accepted startup parameters %v", bad)
		} else {
			checkCode(t, fmt.Sprint("Open with ", bad), err, document.CodeBadValue, "")
		}
	}
}

// docs/ttl-monitor.md §3.2, §3.5: when the monitor's timer fires it skips the pass,
// counting none, while ttlMonitorEnabled is false or the engine is a
// secondary or read-only; a primary with the monitor enabled reaps.
func TestScheduledPassSkipsWhenIdle(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 1}]}`)
	insertDocs(t, db, "c", bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: dt(clk.Now().Add(-time.Hour))}})
	ctx := context.Background()
	idle := func(db *DB, what string) {
		t.Helper()
		before := db.Stats()
		res, err := db.mon.ScheduledPass(ctx)
		if err != nil || res != nil {
			t.Fatalf("%s: scheduled pass = %+v, %v; want skipped", what, res, err)
		}
		if after := db.Stats(); after.TTLPasses != before.TTLPasses || after.TTLSubPasses != before.TTLSubPasses {
			t.Fatalf("%s: a skipped pass was counted: %+v", what, after)
		}
		if n := count(t, db, "test", "c"); n != 1 {
			t.Fatalf("%s: %d documents left, want 1", what, n)
		}
	}
	mustRun(t, db, "admin", `{"setParameter": 1, "ttlMonitorEnabled": false}`)
	idle(db, "ttlMonitorEnabled false")
	db.Close()
	for _, role := range []Role{RoleSecondary, RoleReadOnly} {
		other, err := Open(dir, Options{Clock: clk.Now, DisableTTLMonitor: true, Role: role})
		if err != nil {
			t.Fatal(err)
		}
		idle(other, fmt.Sprintf("role %d", role))
		other.Close()
	}
	db, err := Open(dir, Options{Clock: clk.Now, DisableTTLMonitor: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	res, err := db.mon.ScheduledPass(ctx)
	if err != nil || res == nil || res.Deleted != 1 {
		t.Fatalf("primary, monitor enabled: scheduled pass = %+v, %v", res, err)
	}
	if s := db.Stats(); s.TTLPasses != 1 || s.TTLSubPasses != 1 {
		t.Fatalf("passes %d subPasses %d, want 1 and 1", s.TTLPasses, s.TTLSubPasses)
	}
}

func mustDecimal(t *testing.T, s string) bson.Decimal128 {
	t.Helper()
	d, err := bson.ParseDecimal128(s)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// docs/ttl-indexes.md §1.4-1.6 through the Go API: an identical spec succeeds and
// builds nothing, conflicting ones are 85, capped collections refuse
// TTL, and an existing collection is not created automatically.
func TestTTLIndexConflictsGoAPI(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ctx := context.Background()
	c := db.Database("test").Collection("c")
	ttl := func(field, name string, secs any) IndexModel {
		return IndexModel{Keys: bson.D{{Key: field, Value: 1}}, Options: bson.D{{Key: "name", Value: name}, {Key: "expireAfterSeconds", Value: secs}}}
	}
	if name, err := c.CreateIndex(ctx, ttl("t", "t_1", 100)); err != nil || name != "t_1" {
		t.Fatalf("CreateIndex = %q, %v", name, err)
	}
	if name, err := c.CreateIndex(ctx, ttl("t", "t_1", int64(100))); err != nil || name != "t_1" {
		t.Fatalf("identical CreateIndex = %q, %v", name, err)
	}
	res, err := c.CreateIndexes(ctx, []bson.D{{{Key: "key", Value: bson.D{{Key: "t", Value: 1}}}, {Key: "name", Value: "t_1"}, {Key: "expireAfterSeconds", Value: 100.5}}})
	if err != nil || res.Note != "all indexes already exist" || res.NumIndexesBefore != 2 || res.NumIndexesAfter != 2 || res.CreatedCollectionAutomatically {
		t.Fatalf("identical CreateIndexes = %+v, %v", res, err)
	}
	_, err = c.CreateIndex(ctx, ttl("t", "t_1", 200))
	checkCode(t, "CreateIndex with another expireAfterSeconds", err, document.CodeIndexOptionsConflict, "already exists with the same name but different options")
	if _, err := c.CreateIndex(ctx, IndexModel{Keys: bson.D{{Key: "u", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	_, err = c.CreateIndex(ctx, ttl("u", "u_1", 5))
	checkCode(t, "CreateIndex TTL over a non-TTL index", err, document.CodeIndexOptionsConflict, "already exists with the same name but different options")
	_, err = c.CreateIndex(ctx, ttl("u", "u_ttl", 5))
	checkCode(t, "CreateIndex TTL over a non-TTL index, other name", err, document.CodeIndexOptionsConflict, "")
	if got := field(listedIndex(t, db, "c", "t_1"), "expireAfterSeconds"); got != int32(100) {
		t.Fatalf("t_1 listed with expireAfterSeconds %#v", got)
	}
	if _, ok := get(listedIndex(t, db, "c", "u_1"), "expireAfterSeconds"); ok || indexNames(t, db, "test", "c") != "_id_,t_1,u_1" {
		t.Fatalf("conflicts changed the indexes: %s", indexNames(t, db, "test", "c"))
	}
	// createIndexes on an existing collection.
	r := mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"v": 1}, "name": "v_1", "expireAfterSeconds": 1}]}`)
	if got := replyKeys(r); got != "numIndexesBefore=3 numIndexesAfter=4 createdCollectionAutomatically=false ok=1" {
		t.Fatalf("createIndexes reply %s", got)
	}
	// Capped collections refuse TTL through the Go API too.
	createCapped(t, db, "cap", 1<<20, 0)
	cp := db.Database("test").Collection("cap")
	_, err = cp.CreateIndex(ctx, ttl("t", "t_1", 10))
	checkCode(t, "CreateIndex TTL on capped", err, document.CodeCannotCreateIndex, "Cannot create TTL index on a capped collection")
	_, err = cp.CreateIndexes(ctx, []bson.D{{{Key: "key", Value: bson.D{{Key: "t", Value: 1}}}, {Key: "name", Value: "t_1"}, {Key: "expireAfterSeconds", Value: 0}}})
	checkCode(t, "CreateIndexes TTL on capped", err, document.CodeCannotCreateIndex, "Cannot create TTL index on a capped collection")
	if names := indexNames(t, db, "test", "cap"); names != "_id_" {
		t.Fatalf("capped indexes after refusals: %s", names)
	}
}

// docs/ttl-indexes.md §1.7, §2.6: building a TTL index over expired documents deletes
// nothing by itself; the monitor then deletes them at its pace, no
// visit over ttlIndexDeleteTargetDocs.
func TestTTLIndexBuiltOverExpiredData(t *testing.T) {
	t.Parallel()
	db, clk, _ := openTest(t)
	old := dt(clk.Now().Add(-24 * time.Hour))
	var docs []bson.D
	for i := 0; i < 35; i++ {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: old}})
	}
	insertDocs(t, db, "c", docs...)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 60}]}`)
	if n := count(t, db, "test", "c"); n != 35 {
		t.Fatalf("building the TTL index left %d of 35 documents", n)
	}
	db.SetParameter("ttlIndexDeleteTargetDocs", 10)
	var visits []int64
	db.opts.seams.visitHook = func(_ string, deleted int64, _ bool) { visits = append(visits, deleted) }
	if r := pass(t, db); r.Deleted != 35 {
		t.Fatalf("pass deleted %d", r.Deleted)
	}
	if fmt.Sprint(visits) != "[10 10 10 5]" {
		t.Fatalf("visits deleted %v, want [10 10 10 5]", visits)
	}
	mustValidate(t, db, "test", "c")
}

// docs/ttl-indexes.md §2.5: dropping the TTL index stops expiry at once, by command
// and through the Go API, with no reopen in between.
func TestDropTTLIndexStopsExpiry(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	old := dt(clk.Now().Add(-time.Hour))
	for _, c := range []string{"cmd", "api"} {
		mustRun(t, db, "test", fmt.Sprintf(`{"createIndexes": %q, "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 10}]}`, c))
		insertDocs(t, db, c, bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: old}})
	}
	mustRun(t, db, "test", `{"dropIndexes": "cmd", "index": "t_1"}`)
	if err := db.Database("test").Collection("api").DropIndex(context.Background(), bson.D{{Key: "t", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if n := pass(t, db).Deleted; n != 0 {
		t.Fatalf("a pass after the drops deleted %d", n)
	}
	for _, c := range []string{"cmd", "api"} {
		if n := count(t, db, "test", c); n != 1 {
			t.Fatalf("%s: %d documents left", c, n)
		}
	}
}

// docs/ttl-monitor.md §3.2: inside a sub-pass, indexes that hit a target are visited
// again round-robin until none has work, all in one sub-pass; each
// sub-pass takes a fresh list of TTL indexes, so one created during a
// pass is visited by its next sub-pass.
func TestTTLSubPassRoundRobin(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	old := dt(clk.Now().Add(-time.Hour))
	fill := func(coll string, n int) {
		mustRun(t, db, "test", fmt.Sprintf(`{"createIndexes": %q, "indexes": [{"key": {"t": 1}, "name": %q, "expireAfterSeconds": 1}]}`, coll, coll))
		var docs []bson.D
		for i := 0; i < n; i++ {
			docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: old}})
		}
		insertDocs(t, db, coll, docs...)
	}
	fill("a", 25)
	fill("b", 15)
	db.SetParameter("ttlIndexDeleteTargetDocs", 10)
	var visits []string
	db.opts.seams.visitHook = func(index string, deleted int64, _ bool) {
		visits = append(visits, fmt.Sprintf("%s%d", index, deleted))
	}
	r := pass(t, db)
	if got := fmt.Sprint(visits); got != "[a10 b10 a10 b5 a5]" || r.SubPasses != 1 || r.Deleted != 40 {
		t.Fatalf("visits %s in %d sub-passes, %d deleted; want [a10 b10 a10 b5 a5] in 1, 40", got, r.SubPasses, r.Deleted)
	}
	// ttlMonitorSubPassTargetSecs 0: one visit per index per sub-pass; an
	// index created during the first sub-pass is in the second.
	fill("a", 15)
	db.SetParameter("ttlMonitorSubPassTargetSecs", 0)
	visits = nil
	created := false
	db.opts.seams.visitHook = func(index string, deleted int64, _ bool) {
		visits = append(visits, fmt.Sprintf("%s%d", index, deleted))
		if !created {
			created = true
			fill("c", 3)
		}
	}
	r = pass(t, db)
	if got := fmt.Sprint(visits); got != "[a10 b0 a5 b0 c3]" || r.SubPasses != 2 || r.Deleted != 18 {
		t.Fatalf("visits %s in %d sub-passes, %d deleted; want [a10 b0 a5 b0 c3] in 2, 18", got, r.SubPasses, r.Deleted)
	}
}

// docs/ttl-indexes.md §2.1-2.5 for both key directions: the inclusive cut-off,
// pre-1970 dates, arrays (earliest date, non-dates ignored), the
// largest expireAfterSeconds, and a partial filter.
func TestExpiryBothDirections(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	now := clk.Now()
	d := func(off time.Duration) bson.DateTime { return dt(now.Add(off)) }
	docs := []bson.D{
		{{Key: "_id", Value: "cutoff"}, {Key: "t", Value: d(-60 * time.Second)}},
		{{Key: "_id", Value: "cutoff+1ms"}, {Key: "t", Value: d(-60*time.Second + time.Millisecond)}},
		{{Key: "_id", Value: "1969"}, {Key: "t", Value: dt(time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC))}},
		{{Key: "_id", Value: "1900"}, {Key: "t", Value: dt(time.Date(1900, 1, 1, 0, 0, 0, 0, time.UTC))}},
		{{Key: "_id", Value: "epoch"}, {Key: "t", Value: bson.DateTime(0)}},
		{{Key: "_id", Value: "array-old"}, {Key: "t", Value: bson.A{"x", d(time.Hour), d(-time.Hour), int32(1)}}},
		{{Key: "_id", Value: "array-new"}, {Key: "t", Value: bson.A{d(time.Hour), nil, d(-59 * time.Second)}}},
		{{Key: "_id", Value: "array-empty"}, {Key: "t", Value: bson.A{}}},
		{{Key: "_id", Value: "nested-array"}, {Key: "t", Value: bson.A{bson.A{d(-time.Hour)}}}},
		{{Key: "_id", Value: "double"}, {Key: "t", Value: 1.5}},
		{{Key: "_id", Value: "future"}, {Key: "t", Value: d(time.Hour)}},
	}
	const want = "[cutoff+1ms array-new array-empty nested-array double future]"
	for _, dir := range []int{1, -1} {
		coll := fmt.Sprintf("dir%d", dir)
		mustRun(t, db, "test", fmt.Sprintf(`{"createIndexes": %q, "indexes": [{"key": {"t": %d}, "name": "t", "expireAfterSeconds": 60}]}`, coll, dir))
		insertDocs(t, db, coll, docs...)
		// The largest value: only dates over 68 years old expire.
		big := coll + "max"
		mustRun(t, db, "test", fmt.Sprintf(`{"createIndexes": %q, "indexes": [{"key": {"t": %d}, "name": "t", "expireAfterSeconds": 2147483647}]}`, big, dir))
		insertDocs(t, db, big, docs...)
		// A partial TTL index.
		part := coll + "part"
		mustRun(t, db, "test", fmt.Sprintf(`{"createIndexes": %q, "indexes": [{"key": {"t": %d}, "name": "t", "expireAfterSeconds": 0, "partialFilterExpression": {"k": {"$gt": 1}}}]}`, part, dir))
		insertDocs(t, db, part,
			bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: d(-time.Hour)}, {Key: "k", Value: 1}},
			bson.D{{Key: "_id", Value: 2}, {Key: "t", Value: d(-time.Hour)}, {Key: "k", Value: 2}},
			bson.D{{Key: "_id", Value: 3}, {Key: "t", Value: d(time.Hour)}, {Key: "k", Value: 3}},
			bson.D{{Key: "_id", Value: 4}, {Key: "t", Value: d(-time.Hour)}})
	}
	pass(t, db)
	for _, dir := range []int{1, -1} {
		coll := fmt.Sprintf("dir%d", dir)
		if got := fmt.Sprint(ids(t, db, coll)); got != want {
			t.Errorf("%s: survivors %s\n want %s", coll, got, want)
		}
		if got := fmt.Sprint(ids(t, db, coll+"max")); !strings.HasPrefix(got, "[cutoff cutoff+1ms 1969 epoch array-old") || strings.Contains(got, "1900") {
			t.Errorf("%smax: survivors %s, want all but 1900", coll, got)
		}
		if got := fmt.Sprint(ids(t, db, coll+"part")); got != "[1 3 4]" {
			t.Errorf("%spart: survivors %s, want [1 3 4]", coll, got)
		}
		mustValidate(t, db, "test", coll)
	}
}

// docs/ttl-monitor.md §3.2, ttlMonitorSubPassTargetSecs: a sub-pass visits every index
// of its fresh list once, then revisits the ones a target stopped,
// round-robin, until none has work or the sub-pass has run for the
// target; the pass then starts another sub-pass. The clock of the time
// targets moves one second per visit.
func TestTTLSubPassTargetTime(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	old := dt(clk.Now().Add(-time.Hour))
	fill := func(coll string, n int) {
		mustRun(t, db, "test", fmt.Sprintf(`{"createIndexes": %q, "indexes": [{"key": {"t": 1}, "name": %q, "expireAfterSeconds": 1}]}`, coll, coll))
		var docs []bson.D
		for i := 0; i < n; i++ {
			docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: old}})
		}
		insertDocs(t, db, coll, docs...)
	}
	el := setElapsed(db, 0)
	db.SetParameter("ttlIndexDeleteTargetDocs", 10)
	var visits []string
	db.opts.seams.visitHook = func(index string, deleted int64, _ bool) {
		visits = append(visits, fmt.Sprintf("%s%d", index, deleted))
		if len(visits) > 20 {
			t.Fatalf("a pass still running after visits %v", visits)
		}
		el.Advance(time.Second)
	}
	for _, c := range []struct {
		secs      int
		want      string // visits, "|" between sub-passes
		subPasses int
	}{
		// The target is met after a's third visit: b, not yet revisited,
		// waits for the next sub-pass.
		{3, "[a10 b10 a10 | a5 b5]", 2},
		{2, "[a10 b10 | a10 b5 | a5 b0]", 3},
		// A sub-pass shorter than one visit still visits every index
		// once: a big index does not keep b waiting.
		{1, "[a10 b10 | a10 b5 | a5 b0]", 3},
		// Not met: one sub-pass, as without a time target.
		{60, "[a10 b10 a10 b5 a5]", 1},
	} {
		fill("a", 25)
		fill("b", 15)
		db.SetParameter("ttlMonitorSubPassTargetSecs", c.secs)
		visits = nil
		before := db.Stats()
		var marks []int
		prev := db.opts.seams.visitHook
		db.opts.seams.visitHook = func(index string, deleted int64, more bool) {
			prev(index, deleted, more)
			if s := db.mon.SubPasses() - before.TTLSubPasses; int(s) > len(marks) {
				marks = append(marks, len(visits)-1) // a sub-pass ended before this visit
			}
		}
		r := pass(t, db)
		db.opts.seams.visitHook = prev
		got := visits
		for i := len(marks) - 1; i >= 0; i-- {
			got = append(got[:marks[i]:marks[i]], append([]string{"|"}, got[marks[i]:]...)...)
		}
		if s := fmt.Sprint(got); s != c.want || r.SubPasses != c.subPasses || r.Deleted != 40 {
			t.Errorf("target %ds: visits %s in %d sub-passes, %d deleted; want %s in %d, 40", c.secs, s, r.SubPasses, r.Deleted, c.want, c.subPasses)
		}
		st := mustRun(t, db, "admin", `{"serverStatus": 1}`)
		if d := field(st, "metrics.ttl.subPasses").(int64) - before.TTLSubPasses; d != int64(c.subPasses) {
			t.Errorf("target %ds: metrics.ttl.subPasses grew by %d, want %d", c.secs, d, c.subPasses)
		}
		if d := field(st, "metrics.ttl.passes").(int64) - before.TTLPasses; d != 1 {
			t.Errorf("target %ds: metrics.ttl.passes grew by %d, want 1", c.secs, d)
		}
	}
}

// docs/ttl-monitor.md §3.1–3.3, ttlIndexDeleteTargetTimeMS: a visit deletes until it
// has run for the target (0: unlimited), and the index's next visit
// continues; with ttlMonitorBatchDeletes false a visit has no target.
// The clock of the time targets moves 600 ms per chunk of expired keys
// the visit reads, where the visit checks its targets. The chunk is 400
// keys (the ttlScanChunk seam) instead of 4096 and a delete batch 100
// documents instead of 1000, so that the documents fill two chunks and
// part of a third, four batches to a chunk, as before, with a tenth of
// the writes.
func TestTTLIndexDeleteTargetTime(t *testing.T) {
	t.Parallel()
	const chunk, rest = 400, 81
	db, clk, _ := openTestWith(t, func(o *Options) { o.seams.ttlScanChunk = chunk })
	old := dt(clk.Now().Add(-time.Hour))
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 1}]}`)
	const n = 2*chunk + rest
	docs := make([]bson.D, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: old}}
	}
	el := setElapsed(db, 0)
	db.opts.seams.scanHook = func() { el.Advance(600 * time.Millisecond) }
	db.SetParameter("ttlIndexDeleteTargetDocs", 0)
	db.SetParameter("ttlMonitorSubPassTargetSecs", 0) // a sub-pass per visit
	db.SetParameter("batchedDeletesTargetBatchDocs", chunk/4)
	var visits []string
	db.opts.seams.visitHook = func(_ string, deleted int64, more bool) {
		visits = append(visits, fmt.Sprintf("%d/%v/left %d", deleted, more, count(t, db, "test", "c")))
	}
	for _, c := range []struct {
		targetMS  int
		batching  bool
		want      string
		subPasses int
	}{
		// 600 ms after the first chunk's scan, 1200 after the second's:
		// the target is met before the second chunk's first batch, and
		// the next visit scans that chunk again.
		{1000, true, fmt.Sprintf("[%d/true/left %d %d/true/left %d %d/false/left 0]", chunk, n-chunk, chunk, rest, rest), 3},
		// Met exactly at 1200 ms: the same.
		{1200, true, fmt.Sprintf("[%d/true/left %d %d/true/left %d %d/false/left 0]", chunk, n-chunk, chunk, rest, rest), 3},
		// Met at the third chunk's scan (1800 ms).
		{1300, true, fmt.Sprintf("[%d/true/left %d %d/false/left 0]", 2*chunk, rest, rest), 2},
		{0, true, fmt.Sprintf("[%d/false/left 0]", n), 1},
		{1000, false, fmt.Sprintf("[%d/false/left 0]", n), 1},
	} {
		insertDocs(t, db, "c", docs...)
		db.SetParameter("ttlIndexDeleteTargetTimeMS", c.targetMS)
		db.SetParameter("ttlMonitorBatchDeletes", c.batching)
		visits = nil
		before := db.Stats()
		r := pass(t, db)
		if got := fmt.Sprint(visits); got != c.want || r.SubPasses != c.subPasses {
			t.Errorf("target %d ms, batching %v: visits (deleted/more/left) %s in %d sub-passes; want %s in %d",
				c.targetMS, c.batching, got, r.SubPasses, c.want, c.subPasses)
		}
		if len(r.Indexes) != 1 || r.Indexes[0] != (TTLIndexResult{Namespace: "test.c", Index: "t_1", Deleted: n}) {
			t.Errorf("target %d ms, batching %v: per-index results %+v", c.targetMS, c.batching, r.Indexes)
		}
		st := mustRun(t, db, "admin", `{"serverStatus": 1}`)
		if d := field(st, "metrics.ttl.subPasses").(int64) - before.TTLSubPasses; d != int64(c.subPasses) {
			t.Errorf("target %d ms, batching %v: metrics.ttl.subPasses grew by %d, want %d", c.targetMS, c.batching, d, c.subPasses)
		}
		if d := field(st, "metrics.ttl.deletedDocuments").(int64) - before.TTLDeletedDocuments; d != n {
			t.Errorf("target %d ms, batching %v: metrics.ttl.deletedDocuments grew by %d, want %d", c.targetMS, c.batching, d, n)
		}
	}
}

// ttlIndexDeleteTargetTimeMS ends a visit between two delete batches,
// not only between chunks of scanned index keys: the clock of the
// targets moves 100 ms per batch of 10 documents, so a 1000 ms target
// ends each visit after 100 documents, inside its chunk of 400 (the
// ttlScanChunk seam; 4096 by default); the next visit scans the chunk
// again and deletes no document twice.
func TestTTLVisitEndsBetweenBatches(t *testing.T) {
	t.Parallel()
	db, clk, _ := openTestWith(t, func(o *Options) { o.seams.ttlScanChunk = 400 })
	old := dt(clk.Now().Add(-time.Hour))
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 1}]}`)
	const n = 250
	docs := make([]bson.D, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: old}}
	}
	insertDocs(t, db, "c", docs...)
	el := setElapsed(db, 0)
	db.opts.seams.deleterHook = func(bd *batchDeleter) {
		bd.beforeCommit = func() { el.Advance(100 * time.Millisecond) }
	}
	db.SetParameter("batchedDeletesTargetBatchDocs", 10)
	db.SetParameter("ttlIndexDeleteTargetDocs", 0)
	db.SetParameter("ttlIndexDeleteTargetTimeMS", 1000)
	db.SetParameter("ttlMonitorSubPassTargetSecs", 0) // a sub-pass per visit
	var visits []string
	db.opts.seams.visitHook = func(_ string, deleted int64, more bool) {
		visits = append(visits, fmt.Sprintf("%d/%v/left %d", deleted, more, count(t, db, "test", "c")))
	}
	r := pass(t, db)
	if got, want := fmt.Sprint(visits), "[100/true/left 150 100/true/left 50 50/false/left 0]"; got != want || r.Deleted != n {
		t.Errorf("visits (deleted/more/left) %s, %d deleted; want %s, %d", got, r.Deleted, want, n)
	}
	mustValidate(t, db, "test", "c")
}
