package indexkey

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestPathValues(t *testing.T) {
	t.Parallel()
	d := bson.D{
		{Key: "a", Value: int32(1)},
		{Key: "e", Value: bson.A{}},
		{Key: "b", Value: bson.A{bson.D{{Key: "c", Value: int32(2)}}, bson.D{{Key: "c", Value: bson.A{int32(3), int32(4)}}}}},
		{Key: "n", Value: bson.D{{Key: "m", Value: "x"}}},
	}
	for _, tc := range []struct {
		path  string
		want  bson.A
		array bool
	}{
		{"a", bson.A{int32(1)}, false},
		{"missing", nil, false},
		{"e", bson.A{bson.Undefined{}}, true},
		{"b.c", bson.A{int32(2), int32(3), int32(4)}, true},
		{"b.1.c", bson.A{int32(3), int32(4)}, true},
		{"n.m", bson.A{"x"}, false},
	} {
		vals, isArr := PathValues(d, tc.path)
		if !document.Equal(bson.A(vals), tc.want) && !(len(vals) == 0 && len(tc.want) == 0) || isArr != tc.array {
			t.Errorf("%s: %v %v, want %v %v", tc.path, vals, isArr, tc.want, tc.array)
		}
	}
}

func TestFields(t *testing.T) {
	t.Parallel()
	dec, _ := bson.ParseDecimal128("-1")
	got := Fields(bson.D{{Key: "a", Value: int32(1)}, {Key: "b", Value: float64(-1)}, {Key: "c", Value: "hashed"}, {Key: "d", Value: dec}})
	want := []Field{{Path: "a"}, {Path: "b", Desc: true}, {Path: "c", Hashed: true}, {Path: "d", Desc: true}}
	if len(got) != len(want) {
		t.Fatalf("%v", got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("field %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func TestOf(t *testing.T) {
	t.Parallel()
	compound := &catalog.Index{Key: bson.D{{Key: "a", Value: int32(1)}, {Key: "t", Value: int32(-1)}}}
	keys, multi, err := Of(compound, bson.D{{Key: "a", Value: int32(5)}, {Key: "t", Value: bson.A{"x", "y", "x"}}})
	if err != nil || !multi || len(keys) != 2 {
		t.Fatalf("multikey: %d keys, %v, %v", len(keys), multi, err)
	}
	want := lsm.AppendKey(lsm.AppendKey(nil, int32(5), false), "x", true)
	if string(keys[0]) != string(want) {
		t.Fatalf("key %x, want %x", keys[0], want)
	}
	_, _, err = Of(compound, bson.D{{Key: "a", Value: bson.A{int32(1)}}, {Key: "t", Value: bson.A{"x"}}})
	if document.CodeOf(err) != 171 {
		t.Fatalf("parallel arrays: %v", err)
	}
	sparse := &catalog.Index{Key: bson.D{{Key: "s", Value: int32(1)}}, Sparse: true}
	if keys, _, err := Of(sparse, bson.D{{Key: "a", Value: int32(1)}}); err != nil || keys != nil {
		t.Fatalf("sparse: %v %v", keys, err)
	}
	f, err := query.ParseFilter(bson.D{{Key: "k", Value: "on"}})
	if err != nil {
		t.Fatal(err)
	}
	partial := &catalog.Index{Key: bson.D{{Key: "a", Value: int32(1)}}, Partial: bson.D{{Key: "k", Value: "on"}}, PartialFilter: f}
	if keys, _, _ := Of(partial, bson.D{{Key: "a", Value: int32(1)}}); keys != nil {
		t.Fatal("partial: a document outside the filter has keys")
	}
	if keys, _, _ := Of(partial, bson.D{{Key: "a", Value: int32(1)}, {Key: "k", Value: "on"}}); len(keys) != 1 {
		t.Fatal("partial: a document inside the filter has no key")
	}
	if v := Value(compound, bson.D{{Key: "t", Value: "z"}}); !document.Equal(v, bson.D{{Key: "a", Value: nil}, {Key: "t", Value: "z"}}) {
		t.Fatalf("Value: %v", v)
	}
}

func TestIDBound(t *testing.T) {
	t.Parallel()
	var b IDBound
	if b.Known(1) {
		t.Fatal("zero bound known")
	}
	b.Set(1, nil)
	if !b.Known(1) || b.Known(2) || !b.Above([]byte("a")) {
		t.Fatal("empty bound")
	}
	b.Raise([]byte("m"))
	b.Raise([]byte("c")) // never lowered
	if b.Above([]byte("d")) || b.Above([]byte("m")) || !b.Above([]byte("n")) {
		t.Fatal("raised bound")
	}
	b.Forget()
	if b.Known(1) {
		t.Fatal("forgotten bound known")
	}
}

// Of's one-field path keys every document as the general code does:
// present, missing, null, arrays (empty, nested), subdocuments,
// strings under a collation, sparse and descending indexes.
func TestOfOneFieldMatchesGeneral(t *testing.T) {
	t.Parallel()
	coll := bson.D{{Key: "collation", Value: bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}}}}
	ixs := []*catalog.Index{
		{Key: bson.D{{Key: "a", Value: int32(1)}}},
		{Key: bson.D{{Key: "a", Value: int32(-1)}}},
		{Key: bson.D{{Key: "a", Value: int32(1)}}, Sparse: true},
		{Key: bson.D{{Key: "a", Value: int32(1)}}, Extra: coll},
		{Key: bson.D{{Key: "a", Value: "hashed"}}},
	}
	if ixs[3].Collator() == nil {
		t.Fatal("the collated index has no collator")
	}
	vals := []any{nil, int32(3), int64(-4), 2.5, "Abc", "abc", bson.A{}, bson.A{int32(1), "x", bson.A{int32(2)}},
		bson.D{{Key: "b", Value: "Q"}}, bson.NewDateTimeFromTime(time.Unix(1e9, 0)), bson.ObjectID{1, 2, 3}, strings.Repeat("long", 20)}
	for _, ix := range ixs {
		for i, v := range append(vals, "missing") {
			d := bson.D{{Key: "_id", Value: int32(i)}, {Key: "a", Value: v}}
			if v == "missing" {
				d = d[:1]
			}
			got, gmk, gerr := Of(ix, d)
			want, wmk, werr := ofFields(ix, d)
			if gmk != wmk || (gerr == nil) != (werr == nil) || len(got) != len(want) {
				t.Fatalf("%v of %v: %d keys, multikey %v, err %v; general %d, %v, %v", ix.Key, d, len(got), gmk, gerr, len(want), wmk, werr)
			}
			for j := range got {
				if !bytes.Equal(got[j], want[j]) {
					t.Fatalf("%v of %v: key %d is %x, general %x", ix.Key, d, j, got[j], want[j])
				}
			}
		}
	}
}
