package engine

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// replyKeys renders a reply's fields in order as "k=v" pairs, values
// as Extended JSON; values other than int32 and bool carry their Go
// type (int64(50)), so a wrongly typed field shows; ok's 1 is "1"
// whatever its type.
func replyKeys(r bson.D) string {
	out := ""
	for i, e := range r {
		if i > 0 {
			out += " "
		}
		v := fmtValue(e.Value)
		switch f, _ := asFloat(e.Value); {
		case e.Key == "ok" && f == 1:
			v = "1"
		case e.Key == "ok":
		default:
			switch e.Value.(type) {
			case int32, bool:
			default:
				v = fmt.Sprintf("%T(%s)", e.Value, v)
			}
		}
		out += e.Key + "=" + v
	}
	return out
}

// listedIndex returns the listIndexes entry named name.
func listedIndex(t *testing.T, db *DB, coll, name string) bson.D {
	t.Helper()
	ixs, err := db.Database("test").Collection(coll).ListIndexes(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, ix := range ixs {
		if field(ix, "name") == name {
			return ix
		}
	}
	t.Fatalf("index %s not listed: %v", name, ixs)
	return nil
}

// docs/collmod.md §5.1: collMod's index form, its replies and the listing after.
func TestCollModIndexReplies(t *testing.T) {
	t.Parallel()
	db, _, dir := openTest(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 100}, {"key": {"u": -1}, "name": "u_-1"}, {"key": {"h": 1}, "name": "h_1"}]}`)
	cases := []struct {
		cmd, reply string
		check      func(ix bson.D) bool
		index      string
	}{
		// Converting a non-TTL single-field index: no _old.
		{`{"collMod": "c", "index": {"keyPattern": {"u": -1}, "expireAfterSeconds": 50}}`,
			`expireAfterSeconds_new=50 ok=1`, func(ix bson.D) bool { return field(ix, "expireAfterSeconds") == int32(50) }, "u_-1"},
		// Changing a TTL index: both, even when equal.
		{`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": 200}}`,
			`expireAfterSeconds_old=100 expireAfterSeconds_new=200 ok=1`, func(ix bson.D) bool { return field(ix, "expireAfterSeconds") == int32(200) }, "t_1"},
		{`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": 200}}`,
			`expireAfterSeconds_old=200 expireAfterSeconds_new=200 ok=1`, nil, "t_1"},
		{`{"collMod": "c", "index": {"keyPattern": {"t": 1}, "expireAfterSeconds": {"$numberLong": "0"}}}`,
			`expireAfterSeconds_old=200 expireAfterSeconds_new=0 ok=1`, func(ix bson.D) bool { return field(ix, "expireAfterSeconds") == int32(0) }, "t_1"},
		{`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": 3600.9}}`,
			`expireAfterSeconds_old=0 expireAfterSeconds_new=3600 ok=1`, func(ix bson.D) bool { return field(ix, "expireAfterSeconds") == int32(3600) }, "t_1"},
		{`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": {"$numberDecimal": "30.7"}}}`,
			`expireAfterSeconds_old=3600 expireAfterSeconds_new=30 ok=1`, func(ix bson.D) bool { return field(ix, "expireAfterSeconds") == int32(30) }, "t_1"},
		{`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": 2147483647}}`,
			`expireAfterSeconds_old=30 expireAfterSeconds_new=2147483647 ok=1`, nil, "t_1"},
		// hidden.
		{`{"collMod": "c", "index": {"name": "h_1", "hidden": true}}`,
			`hidden_old=false hidden_new=true ok=1`, func(ix bson.D) bool { return field(ix, "hidden") == true }, "h_1"},
		// A no-op is not reported (mongod's collmod_index_noop.js).
		{`{"collMod": "c", "index": {"name": "h_1", "hidden": true}}`,
			`ok=1`, nil, "h_1"},
		{`{"collMod": "c", "index": {"keyPattern": {"h": 1}, "hidden": false}}`,
			`hidden_old=true hidden_new=false ok=1`, func(ix bson.D) bool { _, ok := get(ix, "hidden"); return !ok || field(ix, "hidden") == false }, "h_1"},
		// Both in one command.
		{`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": 60, "hidden": true}}`,
			`expireAfterSeconds_old=2147483647 expireAfterSeconds_new=60 hidden_old=false hidden_new=true ok=1`,
			func(ix bson.D) bool {
				return field(ix, "expireAfterSeconds") == int32(60) && field(ix, "hidden") == true
			}, "t_1"},
	}
	for _, c := range cases {
		r := mustRun(t, db, "test", c.cmd)
		if got := replyKeys(r); got != c.reply {
			t.Errorf("%s\n reply %s\n want  %s", c.cmd, got, c.reply)
		}
		if c.check != nil && !c.check(listedIndex(t, db, "c", c.index)) {
			t.Errorf("%s: listed as %v", c.cmd, listedIndex(t, db, "c", c.index))
		}
	}
	// The changes are in the catalog: they survive a reopen.
	db = reopen(t, db, dir, newClock())
	if ix := listedIndex(t, db, "c", "t_1"); field(ix, "expireAfterSeconds") != int32(60) || field(ix, "hidden") != true {
		t.Fatalf("after reopen t_1 = %v", ix)
	}
	if ix := listedIndex(t, db, "c", "u_-1"); field(ix, "expireAfterSeconds") != int32(50) {
		t.Fatalf("after reopen u_-1 = %v", ix)
	}
	if len(db.ttlTargets()) != 2 {
		t.Fatalf("TTL targets after reopen: %v", db.ttlTargets())
	}
}

