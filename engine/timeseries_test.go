package engine

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// tsDate is an Extended JSON date.
func tsDate(t time.Time) string {
	return fmt.Sprintf(`{"$date": "%s"}`, t.UTC().Format("2006-01-02T15:04:05.000Z"))
}

// tsBucketDocs returns the bucket documents of time-series collection
// name, sorted by control.min of time field tf.
func tsBucketDocs(t *testing.T, db *DB, name, tf string) []bson.D {
	t.Helper()
	docs := findAll(t, db, "test", "system.buckets."+name, bson.D{})
	sort.SliceStable(docs, func(i, j int) bool {
		return document.Compare(field(docs[i], "control.min."+tf), field(docs[j], "control.min."+tf)) < 0
	})
	return docs
}

func mustInsertTS(t *testing.T, db *DB, coll string, docs ...string) {
	t.Helper()
	cmd := fmt.Sprintf(`{"insert": %q, "documents": [`, coll)
	for i, d := range docs {
		if i > 0 {
			cmd += ","
		}
		cmd += d
	}
	r := mustRun(t, db, "test", cmd+"]}")
	if _, bad := get(r, "writeErrors"); bad {
		t.Fatalf("insert: %v", r)
	}
}

func ttlPass(t *testing.T, db *DB) *TTLPassResult {
	t.Helper()
	res, err := db.RunTTLPass(context.Background())
	if err != nil {
		t.Fatalf("ttl pass: %v", err)
	}
	return res
}

// docs/timeseries.md §6.1: create errors, each leaving nothing behind.
func TestTimeseriesCreateErrors(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	cases := []struct {
		opts string
		code document.Code
		frag string
	}{
		{`"timeseries": "t"`, document.CodeTypeMismatch, ""},
		{`"timeseries": {"timeField": 1}`, document.CodeTypeMismatch, "timeField"},
		{`"timeseries": {"timeField": "t", "metaField": 2}`, document.CodeTypeMismatch, "metaField"},
		{`"timeseries": {"timeField": "t", "bogus": 1}`, document.CodeIDLUnknownField, "bogus"},
		{`"timeseries": {"timeField": "a.b"}`, document.CodeInvalidOptions, "'.'"},
		{`"timeseries": {"timeField": "t", "metaField": "m.x"}`, document.CodeInvalidOptions, "'.'"},
		{`"timeseries": {"timeField": "t", "metaField": "t"}`, document.CodeInvalidOptions, ""},
		{`"timeseries": {"timeField": "t", "metaField": "_id"}`, document.CodeInvalidOptions, "_id"},
		{`"timeseries": {"timeField": "t"}, "capped": true, "size": 4096`, document.CodeInvalidOptions, "'timeseries' is not allowed with"},
		{`"timeseries": {"timeField": "t"}, "size": 4096`, document.CodeInvalidOptions, "'timeseries' is not allowed with"},
		{`"timeseries": {"timeField": "t"}, "max": 10`, document.CodeInvalidOptions, "'timeseries' is not allowed with"},
		{`"timeseries": {"timeField": "t"}, "validator": {"a": 1}`, document.CodeInvalidOptions, "'timeseries' is not allowed with"},
		{`"timeseries": {"timeField": "t"}, "clusteredIndex": {"key": {"_id": 1}, "unique": true}`, document.CodeInvalidOptions, "'timeseries' is not allowed with"},
		{`"timeseries": {"timeField": "t"}, "expireAfterSeconds": -1`, document.CodeInvalidOptions, "cannot be less than 0"},
		{`"timeseries": {"timeField": "t"}, "expireAfterSeconds": "10"`, document.CodeTypeMismatch, "expireAfterSeconds"},
		{`"expireAfterSeconds": 10`, document.CodeInvalidOptions, "expireAfterSeconds"},
		{`"timeseries": {"timeField": "t", "granularity": "days"}`, document.CodeBadValue, "granularity"},
		{`"timeseries": {"timeField": "t", "bucketMaxSpanSeconds": 100}`, document.CodeInvalidOptions, ""},
		{`"timeseries": {"timeField": "t", "bucketMaxSpanSeconds": 100, "bucketRoundingSeconds": 50}`, document.CodeInvalidOptions, ""},
		{`"timeseries": {"timeField": "t", "granularity": "minutes", "bucketMaxSpanSeconds": 100, "bucketRoundingSeconds": 100}`, document.CodeInvalidOptions, ""},
		{`"timeseries": {"timeField": "t", "bucketMaxSpanSeconds": 31536001, "bucketRoundingSeconds": 31536001}`, document.CodeBadValue, ""},
		{`"timeseries": {"timeField": "t", "bucketMaxSpanSeconds": 0, "bucketRoundingSeconds": 0}`, document.CodeBadValue, ""},
		// Issue 20: custom values that differ are refused whatever granularity says, and
		// bucketRoundingSeconds is never allowed beside granularity.
		{`"timeseries": {"timeField": "t", "granularity": "seconds", "bucketMaxSpanSeconds": 3600, "bucketRoundingSeconds": 60}`, document.CodeInvalidOptions, "alongside the granularity"},
		{`"timeseries": {"timeField": "t", "granularity": "seconds", "bucketRoundingSeconds": 60}`, document.CodeInvalidOptions, "alongside the granularity"},
	}
	for _, c := range cases {
		wantCode(t, db, "test", `{"create": "w", `+c.opts+`}`, c.code, c.frag)
		if db.lookup("test", "w") != nil || db.lookup("test", "system.buckets.w") != nil {
			t.Fatalf("%s: a failed create left a collection behind", c.opts)
		}
	}
	// A name whose buckets namespace is too long is refused whole.
	long := make([]byte, 240)
	for i := range long {
		long[i] = 'x'
	}
	wantCode(t, db, "test", `{"create": "`+string(long)+`", "timeseries": {"timeField": "t"}}`, document.CodeInvalidNamespace, "")
	if len(db.collsOf("test")) != 0 {
		t.Fatalf("failed create left %d collections", len(db.collsOf("test")))
	}
}

