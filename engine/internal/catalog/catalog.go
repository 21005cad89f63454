// Package catalog holds a collection's catalog entry (Coll, with its
// indexes' entries, Index) and its stored encoding. The engine keeps one
// entry per collection under lsm.CatalogKey and replaces it copy-on-write
// (Coll.Clone) on every catalog change; docs/layout.md says where the
// package sits.
package catalog

import (
	"crypto/rand"
	"crypto/sha256"
	"fmt"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/fts"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Kind is the kind of a collection, stored in its catalog entry.
type Kind string

const (
	KindNormal     Kind = "collection" // an ordinary collection
	KindCapped     Kind = "capped"     // a capped collection kept in a ring file
	KindTimeseries Kind = "timeseries" // a time-series view over a buckets collection
	KindView       Kind = "view"       // a view: a pipeline over another collection, read-only
)

// Coll is a collection's catalog entry, persisted under lsm.CatalogKey.
// An entry in use is never changed in place: a change is made on a Clone
// and the clone replaces it.
type Coll struct {
	ID          uint64
	DB, Name    string
	Kind        Kind
	Options     bson.D // the create options as listCollections shows them
	Indexes     []*Index
	NextIndexID uint64
	// Extra is kind-specific persistent state (time-series out-of-range
	// flag, capped file name); opaque to the catalog.
	Extra bson.D
	// Clustered: the collection was created with clusteredIndex; its
	// documents live in their _id index entries (engine/clustered.go).
	Clustered bool
	// UUID is the collection's UUID, as listCollections shows it in
	// info.uuid and change events in collectionUUID: given at creation,
	// kept by a rename within the database, a collMod and a capped
	// resize. A view has none (the zero UUID). An entry stored before
	// ttlkv kept UUIDs gets one derived from its namespace (LegacyUUID),
	// stored with its next catalog change.
	UUID UUID
}

// UUID is a collection UUID (RFC 4122, version 4 for those ttlkv
// makes); the zero UUID is none.
type UUID [16]byte

// NewUUID returns a random version-4 UUID.
func NewUUID() UUID {
	var u UUID
	rand.Read(u[:])
	return u.v4()
}

// LegacyUUID is the UUID of the collection db.name whose catalog entry
// was stored before ttlkv kept UUIDs: derived from its namespace, so
// that it stays the same from one open to the next (the entry stores it
// at its next change, a rename included). A time-series collection's is
// its buckets collection's, as for one made since.
func LegacyUUID(db, name string) UUID {
	h := sha256.Sum256([]byte("ttlkv collection uuid " + db + "." + name))
	var u UUID
	copy(u[:], h[:16])
	return u.v4()
}

func (u UUID) v4() UUID {
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return u
}

// IsZero reports whether u is the zero UUID (none).
func (u UUID) IsZero() bool { return u == UUID{} }

// Binary returns u as BSON's UUID binary (subtype 4), as MongoDB
// writes collection UUIDs.
func (u UUID) Binary() bson.Binary {
	return bson.Binary{Subtype: bson.TypeBinaryUUID, Data: append([]byte(nil), u[:]...)}
}

// String returns u in its canonical hex form, 8-4-4-4-12.
func (u UUID) String() string {
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// Index is one index's catalog entry.
type Index struct {
	ID     uint64
	Name   string
	Key    bson.D
	Unique bool
	// PrepareUnique: new duplicate keys are refused, the ones already
	// there kept, until collMod makes the index unique.
	PrepareUnique bool
	Sparse        bool
	Hidden        bool
	Partial       bson.D // partialFilterExpression, nil if none
	// NullRules7: the index's documents were chosen by its partial
	// filter under mongod 7.0's null rules ({a: null} matches undefined),
	// as every index written since ttlkv follows them is. An entry
	// written before lacks it: if its filter compares with null, the
	// index may leave out documents whose field is undefined.
	NullRules7 bool
	// TypeBits: each entry's value says what its keystring loses of the
	// values it was made from (a number's BSON type, a missing field),
	// so that a query can answer from the entries alone (mongod's
	// PROJECTION_COVERED; docs/storage-keys.md, "Type bits"). Set on the
	// indexes ttlkv makes since it wrote them, on ordinary collections
	// and simple-collation key patterns of ascending and descending
	// fields; an entry without it never answers in place of documents.
	TypeBits bool
	TTL      bool  // has expireAfterSeconds
	Expire   int64 // expireAfterSeconds when TTL
	Multikey bool  // some document produced several keys
	// MultikeyFields has bit i set when some document met an array on
	// the path of the key's field i (when Multikey; an entry written
	// before ttlkv kept it has every bit set).
	MultikeyFields uint64
	Extra          bson.D // other spec options, echoed by listIndexes

	// PartialFilter is Partial compiled, under the index's collation;
	// nil when Partial is. Not stored: Decode compiles it.
	PartialFilter *query.Filter
	// Text is a text index's spec, parsed from Extra; nil for other
	// indexes. Not stored: Decode parses it.
	Text *fts.Spec
}

// MayLackUndefined reports whether ix may leave out documents its
// partial filter matches: it was written before ttlkv followed mongod
// 7.0's null rules (NullRules7 unset) and its filter compares with null,
// which now also matches a field that is undefined. Dropping and
// creating the index again rebuilds it under today's rules.
func (ix *Index) MayLackUndefined() bool {
	return ix.Partial != nil && !ix.NullRules7 && holdsNull(ix.Partial)
}

// holdsNull reports whether v is null or holds a null at any depth.
func holdsNull(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bson.D:
		for _, e := range x {
			if holdsNull(e.Value) {
				return true
			}
		}
	case bson.A:
		for _, e := range x {
			if holdsNull(e) {
				return true
			}
		}
	}
	return false
}

// IsTextKey reports whether key is a text index's stored key pattern
// (one with _fts: "text").
func IsTextKey(key bson.D) bool {
	for _, e := range key {
		if e.Key == "_fts" {
			return true
		}
	}
	return false
}

// NS returns the collection's namespace, "db.name".
func (m *Coll) NS() string { return m.DB + "." + m.Name }

// Index returns the index named name, nil if m has none.
func (m *Coll) Index(name string) *Index {
	for _, ix := range m.Indexes {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

// Clone returns a copy of m for a copy-on-write catalog update: the
// index entries are copied, the documents they hold (Key, Options,
// Partial, Extra) are shared and must be replaced, not changed.
func (m *Coll) Clone() *Coll {
	c := *m
	c.Indexes = make([]*Index, len(m.Indexes))
	for i, ix := range m.Indexes {
		cp := *ix
		c.Indexes[i] = &cp
	}
	return &c
}

// Encode returns the stored form of m, which Decode reads back.
func (m *Coll) Encode() ([]byte, error) {
	ixs := make(bson.A, 0, len(m.Indexes))
	for _, ix := range m.Indexes {
		d := bson.D{
			{Key: "id", Value: int64(ix.ID)}, {Key: "name", Value: ix.Name}, {Key: "key", Value: ix.Key},
			{Key: "unique", Value: ix.Unique}, {Key: "sparse", Value: ix.Sparse}, {Key: "hidden", Value: ix.Hidden},
			{Key: "ttl", Value: ix.TTL}, {Key: "expire", Value: ix.Expire}, {Key: "multikey", Value: ix.Multikey},
		}
		if ix.Partial != nil {
			d = append(d, bson.E{Key: "partial", Value: ix.Partial})
		}
		if ix.Partial != nil && ix.NullRules7 {
			d = append(d, bson.E{Key: "nulls7", Value: true})
		}
		if ix.TypeBits {
			d = append(d, bson.E{Key: "tbits", Value: true})
		}
		if ix.PrepareUnique {
			d = append(d, bson.E{Key: "prepareUnique", Value: true})
		}
		if ix.Multikey {
			d = append(d, bson.E{Key: "mkfields", Value: int64(ix.MultikeyFields)})
		}
		if ix.Extra != nil {
			d = append(d, bson.E{Key: "extra", Value: ix.Extra})
		}
		ixs = append(ixs, d)
	}
	d := bson.D{
		{Key: "v", Value: int32(1)},
		{Key: "id", Value: int64(m.ID)}, {Key: "db", Value: m.DB}, {Key: "name", Value: m.Name},
		{Key: "kind", Value: string(m.Kind)}, {Key: "options", Value: orEmpty(m.Options)},
		{Key: "indexes", Value: ixs}, {Key: "nextIndexID", Value: int64(m.NextIndexID)},
		{Key: "extra", Value: orEmpty(m.Extra)},
	}
	if m.Clustered {
		d = append(d, bson.E{Key: "clustered", Value: true})
	}
	if !m.UUID.IsZero() {
		d = append(d, bson.E{Key: "uuid", Value: m.UUID.Binary()})
	}
	return document.Marshal(d)
}

func orEmpty(d bson.D) bson.D {
	if d == nil {
		return bson.D{}
	}
	return d
}

// Decode reads a catalog entry stored by Encode, compiling its indexes'
// partial filters. A malformed entry is an error, never a panic.
func Decode(b []byte) (*Coll, error) {
	d, err := document.Unmarshal(b)
	if err != nil {
		return nil, fmt.Errorf("catalog entry: %w", err)
	}
	m := &Coll{}
	var bad error
	i64 := func(d bson.D, k string) uint64 {
		v, _ := document.Get(d, k)
		n, ok := v.(int64)
		if !ok && bad == nil {
			bad = fmt.Errorf("catalog entry: field %q is not int64", k)
		}
		return uint64(n)
	}
	str := func(d bson.D, k string) string {
		v, _ := document.Get(d, k)
		s, ok := v.(string)
		if !ok && bad == nil {
			bad = fmt.Errorf("catalog entry: field %q is not a string", k)
		}
		return s
	}
	flag := func(d bson.D, k string) bool { v, _ := document.Get(d, k); b, _ := v.(bool); return b }
	sub := func(d bson.D, k string) bson.D { v, _ := document.Get(d, k); s, _ := v.(bson.D); return s }
	m.ID = i64(d, "id")
	m.DB, m.Name = str(d, "db"), str(d, "name")
	m.Kind = Kind(str(d, "kind"))
	m.Options = sub(d, "options")
	m.NextIndexID = i64(d, "nextIndexID")
	m.Extra = sub(d, "extra")
	m.Clustered = flag(d, "clustered")
	if v, ok := document.Get(d, "uuid"); ok {
		b, isBin := v.(bson.Binary)
		if !isBin || len(b.Data) != len(m.UUID) {
			return nil, fmt.Errorf("catalog entry: field \"uuid\" is not a 16-byte binary")
		}
		copy(m.UUID[:], b.Data)
	} else if m.Kind != KindView {
		name := m.Name
		if m.Kind == KindTimeseries {
			if b, ok := document.Get(m.Extra, "bucketsColl"); ok {
				if s, isStr := b.(string); isStr {
					name = s
				}
			}
		}
		m.UUID = LegacyUUID(m.DB, name)
	}
	ixs, _ := document.Get(d, "indexes")
	arr, _ := ixs.(bson.A)
	for _, e := range arr {
		id, ok := e.(bson.D)
		if !ok {
			return nil, fmt.Errorf("catalog entry: index is not a document")
		}
		ix := &Index{
			ID: i64(id, "id"), Name: str(id, "name"), Key: sub(id, "key"),
			Unique: flag(id, "unique"), PrepareUnique: flag(id, "prepareUnique"), Sparse: flag(id, "sparse"), Hidden: flag(id, "hidden"),
			TTL: flag(id, "ttl"), Expire: int64(i64(id, "expire")), Multikey: flag(id, "multikey"),
			Partial: sub(id, "partial"), NullRules7: flag(id, "nulls7"), TypeBits: flag(id, "tbits"), Extra: sub(id, "extra"),
		}
		if ix.Multikey {
			ix.MultikeyFields = AllFields // until ttlkv kept which
			if v, ok := document.Get(id, "mkfields"); ok {
				if n, isInt := v.(int64); isInt {
					ix.MultikeyFields = uint64(n)
				}
			}
		}
		if IsTextKey(ix.Key) {
			ix.Text = fts.SpecFromOptions(ix.Extra)
		}
		if ix.Partial != nil {
			f, err := query.ParseFilter(ix.Partial)
			if err != nil {
				return nil, fmt.Errorf("catalog entry: index %s partial filter: %w", ix.Name, err)
			}
			ix.PartialFilter = f
			if c := ix.Collator(); c != nil {
				if cf, err := f.Collate(c); err == nil {
					ix.PartialFilter = cf // evaluated under the index's collation
				}
			}
		}
		m.Indexes = append(m.Indexes, ix)
	}
	if bad != nil {
		return nil, bad
	}
	return m, nil
}

// AllFields marks every field of a key multikey.
const AllFields = ^uint64(0)

// MarkMultikey records that a document met arrays on the paths of the
// fields in fields (AllFields when they are not known).
func (ix *Index) MarkMultikey(fields uint64) {
	ix.Multikey = true
	ix.MultikeyFields |= fields
}

// FieldMultikey reports whether a document met an array on the path of
// field i of the index's key, so that its bounds may not be intersected
// (its values in one document are several).
func (ix *Index) FieldMultikey(i int) bool {
	return ix.Multikey && (i >= 64 || ix.MultikeyFields&(1<<uint(i)) != 0)
}