// docs/collmod.md §5.1: every error of the index form, with its code and message,
// and nothing changed by a failed collMod.
func TestCollModIndexErrors(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 100}, {"key": {"a": 1, "b": 1}, "name": "a_1_b_1"}, {"key": {"p": 1}, "name": "p_a", "partialFilterExpression": {"k": 1}}, {"key": {"p": 1}, "name": "p_b", "partialFilterExpression": {"k": 2}}]}`)
	cases := []struct {
		cmd  string
		code document.Code
		frag string
	}{
		{`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": "100"}}`, document.CodeTypeMismatch, "expireAfterSeconds"},
		{`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": true}}`, document.CodeTypeMismatch, "expireAfterSeconds"},
		{`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": -1}}`, document.CodeInvalidOptions, "cannot be less than 0"},
		{`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": -0.5}}`, document.CodeInvalidOptions, "cannot be less than 0"},
		{`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": 2147483648}}`, document.CodeInvalidOptions, "32-bit integer"},
		{`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": {"$numberDouble": "NaN"}}}`, document.CodeInvalidOptions, "NaN"},
		{`{"collMod": "c", "index": {"name": "t_1", "keyPattern": {"t": 1}, "expireAfterSeconds": 5}}`, document.CodeInvalidOptions, "Cannot specify both key pattern and name."},
		{`{"collMod": "c", "index": {"expireAfterSeconds": 5}}`, document.CodeInvalidOptions, "Must specify either index name or key pattern."},
		{`{"collMod": "c", "index": {}}`, document.CodeInvalidOptions, "Must specify either index name or key pattern."},
		{`{"collMod": "c", "index": {"name": "t_1"}}`, document.CodeInvalidOptions, ""},
		{`{"collMod": "c", "index": {"name": "a_1_b_1", "expireAfterSeconds": 5}}`, document.CodeInvalidOptions, "compound indexes do not support TTL"},
		{`{"collMod": "c", "index": {"keyPattern": {"a": 1, "b": 1}, "expireAfterSeconds": 5}}`, document.CodeInvalidOptions, "compound indexes do not support TTL"},
		{`{"collMod": "c", "index": {"name": "_id_", "expireAfterSeconds": 5}}`, document.CodeInvalidOptions, "the _id field does not support TTL indexes"},
		{`{"collMod": "c", "index": {"keyPattern": {"_id": 1}, "expireAfterSeconds": 5}}`, document.CodeInvalidOptions, "the _id field does not support TTL indexes"},
		{`{"collMod": "c", "index": {"name": "nosuch", "expireAfterSeconds": 5}}`, document.CodeIndexNotFound, "nosuch"},
		{`{"collMod": "c", "index": {"keyPattern": {"t": -1}, "expireAfterSeconds": 5}}`, document.CodeIndexNotFound, ""},
		{`{"collMod": "c", "index": {"keyPattern": {"p": 1}, "expireAfterSeconds": 5}}`, document.CodeAmbiguousIndexKeyPattern, ""},
		{`{"collMod": "c", "index": {"name": "t_1", "hidden": "yes"}}`, document.CodeTypeMismatch, "hidden"},
		{`{"collMod": "c", "index": {"keyPattern": "t_1", "expireAfterSeconds": 5}}`, document.CodeTypeMismatch, "keyPattern"},
		{`{"collMod": "c", "index": {"name": {"t": 1}, "expireAfterSeconds": 5}}`, document.CodeTypeMismatch, "name"},
		{`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": {"$numberDecimal": "-30"}}}`, document.CodeInvalidOptions, "cannot be less than 0"},
		{`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": {"$numberDouble": "Infinity"}}}`, document.CodeInvalidOptions, "32-bit integer"},
		{`{"collMod": "c", "index": {"name": "_id_", "hidden": true}}`, document.CodeBadValue, "_id"},
		{`{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": 5, "bogus": 1}}`, document.CodeIDLUnknownField, "bogus"},
		{`{"collMod": "c", "index": "t_1"}`, document.CodeTypeMismatch, "index"},
		{`{"collMod": "c", "bogus": 1}`, document.CodeIDLUnknownField, "bogus"},
		{`{"collMod": "nosuch", "index": {"name": "t_1", "expireAfterSeconds": 5}}`, document.CodeNamespaceNotFound, ""},
		{`{"collMod": "c", "expireAfterSeconds": 5}`, document.CodeInvalidOptions, "only supported on collections clustered by _id"},
	}
	before := fmt.Sprint(db.lookup("test", "c").m().Indexes)
	listed, _ := db.Database("test").Collection("c").ListIndexes(context.Background())
	for _, c := range cases {
		wantCode(t, db, "test", c.cmd, c.code, c.frag)
	}
	after, _ := db.Database("test").Collection("c").ListIndexes(context.Background())
	if fmt.Sprint(listed) != fmt.Sprint(after) || before != fmt.Sprint(db.lookup("test", "c").m().Indexes) {
		t.Fatalf("failed collMods changed the indexes:\n%v\n%v", listed, after)
	}
	// The same key pattern is unambiguous by name.
	r := mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "p_b", "expireAfterSeconds": 5}}`)
	if field(r, "expireAfterSeconds_new") != int32(5) {
		t.Fatalf("reply %v", r)
	}
}

// docs/collmod.md §5.1: a time-series collection refuses the TTL index form.
func TestCollModIndexOnTimeseries(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	if _, err := run(t, db, "test", `{"create": "ts", "timeseries": {"timeField": "t", "metaField": "m"}}`); err != nil {
		t.Skipf("time-series collections not available: %v", err)
	}
	r, err := run(t, db, "test", `{"createIndexes": "ts", "indexes": [{"key": {"m": 1}, "name": "m_1"}]}`)
	if err != nil {
		t.Skipf("secondary indexes on time-series not available: %v (%v)", err, r)
	}
	wantCode(t, db, "test", `{"collMod": "ts", "index": {"name": "m_1", "expireAfterSeconds": 5}}`, document.CodeInvalidOptions,
		"TTL indexes are not supported for time-series collections")
}

// docs/collmod.md §5.1: a new value applies from the next visit: documents expire
// by it on the next pass, raised or lowered, with no rebuild.
func TestCollModValueAppliesNextPass(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1}, "name": "t_1", "expireAfterSeconds": 3600}]}`)
	now := clk.Now()
	insertDocs(t, db, "c",
		bson.D{{Key: "_id", Value: "100s"}, {Key: "t", Value: dt(now.Add(-100 * time.Second))}},
		bson.D{{Key: "_id", Value: "30m"}, {Key: "t", Value: dt(now.Add(-30 * time.Minute))}},
		bson.D{{Key: "_id", Value: "2h"}, {Key: "t", Value: dt(now.Add(-2 * time.Hour))}},
		bson.D{{Key: "_id", Value: "now"}, {Key: "t", Value: dt(now)}})
	// Raise before the first pass: the 2h document is no longer expired.
	mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": 10800}}`)
	if n := pass(t, db).Deleted; n != 0 {
		t.Fatalf("raised to 3h: deleted %d", n)
	}
	// Lower: expires by the new value on the next pass.
	mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": 600}}`)
	if n := pass(t, db).Deleted; n != 2 {
		t.Fatalf("lowered to 10m: deleted %d, want 2 (%v)", n, ids(t, db, "c"))
	}
	mustRun(t, db, "test", `{"collMod": "c", "index": {"keyPattern": {"t": 1}, "expireAfterSeconds": 60}}`)
	if got := fmt.Sprint(ids(t, db, "c")); got != "[100s now]" {
		t.Fatalf("collMod itself deleted documents: %s", got)
	}
	if n := pass(t, db).Deleted; n != 1 {
		t.Fatalf("lowered to 60s: deleted %d, want 1", n)
	}
	// 0: each document at its own date.
	mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "t_1", "expireAfterSeconds": 0}}`)
	if n := pass(t, db).Deleted; n != 1 || count(t, db, "test", "c") != 0 {
		t.Fatalf("lowered to 0: deleted %d", n)
	}
	mustValidate(t, db, "test", "c")
}

// docs/collmod.md §5.1: converting a non-TTL single-field index makes its
// documents reaped; hiding a TTL index keeps it reaping.
func TestCollModConvertsToTTL(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": -1}, "name": "t_-1"}]}`)
	now := clk.Now()
	insertDocs(t, db, "c",
		bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: dt(now.Add(-time.Hour))}},
		bson.D{{Key: "_id", Value: 2}, {Key: "t", Value: dt(now)}},
		bson.D{{Key: "_id", Value: 3}, {Key: "t", Value: "not a date"}})
	if n := pass(t, db).Deleted; n != 0 {
		t.Fatalf("a non-TTL index reaped %d", n)
	}
	r := mustRun(t, db, "test", `{"collMod": "c", "index": {"keyPattern": {"t": -1}, "expireAfterSeconds": 60, "hidden": true}}`)
	if _, ok := get(r, "expireAfterSeconds_old"); ok {
		t.Fatalf("conversion reply has _old: %v", r)
	}
	if n := pass(t, db).Deleted; n != 1 {
		t.Fatalf("converted index reaped %d, want 1", n)
	}
	clk.Advance(time.Minute)
	if n := pass(t, db).Deleted; n != 1 {
		t.Fatalf("converted index reaped %d after a minute, want 1", n)
	}
	if got := fmt.Sprint(ids(t, db, "c")); got != "[3]" {
		t.Fatalf("survivors %s", got)
	}
	mustValidate(t, db, "test", "c")
}

