package engine

import (
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestAlwaysTrueFalse: {$alwaysTrue: 1} matches every document and
// {$alwaysFalse: 1} none, anywhere a filter's operator may be; the
// operand must be the integer 1 (9 FailedToParse), as mongod's parser
// says.
func TestAlwaysTrueFalse(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1, "a": 1}`, `{"_id": 2, "a": 2}`, `{"_id": 3}`})
	for _, c := range []struct {
		filter string
		want   int
	}{
		{`{"$alwaysTrue": 1}`, 3},
		{`{"$alwaysFalse": 1}`, 0},
		{`{"$alwaysTrue": 1.0}`, 3},
		{`{"$alwaysTrue": {"$numberLong": "1"}}`, 3},
		{`{"$or": [{"a": 1}, {"$alwaysFalse": 1}]}`, 1},
		{`{"$or": [{"a": 1}, {"$alwaysTrue": 1}]}`, 3},
		{`{"$and": [{"a": {"$exists": true}}, {"$alwaysTrue": 1}]}`, 2},
		{`{"$nor": [{"$alwaysFalse": 1}]}`, 3},
		{`{"a": 2, "$alwaysFalse": 1}`, 0},
	} {
		got := firstBatch(t, mustRun(t, db, "test", `{"find": "c", "filter": `+c.filter+`}`))
		if len(got) != c.want {
			t.Errorf("find %s: %d documents, want %d", c.filter, len(got), c.want)
		}
		if n := field(mustRun(t, db, "test", `{"count": "c", "query": `+c.filter+`}`), "n"); n != int32(c.want) {
			t.Errorf("count %s = %v, want %d", c.filter, n, c.want)
		}
	}
	for _, c := range []struct{ filter, frag string }{
		{`{"$alwaysTrue": 2}`, "$alwaysTrue must be an integer value of 1"},
		{`{"$alwaysFalse": 0}`, "$alwaysFalse must be an integer value of 1"},
		{`{"$alwaysTrue": 1.5}`, "Expected an integer"},
		{`{"$alwaysTrue": "1"}`, "Expected a number"},
		{`{"$alwaysTrue": {"$numberDouble": "NaN"}}`, "NaN"},
	} {
		wantCode(t, db, "test", `{"find": "c", "filter": `+c.filter+`}`, document.CodeFailedToParse, c.frag)
	}
	// A delete with $alwaysFalse deletes nothing; with $alwaysTrue, all.
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"$alwaysFalse": 1}, "limit": 0}]}`)
	if n := len(findAll(t, db, "test", "c", bson.D{})); n != 3 {
		t.Fatalf("$alwaysFalse deleted: %d left", n)
	}
	mustRun(t, db, "test", `{"delete": "c", "deletes": [{"q": {"$alwaysTrue": 1}, "limit": 0}]}`)
	if n := len(findAll(t, db, "test", "c", bson.D{})); n != 0 {
		t.Errorf("$alwaysTrue left %d", n)
	}
}

