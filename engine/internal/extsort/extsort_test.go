package extsort

import (
	"errors"
	"math/rand/v2"
	"os"
	"reflect"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func byK(a, b bson.D) int {
	x, y := a[0].Value.(int32), b[0].Value.(int32)
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

func size(d bson.D) int64 { return 100 }

func drainAll(t *testing.T, it *Iter) []bson.D {
	t.Helper()
	var out []bson.D
	for {
		d, err := it.Next()
		if err != nil {
			t.Fatal(err)
		}
		if d == nil {
			return out
		}
		out = append(out, d)
	}
}

// TestSortSpillsAndMerges sorts documents with few distinct keys through
// a budget that makes many runs, with and without a limit: the result is
// the stable sort of the input (equal keys in input order), the runs'
// files are unlinked in Dir and closed at the end, and a small top-k
// writes no run at all.
func TestSortSpillsAndMerges(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(1, 2))
	var in []bson.D
	for i := range 5000 {
		in = append(in, bson.D{{Key: "k", Value: int32(r.IntN(50))}, {Key: "seq", Value: int32(i)}})
	}
	want := slices.Clone(in)
	slices.SortStableFunc(want, byK)
	for _, limit := range []int64{0, 1, 7, 1300, 6000} {
		dir := t.TempDir()
		s := &Sorter{Compare: byK, Size: size, MaxBytes: 100 * 300, Dir: dir, Limit: limit}
		for _, d := range in {
			if err := s.Add(d); err != nil {
				t.Fatal(err)
			}
		}
		// A top-k whose k fit in half the budget needs no run.
		runs, bytes := s.Spilled()
		if small := limit > 0 && limit*100 <= 100*300/2; small != (runs == 0) || (!small && (runs < 5 || bytes == 0)) {
			t.Fatalf("limit %d: %d runs of %d bytes", limit, runs, bytes)
		}
		if ents, _ := os.ReadDir(dir); len(ents) != 0 {
			t.Fatalf("the run file is still linked in %s: %v", dir, ents)
		}
		it, err := s.Sort()
		if err != nil {
			t.Fatal(err)
		}
		got := drainAll(t, it)
		w := want
		if limit > 0 && int64(len(w)) > limit {
			w = w[:limit]
		}
		if !reflect.DeepEqual(got, w) {
			t.Fatalf("limit %d: %d documents, not the stable sort (first %v, want %v)", limit, len(got), got[:min(3, len(got))], w[:min(3, len(w))])
		}
		if s.own != nil && len(s.own.fs.list) != 0 {
			t.Fatalf("limit %d: the run file is still open after the last document", limit)
		}
	}
}

// TestSortInMemory checks a sort that fits: no run, no file.
func TestSortInMemory(t *testing.T) {
	t.Parallel()
	s := &Sorter{Compare: byK, Size: size, MaxBytes: 1 << 20, Dir: t.TempDir()}
	for _, k := range []int32{3, 1, 2, 1} {
		if err := s.Add(bson.D{{Key: "k", Value: k}}); err != nil {
			t.Fatal(err)
		}
	}
	it, err := s.Sort()
	if err != nil {
		t.Fatal(err)
	}
	got := drainAll(t, it)
	if runs, _ := s.Spilled(); runs != 0 || s.own != nil || len(got) != 4 || got[0][0].Value != int32(1) || got[3][0].Value != int32(3) {
		t.Fatalf("got %v with %d runs", got, runs)
	}
}

// TestNoSpill checks that a Sorter that may not spill refuses past its
// budget, and that one without a budget never spills.
func TestNoSpill(t *testing.T) {
	t.Parallel()
	s := &Sorter{Compare: byK, Size: size, MaxBytes: 250, NoSpill: true}
	var err error
	for i := range 3 {
		if err = s.Add(bson.D{{Key: "k", Value: int32(i)}}); err != nil {
			break
		}
	}
	if !errors.Is(err, ErrMemory) {
		t.Fatalf("past the budget: %v, want ErrMemory", err)
	}
	s = &Sorter{Compare: byK, Size: size}
	for i := range 100 {
		if err := s.Add(bson.D{{Key: "k", Value: int32(i)}}); err != nil {
			t.Fatal(err)
		}
	}
	if runs, _ := s.Spilled(); runs != 0 {
		t.Fatalf("no budget: %d runs", runs)
	}
}

// TestSpillKeepsValues checks that documents of every BSON type come back
// from a run as they went in.
func TestSpillKeepsValues(t *testing.T) {
	t.Parallel()
	dec, _ := bson.ParseDecimal128("1.50")
	oid := bson.NewObjectIDFromTimestamp(time.Unix(1700000000, 0))
	doc := func(k int32) bson.D {
		return bson.D{{Key: "k", Value: k}, {Key: "i64", Value: int64(1) << 40}, {Key: "f", Value: 2.5}, {Key: "dec", Value: dec},
			{Key: "s", Value: "é"}, {Key: "t", Value: true}, {Key: "n", Value: nil}, {Key: "u", Value: bson.Undefined{}},
			{Key: "date", Value: bson.DateTime(1700000000123)}, {Key: "oid", Value: oid}, {Key: "bin", Value: bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}},
			{Key: "re", Value: bson.Regex{Pattern: "^a", Options: "i"}}, {Key: "ts", Value: bson.Timestamp{T: 5, I: 6}},
			{Key: "min", Value: bson.MinKey{}}, {Key: "max", Value: bson.MaxKey{}}, {Key: "js", Value: bson.JavaScript("x")},
			{Key: "sub", Value: bson.D{{Key: "a", Value: bson.A{int32(1), "x", bson.D{{Key: "b", Value: int64(2)}}, bson.A{}}}}},
			// A field the engine adds, whose name BSON cannot encode (a
			// $text query's score), comes back last, as it was.
			{Key: "\x00textScore", Value: 1.25}}
	}
	s := &Sorter{Compare: byK, Size: size, MaxBytes: 150, Dir: t.TempDir()}
	for _, k := range []int32{2, 1, 0} {
		if err := s.Add(doc(k)); err != nil {
			t.Fatal(err)
		}
	}
	if runs, _ := s.Spilled(); runs == 0 {
		t.Fatal("nothing spilled")
	}
	it, err := s.Sort()
	if err != nil {
		t.Fatal(err)
	}
	got := drainAll(t, it)
	for i, d := range got {
		if want := doc(int32(i)); !reflect.DeepEqual(d, want) {
			t.Fatalf("document %d came back as\n%#v\nwant\n%#v", i, d, want)
		}
	}
}

// TestCloseUnread checks that a sort closed before it is read to its end
// closes its files, and that Next then ends.
func TestCloseUnread(t *testing.T) {
	t.Parallel()
	s := &Sorter{Compare: byK, Size: size, MaxBytes: 300, Dir: t.TempDir()}
	for i := range 20 {
		if err := s.Add(bson.D{{Key: "k", Value: int32(i % 3)}}); err != nil {
			t.Fatal(err)
		}
	}
	it, err := s.Sort()
	if err != nil {
		t.Fatal(err)
	}
	if d, err := it.Next(); err != nil || d == nil {
		t.Fatalf("first: %v %v", d, err)
	}
	it.Close()
	if len(s.own.fs.list) != 0 {
		t.Fatal("files still open after Close")
	}
	if d, err := it.Next(); d != nil || err != nil {
		t.Fatalf("after Close: %v %v", d, err)
	}
}
