package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// A find's min and max bound the hinted index (inclusive, exclusive),
// and returnKey returns the index keys: options ttlkv used to take and
// ignore, answering with every document.
func TestFindMinMaxReturnKey(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "mm", []string{`{"_id": 1, "a": 5, "b": "x"}`, `{"_id": 2, "a": 7, "b": "y"}`, `{"_id": 3, "a": 9, "b": "z"}`, `{"_id": 4, "a": 9, "b": "a"}`})
	mustRun(t, db, "test", `{"createIndexes": "mm", "indexes": [{"key": {"a": 1}, "name": "a_1"}, {"key": {"a": -1, "b": 1}, "name": "a_-1_b_1"}]}`)
	for _, tc := range []struct{ cmd, want string }{
		{`{"find": "mm", "filter": {}, "min": {"a": 6}, "max": {"a": 9}, "hint": "a_1"}`, `[ { _id: 2, a: 7, b: "y" } ]`},
		{`{"find": "mm", "filter": {}, "min": {"a": 7}, "hint": {"a": 1}}`, `[ { _id: 2, a: 7, b: "y" }, { _id: 3, a: 9, b: "z" }, { _id: 4, a: 9, b: "a" } ]`},
		{`{"find": "mm", "filter": {"b": {"$ne": "y"}}, "max": {"a": 9}, "hint": "a_1"}`, `[ { _id: 1, a: 5, b: "x" } ]`},
		// In the index's order: a descending, then b.
		{`{"find": "mm", "filter": {}, "min": {"a": 9, "b": "b"}, "max": {"a": 5, "b": "x"}, "hint": "a_-1_b_1"}`, `[ { _id: 3, a: 9, b: "z" }, { _id: 2, a: 7, b: "y" } ]`},
		{`{"find": "mm", "filter": {"a": {"$gt": 6}}, "projection": {"b": 1}, "returnKey": true, "hint": "a_1"}`, `[ { a: 7 }, { a: 9 }, { a: 9 } ]`},
		{`{"find": "mm", "filter": {"b": "x"}, "returnKey": true, "hint": {"$natural": 1}}`, `[ {} ]`},
	} {
		if got := fmtValue(firstBatch(t, mustRun(t, db, "test", tc.cmd))); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.cmd, got, tc.want)
		}
	}
	wantCode(t, db, "test", `{"find": "mm", "filter": {}, "min": {"a": 6}}`, 51173, "a hint of which index to use must be provided")
	wantCode(t, db, "test", `{"find": "mm", "filter": {}, "min": {"b": 6}, "hint": "a_1"}`, 51174, "not equivalent to min/max")
	wantCode(t, db, "test", `{"find": "mm", "filter": {}, "max": {"a": 6}, "hint": {"$natural": 1}}`, document.CodeNoQueryExecutionPlans, "")
}

// showRecordId adds $recordId after the projection, through a sort in
// memory too; the field that carries it comes out nowhere else.
func TestFindShowRecordID(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "ri", []string{`{"_id": 1, "a": 5}`, `{"_id": 2, "a": 3}`})
	for _, cmd := range []string{
		`{"find": "ri", "filter": {}, "showRecordId": true}`,
		`{"find": "ri", "filter": {"a": {"$gt": 0}}, "sort": {"a": 1}, "projection": {"a": 1, "_id": 0}, "showRecordId": true}`,
	} {
		docs := firstBatch(t, mustRun(t, db, "test", cmd))
		if len(docs) != 2 {
			t.Fatalf("%s: %v", cmd, docs)
		}
		for _, d := range docs {
			last := d[len(d)-1]
			if last.Key != "$recordId" {
				t.Errorf("%s: %v has no $recordId last", cmd, fmtValue(d))
			}
			if _, ok := last.Value.(int64); !ok {
				t.Errorf("%s: $recordId %T", cmd, last.Value)
			}
			for _, e := range d {
				if e.Key == recordIDField {
					t.Errorf("%s: the carrier came out: %v", cmd, d)
				}
			}
		}
	}
	if got := fmtValue(firstBatch(t, mustRun(t, db, "test", `{"find": "ri", "filter": {}, "sort": {"a": 1}}`))); got != `[ { _id: 2, a: 3 }, { _id: 1, a: 5 } ]` {
		t.Errorf("without showRecordId: %s", got)
	}
}

// returnKey returns the key the scan read each document by: for an
// array, the element the bounds matched, not the document's first.
func TestFindReturnKeyMultikey(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "rk", []string{`{"_id": 1, "tags": ["a", "b"]}`, `{"_id": 2, "it": [{"b": 1}, {"c": 2}]}`})
	mustRun(t, db, "test", `{"createIndexes": "rk", "indexes": [{"key": {"tags": 1}, "name": "tags"}, {"key": {"it.b": 1, "it.c": 1}, "name": "bc"}]}`)
	if got := fmtValue(firstBatch(t, mustRun(t, db, "test", `{"find": "rk", "filter": {"tags": "b"}, "returnKey": true}`))); got != `[ { tags: "b" } ]` {
		t.Errorf("tags b: %s", got)
	}
	if got := fmtValue(firstBatch(t, mustRun(t, db, "test", `{"find": "rk", "filter": {"it.b": 1}, "returnKey": true, "hint": "bc"}`))); got != `[ { it.b: 1, it.c: null } ]` {
		t.Errorf("it.b 1: %s", got)
	}
}