// docs/timeseries.md §6.1, §6.2, §6.4: listing shape per granularity, idempotent
// re-create, 48 on different options.
func TestTimeseriesCreateListing(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	cases := []struct {
		name, ts, extra string
		want            string
	}{
		{"s", `{"timeField": "t"}`, "", `{"timeseries": {"timeField": "t", "granularity": "seconds", "bucketMaxSpanSeconds": 3600}}`},
		{"m", `{"timeField": "t", "metaField": "m", "granularity": "minutes"}`, "", `{"timeseries": {"timeField": "t", "metaField": "m", "granularity": "minutes", "bucketMaxSpanSeconds": 86400}}`},
		{"h", `{"timeField": "t", "granularity": "hours"}`, `, "expireAfterSeconds": 3600.7`, `{"timeseries": {"timeField": "t", "granularity": "hours", "bucketMaxSpanSeconds": 2592000}, "expireAfterSeconds": {"$numberLong": "3600"}}`},
		{"c", `{"timeField": "t", "bucketMaxSpanSeconds": 600, "bucketRoundingSeconds": 600}`, "", `{"timeseries": {"timeField": "t", "bucketMaxSpanSeconds": 600, "bucketRoundingSeconds": 600}}`},
	}
	for _, c := range cases {
		cmd := fmt.Sprintf(`{"create": %q, "timeseries": %s%s}`, c.name, c.ts, c.extra)
		mustRun(t, db, "test", cmd)
		mustRun(t, db, "test", cmd) // idempotent
		r := mustRun(t, db, "test", fmt.Sprintf(`{"listCollections": 1, "filter": {"name": %q}}`, c.name))
		batch := field(r, "cursor.firstBatch").(bson.A)
		if len(batch) != 1 {
			t.Fatalf("%s: listCollections = %v", c.name, r)
		}
		d := batch[0].(bson.D)
		want, err := document.ParseExtJSON([]byte(c.want))
		if err != nil {
			t.Fatal(err)
		}
		if field(d, "type") != "timeseries" || !document.Equal(field(d, "options"), want) || field(d, "info.readOnly") != false {
			t.Errorf("%s: listed %v, want options %v", c.name, d, want)
		}
		if _, ok := get(d, "idIndex"); ok {
			t.Errorf("%s: time-series listing has idIndex", c.name)
		}
	}
	// Same options spelled differently (granularity default) succeed.
	mustRun(t, db, "test", `{"create": "s", "timeseries": {"timeField": "t", "granularity": "seconds"}}`)
	wantCode(t, db, "test", `{"create": "s", "timeseries": {"timeField": "t", "metaField": "m"}}`, document.CodeNamespaceExists, "")
	wantCode(t, db, "test", `{"create": "s", "timeseries": {"timeField": "t"}, "expireAfterSeconds": 5}`, document.CodeNamespaceExists, "")
	wantCode(t, db, "test", `{"create": "s"}`, document.CodeNamespaceExists, "")
	mustRun(t, db, "test", `{"create": "plain"}`)
	wantCode(t, db, "test", `{"create": "plain", "timeseries": {"timeField": "t"}}`, document.CodeNamespaceExists, "")
	// Internal buckets collections are hidden from listings.
	names, _ := db.Database("test").ListCollectionNames(context.Background())
	if fmt.Sprint(names) != "[c h m plain s]" {
		t.Fatalf("collection names = %v", names)
	}
	// An insert into the buckets namespace takes buckets
	// (timeseries_buckets_io_test.go); a document that is not one is a
	// write error.
	r := mustRun(t, db, "test", `{"insert": "system.buckets.s", "documents": [{}]}`)
	if field(r, "n") != int32(0) || field(r, "writeErrors.0.code") != int32(document.CodeBadValue) {
		t.Fatalf("an empty document as a bucket: %v", r)
	}
}

// bucketCount is how many measurements bucket document b (as a client
// reads it) holds: the rows of its time column t.
func bucketCount(b bson.D) int32 {
	rows, _ := field(b, "data.t").(bson.D)
	return int32(len(rows))
}

// docs/timeseries.md §6.3: bucket boundaries per granularity (MongoDB's example), and
// the count limit.
func TestTimeseriesBucketBoundaries(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	day := time.Date(2026, 11, 20, 0, 0, 0, 0, time.UTC)
	at := func(h, m, s, ms int) time.Time {
		return day.Add(time.Duration(h)*time.Hour + time.Duration(m)*time.Minute + time.Duration(s)*time.Second + time.Duration(ms)*time.Millisecond)
	}
	cases := []struct {
		gran        string
		times       []time.Time
		wantMins    []time.Time
		wantBuckets []int
	}{
		{"seconds", []time.Time{at(20, 10, 14, 134), at(21, 9, 59, 999), at(21, 10, 0, 0)},
			[]time.Time{at(20, 10, 0, 0), at(21, 10, 0, 0)}, []int{2, 1}},
		{"minutes", []time.Time{at(20, 10, 14, 134), at(23, 59, 59, 999), day.Add(44*time.Hour + 10*time.Minute)},
			[]time.Time{at(20, 0, 0, 0), day.Add(44 * time.Hour)}, []int{2, 1}},
		{"hours", []time.Time{at(20, 10, 14, 134), day.Add(30*24*time.Hour - time.Millisecond), day.Add(30 * 24 * time.Hour)},
			[]time.Time{day, day.Add(30 * 24 * time.Hour)}, []int{2, 1}},
	}
	for _, c := range cases {
		mustRun(t, db, "test", fmt.Sprintf(`{"create": %q, "timeseries": {"timeField": "t", "metaField": "m", "granularity": %q}}`, c.gran, c.gran))
		for _, tm := range c.times {
			mustInsertTS(t, db, c.gran, fmt.Sprintf(`{"t": %s, "m": "s1", "v": 1}`, tsDate(tm)))
		}
		bs := tsBucketDocs(t, db, c.gran, "t")
		if len(bs) != len(c.wantMins) {
			t.Fatalf("%s: %d buckets, want %d: %v", c.gran, len(bs), len(c.wantMins), bs)
		}
		for i, b := range bs {
			if got := field(b, "control.min.t"); got != bson.NewDateTimeFromTime(c.wantMins[i]) {
				t.Errorf("%s: bucket %d min = %v, want %v", c.gran, i, got, c.wantMins[i])
			}
			if got := bucketCount(b); got != int32(c.wantBuckets[i]) {
				t.Errorf("%s: bucket %d count = %v, want %d", c.gran, i, got, c.wantBuckets[i])
			}
		}
	}
	// 1001 measurements with one meta: two buckets (1000 + 1).
	mustRun(t, db, "test", `{"create": "many", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	var docs []any
	for i := 0; i < 1001; i++ {
		docs = append(docs, bson.D{{Key: "t", Value: bson.NewDateTimeFromTime(at(10, 0, 0, i))}, {Key: "m", Value: "x"}})
	}
	if _, err := db.Database("test").Collection("many").InsertMany(context.Background(), docs, true); err != nil {
		t.Fatal(err)
	}
	bs := tsBucketDocs(t, db, "many", "t")
	if len(bs) != 2 || bucketCount(bs[0]) != 1000 || bucketCount(bs[1]) != 1 {
		t.Fatalf("1001 measurements: %d buckets", len(bs))
	}
	if n := count(t, db, "test", "many"); n != 1001 {
		t.Fatalf("count = %d", n)
	}
}

// docs/timeseries.md §6.3: meta values compare as MongoDB compares them; measurements
// come back as inserted.
func TestTimeseriesMetaGrouping(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	now := tsDate(clk.Now())
	mustInsertTS(t, db, "w",
		`{"t": `+now+`, "m": {"a": 1, "b": 2}}`,
		`{"t": `+now+`, "m": {"b": 2, "a": 1}}`,
		`{"t": `+now+`, "m": 1}`,
		`{"t": `+now+`, "m": {"$numberDouble": "1.0"}}`,
		`{"t": `+now+`, "m": [1, 2]}`,
		`{"t": `+now+`, "m": null}`,
		`{"t": `+now+`}`,
		`{"x": 1, "t": `+now+`, "m": [1, 2]}`,
	)
	bs := tsBucketDocs(t, db, "w", "t")
	if len(bs) != 6 { // {a,b} and {b,a} (sorted: one meta), 1, 1.0 (another BSON value), [1,2] twice, null, missing
		t.Fatalf("%d buckets, want 6", len(bs))
	}
	got := findAll(t, db, "test", "w", bson.D{{Key: "x", Value: 1}})
	if len(got) != 1 || got[0][0].Key != "_id" || got[0][1].Key != "x" || got[0][3].Key != "m" {
		t.Fatalf("field order lost: %v", got)
	}
	if n := len(findAll(t, db, "test", "w", bson.D{{Key: "m", Value: nil}})); n != 2 {
		t.Fatalf("m: null matched %d, want 2 (null and missing)", n)
	}
	if n := len(findAll(t, db, "test", "w", bson.D{{Key: "m", Value: 2}})); n != 2 {
		t.Fatalf("m: 2 matched %d, want the 2 array metas", n)
	}
}

// docs/timeseries.md §6.3, docs/commands.md §0: time field missing or not a date is 2 BadValue per
// measurement; ordered stops, unordered keeps the valid ones.
func TestTimeseriesInsertErrors(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t"}}`)
	now := tsDate(clk.Now())
	r := mustRun(t, db, "test", `{"insert": "w", "documents": [{"t": `+now+`}, {"t": "x"}, {"t": `+now+`}], "ordered": true}`)
	if field(r, "n") != int32(1) || field(r, "writeErrors.0.index") != int32(1) || field(r, "writeErrors.0.code") != int32(2) {
		t.Fatalf("ordered: %v", r)
	}
	r = mustRun(t, db, "test", `{"insert": "w", "documents": [{"t": `+now+`}, {"u": 1}, {"t": 5}, {"t": `+now+`}], "ordered": false}`)
	we, _ := get(r, "writeErrors")
	if field(r, "n") != int32(2) || len(we.(bson.A)) != 2 || field(r, "writeErrors.1.index") != int32(2) {
		t.Fatalf("unordered: %v", r)
	}
	if n := count(t, db, "test", "w"); n != 3 {
		t.Fatalf("count = %d, want 3", n)
	}
}

