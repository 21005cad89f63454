package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestAggregateCommand checks the aggregate command's reply shapes, its
// cursor (firstBatch, getMore), index use for a leading $match, the
// injected clock as $$NOW, and its refusals.
func TestAggregateCommand(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	var docs []string
	for i := range 300 {
		docs = append(docs, fmt.Sprintf(`{"_id": %d, "g": %d, "v": %d}`, i, i%3, i))
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [`+joinComma(docs)+`]}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"g": 1}, "name": "g_1"}]}`)

	r := mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$match": {"g": 1}}, {"$group": {"_id": "$g", "n": {"$sum": 1}, "total": {"$sum": "$v"}}}], "cursor": {}}`)
	id, batch := checkCursorShape(t, "group", field(r, "cursor"), "firstBatch")
	want := bson.D{{Key: "_id", Value: int32(1)}, {Key: "n", Value: int32(100)}, {Key: "total", Value: int32(14950)}}
	if id != 0 || len(batch) != 1 || document.Compare(batch[0], want) != 0 || field(r, "cursor.ns") != "test.c" {
		t.Fatalf("group reply: %v, want one batch of %v", r, want)
	}

	// 300 results: 101 in the first batch, the rest through getMore.
	r = mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$project": {"v": 1}}], "cursor": {}}`)
	id, batch = checkCursorShape(t, "project", field(r, "cursor"), "firstBatch")
	if id == 0 || len(batch) != 101 {
		t.Fatalf("first batch: id %d, %d docs; want an open cursor and 101", id, len(batch))
	}
	r = mustRun(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "c", "batchSize": 150}`, id))
	_, next := checkCursorShape(t, "getMore", field(r, "cursor"), "nextBatch")
	r = mustRun(t, db, "test", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "c"}`, id))
	id2, last := checkCursorShape(t, "getMore 2", field(r, "cursor"), "nextBatch")
	if len(next) != 150 || len(last) != 49 || id2 != 0 || field(last[48].(bson.D), "_id") != int32(299) {
		t.Fatalf("getMore batches %d and %d (cursor %d), want 150 and 49 ending at _id 299, then closed", len(next), len(last), id2)
	}
	r = mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [], "cursor": {"batchSize": 0}}`)
	if id, b := checkCursorShape(t, "batchSize 0", field(r, "cursor"), "firstBatch"); id == 0 || len(b) != 0 {
		t.Fatalf("batchSize 0: id %d, %d docs; want an open cursor and none", id, len(b))
	}

	// A leading $match is an index scan; the rest follows $cursor.
	r = mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$match": {"g": 2}}, {"$count": "n"}], "explain": true}`)
	stages, _ := field(r, "stages").(bson.A)
	// $count shows as the $group and $project mongod parses it into.
	if len(stages) != 3 || field(stages[0].(bson.D), "$cursor.queryPlanner.winningPlan.inputStage.stage") != "IXSCAN" ||
		field(stages[1].(bson.D), "$group.n.$sum.$const") != int32(1) || field(stages[2].(bson.D), "$project.n") != true {
		t.Fatalf("explain: %v, want $cursor over IXSCAN then $count's $group and $project", r)
	}
	// A pipeline the find layer runs whole explains as the find does.
	r = mustRun(t, db, "test", `{"explain": {"aggregate": "c", "pipeline": [{"$match": {"g": 2}}], "cursor": {}}, "verbosity": "executionStats"}`)
	if n := field(r, "executionStats.nReturned"); n != int32(100) {
		t.Fatalf("explain executionStats nReturned = %v, want 100 (%v)", n, r)
	}

	// $$NOW is the engine's clock.
	r = mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$limit": 1}, {"$project": {"_id": 0, "now": "$$NOW"}}], "cursor": {}}`)
	_, batch = checkCursorShape(t, "now", field(r, "cursor"), "firstBatch")
	if got := field(batch[0].(bson.D), "now"); got != bson.NewDateTimeFromTime(clk.Now()) {
		t.Fatalf("$$NOW = %v, want the injected clock %v", got, clk.Now())
	}
	// A collection that does not exist aggregates to nothing.
	r = mustRun(t, db, "test", `{"aggregate": "nosuch", "pipeline": [{"$count": "n"}], "cursor": {}}`)
	if _, b := checkCursorShape(t, "nosuch", field(r, "cursor"), "firstBatch"); len(b) != 0 {
		t.Fatalf("aggregate on a missing collection: %v", r)
	}

	wantCode(t, db, "test", `{"aggregate": "c", "pipeline": []}`, document.CodeFailedToParse, "'cursor' option is required")
	wantCode(t, db, "test", `{"aggregate": "c", "cursor": {}}`, codeIDLFailedToParse, "'aggregate.pipeline' is missing")
	wantCode(t, db, "test", `{"aggregate": "c", "pipeline": {}, "cursor": {}}`, document.CodeTypeMismatch, "expected type 'array'")
	wantCode(t, db, "test", `{"aggregate": 1, "pipeline": [], "cursor": {}}`, document.CodeInvalidNamespace, "not valid for an empty pipeline")
	wantCode(t, db, "test", `{"aggregate": "c", "pipeline": [{"$geoNear": {"near": [0, 0], "distanceField": 1}}], "cursor": {}}`, document.Code(16606), "'distanceField'")
	wantCode(t, db, "test", `{"aggregate": "c", "pipeline": [{"$project": {"x": {"$divide": ["$v", "$g"]}}}], "cursor": {}}`, document.CodeBadValue, "divide by zero")
	if n := count(t, db, "test", "c"); n != 300 {
		t.Fatalf("after the refusals: %d documents, want 300", n)
	}
}

