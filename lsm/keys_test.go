package lsm

import (
	"bytes"
	"cmp"
	"errors"
	"math"
	"math/rand/v2"
	"testing"
)

// randID returns ids of every length of the compact form, and the
// boundaries between lengths, more often than uniform draws would.
func randID(r *rand.Rand) uint64 {
	switch r.IntN(4) {
	case 0:
		return uint64(r.IntN(300))
	case 1:
		b := uint(r.IntN(64))
		return uint64(1)<<b + uint64(r.IntN(3)) - 1
	case 2:
		return r.Uint64() >> uint(r.IntN(64))
	}
	return math.MaxUint64 - uint64(r.IntN(3))
}

// TestCompactIDOrderAndPrefixFree checks, over random ids, that the
// compact form sorts as the ids do, is never a proper prefix of another
// id's form, and decodes back; and that record and index keys keep both.
func TestCompactIDOrderAndPrefixFree(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(17, 2026))
	for range 20000 {
		a, b := randID(r), randID(r)
		ea, eb := AppendID(nil, a), AppendID(nil, b)
		if sign(bytes.Compare(ea, eb)) != cmp.Compare(a, b) {
			t.Fatalf("ids %d, %d: forms %x, %x sort wrongly", a, b, ea, eb)
		}
		if a != b && (bytes.HasPrefix(ea, eb) || bytes.HasPrefix(eb, ea)) {
			t.Fatalf("ids %d, %d: form %x prefixes %x", a, b, ea, eb)
		}
		if v, n, ok := readID(ea); !ok || v != a || n != len(ea) || n != idLen(a) {
			t.Fatalf("readID(%x) = %d, %d, %v; want %d", ea, v, n, ok, a)
		}
		c1, c2, r1, r2 := randID(r), randID(r), randID(r), randID(r)
		k1, k2 := RecordKey(c1, r1), RecordKey(c2, r2)
		want := cmp.Compare(c1, c2)
		if want == 0 {
			want = cmp.Compare(r1, r2)
		}
		if sign(bytes.Compare(k1, k2)) != want {
			t.Fatalf("record keys (%d,%d) and (%d,%d) sort wrongly", c1, r1, c2, r2)
		}
		if c1 != c2 && bytes.HasPrefix(k1, RecordPrefix(c2)) {
			t.Fatalf("record key of collection %d under collection %d's prefix", c1, c2)
		}
		// Index entries with one keystring sort by record id; entries of
		// different indexes never share a prefix.
		ks := AppendKey(nil, int64(r.IntN(3)), false)
		i1, i2 := IndexKey(c1, a, ks, r1), IndexKey(c1, a, ks, r2)
		if sign(bytes.Compare(i1, i2)) != cmp.Compare(r1, r2) {
			t.Fatalf("index entries for rids %d, %d sort wrongly: %x %x", r1, r2, i1, i2)
		}
		if a != b && bytes.HasPrefix(i1, IndexPrefix(c1, b)) {
			t.Fatalf("entry of index %d under index %d's prefix", a, b)
		}
		if c, x, gks, rid, ok := DecodeIndexKey(i1); !ok || c != c1 || x != a || rid != r1 || !bytes.Equal(gks, ks) {
			t.Fatalf("DecodeIndexKey(%x) = %d %d %x %d %v", i1, c, x, gks, rid, ok)
		}
		if rid, ok := IndexKeyRecordID(i1, len(IndexPrefix(c1, a))+len(ks)); !ok || rid != r1 {
			t.Fatalf("IndexKeyRecordID(%x) = %d %v", i1, rid, ok)
		}
	}
}