// docs/timeseries.md §6.4: find, count, delete by metaField and time; explain shows
// the bucket scan and skips buckets through control data.
func TestTimeseriesReadsAndDeletes(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	base := clk.Now().Add(-48 * time.Hour)
	var docs []any
	for i := 0; i < 480; i++ { // 48 hours, every 6 minutes, 2 sensors
		docs = append(docs, bson.D{{Key: "t", Value: bson.NewDateTimeFromTime(base.Add(time.Duration(i) * 6 * time.Minute))},
			{Key: "m", Value: bson.D{{Key: "s", Value: "s" + strconv.Itoa(i%2)}}}, {Key: "v", Value: int32(i)}})
	}
	if _, err := db.Database("test").Collection("w").InsertMany(context.Background(), docs, true); err != nil {
		t.Fatal(err)
	}
	total := len(tsBucketDocs(t, db, "w", "t"))
	from := bson.NewDateTimeFromTime(base.Add(24 * time.Hour))
	to := bson.NewDateTimeFromTime(base.Add(26 * time.Hour))
	filter := bson.D{{Key: "m.s", Value: "s1"}, {Key: "t", Value: bson.D{{Key: "$gte", Value: from}, {Key: "$lt", Value: to}}}}
	got := findAll(t, db, "test", "w", filter)
	if len(got) != 10 {
		t.Fatalf("range find = %d measurements, want 10", len(got))
	}
	cmd := bson.D{{Key: "explain", Value: bson.D{{Key: "find", Value: "w"}, {Key: "filter", Value: filter}}}, {Key: "verbosity", Value: "executionStats"}}
	r, err := db.RunCommand(context.Background(), "test", cmd)
	if err != nil {
		t.Fatal(err)
	}
	cursor, unpack := tsStage(r, 0), tsStage(r, 1)
	if unpack[0].Key != "$_internalUnpackBucket" || field(unpack, "nReturned") != int64(10) {
		t.Fatalf("explain = %v", r)
	}
	unpacked := field(cursor, "$cursor.executionStats.nReturned").(int32)
	if unpacked > 4 || unpacked >= int32(total) {
		t.Fatalf("unpacked %d of %d buckets for a 2-hour, one-sensor range", unpacked, total)
	}
	// Read through ttlkv's own meta index, which a user cannot list:
	// shown as mongod's scan of the buckets, examining only those the
	// index found.
	if s := field(cursor, "$cursor.queryPlanner.winningPlan.stage"); s != "COLLSCAN" || field(cursor, "$cursor.executionStats.totalDocsExamined").(int32) >= int32(total) {
		t.Fatalf("bucket scan stage = %v, want COLLSCAN examining fewer than %d buckets: %v", s, total, cursor)
	}
	// count with the same filter, and sort/skip/limit/projection.
	if n, _ := db.Database("test").Collection("w").CountDocuments(context.Background(), filter); n != 10 {
		t.Fatalf("count = %d", n)
	}
	r = mustRun(t, db, "test", `{"find": "w", "filter": {"m.s": "s0"}, "sort": {"v": -1}, "skip": 1, "limit": 2, "projection": {"_id": 0, "v": 1}}`)
	if fmt.Sprint(field(r, "cursor.firstBatch")) != `[{"v":{"$numberInt":"476"}} {"v":{"$numberInt":"474"}}]` {
		t.Fatalf("sorted find = %v", field(r, "cursor.firstBatch"))
	}
	// Delete by metaField: whole buckets; by time inside a bucket: rewrite.
	r = mustRun(t, db, "test", `{"delete": "w", "deletes": [{"q": {"m": {"s": "s0"}}, "limit": 0}]}`)
	if field(r, "n") != int32(240) {
		t.Fatalf("delete by meta: %v", r)
	}
	r = mustRun(t, db, "test", fmt.Sprintf(`{"delete": "w", "deletes": [{"q": {"t": {"$lt": %s}}, "limit": 0}]}`, tsDate(base.Add(90*time.Minute))))
	if field(r, "n") != int32(7) { // s1 at 6, 18, ..., 78 minutes
		t.Fatalf("delete by time: %v", r)
	}
	r = mustRun(t, db, "test", `{"delete": "w", "deletes": [{"q": {"v": {"$gte": 400}}, "limit": 1}]}`)
	if field(r, "n") != int32(1) {
		t.Fatalf("deleteOne: %v", r)
	}
	if n := count(t, db, "test", "w"); n != 480-240-7-1 {
		t.Fatalf("count after deletes = %d", n)
	}
	mustValidate(t, db, "test", "w")
	// Inserting after deletes goes on working (rewritten buckets are not reused).
	mustInsertTS(t, db, "w", fmt.Sprintf(`{"t": %s, "m": {"s": "s1"}, "v": 1000}`, tsDate(base.Add(time.Hour))))
	if n := count(t, db, "test", "w"); n != 480-240-7 {
		t.Fatalf("count after insert = %d", n)
	}
	// Updates work too (docs/timeseries.md §6.9; timeseries_update_test.go).
	r = mustRun(t, db, "test", `{"update": "w", "updates": [{"q": {}, "u": {"$set": {"m.v": 1}}, "multi": true}]}`)
	if field(r, "n") != int32(480-240-7) || field(r, "nModified") != int32(480-240-7) {
		t.Fatalf("update on a time-series collection: %v", r)
	}
	mustValidate(t, db, "test", "w")
}