// docs/collmod.md §5.1 with the monitor's mark, for an ascending TTL
// index (its low-water mark) and a descending one (its high-water mark,
// whose visits walk down from the oldest keys): a visit reads a chunk of
// keys expired under the old value, collMod raises the value before the
// chunk's batches run, so the batches keep those documents while the
// visit moves its mark past them. They must still expire once the
// raised value says so (the monitor's ResetLowWater), not be skipped
// forever.
func TestCollModRaiseKeepsMarkHonest(t *testing.T) {
	t.Parallel()
	for _, ix := range []struct{ key, name string }{{`{"t": 1}`, "t_1"}, {`{"t": -1}`, "t_-1"}} {
		t.Run(ix.name, func(t *testing.T) {
			t.Parallel()
			db, clk, _ := datedTTLColl(t, ix.key, ix.name, 40, 100, false) // i is dated 100-i seconds ago
			db.SetParameter("ttlIndexDeleteTargetDocs", 10)                // chunks of 10 keys: the mark moves
			raised := false
			db.opts.seams.scanHook = func() {
				if !raised {
					raised = true
					mustRun(t, db, "test", `{"collMod": "c", "index": {"name": "`+ix.name+`", "expireAfterSeconds": 95}}`)
				}
			}
			// The first chunk is 0..9 either way (the oldest keys); under
			// 95 s only 0..5 are expired.
			if n := pass(t, db).Deleted; n != 6 {
				t.Fatalf("pass with a raise mid-visit deleted %d, want 6", n)
			}
			db.opts.seams.scanHook = nil
			// 30 s later, 0..35 are expired under 95 s.
			clk.Advance(30 * time.Second)
			if n := pass(t, db).Deleted; n != 30 {
				t.Fatalf("after the clock passed the raised value: deleted %d, want 30; left %v", n, ids(t, db, "c"))
			}
			if got := fmt.Sprint(ids(t, db, "c")); got != "[36 37 38 39]" {
				t.Fatalf("survivors %s", got)
			}
			mustValidate(t, db, "test", "c")
		})
	}
}

