package engine

import (
	"fmt"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// collKind is the kind of a collection.
type collKind string

const (
	kindNormal     collKind = "collection" // an ordinary collection
	kindCapped     collKind = "capped"     // a capped collection kept in a ring file
	kindTimeseries collKind = "timeseries" // a time-series view over a buckets collection
)

// collMeta is a collection's catalog entry, persisted under CatalogKey.
type collMeta struct {
	ID          uint64
	DB, Name    string
	Kind        collKind
	Options     bson.D // the create options as listCollections shows them
	Indexes     []*indexMeta
	NextIndexID uint64
	// Extra is kind-specific persistent state (time-series out-of-range
	// flag, capped file name); opaque to the catalog.
	Extra bson.D
	// Clustered: the collection was created with clusteredIndex; its
	// documents live in their _id index entries (clustered.go).
	Clustered bool
}

// indexMeta is one index's catalog entry.
type indexMeta struct {
	ID       uint64
	Name     string
	Key      bson.D
	Unique   bool
	Sparse   bool
	Hidden   bool
	Partial  bson.D // partialFilterExpression, nil if none
	TTL      bool   // has expireAfterSeconds
	Expire   int64  // expireAfterSeconds when TTL
	Multikey bool   // some document produced several keys
	Extra    bson.D // other spec options, echoed by listIndexes

	partial *query.Filter // compiled Partial
}

func (m *collMeta) ns() string { return m.DB + "." + m.Name }

func (m *collMeta) index(name string) *indexMeta {
	for _, ix := range m.Indexes {
		if ix.Name == name {
			return ix
		}
	}
	return nil
}

// clone returns a deep-enough copy for copy-on-write catalog updates.
func (m *collMeta) clone() *collMeta {
	c := *m
	c.Indexes = make([]*indexMeta, len(m.Indexes))
	for i, ix := range m.Indexes {
		cp := *ix
		c.Indexes[i] = &cp
	}
	return &c
}

func (m *collMeta) encode() ([]byte, error) {
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
		if ix.Extra != nil {
			d = append(d, bson.E{Key: "extra", Value: ix.Extra})
		}
		ixs = append(ixs, d)
	}
	d := bson.D{
		{Key: "v", Value: int32(1)},
		{Key: "id", Value: int64(m.ID)}, {Key: "db", Value: m.DB}, {Key: "name", Value: m.Name},
		{Key: "kind", Value: string(m.Kind)}, {Key: "options", Value: nonNilDoc(m.Options)},
		{Key: "indexes", Value: ixs}, {Key: "nextIndexID", Value: int64(m.NextIndexID)},
		{Key: "extra", Value: nonNilDoc(m.Extra)},
	}
	if m.Clustered {
		d = append(d, bson.E{Key: "clustered", Value: true})
	}
	return document.Marshal(d)
}

func nonNilDoc(d bson.D) bson.D {
	if d == nil {
		return bson.D{}
	}
	return d
}

func decodeCollMeta(b []byte) (*collMeta, error) {
	d, err := document.Unmarshal(b)
	if err != nil {
		return nil, fmt.Errorf("catalog entry: %w", err)
	}
	m := &collMeta{}
	var bad error
	i64 := func(d bson.D, k string) uint64 {
		v, _ := get(d, k)
		n, ok := v.(int64)
		if !ok && bad == nil {
			bad = fmt.Errorf("catalog entry: field %q is not int64", k)
		}
		return uint64(n)
	}
	str := func(d bson.D, k string) string {
		v, _ := get(d, k)
		s, ok := v.(string)
		if !ok && bad == nil {
			bad = fmt.Errorf("catalog entry: field %q is not a string", k)
		}
		return s
	}
	flag := func(d bson.D, k string) bool { v, _ := get(d, k); b, _ := v.(bool); return b }
	sub := func(d bson.D, k string) bson.D { s, _ := getDoc(d, k); return s }
	m.ID = i64(d, "id")
	m.DB, m.Name = str(d, "db"), str(d, "name")
	m.Kind = collKind(str(d, "kind"))
	m.Options = sub(d, "options")
	m.NextIndexID = i64(d, "nextIndexID")
	m.Extra = sub(d, "extra")
	m.Clustered = flag(d, "clustered")
	ixs, _ := get(d, "indexes")
	arr, _ := ixs.(bson.A)
	for _, e := range arr {
		id, ok := e.(bson.D)
		if !ok {
			return nil, fmt.Errorf("catalog entry: index is not a document")
		}
		ix := &indexMeta{
			ID: i64(id, "id"), Name: str(id, "name"), Key: sub(id, "key"),
			Unique: flag(id, "unique"), Sparse: flag(id, "sparse"), Hidden: flag(id, "hidden"),
			TTL: flag(id, "ttl"), Expire: int64(i64(id, "expire")), Multikey: flag(id, "multikey"),
			Partial: sub(id, "partial"), Extra: sub(id, "extra"),
		}
		if ix.Partial != nil {
			f, err := query.ParseFilter(ix.Partial)
			if err != nil {
				return nil, fmt.Errorf("catalog entry: index %s partial filter: %w", ix.Name, err)
			}
			ix.partial = f
			if c := ix.collator(); c != nil {
				if cf, err := f.Collate(c); err == nil {
					ix.partial = cf // evaluated under the index's collation
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