// docs/timeseries.md §6.6: a bucket goes only when its min + span + expiry has passed
// (MongoDB's example); buckets are counted; the monitor visits the
// collection as one target.
func TestTimeseriesExpiry(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}, "expireAfterSeconds": 5}`)
	now := clk.Now()
	mustInsertTS(t, db, "w",
		fmt.Sprintf(`{"t": %s, "m": "recent", "v": 1}`, tsDate(now.Add(-5*time.Minute))),
		fmt.Sprintf(`{"t": %s, "m": "recent", "v": 2}`, tsDate(now)))
	before := db.Stats().TTLDeletedDocuments
	if res := ttlPass(t, db); res.Deleted != 0 {
		t.Fatalf("deleted %d from a bucket with a recent measurement", res.Deleted)
	}
	if n := count(t, db, "test", "w"); n != 2 {
		t.Fatalf("count = %d", n)
	}
	mustInsertTS(t, db, "w",
		fmt.Sprintf(`{"t": %s, "m": "old", "v": 3}`, tsDate(now.Add(-3600*time.Second-5*time.Minute))),
		fmt.Sprintf(`{"t": %s, "m": "old", "v": 4}`, tsDate(now.Add(-3600*time.Second))))
	res := ttlPass(t, db)
	if res.Deleted != 1 || len(res.Indexes) != 1 || res.Indexes[0].Index != tsTTLTargetName || res.Indexes[0].Namespace != "test.w" {
		t.Fatalf("pass = %+v, want one bucket from test.w", res)
	}
	if d := db.Stats().TTLDeletedDocuments - before; d != 1 {
		t.Fatalf("ttl.deletedDocuments grew by %d, want 1 (buckets)", d)
	}
	if got := findAll(t, db, "test", "w", bson.D{}); len(got) != 2 || field(got[0], "m") != "recent" {
		t.Fatalf("left %v", got)
	}
	// Boundary: the recent bucket (min now-5m) goes at min + 3600 s + 5 s.
	bmin := now.Add(-5 * time.Minute).Truncate(time.Minute)
	clk.Advance(bmin.Add(3605*time.Second - time.Millisecond).Sub(clk.Now()))
	if res := ttlPass(t, db); res.Deleted != 0 {
		t.Fatalf("deleted 1 ms early")
	}
	clk.Advance(time.Millisecond)
	if res := ttlPass(t, db); res.Deleted != 1 {
		t.Fatalf("not deleted at min + span + expiry")
	}
	if n := count(t, db, "test", "w"); n != 0 {
		t.Fatalf("count = %d", n)
	}
	// A single measurement is never deleted on its own, even with many
	// buckets: the visit honours the per-visit bucket target.
	mustRun(t, db, "admin", `{"setParameter": 1, "ttlIndexDeleteTargetDocs": 2}`)
	for i := 0; i < 5; i++ {
		mustInsertTS(t, db, "w", fmt.Sprintf(`{"t": %s, "m": %d}`, tsDate(clk.Now().Add(-3*time.Hour)), i))
	}
	var visits []int64
	db.opts.seams.visitHook = func(_ string, n int64, _ bool) { visits = append(visits, n) }
	if res := ttlPass(t, db); res.Deleted != 5 {
		t.Fatalf("deleted %d, want 5", res.Deleted)
	}
	if fmt.Sprint(visits) != "[2 2 1]" {
		t.Fatalf("visits = %v, want [2 2 1]", visits)
	}
}

// docs/ttl-monitor.md §3.1, docs/timeseries.md §6.6, ttlIndexDeleteTargetTimeMS on a time-series
// collection: a visit deletes buckets, chunk by chunk (1024 at a time),
// until it has run for the target (0: unlimited), and the next visit
// continues. The clock of the time targets moves an hour at every
// reading, so the target is reached within the first chunk.
func TestTimeseriesDeleteTargetTime(t *testing.T) {
	t.Parallel()
	// A visit reads 104 buckets at a time (the bucketChunk seam, 1024
	// by default) and deletes them in batches of 10: ten batches and one
	// of 4 to a chunk, as 1024 are ten of 100 and one of 24.
	const chunk, batch = 104, 10
	db, clk, _ := openTestWith(t, func(o *Options) { o.seams.bucketChunk = chunk })
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}, "expireAfterSeconds": 5}`)
	const n = 2*chunk + 6
	ms := make([]string, n)
	for i := range ms {
		ms[i] = fmt.Sprintf(`{"t": %s, "m": %d}`, tsDate(clk.Now().Add(-3*time.Hour)), i) // a bucket each
	}
	// The clock of the targets moves 100 ms per batch: a visit ends at
	// the first batch boundary at or after its target, inside the
	// visit's chunk.
	el := setElapsed(db, 0)
	db.opts.seams.tsReapBeforeCommitHook = func() { el.Advance(100 * time.Millisecond) }
	db.SetParameter("batchedDeletesTargetBatchDocs", batch)
	db.SetParameter("ttlIndexDeleteTargetDocs", 0)
	db.SetParameter("ttlMonitorSubPassTargetSecs", 0) // a sub-pass per visit
	var visits []string
	db.opts.seams.visitHook = func(_ string, deleted int64, more bool) {
		visits = append(visits, fmt.Sprintf("%d/%v", deleted, more))
	}
	for _, c := range []struct {
		targetMS  int
		want      string
		subPasses int
	}{
		{1000, "[100/true 100/true 14/false]", 3},
		// Not met inside a chunk (1000 ms < 1050): met at its end, after
		// its last batch of 4 (1100 ms).
		{1050, "[104/true 104/true 6/false]", 3},
		{0, fmt.Sprintf("[%d/false]", n), 1},
	} {
		mustInsertTS(t, db, "w", ms...)
		db.SetParameter("ttlIndexDeleteTargetTimeMS", c.targetMS)
		visits = nil
		before := db.Stats()
		r := ttlPass(t, db)
		if got := fmt.Sprint(visits); got != c.want || r.SubPasses != c.subPasses || r.Deleted != n {
			t.Errorf("target %d ms: visits (buckets/more) %s in %d sub-passes, %d deleted; want %s in %d, %d",
				c.targetMS, got, r.SubPasses, r.Deleted, c.want, c.subPasses, n)
		}
		if d := db.Stats().TTLSubPasses - before.TTLSubPasses; d != int64(c.subPasses) {
			t.Errorf("target %d ms: metrics.ttl.subPasses grew by %d, want %d", c.targetMS, d, c.subPasses)
		}
		if left := count(t, db, "test", "w"); left != 0 {
			t.Errorf("target %d ms: %d measurements left", c.targetMS, left)
		}
	}
}

