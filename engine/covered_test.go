package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// coveredPlan returns the stages of the winning plan of find cmd (a
// JSON document) and its executionStats.
func coveredPlan(t *testing.T, db *DB, cmd string) (string, bson.D) {
	t.Helper()
	r := explainOf(t, db, cmd, "executionStats")
	return strings.Join(stages(field(r, "queryPlanner.winningPlan").(bson.D)), " "), field(r, "executionStats").(bson.D)
}

// coveredByID returns each found document's canonical extended JSON with its
// fields in name order (a covered find gives them in key pattern order,
// a fetched one in the document's), keyed by its _id's.
func coveredByID(t *testing.T, docs bson.A) map[string]string {
	t.Helper()
	out := map[string]string{}
	for i, v := range docs {
		d := slices.Clone(v.(bson.D))
		slices.SortFunc(d, func(a, b bson.E) int { return strings.Compare(a.Key, b.Key) })
		id := fmt.Sprint(i)
		if v, ok := get(d, "_id"); ok {
			id = canon(t, bson.D{{Key: "v", Value: v}})
		}
		out[id] = canon(t, d)
	}
	return out
}

// A covered find gives back each value exactly as stored: int32, int64,
// double and decimal of equal value, -0.0, a NaN, a decimal's trailing
// zeros, numbers inside a document, null and a missing field (left out,
// as the fetched document shows it), strings, dates, ObjectIds.
func TestCoveredKeepsTypes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "_id": 1}, "name": "a_id"}, {"key": {"b": -1, "_id": 1}, "name": "b_id"}]}`)
	dec := func(s string) bson.Decimal128 { d, _ := bson.ParseDecimal128(s); return d }
	vals := []any{int32(1), int64(1), 1.0, dec("1.0"), dec("1.00"), dec("-0"), dec("NaN"), math.Copysign(0, -1), 0.0, math.NaN(),
		int64(1) << 60, int64(math.MaxInt64), int64(math.MinInt64), 1e300, int32(-7), "s", "", nil, bson.Undefined{},
		bson.D{{Key: "x", Value: int32(2)}, {Key: "y", Value: bson.A{int64(3), 3.5, dec("4.50")}}},
		bson.DateTime(1700000000000), bson.ObjectID{1, 2, 3}, true, bson.Binary{Subtype: 4, Data: []byte{1}}, bson.Regex{Pattern: "p", Options: "i"},
		bson.Timestamp{T: 5, I: 6}, bson.MinKey{}, bson.MaxKey{}, bson.JavaScript("f"), bson.CodeWithScope{Code: "g", Scope: bson.D{{Key: "n", Value: int32(1)}}}}
	var docs bson.A
	for i, v := range vals {
		docs = append(docs, bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: v}, {Key: "b", Value: v}})
	}
	docs = append(docs, bson.D{{Key: "_id", Value: int32(len(vals))}}) // both missing
	mustRunD(t, db, "test", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: docs}})
	for _, c := range []struct{ hint, proj string }{{`"a_id"`, `{"a": 1}`}, {`"b_id"`, `{"b": 1}`}, {`"b_id"`, `{"b": 1, "_id": 0}`}} {
		cmd := `{"find": "c", "hint": ` + c.hint + `, "projection": ` + c.proj + `}`
		got, st := coveredPlan(t, db, cmd)
		if got != "PROJECTION_COVERED IXSCAN" {
			t.Fatalf("%s: stages %s, want PROJECTION_COVERED IXSCAN", cmd, got)
		}
		figures(t, cmd, st, fmt.Sprintf("nReturned=%d totalKeysExamined=%d totalDocsExamined=0", len(docs), len(docs)))
		covered := coveredByID(t, field(mustRun(t, db, "test", cmd), "cursor.firstBatch").(bson.A))
		fetched := coveredByID(t, field(mustRun(t, db, "test", `{"find": "c", "hint": {"$natural": 1}, "projection": `+c.proj+`}`), "cursor.firstBatch").(bson.A))
		if len(covered) != len(fetched) {
			t.Fatalf("%s: %d documents, fetched %d", cmd, len(covered), len(fetched))
		}
		for id, want := range fetched {
			if covered[id] != want && !strings.Contains(c.proj, `"_id": 0`) {
				t.Errorf("%s: _id %s: covered %s, fetched %s", cmd, id, covered[id], want)
			}
		}
	}
	// With _id left out the documents are compared as a multiset.
	var got, want []string
	for _, s := range coveredByID(t, field(mustRun(t, db, "test", `{"find": "c", "hint": "b_id", "projection": {"b": 1, "_id": 0}}`), "cursor.firstBatch").(bson.A)) {
		got = append(got, s)
	}
	for _, s := range coveredByID(t, field(mustRun(t, db, "test", `{"find": "c", "hint": {"$natural": 1}, "projection": {"b": 1, "_id": 0}}`), "cursor.firstBatch").(bson.A)) {
		want = append(want, s)
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("covered {b: 1, _id: 0}\n got %v\nwant %v", got, want)
	}
	// A key that loses nothing (a date, a string) carries no value.
	mustValidate(t, db, "test", "c")
}

// The exact types reach a client through the wire's raw batches and
// the Go API alike, and mongod's order of a covered document's fields
// is the key pattern's.
func TestCoveredFieldOrderAndExactValues(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "_id": 1}, "name": "a_id"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": {"$numberLong": "5"}}, {"_id": 2, "a": 5.0}, {"_id": 3, "a": {"$numberDecimal": "5.000"}}, {"_id": 4, "a": {"$numberDouble": "-0.0"}}]}`)
	r := mustRun(t, db, "test", `{"find": "c", "filter": {"a": {"$gte": -1}}, "projection": {"a": 1}, "sort": {"a": 1, "_id": 1}}`)
	want := mustDoc(t, `{"v": [{"a": {"$numberDouble": "-0.0"}, "_id": 4}, {"a": {"$numberLong": "5"}, "_id": 1}, {"a": 5.0, "_id": 2}, {"a": {"$numberDecimal": "5.000"}, "_id": 3}]}`)
	if got, w := canon(t, bson.D{{Key: "v", Value: field(r, "cursor.firstBatch")}}), canon(t, want); got != w {
		t.Errorf("covered find\n got %s\nwant %s", got, w)
	}
	if got, _ := coveredPlan(t, db, `{"find": "c", "filter": {"a": {"$gte": -1}}, "projection": {"a": 1}, "sort": {"a": 1, "_id": 1}}`); got != "PROJECTION_COVERED IXSCAN" {
		t.Errorf("stages %s, want PROJECTION_COVERED IXSCAN", got)
	}
	// The Go API's Find alike.
	docs := cfind(t, db.Database("test").Collection("c"), mustDoc(t, `{"a": {"$gte": -1}}`),
		&FindOptions{Projection: mustDoc(t, `{"a": 1}`), Sort: mustDoc(t, `{"a": 1, "_id": 1}`)})
	arr := bson.A{}
	for _, d := range docs {
		arr = append(arr, d)
	}
	if got, w := canon(t, bson.D{{Key: "v", Value: arr}}), canon(t, want); got != w {
		t.Errorf("Collection.Find\n got %s\nwant %s", got, w)
	}
}

