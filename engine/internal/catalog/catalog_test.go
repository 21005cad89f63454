package catalog

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func sampleColl() *Coll {
	return &Coll{
		ID: 7, DB: "test", Name: "c", Kind: KindCapped,
		Options:     bson.D{{Key: "capped", Value: true}, {Key: "size", Value: int64(4096)}},
		NextIndexID: 3,
		Extra:       bson.D{{Key: "file", Value: "7.ring"}},
		Indexes: []*Index{
			{ID: 1, Name: "_id_", Key: bson.D{{Key: "_id", Value: int32(1)}}, Unique: true},
			{ID: 2, Name: "t_1", Key: bson.D{{Key: "t", Value: int32(1)}}, TTL: true, Expire: 60,
				Partial: bson.D{{Key: "s", Value: "A"}},
				Extra:   bson.D{{Key: "collation", Value: bson.D{{Key: "locale", Value: "en"}, {Key: "strength", Value: int32(2)}}}}},
		},
	}
}

// An entry read back is the entry written, and its partial filter is
// compiled under the index's collation.
func TestEncodeDecode(t *testing.T) {
	t.Parallel()
	m := sampleColl()
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	if got.NS() != "test.c" || got.ID != 7 || got.Kind != KindCapped || got.NextIndexID != 3 || got.Clustered {
		t.Fatalf("decoded %+v", got)
	}
	if !document.Equal(got.Options, m.Options) || !document.Equal(got.Extra, m.Extra) {
		t.Fatalf("options %v extra %v", got.Options, got.Extra)
	}
	ix := got.Index("t_1")
	if ix == nil || !ix.TTL || ix.Expire != 60 || ix.Unique || got.Index("nope") != nil {
		t.Fatalf("index t_1: %+v", ix)
	}
	if ix.PartialFilter == nil || ix.Collator() == nil {
		t.Fatalf("partial filter %v, collator %v", ix.PartialFilter, ix.Collator())
	}
	// Strength 2 ignores case: the compiled filter matches "a".
	if !ix.PartialFilter.Match(bson.D{{Key: "s", Value: "a"}}) {
		t.Fatal("partial filter not under the index's collation")
	}
	if got.Index("_id_").PartialFilter != nil || got.DefaultCollator() != nil {
		t.Fatal("_id_ has a filter, or the collection a default collation")
	}
}

// A clone's index entries are its own.
func TestClone(t *testing.T) {
	t.Parallel()
	m := sampleColl()
	c := m.Clone()
	c.Indexes[1].Hidden = true
	c.Indexes = append(c.Indexes, &Index{ID: 3, Name: "x_1"})
	if m.Indexes[1].Hidden || len(m.Indexes) != 2 || m.Index("x_1") != nil {
		t.Fatal("changing the clone changed the original")
	}
}

// A malformed entry is an error, not a panic.
func TestDecodeBad(t *testing.T) {
	t.Parallel()
	good, err := sampleColl().Encode()
	if err != nil {
		t.Fatal(err)
	}
	bad := []bson.D{
		{{Key: "id", Value: "seven"}},
		{{Key: "id", Value: int64(1)}, {Key: "db", Value: int32(1)}},
		{{Key: "id", Value: int64(1)}, {Key: "db", Value: "d"}, {Key: "name", Value: "c"}, {Key: "kind", Value: "collection"},
			{Key: "nextIndexID", Value: int64(1)}, {Key: "indexes", Value: bson.A{int32(1)}}},
		{{Key: "id", Value: int64(1)}, {Key: "db", Value: "d"}, {Key: "name", Value: "c"}, {Key: "kind", Value: "collection"},
			{Key: "nextIndexID", Value: int64(1)}, {Key: "indexes", Value: bson.A{bson.D{
				{Key: "id", Value: int64(1)}, {Key: "name", Value: "p"}, {Key: "expire", Value: int64(0)},
				{Key: "partial", Value: bson.D{{Key: "$bogus", Value: int32(1)}}}}}}},
	}
	for i, d := range bad {
		b, err := document.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(b); err == nil {
			t.Errorf("entry %d: decoded", i)
		}
	}
	if _, err := Decode(good[:len(good)/2]); err == nil {
		t.Error("truncated entry decoded")
	}
}

