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
		for it.Seek(p); it.Valid(); it.Next() {
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
