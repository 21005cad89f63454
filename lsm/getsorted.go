package lsm

import (
	"bytes"
	"encoding/binary"

	badger "github.com/dgraph-io/badger/v4"
)

// getSortedMaxNext is how many keys GetSorted steps over with Next
// before it seeks instead: stepping is cheaper than a seek of every
// level while the wanted keys are close together.
const getSortedMaxNext = 8

// GetSorted reads the values of keys, which must be in ascending order,
// with one iterator instead of a point Get per key: records whose ids
// come from an index scan are usually close together, and the iterator
// steps from one to the next. It returns one value per key, a copy, nil
// for a key without a value. In a read-write transaction the keys count
// as read for conflict detection, as with Get, and so may the keys
// stepped over between them (a spurious conflict only costs a retry).
// The transaction's own writes made before the call are seen.
func (t *Txn) GetSorted(keys [][]byte) ([][]byte, error) {
	out := make([][]byte, len(keys))
	err := t.GetSortedFunc(keys, func(i int, val []byte) error {
		out[i] = bytes.Clone(val)
		if out[i] == nil {
			out[i] = []byte{}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// GetSortedFunc is GetSorted without copies: it calls fn, in key order,
// with the index and the value of every key that has one. val is valid
// only during the call (it may be Badger's own memory); fn must not
// modify or keep it, and must not use t. An error from fn stops the
// reads and is returned.
func (t *Txn) GetSortedFunc(keys [][]byte, fn func(i int, val []byte) error) error {
	return t.getSorted(keys, func(item *badger.Item, i int) error { return itemValue(item, i, fn) })
}

// GetSortedSizes is GetSortedFunc giving fn the size of each value
// instead of the value: a value kept in Badger's value log (one of
// ValueThreshold bytes or more) is not read.
func (t *Txn) GetSortedSizes(keys [][]byte, fn func(i, size int) error) error {
	return t.getSorted(keys, func(item *badger.Item, i int) error { return fn(i, itemSize(item)) })
}

// getSorted is GetSortedFunc handing each found item to each.
func (t *Txn) getSorted(keys [][]byte, each func(item *badger.Item, i int) error) error {
	if err := t.check(); err != nil {
		return err
	}
	if len(keys) == 0 {
		return nil
	}
	get := func(i int) error {
		item, err := t.t.Get(keys[i])
		if err != nil {
			if err = mapErr(err); err == ErrNotFound {
				return nil
			}
			return err
		}
		return each(item, i)
	}
	if len(keys) == 1 {
		if len(keys[0]) == 0 {
			return nil
		}
		return get(0)
	}
	// Bound the iterator by the keys' common prefix: Badger reads ahead
	// of the last key, skipping deleted keys, and without a bound that
	// read-ahead can walk through every tombstone after the last key.
	// (Without it a queue-shaped workload's delete batches walked every
	// index tombstone after the collection's last record: 86% of a
	// late pass, benchmarks/RESULTS.md "Queue shape".)
	pre := commonPrefix(keys[0], keys[len(keys)-1])
	it := t.t.NewIterator(badger.IteratorOptions{PrefetchValues: false, Prefix: pre})
	defer it.Close()
	var prev []byte
	for i, k := range keys {
		if len(k) == 0 {
			continue
		}
		if (prev != nil && bytes.Compare(k, prev) < 0) || !bytes.HasPrefix(k, pre) {
			// Out of order, or outside the iterator's bound: fall back
			// to a point read.
			if err := get(i); err != nil {
				return err
			}
			continue
		}
		prev = k
		stepped := false
		for n := 0; n < getSortedMaxNext && it.Valid(); n++ {
			c := bytes.Compare(it.Item().Key(), k)
			if c >= 0 {
				stepped = true
				break
			}
			it.Next()
		}
		if !stepped {
			it.Seek(k)
		}
		if !it.Valid() {
			continue
		}
		item := it.Item()
		if !bytes.Equal(item.Key(), k) {
			continue
		}
		if err := each(item, i); err != nil {
			return err
		}
	}
	return nil
}

// itemValue hands item's value to fn without copying it.
func itemValue(item *badger.Item, i int, fn func(int, []byte) error) error {
	var ferr error
	if err := item.Value(func(v []byte) error {
		ferr = fn(i, v)
		return nil
	}); err != nil {
		return mapErr(err)
	}
	return ferr
}

// itemSize returns the size of item's value without reading it from
// the value log. Badger's ValueSize is exact for a value held in the
// tree; for one in the value log it counts the entry's header as 6
// bytes, where it is two bytes (meta, user meta) and the uvarints of
// the versioned key's length, the value's length and the expiry: the
// value's length is the one whose uvarint makes the sum agree.
func itemSize(item *badger.Item) int {
	v := item.ValueSize()
	if item.EstimatedSize()-v == item.KeySize() {
		return int(v) // held in the tree: the value's length
	}
	rest := v + 6 - 2 - int64(uvarintLen(uint64(item.KeySize()+8))) - int64(uvarintLen(item.ExpiresAt()))
	for w := int64(1); w <= binary.MaxVarintLen64; w++ {
		if n := rest - w; n >= 0 && int64(uvarintLen(uint64(n))) == w {
			return int(n)
		}
	}
	return int(v)
}

// uvarintLen is the length of x as a uvarint.
func uvarintLen(x uint64) int {
	n := 1
	for ; x >= 0x80; x >>= 7 {
		n++
	}
	return n
}

// commonPrefix returns the longest common prefix of a and b (a copy-free
// slice of a with its capacity clipped).
func commonPrefix(a, b []byte) []byte {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return a[:n:n]
}
