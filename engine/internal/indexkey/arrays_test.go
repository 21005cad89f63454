package indexkey

import (
	"slices"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The keys of documents with arrays, as MongoDB's key generator makes
// them: the cases of its own unit tests (key pattern, document, the set
// of keys, or 171 for parallel arrays).
func TestOfArraysAsMongod(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		pattern, doc string
		sparse       bool
		want         string // the keys, each an array of values; "171": refused
	}{
		{`{"a": 1, "b": 1}`, `{"a": [1, 2, 3], "b": 2}`, false, `[[1, 2], [2, 2], [3, 2]]`},
		{`{"first": 1, "a": 1}`, `{"first": 5, "a": [1, 2, 3]}`, false, `[[5, 1], [5, 2], [5, 3]]`},
		{`{"a.b": 1}`, `{"a": {"b": [1, 2, 3]}}`, false, `[[1], [2], [3]]`},
		{`{"a": 1, "b": 1}`, `{"a": [1, 2, 3], "b": [1, 2, 3]}`, false, `171`},
		{`{"a.b": 1}`, `{"a": [{"b": 1, "c": 4}, {"b": 2, "c": 4}, {"b": 3, "c": 4}]}`, false, `[[1], [2], [3]]`},
		{`{"a.b.c": 1}`, `{"a": {"b": [{"c": 1}, {"c": 2}]}}`, false, `[[1], [2]]`},
		{`{"a.b": 1, "d": 99}`, `{"a": [{"b": 1, "c": 4}, {"b": 2, "c": 4}], "d": 99}`, false, `[[1, 99], [2, 99]]`},
		{`{"a.b": 1}`, `{"a": [{"foo": 41}, {"b": 1, "c": 4}, {"b": 2, "c": 4}]}`, false, `[[null], [1], [2]]`},
		{`{"a.b": 1}`, `{"a": [{"foo": 41}, {"foo": 41}]}`, false, `[[null]]`},
		{`{"a": 1}`, `{"b": 1}`, false, `[[null]]`},
		{`{"a.b": 1}`, `{"a": [1, 2]}`, false, `[[null]]`},
		{`{"x": 1, "y": 1}`, `{"x": "a"}`, false, `[["a", null]]`},
		{`{"a.b": 1}`, `{"a": [{"b": [2]}]}`, false, `[[2]]`},
		{`{"a.b": 1, "a.c": 1}`, `{"a": [{"b": [1], "c": [2]}]}`, false, `171`},
		{`{"a.b": 1, "a.c": 1}`, `{"a": [{"b": 1}, {"c": 2}]}`, false, `[[null, 2], [1, null]]`},
		{`{"a.b": 1}`, `{"a": [{"b": 1}, {"b": [1, 2, 3]}]}`, false, `[[1], [2], [3]]`},
		{`{"a.b": 1}`, `{"a": [{"b": [1, 2]}, {"b": [2, 3]}]}`, false, `[[1], [2], [3]]`},
		{`{"a": 1}`, `{"a": []}`, false, `[[{"$undefined": true}]]`},
		{`{"a": 1, "b": 1}`, `{"a": 1, "b": []}`, false, `[[1, {"$undefined": true}]]`},
		{`{"a.b": 1}`, `{"a": []}`, false, `[[null]]`},
		{`{"a.b": 1, "a.c": 1}`, `{"a": []}`, false, `[[null, null]]`},
		{`{"a": 1, "a.b": 1}`, `{"a": []}`, false, `[[{"$undefined": true}, null]]`},
		{`{"a": 1, "a.b": 1}`, `{"a": [{"b": 1}]}`, false, `[[{"b": 1}, 1]]`},
		{`{"a": 1, "a.b": 1}`, `{"a": [{"b": []}]}`, false, `[[{"b": []}, {"$undefined": true}]]`},
		{`{"a.b": 1, "a": 1}`, `{"a": []}`, false, `[[null, {"$undefined": true}]]`},
		{`{"a.b": 1, "a": 1}`, `{"a": []}`, true, `[[null, {"$undefined": true}]]`},
		{`{"a.b": 1}`, `{"a": 1}`, true, `[]`},
		{`{"a.b": 1}`, `{"a": []}`, true, `[]`},
		{`{"a.b": 1}`, `{"a": [{"c": 1}]}`, true, `[]`},
		{`{"z": 1, "a.b": 1}`, `{"a": 1}`, true, `[]`},
		{`{"z": 1, "a.b": 1}`, `{"a": [{"c": 1}]}`, true, `[]`},
		{`{"a.b": 1}`, `{"a": [1]}`, true, `[]`},
		{`{"a.b": 1}`, `{"a": [1, {"b": 1}]}`, true, `[[1]]`},
		{`{"a.a": 1, "b.a": 1}`, `{"a": {"a": [1]}, "b": {"a": [1]}}`, false, `171`},
		{`{"b.a": 1, "a": 1}`, `{"b": {"a": [1]}, "a": [1, 2]}`, false, `171`},
		{`{"a.b.c": 1}`, `{"a": [1, 2, {"b": {"c": [3, 4]}}]}`, false, `[[null], [3], [4]]`},
		{`{"a.b.c": 1, "a.b.d": 1}`, `{"a": [1, 2, {"b": {"c": [3, 4], "d": 5}}]}`, false, `[[null, null], [3, 5], [4, 5]]`},
		{`{"a.b.c.d": 1, "a.g": 1, "a.b.f": 1, "a.b.c": 1, "a.b.e": 1}`,
			`{"a": [1, {"b": [2, {"c": [3, {"d": 1}], "e": 4}, 5, {"f": 6}], "g": 7}]}`, false,
			`[[null, null, null, null, null], [null, 7, null, null, null], [null, 7, null, 3, 4], [null, 7, 6, null, null], [1, 7, null, {"d": 1}, 4]]`},
		{`{"a": 1}`, `{"a": [[2]]}`, false, `[[[2]]]`},
		{`{"a": 1, "b": 1}`, `{"a": [], "b": []}`, false, `171`},
		{`{"a": 1, "b": 1}`, `{"a": [], "b": [1, 2, 3]}`, false, `171`},
		{`{"a.b.c": 1, "a.b.d": 1}`, `{"a": [{"b": [{"c": [1, 2, 3], "d": []}]}]}`, false, `171`},
		{`{"a.b": 1}`, `{"a": [[1, 2, 5]]}`, false, `[[null]]`},
		{`{"a": 1, "a.b": 1}`, `{"a": [1, {"b": [2, 3, 4]}]}`, false, `[[1, null], [{"b": [2, 3, 4]}, 2], [{"b": [2, 3, 4]}, 3], [{"b": [2, 3, 4]}, 4]]`},
		// Positional paths: the element at that position, alone.
		{`{"a.0": 1}`, `{"a": [1]}`, false, `[[1]]`},
		{`{"a.0": 1}`, `{"a": [[1]]}`, false, `[[[1]]]`},
		{`{"a.0": 1}`, `{"a": [[]]}`, false, `[[{"$undefined": true}]]`},
		{`{"a.0": 1}`, `{"a": {"0": 1}}`, false, `[[1]]`},
		{`{"a.0.0": 1}`, `{"a": [[1]]}`, false, `[[1]]`},
		{`{"a.0.0": 1}`, `{"a": [[]]}`, false, `[[null]]`},
		{`{"a.0.0": 1}`, `{"a": []}`, false, `[[null]]`},
		{`{"a.0.0": 1}`, `{"a": [[[]]]}`, false, `[[{"$undefined": true}]]`},
		{`{"a.0.b": 1}`, `{"a": [{"b": 1}]}`, false, `[[1]]`},
		{`{"a.0.b": 1}`, `{"a": [{"b": [1]}]}`, false, `[[1]]`},
		{`{"a.0.b": 1}`, `{"a": [{"b": [[1]]}]}`, false, `[[[1]]]`},
		{`{"a.0.b": 1}`, `{"a": [[{"b": 1}]]}`, false, `[[1]]`},
		{`{"a.0.b": 1}`, `{"a": [[{"b": [1]}]]}`, false, `[[1]]`},
		{`{"a.0.b": 1}`, `{"a": [[{"b": []}]]}`, false, `[[{"$undefined": true}]]`},
		{`{"a.0.b.0": 1}`, `{"a": [{"b": [1]}]}`, false, `[[1]]`},
		{`{"a.2": 1}`, `{"a": [[1, 2, 5]]}`, false, `[[null]]`},
		{`{"a.2": 1}`, `{"a": [[1, 2, 5], [3, 4, 6], [0, 1, 2]]}`, false, `[[[0, 1, 2]]]`},
		{`{"a.b.2": 1}`, `{"a": [{"b": [[1, 2, 5]]}]}`, false, `[[null]]`},
		// A positional field beside an ordinary one keeps each field's rule.
		{`{"a.b": 1, "z.0": 1}`, `{"a": [{"b": 1}, {"c": 2}], "z": [7, 8]}`, false, `[[1, 7], [null, 7]]`},
	} {
		var pattern, doc bson.D
		if err := bson.UnmarshalExtJSON([]byte(tc.pattern), false, &pattern); err != nil {
			t.Fatal(err)
		}
		if err := bson.UnmarshalExtJSON([]byte(tc.doc), false, &doc); err != nil {
			t.Fatal(err)
		}
		ix := &catalog.Index{Key: pattern, Sparse: tc.sparse}
		keys, _, err := Of(ix, doc)
		if tc.want == "171" {
			if document.CodeOf(err) != 171 {
				t.Errorf("%s of %s: %d keys, %v; want 171", tc.pattern, tc.doc, len(keys), err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s of %s: %v", tc.pattern, tc.doc, err)
			continue
		}
		var wantVals bson.D
		if err := bson.UnmarshalExtJSON([]byte(`{"k": `+tc.want+`}`), false, &wantVals); err != nil {
			t.Fatal(err)
		}
		var want []string
		for _, tuple := range wantVals[0].Value.(bson.A) {
			var k []byte
			for _, v := range tuple.(bson.A) {
				k = lsm.AppendKey(k, v, false)
			}
			want = append(want, string(k))
		}
		var got []string
		for _, k := range keys {
			got = append(got, string(k))
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s of %s (sparse %v): %d keys %s, want %s", tc.pattern, tc.doc, tc.sparse, len(keys), strings.Join(decodeAll(keys, len(pattern)), " "), tc.want)
		}
	}
}

// decodeAll renders keys of n ascending fields for a failure message.
func decodeAll(keys [][]byte, n int) []string {
	var out []string
	for _, k := range keys {
		var vals bson.A
		rest := k
		for range n {
			v, next, err := lsm.DecodeKey(rest, false)
			if err != nil {
				break
			}
			vals = append(vals, v)
			rest = next
		}
		b, _ := bson.MarshalExtJSON(bson.D{{Key: "k", Value: vals}}, false, false)
		out = append(out, string(b))
	}
	return out
}

// For documents without arrays, the one-key path and the walker agree:
// missing fields, sparse indexes, hashed fields and collation.
func TestScalarKeyMatchesWalker(t *testing.T) {
	t.Parallel()
	coll := bson.D{{Key: "collation", Value: bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}}}}
	ixs := []*catalog.Index{
		{Key: bson.D{{Key: "a.b", Value: int32(1)}, {Key: "c", Value: int32(-1)}}},
		{Key: bson.D{{Key: "a.b", Value: int32(1)}, {Key: "c", Value: int32(1)}}, Sparse: true},
		{Key: bson.D{{Key: "c", Value: "hashed"}, {Key: "a.b", Value: int32(1)}}},
		{Key: bson.D{{Key: "c", Value: "hashed"}, {Key: "a.b", Value: int32(1)}}, Sparse: true},
		{Key: bson.D{{Key: "a.b", Value: int32(1)}, {Key: "c", Value: int32(1)}}, Extra: coll},
	}
	docs := []string{`{}`, `{"a": 1}`, `{"a": {"b": "Xy"}}`, `{"c": "Q"}`, `{"a": {"b": null}, "c": 2}`, `{"a": {"c": 1}, "c": {"d": 1}}`}
	for _, ix := range ixs {
		fields := Fields(ix.Key)
		for _, js := range docs {
			var d bson.D
			if err := bson.UnmarshalExtJSON([]byte(js), false, &d); err != nil {
				t.Fatal(err)
			}
			k, ok, err := scalarKey(ix, fields, d, ix.Collator())
			if !ok || err != nil {
				t.Fatalf("%v of %s: ok %v, %v", ix.Key, js, ok, err)
			}
			walked, _, err := walkedKeys(ix, fields, d, ix.Collator())
			if err != nil || (k == nil) != (len(walked) == 0) || (k != nil && (len(walked) != 1 || string(walked[0]) != string(k))) {
				t.Errorf("%v of %s: one-key path %x; walker %x, %v", ix.Key, js, k, walked, err)
			}
		}
	}
}
