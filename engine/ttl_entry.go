package engine

import (
	"bytes"
	"encoding/binary"
	"slices"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A TTL index entry carries, in its value, what deleting its document
// needs besides the entry's own key: the document's encoded size and
// its _id keystring (docs/ttl-indexes.md §3). When the collection's only
// other index is _id, the TTL monitor deletes an expired document from
// its TTL entry alone (readFast, removeFast): the re-check reads the
// date in the entry's key, the _id entry's key is built from the
// carried keystring and the record id at the end of the entry's key,
// and, in an ordinary collection, the record key from the record id.
// The document is neither read nor decoded. An entry without a value,
// or (clustered) holding the bare _id keystring a clustered secondary
// entry held before this format, takes the path that reads the
// document (ordinary) or its _id entry (clustered).
//
// A clustered collection's own TTL (expireAfterSeconds on the
// collection, its _id index a TTL index) scans the entries holding the
// documents: the batch reads, in its transaction, only their sizes
// (lsm.Txn.GetSortedSizes), not the documents.

// carriesTTLValue reports whether the entries of index ix of collection
// m carry ttlEntryValue: those of a TTL index, except a clustered
// collection's _id index (its entries hold the documents) and the
// indexes of a time-series buckets collection (whose records are not
// deleted one by one through a TTL index).
func carriesTTLValue(m *catalog.Coll, ix *catalog.Index) bool {
	return ix.TTL && !(m.Clustered && ix.ID == idIndexID) && !isBucketsColl(m)
}

// ttlEntryV1 is the first byte of a carried TTL entry value.
const ttlEntryV1 = 1

// ttlEntryValue returns the value of a TTL index entry of document d,
// encoded as raw, in collection m: ttlEntryV1, the size of
// raw as a uvarint, then d's _id keystring.
func ttlEntryValue(m *catalog.Coll, d bson.D, raw []byte) []byte {
	id, _ := get(d, "_id")
	v := make([]byte, 0, 1+binary.MaxVarintLen32+24)
	v = append(v, ttlEntryV1)
	v = binary.AppendUvarint(v, uint64(len(raw)))
	return appendIDKey(m, v, id)
}

// appendTTLEntry returns ttlEntryValue from the document's _id
// keystring id and encoded size.
func appendTTLEntry(id []byte, size int) []byte {
	v := make([]byte, 0, 1+binary.MaxVarintLen32+len(id))
	v = append(v, ttlEntryV1)
	v = binary.AppendUvarint(v, uint64(size))
	return append(v, id...)
}

// parseTTLEntry splits a carried TTL entry value into the document's
// encoded size and its _id keystring (a slice of v); ok is false for
// an empty value or one of an unknown form.
func parseTTLEntry(v []byte) (size int, id []byte, ok bool) {
	if len(v) < 3 || v[0] != ttlEntryV1 {
		return 0, nil, false
	}
	n, w := binary.Uvarint(v[1:])
	if w <= 0 || n > 1<<31 || 1+w >= len(v) {
		return 0, nil, false
	}
	return int(n), v[1+w:], true
}

// isTTLEntry reports whether v is a carried TTL entry value.
func isTTLEntry(v []byte) bool {
	_, _, ok := parseTTLEntry(v)
	return ok
}

// ttlDateRange returns the bounds [lo, hi) of the keys of TTL index ix
// of collection m whose date is at or before cutoff: the date class of
// the index, up to the cut-off (ascending), or from it (descending).
func ttlDateRange(m *catalog.Coll, ix *catalog.Index, cutoff bson.DateTime, desc bool) (lo, hi []byte) {
	prefix := lsm.IndexPrefix(m.ID, ix.ID)
	dateClass := classPrefix(bson.DateTime(0))
	if !desc {
		lo = append(slices.Clip(prefix), dateClass...)
		if m.Clustered && len(ix.Key) == 1 && ix.Key[0].Key == "_id" {
			// A clustered collection expires from the epoch, as mongod's
			// monitor scans its _ids: an _id dated before 1970 stays
			// (docs/ttl-indexes.md §2.4).
			lo = append(slices.Clip(prefix), lsm.AppendKey(nil, bson.DateTime(0), false)...)
		}
		hi = lsm.PrefixEnd(append(slices.Clip(prefix), lsm.AppendKey(nil, cutoff, false)...))
		return lo, hi
	}
	// Descending keys: dates at or before cutoff are the bytes from
	// enc(cutoff) to the end of the (inverted) date class.
	lo = append(slices.Clip(prefix), lsm.AppendKey(nil, cutoff, true)...)
	hi = lsm.PrefixEnd(append(slices.Clip(prefix), invert(dateClass)...))
	return lo, hi
}

// ttlFast is what a TTL visit gives its batch deleter so that it can
// delete documents from their TTL entries (readFast).
type ttlFast struct {
	index uint64 // the TTL index visited
	// now is the visit's time: expiry is judged against it, as the
	// visit's recheck does.
	now bson.DateTime
	// keys maps each record id the visit scanned to the TTL entry key it
	// was found by (valid until the next scan of the visit).
	keys map[uint64][]byte
}

// fastIndex returns the TTL index through which a batch over catalog
// entry m may delete documents from their TTL entries, or nil when it
// must read them: the visit's index is still a TTL index, neither
// multikey (a document would have several entries) nor partial, the
// collection's only other index is _id (or, clustered by _id, the TTL
// index is _id itself), nobody needs the documents (an onDelete, a
// re-check that is not pure) and no change event is written (it names
// the document's _id and may carry its pre-image).
func (bd *batchDeleter) fastIndex(m *catalog.Coll) *catalog.Index {
	if bd.ttl == nil || bd.onDelete != nil || !bd.recheckPure || isBucketsColl(m) || (bd.db != nil && bd.db.changesOn()) {
		return nil
	}
	ix := indexByID(m, bd.ttl.index)
	if ix == nil || !ix.TTL || ix.Multikey || ix.Partial != nil || ix.PartialFilter != nil || len(ix.Key) != 1 {
		return nil
	}
	switch {
	case m.Clustered && ix.ID == idIndexID && len(m.Indexes) == 1:
		return ix
	case len(m.Indexes) == 2 && ix.ID != idIndexID && indexByID(m, idIndexID) != nil:
		if m.Clustered && indexByID(m, idIndexID).TTL {
			return nil // the _id entries have a TTL of their own: read them
		}
		return ix
	}
	return nil
}

// fastDel is one document a batch deletes from its TTL entry: the keys
// to delete and its encoded size.
type fastDel struct {
	keys [3][]byte
	n    int
	size int
}

// readFast reads, in b's transaction, the TTL entries of records lo..hi
// of the batch and appends to b.read one readDoc a document whose entry
// says how to delete it (its fast field set, d nil), and the positions of
// the others, which the caller reads as records, to slow. A document
// whose entry is gone (its date changed, or it was deleted) or has no
// carried value is slow; one whose entry's date is not expired under ix
// (the current catalog entry's index) is left out: it is not deleted.
//
// Reading the entries in the transaction is what guards the delete:
// an update that changes the date, or the document's size, rewrites
// the entry, and a delete removes it, so either makes the batch's
// commit conflict and the batch is staged again (TestReapFastGuard).
func (bd *batchDeleter) readFast(txn *lsm.Txn, m *catalog.Coll, ix *catalog.Index, rids []uint64, b *batchState, lo, hi int, slow []int) ([]int, error) {
	desc := indexkey.Fields(ix.Key)[0].Desc
	clo, chi := ttlDateRange(m, ix, cutoffFor(bd.ttl.now, ix.Expire), desc)
	type item struct {
		i   int
		key []byte
	}
	items := make([]item, 0, hi-lo)
	b.read = slices.Grow(b.read, hi-lo)
	for i := lo; i < hi; i++ {
		k := bd.ttl.keys[rids[i]]
		if k == nil {
			slow = append(slow, i)
			continue
		}
		items = append(items, item{i, k})
	}
	slices.SortFunc(items, func(a, b item) int { return bytes.Compare(a.key, b.key) })
	keys := make([][]byte, len(items))
	for j, it := range items {
		keys[j] = it.key
	}
	dels := make([]fastDel, len(items))
	found := make([]bool, len(items))
	// bare lists the clustered entries that hold only the _id keystring
	// (written before the carried value): their size is their _id
	// entry's, read below.
	var bare []int
	collTTL := m.Clustered && ix.ID == idIndexID
	var kb keyBlock // the keys the batch deletes, kept by its transaction
	fn := func(j int, val []byte) error {
		key, rid := keys[j], rids[items[j].i]
		fd := &dels[j]
		size, id, ok := parseTTLEntry(val)
		switch {
		case ok && !m.Clustered:
			fd.keys = [3][]byte{key, kb.indexKey(m.ID, idIndexID, id, rid), kb.recordKey(m.ID, rid)}
			fd.n, fd.size = 3, size
		case ok:
			fd.keys = [3][]byte{key, kb.indexKey(m.ID, idIndexID, id, rid)}
			fd.n, fd.size = 2, size
		case m.Clustered && len(val) > 0:
			fd.keys = [3][]byte{key, lsm.IndexKey(m.ID, idIndexID, val, rid)}
			fd.n = 2
			bare = append(bare, j)
		default:
			return nil // no carried value: read the record
		}
		found[j] = true
		return nil
	}
	var err error
	if collTTL {
		// The entry is the document (clustered TTL on _id): its size
		// is all the delete needs.
		err = txn.GetSortedSizes(keys, func(j, size int) error {
			dels[j].keys[0], dels[j].n, dels[j].size, found[j] = keys[j], 1, size, true
			return nil
		})
	} else {
		err = txn.GetSortedFunc(keys, fn)
	}
	if err != nil {
		return nil, err
	}
	if len(bare) > 0 {
		// The size of such a document is its _id entry's value's: read
		// it (not decoded), in _id order.
		slices.SortFunc(bare, func(a, b int) int { return bytes.Compare(dels[a].keys[1], dels[b].keys[1]) })
		rk := make([][]byte, len(bare))
		for x, j := range bare {
			rk[x] = dels[j].keys[1]
		}
		seen := make([]bool, len(bare))
		if err := txn.GetSortedSizes(rk, func(x, size int) error {
			dels[bare[x]].size, seen[x] = size, true
			return nil
		}); err != nil {
			return nil, err
		}
		for x, j := range bare {
			if !seen[x] {
				found[j] = false // no document: read it the old way (skipped there)
			}
		}
	}
	for j, it := range items {
		switch {
		case !found[j]:
			slow = append(slow, it.i)
		case bytes.Compare(it.key, clo) >= 0 && bytes.Compare(it.key, chi) < 0:
			b.read = append(b.read, readDoc{i: it.i, size: dels[j].size, fast: &dels[j]})
		}
	}
	return slow, nil
}

// removeFast deletes the keys of fd, a document deleted from its TTL
// entry. The keys are the batch's own: the transaction keeps them.
func (w *writeCtx) removeFast(fd *fastDel) error {
	for _, k := range fd.keys[:fd.n] {
		if err := w.txn.DeleteOwned(k); err != nil {
			return err
		}
	}
	return nil
}
