package lsm

import (
	"bytes"
	"errors"
	"testing"
)

// TestInMemoryValueLimit: values up to the in-memory limit work; larger
// ones return ErrValueTooLarge (Badger's own error path can panic).
func TestInMemoryValueLimit(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{InMemory: true})
	ok := bytes.Repeat([]byte{1}, 64<<10)
	if err := s.Update(func(tx *Txn) error { return tx.Set(RecordKey(1, 1), ok) }); err != nil {
		t.Fatal(err)
	}
	b := s.NewBatch()
	must(t, b.Set(RecordKey(1, 2), ok))
	must(t, b.Flush())
	must(t, s.View(func(tx *Txn) error {
		v, err := tx.Get(RecordKey(1, 2))
		if err == nil && !bytes.Equal(v, ok) {
			t.Error("value changed")
		}
		return err
	}))
	huge := make([]byte, 2<<20)
	if err := s.Update(func(tx *Txn) error { return tx.Set([]byte{1}, huge) }); !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("huge in-memory Set = %v", err)
	}
	if err := b.Set([]byte{1}, huge); !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("huge in-memory Batch.Set = %v", err)
	}
}

func TestValueLargerThanVlogFile(t *testing.T) {
	t.Parallel()
	s := openTest(t, Options{ValueLogFileSize: 1 << 20})
	if err := s.Update(func(tx *Txn) error { return tx.Set([]byte{1}, make([]byte, 2<<20)) }); !errors.Is(err, ErrValueTooLarge) {
		t.Fatalf("Set larger than a value-log file = %v", err)
	}
}
