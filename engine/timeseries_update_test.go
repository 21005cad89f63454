package engine

import (
	"context"
	"fmt"
	"math/rand"
	"os"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// docs/timeseries.md §6.9: the same random inserts, updates (one and
// many, operators and replacements, changing data, meta and time
// fields), upserts and deletes on a time-series collection and on an
// ordinary one leave the same measurements after every step.
func TestTimeseriesUpdateMatchesOrdinaryCollection(t *testing.T) {
	t.Parallel()
	seed := time.Now().UnixNano()
	if s := os.Getenv("TTLKV_SEED"); s != "" {
		seed, _ = strconv.ParseInt(s, 10, 64)
	}
	t.Logf("seed %d (TTLKV_SEED to repeat)", seed)
	rng := rand.New(rand.NewSource(seed))
	db, clk := openMemTSUpdates(t)
	ctx := context.Background()
	mustRun(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m", "bucketMaxSpanSeconds": 3600, "bucketRoundingSeconds": 3600}}`)
	base := clk.Now().Add(-24 * time.Hour)
	metas := []any{"a", "b", bson.D{{Key: "k", Value: int32(1)}}, int32(7), nil}
	randTime := func() bson.DateTime {
		return bson.NewDateTimeFromTime(base.Add(time.Duration(rng.Int63n(int64(24 * time.Hour)))).Truncate(time.Millisecond))
	}
	nextID := int32(0)
	randDoc := func() bson.D {
		nextID++
		d := bson.D{{Key: "_id", Value: nextID}, {Key: "t", Value: randTime()}}
		if k := rng.Intn(len(metas) + 1); k < len(metas) {
			d = append(d, bson.E{Key: "m", Value: metas[k]})
		}
		if rng.Intn(4) > 0 {
			d = append(d, bson.E{Key: "v", Value: int32(rng.Intn(100))})
		}
		if rng.Intn(3) == 0 {
			d = append(d, bson.E{Key: "w", Value: bson.A{int32(rng.Intn(5))}})
		}
		return d
	}
	insert := func(n int) {
		var docs []any
		for i := 0; i < n; i++ {
			docs = append(docs, randDoc())
		}
		for _, c := range []string{"ts", "plain"} {
			if _, err := db.Database("test").Collection(c).InsertMany(ctx, docs, true); err != nil {
				t.Fatal(err)
			}
		}
	}
	insert(300)
	randFilter := func() bson.D {
		switch rng.Intn(6) {
		case 0:
			return bson.D{{Key: "m", Value: metas[rng.Intn(len(metas))]}}
		case 1:
			return bson.D{{Key: "t", Value: bson.D{{Key: []string{"$gt", "$lt"}[rng.Intn(2)], Value: randTime()}}}}
		case 2:
			return bson.D{{Key: "v", Value: bson.D{{Key: "$gte", Value: int32(rng.Intn(100))}}}}
		case 3:
			return bson.D{{Key: "w", Value: int32(rng.Intn(5))}}
		case 4:
			return bson.D{{Key: "_id", Value: rng.Int31n(nextID + 1)}}
		}
		return bson.D{{Key: "m", Value: metas[rng.Intn(len(metas))]}, {Key: "v", Value: bson.D{{Key: "$lt", Value: int32(rng.Intn(100))}}}}
	}
	randUpdate := func() (bson.D, bool) {
		switch rng.Intn(8) {
		case 0:
			return bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: int32(rng.Intn(100))}}}}, false
		case 1:
			return bson.D{{Key: "$set", Value: bson.D{{Key: "m", Value: metas[rng.Intn(len(metas))]}}}}, false
		case 2:
			return bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: randTime()}}}}, false
		case 3:
			return bson.D{{Key: "$unset", Value: bson.D{{Key: "m", Value: ""}, {Key: "w", Value: ""}}}}, false
		case 4:
			return bson.D{{Key: "$push", Value: bson.D{{Key: "w", Value: int32(rng.Intn(5))}}}}, false
		case 5:
			return bson.D{{Key: "$set", Value: bson.D{{Key: "x.y", Value: "s" + strconv.Itoa(rng.Intn(3))}}}, {Key: "$unset", Value: bson.D{{Key: "v", Value: ""}}}}, false
		case 6:
			// The time moves a little: it may stay in its bucket.
			return bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: randTime()}, {Key: "v", Value: int32(-1)}}}}, false
		}
		return bson.D{{Key: "t", Value: randTime()}, {Key: "m", Value: metas[rng.Intn(len(metas))]}, {Key: "v", Value: int32(1000)}}, true
	}
	byID := func(docs []bson.D) []bson.D {
		sort.Slice(docs, func(i, j int) bool { return document.Compare(docs[i][0].Value, docs[j][0].Value) < 0 })
		return docs
	}
	same := func(step int, what string) {
		t.Helper()
		a := byID(findAll(t, db, "test", "ts", bson.D{}))
		b := byID(findAll(t, db, "test", "plain", bson.D{}))
		if len(a) != len(b) {
			t.Fatalf("step %d %s: time-series %d, ordinary %d measurements (seed %d)", step, what, len(a), len(b), seed)
		}
		for i := range a {
			if !document.Equal(a[i], b[i]) || len(a[i]) != len(b[i]) {
				t.Fatalf("step %d %s: %v != %v (seed %d)", step, what, a[i], b[i], seed)
			}
		}
	}
	steps := 60
	switch {
	case os.Getenv("TTLKV_LONG") != "":
		steps = 600
	case raceOn:
		// One goroutine compares the collections: -race adds time, not
		// coverage; the run without it takes all 60 steps, each seed anew.
		steps = 25
	}
	for step := 0; step < steps; step++ {
		f := randFilter()
		var what string
		switch op := rng.Intn(10); {
		case op < 5: // update many
			u, repl := randUpdate()
			for repl { // a replacement updates one measurement only
				u, repl = randUpdate()
			}
			what = fmt.Sprintf("updateMany %s %s", fmtValue(f), fmtValue(u))
			s := UpdateSpec{Filter: f, Update: u, Multi: true}
			ra, err := db.updateDocs(ctx, "test", "ts", s)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			rb, err := db.updateDocs(ctx, "test", "plain", s)
			if err != nil {
				t.Fatal(err)
			}
			if ra.MatchedCount != rb.MatchedCount || ra.ModifiedCount != rb.ModifiedCount {
				t.Fatalf("%s: time-series %+v, ordinary %+v (seed %d)", what, ra, rb, seed)
			}
		case op < 8: // update one: which one may differ; the same _id is updated in plain
			u, _ := randUpdate()
			what = fmt.Sprintf("updateOne %s %s", fmtValue(f), fmtValue(u))
			before := map[any]bson.D{}
			for _, d := range findAll(t, db, "test", "ts", bson.D{}) {
				before[d[0].Value] = d
			}
			ra, err := db.updateDocs(ctx, "test", "ts", UpdateSpec{Filter: f, Update: u})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			matches := len(findAll(t, db, "test", "plain", f))
			if ra.MatchedCount != min(int64(matches), 1) {
				t.Fatalf("%s: matched %d with %d candidates (seed %d)", what, ra.MatchedCount, matches, seed)
			}
			var changed []any
			for _, d := range findAll(t, db, "test", "ts", bson.D{}) {
				if old, ok := before[d[0].Value]; !ok || !document.Equal(old, d) || len(old) != len(d) {
					changed = append(changed, d[0].Value)
				}
			}
			if int64(len(changed)) != ra.ModifiedCount {
				t.Fatalf("%s: %d measurements changed, modified %d (seed %d)", what, len(changed), ra.ModifiedCount, seed)
			}
			for _, id := range changed {
				pf := append(bson.D{{Key: "_id", Value: id}}, f...)
				if _, err := db.updateDocs(ctx, "test", "plain", UpdateSpec{Filter: pf, Update: u}); err != nil {
					t.Fatal(err)
				}
			}
		case op < 9: // upsert with a new _id and a time
			nextID++
			uf := bson.D{{Key: "_id", Value: nextID}, {Key: "m", Value: "up"}}
			u := bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: randTime()}, {Key: "v", Value: int32(3)}}}}
			what = fmt.Sprintf("upsert %s", fmtValue(uf))
			for _, c := range []string{"ts", "plain"} {
				r, err := db.updateDocs(ctx, "test", c, UpdateSpec{Filter: uf, Update: u, Upsert: true})
				if err != nil || r.UpsertedCount != 1 {
					t.Fatalf("%s on %s: %+v %v", what, c, r, err)
				}
			}
		default:
			what = fmt.Sprintf("deleteMany %s", fmtValue(f))
			na, err := db.deleteDocs(ctx, "test", "ts", DeleteSpec{Filter: f})
			if err != nil {
				t.Fatal(err)
			}
			nb, err := db.deleteDocs(ctx, "test", "plain", DeleteSpec{Filter: f})
			if err != nil {
				t.Fatal(err)
			}
			if na != nb {
				t.Fatalf("%s: time-series %d, ordinary %d (seed %d)", what, na, nb, seed)
			}
			insert(rng.Intn(20))
		}
		same(step, what)
	}
	mustValidate(t, db, "test", "ts")
}

