package lsm

import (
	"bytes"
	"errors"

	badger "github.com/dgraph-io/badger/v4"
)

// IterOptions selects the keys an Iter visits: those in [Lower, Upper)
// that also start with Prefix. A nil bound is unbounded (within Prefix).
type IterOptions struct {
	// Lower is the inclusive lower bound; nil means no bound.
	Lower []byte
	// Upper is the exclusive upper bound; nil means no bound.
	Upper []byte
	// Prefix restricts the iteration to keys with this prefix; nil means
	// every key. It also lets Badger skip tables without the prefix.
	Prefix []byte
	// Reverse visits keys in descending order.
	Reverse bool
	// KeysOnly tells Scan not to read values (fn gets a nil value).
	// Iter.Value still works; values are never prefetched.
	KeysOnly bool
}

// Iter walks keys in order. Use it as
//
//	it := txn.NewIter(o)
//	defer it.Close()
//	for it.Next() { ... it.Key() ... }
//	if err := it.Err(); err != nil { ... }
//
// An Iter in a read-write transaction sees the transaction's own writes
// made before the Iter was created. An Iter is not safe for concurrent use.
type Iter struct {
	t       *Txn
	it      *badger.Iterator
	lo, hi  []byte // effective bounds, nil = unbounded
	reverse bool
	started bool
	done    bool
	err     error
	closed  bool
}

// NewIter returns an iterator over the keys selected by o, positioned
// before the first key. It is closed when the transaction ends if the
// caller has not closed it.
func (t *Txn) NewIter(o IterOptions) *Iter {
	it := &Iter{t: t, reverse: o.Reverse}
	if err := t.check(); err != nil {
		it.err, it.done = err, true
		return it
	}
	it.lo, it.hi = o.Lower, o.Upper
	if len(o.Prefix) > 0 {
		if it.lo == nil || bytes.Compare(it.lo, o.Prefix) < 0 {
			it.lo = o.Prefix
		}
		if end := PrefixEnd(o.Prefix); end != nil && (it.hi == nil || bytes.Compare(end, it.hi) < 0) {
			it.hi = end
		}
	}
	it.lo = append([]byte(nil), it.lo...)
	if it.hi != nil {
		it.hi = append([]byte(nil), it.hi...)
	}
	if it.hi != nil && bytes.Compare(it.lo, it.hi) >= 0 {
		it.done = true
		return it
	}
	bo := badger.IteratorOptions{Reverse: o.Reverse, PrefetchValues: false}
	if len(o.Prefix) > 0 && PrefixEnd(o.Prefix) != nil && !(o.Reverse && endStored(t, it.hi, o.Prefix)) {
		// Badger stops at the first key without its Prefix and uses it to
		// skip tables; positioning is done here with Seek.
		bo.Prefix = append([]byte(nil), o.Prefix...)
	}
	it.it = t.t.NewIterator(bo)
	t.iters = append(t.iters, it)
	return it
}

// endStored reports whether a reverse iteration's upper bound hi lies
// outside prefix and is a stored key (or cannot be told not to be).
// Badger's reverse seek to hi lands on hi itself, and with Badger's
// Prefix set the iteration would stop there, before every key with the
// prefix: such an iteration goes without Badger's Prefix (and its
// skipping of tables) and steps over hi itself.
func endStored(t *Txn, hi, prefix []byte) bool {
	if hi == nil || bytes.HasPrefix(hi, prefix) {
		return false
	}
	_, err := t.t.Get(hi)
	return !errors.Is(err, badger.ErrKeyNotFound)
}

// Next advances to the next key and reports whether there is one. The
// first call positions the iterator on the first key.
func (it *Iter) Next() bool {
	if it.done || it.closed {
		return false
	}
	if !it.started {
		it.started = true
		switch {
		case !it.reverse:
			it.it.Seek(it.lo)
		case it.hi != nil:
			it.it.Seek(it.hi) // lands on hi itself or the key before it
		default:
			it.it.Rewind() // no Badger prefix is set when hi is nil
		}
	} else {
		it.it.Next()
	}
	for it.it.Valid() {
		k := it.it.Item().Key()
		if len(k) > 0 && k[0] == tagInternal {
			it.it.Next()
			continue
		}
		if !it.reverse {
			if it.hi != nil && bytes.Compare(k, it.hi) >= 0 {
				break
			}
			return true
		}
		if it.hi != nil && bytes.Compare(k, it.hi) >= 0 {
			it.it.Next()
			continue
		}
		if bytes.Compare(k, it.lo) < 0 {
			break
		}
		return true
	}
	it.done = true
	return false
}

// Key returns the current key. It is valid until the next call to Next or
// Close; copy it to keep it.
func (it *Iter) Key() []byte {
	if it.done || !it.started || it.closed {
		return nil
	}
	return it.it.Item().Key()
}

// Value returns a copy of the current key's value.
func (it *Iter) Value() ([]byte, error) {
	if it.done || !it.started || it.closed {
		return nil, ErrNotFound
	}
	v, err := it.it.Item().ValueCopy(nil)
	return v, mapErr(err)
}

// Err returns the error that ended the iteration early, if any.
func (it *Iter) Err() error { return it.err }

// Close releases the iterator. It is idempotent.
func (it *Iter) Close() {
	if it.closed {
		return
	}
	it.closed = true
	if it.it != nil {
		it.it.Close()
	}
}

// Scan calls fn for every key selected by o, in order, inside a read-only
// snapshot. k and v are valid only during the call; v is nil when
// o.KeysOnly. An error from fn stops the scan and is returned.
func (s *Store) Scan(o IterOptions, fn func(k, v []byte) error) error {
	return s.View(func(t *Txn) error {
		return t.Scan(o, fn)
	})
}

// Scan is Store.Scan inside this transaction.
func (t *Txn) Scan(o IterOptions, fn func(k, v []byte) error) error {
	it := t.NewIter(o)
	defer it.Close()
	for it.Next() {
		var v []byte
		if !o.KeysOnly {
			var err error
			if v, err = it.Value(); err != nil {
				return err
			}
		}
		if err := fn(it.Key(), v); err != nil {
			return err
		}
	}
	return it.Err()
}
