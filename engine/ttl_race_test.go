package engine

import (
	"context"
	"math/rand"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// testSeed returns TTLKV_SEED or a fresh seed, and logs it so a failing
// randomised run can be replayed.
func testSeed(t *testing.T) int64 {
	t.Helper()
	seed := time.Now().UnixNano()
	if s := os.Getenv("TTLKV_SEED"); s != "" {
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			t.Fatalf("TTLKV_SEED=%q: %v", s, err)
		}
		seed = v
	}
	t.Logf("seed %d (replay with TTLKV_SEED=%d)", seed, seed)
	return seed
}

// longTests reports whether the heavy variants run (TTLKV_LONG=1).
func longTests() bool { return os.Getenv("TTLKV_LONG") == "1" }

// raceDoc is a writer's model of one document it owns.
type raceDoc struct {
	present bool
	t       any // the t field's value; nil: no field
}

// earliestDate is the earliest date among v or v's array elements; ok
// is false when there is none (the document never expires).
func earliestDate(v any) (bson.DateTime, bool) {
	switch x := v.(type) {
	case bson.DateTime:
		return x, true
	case bson.A:
		var best bson.DateTime
		found := false
		for _, e := range x {
			if d, ok := e.(bson.DateTime); ok && (!found || d < best) {
				best, found = d, true
			}
		}
		return best, found
	}
	return 0, false
}

// TestTTLRace runs writers that insert, update and delete documents,
// collMod changing the TTL value and hiding the index, and TTL passes,
// all at once while the fake clock advances. Each writer owns its
// documents and keeps a model of their final state. Afterwards: no
// document was deleted by the monitor unless its state at the time was
// expired under some value the index had; no live document is missing;
// no expired one survives two passes; validate is clean.
func TestTTLRace(t *testing.T) {
	t.Parallel()
	ttlRace(t, false)
}

// TestTTLRaceClustered is TestTTLRace on a collection clustered by _id,
// whose documents live in their _id entries (clustered.go).
func TestTTLRaceClustered(t *testing.T) {
	t.Parallel()
	ttlRace(t, true)
}