// Finds mongod does not cover, and ttlkv neither: each reads its
// documents (a FETCH under the projection).
func TestCoveredNot(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [
		{"key": {"a": 1}, "name": "a_1"},
		{"key": {"m": 1}, "name": "m_1"},
		{"key": {"s": 1}, "name": "s_1", "collation": {"locale": "en", "strength": 2}},
		{"key": {"h": "hashed"}, "name": "h_h"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1, "m": [1, 2], "s": "x", "h": 1, "z": 1}, {"_id": 2, "a": null, "m": 3, "s": "Y", "h": 2}, {"_id": 3, "m": 4}]}`)
	for _, c := range []struct{ cmd, stages string }{
		// _id is not in the index and not excluded.
		{`{"find": "c", "filter": {"a": 1}, "projection": {"a": 1}}`, "PROJECTION_SIMPLE FETCH IXSCAN"},
		// A field the index does not have.
		{`{"find": "c", "filter": {"a": 1}, "projection": {"a": 1, "z": 1, "_id": 0}}`, "PROJECTION_SIMPLE FETCH IXSCAN"},
		// An exclusion needs the whole document.
		{`{"find": "c", "filter": {"a": 1}, "projection": {"z": 0}}`, "PROJECTION_DEFAULT FETCH IXSCAN"},
		// null: the key cannot tell null from missing (mongod's rule).
		{`{"find": "c", "filter": {"a": null}, "projection": {"a": 1, "_id": 0}}`, "PROJECTION_SIMPLE FETCH IXSCAN"},
		// A condition the bounds do not answer exactly.
		{`{"find": "c", "filter": {"a": {"$exists": true}}, "projection": {"a": 1, "_id": 0}, "hint": "a_1"}`, "PROJECTION_SIMPLE FETCH IXSCAN"},
		// A filter on a field the index does not have.
		{`{"find": "c", "filter": {"a": 1, "z": 1}, "projection": {"a": 1, "_id": 0}}`, "PROJECTION_SIMPLE FETCH IXSCAN"},
		// Multikey.
		{`{"find": "c", "filter": {"m": {"$gte": 1}}, "projection": {"m": 1, "_id": 0}}`, "PROJECTION_SIMPLE FETCH IXSCAN"},
		// A collation: the keys are collation keys, not strings.
		{`{"find": "c", "filter": {"s": "x"}, "projection": {"s": 1, "_id": 0}, "collation": {"locale": "en", "strength": 2}}`, "PROJECTION_SIMPLE FETCH IXSCAN"},
		// Hashed.
		{`{"find": "c", "filter": {"h": 1}, "projection": {"h": 1, "_id": 0}}`, "PROJECTION_SIMPLE FETCH IXSCAN"},
		// A sort the index does not give.
		{`{"find": "c", "filter": {"a": {"$gt": 0}}, "projection": {"a": 1, "_id": 0}, "sort": {"z": 1}}`, "PROJECTION_SIMPLE SORT FETCH IXSCAN"},
		// returnKey and showRecordId read the scan's own figures.
		{`{"find": "c", "filter": {"a": 1}, "projection": {"a": 1, "_id": 0}, "returnKey": true}`, ""},
	} {
		got, st := coveredPlan(t, db, c.cmd)
		if c.stages == "" {
			if strings.Contains(got, "COVERED") {
				t.Errorf("%s: stages %s, want no PROJECTION_COVERED", c.cmd, got)
			}
			continue
		}
		if got != c.stages {
			t.Errorf("%s: stages %s, want %s", c.cmd, got, c.stages)
		}
		if d, _ := get(st, "totalDocsExamined"); document.Compare(d, int32(0)) == 0 && document.Compare(field(st, "nReturned"), int32(0)) != 0 {
			t.Errorf("%s: examined no document", c.cmd)
		}
	}
	// The same projection on the indexed field, _id excluded, is covered.
	if got, _ := coveredPlan(t, db, `{"find": "c", "filter": {"a": 1}, "projection": {"a": 1, "_id": 0}}`); got != "PROJECTION_COVERED IXSCAN" {
		t.Errorf("stages %s, want PROJECTION_COVERED IXSCAN", got)
	}
}

// An index made before ttlkv kept type bits (its catalog entry without
// the mark) is never covered from: its entries hold no type bits.
func TestCoveredNeverFromUnmarkedIndex(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": {"$numberLong": "2"}}]}`)
	const cmd = `{"find": "c", "filter": {"a": {"$gte": 1}}, "projection": {"a": 1, "_id": 0}}`
	if got, _ := coveredPlan(t, db, cmd); got != "PROJECTION_COVERED IXSCAN" {
		t.Fatalf("a new index: stages %s, want PROJECTION_COVERED IXSCAN", got)
	}
	m := db.lookup("test", "c").m().Clone()
	for _, ix := range m.Indexes {
		ix.TypeBits = false
	}
	if err := db.store.Update(func(txn *lsm.Txn) error { return putMeta(txn, m) }); err != nil {
		t.Fatal(err)
	}
	db = reopen(t, db, dir, clk)
	if got, st := coveredPlan(t, db, cmd); got != "PROJECTION_SIMPLE FETCH IXSCAN" {
		t.Errorf("an unmarked index: stages %s, want PROJECTION_SIMPLE FETCH IXSCAN", got)
	} else {
		figures(t, "unmarked", st, "totalDocsExamined=2")
	}
	r := mustRun(t, db, "test", cmd)
	if got, want := canon(t, bson.D{{Key: "v", Value: field(r, "cursor.firstBatch")}}), canon(t, mustDoc(t, `{"v": [{"a": 1}, {"a": {"$numberLong": "2"}}]}`)); got != want {
		t.Errorf("unmarked index\n got %s\nwant %s", got, want)
	}
	// Writes to it add no type bits, and validate agrees.
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 3, "a": 3.5}]}`)
	mustValidate(t, db, "test", "c")
}

// Updates that keep a key but change the value's type or presence
// (1 to 1.0, null to missing) rewrite the entry's type bits; one that
// makes the index multikey turns covering off, also for a scan planned
// before it.
func TestCoveredAfterUpdates(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b": 1}, "name": "a_b"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1, "b": null}, {"_id": 2, "a": 2, "b": 7}]}`)
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 1.0}, "$unset": {"b": 1}}}, {"q": {"_id": 2}, "u": {"$set": {"b": {"$numberLong": "7"}}}}]}`)
	const cmd = `{"find": "c", "filter": {"a": {"$gte": 1}}, "projection": {"a": 1, "b": 1, "_id": 0}}`
	if got, _ := coveredPlan(t, db, cmd); got != "PROJECTION_COVERED IXSCAN" {
		t.Fatalf("stages %s, want PROJECTION_COVERED IXSCAN", got)
	}
	r := mustRun(t, db, "test", cmd)
	if got, want := canon(t, bson.D{{Key: "v", Value: field(r, "cursor.firstBatch")}}), canon(t, mustDoc(t, `{"v": [{"a": 1.0}, {"a": 2, "b": {"$numberLong": "7"}}]}`)); got != want {
		t.Errorf("after updates\n got %s\nwant %s", got, want)
	}
	mustValidate(t, db, "test", "c")

	// A cursor planned covered, then an array makes the index multikey:
	// its next batch reads documents.
	r = mustRun(t, db, "test", `{"find": "c", "filter": {"a": {"$gte": 1}}, "projection": {"a": 1, "b": 1, "_id": 0}, "batchSize": 1}`)
	id := field(r, "cursor.id")
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 2}, "u": {"$set": {"b": [7, 8]}}}]}`)
	more := mustRunD(t, db, "test", bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "c"}})
	if got, want := canon(t, bson.D{{Key: "v", Value: field(more, "cursor.nextBatch")}}), canon(t, mustDoc(t, `{"v": [{"a": 2, "b": [7, 8]}]}`)); got != want {
		t.Errorf("after the index became multikey\n got %s\nwant %s", got, want)
	}
	if got, _ := coveredPlan(t, db, cmd); got != "PROJECTION_SIMPLE FETCH IXSCAN" {
		t.Errorf("multikey: stages %s, want PROJECTION_SIMPLE FETCH IXSCAN", got)
	}
}

