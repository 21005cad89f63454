package lsm

import (
	"bytes"

	badger "github.com/dgraph-io/badger/v4"
)

// ScanPrefixes calls fn with every key that starts with one of
// prefixes, which must be sorted ascending and none a prefix of
// another; i is the index of the prefix matched. It uses one iterator
// for all prefixes instead of one per prefix: the engine checks a whole
// insert chunk's unique keys this way. Keys only; fn must not keep key.
func (t *Txn) ScanPrefixes(prefixes [][]byte, fn func(i int, key []byte) error) error {
	if err := t.check(); err != nil {
		return err
	}
	if len(prefixes) == 0 {
		return nil
	}
	it := t.t.NewIterator(badger.IteratorOptions{
		PrefetchValues: false,
		Prefix:         commonPrefix(prefixes[0], prefixes[len(prefixes)-1]),
	})
	defer it.Close()
	for i, p := range prefixes {
		if i > 0 && bytes.Compare(p, prefixes[i-1]) <= 0 {
			return errUnsortedPrefixes
		}
		// Position at the first key >= p: the iterator already stands
		// past the previous prefix, so step a few keys before seeking
		// (a seek touches every level), and stop once it is exhausted:
		// no later prefix has keys then (appending inserts).
		stepped := false
		if i > 0 {
			for n := 0; n < getSortedMaxNext && it.Valid(); n++ {
				if bytes.Compare(it.Item().Key(), p) >= 0 {
					stepped = true
					break
				}
				it.Next()
			}
			if !it.Valid() {
				return nil
			}
		}
		if !stepped {
			it.Seek(p)
		}
		for ; it.Valid(); it.Next() {
			k := it.Item().Key()
			if !bytes.HasPrefix(k, p) {
				break
			}
			if err := fn(i, k); err != nil {
				return err
			}
		}
	}
	return nil
}

var errUnsortedPrefixes = errorString("lsm: ScanPrefixes needs prefixes in ascending order")

type errorString string

func (e errorString) Error() string { return string(e) }
