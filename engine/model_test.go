package engine

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The randomised model test: random inserts, updates ($set, $unset,
// $inc, $push, $pull, replacement, upsert), deletes (one, many) and
// queries run against the engine and against a map of documents that
// uses engine/query's Match and Apply; every query's result (and its
// order when sorted) must agree, and every stored document must be
// byte-for-byte what the model holds. Indexes (multikey, compound,
// descending, unique sparse, partial, hidden) come and go at random
// times; the DB is reopened at random points and validated after each
// reopen. TTLKV_SEED=n replays a run; TTLKV_LONG=1 runs a long one.

// modelDB is the in-memory reference: documents by _id.
type modelDB struct {
	docs   map[string]bson.D
	unique bool // the unique sparse index on u exists
}

// idKey maps an _id to a map key under BSON equality (1 == 1.0).
func idKey(v any) string {
	if f, ok := asFloat(v); ok {
		return "n:" + strconv.FormatFloat(f, 'g', -1, 64)
	}
	b, _ := document.MarshalExtJSON(bson.D{{Key: "v", Value: v}}, true)
	return string(b)
}

// uTaken reports whether a document other than self holds u value v
// (the unique index is sparse: only documents with a u field count).
func (m *modelDB) uTaken(d bson.D, self string) bool {
	v, ok := get(d, "u")
	if !m.unique || !ok {
		return false
	}
	for k, o := range m.docs {
		if k == self {
			continue
		}
		if ov, has := get(o, "u"); has && document.Compare(ov, v) == 0 {
			return true
		}
	}
	return false
}

// sortedDocs returns the model's documents in _id order.
func (m *modelDB) sortedDocs() []bson.D {
	out := make([]bson.D, 0, len(m.docs))
	for _, d := range m.docs {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool { return document.Compare(out[i][0].Value, out[j][0].Value) < 0 })
	return out
}

type modelGen struct{ r *rand.Rand }

func (g modelGen) intn(n int) int { return g.r.IntN(n) }

// id returns an _id: mostly small ints (so duplicates happen), some
// doubles equal to them, some strings.
func (g modelGen) id() any {
	switch g.intn(10) {
	case 0:
		return float64(g.intn(60))
	case 1:
		return fmt.Sprintf("s%d", g.intn(10))
	}
	return int32(g.intn(60))
}

// scalar returns a small value of a random type class.
func (g modelGen) scalar() any {
	switch g.intn(12) {
	case 0:
		return nil
	case 1:
		return fmt.Sprintf("%c", 'a'+g.intn(4))
	case 2:
		return float64(g.intn(8)) + 0.5
	case 3:
		return int64(g.intn(8))
	case 4:
		return g.intn(2) == 0
	case 5:
		return bson.D{{Key: "b", Value: int32(g.intn(4))}}
	case 6:
		return float64(g.intn(8)) // same value as an int, other type
	}
	return int32(g.intn(8))
}

func (g modelGen) array() bson.A {
	n := g.intn(4)
	a := bson.A{}
	for i := 0; i < n; i++ {
		a = append(a, int32(g.intn(6)))
	}
	return a
}

// document builds a random document. t is always an array when
// present (so $push/$pull never fail); a and b are scalars or small
// documents (so no compound index sees parallel arrays); c holds an
// array of documents; u is a scalar for the unique index.
func (g modelGen) document(withID bool) bson.D {
	d := bson.D{}
	if withID {
		d = append(d, bson.E{Key: "_id", Value: g.id()})
	}
	if g.intn(5) > 0 {
		d = append(d, bson.E{Key: "a", Value: g.scalar()})
	}
	if g.intn(4) > 0 {
		d = append(d, bson.E{Key: "b", Value: int32(g.intn(10))})
	}
	if g.intn(3) > 0 {
		d = append(d, bson.E{Key: "t", Value: g.array()})
	}
	if g.intn(3) == 0 {
		var c bson.A
		for i := g.intn(3); i >= 0; i-- {
			c = append(c, bson.D{{Key: "x", Value: int32(g.intn(5))}})
		}
		d = append(d, bson.E{Key: "c", Value: c})
	}
	if g.intn(4) == 0 {
		d = append(d, bson.E{Key: "u", Value: int32(g.intn(40))})
	}
	// Shuffle the non-_id fields: field order must be preserved.
	if withID && len(d) > 2 && g.intn(2) == 0 {
		d[1], d[len(d)-1] = d[len(d)-1], d[1]
	}
	return d
}

// filter builds a random filter over the document shape above.
func (g modelGen) filter(depth int) bson.D {
	if depth < 2 && g.intn(6) == 0 {
		op := []string{"$or", "$and", "$nor"}[g.intn(3)]
		return bson.D{{Key: op, Value: bson.A{g.filter(depth + 1), g.filter(depth + 1)}}}
	}
	var f bson.D
	for i := g.intn(3); i > 0; i-- {
		f = append(f, g.predicate())
	}
	if f == nil {
		f = bson.D{}
	}
	return f
}

func (g modelGen) predicate() bson.E {
	path := []string{"a", "b", "t", "c.x", "u", "a.b", "_id", "c"}[g.intn(8)]
	var val any
	switch path {
	case "b", "u", "c.x", "t":
		val = int32(g.intn(8))
	case "_id":
		val = g.id()
	default:
		val = g.scalar()
	}
	ops := []string{"", "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin", "$exists", "$type", "$not", "$size", "$elemMatch", "$all"}
	op := ops[g.intn(len(ops))]
	switch op {
	case "":
		return bson.E{Key: path, Value: val}
	case "$in", "$nin", "$all":
		return bson.E{Key: path, Value: bson.D{{Key: op, Value: bson.A{val, g.scalar()}}}}
	case "$exists":
		return bson.E{Key: path, Value: bson.D{{Key: op, Value: g.intn(2) == 0}}}
	case "$type":
		ty := []string{"number", "string", "array", "object", "null", "bool", "double", "int", "long"}[g.intn(9)]
		return bson.E{Key: path, Value: bson.D{{Key: op, Value: ty}}}
	case "$not":
		return bson.E{Key: path, Value: bson.D{{Key: op, Value: bson.D{{Key: "$gt", Value: val}}}}}
	case "$size":
		return bson.E{Key: path, Value: bson.D{{Key: op, Value: int32(g.intn(4))}}}
	case "$elemMatch":
		if path == "c" {
			return bson.E{Key: path, Value: bson.D{{Key: op, Value: bson.D{{Key: "x", Value: bson.D{{Key: "$gte", Value: int32(g.intn(5))}}}}}}}
		}
		return bson.E{Key: path, Value: bson.D{{Key: op, Value: bson.D{{Key: "$gt", Value: int32(g.intn(5))}, {Key: "$lt", Value: int32(g.intn(8))}}}}}
	}
	return bson.E{Key: path, Value: bson.D{{Key: op, Value: val}}}
}

// update builds a random update that never fails on the generated
// documents unless it touches u (checked against the model), and never
// creates a parallel array.
func (g modelGen) update(multi bool) bson.D {
	var u bson.D
	used := map[string]bool{} // top-level fields touched: no conflicts
	add := func(op string, e bson.E) {
		top := e.Key
		if i := indexOf(top, "."); i >= 0 {
			top = top[:i]
		}
		if used[top] {
			return
		}
		used[top] = true
		for i := range u {
			if u[i].Key == op {
				u[i].Value = append(u[i].Value.(bson.D), e)
				return
			}
		}
		u = append(u, bson.E{Key: op, Value: bson.D{e}})
	}
	for i := 1 + g.intn(2); i > 0; i-- {
		switch g.intn(7) {
		case 0:
			add("$set", bson.E{Key: "a", Value: g.scalar()})
		case 1:
			add("$set", bson.E{Key: "b", Value: int32(g.intn(10))})
		case 2:
			add("$unset", bson.E{Key: []string{"a", "t", "c", "b"}[g.intn(4)], Value: ""})
		case 3:
			add("$inc", bson.E{Key: "n", Value: int32(g.intn(3))})
		case 4:
			add("$push", bson.E{Key: "t", Value: int32(g.intn(6))})
		case 5:
			add("$pull", bson.E{Key: "t", Value: int32(g.intn(6))})
		case 6:
			if !multi {
				add("$set", bson.E{Key: "u", Value: int32(g.intn(40))})
			} else {
				add("$set", bson.E{Key: "c.0.x", Value: int32(g.intn(5))})
			}
		}
	}
	return u
}

// modelIndexes are the indexes the test creates and drops.
var modelIndexes = []string{
	`{"key": {"a": 1}, "name": "a"}`,
	`{"key": {"b": -1}, "name": "b"}`,
	`{"key": {"t": 1}, "name": "t"}`,
	`{"key": {"a": 1, "b": -1}, "name": "ab"}`,
	`{"key": {"b": 1, "t": -1}, "name": "bt"}`,
	`{"key": {"c.x": 1}, "name": "cx"}`,
	`{"key": {"u": 1}, "name": "u", "unique": true, "sparse": true}`,
	`{"key": {"a": -1}, "name": "ap", "partialFilterExpression": {"b": {"$gt": 4}}}`,
	`{"key": {"b": 1}, "name": "bh", "hidden": true}`,
	`{"key": {"a.b": 1}, "name": "ab_sparse", "sparse": true}`,
}

func TestModel(t *testing.T) {
	t.Parallel()
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("TTLKV_SEED"); s != "" {
		n, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("TTLKV_SEED: %v", err)
		}
		seed = n
	}
	ops := 2500
	if os.Getenv("TTLKV_LONG") != "" {
		ops = 50000
	} else if testing.Short() || raceOn {
		ops = 600
	}
	t.Logf("seed %d (replay with TTLKV_SEED=%d), %d operations", seed, seed, ops)
	defer func() {
		if t.Failed() {
			t.Logf("FAILED with seed %d: replay with TTLKV_SEED=%d go test ./engine -run TestModel", seed, seed)
		}
	}()
	runModel(t, seed, ops)
}