// TestSampleRate: {$sampleRate: r} keeps each document with probability
// r; 0 keeps none and 1 all; anything but a number in [0, 1] is 2
// BadValue, and only the top level takes it.
func TestSampleRate(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	docs := make([]string, 2000)
	for i := range docs {
		docs[i] = fmt.Sprintf(`{"_id": %d}`, i)
	}
	loadCorpus(t, db, "test", "c", docs)
	count := func(filter string) int {
		return int(field(mustRun(t, db, "test", `{"count": "c", "query": `+filter+`}`), "n").(int32))
	}
	if n := count(`{"$sampleRate": 0}`); n != 0 {
		t.Errorf("$sampleRate 0 kept %d", n)
	}
	if n := count(`{"$sampleRate": 1}`); n != 2000 {
		t.Errorf("$sampleRate 1 kept %d", n)
	}
	// 2000 draws at 0.25: 500 expected, standard deviation about 19;
	// the bounds are more than ten deviations away.
	if n := count(`{"$sampleRate": 0.25}`); n < 300 || n > 700 {
		t.Errorf("$sampleRate 0.25 kept %d of 2000", n)
	}
	// Each evaluation draws anew: an aggregation's $match too.
	got := firstBatch(t, mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$match": {"$sampleRate": 0.5}}, {"$count": "n"}], "cursor": {}}`))
	if n := field(got[0], "n").(int32); n < 700 || n > 1300 {
		t.Errorf("$match $sampleRate 0.5 kept %d of 2000", n)
	}
	for _, c := range []struct{ filter, frag string }{
		{`{"$sampleRate": "0.5"}`, "argument to $sampleRate must be a numeric type"},
		{`{"$sampleRate": 1.5}`, "numeric argument to $sampleRate must be in [0, 1]"},
		{`{"$sampleRate": -0.1}`, "must be in [0, 1]"},
		{`{"$sampleRate": {"$numberDouble": "NaN"}}`, "must be in [0, 1]"},
		{`{"a": {"$elemMatch": {"$sampleRate": 0.5}}}`, "$sampleRate"},
	} {
		wantCode(t, db, "test", `{"find": "c", "filter": `+c.filter+`}`, document.CodeBadValue, c.frag)
	}
}

// TestRand: {$rand: {}} (or []) is a double in [0, 1), drawn anew for
// each document and never folded as a constant; arguments are 3040501,
// a non-object 10065; a validator may not draw one (3040500).
func TestRand(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 1}`, `{"_id": 2}`, `{"_id": 3}`, `{"_id": 4}`})
	got := firstBatch(t, mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$project": {"r": {"$rand": {}}, "q": {"$rand": []}}}], "cursor": {}}`))
	seen := map[float64]bool{}
	for _, d := range got {
		for _, k := range []string{"r", "q"} {
			r, ok := field(d, k).(float64)
			if !ok || r < 0 || r >= 1 {
				t.Fatalf("$rand = %v", field(d, k))
			}
			seen[r] = true
		}
	}
	if len(seen) != 8 {
		t.Errorf("$rand gave %d distinct values of 8: %v", len(seen), got)
	}
	// A partitionBy of $rand is not a constant (which would partition
	// nothing): each document is a partition of its own.
	got = firstBatch(t, mustRun(t, db, "test", `{"aggregate": "c", "pipeline": [{"$setWindowFields": {"partitionBy": {"$rand": {}}, "output": {"n": {"$count": {}}}}}, {"$group": {"_id": "$n", "k": {"$sum": 1}}}], "cursor": {}}`))
	sameValue(t, "partitions of $rand", got, `[{"_id": 1, "k": 4}]`)
	// In find: a $expr and a projection.
	got = firstBatch(t, mustRun(t, db, "test", `{"find": "c", "filter": {"$expr": {"$lt": [{"$rand": {}}, 1]}}, "projection": {"r": {"$rand": {}}}}`))
	if len(got) != 4 {
		t.Errorf("find with $rand: %v", got)
	}
	wantCode(t, db, "test", `{"aggregate": "c", "pipeline": [{"$project": {"r": {"$rand": {"seed": 1}}}}], "cursor": {}}`, 3040501, "$rand does not currently accept arguments")
	wantCode(t, db, "test", `{"aggregate": "c", "pipeline": [{"$project": {"r": {"$rand": [1]}}}], "cursor": {}}`, 3040501, "$rand does not currently accept arguments")
	wantCode(t, db, "test", `{"aggregate": "c", "pipeline": [{"$project": {"r": {"$rand": 1}}}], "cursor": {}}`, 10065, "invalid parameter: expected an object ($rand)")
	wantCode(t, db, "test", `{"create": "v", "validator": {"$expr": {"$lt": [{"$rand": {}}, 0.5]}}}`, 3040500, "$rand not allowed inside collection validators")
	wantCode(t, db, "test", `{"create": "v", "validator": {"$sampleRate": 0.5}}`, 3040500, "$rand not allowed inside collection validators")
	mustRun(t, db, "test", `{"create": "v", "validator": {"$alwaysTrue": 1}}`)
	mustRun(t, db, "test", `{"insert": "v", "documents": [{"_id": 1}]}`)
}