// docs/timeseries.md §6.9 and §6.6: after updates move measurements in
// time, every bucket's min time still lies at or below its measurements
// and within a span of them, so bucket expiry deletes exactly the
// buckets whose measurements have all expired.
func TestTimeseriesUpdateExpiry(t *testing.T) {
	t.Parallel()
	db, clk := openMemTSUpdates(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}, "expireAfterSeconds": 60}`)
	now := clk.Now().Truncate(time.Hour)
	clk.Advance(now.Sub(clk.Now()))
	old := now.Add(-2 * time.Hour)
	mustInsertTS(t, db, "w",
		fmt.Sprintf(`{"_id": 1, "t": %s, "m": "s", "v": 1}`, tsDate(old)),
		fmt.Sprintf(`{"_id": 2, "t": %s, "m": "s", "v": 2}`, tsDate(old.Add(10*time.Minute))))
	if n := len(tsBucketDocs(t, db, "w", "t")); n != 1 {
		t.Fatalf("%d buckets, want 1", n)
	}
	// Measurement 1 moves to now: out of its bucket's range, into a new
	// bucket, whose expiry is an hour away.
	r := mustRun(t, db, "test", fmt.Sprintf(`{"update": "w", "updates": [{"q": {"_id": 1}, "u": {"$set": {"t": %s}}}]}`, tsDate(now)))
	if field(r, "n") != int32(1) || field(r, "nModified") != int32(1) {
		t.Fatalf("update: %v", r)
	}
	bs := tsBucketDocs(t, db, "w", "t")
	if len(bs) != 2 {
		t.Fatalf("%d buckets after the move, want 2: %v", len(bs), bs)
	}
	if got := field(bs[0], "control.min.t"); got != bson.NewDateTimeFromTime(old) {
		t.Fatalf("old bucket min = %v, want %v (kept)", got, old)
	}
	if got := field(bs[1], "control.min.t"); got != bson.NewDateTimeFromTime(now) {
		t.Fatalf("new bucket min = %v, want %v", got, now)
	}
	// The old bucket (min now-2h) is due at min + 3600 + 60 s; the new
	// one is not.
	if res := ttlPass(t, db); res.Deleted != 1 {
		t.Fatalf("pass deleted %d buckets, want 1", res.Deleted)
	}
	got := findAll(t, db, "test", "w", bson.D{})
	if len(got) != 1 || field(got[0], "_id") != int32(1) {
		t.Fatalf("left %v, want measurement 1", got)
	}
	// Moving a measurement back in time takes it to a bucket whose min
	// is at or below it: an expired time expires with the next pass.
	r = mustRun(t, db, "test", fmt.Sprintf(`{"update": "w", "updates": [{"q": {}, "u": {"$set": {"t": %s}}, "multi": true}]}`, tsDate(old)))
	if field(r, "nModified") != int32(1) {
		t.Fatalf("update back: %v", r)
	}
	bs = tsBucketDocs(t, db, "w", "t")
	if len(bs) != 1 || field(bs[0], "control.min.t") != bson.NewDateTimeFromTime(old) {
		t.Fatalf("buckets after moving back: %v", bs)
	}
	if res := ttlPass(t, db); res.Deleted != 1 {
		t.Fatalf("pass deleted %d buckets after moving back, want 1", res.Deleted)
	}
	// Within a bucket's range a measurement stays in it, and the min is
	// kept: the bucket is due on the same instant as before.
	mustInsertTS(t, db, "w",
		fmt.Sprintf(`{"_id": 3, "t": %s, "m": "s"}`, tsDate(now)),
		fmt.Sprintf(`{"_id": 4, "t": %s, "m": "s"}`, tsDate(now.Add(50*time.Minute))))
	mustRun(t, db, "test", fmt.Sprintf(`{"update": "w", "updates": [{"q": {"_id": 3}, "u": {"$set": {"t": %s}}}]}`, tsDate(now.Add(40*time.Minute))))
	bs = tsBucketDocs(t, db, "w", "t")
	if len(bs) != 1 || field(bs[0], "control.min.t") != bson.NewDateTimeFromTime(now) ||
		field(bs[0], "control.max.t") != bson.NewDateTimeFromTime(now.Add(50*time.Minute)) {
		t.Fatalf("bucket after an in-range move: %v", bs)
	}
	clk.Advance(time.Hour + time.Minute - time.Millisecond)
	if res := ttlPass(t, db); res.Deleted != 0 {
		t.Fatalf("deleted 1 ms early")
	}
	clk.Advance(time.Millisecond)
	if res := ttlPass(t, db); res.Deleted != 1 {
		t.Fatalf("not deleted at min + span + expiry")
	}
	mustValidate(t, db, "test", "w")
}

// docs/timeseries.md §6.9: MongoDB's rules and codes for time-series
// updates; a failed statement changes nothing.
func TestTimeseriesUpdateErrors(t *testing.T) {
	t.Parallel()
	db, clk := openMemTSUpdates(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	at := tsDate(clk.Now().Add(-time.Hour))
	mustInsertTS(t, db, "w",
		fmt.Sprintf(`{"_id": 1, "t": %s, "m": 1, "f": "F"}`, at),
		fmt.Sprintf(`{"_id": 2, "t": %s, "m": 2, "f": "F"}`, at))
	before := findAll(t, db, "test", "w", bson.D{})
	unchanged := func(what string) {
		t.Helper()
		after := findAll(t, db, "test", "w", bson.D{})
		if fmt.Sprint(after) != fmt.Sprint(before) {
			t.Fatalf("%s changed the collection: %v", what, after)
		}
	}
	for _, c := range []struct {
		upd  string
		code document.Code
		frag string
	}{
		{`{"q": {"f": "F"}, "u": {"$unset": {"t": ""}}, "multi": true}`, document.CodeBadValue, "'t' must be present"},
		{`{"q": {"f": "F"}, "u": {"$set": {"t": "hello"}}, "multi": true}`, document.CodeBadValue, "valid BSON UTC datetime"},
		{`{"q": {"_id": 1}, "u": {"m": 1, "a": 1, "_id": 10}}`, document.CodeBadValue, "'t' must be present"},
		{`{"q": {"m": 1}, "u": [{"$set": {"m": 2}}, {"$unset": "t"}]}`, document.CodeBadValue, "'t' must be present"},
		{`{"q": {"m": 5}, "u": {"$set": {"f": 1}}, "upsert": true}`, document.CodeBadValue, "'t' must be present"},
		{`{"q": {}, "u": {"$set": {"$y": 1}}}`, document.Code(52), "prefixed field '$y'"},
		{`{"q": {}, "u": {"t": {"$date": "2020-01-01T00:00:00Z"}}, "multi": true}`, document.CodeFailedToParse, "multi update is not supported for replacement"},
		{`{"q": {}, "u": {"$set": {"f": 1}}, "hint": "nope_1"}`, document.CodeBadValue, "hint provided does not correspond to an existing index"},
	} {
		r := mustRun(t, db, "test", `{"update": "w", "updates": [`+c.upd+`]}`)
		if field(r, "writeErrors.0.code") != int32(c.code) || !contains(fmt.Sprint(field(r, "writeErrors.0.errmsg")), c.frag) {
			t.Errorf("%s: %v, want code %d with %q", c.upd, r, c.code, c.frag)
		}
		if field(r, "n") != int32(0) || field(r, "nModified") != int32(0) {
			t.Errorf("%s: %v, want n 0", c.upd, r)
		}
		unchanged(c.upd)
	}
	r, _ := run(t, db, "test", `{"delete": "w", "deletes": [{"q": {}, "limit": 0, "hint": "nope_1"}]}`)
	if field(r, "writeErrors.0.code") != int32(document.CodeBadValue) {
		t.Fatalf("delete with a bad hint: %v", r)
	}
	unchanged("delete with a bad hint")
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"m": 1}, "name": "m_1"}]}`)
	for _, h := range []string{`"m_1"`, `{"m": 1}`, `{"$natural": 1}`} {
		mustRun(t, db, "test", `{"update": "w", "updates": [{"q": {"m": 9}, "u": {"$set": {"f": 1}}, "hint": `+h+`}]}`)
	}
	// What MongoDB allows on measurements: changing _id (it is not
	// immutable there), duplicating one, and upserts with a time.
	r = mustRun(t, db, "test", fmt.Sprintf(`{"update": "w", "updates": [{"q": {"_id": 1}, "u": {"_id": 2, "t": %s, "m": 2}}]}`, at))
	if field(r, "nModified") != int32(1) {
		t.Fatalf("replacement changing _id: %v", r)
	}
	if got := findAll(t, db, "test", "w", bson.D{{Key: "_id", Value: int32(2)}}); len(got) != 2 {
		t.Fatalf("after the replacement: %v, want two measurements with _id 2", got)
	}
	r = mustRun(t, db, "test", fmt.Sprintf(`{"update": "w", "updates": [{"q": {"_id": 100}, "u": {"$set": {"t": %s}}, "upsert": true}]}`, at))
	if field(r, "n") != int32(1) || field(r, "upserted.0._id") != int32(100) {
		t.Fatalf("upsert: %v", r)
	}
	if got := findAll(t, db, "test", "w", bson.D{{Key: "_id", Value: int32(100)}}); len(got) != 1 {
		t.Fatalf("upserted measurement: %v", got)
	}
	mustValidate(t, db, "test", "w")
}