// A TTL index on dates keeps its entries' carried TTL value (no type
// bits: a date's key loses nothing); a document whose field is not a
// date gets type bits instead, which the monitor never needs (such a
// document never expires). Both cover, and validate agrees.
func TestCoveredTTLIndex(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 3600}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "t": {"$date": "2030-01-01T00:00:00Z"}}, {"_id": 2, "t": 5}, {"_id": 3}]}`)
	c := db.lookup("test", "c")
	m := c.m()
	ix := m.Index("t_1")
	vals := map[string][]byte{}
	err := db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: lsm.IndexPrefix(m.ID, ix.ID)})
		defer it.Close()
		for it.Next() {
			ks, _, _ := lsm.SplitIndexKey(it.Key())
			v, err := it.Value()
			if err != nil {
				return err
			}
			k, _, _ := lsm.DecodeKey(ks, false)
			vals[fmt.Sprint(k)] = append([]byte(nil), v...)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range vals {
		switch {
		case strings.Contains(k, "2030") || k == fmt.Sprint(bson.DateTime(1893456000000)):
			if !isTTLEntry(v) {
				t.Errorf("date entry %s: value %x, want a TTL entry value", k, v)
			}
		case k == "5":
			if string(v) != string([]byte{typeBitsV1, tbInt32}) {
				t.Errorf("int32 entry: value %x, want type bits", v)
			}
		case k == "<nil>":
			if string(v) != string([]byte{typeBitsV1, tbMissing}) {
				t.Errorf("missing entry: value %x, want type bits", v)
			}
		}
	}
	const cmd = `{"find": "c", "hint": "t_1", "projection": {"t": 1, "_id": 0}}`
	if got, _ := coveredPlan(t, db, cmd); got != "PROJECTION_COVERED IXSCAN" {
		t.Errorf("stages %s, want PROJECTION_COVERED IXSCAN", got)
	}
	r := mustRun(t, db, "test", cmd)
	if got, want := canon(t, bson.D{{Key: "v", Value: field(r, "cursor.firstBatch")}}), canon(t, mustDoc(t, `{"v": [{}, {"t": 5}, {"t": {"$date": "2030-01-01T00:00:00Z"}}]}`)); got != want {
		t.Errorf("TTL index covered\n got %s\nwant %s", got, want)
	}
	mustValidate(t, db, "test", "c")
}

// Random documents (numbers of every type, nulls, missing fields,
// documents holding numbers, strings) and random finds the index
// covers: each answers what the same find reading every document
// answers. The seed is printed so that a failure replays.
func TestCoveredMatchesFetch(t *testing.T) {
	t.Parallel()
	seed := testSeed(t)
	r := rand.New(rand.NewPCG(uint64(seed), 0))
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b": -1, "_id": 1}, "name": "a_b_id"}]}`)
	value := func() any { return lossyValue(r, false) }
	var docs bson.A
	for i := 0; i < 80; i++ {
		d := bson.D{{Key: "_id", Value: int32(i)}}
		for _, p := range []string{"a", "b", "z"} {
			if r.IntN(6) > 0 {
				d = append(d, bson.E{Key: p, Value: value()})
			}
		}
		docs = append(docs, d)
	}
	mustRunD(t, db, "test", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: docs}})
	scalar := func() any {
		for {
			if v := value(); v != nil {
				if _, isDoc := v.(bson.D); !isDoc {
					return v
				}
			}
		}
	}
	ops := []string{"$eq", "$gt", "$gte", "$lt", "$lte"}
	projs := []bson.D{
		{{Key: "a", Value: int32(1)}, {Key: "_id", Value: int32(0)}},
		{{Key: "a", Value: int32(1)}, {Key: "b", Value: true}},
		{{Key: "b", Value: int32(1)}, {Key: "_id", Value: int32(1)}},
		{{Key: "_id", Value: int32(1)}},
	}
	covered := 0
	for i := 0; i < 60; i++ {
		filter := bson.D{}
		for _, p := range []string{"a", "b"} {
			switch r.IntN(5) {
			case 3:
				filter = append(filter, bson.E{Key: p, Value: nil})
			case 0:
				filter = append(filter, bson.E{Key: p, Value: bson.D{{Key: ops[r.IntN(len(ops))], Value: scalar()}}})
			case 1:
				filter = append(filter, bson.E{Key: p, Value: bson.D{{Key: "$in", Value: bson.A{scalar(), scalar()}}}})
			case 2:
				filter = append(filter, bson.E{Key: p, Value: scalar()})
			}
		}
		proj := projs[r.IntN(len(projs))]
		find := bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: filter}, {Key: "projection", Value: proj}, {Key: "hint", Value: "a_b_id"}}
		switch r.IntN(3) {
		case 0:
			find = append(find, bson.E{Key: "sort", Value: bson.D{{Key: "a", Value: int32(-1)}, {Key: "b", Value: int32(1)}}})
		case 1:
			// A sort no index order gives: in memory, of the keys' values.
			find = append(find, bson.E{Key: "sort", Value: bson.D{{Key: "b", Value: int32(1)}, {Key: "_id", Value: int32(1)}}})
		}
		ex := mustRunD(t, db, "test", bson.D{{Key: "explain", Value: find}, {Key: "verbosity", Value: "executionStats"}})
		isCovered := strings.Join(stages(field(ex, "queryPlanner.winningPlan").(bson.D)), " ") == "PROJECTION_COVERED IXSCAN"
		if isCovered {
			covered++
			if d := field(ex, "executionStats.totalDocsExamined"); document.Compare(d, int32(0)) != 0 {
				t.Errorf("%v: covered, totalDocsExamined %v", find, d)
			}
		}
		got := field(mustRunD(t, db, "test", find), "cursor.firstBatch").(bson.A)
		fetch := slices.Clone(find)
		fetch[3] = bson.E{Key: "hint", Value: bson.D{{Key: "$natural", Value: int32(1)}}}
		want := field(mustRunD(t, db, "test", fetch), "cursor.firstBatch").(bson.A)
		var g, w []string
		for _, d := range got {
			g = append(g, sortedFields(t, d.(bson.D)))
		}
		for _, d := range want {
			w = append(w, sortedFields(t, d.(bson.D)))
		}
		if ordered := len(find) == 5 && find[4].Value.(bson.D)[0].Key == "b"; !ordered {
			// Ties of {a: -1, b: 1}, or no sort: any order.
			slices.Sort(g)
			slices.Sort(w)
		}
		if !slices.Equal(g, w) {
			t.Errorf("%v (covered %v)\n got %v\nwant %v", find, isCovered, g, w)
		}
	}
	if covered == 0 {
		t.Errorf("no find was covered")
	}
	t.Logf("%d of 60 finds covered", covered)
	mustValidate(t, db, "test", "c")
}

