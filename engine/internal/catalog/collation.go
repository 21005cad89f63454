package catalog

import (
	"sync"
	"unsafe"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Collations of catalog entries (docs/collation.md). A collection's
// default collation is kept in its options, an index's in its spec's
// extra fields, both as the full specification; the collators are built
// once per distinct specification and shared.

var collators sync.Map // document.Format(full spec) -> *collation.Collator

// CollatorOf returns the collator of a stored full specification; nil
// for none. A stored specification was validated when it was stored;
// one that no longer parses is treated as simple rather than failing
// reads.
func CollatorOf(spec any) *collation.Collator {
	d, ok := spec.(bson.D)
	if !ok || len(d) == 0 {
		return nil
	}
	// A stored specification's elements do not move while the catalog
	// entry lives (clones share them), so their address finds the
	// collator without formatting the document on every query.
	p := unsafe.SliceData(d)
	if c, ok := storedCollators.Load(p); ok {
		return c.(*collation.Collator)
	}
	c, err := ParseCollation(d)
	if err != nil {
		return nil
	}
	storedCollators.Store(p, c)
	return c
}

// storedCollators maps the first element of a stored specification to
// its collator. Entries of dropped catalog entries stay (a pointer each);
// catalog changes are rare.
var storedCollators sync.Map // *bson.E -> *collation.Collator

// ParseCollation is collation.Parse with the collators of valid
// specifications cached, since building one loads x/text's tables.
func ParseCollation(d bson.D) (*collation.Collator, error) {
	k := document.Format(d)
	if c, ok := collators.Load(k); ok {
		return c.(*collation.Collator), nil
	}
	c, err := collation.Parse(d)
	if err != nil {
		return nil, err
	}
	collators.Store(k, c)
	return c, nil
}

// DefaultCollator returns the collection's default collation, nil if
// simple.
func (m *Coll) DefaultCollator() *collation.Collator {
	for _, e := range m.Options {
		if e.Key == "collation" {
			return CollatorOf(e.Value)
		}
	}
	return nil
}

// Collator returns the index's collation, nil if simple.
func (ix *Index) Collator() *collation.Collator {
	for _, e := range ix.Extra {
		if e.Key == "collation" {
			return CollatorOf(e.Value)
		}
	}
	return nil
}