// docs/collmod.md §5.2, docs/timeseries.md §6.6: enabling expiry later with collMod deletes old
// buckets on the next pass; "off" stops it; errors.
func TestTimeseriesCollModExpiry(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t"}}`)
	mustRun(t, db, "test", `{"create": "plain"}`)
	mustInsertTS(t, db, "w", fmt.Sprintf(`{"t": %s}`, tsDate(clk.Now().Add(-10*time.Hour))))
	if res := ttlPass(t, db); res.Deleted != 0 || len(db.ttlTargets()) != 0 {
		t.Fatalf("a collection without expiry was visited")
	}
	wantCode(t, db, "test", `{"collMod": "w", "expireAfterSeconds": "on"}`, document.CodeInvalidOptions, "")
	wantCode(t, db, "test", `{"collMod": "w", "expireAfterSeconds": {"a": 1}}`, document.CodeTypeMismatch, "")
	wantCode(t, db, "test", `{"collMod": "w", "expireAfterSeconds": -5}`, document.CodeInvalidOptions, "")
	wantCode(t, db, "test", `{"collMod": "plain", "expireAfterSeconds": 5}`, document.CodeInvalidOptions, "only supported on collections clustered by _id")
	wantCode(t, db, "test", `{"collMod": "w", "validator": {"a": 1}}`, document.CodeInvalidOptions, "")
	wantCode(t, db, "test", `{"collMod": "w", "index": {"keyPattern": {"t": 1}, "expireAfterSeconds": 5}}`, document.CodeInvalidOptions, "TTL indexes are not supported for time-series collections")
	mustRun(t, db, "test", `{"collMod": "w", "expireAfterSeconds": 60}`)
	if v := field(db.collectionInfo(db.lookup("test", "w")), "options.expireAfterSeconds"); v != int64(60) {
		t.Fatalf("listed expireAfterSeconds = %v", v)
	}
	if res := ttlPass(t, db); res.Deleted != 1 {
		t.Fatalf("enabling expiry later deleted %d buckets, want 1", res.Deleted)
	}
	mustRun(t, db, "test", `{"collMod": "w", "expireAfterSeconds": "off"}`)
	if _, ok := get(field(db.collectionInfo(db.lookup("test", "w")), "options").(bson.D), "expireAfterSeconds"); ok {
		t.Fatalf("off left expireAfterSeconds listed")
	}
	mustInsertTS(t, db, "w", fmt.Sprintf(`{"t": %s}`, tsDate(clk.Now().Add(-10*time.Hour))))
	if res := ttlPass(t, db); res.Deleted != 0 {
		t.Fatalf("expiry off still deleted")
	}
}

// docs/timeseries.md §6.5: granularity only grows; custom span and rounding; {} is a
// no-op; measurements keep their buckets.
func TestTimeseriesCollModGranularity(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m", "granularity": "minutes"}}`)
	mustInsertTS(t, db, "w", fmt.Sprintf(`{"t": %s, "m": 1}`, tsDate(clk.Now())))
	wantCode(t, db, "test", `{"collMod": "w", "timeseries": {"granularity": "seconds"}}`, document.CodeInvalidOptions, "Invalid transition for timeseries.granularity")
	wantCode(t, db, "test", `{"collMod": "w", "timeseries": {"timeField": "x"}}`, document.CodeIDLUnknownField, "")
	wantCode(t, db, "test", `{"collMod": "w", "timeseries": 5}`, document.CodeTypeMismatch, "")
	mustRun(t, db, "test", `{"collMod": "w", "timeseries": {}}`)
	mustRun(t, db, "test", `{"collMod": "w", "timeseries": {"granularity": "hours"}}`)
	opts := field(db.collectionInfo(db.lookup("test", "w")), "options.timeseries")
	if field(opts.(bson.D), "granularity") != "hours" || field(opts.(bson.D), "bucketMaxSpanSeconds") != int32(2592000) {
		t.Fatalf("after collMod: %v", opts)
	}
	// The open bucket keeps taking measurements with the new span.
	mustInsertTS(t, db, "w", fmt.Sprintf(`{"t": %s, "m": 1}`, tsDate(clk.Now().Add(2*time.Hour))))
	if n := len(tsBucketDocs(t, db, "w", "t")); n != 1 {
		t.Fatalf("%d buckets after growth, want 1", n)
	}
	mustRun(t, db, "test", `{"create": "c", "timeseries": {"timeField": "t", "bucketMaxSpanSeconds": 600, "bucketRoundingSeconds": 600}}`)
	wantCode(t, db, "test", `{"collMod": "c", "timeseries": {"bucketMaxSpanSeconds": 300, "bucketRoundingSeconds": 300}}`, document.CodeInvalidOptions, "needs to be equal or greater to transition")
	mustRun(t, db, "test", `{"collMod": "c", "timeseries": {"bucketMaxSpanSeconds": 7200, "bucketRoundingSeconds": 7200}}`)
	opts = field(db.collectionInfo(db.lookup("test", "c")), "options.timeseries")
	if field(opts.(bson.D), "bucketRoundingSeconds") != int32(7200) {
		t.Fatalf("custom collMod: %v", opts)
	}
	mustValidate(t, db, "test", "w")
}