// docs/timeseries.md §6.9: findAndModify on a time-series collection
// removes or updates the first measurement in sort order and returns it
// (before or after), and upserts.
func TestTimeseriesFindAndModify(t *testing.T) {
	t.Parallel()
	db, clk := openMemTSUpdates(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}}`)
	base := clk.Now().Add(-time.Hour)
	for i := 0; i < 10; i++ {
		mustInsertTS(t, db, "w", fmt.Sprintf(`{"_id": %d, "t": %s, "m": %d, "v": %d}`, i, tsDate(base.Add(time.Duration(i)*time.Minute)), i%2, i))
	}
	r := mustRun(t, db, "test", `{"findAndModify": "w", "query": {"m": 1}, "sort": {"v": -1}, "remove": true}`)
	if field(r, "value._id") != int32(9) || field(r, "lastErrorObject.n") != int32(1) {
		t.Fatalf("remove: %v", r)
	}
	if n := count(t, db, "test", "w"); n != 9 {
		t.Fatalf("count after remove = %d", n)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "w", "query": {"m": 0}, "sort": {"v": -1}, "update": {"$inc": {"v": 100}}, "new": true}`)
	if field(r, "value._id") != int32(8) || field(r, "value.v") != int32(108) || field(r, "lastErrorObject.updatedExisting") != true {
		t.Fatalf("update new: %v", r)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "w", "query": {"v": 3}, "update": {"$set": {"m": 5}}}`)
	if field(r, "value._id") != int32(3) || field(r, "value.m") != int32(1) {
		t.Fatalf("update old: %v", r)
	}
	if got := findAll(t, db, "test", "w", bson.D{{Key: "m", Value: int32(5)}}); len(got) != 1 || field(got[0], "_id") != int32(3) {
		t.Fatalf("after update: %v", got)
	}
	r = mustRun(t, db, "test", `{"findAndModify": "w", "query": {"v": 3}, "remove": true}`)
	if field(r, "value.m") != int32(5) {
		t.Fatalf("remove without sort: %v", r)
	}
	r = mustRun(t, db, "test", fmt.Sprintf(`{"findAndModify": "w", "query": {"_id": 50}, "update": {"$set": {"t": %s}}, "upsert": true, "new": true}`, tsDate(base)))
	if field(r, "value._id") != int32(50) || field(r, "lastErrorObject.upserted") != int32(50) {
		t.Fatalf("upsert: %v", r)
	}
	wantCode(t, db, "test", `{"findAndModify": "w", "query": {"_id": 51}, "update": {"$set": {"v": 1}}, "upsert": true}`,
		document.CodeBadValue, "'t' must be present")
	if n := count(t, db, "test", "w"); n != 9 {
		t.Fatalf("count at the end = %d", n)
	}
	mustValidate(t, db, "test", "w")
}

// docs/timeseries.md §6.8 and §6.9: an update that moves a measurement
// outside 1970..2038 sets the out-of-range flag as an insert does, so
// the collection is never reaped afterwards, across a restart.
func TestTimeseriesUpdateOutOfRange(t *testing.T) {
	t.Parallel()
	db, clk, dir := openTestWith(t, tsArbitraryUpdates)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t"}, "expireAfterSeconds": 1}`)
	mustInsertTS(t, db, "w",
		fmt.Sprintf(`{"_id": 1, "t": %s}`, tsDate(clk.Now().Add(-48*time.Hour))),
		fmt.Sprintf(`{"_id": 2, "t": %s}`, tsDate(clk.Now().Add(-48*time.Hour))))
	r := mustRun(t, db, "test", `{"update": "w", "updates": [{"q": {"_id": 2}, "u": {"$set": {"t": {"$date": "1969-12-31T23:59:59Z"}}}}]}`)
	if field(r, "nModified") != int32(1) {
		t.Fatalf("update: %v", r)
	}
	db = reopen(t, db, dir, clk)
	clk.Advance(100 * 365 * 24 * time.Hour)
	if res := ttlPass(t, db); res.Deleted != 0 {
		t.Fatalf("reaped %d buckets after an update to 1969", res.Deleted)
	}
	if n := count(t, db, "test", "w"); n != 2 {
		t.Fatalf("count = %d", n)
	}
}