// Which fields of a multikey index met arrays is kept; an entry written
// before ttlkv kept it reads as every field.
func TestMultikeyFields(t *testing.T) {
	t.Parallel()
	m := sampleColl()
	m.Indexes[1].MarkMultikey(1 << 1)
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	ix := got.Index("t_1")
	if !ix.Multikey || ix.FieldMultikey(0) || !ix.FieldMultikey(1) || got.Index("_id_").FieldMultikey(0) {
		t.Fatalf("decoded %+v", ix)
	}
	raw, err := document.Unmarshal(b)
	if err != nil {
		t.Fatal(err)
	}
	// The same entry without mkfields, as an older ttlkv wrote it.
	ixs, _ := document.Get(raw, "indexes")
	for _, e := range ixs.(bson.A) {
		d := e.(bson.D)
		for i := range d {
			if d[i].Key == "mkfields" {
				d[i].Key = "unknown"
			}
		}
	}
	old, err := document.Marshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got, err = Decode(old); err != nil {
		t.Fatal(err)
	}
	if ix := got.Index("t_1"); !ix.FieldMultikey(0) || !ix.FieldMultikey(1) {
		t.Fatalf("an entry without mkfields: %+v", ix)
	}
}

// A UUID is stored and read back; an entry stored without one (before
// ttlkv kept UUIDs) reads with the UUID derived from its namespace, the
// same every time, which it then stores (a time-series collection the
// one of its buckets collection); a view has none.
func TestUUID(t *testing.T) {
	t.Parallel()
	m := sampleColl()
	m.UUID = NewUUID()
	if m.UUID.IsZero() || m.UUID[6]>>4 != 4 || m.UUID[8]>>6 != 2 {
		t.Fatalf("NewUUID %s is not a version-4 UUID", m.UUID)
	}
	b, err := m.Encode()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Decode(b)
	if err != nil || got.UUID != m.UUID {
		t.Fatalf("decoded uuid %s (%v), want %s", got.UUID, err, m.UUID)
	}
	legacy := sampleColl() // no UUID: encoded without one
	if b, err = legacy.Encode(); err != nil {
		t.Fatal(err)
	}
	got, err = Decode(b)
	if err != nil || got.UUID != LegacyUUID("test", "c") || got.UUID.IsZero() || got.UUID == LegacyUUID("test", "d") {
		t.Fatalf("legacy entry: uuid %s (%v), want %s", got.UUID, err, LegacyUUID("test", "c"))
	}
	if b, err = got.Encode(); err != nil {
		t.Fatal(err)
	}
	if again, err := Decode(b); err != nil || again.UUID != LegacyUUID("test", "c") {
		t.Fatalf("legacy entry stored again: uuid %s (%v)", again.UUID, err)
	}
	ts := &Coll{ID: 10, DB: "test", Name: "w", Kind: KindTimeseries, Extra: bson.D{{Key: "bucketsColl", Value: "system.buckets.w"}}}
	if b, err = ts.Encode(); err != nil {
		t.Fatal(err)
	}
	if got, err := Decode(b); err != nil || got.UUID != LegacyUUID("test", "system.buckets.w") {
		t.Fatalf("legacy time-series entry: uuid %s (%v), want its buckets'", got.UUID, err)
	}
	view := &Coll{ID: 9, DB: "test", Name: "v", Kind: KindView, Options: bson.D{{Key: "viewOn", Value: "c"}}}
	if b, err = view.Encode(); err != nil {
		t.Fatal(err)
	}
	if got, err := Decode(b); err != nil || !got.UUID.IsZero() {
		t.Fatalf("view: uuid %s (%v), want none", got.UUID, err)
	}
	if s := (UUID{0x12, 0x34, 0x56, 0x78, 0x9a, 0xbc, 0xde, 0xf0, 1, 2, 3, 4, 5, 6, 7, 8}).String(); s != "12345678-9abc-def0-0102-030405060708" {
		t.Errorf("String: %s", s)
	}
	bad, _ := document.Marshal(bson.D{{Key: "id", Value: int64(1)}, {Key: "db", Value: "d"}, {Key: "name", Value: "c"},
		{Key: "kind", Value: "collection"}, {Key: "nextIndexID", Value: int64(2)}, {Key: "uuid", Value: "not binary"}})
	if _, err := Decode(bad); err == nil {
		t.Error("an entry with a uuid that is not a binary decoded")
	}
}