// docs/timeseries.md §6.8: a collection that held a 1969 or 2040 measurement is never
// reaped, across restarts.
func TestTimeseriesOutOfRangeNeverReaped(t *testing.T) {
	t.Parallel()
	for _, when := range []time.Time{
		time.Date(1969, 12, 31, 23, 59, 59, 0, time.UTC),
		time.Date(2040, 1, 1, 0, 0, 0, 0, time.UTC),
	} {
		t.Run(when.Format("2006"), func(t *testing.T) {
			t.Parallel()
			db, clk, dir := openTest(t)
			mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t"}, "expireAfterSeconds": 1}`)
			mustInsertTS(t, db, "w", fmt.Sprintf(`{"t": %s}`, tsDate(clk.Now().Add(-48*time.Hour))))
			mustInsertTS(t, db, "w", fmt.Sprintf(`{"t": %s}`, tsDate(when)))
			// Both range ends are in range (checked by ts); here: the flag.
			db = reopen(t, db, dir, clk)
			clk.Advance(100 * 365 * 24 * time.Hour)
			if res := ttlPass(t, db); res.Deleted != 0 {
				t.Fatalf("reaped %d buckets from a collection with an out-of-range time", res.Deleted)
			}
			if n := count(t, db, "test", "w"); n != 2 {
				t.Fatalf("count = %d", n)
			}
			// The flag stays after the measurement is deleted.
			mustRun(t, db, "test", fmt.Sprintf(`{"delete": "w", "deletes": [{"q": {"t": %s}, "limit": 0}]}`, tsDate(when)))
			if res := ttlPass(t, db); res.Deleted != 0 {
				t.Fatalf("reaped after the out-of-range measurement was deleted")
			}
		})
	}
	// An out-of-range time that joins an open bucket (written as a
	// delta; the bucket's min time is in range) sets the flag too.
	{
		db, clk, _ := openTest(t)
		mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t"}, "expireAfterSeconds": 1}`)
		mustInsertTS(t, db, "w", `{"t": {"$date": "2038-01-19T03:14:07Z"}}`)
		mustInsertTS(t, db, "w", `{"t": {"$date": "2038-01-19T03:14:08Z"}}`)
		if n := len(tsBucketDocs(t, db, "w", "t")); n != 1 {
			t.Fatalf("%d buckets, want the second measurement in the first's", n)
		}
		clk.Advance(100 * 365 * 24 * time.Hour)
		if res := ttlPass(t, db); res.Deleted != 0 {
			t.Fatalf("reaped %d buckets after a 2038-01-19T03:14:08 measurement joined one", res.Deleted)
		}
	}
	// In-range extremes do not set the flag.
	db, clk, _ := openTest(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t"}, "expireAfterSeconds": 1}`)
	mustInsertTS(t, db, "w", `{"t": {"$date": "1970-01-01T00:00:00Z"}}`, `{"t": {"$date": "2038-01-19T03:14:07Z"}}`)
	clk.Advance(20 * 365 * 24 * time.Hour)
	if res := ttlPass(t, db); res.Deleted != 2 {
		t.Fatalf("in-range extremes: deleted %d, want 2", res.Deleted)
	}
}

// docs/timeseries.md §6.7: partial TTL indexes on a time-series collection.
func TestTimeseriesPartialTTLIndex(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "tm", "metaField": "md"}}`)
	mustRun(t, db, "test", `{"create": "nometa", "timeseries": {"timeField": "tm"}}`)
	cases := []struct {
		coll, spec string
		code       document.Code
		frag       string
	}{
		{"w", `{"key": {"tm": 1}, "name": "x", "expireAfterSeconds": 10}`, document.CodeInvalidOptions, "require a partialFilterExpression on the metaField"},
		{"w", `{"key": {"v": 1}, "name": "x", "expireAfterSeconds": 10, "partialFilterExpression": {"md": "a"}}`, document.CodeInvalidOptions, ""},
		{"w", `{"key": {"tm": 1}, "name": "x", "expireAfterSeconds": 10, "partialFilterExpression": {"v": 1}}`, document.CodeInvalidOptions, ""},
		{"w", `{"key": {"tm": 1}, "name": "x", "expireAfterSeconds": 10, "partialFilterExpression": {"tm": {"$gt": {"$date": "2020-01-01T00:00:00Z"}}}}`, document.CodeInvalidOptions, ""},
		{"w", `{"key": {"tm": 1}, "name": "x", "expireAfterSeconds": 10, "partialFilterExpression": {"md": "a", "v": 1}}`, document.CodeInvalidOptions, ""},
		{"w", `{"key": {"tm": 1, "md": 1}, "name": "x", "expireAfterSeconds": 10, "partialFilterExpression": {"md": "a"}}`, document.CodeCannotCreateIndex, ""},
		{"w", `{"key": {"tm": 1}, "name": "x", "expireAfterSeconds": -1, "partialFilterExpression": {"md": "a"}}`, document.CodeCannotCreateIndex, ""},
		{"w", `{"key": {"v": "hashed"}, "name": "x"}`, document.CodeCannotCreateIndex, ""},
		{"nometa", `{"key": {"tm": 1}, "name": "x", "expireAfterSeconds": 10, "partialFilterExpression": {"md": "a"}}`, document.CodeInvalidOptions, ""},
	}
	for _, c := range cases {
		wantCode(t, db, "test", fmt.Sprintf(`{"createIndexes": %q, "indexes": [%s]}`, c.coll, c.spec), c.code, c.frag)
	}
	if ixs := db.listIndexes(db.lookup("test", "w")); len(ixs) != 1 { // md_1_tm_1, made with the collection
		t.Fatalf("failed creates left indexes: %v", ixs)
	}
	r := mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"tm": 1}, "name": "tm_a", "expireAfterSeconds": 60, "partialFilterExpression": {"md.site": "a"}}]}`)
	if field(r, "numIndexesBefore") != int32(1) || field(r, "numIndexesAfter") != int32(2) {
		t.Fatalf("reply %v", r)
	}
	r = mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"tm": 1}, "name": "tm_a", "expireAfterSeconds": 60, "partialFilterExpression": {"md.site": "a"}}]}`)
	if field(r, "note") != "all indexes already exist" {
		t.Fatalf("repeat: %v", r)
	}
	wantCode(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"tm": 1}, "name": "tm_a", "expireAfterSeconds": 30, "partialFilterExpression": {"md.site": "a"}}]}`, document.CodeIndexOptionsConflict, "")
	ixs := db.listIndexes(db.lookup("test", "w"))
	want, _ := document.ParseExtJSON([]byte(`{"v": 2, "key": {"tm": 1}, "name": "tm_a", "partialFilterExpression": {"md.site": "a"}, "expireAfterSeconds": 60}`))
	if len(ixs) != 2 || !document.Equal(ixs[1], want) { // after md_1_tm_1
		t.Fatalf("listIndexes = %v, want the user's form %v", ixs, want)
	}
	old := clk.Now().Add(-2 * time.Hour)
	mustInsertTS(t, db, "w",
		fmt.Sprintf(`{"tm": %s, "md": {"site": "a"}}`, tsDate(old)),
		fmt.Sprintf(`{"tm": %s, "md": {"site": "b"}}`, tsDate(old)))
	if res := ttlPass(t, db); res.Deleted != 1 {
		t.Fatalf("partial TTL deleted %d, want the site a bucket", res.Deleted)
	}
	if got := findAll(t, db, "test", "w", bson.D{}); len(got) != 1 || field(got[0], "md.site") != "b" {
		t.Fatalf("left %v", got)
	}
	// With a collection-level expiry too, the shorter one wins for the
	// matching buckets: site a (index 60 s) goes at min+span+60 s, site b
	// (collection 1800 s) at min+span+1800 s.
	mustRun(t, db, "test", `{"collMod": "w", "expireAfterSeconds": 1800}`)
	recent := clk.Now().Truncate(time.Hour)
	mustInsertTS(t, db, "w",
		fmt.Sprintf(`{"tm": %s, "md": {"site": "a"}}`, tsDate(recent)),
		fmt.Sprintf(`{"tm": %s, "md": {"site": "c"}}`, tsDate(recent)))
	clk.Advance(recent.Add(3660 * time.Second).Sub(clk.Now()))
	if res := ttlPass(t, db); res.Deleted != 2 { // site a and the old site b bucket
		t.Fatalf("deleted %d at min+span+60s, want 2", res.Deleted)
	}
	if got := findAll(t, db, "test", "w", bson.D{}); len(got) != 1 || field(got[0], "md.site") != "c" {
		t.Fatalf("left %v", got)
	}
	clk.Advance(1740 * time.Second)
	if res := ttlPass(t, db); res.Deleted != 1 {
		t.Fatalf("collection expiry: deleted %d, want 1", res.Deleted)
	}
	// Dropping the partial index stops its rule.
	mustRun(t, db, "test", `{"collMod": "w", "expireAfterSeconds": "off"}`)
	mustRun(t, db, "test", `{"dropIndexes": "w", "index": "tm_a"}`)
	if len(db.ttlTargets()) != 0 {
		t.Fatalf("targets remain after the expiry and the index went")
	}
}