func runModel(t *testing.T, seed uint64, ops int) {
	g := modelGen{rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
	db, clk, dir := openTest(t)
	ctx := context.Background()
	m := &modelDB{docs: map[string]bson.D{}}
	coll := func() *Collection { return db.Database("test").Collection("m") }
	now := clk.Now()
	var stats [16]int
	var step int
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("step %d: "+format, append([]any{step}, args...)...)
	}
	wantErr := func(what string, err error, code document.Code) {
		t.Helper()
		var e *Error
		if !errors.As(err, &e) || e.Code != code {
			fail("%s: err %v, want code %d", what, err, code)
		}
	}
	// checkAll compares every stored document with the model.
	checkAll := func(what string) {
		t.Helper()
		got := snapshotDocs(t, db, "test", "m")
		want := m.sortedDocs()
		if !sameDocs(got, want) {
			for i := 0; i < len(got) || i < len(want); i++ {
				var a, b bson.D
				if i < len(got) {
					a = got[i]
				}
				if i < len(want) {
					b = want[i]
				}
				if a == nil || b == nil || !docIdentical(a, b) {
					fail("%s: stored documents differ at %d:\n engine %v\n model  %v", what, i, a, b)
				}
			}
		}
	}
	for step = 0; step < ops; step++ {
		switch k := g.intn(100); {
		case k < 30: // insert one or many
			n := 1 + g.intn(3)
			docs := make([]any, n)
			for i := range docs {
				docs[i] = g.document(g.intn(10) > 0)
			}
			ordered := g.intn(2) == 0
			res, err := coll().InsertMany(ctx, docs, ordered)
			// Predict per document.
			failedAt := map[int]document.Code{}
			for i, x := range docs {
				d := x.(bson.D)
				key := ""
				if len(d) == 0 || d[0].Key != "_id" {
					// A generated _id: known only if the insert worked.
					if res != nil && res.InsertedIDs[i] != nil {
						d = append(bson.D{{Key: "_id", Value: res.InsertedIDs[i]}}, d...)
						key = idKey(d[0].Value)
					}
				} else {
					key = idKey(d[0].Value)
				}
				switch {
				case key == "" && !m.uTaken(d, key):
					fail("insert of %v without _id failed: %v", d, err)
				case key == "":
					failedAt[i] = document.CodeDuplicateKey
				case m.docs[key] != nil:
					failedAt[i] = document.CodeDuplicateKey
				case m.uTaken(d, key):
					failedAt[i] = document.CodeDuplicateKey
				default:
					m.docs[key] = document.CloneDoc(d)
				}
				if _, bad := failedAt[i]; bad && ordered {
					break
				}
			}
			var bwe *BulkWriteError
			if len(failedAt) == 0 {
				if err != nil {
					fail("insert %v: %v", docs, err)
				}
			} else if !errors.As(err, &bwe) {
				fail("insert %v: err %v, want write errors at %v", docs, err, failedAt)
			} else {
				if len(bwe.WriteErrors) != len(failedAt) {
					fail("insert %v: write errors %v, want %v", docs, bwe.WriteErrors, failedAt)
				}
				for _, we := range bwe.WriteErrors {
					if failedAt[we.Index] != we.Err.Code {
						fail("insert %v: write error %d %v, want %v", docs, we.Index, we.Err, failedAt)
					}
				}
			}
			stats[0]++
		case k < 40: // update one by _id (maybe upsert), or replace
			id := g.id()
			filter := bson.D{{Key: "_id", Value: id}}
			var upd bson.D
			if g.intn(4) == 0 {
				upd = g.document(false)
			} else {
				upd = g.update(false)
			}
			upsert := g.intn(3) == 0
			pu, err := query.ParseUpdate(upd)
			if err != nil {
				fail("bad generated update %v: %v", upd, err)
			}
			key := idKey(id)
			var want bson.D
			var wantCode document.Code
			old := m.docs[key]
			switch {
			case old != nil:
				want, err = pu.Apply(document.CloneDoc(old), query.UpdateOptions{Now: now})
			case upsert:
				want, err = pu.Upsert(filter, query.UpdateOptions{Now: now, IsUpsertInsert: true})
			}
			if err != nil {
				wantCode = document.CodeOf(err)
			} else if want != nil && m.uTaken(want, key) {
				wantCode = document.CodeDuplicateKey
			}
			var res *UpdateResult
			if pu.IsReplacement() {
				res, err = coll().ReplaceOne(ctx, filter, upd, upsert)
			} else {
				res, err = coll().UpdateOne(ctx, filter, upd, upsert)
			}
			if wantCode != 0 {
				wantErr(fmt.Sprintf("update %v %v", filter, upd), err, wantCode)
			} else if err != nil {
				fail("update %v %v: %v", filter, upd, err)
			} else {
				if want != nil {
					m.docs[key] = want
				}
				if old != nil && res.MatchedCount != 1 || old == nil && upsert && res.UpsertedCount != 1 {
					fail("update %v %v: result %+v", filter, upd, res)
				}
			}
			stats[1]++
		case k < 50: // update many with a random filter
			f := g.filter(0)
			upd := g.update(true)
			pf, perr := query.ParseFilter(f)
			if perr != nil {
				_, err := coll().UpdateMany(ctx, f, upd, false)
				wantErr(fmt.Sprintf("updateMany %v", f), err, document.CodeOf(perr))
				break
			}
			pu, _ := query.ParseUpdate(upd)
			var matched, modified int64
			next := map[string]bson.D{}
			for key, d := range m.docs {
				if pf.Match(d) {
					matched++
					nd, err := pu.Apply(document.CloneDoc(d), query.UpdateOptions{Now: now})
					if err != nil {
						fail("model: update %v on %v: %v", upd, d, err)
					}
					if !docIdentical(d, nd) {
						modified++
					}
					next[key] = nd
				}
			}
			res, err := coll().UpdateMany(ctx, f, upd, false)
			if err != nil {
				fail("updateMany %v %v: %v", f, upd, err)
			}
			if res.MatchedCount != matched || res.ModifiedCount != modified {
				fail("updateMany %v %v: matched %d modified %d, model %d %d", f, upd, res.MatchedCount, res.ModifiedCount, matched, modified)
			}
			for key, d := range next {
				m.docs[key] = d
			}
			stats[2]++
		case k < 55: // delete one by _id
			id := g.id()
			res, err := coll().DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
			want := int64(0)
			if m.docs[idKey(id)] != nil {
				want = 1
				delete(m.docs, idKey(id))
			}
			if err != nil || res.DeletedCount != want {
				fail("deleteOne %v: %v %v, want %d", id, res, err, want)
			}
			stats[3]++
		case k < 60: // delete many
			f := g.filter(0)
			if len(f) == 0 && g.intn(8) > 0 {
				f = bson.D{{Key: "b", Value: int32(g.intn(10))}}
			}
			pf, perr := query.ParseFilter(f)
			if perr != nil {
				_, err := coll().DeleteMany(ctx, f)
				wantErr(fmt.Sprintf("deleteMany %v", f), err, document.CodeOf(perr))
				break
			}
			var want int64
			for key, d := range m.docs {
				if pf.Match(d) {
					delete(m.docs, key)
					want++
				}
			}
			res, err := coll().DeleteMany(ctx, f)
			if err != nil || res.DeletedCount != want {
				fail("deleteMany %v: %v %v, want %d", f, res, err, want)
			}
			stats[4]++
		case k < 90: // query
			f := g.filter(0)
			o := FindOptions{}
			sorted := g.intn(2) == 0
			if sorted {
				sk := []string{"a", "b", "t", "c.x", "u"}[g.intn(5)]
				o.Sort = bson.D{{Key: sk, Value: int32(1 - 2*g.intn(2))}, {Key: "_id", Value: int32(1 - 2*g.intn(2))}}
				if g.intn(3) == 0 {
					o.Skip = int64(g.intn(5))
				}
				if g.intn(3) == 0 {
					o.Limit = int64(1 + g.intn(10))
				}
			}
			if g.intn(4) == 0 {
				o.BatchSize = int32(1 + g.intn(4))
			}
			if g.intn(4) == 0 {
				// A hint on a visible, complete index (or $natural).
				var names []string
				if c := db.lookup("test", "m"); c != nil {
					for _, ix := range c.m().Indexes {
						if !ix.Hidden && !ix.Sparse && ix.Partial == nil {
							names = append(names, ix.Name)
						}
					}
				}
				if len(names) > 0 && g.intn(3) > 0 {
					o.Hint = names[g.intn(len(names))]
				} else {
					o.Hint = bson.D{{Key: "$natural", Value: int32(1)}}
				}
			}
			pf, perr := query.ParseFilter(f)
			if perr != nil {
				_, err := coll().Find(ctx, f, o)
				wantErr(fmt.Sprintf("find %v", f), err, document.CodeOf(perr))
				break
			}
			var want []bson.D
			for _, d := range m.sortedDocs() {
				if pf.Match(d) {
					want = append(want, d)
				}
			}
			if sorted {
				ps, err := query.ParseSort(o.Sort)
				if err != nil {
					fail("sort %v: %v", o.Sort, err)
				}
				sort.SliceStable(want, func(i, j int) bool { return ps.Compare(want[i], want[j]) < 0 })
				if o.Skip > 0 {
					want = want[min(int(o.Skip), len(want)):]
				}
				if o.Limit > 0 && int(o.Limit) < len(want) {
					want = want[:o.Limit]
				}
			}
			cur, err := coll().Find(ctx, f, o)
			if err != nil {
				fail("find %v %+v: %v", f, o, err)
			}
			got, err := cur.All(ctx)
			if err != nil {
				fail("find %v %+v: %v", f, o, err)
			}
			if !sorted {
				got = sortByID(got)
			}
			if !sameDocs(got, want) {
				fail("find %v %+v:\n engine %v\n model  %v", f, o, idsOf2(got), idsOf2(want))
			}
			if n, err := coll().CountDocuments(ctx, f); err != nil || (!sorted && n != int64(len(want))) {
				fail("count %v: %d %v, want %d", f, n, err, len(want))
			}
			stats[5]++
		case k < 95: // create or drop an index
			spec := ejson(t, modelIndexes[g.intn(len(modelIndexes))])
			name := field(spec, "name").(string)
			c := db.lookup("test", "m")
			exists := c != nil && c.m().Index(name) != nil
			if exists && g.intn(2) == 0 {
				if err := coll().DropIndex(ctx, name); err != nil {
					fail("drop index %s: %v", name, err)
				}
				if name == "u" {
					m.unique = false
				}
				stats[6]++
				break
			}
			// A unique build fails when two documents share a u value.
			dup := false
			if name == "u" && !exists {
				seen := map[string]bool{}
				for _, d := range m.docs {
					if v, ok := get(d, "u"); ok {
						k := idKey(v)
						dup = dup || seen[k]
						seen[k] = true
					}
				}
			}
			_, err := coll().CreateIndexes(ctx, []bson.D{spec})
			if dup {
				wantErr("unique build over duplicates", err, document.CodeDuplicateKey)
				if c := db.lookup("test", "m"); c != nil && c.m().Index("u") != nil {
					fail("failed unique build left the index")
				}
			} else if err != nil {
				fail("create index %v: %v", spec, err)
			} else if name == "u" {
				m.unique = true
			}
			stats[7]++
		case k < 97:
			// Only validate.
			if db.lookup("test", "m") != nil {
				mustValidate(t, db, "test", "m")
			}
		default: // reopen (and validate), or just validate
			if g.intn(6) == 0 {
				db = reopen(t, db, dir, clk)
				stats[8]++
			}
			if db.lookup("test", "m") != nil {
				mustValidate(t, db, "test", "m")
			}
			checkAll("after reopen")
			stats[9]++
		}
		if step%500 == 499 {
			checkAll("periodic")
		}
	}
	checkAll("end")
	if db.lookup("test", "m") != nil {
		mustValidate(t, db, "test", "m")
	}
	db = reopen(t, db, dir, clk)
	checkAll("final reopen")
	if db.lookup("test", "m") != nil {
		mustValidate(t, db, "test", "m")
	}
	t.Logf("inserts %d, updateOne %d, updateMany %d, deleteOne %d, deleteMany %d, finds %d, index drops %d, builds %d, reopens %d, validates %d; %d documents at the end",
		stats[0], stats[1], stats[2], stats[3], stats[4], stats[5], stats[6], stats[7], stats[8], stats[9], len(m.docs))
}
