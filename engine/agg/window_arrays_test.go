package agg

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

const bookDocs = `[
	{"_id": 0, "author": "Hana", "publisher": "Pub1", "books": ["Hana Book 0", "Hana Book 1"]},
	{"_id": 1, "author": "Militsa", "publisher": "Pub1", "books": ["Militsa Book 0"]},
	{"_id": 2, "author": "Ben", "publisher": "Pub2", "books": ["Ben Book 0", "Ben Book 1", "Ben Book 2"]},
	{"_id": 3, "author": "Adrian", "publisher": "Pub1", "books": ["Adrian Book 0"]}
]`

const setDocs = `[
	{"_id": 0, "notAnArray": "a", "vals": [1, 2, 3]},
	{"_id": 1, "notAnArray": "a", "vals": [2, 3, 4]},
	{"_id": 2, "notAnArray": "a", "vals": [2, 3, 4]},
	{"_id": 3, "notAnArray": "a", "vals": [5, 6]},
	{"_id": 4, "notAnArray": "a", "vals": []}
]`

// TestSetWindowFieldsArrays checks $concatArrays and $setUnion as window
// functions with the values of jstests/aggregation/sources/
// setWindowFields/concat_arrays.js and set_union.js, over growing,
// sliding and range windows.
func TestSetWindowFieldsArrays(t *testing.T) {
	t.Parallel()
	cases := []windowCase{
		{"concatArrays over the partition keeps the order (concat_arrays.js)", bookDocs,
			`[{"$match": {"_id": {"$in": [0, 1, 2]}}}, {"$setWindowFields": {"partitionBy": "$publisher", "sortBy": {"_id": 1}, "output": {"booksFromPublisher": {"$concatArrays": "$books"}}}}, {"$sort": {"_id": 1}}, {"$project": {"booksFromPublisher": 1}}]`,
			`[{"_id": 0, "booksFromPublisher": ["Hana Book 0", "Hana Book 1", "Militsa Book 0"]},
			  {"_id": 1, "booksFromPublisher": ["Hana Book 0", "Hana Book 1", "Militsa Book 0"]},
			  {"_id": 2, "booksFromPublisher": ["Ben Book 0", "Ben Book 1", "Ben Book 2"]}]`},
		{"concatArrays over a sliding window (concat_arrays.js)", bookDocs,
			`[{"$setWindowFields": {"partitionBy": "$publisher", "sortBy": {"_id": 1}, "output": {"adjacentBooksFromPublisher": {"$concatArrays": "$books", "window": {"documents": [-1, 0]}}}}}, {"$sort": {"_id": 1}}, {"$project": {"adjacentBooksFromPublisher": 1}}]`,
			`[{"_id": 0, "adjacentBooksFromPublisher": ["Hana Book 0", "Hana Book 1"]},
			  {"_id": 1, "adjacentBooksFromPublisher": ["Hana Book 0", "Hana Book 1", "Militsa Book 0"]},
			  {"_id": 2, "adjacentBooksFromPublisher": ["Ben Book 0", "Ben Book 1", "Ben Book 2"]},
			  {"_id": 3, "adjacentBooksFromPublisher": ["Militsa Book 0", "Adrian Book 0"]}]`},
		{"setUnion over the partition, once each (set_union.js)", setDocs,
			`[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"v": {"$setUnion": "$vals"}}}}, {"$project": {"v": 1}}]`,
			`[{"_id": 0, "v": [1, 2, 3, 4, 5, 6]}, {"_id": 1, "v": [1, 2, 3, 4, 5, 6]}, {"_id": 2, "v": [1, 2, 3, 4, 5, 6]}, {"_id": 3, "v": [1, 2, 3, 4, 5, 6]}, {"_id": 4, "v": [1, 2, 3, 4, 5, 6]}]`},
		{"setUnion over a sliding window: a value twice leaves once (set_union.js)", setDocs,
			`[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": {"v": {"$setUnion": "$vals", "window": {"documents": [-1, 0]}}}}}, {"$project": {"v": 1}}]`,
			`[{"_id": 0, "v": [1, 2, 3]}, {"_id": 1, "v": [1, 2, 3, 4]}, {"_id": 2, "v": [2, 3, 4]}, {"_id": 3, "v": [2, 3, 4, 5, 6]}, {"_id": 4, "v": [5, 6]}]`},
		{"setUnion in BSON order, 1 and 1.0 alike; missing skipped; range windows",
			`[{"_id": 1, "t": 1, "a": ["b", 2]}, {"_id": 2, "t": 2}, {"_id": 3, "t": 4, "a": [1, 2.0, "a"]}]`,
			`[{"$setWindowFields": {"sortBy": {"t": 1}, "output": {"u": {"$setUnion": "$a", "window": {"range": ["unbounded", "current"]}}, "c": {"$concatArrays": "$a", "window": {"range": [-2, 0]}}, "e": {"$concatArrays": "$a", "window": {"range": [1, 1]}}}}}, {"$project": {"u": 1, "c": 1, "e": 1}}]`,
			`[{"_id": 1, "u": [2, "b"], "c": ["b", 2], "e": []}, {"_id": 2, "u": [2, "b"], "c": ["b", 2], "e": []}, {"_id": 3, "u": [1, 2, "a", "b"], "c": [1, 2.0, "a"], "e": []}]`},
	}
	runWindowCases(t, cases)
}