// Secondary indexes on metaField/time: listed in the user's form, used
// by the bucket scan, dropped with the collection's index.
func TestTimeseriesSecondaryIndex(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	mustInsertTS(t, db, "w", fmt.Sprintf(`{"t": %s, "m": {"site": "a"}}`, tsDate(clk.Now())))
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"m.site": 1, "t": -1}, "name": "m.site_1_t_-1"}]}`)
	ixs := db.listIndexes(db.lookup("test", "w"))
	if len(ixs) != 2 || field(ixs[0], "name") != "m_1_t_1" || field(ixs[1], "name") != "m.site_1_t_-1" {
		t.Fatalf("listIndexes = %v", ixs)
	}
	r := mustRun(t, db, "test", `{"explain": {"find": "w", "filter": {"m.site": "a"}}}`)
	if field(tsStage(r, 0), "$cursor.queryPlanner.winningPlan.inputStage.indexName") != "m.site_1_t_-1" {
		t.Fatalf("explain = %v", r)
	}
	if got := findAll(t, db, "test", "w", bson.D{{Key: "m.site", Value: "a"}}); len(got) != 1 {
		t.Fatalf("find via index = %v", got)
	}
	mustValidate(t, db, "test", "w")
	// A name taken by another key, and a key taken under another name,
	// refused with an ordinary collection's codes.
	wantCode(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"m.zone": 1}, "name": "m.site_1_t_-1"}]}`, document.CodeIndexKeySpecsConflict, "An existing index has the same name as the requested index.")
	wantCode(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"m.site": 1, "t": -1}, "name": "other"}]}`, document.CodeIndexOptionsConflict, "Index already exists with a different name: m.site_1_t_-1")
	wantCode(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"m.zone": 1}, "name": "z"}, {"key": {"m.other": 1}, "name": "z"}]}`, document.CodeIndexKeySpecsConflict, "")
	if ixs := db.listIndexes(db.lookup("test", "w")); len(ixs) != 2 {
		t.Fatalf("refused creates left indexes: %v", ixs)
	}
	mustRun(t, db, "test", `{"dropIndexes": "w", "index": "*"}`)
	if ixs := db.listIndexes(db.lookup("test", "w")); len(ixs) != 0 {
		t.Fatalf("dropIndexes * left %v", ixs)
	}
	if bm := db.lookup("test", "system.buckets.w").m(); bm.Index(tsIndexPrefix+"m.site_1_t_-1") != nil || bm.Index(tsIndexPrefix+"m_1_t_1") != nil {
		t.Fatalf("bucket index left after dropIndexes")
	}
	wantCode(t, db, "test", `{"dropIndexes": "w", "index": "nope"}`, document.CodeIndexNotFound, "")
}

// Drop removes the buckets collection; the data survive a restart and
// new measurements go on after it.
func TestTimeseriesDropAndReopen(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}, "expireAfterSeconds": 3600}`)
	mustInsertTS(t, db, "w", fmt.Sprintf(`{"t": %s, "m": 1}`, tsDate(clk.Now())))
	db = reopen(t, db, dir, clk)
	mustInsertTS(t, db, "w", fmt.Sprintf(`{"t": %s, "m": 1}`, tsDate(clk.Now())))
	if n := count(t, db, "test", "w"); n != 2 {
		t.Fatalf("count after reopen = %d", n)
	}
	mustValidate(t, db, "test", "w")
	r := mustRun(t, db, "test", `{"collStats": "w"}`)
	if field(r, "timeseries.bucketCount") != int32(2) || field(r, "timeseries.bucketsNs") != "test.system.buckets.w" {
		t.Fatalf("collStats = %v", r)
	}
	mustRun(t, db, "test", `{"drop": "w"}`)
	if db.lookup("test", "system.buckets.w") != nil {
		t.Fatalf("buckets collection survived the drop")
	}
	// Re-create with other options works after the drop.
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "x"}}`)
	if n := count(t, db, "test", "w"); n != 0 {
		t.Fatalf("re-created collection has %d measurements", n)
	}
}