func joinComma(s []string) string {
	out := ""
	for i, x := range s {
		if i > 0 {
			out += ","
		}
		out += x
	}
	return out
}

// TestAggregateTimeseries checks that a pipeline over a time-series
// collection sees its measurements, and gives the same answer as over
// the same measurements in an ordinary collection.
func TestAggregateTimeseries(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ctx := context.Background()
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m", "granularity": "minutes"}}`)
	base := time.Date(2026, 5, 1, 10, 0, 0, 0, time.UTC)
	var ms []any
	for i := range 240 {
		ms = append(ms, bson.D{{Key: "t", Value: bson.NewDateTimeFromTime(base.Add(time.Duration(i) * 37 * time.Second))},
			{Key: "m", Value: bson.D{{Key: "sensor", Value: fmt.Sprintf("s%d", i%4)}}}, {Key: "temp", Value: float64(i%17) + 0.5}})
	}
	for _, coll := range []string{"ts", "plain"} {
		if _, err := db.Database("test").Collection(coll).InsertMany(ctx, ms, true); err != nil {
			t.Fatal(err)
		}
	}
	pipeline := bson.A{
		bson.D{{Key: "$match", Value: bson.D{{Key: "m.sensor", Value: bson.D{{Key: "$in", Value: bson.A{"s1", "s2"}}}}}}},
		bson.D{{Key: "$group", Value: bson.D{
			{Key: "_id", Value: bson.D{{Key: "s", Value: "$m.sensor"}, {Key: "h", Value: bson.D{{Key: "$dateTrunc", Value: bson.D{{Key: "date", Value: "$t"}, {Key: "unit", Value: "minute"}, {Key: "binSize", Value: 30}}}}}}},
			{Key: "n", Value: bson.D{{Key: "$sum", Value: 1}}},
			{Key: "avg", Value: bson.D{{Key: "$avg", Value: "$temp"}}},
			{Key: "max", Value: bson.D{{Key: "$max", Value: "$temp"}}}}}},
		bson.D{{Key: "$sort", Value: bson.D{{Key: "_id.s", Value: 1}, {Key: "_id.h", Value: 1}}}},
	}
	got := aggregateAll(t, db.Database("test").Collection("ts"), pipeline)
	want := aggregateAll(t, db.Database("test").Collection("plain"), pipeline)
	if len(got) == 0 || len(got) != len(want) {
		t.Fatalf("time-series: %d groups, ordinary: %d", len(got), len(want))
	}
	total := int32(0)
	for i := range got {
		if document.Compare(got[i], want[i]) != 0 {
			t.Fatalf("group %d: time-series %v, ordinary %v", i, got[i], want[i])
		}
		total += field(got[i], "n").(int32)
	}
	if total != 120 {
		t.Fatalf("groups hold %d measurements, want 120 (sensors s1 and s2)", total)
	}
}