// A find of one _id is mongod's IDHACK, which reads the document: its
// projection is PROJECTION_SIMPLE over IDHACK, never covered, even of
// _id alone; a range of _ids is covered.
func TestCoveredNotIDHack(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1}, {"_id": {"$numberLong": "2"}}]}`)
	got, st := coveredPlan(t, db, `{"find": "c", "filter": {"_id": 1}, "projection": {"_id": 1}}`)
	if got != "PROJECTION_SIMPLE IDHACK" {
		t.Errorf("stages %s, want PROJECTION_SIMPLE IDHACK", got)
	}
	figures(t, "IDHACK", st, "totalDocsExamined=1")
	got, st = coveredPlan(t, db, `{"find": "c", "filter": {"_id": {"$gte": 1}}, "projection": {"_id": 1}}`)
	if got != "PROJECTION_COVERED IXSCAN" {
		t.Errorf("stages %s, want PROJECTION_COVERED IXSCAN", got)
	}
	figures(t, "range", st, "totalDocsExamined=0 nReturned=2")
	r := mustRun(t, db, "test", `{"find": "c", "filter": {"_id": {"$gte": 1}}, "projection": {"_id": 1}}`)
	if got, want := canon(t, bson.D{{Key: "v", Value: field(r, "cursor.firstBatch")}}), canon(t, mustDoc(t, `{"v": [{"_id": 1}, {"_id": {"$numberLong": "2"}}]}`)); got != want {
		t.Errorf("covered _id range\n got %s\nwant %s", got, want)
	}
}

// An index built over documents already there carries their type bits;
// a dotted field is rebuilt as its document (a missing x.y, when x is a
// scalar, as missing); a Symbol, which keys as its string, makes its
// entry unable to give its value: that document alone is read.
func TestCoveredBuiltDottedSymbol(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRunD(t, db, "test", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{
		bson.D{{Key: "_id", Value: int32(1)}, {Key: "x", Value: bson.D{{Key: "y", Value: int64(5)}}}, {Key: "s", Value: "p"}},
		bson.D{{Key: "_id", Value: int32(2)}, {Key: "x", Value: int32(3)}, {Key: "s", Value: bson.Symbol("p")}},
		bson.D{{Key: "_id", Value: int32(3)}, {Key: "x", Value: bson.D{{Key: "y", Value: bson.D{{Key: "z", Value: 2.5}}}}}, {Key: "s", Value: "q"}},
	}}})
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"x.y": 1, "_id": 1}, "name": "xy_id"}, {"key": {"s": 1, "_id": 1}, "name": "s_id"}]}`)
	got, st := coveredPlan(t, db, `{"find": "c", "filter": {"x.y": {"$gte": 1}}, "projection": {"_id": 1}}`)
	if got != "PROJECTION_COVERED IXSCAN" {
		t.Errorf("dotted: stages %s, want PROJECTION_COVERED IXSCAN", got)
	}
	figures(t, "dotted", st, "nReturned=1 totalDocsExamined=0")
	r := mustRun(t, db, "test", `{"find": "c", "hint": "xy_id", "filter": {}, "projection": {"_id": 1}}`)
	if got, want := canon(t, bson.D{{Key: "v", Value: field(r, "cursor.firstBatch")}}), canon(t, mustDoc(t, `{"v": [{"_id": 2}, {"_id": 1}, {"_id": 3}]}`)); got != want {
		t.Errorf("dotted, whole index\n got %s\nwant %s", got, want)
	}
	// The entries themselves: x.y missing for _id 2, an int64 for _id 1,
	// a double inside a document for _id 3.
	m := db.lookup("test", "c").m()
	fields := []string{}
	err := db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: lsm.IndexPrefix(m.ID, m.Index("xy_id").ID)})
		defer it.Close()
		for it.Next() {
			ks, _, _ := lsm.SplitIndexKey(it.Key())
			v, err := it.Value()
			if err != nil {
				return err
			}
			d, ok := coveredDoc(indexkeyFields(m.Index("xy_id")), ks, v)
			if !ok {
				t.Errorf("entry %x %x: no document", ks, v)
			}
			fields = append(fields, canon(t, d))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`{"_id":{"$numberInt":"2"}}`, `{"x":{"y":{"$numberLong":"5"}},"_id":{"$numberInt":"1"}}`,
		`{"x":{"y":{"z":{"$numberDouble":"2.5"}}},"_id":{"$numberInt":"3"}}`}
	if strings.Join(fields, " ") != strings.Join(want, " ") {
		t.Errorf("entries' documents\n got %v\nwant %v", fields, want)
	}

	got, st = coveredPlan(t, db, `{"find": "c", "filter": {"s": "p"}, "projection": {"s": 1, "_id": 1}}`)
	if got != "PROJECTION_COVERED IXSCAN" {
		t.Errorf("symbol: stages %s, want PROJECTION_COVERED IXSCAN", got)
	}
	figures(t, "symbol", st, "nReturned=2 totalKeysExamined=2 totalDocsExamined=1")
	r = mustRun(t, db, "test", `{"find": "c", "filter": {"s": "p"}, "projection": {"s": 1, "_id": 1}}`)
	if got, want := canon(t, bson.D{{Key: "v", Value: field(r, "cursor.firstBatch")}}), canon(t, mustDoc(t, `{"v": [{"s": "p", "_id": 1}, {"_id": 2, "s": {"$symbol": "p"}}]}`)); got != want {
		t.Errorf("symbol\n got %s\nwant %s", got, want)
	}
	mustValidate(t, db, "test", "c")
}

