package lsm

import (
	"fmt"
	"testing"

	badger "github.com/dgraph-io/badger/v4"
)

// benchDoc is the size of a typical small document.
var benchDoc = make([]byte, 200)

// BenchmarkWrite compares Update (one document per transaction), Batch,
// and raw Badger's WriteBatch writing 200-byte values, so the cost of this
// package's wrapping shows as a ratio within one run.
func BenchmarkWrite(b *testing.B) {
	b.Run("lsm-update", func(b *testing.B) {
		s := openBench(b)
		b.SetBytes(int64(len(benchDoc)))
		for i := 0; i < b.N; i++ {
			if err := s.Update(func(t *Txn) error { return t.Set(RecordKey(1, uint64(i)), benchDoc) }); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("lsm-batch", func(b *testing.B) {
		s := openBench(b)
		b.SetBytes(int64(len(benchDoc)))
		bt := s.NewBatch()
		for i := 0; i < b.N; i++ {
			if err := bt.Set(RecordKey(1, uint64(i)), benchDoc); err != nil {
				b.Fatal(err)
			}
		}
		if err := bt.Flush(); err != nil {
			b.Fatal(err)
		}
	})
	b.Run("badger-writebatch", func(b *testing.B) {
		s := openBench(b)
		b.SetBytes(int64(len(benchDoc)))
		if err := RawBadgerWrite(s, b.N, func(i int) ([]byte, []byte) { return RecordKey(1, uint64(i)), benchDoc }); err != nil {
			b.Fatal(err)
		}
	})
}

func openBench(b *testing.B) *Store {
	s, err := Open(b.TempDir(), Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = s.Close() })
	return s
}

// RawBadgerWrite writes n entries straight through Badger's WriteBatch,
// bypassing this package: the baseline for write benchmarks.
func RawBadgerWrite(s *Store, n int, kv func(i int) (key, val []byte)) error {
	wb := s.db.NewWriteBatch()
	defer wb.Cancel()
	for i := 0; i < n; i++ {
		k, v := kv(i)
		if err := wb.SetEntry(badger.NewEntry(k, v)); err != nil {
			return fmt.Errorf("raw write %d: %w", i, err)
		}
	}
	return wb.Flush()
}