// TestAggregateCapped checks $natural order and a pipeline over what the
// ring still holds.
func TestAggregateCapped(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	ctx := context.Background()
	mustRun(t, db, "test", `{"create": "cap", "capped": true, "size": 100000, "max": 5}`)
	for i := range 12 {
		if _, err := db.Database("test").Collection("cap").InsertOne(ctx, bson.D{{Key: "i", Value: int32(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	got := aggregateAll(t, db.Database("test").Collection("cap"), bson.A{
		bson.D{{Key: "$sort", Value: bson.D{{Key: "$natural", Value: -1}}}},
		bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: 0}, {Key: "i", Value: 1}}}},
	})
	var is []int32
	for _, d := range got {
		is = append(is, field(d, "i").(int32))
	}
	if fmt.Sprint(is) != "[11 10 9 8 7]" {
		t.Fatalf("capped $natural -1: %v, want [11 10 9 8 7]", is)
	}
}

func aggregateAll(t *testing.T, c *Collection, pipeline bson.A) []bson.D {
	t.Helper()
	cur, err := c.Aggregate(context.Background(), pipeline)
	if err != nil {
		t.Fatal(err)
	}
	out, err := cur.All(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestExprFilter checks $expr in find, count, delete and an aggregate's
// $match through the engine.
func TestExprFilter(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "spent": 5, "budget": 10}, {"_id": 2, "spent": 12, "budget": 10}, {"_id": 3, "spent": 20, "budget": 15}]}`)
	over := `{"$expr": {"$gt": ["$spent", "$budget"]}}`
	if got := findAll(t, db, "test", "c", mustDoc(t, over)); len(got) != 2 || field(got[0], "_id") != int32(2) {
		t.Fatalf("find with $expr: %v, want _id 2 and 3", got)
	}
	r := mustRun(t, db, "test", `{"count": "c", "query": `+over+`}`)
	if field(r, "n") != int32(2) {
		t.Fatalf("count with $expr: %v", r)
	}
	r = mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$match": `+over+`}, {"$count": "n"}], "cursor": {}}`)
	if _, b := checkCursorShape(t, "aggregate", field(r, "cursor"), "firstBatch"); len(b) != 1 || field(b[0].(bson.D), "n") != int32(2) {
		t.Fatalf("aggregate $match with $expr: %v", r)
	}
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": `+over+`, "limit": 0}]}`)
	if got := findAll(t, db, "test", "c", bson.D{}); len(got) != 1 || field(got[0], "_id") != int32(1) {
		t.Fatalf("after deleting with $expr: %v, want _id 1 only", got)
	}
	wantCode(t, db, "test", `{"find": "c", "filter": {"a": {"$elemMatch": {"$expr": true}}}}`, document.CodeBadValue, "top-level")
}