// indexkeyFields returns ix's fields.
func indexkeyFields(ix *catalog.Index) []indexkey.Field { return indexkey.Fields(ix.Key) }

// mongod's jstests/core/cover_null_queries.js, the finds: an equality
// to null is covered when the null field is not projected (the keys
// cannot tell null from missing) and the index is not multikey.
func TestCoveredNullQueries(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 1, "b": 1}, {"_id": 2, "a": 1, "b": null}, {"_id": 3, "a": null, "b": 1},
		{"_id": 4, "a": null, "b": null}, {"_id": 5, "a": 2}, {"_id": 6, "b": 2}, {"_id": 7}]}`)
	check := func(what, cmd, stages, want string) {
		t.Helper()
		if got, _ := coveredPlan(t, db, cmd); got != stages {
			t.Errorf("%s: %s: stages %s, want %s", what, cmd, got, stages)
		}
		r := mustRun(t, db, "test", cmd)
		var got []string
		for _, d := range field(r, "cursor.firstBatch").(bson.A) {
			got = append(got, canon(t, d.(bson.D)))
		}
		slices.Sort(got)
		var w []string
		for _, d := range mustDoc(t, `{"v": `+want+`}`)[0].Value.(bson.A) {
			w = append(w, canon(t, d.(bson.D)))
		}
		slices.Sort(w)
		if !slices.Equal(got, w) {
			t.Errorf("%s: %s\n got %v\nwant %v", what, cmd, got, w)
		}
	}
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "_id": 1}, "name": "a_id"}]}`)
	check("null, _id projected", `{"find": "c", "filter": {"a": null}, "projection": {"_id": 1}}`, "PROJECTION_COVERED IXSCAN",
		`[{"_id": 3}, {"_id": 4}, {"_id": 6}, {"_id": 7}]`)
	check("b not in the index", `{"find": "c", "filter": {"a": null}, "projection": {"_id": 1, "b": 1}}`, "PROJECTION_SIMPLE FETCH IXSCAN",
		`[{"_id": 3, "b": 1}, {"_id": 4, "b": null}, {"_id": 6, "b": 2}, {"_id": 7}]`)
	check("the null field projected", `{"find": "c", "filter": {"a": null}, "projection": {"a": 1}}`, "PROJECTION_SIMPLE FETCH IXSCAN",
		`[{"_id": 3, "a": null}, {"_id": 4, "a": null}, {"_id": 6}, {"_id": 7}]`)
	check("the null field projected, _id not", `{"find": "c", "filter": {"a": null}, "projection": {"a": 1, "_id": 0}}`, "PROJECTION_SIMPLE FETCH IXSCAN",
		`[{"a": null}, {"a": null}, {}, {}]`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 8, "a": []}]}`)
	check("multikey", `{"find": "c", "filter": {"a": null, "_id": 3}, "projection": {"_id": 1}}`, "PROJECTION_SIMPLE FETCH IXSCAN", `[{"_id": 3}]`)
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"_id": 8}, "limit": 1}]}`)

	mustRun(t, db, "test", `{"dropIndexes": "c", "index": "*"}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b": 1, "_id": 1}, "name": "a_b_id"}]}`)
	check("$in and null", `{"find": "c", "filter": {"a": {"$in": [1, 2, 3]}, "b": null}, "projection": {"_id": 1}}`, "PROJECTION_COVERED IXSCAN",
		`[{"_id": 2}, {"_id": 5}]`)
	check("equality and null", `{"find": "c", "filter": {"a": 1, "b": null}, "projection": {"_id": 1}}`, "PROJECTION_COVERED IXSCAN", `[{"_id": 2}]`)

	mustRun(t, db, "test", `{"dropIndexes": "c", "index": "*"}`)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b": 1}, "name": "a_b"}]}`)
	check("_id not in the index", `{"find": "c", "filter": {"a": {"$in": [1, 2, 3]}, "b": null}, "projection": {"_id": 1}}`, "PROJECTION_SIMPLE FETCH IXSCAN",
		`[{"_id": 2}, {"_id": 5}]`)
}

