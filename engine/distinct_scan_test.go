package engine

import (
	"context"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// distinctStages returns the stages of distinct cmd's winning plan and
// its executionStats.
func distinctStages(t *testing.T, db *DB, cmd string) (string, bson.D) {
	t.Helper()
	r := explainOf(t, db, cmd, "executionStats")
	return strings.Join(stages(field(r, "queryPlanner.winningPlan").(bson.D)), " "), field(r, "executionStats").(bson.D)
}

// distinctValuesOf runs distinct cmd and returns its values as
// canonical extended JSON, so that types count.
func distinctValuesOf(t *testing.T, db *DB, cmd bson.D) string {
	t.Helper()
	r := mustRunD(t, db, "test", cmd)
	return canon(t, bson.D{{Key: "v", Value: field(r, "values")}})
}

// A distinct over a marked index gives what reading the documents
// gives, value and type, on random documents of mixed numeric types
// (int32, int64, double, decimal, -0.0, NaN), nulls, missing fields,
// strings, dates, documents holding numbers and Symbols, under random
// filters on the key; most of them are DISTINCT_SCANs. The reference
// is the same documents in a collection without the index.
func TestDistinctScanMatchesFetch(t *testing.T) {
	t.Parallel()
	seed := testSeed(t)
	r := rand.New(rand.NewPCG(uint64(seed), 0))
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	mustRun(t, db, "test", `{"createIndexes": "d", "indexes": [{"key": {"a": -1, "z": 1}, "name": "a_z"}]}`)
	value := func() any { return lossyValue(r, true) }
	var docs bson.A
	for i := 0; i < 150; i++ {
		d := bson.D{{Key: "_id", Value: int32(i)}}
		for _, p := range []string{"a", "z"} {
			if r.IntN(5) > 0 {
				d = append(d, bson.E{Key: p, Value: value()})
			}
		}
		docs = append(docs, d)
	}
	for _, c := range []string{"c", "d", "ref"} {
		mustRunD(t, db, "test", bson.D{{Key: "insert", Value: c}, {Key: "documents", Value: docs}})
	}
	scalar := func() any {
		for {
			if v := value(); v != nil {
				if _, isDoc := v.(bson.D); !isDoc {
					return v
				}
			}
		}
	}
	ops := []string{"$eq", "$gt", "$gte", "$lt", "$lte", "$in"}
	scans := 0
	for i := 0; i < 50; i++ {
		query := bson.D{}
		if i > 0 {
			op := ops[r.IntN(len(ops))]
			var arg any = scalar()
			if op == "$in" {
				arg = bson.A{scalar(), scalar()}
			}
			query = bson.D{{Key: "a", Value: bson.D{{Key: op, Value: arg}}}}
		}
		cmd := func(c string) bson.D {
			return bson.D{{Key: "distinct", Value: c}, {Key: "key", Value: "a"}, {Key: "query", Value: query}}
		}
		want := distinctValuesOf(t, db, cmd("ref"))
		if got := distinctValuesOf(t, db, cmd("c")); got != want {
			t.Errorf("seed %d, query %v on {a: 1}\n got %s\nwant %s", seed, query, got, want)
		}
		// Over {a: -1, z: 1} the value of an equal group is its first
		// entry's in index order (lowest z), which may differ in type
		// from the first document's: compare values.
		rr := mustRunD(t, db, "test", cmd("d"))
		rw := mustRunD(t, db, "test", cmd("ref"))
		got, _ := field(rr, "values").(bson.A)
		exp, _ := field(rw, "values").(bson.A)
		if len(got) != len(exp) {
			t.Errorf("seed %d, query %v on {a: -1, z: 1}: %v, want %v", seed, query, got, exp)
		} else {
			for j := range got {
				if document.Compare(got[j], exp[j]) != 0 {
					t.Errorf("seed %d, query %v on {a: -1, z: 1}: %v, want %v", seed, query, got, exp)
					break
				}
			}
		}
		js, err := bson.MarshalExtJSON(cmd("c"), true, false)
		if err != nil {
			t.Fatal(err)
		}
		if s, st := distinctStages(t, db, string(js)); s == "PROJECTION_COVERED DISTINCT_SCAN" {
			scans++
			if field(st, "totalDocsExamined") != int32(0) && !strings.Contains(want, "$symbol") {
				t.Errorf("seed %d, query %v: a DISTINCT_SCAN read documents: %v", seed, query, st)
			}
		}
	}
	if scans < 25 {
		t.Errorf("seed %d: %d of 50 distincts were DISTINCT_SCANs", seed, scans)
	}
}

// Explain of a distinct the index answers: mongod's PROJECTION_COVERED
// over DISTINCT_SCAN, the stage's fields in mongod's order; executed,
// one key examined a value and no document (jstests/core/
// distinct_index1.js's figures: 10 values, and 4 keys for the 4 values
// above 5).
func TestDistinctScanExplain(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	var docs bson.A
	for i := 0; i < 1000; i++ {
		rv := func(x int) int32 { return int32(int(math.Floor(math.Sqrt(float64(x*123123)))) % 10) }
		docs = append(docs, bson.D{{Key: "a", Value: rv(i * 5)}, {Key: "b", Value: rv(i)}})
	}
	mustRunD(t, db, "test", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: docs}})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)

	r := explainOf(t, db, `{"distinct": "c", "key": "a"}`, "executionStats")
	w := field(r, "queryPlanner.winningPlan").(bson.D)
	want := mustDoc(t, `{"stage": "PROJECTION_COVERED", "transformBy": {"a": 1, "_id": 0}, "inputStage": {
		"stage": "DISTINCT_SCAN", "keyPattern": {"a": 1}, "indexName": "a_1", "isMultiKey": false,
		"multiKeyPaths": {"a": []}, "isUnique": false, "isSparse": false, "isPartial": false,
		"indexVersion": 2, "direction": "forward", "indexBounds": {"a": ["[MinKey, MaxKey]"]}}}`)
	if canon(t, w) != canon(t, want) {
		t.Errorf("winningPlan\n got %s\nwant %s", canon(t, w), canon(t, want))
	}
	figures(t, "empty filter", field(r, "executionStats").(bson.D), "nReturned=10 totalKeysExamined=10 totalDocsExamined=0")
	ds := field(r, "executionStats.executionStages.inputStage").(bson.D)
	var keys []string
	for _, e := range ds {
		keys = append(keys, e.Key)
	}
	if got := strings.Join(keys, " "); got != "stage nReturned executionTimeMillisEstimate works advanced needTime needYield saveState restoreState isEOF "+
		"keyPattern indexName isMultiKey multiKeyPaths isUnique isSparse isPartial indexVersion direction indexBounds keysExamined" {
		t.Errorf("DISTINCT_SCAN executionStages fields: %s", got)
	}
	if field(ds, "keysExamined") != int32(10) || field(ds, "nReturned") != int32(10) {
		t.Errorf("DISTINCT_SCAN figures: %v", ds)
	}

	_, st := distinctStages(t, db, `{"distinct": "c", "key": "a", "query": {"a": {"$gt": 5}}}`)
	figures(t, "a > 5", st, "nReturned=4 totalKeysExamined=4 totalDocsExamined=0")
	r = mustRun(t, db, "test", `{"distinct": "c", "key": "a", "query": {"a": {"$gt": 5}}}`)
	if got := canon(t, bson.D{{Key: "v", Value: field(r, "values")}}); got != canon(t, mustDoc(t, `{"v": [6, 7, 8, 9]}`)) {
		t.Errorf("a > 5: %s", got)
	}
	// A distinct of a field the filter does not bound is not one
	// (distinct_index1.js: distinct b with {a: {$gt: 5}}).
	if s, _ := distinctStages(t, db, `{"distinct": "c", "key": "b", "query": {"a": {"$gt": 5}}}`); s != "PROJECTION_SIMPLE FETCH IXSCAN" {
		t.Errorf("distinct b: %s", s)
	}
	// Compound: the index with the fewest fields is read.
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"b": 1, "a": 1}, "name": "b_a"}, {"key": {"b": -1}, "name": "b_-1", "sparse": true}]}`)
	r = explainOf(t, db, `{"distinct": "c", "key": "b"}`, "queryPlanner")
	if field(r, "queryPlanner.winningPlan.inputStage.indexName") != "b_-1" || field(r, "queryPlanner.winningPlan.inputStage.isSparse") != true {
		t.Errorf("distinct b reads %v", field(r, "queryPlanner.winningPlan"))
	}
	r = mustRun(t, db, "test", `{"distinct": "c", "key": "b"}`)
	if got := canon(t, bson.D{{Key: "v", Value: field(r, "values")}}); got != canon(t, mustDoc(t, `{"v": [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]}`)) {
		t.Errorf("distinct b: %s", got)
	}
}

// A missing field keys as null; the type bits tell it from a null, so
// the index gives null only where a document holds one, as reading the
// documents does (mongod's DISTINCT_SCAN gives null for a missing field
// too, SERVER-14832; ttlkv keeps distinct's own answer). Of equal
// values of several types, the group's first entry in index order
// gives the value, as mongod's: by record id in a one-field index, by
// the next field first in a compound one.
func TestDistinctScanNullsAndTypes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1}, {"_id": 2, "b": 1}, {"_id": 3}]}`)
	const cmd = `{"distinct": "c", "key": "a"}`
	check := func(what, want string, stats string) {
		t.Helper()
		r := mustRun(t, db, "test", cmd)
		if got := canon(t, bson.D{{Key: "v", Value: field(r, "values")}}); got != canon(t, mustDoc(t, want)) {
			t.Errorf("%s: %s, want %s", what, got, want)
		}
		s, st := distinctStages(t, db, cmd)
		if s != "PROJECTION_COVERED DISTINCT_SCAN" {
			t.Errorf("%s: stages %s", what, s)
		}
		figures(t, what, st, stats)
	}
	check("missing only", `{"v": []}`, "nReturned=0 totalKeysExamined=3 totalDocsExamined=0")
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 4, "a": null}, {"_id": 5}]}`)
	check("missing and null", `{"v": [null]}`, "nReturned=1 totalKeysExamined=4 totalDocsExamined=0")
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 6, "a": {"$numberLong": "1"}}, {"_id": 7, "a": 1}, {"_id": 8, "a": {"$numberDouble": "1"}},
		{"_id": 9, "a": {"$numberDecimal": "2.0"}}, {"_id": 10, "a": 2}, {"_id": 11, "a": {"$undefined": true}}, {"_id": 12, "a": {"$symbol": "s"}}, {"_id": 13, "a": "s"}]}`)
	check("types", `{"v": [{"$undefined": true}, null, {"$numberLong": "1"}, {"$numberDecimal": "2.0"}, {"$symbol": "s"}]}`,
		"nReturned=5 totalKeysExamined=8 totalDocsExamined=1")

	mustRun(t, db, "test", `{"createIndexes": "k", "indexes": [{"key": {"a": 1, "b": 1}, "name": "a_b"}]}`)
	mustRun(t, db, "test", `{"insert": "k", "documents": [{"_id": 1, "a": {"$numberDouble": "1"}, "b": 2}, {"_id": 2, "a": {"$numberLong": "1"}, "b": 1}]}`)
	r := mustRun(t, db, "test", `{"distinct": "k", "key": "a"}`)
	if got := canon(t, bson.D{{Key: "v", Value: field(r, "values")}}); got != canon(t, mustDoc(t, `{"v": [{"$numberLong": "1"}]}`)) {
		t.Errorf("compound: %s, want the lowest b's NumberLong(1)", got)
	}
}