func TestCompactKeyRejects(t *testing.T) {
	t.Parallel()
	for _, k := range [][]byte{
		nil,
		{TagIndex},
		{TagIndex, 1, 1, 0},                // record id length 0
		{TagIndex, 1, 1, 5, 10},            // length beyond the key
		{TagIndex, 1, 1, 0xf8, 0x05, 2},    // non-canonical one-byte id
		{TagIndex, 1, 1, 0xf9, 0x00, 1, 3}, // leading zero
		{TagIndex, 0xff, 1},                // truncated collection id
		RecordKey(1, 2),
	} {
		if _, _, ok := SplitIndexKey(k); ok {
			t.Errorf("SplitIndexKey(%x) accepted", k)
		}
		if _, _, _, _, ok := DecodeIndexKey(k); ok {
			t.Errorf("DecodeIndexKey(%x) accepted", k)
		}
	}
	for _, k := range [][]byte{nil, {TagRecord, 1}, {TagRecord, 1, 2, 3}, {TagRecord, 0xf8, 1, 2}, IndexKey(1, 2, nil, 3)} {
		if _, _, ok := DecodeRecordKey(k); ok {
			t.Errorf("DecodeRecordKey(%x) accepted", k)
		}
	}
	// A longer keystring sharing the prefix is not a whole suffix.
	pre := append(IndexPrefix(1, 2), AppendKey(nil, "a", false)...)
	long := IndexKey(1, 2, AppendKey(nil, "ab", false), 7)
	if _, ok := IndexKeyRecordID(long, len(pre)); ok {
		t.Errorf("IndexKeyRecordID took a longer keystring's entry")
	}
	if n := len(RecordKey(1, 200000)); n != 6 {
		t.Errorf("RecordKey(1, 200000) is %d bytes, want 6 (tag, 1, 3 bytes and their length)", n)
	}
}

// writeV1 writes a small store of layout 1: records, entries of two
// indexes and an opaque index (id 0) whose suffix is not a record id.
func writeV1(t *testing.T, s *Store, n int) map[string]string {
	t.Helper()
	want := map[string]string{}
	err := s.Update(func(txn *Txn) error {
		for i := range n {
			rid := uint64(i + 1)
			val := []byte{byte(i), byte(i >> 8), 'v'}
			ks := AppendKey(nil, int64(i%7), false)
			for _, kv := range []struct{ old, new []byte }{
				{RecordKeyV1(3, rid), RecordKey(3, rid)},
				{IndexKeyV1(3, 1, ks, rid), IndexKey(3, 1, ks, rid)},
				{IndexKeyV1(3, 1<<40, ks, rid), IndexKey(3, 1<<40, ks, rid)},
				{append(IndexPrefixV1(3, 0), 0, 0, 0, 0, 0, 0, 0, byte(rid), 0, 0, 0, 9), append(IndexPrefix(3, 0), 0, 0, 0, 0, 0, 0, 0, byte(rid), 0, 0, 0, 9)},
			} {
				if err := txn.Set(kv.old, val); err != nil {
					return err
				}
				want[string(kv.new)] = string(val)
			}
		}
		return txn.Set(CatalogKey("db", "c"), []byte("cat"))
	})
	if err != nil {
		t.Fatal(err)
	}
	want[string(CatalogKey("db", "c"))] = "cat"
	want[string(keyLayoutKey)] = string([]byte{KeyLayout})
	return want
}

func checkUpgraded(t *testing.T, s *Store, want map[string]string) {
	t.Helper()
	got := map[string]string{}
	err := s.Scan(IterOptions{}, func(k, v []byte) error {
		got[string(k)] = string(v)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Errorf("store holds %d keys, want %d", len(got), len(want))
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("key %x = %q, want %q", k, got[k], v)
		}
	}
	if up, err := s.CheckKeyLayout(); err != nil || up {
		t.Errorf("CheckKeyLayout after the upgrade = %v, %v", up, err)
	}
}

var errStop = errors.New("stop")