// The mark with writers, for an ascending TTL index (low-water: its
// visits walk up from the newest dates' side of what they deleted) and
// a descending one (high-water: its visits walk down from the oldest
// key): a visit stopped by its document target deletes the oldest 7
// first, each later visit resumes past the keys deleted before, and a
// document written beyond the mark afterwards (an insert with an old
// date, an update that moves a date back) is reaped by the next pass.
// For the descending index, the mark after the pass is its newest
// deleted key.
func TestMarkSeesWritesBeyondIt(t *testing.T) {
	t.Parallel()
	for _, ix := range []struct {
		key, name string
		desc      bool
	}{{`{"t": 1}`, "t_1", false}, {`{"t": -1}`, "t_-1", true}} {
		t.Run(ix.name, func(t *testing.T) {
			t.Parallel()
			db, _, now := datedTTLColl(t, ix.key, ix.name, 50, 60, true) // i is dated 60-i seconds ago
			db.SetParameter("ttlIndexDeleteTargetDocs", 7)
			var visits []int64
			db.opts.seams.visitHook = func(_ string, deleted int64, _ bool) { visits = append(visits, deleted) }
			if n := pass(t, db).Deleted; n != 50 {
				t.Fatalf("first pass deleted %d, want 50", n)
			}
			db.opts.seams.visitHook = nil
			if len(visits) < 2 || visits[0] != 7 {
				t.Fatalf("visits deleted %v, want 7 first", visits)
			}
			if ix.desc {
				newest := descKey(t, db, "c", dt(now.Add(-11*time.Second))) // i = 49
				if mark := descMark(t, db, "c"); !bytes.HasPrefix(mark, newest) {
					t.Fatalf("mark %x after the pass: want the newest deleted key %x", mark, newest)
				}
			}
			insertDocs(t, db, "c", bson.D{{Key: "_id", Value: "old-insert"}, {Key: "t", Value: dt(now.Add(-time.Hour))}})
			if _, err := db.Database("test").Collection("c").UpdateOne(context.Background(), bson.D{{Key: "_id", Value: "live"}},
				bson.D{{Key: "$set", Value: bson.D{{Key: "t", Value: dt(now.Add(-2 * time.Hour))}}}}, false); err != nil {
				t.Fatal(err)
			}
			if n := pass(t, db).Deleted; n != 2 || count(t, db, "test", "c") != 0 {
				t.Fatalf("writes beyond the mark: deleted %d, left %v", n, ids(t, db, "c"))
			}
		})
	}
}