// The cases the index does not answer read the documents, as before:
// a multikey index, a distinct under a collation, an index with a
// collation, an index made before type bits (unmarked), a filter on
// another field or comparing with null, a dotted key the index does not
// lead with.
func TestDistinctScanNotUsed(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"s": 1}, "name": "s_1", "collation": {"locale": "en", "strength": 2}}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1, "b": 1, "s": "x"}, {"_id": 2, "a": 2, "b": 2, "s": "X"}, {"_id": 3, "b": 1}]}`)
	used := func(cmd string) bool {
		t.Helper()
		s, _ := distinctStages(t, db, cmd)
		return strings.Contains(s, "DISTINCT_SCAN")
	}
	if !used(`{"distinct": "c", "key": "a"}`) {
		t.Fatal("a marked index is not read")
	}
	for _, cmd := range []string{
		`{"distinct": "c", "key": "a", "collation": {"locale": "en"}}`,
		`{"distinct": "c", "key": "s"}`,
		`{"distinct": "c", "key": "s", "collation": {"locale": "en", "strength": 2}}`,
		`{"distinct": "c", "key": "a", "query": {"b": 1}}`,
		`{"distinct": "c", "key": "a", "query": {"a": {"$gte": 1}, "b": 1}}`,
		`{"distinct": "c", "key": "a", "query": {"a": null}}`,
		`{"distinct": "c", "key": "a", "query": {"a": {"$exists": true}}}`,
		`{"distinct": "c", "key": "a.x"}`,
	} {
		if used(cmd) {
			t.Errorf("%s: a DISTINCT_SCAN", cmd)
		}
	}
	if !used(`{"distinct": "c", "key": "a", "collation": {"locale": "simple"}}`) {
		t.Error("the simple collation: no DISTINCT_SCAN")
	}
	r := mustRun(t, db, "test", `{"distinct": "c", "key": "s", "collation": {"locale": "en", "strength": 2}}`)
	if n := len(field(r, "values").(bson.A)); n != 1 {
		t.Errorf("distinct s under strength 2: %v", field(r, "values"))
	}

	// Multikey.
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 4, "a": [2, 3]}]}`)
	if used(`{"distinct": "c", "key": "a"}`) {
		t.Error("a multikey index is read")
	}
	r = mustRun(t, db, "test", `{"distinct": "c", "key": "a"}`)
	if got := canon(t, bson.D{{Key: "v", Value: field(r, "values")}}); got != canon(t, mustDoc(t, `{"v": [1, 2, 3]}`)) {
		t.Errorf("multikey: %s", got)
	}

	// Unmarked.
	mustRun(t, db, "test", `{"createIndexes": "u", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	mustRun(t, db, "test", `{"insert": "u", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": {"$numberLong": "2"}}]}`)
	if !used(`{"distinct": "u", "key": "a"}`) {
		t.Fatal("a new index is not read")
	}
	m := db.lookup("test", "u").m().Clone()
	for _, ix := range m.Indexes {
		ix.TypeBits = false
	}
	if err := db.store.Update(func(txn *lsm.Txn) error { return putMeta(txn, m) }); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, db, dir, clk)
	if used(`{"distinct": "u", "key": "a"}`) || used(`{"distinct": "u", "key": "a", "query": {"a": {"$gt": 0}}}`) {
		t.Error("an unmarked index is read")
	}
	r = mustRun(t, db, "test", `{"distinct": "u", "key": "a"}`)
	if got := canon(t, bson.D{{Key: "v", Value: field(r, "values")}}); got != canon(t, mustDoc(t, `{"v": [1, {"$numberLong": "2"}]}`)) {
		t.Errorf("unmarked: %s", got)
	}
}

// An index that goes multikey after the distinct was planned is not
// read from its keys: the scan reports it, and distinct reads the
// documents.
func TestDistinctScanIndexGoesMultikey(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}]}`)
	_, p, _, scan, err := db.distinctPlan("test", "c", "a", nil, nil)
	if err != nil || !scan {
		t.Fatalf("plan: scan %v, %v", scan, err)
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 2, "a": [5, 6]}]}`)
	if _, ok, err := db.distinctScan(context.Background(), p, "a", &execStats{}); ok || err != nil {
		t.Errorf("a scan of an index gone multikey: ok %v, %v", ok, err)
	}
}
