package engine

import (
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// TestCollStatsStage: $collStats as the first stage gives one document
// with the parts asked for: storageStats as collStats reports them
// (scaled, without ns), count, and MongoDB's shapes of latencyStats and
// queryExecStats; later stages work on it, as mongosh's
// totalIndexSize() does.
func TestCollStatsStage(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	c := db.Database("test").Collection("c")
	for i := 0; i < 5; i++ {
		if _, err := c.InsertOne(context.Background(), bson.D{{Key: "_id", Value: i}, {Key: "s", Value: "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}); err != nil {
			t.Fatal(err)
		}
	}
	r, err := run(t, db, "test", `{"aggregate": "c", "pipeline": [{"$collStats": {"storageStats": {"scale": 2}, "count": {}, "latencyStats": {"histograms": true}, "queryExecStats": {}}}], "cursor": {}}`)
	if err != nil {
		t.Fatal(err)
	}
	docs := firstBatch(t, r)
	if len(docs) != 1 {
		t.Fatalf("%d documents, want 1: %v", len(docs), docs)
	}
	d := docs[0]
	if ns, _ := get(d, "ns"); ns != "test.c" {
		t.Errorf("ns %v", ns)
	}
	if _, ok := get(d, "localTime"); !ok {
		t.Error("no localTime")
	}
	if n, _ := get(d, "count"); fmt.Sprint(n) != "5" {
		t.Errorf("count %v, want 5", n)
	}
	cs, err := run(t, db, "test", `{"collStats": "c", "scale": 2}`)
	if err != nil {
		t.Fatal(err)
	}
	ss, _ := get(d, "storageStats")
	want := bson.D{}
	for _, e := range cs {
		if e.Key != "ns" && e.Key != "ok" {
			want = append(want, e)
		}
	}
	if fmt.Sprint(ss) != fmt.Sprint(want) {
		t.Errorf("storageStats %v\nwant collStats's %v", ss, want)
	}
	if ls, _ := get(d, "latencyStats"); fmt.Sprint(ls) != `{"reads":{"latency":{"$numberLong":"0"},"ops":{"$numberLong":"0"},"histogram":[]},"writes":{"latency":{"$numberLong":"0"},"ops":{"$numberLong":"0"},"histogram":[]},"commands":{"latency":{"$numberLong":"0"},"ops":{"$numberLong":"0"},"histogram":[]},"transactions":{"latency":{"$numberLong":"0"},"ops":{"$numberLong":"0"},"histogram":[]}}` {
		t.Errorf("latencyStats %v", ls)
	}
	if qs, _ := get(d, "queryExecStats"); fmt.Sprint(qs) != `{"collectionScans":{"total":{"$numberLong":"0"},"nonTailable":{"$numberLong":"0"}}}` {
		t.Errorf("queryExecStats %v", qs)
	}
	// As mongosh's totalIndexSize(): a $group after it.
	r, err = run(t, db, "test", `{"aggregate": "c", "pipeline": [{"$collStats": {"storageStats": {}}}, {"$group": {"_id": null, "value": {"$sum": "$storageStats.totalIndexSize"}}}], "cursor": {}}`)
	if err != nil {
		t.Fatal(err)
	}
	unscaled, err := run(t, db, "test", `{"collStats": "c"}`)
	if err != nil {
		t.Fatal(err)
	}
	total, _ := get(unscaled, "totalIndexSize")
	if v, _ := get(firstBatch(t, r)[0], "value"); toInt64(t, v) != toInt64(t, total) || toInt64(t, v) == 0 {
		t.Errorf("totalIndexSize through $group %v, want collStats's %v", v, total)
	}
	// A first batch of 0 keeps the document for getMore: nothing is
	// lost to batchSize.
	r, err = run(t, db, "test", `{"aggregate": "c", "pipeline": [{"$collStats": {"count": {}}}], "cursor": {"batchSize": 0}}`)
	if err != nil {
		t.Fatal(err)
	}
	cur, _ := get(r, "cursor")
	id, _ := get(cur.(bson.D), "id")
	if len(firstBatch(t, r)) != 0 || id == int64(0) {
		t.Fatalf("batchSize 0: %v, want an empty first batch and an open cursor", r)
	}
	r, err = db.RunCommand(context.Background(), "test", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}})
	if err != nil {
		t.Fatal(err)
	}
	cur, _ = get(r, "cursor")
	next, _ := get(cur.(bson.D), "nextBatch")
	if arr, _ := next.(bson.A); len(arr) != 1 {
		t.Fatalf("getMore after batchSize 0: %v, want the stats document", r)
	}
	// latencyStats alone needs no collection.
	r, err = run(t, db, "test", `{"aggregate": "nosuch", "pipeline": [{"$collStats": {"latencyStats": {}}}], "cursor": {}}`)
	if err != nil || len(firstBatch(t, r)) != 1 {
		t.Errorf("latencyStats of a missing collection: %v %v", r, err)
	}
}

// TestCollStatsStageErrors: the refusals of $collStats, with MongoDB's
// codes.
func TestCollStatsStageErrors(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	if _, err := db.Database("test").Collection("c").InsertOne(context.Background(), bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		pipeline string
		code     document.Code
		frag     string
	}{
		{`[{"$match": {}}, {"$collStats": {}}]`, 40602, "only valid as the first stage"},
		{`[{"$collStats": 1}]`, 40166, "must take a nested object"},
		{`[{"$collStats": {"nosuch": {}}}]`, document.CodeIDLUnknownField, "'$collStats.nosuch' is an unknown field"},
		{`[{"$collStats": {"storageStats": 1}}]`, document.CodeTypeMismatch, "expected type 'object'"},
		{`[{"$collStats": {"storageStats": {"scale": 0}}}]`, codeIDLValidator, "must be >= 1"},
		{`[{"$collStats": {"latencyStats": {"histograms": 1}}}]`, document.CodeTypeMismatch, "histograms"},
	} {
		_, err := run(t, db, "test", `{"aggregate": "c", "pipeline": `+tc.pipeline+`, "cursor": {}}`)
		checkCode(t, tc.pipeline, err, tc.code, tc.frag)
	}
	_, err := run(t, db, "test", `{"aggregate": "nosuch", "pipeline": [{"$collStats": {"storageStats": {}}}], "cursor": {}}`)
	checkCode(t, "storageStats of a missing collection", err, document.CodeNamespaceNotFound, "Unable to retrieve storageStats in $collStats stage :: caused by :: Collection [test.nosuch] not found.")
}