func TestUpgradeKeyLayout(t *testing.T) {
	t.Parallel()
	opaque := func(_, idx uint64) bool { return idx == 0 }
	s := openTest(t, Options{InMemory: true})
	if up, err := s.CheckKeyLayout(); err != nil || up {
		t.Fatalf("empty store: CheckKeyLayout = %v, %v", up, err)
	}
	want := writeV1(t, s, 1500)
	if up, err := s.CheckKeyLayout(); err != nil || !up {
		t.Fatalf("layout-1 store: CheckKeyLayout = %v, %v", up, err)
	}
	// Stop after the second chunk (as a crash would), then resume.
	chunks := 0
	func() {
		defer func() {
			if r := recover(); r != errStop {
				t.Fatalf("recovered %v", r)
			}
		}()
		_ = s.UpgradeKeyLayout(opaque, func() {
			if chunks++; chunks == 2 {
				panic(errStop)
			}
		})
	}()
	if up, err := s.CheckKeyLayout(); err != nil || !up {
		t.Fatalf("half-upgraded store: CheckKeyLayout = %v, %v", up, err)
	}
	if err := s.UpgradeKeyLayout(opaque, nil); err != nil {
		t.Fatal(err)
	}
	checkUpgraded(t, s, want)
}

func TestKeyLayoutMark(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{InMemory: true})
	if err := s.MarkKeyLayout(); err != nil {
		t.Fatal(err)
	}
	if up, err := s.CheckKeyLayout(); err != nil || up {
		t.Fatalf("marked store: CheckKeyLayout = %v, %v", up, err)
	}
	if err := s.Update(func(txn *Txn) error { return txn.Set(keyLayoutKey, []byte{KeyLayout + 1}) }); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CheckKeyLayout(); !errors.Is(err, ErrKeyLayout) {
		t.Fatalf("later layout: CheckKeyLayout err = %v, want ErrKeyLayout", err)
	}
	// A malformed key of layout 1 is reported, not skipped or lost.
	s2 := openTest(t, Options{InMemory: true})
	if err := s2.Update(func(txn *Txn) error { return txn.Set([]byte{tagRecordV1, 1, 2}, []byte("x")) }); err != nil {
		t.Fatal(err)
	}
	if err := s2.UpgradeKeyLayout(nil, nil); !errors.Is(err, ErrKeyLayout) {
		t.Fatalf("malformed key: err = %v", err)
	}
	var v []byte
	if err := s2.View(func(txn *Txn) (err error) { v, err = txn.Get([]byte{tagRecordV1, 1, 2}); return err }); err != nil || string(v) != "x" {
		t.Fatalf("malformed key lost: %q %v", v, err)
	}
}

// FuzzKeyDecode checks that the key decoders never panic, and that what
// they accept re-encodes to the same key.
func FuzzKeyDecode(f *testing.F) {
	f.Add(RecordKey(1, 2))
	f.Add(IndexKey(3, 1<<40, AppendKey(nil, "x", false), math.MaxUint64))
	f.Add([]byte{TagIndex, 0xff, 1, 2, 3})
	f.Fuzz(func(t *testing.T, k []byte) {
		if c, r, ok := DecodeRecordKey(k); ok && !bytes.Equal(RecordKey(c, r), k) {
			t.Fatalf("DecodeRecordKey(%x) = %d, %d, which encode as %x", k, c, r, RecordKey(c, r))
		}
		if c, i, ks, r, ok := DecodeIndexKey(k); ok && !bytes.Equal(IndexKey(c, i, ks, r), k) {
			t.Fatalf("DecodeIndexKey(%x) does not re-encode", k)
		}
		if ks, r, ok := SplitIndexKey(k); ok {
			if _, _, ks2, r2, ok2 := DecodeIndexKey(k); !ok2 || r2 != r || !bytes.Equal(ks, ks2) {
				t.Fatalf("SplitIndexKey and DecodeIndexKey disagree on %x", k)
			}
		}
		_, _, _, _ = IndexKeyIDs(k)
		for n := range len(k) + 1 {
			_, _ = IndexKeyRecordID(k, n)
		}
	})
}