// docs/ttl-indexes.md §1.4, docs/collmod.md §5.1: TTL and capped are incompatible, so collMod may not
// convert a capped collection's index to TTL either (MongoDB: 72
// "TTL indexes are not supported for capped collections."); hiding it
// is still fine, and a refused collMod changes nothing.
func TestCollModIndexOnCapped(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	createCapped(t, db, "cap", 1<<20, 0)
	mustRun(t, db, "test", `{"createIndexes": "cap", "indexes": [{"key": {"t": 1}, "name": "t_1"}]}`)
	insertDocs(t, db, "cap", bson.D{{Key: "_id", Value: 1}, {Key: "t", Value: dt(clk.Now().Add(-time.Hour))}})
	for _, cmd := range []string{
		`{"collMod": "cap", "index": {"name": "t_1", "expireAfterSeconds": 5}}`,
		`{"collMod": "cap", "index": {"keyPattern": {"t": 1}, "expireAfterSeconds": 0}}`,
		`{"collMod": "cap", "index": {"name": "t_1", "expireAfterSeconds": 5, "hidden": true}}`,
	} {
		wantCode(t, db, "test", cmd, document.CodeInvalidOptions, "TTL indexes are not supported for capped collections")
	}
	ix := listedIndex(t, db, "cap", "t_1")
	if _, ok := get(ix, "expireAfterSeconds"); ok || field(ix, "hidden") != nil {
		t.Fatalf("a refused collMod changed the index: %v", ix)
	}
	if n := len(db.ttlTargets()); n != 0 {
		t.Fatalf("the monitor targets %d indexes of a capped collection", n)
	}
	r := mustRun(t, db, "test", `{"collMod": "cap", "index": {"name": "t_1", "hidden": true}}`)
	if got := replyKeys(r); got != "hidden_old=false hidden_new=true ok=1" {
		t.Fatalf("hiding a capped collection's index: %s", got)
	}
	if n := pass(t, db).Deleted; n != 0 || count(t, db, "test", "cap") != 1 {
		t.Fatalf("a pass deleted %d documents of a capped collection", n)
	}
}