func mustDoc(t *testing.T, s string) bson.D {
	t.Helper()
	d, err := document.ParseExtJSON([]byte(s))
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestExprFilterFails checks that a $expr that fails for a document
// fails the query with the expression's error (2 for a $divide by zero)
// in every command that filters, as in MongoDB, and changes nothing.
func TestExprFilterFails(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 4, "b": 2}, {"_id": 2, "a": 1, "b": 0}]}`)
	mustRun(t, db, "test", `{"create": "cap", "capped": true, "size": 4096}`)
	mustRun(t, db, "test", `{"insert": "cap", "documents": [{"_id": 1, "a": 4, "b": 2}, {"_id": 2, "a": 1, "b": 0}]}`)
	bad := `{"$expr": {"$gt": [{"$divide": ["$a", "$b"]}, 1]}}`
	for _, cmd := range []string{
		`{"find": "c", "filter": ` + bad + `}`,
		`{"find": "cap", "filter": ` + bad + `}`,
		`{"count": "c", "query": ` + bad + `}`,
		`{"aggregate": "c", "pipeline": [{"$match": ` + bad + `}], "cursor": {}}`,
		`{"aggregate": "c", "pipeline": [{"$project": {"a": 1, "b": 1}}, {"$match": ` + bad + `}], "cursor": {}}`,
		`{"update": "c", "updates": [{"q": ` + bad + `, "u": {"$set": {"x": 1}}, "multi": true}]}`,
		`{"update": "cap", "updates": [{"q": ` + bad + `, "u": {"$set": {"a": 5}}, "multi": true}]}`,
		`{"delete": "c", "deletes": [{"q": ` + bad + `, "limit": 0}]}`,
		`{"findAndModify": "c", "query": ` + bad + `, "sort": {"_id": -1}, "update": {"$set": {"x": 1}}}`,
	} {
		r, err := run(t, db, "test", cmd)
		if err == nil {
			// Write commands report per-statement errors in writeErrors.
			we, _ := get(r, "writeErrors")
			arr, _ := we.(bson.A)
			if len(arr) != 1 {
				t.Fatalf("%s: reply %v, want the $divide error", cmd, r)
			}
			if c := field(arr[0].(bson.D), "code"); c != int32(document.CodeBadValue) {
				t.Fatalf("%s: write error %v, want code 2", cmd, arr[0])
			}
			continue
		}
		checkCode(t, cmd, err, document.CodeBadValue, "can't $divide by zero")
	}
	for _, coll := range []string{"c", "cap"} {
		got := findAll(t, db, "test", coll, bson.D{})
		if len(got) != 2 || len(got[0]) != 3 || len(got[1]) != 3 || field(got[0], "a") != int32(4) {
			t.Fatalf("%s after the failed commands: %v, want both documents unchanged", coll, got)
		}
	}
}

// TestExprFilterNowIsClock checks that $$NOW in a filter's $expr is the
// DB's clock (Options.Clock), in find, count, delete and an aggregate's
// $match, so that "expired by now" queries agree with the TTL monitor.
func TestExprFilterNowIsClock(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	clk.Advance(time.Date(2001, 1, 1, 0, 0, 0, 0, time.UTC).Sub(clk.Now()))
	// _id 1 expired in 2000; _id 2 expires in 2002: past by the wall
	// clock, future by the DB's.
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "exp": {"$date": "2000-06-01T00:00:00Z"}}, {"_id": 2, "exp": {"$date": "2002-01-01T00:00:00Z"}}]}`)
	past := `{"$expr": {"$lt": ["$exp", "$$NOW"]}}`
	if got := findAll(t, db, "test", "c", mustDoc(t, past)); len(got) != 1 || field(got[0], "_id") != int32(1) {
		t.Fatalf("find exp < $$NOW: %v, want _id 1 only", got)
	}
	if r := mustRun(t, db, "test", `{"count": "c", "query": `+past+`}`); field(r, "n") != int32(1) {
		t.Fatalf("count exp < $$NOW: %v, want 1", r)
	}
	r := mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$project": {"exp": 1}}, {"$match": `+past+`}, {"$count": "n"}], "cursor": {}}`)
	if _, b := checkCursorShape(t, "aggregate", field(r, "cursor"), "firstBatch"); len(b) != 1 || field(b[0].(bson.D), "n") != int32(1) {
		t.Fatalf("aggregate $match exp < $$NOW: %v, want n 1", r)
	}
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": `+past+`, "limit": 0}]}`)
	if got := findAll(t, db, "test", "c", bson.D{}); len(got) != 1 || field(got[0], "_id") != int32(2) {
		t.Fatalf("after deleting exp < $$NOW: %v, want _id 2 only", got)
	}
}