func ttlRace(t *testing.T, clustered bool) {
	seed := testSeed(t)
	// The background monitor runs too (every second of real time),
	// beside the RunTTLPass loop below.
	clk := newClock()
	db, err := Open(t.TempDir(), Options{Clock: clk.Now, Params: map[string]any{"ttlMonitorSleepSecs": 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var bgPasses atomic.Int64
	db.mon.SetPassHook(func(TTLPassResult) { bgPasses.Add(1) })
	ctx := context.Background()
	values := []int64{5, 20, 30, 60, 120} // expireAfterSeconds collMod picks from
	const minExpire = 5
	if clustered {
		mustRun(t, db, "test", `{"create": "c", "clusteredIndex": {"key": {"_id": 1}, "unique": true}}`)
	}
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 30}]}`)
	// Small targets: many visits, sub-passes and batches, so the
	// low-water marks move and rechecks race the writers.
	mustRun(t, db, "admin", `{"setParameter": 1, "ttlIndexDeleteTargetDocs": 5, "batchedDeletesTargetBatchDocs": 2, "ttlMonitorSubPassTargetSecs": 0}`)

	writers, perWriter, ops := 3, 40, 300
	if longTests() {
		writers, ops = 4, 3000
	}
	coll := db.Database("test").Collection("c")
	newValue := func(r *rand.Rand) any {
		now := clk.Now()
		at := func() bson.DateTime { return dt(now.Add(time.Duration(r.Intn(150)-90) * time.Second)) }
		switch p := r.Intn(20); {
		case p < 14:
			return at()
		case p < 16:
			return bson.A{at(), "x", at()}
		case p < 18:
			return "not a date"
		default:
			return nil // no t field
		}
	}
	docOf := func(id int32, v any) bson.D {
		d := bson.D{{Key: "_id", Value: id}}
		if v != nil {
			d = append(d, bson.E{Key: "t", Value: v})
		}
		return d
	}
	setOf := func(v any) bson.D {
		if v == nil {
			return bson.D{{Key: "$unset", Value: bson.D{{Key: "t", Value: ""}}}}
		}
		return bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: v}}}}
	}
	// legitReap fails the test if the monitor deleted a document whose
	// last written state never expired under any value the index had.
	var reaped atomic.Int64
	legitReap := func(id int32, st *raceDoc) {
		reaped.Add(1)
		d, ok := earliestDate(st.t)
		if !ok || d > dt(clk.Now().Add(-minExpire*time.Second)) {
			t.Errorf("document %d with t=%s was deleted by the monitor while live", id, fmtValue(st.t))
		}
	}

	models := make([]map[int32]*raceDoc, writers)
	var wg sync.WaitGroup
	done := make(chan struct{})
	for w := 0; w < writers; w++ {
		models[w] = map[int32]*raceDoc{}
		r := rand.New(rand.NewSource(seed + int64(w)))
		var initial []bson.D
		for j := 0; j < perWriter; j++ {
			id := int32(w*1000 + j)
			v := newValue(r)
			models[w][id] = &raceDoc{present: true, t: v}
			initial = append(initial, docOf(id, v))
		}
		insertDocs(t, db, "c", initial...)
		wg.Add(1)
		go func(w int, r *rand.Rand) {
			defer wg.Done()
			m := models[w]
			for i := 0; i < ops; i++ {
				clk.Advance(100 * time.Millisecond)
				id := int32(w*1000 + r.Intn(perWriter))
				st := m[id]
				switch p := r.Intn(20); {
				case !st.present:
					v := newValue(r)
					if _, err := coll.InsertOne(ctx, docOf(id, v)); err != nil {
						t.Errorf("insert %d: %v", id, err)
						return
					}
					st.present, st.t = true, v
				case p < 14:
					v := newValue(r)
					res, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, setOf(v), false)
					if err != nil {
						t.Errorf("update %d: %v", id, err)
						return
					}
					if res.MatchedCount == 0 {
						legitReap(id, st)
						st.present = false
						continue
					}
					st.t = v
				case p < 17:
					res, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
					if err != nil {
						t.Errorf("delete %d: %v", id, err)
						return
					}
					if res.DeletedCount == 0 {
						legitReap(id, st)
					}
					st.present = false
				default:
					// A multi delete (the batched stage) racing the monitor.
					lo := int32(w*1000 + r.Intn(perWriter))
					hi := lo + int32(r.Intn(4))
					if _, err := coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: lo}, {Key: "$lte", Value: hi}}}}); err != nil {
						t.Errorf("deleteMany: %v", err)
						return
					}
					for k := lo; k <= hi; k++ {
						if s := m[k]; s != nil {
							s.present = false
						}
					}
				}
			}
		}(w, r)
	}
	var bg sync.WaitGroup
	bg.Add(2)
	var passes, collMods atomic.Int64
	go func() { // the monitor
		defer bg.Done()
		for {
			select {
			case <-done:
				return
			default:
			}
			if _, err := db.RunTTLPass(ctx); err != nil {
				t.Errorf("ttl pass: %v", err)
				return
			}
			passes.Add(1)
		}
	}()
	go func() { // collMod
		defer bg.Done()
		r := rand.New(rand.NewSource(seed - 1))
		for {
			select {
			case <-done:
				return
			default:
			}
			cmd := bson.D{{Key: "collMod", Value: "c"}, {Key: "index", Value: bson.D{{Key: "name", Value: "t_1"},
				{Key: "expireAfterSeconds", Value: values[r.Intn(len(values))]}, {Key: "hidden", Value: r.Intn(2) == 0}}}}
			if _, err := db.RunCommand(ctx, "test", cmd); err != nil {
				t.Errorf("collMod: %v", err)
				return
			}
			collMods.Add(1)
			if _, err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: int32(r.Intn(perWriter))}}); err != nil && err != ErrNoDocuments {
				t.Errorf("findOne: %v", err)
			}
		}
	}()
	wg.Wait()
	close(done)
	bg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d passes (%d by the background monitor), %d collMods, %d documents reaped under the writers",
		passes.Load(), bgPasses.Load(), collMods.Load(), reaped.Load())

	// checkState compares the collection with the models: nothing the
	// writers removed is back, nothing is stale, and a missing document
	// is one that was expired under some value the index had; with
	// strict, nothing expired under the final value is left.
	final := db.lookup("test", "c").m().Index("t_1").Expire
	checkState := func(stage string, strict bool) {
		got := map[int32]bson.D{}
		for _, d := range findAll(t, db, "test", "c", bson.D{}) {
			got[idOf(d).(int32)] = d
		}
		cutoffAny := dt(clk.Now().Add(-minExpire * time.Second))
		cutoffFinal := dt(clk.Now().Add(-time.Duration(final) * time.Second))
		for w := range models {
			for id, st := range models[w] {
				d, inDB := got[id]
				e, hasDate := earliestDate(st.t)
				switch {
				case !st.present && inDB:
					t.Errorf("%s: document %d is back after its writer removed it: %v", stage, id, d)
				case inDB && fmtValue(d) != fmtValue(docOf(id, st.t)):
					t.Errorf("%s: document %d is stale: %v, want %v", stage, id, d, docOf(id, st.t))
				case st.present && !inDB && (!hasDate || e > cutoffAny):
					t.Errorf("%s: live document %d (t=%s) was deleted", stage, id, fmtValue(st.t))
				case strict && inDB && hasDate && e <= cutoffFinal:
					t.Errorf("%s: expired document %d (t=%s) survived, cut-off %s", stage, id, fmtValue(st.t), fmtValue(cutoffFinal))
				}
			}
		}
	}
	checkState("after the race", false)
	mustValidate(t, db, "test", "c")
	pass(t, db)
	pass(t, db)
	checkState("after two quiet passes", true)
	mustValidate(t, db, "test", "c")
}