// Query results over buckets equal those over the same measurements in
// an ordinary collection, on random data and random filters; so do the
// results of random deletes.
func TestTimeseriesMatchesOrdinaryCollection(t *testing.T) {
	t.Parallel()
	seed := time.Now().UnixNano()
	if s := os.Getenv("TTLKV_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (TTLKV_SEED to repeat)", seed)
	rng := rand.New(rand.NewSource(seed))
	db, clk := openMem(t)
	ctx := context.Background()
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m", "bucketMaxSpanSeconds": 7200, "bucketRoundingSeconds": 7200}}`)
	base := clk.Now().Add(-72 * time.Hour)
	metas := []any{"a", "b", bson.D{{Key: "k", Value: int32(1)}}, int32(7), nil, bson.A{int32(1), int32(2)}}
	randTime := func() bson.DateTime {
		return bson.NewDateTimeFromTime(base.Add(time.Duration(rng.Int63n(int64(72 * time.Hour)))))
	}
	n, queries, deletes := 400, 40, 6
	switch {
	case os.Getenv("TTLKV_LONG") != "":
		n, queries, deletes = 20000, 500, 40
	case raceOn:
		n, queries, deletes = 200, 20, 3 // one goroutine under the race detector: half
	}
	var docs []any
	for i := 0; i < n; i++ {
		d := bson.D{{Key: "_id", Value: int32(i)}, {Key: "t", Value: randTime()}}
		if k := rng.Intn(len(metas) + 1); k < len(metas) {
			d = append(d, bson.E{Key: "m", Value: metas[k]})
		}
		switch rng.Intn(4) {
		case 0:
			d = append(d, bson.E{Key: "v", Value: int32(rng.Intn(100))})
		case 1:
			d = append(d, bson.E{Key: "v", Value: rng.Float64() * 100})
		case 2:
			d = append(d, bson.E{Key: "v", Value: "s" + strconv.Itoa(rng.Intn(10))})
		}
		if rng.Intn(3) == 0 {
			d = append(d, bson.E{Key: "w", Value: bson.A{int32(rng.Intn(5)), int32(rng.Intn(5))}})
		}
		docs = append(docs, d)
	}
	for start := 0; start < n; start += 150 { // several insert batches, out of order
		end := min(start+150, n)
		if _, err := db.Database("test").Collection("ts").InsertMany(ctx, docs[start:end], true); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Database("test").Collection("plain").InsertMany(ctx, docs[start:end], true); err != nil {
			t.Fatal(err)
		}
	}
	randCond := func() bson.D {
		switch rng.Intn(7) {
		case 0:
			return bson.D{{Key: "m", Value: metas[rng.Intn(len(metas))]}}
		case 1:
			ops := []string{"$gt", "$gte", "$lt", "$lte"}
			return bson.D{{Key: "t", Value: bson.D{{Key: ops[rng.Intn(4)], Value: randTime()}}}}
		case 2:
			a, b := randTime(), randTime()
			if a > b {
				a, b = b, a
			}
			return bson.D{{Key: "t", Value: bson.D{{Key: "$gte", Value: a}, {Key: "$lt", Value: b}}}}
		case 3:
			return bson.D{{Key: "v", Value: bson.D{{Key: "$gt", Value: int32(rng.Intn(100))}}}}
		case 4:
			return bson.D{{Key: "m.k", Value: int32(1)}}
		case 5:
			return bson.D{{Key: "w", Value: int32(rng.Intn(5))}}
		}
		return bson.D{{Key: "m", Value: bson.D{{Key: "$in", Value: bson.A{metas[rng.Intn(len(metas))], metas[rng.Intn(len(metas))]}}}}}
	}
	randFilter := func() bson.D {
		var f bson.D
		for k := rng.Intn(3); k >= 0; k-- {
			c := randCond()
			if rng.Intn(4) == 0 {
				f = append(f, bson.E{Key: "$or", Value: bson.A{c, randCond()}})
			} else {
				f = append(f, bson.E{Key: "$and", Value: bson.A{c}})
			}
		}
		return f
	}
	byID := func(docs []bson.D) []bson.D {
		sort.Slice(docs, func(i, j int) bool { return document.Compare(docs[i][0].Value, docs[j][0].Value) < 0 })
		return docs
	}
	same := func(what string, f bson.D) {
		t.Helper()
		a := byID(findAll(t, db, "test", "ts", f))
		b := byID(findAll(t, db, "test", "plain", f))
		if len(a) != len(b) {
			t.Fatalf("%s %s: time-series %d, ordinary %d measurements (seed %d)", what, fmtValue(f), len(a), len(b), seed)
		}
		for i := range a {
			if !document.Equal(a[i], b[i]) || len(a[i]) != len(b[i]) {
				t.Fatalf("%s %s: %v != %v (seed %d)", what, fmtValue(f), a[i], b[i], seed)
			}
		}
	}
	for q := 0; q < queries; q++ {
		same("find", randFilter())
	}
	for q := 0; q < deletes; q++ {
		f := randFilter()
		var limit int64
		if rng.Intn(3) == 0 {
			limit = 1
		}
		spec := DeleteSpec{Filter: f, Limit: limit}
		na, err := db.deleteDocs(ctx, "test", "ts", spec)
		if err != nil {
			t.Fatal(err)
		}
		if limit == 1 {
			// Which one goes may differ; delete the same _id from plain.
			got := byID(findAll(t, db, "test", "plain", f))
			left := map[any]bool{}
			for _, d := range findAll(t, db, "test", "ts", f) {
				left[d[0].Value] = true
			}
			for _, d := range got {
				if !left[d[0].Value] {
					if _, err := db.deleteDocs(ctx, "test", "plain", DeleteSpec{Filter: bson.D{{Key: "_id", Value: d[0].Value}}, Limit: 1}); err != nil {
						t.Fatal(err)
					}
				}
			}
			if na > 1 {
				t.Fatalf("deleteOne deleted %d", na)
			}
		} else {
			nb, err := db.deleteDocs(ctx, "test", "plain", spec)
			if err != nil {
				t.Fatal(err)
			}
			if na != nb {
				t.Fatalf("delete %s: time-series %d, ordinary %d (seed %d)", fmtValue(f), na, nb, seed)
			}
		}
		same("after delete", bson.D{})
	}
	mustValidate(t, db, "test", "ts")
}

// An index on a measurement field, as mongod 6.0 and later take one: the
// buckets collection gets an index on the field's bounds in each bucket
// ({control.min.v: 1, control.max.v: 1}; descending, the max first),
// whose keys move as a bucket grows, so from then on no bucket keeps
// deltas. Finds answer the same with and without it, through it by hint,
// and the buckets validate after writes on either side of its build.
func TestTimeseriesMeasurementIndex(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "tm", "metaField": "md"}}`)
	insert := func(from, to int) {
		t.Helper()
		var docs []string
		for i := from; i < to; i++ {
			docs = append(docs, fmt.Sprintf(`{"tm": {"$date": "2026-01-01T00:%02d:00Z"}, "md": %q, "v": %d}`, i%60, []string{"a", "b"}[i%2], i))
		}
		mustRun(t, db, "test", `{"insert": "w", "documents": [`+strings.Join(docs, ",")+`]}`)
	}
	// Three inserts into the same buckets: the later ones are deltas.
	insert(0, 10)
	insert(10, 20)
	insert(20, 30)
	values := func(cmd string) string {
		t.Helper()
		r := mustRun(t, db, "test", cmd)
		c, _ := get(r, "cursor")
		b, _ := get(c.(bson.D), "firstBatch")
		var out []string
		for _, d := range b.(bson.A) {
			v, _ := get(d.(bson.D), "v")
			out = append(out, fmt.Sprint(v))
		}
		return strings.Join(out, ",")
	}
	const filter = `"filter": {"v": {"$gte": 9, "$lt": 13}}, "sort": {"v": 1}`
	before := values(`{"find": "w", ` + filter + `}`)
	if before != "9,10,11,12" {
		t.Fatalf("before the index: %s", before)
	}
	r := mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"v": 1}, "name": "v_1"}, {"key": {"v": -1, "md": 1}, "name": "v_-1_md_1"}]}`)
	if field(r, "numIndexesAfter") != int32(3) {
		t.Fatalf("createIndexes: %v", r)
	}
	ixs := db.listIndexes(db.lookup("test", "w"))
	if len(ixs) != 3 || document.Format(ixs[1]) != `{ v: 2, key: { v: 1 }, name: "v_1" }` {
		t.Errorf("listIndexes shows %v, want the user's form", ixs)
	}
	bixs := document.Format(mustRun(t, db, "test", `{"listIndexes": "system.buckets.w"}`))
	for _, want := range []string{`key: { control.min.v: 1, control.max.v: 1 }, name: "v_1"`, `key: { control.max.v: -1, control.min.v: -1, meta: 1 }, name: "v_-1_md_1"`} {
		if !strings.Contains(bixs, want) {
			t.Errorf("buckets indexes lack %s: %s", want, bixs)
		}
	}
	insert(30, 40) // no deltas now: each bucket rewritten whole
	for _, cmd := range []string{
		`{"find": "w", ` + filter + `}`,
		`{"find": "w", ` + filter + `, "hint": {"v": 1}}`,
		`{"find": "w", ` + filter + `, "hint": "v_-1_md_1"}`,
	} {
		if got := values(cmd); got != before {
			t.Errorf("%s: %s, want %s", cmd, got, before)
		}
	}
	if got := values(`{"find": "w", "filter": {"v": {"$gte": 38}}, "sort": {"v": 1}, "hint": {"v": 1}}`); got != "38,39" {
		t.Errorf("measurements written after the build: %s", got)
	}
	v := mustRun(t, db, "test", `{"validate": "system.buckets.w"}`)
	if field(v, "valid") != true {
		t.Errorf("buckets after the index: %s", document.Format(v))
	}
}