// mongod's covered_index_sort_no_fetch_optimization.js: a sort no index
// order gives, of index fields only, sorts the values the entries give
// back; one that names another field fetches; the query's collation
// orders the strings. The projection goes under the SORT when it keeps
// the sort's fields and the sort is not a top-k (mongod's
// tryPushdownProjectBeneathSort): SORT over PROJECTION_COVERED.
func TestCoveredBlockingSort(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1, "b": 1}, "name": "a_b"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"a": 1, "b": 1, "c": 1}, {"a": 1, "b": 2, "c": 2}, {"a": 2, "b": 1, "c": 3}, {"a": 2, "b": 2, "c": 4}, {"a": -1, "b": 1, "c": 5}]}`)
	for _, c := range []struct{ cmd, stages, want string }{
		{`{"find": "c", "filter": {"a": {"$lt": 2}}, "projection": {"b": 1, "_id": 0}, "sort": {"b": 1}}`, "SORT PROJECTION_COVERED IXSCAN",
			`[{"b": 1}, {"b": 1}, {"b": 2}]`},
		{`{"find": "c", "filter": {"a": {"$gt": 0}}, "projection": {"a": 1, "b": 1, "_id": 0}, "sort": {"b": 1, "a": -1}}`, "SORT PROJECTION_COVERED IXSCAN",
			`[{"a": 2, "b": 1}, {"a": 1, "b": 1}, {"a": 2, "b": 2}, {"a": 1, "b": 2}]`},
		{`{"find": "c", "filter": {"a": {"$gt": 0}}, "projection": {"a": 1, "b": 1, "_id": 0}, "sort": {"b": 1, "a": -1}, "skip": 1}`, "SKIP SORT PROJECTION_COVERED IXSCAN",
			`[{"a": 1, "b": 1}, {"a": 2, "b": 2}, {"a": 1, "b": 2}]`},
		// A top-k sort, or one of a field the projection drops: the
		// projection stays over the SORT.
		{`{"find": "c", "filter": {"a": {"$gt": 0}}, "projection": {"a": 1, "b": 1, "_id": 0}, "sort": {"b": 1, "a": -1}, "limit": 2}`, "PROJECTION_COVERED SORT IXSCAN",
			`[{"a": 2, "b": 1}, {"a": 1, "b": 1}]`},
		{`{"find": "c", "filter": {"a": {"$gt": 0}}, "projection": {"b": 1, "_id": 0}, "sort": {"b": 1, "a": -1}}`, "PROJECTION_COVERED SORT IXSCAN",
			`[{"b": 1}, {"b": 1}, {"b": 2}, {"b": 2}]`},
		{`{"find": "c", "filter": {"a": {"$gt": 0}}, "projection": {"b": 1, "_id": 0}, "sort": {"c": 1, "b": 1}}`, "PROJECTION_SIMPLE SORT FETCH IXSCAN",
			`[{"b": 1}, {"b": 2}, {"b": 1}, {"b": 2}]`},
	} {
		if got, st := coveredPlan(t, db, c.cmd); got != c.stages {
			t.Errorf("%s: stages %s, want %s", c.cmd, got, c.stages)
		} else if strings.Contains(got, "PROJECTION_COVERED") {
			figures(t, c.cmd, st, "totalDocsExamined=0")
		}
		r := mustRun(t, db, "test", c.cmd)
		if got, want := canon(t, bson.D{{Key: "v", Value: field(r, "cursor.firstBatch")}}), canon(t, mustDoc(t, `{"v": `+c.want+`}`)); got != want {
			t.Errorf("%s\n got %s\nwant %s", c.cmd, got, want)
		}
	}
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"a": 1, "b": "A"}, {"a": 1, "b": "a"}]}`)
	const cmd = `{"find": "c", "filter": {}, "projection": {"a": 1, "b": 1, "_id": 0}, "collation": {"locale": "en_US", "strength": 3}, "sort": {"a": 1, "b": 1}, "hint": {"a": 1, "b": 1}}`
	if got, _ := coveredPlan(t, db, cmd); got != "SORT PROJECTION_COVERED IXSCAN" {
		t.Errorf("collated sort: stages %s, want SORT PROJECTION_COVERED IXSCAN", got)
	}
	r := mustRun(t, db, "test", cmd)
	want := `[{"a": -1, "b": 1}, {"a": 1, "b": 1}, {"a": 1, "b": 2}, {"a": 1, "b": "a"}, {"a": 1, "b": "A"}, {"a": 2, "b": 1}, {"a": 2, "b": 2}]`
	if got, w := canon(t, bson.D{{Key: "v", Value: field(r, "cursor.firstBatch")}}), canon(t, mustDoc(t, `{"v": `+want+`}`)); got != w {
		t.Errorf("collated sort\n got %s\nwant %s", got, w)
	}
}