// TestSetWindowFieldsArraysRefusals checks that an input that is not an
// array is 14, null included, in growing and sliding windows, and the
// shape's refusals.
func TestSetWindowFieldsArraysRefusals(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name, output string
		code         int
	}{
		{"concatArrays of a string (concat_arrays.js)", `{"willFail": {"$concatArrays": "$notAnArray"}}`, 14},
		{"setUnion of a string (set_union.js)", `{"willFail": {"$setUnion": "$notAnArray"}}`, 14},
		{"concatArrays of null, sliding", `{"o": {"$concatArrays": null, "window": {"documents": [-1, 0]}}}`, 14},
		{"setUnion of a number, sliding", `{"o": {"$setUnion": 1, "window": {"documents": [0, 1]}}}`, 14},
		{"unknown argument", `{"o": {"$setUnion": "$vals", "x": 1}}`, 9},
		{"two functions", `{"o": {"$setUnion": "$vals", "$concatArrays": "$vals"}}`, 9},
		{"a window that is no window", `{"o": {"$concatArrays": "$vals", "window": {"rows": 1}}}`, 9},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			p := `[{"$setWindowFields": {"sortBy": {"_id": 1}, "output": ` + c.output + `}}]`
			if _, err := run(t, setDocs, p, Options{}); codeOf(err) != c.code {
				t.Errorf("%s: %v, want code %d", p, err, c.code)
			}
		})
	}
}

// TestSetWindowFieldsArraysMemory checks the bounds: one window's
// arrays past 100 MiB are 146, what the stage holds past the pipeline's
// limit 292.
func TestSetWindowFieldsArraysMemory(t *testing.T) {
	t.Parallel()
	if _, err := run(t, setDocs, `[{"$setWindowFields": {"output": {"o": {"$concatArrays": "$vals"}}}}]`, Options{MaxMemoryBytes: 500}); codeOf(err) != 292 {
		t.Errorf("inputs over the stage's limit: %v, want 292", err)
	}
	big := strings.Repeat("x", 1<<20)
	for _, fn := range []string{
		`{"$concatArrays": "$a", "window": {"documents": ["unbounded", "current"]}}`,
		`{"$setUnion": "$a", "window": {"documents": [-200, 0]}}`,
	} {
		// A distinct string for each document (for $setUnion), each
		// sharing big's bytes.
		err := runWindowOver(t, fn, 120, func(i int32) bson.D {
			return bson.D{{Key: "i", Value: i}, {Key: "a", Value: bson.A{big[i:]}}}
		})
		if codeOf(err) != 146 {
			t.Errorf("%s over 120 MiB: got %v, want 146", fn, err)
		}
	}
}
