package indexkey

import "bytes"

// IDBound is an upper bound of the entry keys of the _id index of an
// ordinary collection (time-series buckets collections included; a
// capped collection's _id index is in memory, engine/capped_idindex.go,
// and keeps none). With it the unique-key check answers "absent" without
// a read for a key above every entry (prefix > max: every entry with that
// prefix is >= the prefix), the common case of increasing _ids
// (ObjectIds, counters). Reading the index for each such key seeks
// every memtable, L0 table and level (a point Get with bloom filters
// cannot be used: entry keys end with the record id), and took 16 of a
// one-document-per-transaction writer's 26 CPU seconds.
//
// Invariant: while known, every _id index entry key of the collection
// it is known for that is committed, or staged by a transaction not yet
// ended, is <= the bound; an empty bound means the index holds no entry.
// Every path that stages an _id entry of such a collection raises the
// bound first (Raise) or makes it unknown (Forget). Deletes never lower
// it and an aborted transaction leaves it higher than needed: both
// harmless, it is only an upper bound.
//
// The zero IDBound is unknown. An IDBound is not safe for concurrent
// use: the engine guards each collection's with the collection's write
// mutex (engine/idbound.go says which paths hold it).
type IDBound struct {
	known bool
	coll  uint64 // the collection id it is known for
	max   []byte // a whole index entry key; nil: no entry
}

// Known reports whether b is known for collection id coll. A bound
// known for another id (a handle whose catalog entry changed id) counts
// as unknown.
func (b *IDBound) Known(coll uint64) bool { return b.known && b.coll == coll }

// Set makes b known for collection id coll, with last the index's last
// entry key (nil: the index is empty). b keeps last.
func (b *IDBound) Set(coll uint64, last []byte) { *b = IDBound{known: true, coll: coll, max: last} }

// Above reports whether prefix (the _id index prefix and a keystring)
// is above every entry of a known b, so that no entry starts with it.
func (b *IDBound) Above(prefix []byte) bool {
	return b.max == nil || bytes.Compare(prefix, b.max) > 0
}

// Raise raises a known b to key, an _id index entry about to be staged.
func (b *IDBound) Raise(key []byte) {
	if b.max == nil || bytes.Compare(key, b.max) > 0 {
		b.max = append(b.max[:0], key...)
	}
}

// Forget makes b unknown; the next check reads it again.
func (b *IDBound) Forget() { *b = IDBound{} }