// sortedFields returns d's canonical extended JSON with its fields in
// name order.
func sortedFields(t *testing.T, d bson.D) string {
	t.Helper()
	d = slices.Clone(d)
	slices.SortFunc(d, func(a, b bson.E) int { return strings.Compare(a.Key, b.Key) })
	return canon(t, d)
}

// An aggregation that the find layer runs whole (a $match and a
// $project of inclusions) is covered alike, its explain the find's.
func TestCoveredAggregate(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"a": 1}, "name": "a_1"}]}`)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"a": 1}, {"a": {"$numberLong": "2"}}, {"a": 3.0}]}`)
	const pipe = `[{"$match": {"a": {"$gt": 0}}}, {"$project": {"a": 1, "_id": 0}}]`
	r := explainOf(t, db, `{"aggregate": "c", "pipeline": `+pipe+`, "cursor": {}}`, "executionStats")
	if got := strings.Join(stages(field(r, "queryPlanner.winningPlan").(bson.D)), " "); got != "PROJECTION_COVERED IXSCAN" {
		t.Errorf("stages %s, want PROJECTION_COVERED IXSCAN", got)
	}
	figures(t, "aggregate", field(r, "executionStats").(bson.D), "nReturned=3 totalDocsExamined=0")
	r = mustRun(t, db, "test", `{"aggregate": "c", "pipeline": `+pipe+`, "cursor": {}}`)
	if got, want := canon(t, bson.D{{Key: "v", Value: field(r, "cursor.firstBatch")}}), canon(t, mustDoc(t, `{"v": [{"a": 1}, {"a": {"$numberLong": "2"}}, {"a": 3.0}]}`)); got != want {
		t.Errorf("aggregate\n got %s\nwant %s", got, want)
	}
}