// docs/timeseries.md §6.9: updates that rewrite and move measurements,
// inserts into the buckets they rewrite, and TTL passes, all at once:
// no call fails, nothing is counted twice, and validate finds buckets,
// deltas and indexes consistent afterwards. Bounded: 20 rounds each.
func TestTimeseriesUpdateConcurrentWithInsertsAndReaper(t *testing.T) {
	t.Parallel()
	db, clk := openMemTSUpdates(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}, "expireAfterSeconds": 60}`)
	now := clk.Now()
	ctx := context.Background()
	c := db.Database("test").Collection("w")
	const rounds = 20
	var inserted int64
	errs := make(chan error, 3)
	go func() { // writer: recent measurements of two sensors, and old ones
		for r := 0; r < rounds; r++ {
			var docs []any
			for i := 0; i < 10; i++ {
				at := now.Add(-time.Duration(r*10+i) * time.Second)
				if i%5 == 0 {
					at = now.Add(-3 * time.Hour)
				}
				docs = append(docs, bson.D{{Key: "t", Value: bson.NewDateTimeFromTime(at)}, {Key: "m", Value: "s" + strconv.Itoa(i%2)}, {Key: "v", Value: int32(r)}})
			}
			if _, err := c.InsertMany(ctx, docs, true); err != nil {
				errs <- err
				return
			}
			inserted += int64(len(docs))
		}
		errs <- nil
	}()
	go func() { // updater: data changes, meta changes, times moved back and forth
		for r := 0; r < rounds; r++ {
			var u bson.D
			switch r % 3 {
			case 0:
				u = bson.D{{Key: "$inc", Value: bson.D{{Key: "v", Value: int32(100)}}}}
			case 1:
				u = bson.D{{Key: "$set", Value: bson.D{{Key: "m", Value: "s" + strconv.Itoa(r%2)}}}}
			default:
				u = bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: bson.NewDateTimeFromTime(now.Add(-time.Duration(r) * time.Minute))}}}}
			}
			if _, err := c.UpdateMany(ctx, bson.D{{Key: "v", Value: bson.D{{Key: "$lt", Value: int32(r)}}}}, u, false); err != nil {
				errs <- err
				return
			}
		}
		errs <- nil
	}()
	go func() { // reaper
		for r := 0; r < rounds; r++ {
			if _, err := db.RunTTLPass(ctx); err != nil {
				errs <- err
				return
			}
		}
		errs <- nil
	}()
	for i := 0; i < 3; i++ {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, db, "test", "w"); n > inserted || n == 0 {
		t.Fatalf("count = %d of %d inserted", n, inserted)
	}
	mustValidate(t, db, "test", "w")
}
