package lsm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	badger "github.com/dgraph-io/badger/v4"
)

// Batch collects writes and commits them in as many transactions as
// Badger's size limits require: when the next write would not fit, the
// writes so far are committed and a new transaction begins. Each commit is
// atomic; the Batch as a whole is NOT — after a crash or an error, a prefix
// of the commits may be durable. Callers that need atomicity for a group of
// writes (a document and its index entries) use Update, or keep each group
// under MaxBatchSize/MaxBatchCount and call Flush between groups.
// A Batch does not read, so its commits never conflict. It is not safe for
// concurrent use.
type Batch struct {
	s         *Store
	t         *badger.Txn
	pending   int // writes in t
	committed int // writes committed by earlier splits
	commits   int
	err       error
	// size and count estimate the open transaction (writes and changes);
	// changes are its change-log entries, written at its commit.
	size, count int64
	changes     [][]byte
}

// NewBatch returns an empty Batch.
func (s *Store) NewBatch() *Batch { return &Batch{s: s} }

func (b *Batch) add(key, val []byte, del bool) error {
	if b.err != nil {
		return b.err
	}
	if b.s.closed.Load() {
		return ErrClosed
	}
	if b.s.opts.ReadOnly {
		return ErrReadOnly
	}
	if err := checkKV(key, val); err != nil {
		return err
	}
	if err := b.s.checkValueSize(val); err != nil {
		return err
	}
	key = append([]byte(nil), key...)
	if !del {
		val = append([]byte(nil), val...)
	}
	cost := b.s.changeEntryCost(len(key), len(val))
	if b.s.changes != nil && b.pending > 0 && (b.size+cost > b.s.MaxBatchSize()*8/10 || b.count+1 >= b.s.MaxBatchCount()*8/10) {
		// Keep room for the change entries of the writes to come.
		if err := b.commit(); err != nil {
			return err
		}
	}
	for try := 0; try < 2; try++ {
		if b.t == nil {
			b.t = b.s.db.NewTransaction(true)
		}
		var err error
		if del {
			err = b.t.Delete(key)
		} else {
			err = b.t.Set(key, val)
		}
		if err == nil {
			b.pending++
			b.size += cost
			b.count++
			return nil
		}
		if !errors.Is(err, badger.ErrTxnTooBig) || b.pending == 0 {
			return mapErr(err)
		}
		if err := b.commit(); err != nil {
			return err
		}
	}
	return ErrTxnTooBig
}

func (b *Batch) commit() error {
	if b.t == nil {
		return nil
	}
	t := b.t
	b.t = nil
	changes := b.changes
	b.changes, b.size, b.count = nil, 0, 0
	b.s.gate.RLock()
	err := b.s.commitSync(t, changes)
	b.s.gate.RUnlock()
	b.s.commits.Add(1)
	t.Discard()
	if err != nil {
		b.err = mapErr(err)
		return b.err
	}
	b.committed += b.pending
	b.pending = 0
	b.commits++
	return nil
}

// Set adds a write of val under key. The caller may reuse key and val.
// It may commit earlier writes of the Batch (see Batch). A value too large
// for any single transaction returns ErrTxnTooBig.
func (b *Batch) Set(key, val []byte) error { return b.add(key, val, false) }

// Delete adds a delete of key; deleting a missing key is not an error.
func (b *Batch) Delete(key []byte) error { return b.add(key, nil, true) }

// Flush commits the writes not yet committed. After a successful Flush
// the Batch is empty and may be reused. After a failed commit, every
// later call returns that error.
func (b *Batch) Flush() error {
	if b.err != nil {
		return b.err
	}
	if b.t == nil {
		return nil
	}
	if b.s.closed.Load() {
		return ErrClosed
	}
	return b.commit()
}

// Cancel discards the writes not yet committed (earlier splits stay
// committed). The Batch may be reused.
func (b *Batch) Cancel() {
	if b.t != nil {
		b.t.Discard()
		b.t = nil
	}
	b.changes, b.size, b.count = nil, 0, 0
	b.pending = 0
}

// Committed returns how many writes earlier commits of this Batch made
// durable, and in how many transactions.
func (b *Batch) Committed() (writes, commits int) { return b.committed, b.commits }

// DeleteRange deletes every key in [lower, upper) (nil upper: to the end
// of the key space) and returns how many it deleted. Deletes are committed
// in batches (see Batch), so a concurrent reader may see part of the range
// gone; keys written into the range during the call may survive.
func (s *Store) DeleteRange(lower, upper []byte) (int, error) {
	if s.closed.Load() {
		return 0, ErrClosed
	}
	if s.opts.ReadOnly {
		return 0, ErrReadOnly
	}
	b := s.NewBatch()
	n := 0
	err := s.Scan(IterOptions{Lower: lower, Upper: upper, KeysOnly: true}, func(k, _ []byte) error {
		if len(k) > 0 && k[0] == '!' {
			return nil // Badger's own keys are invisible here; be safe.
		}
		if err := b.Delete(k); err != nil {
			return err
		}
		n++
		return nil
	})
	if err == nil {
		err = b.Flush()
	} else {
		b.Cancel()
	}
	if err != nil {
		w, _ := b.Committed()
		return w, err
	}
	return n, nil
}

// Sequence hands out increasing uint64s stored under one key, leasing them
// from the store bandwidth at a time so that most calls to Next do not
// write. The stored value is the next unleased number as 8 big-endian
// bytes; numbers leased but not handed out before a crash are skipped, so
// a Sequence never repeats a number but may leave gaps. At most one
// Sequence per key may be live at a time.
type Sequence struct {
	s         *Store
	key       []byte
	bandwidth uint64
	mu        sync.Mutex
	next      uint64
	leased    uint64
}

// Sequence returns a Sequence over key. The first number of a new key is
// 0. bandwidth must be at least 1.
func (s *Store) Sequence(key []byte, bandwidth uint64) (*Sequence, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if s.opts.ReadOnly {
		return nil, ErrReadOnly
	}
	if bandwidth == 0 {
		return nil, errors.New("lsm: sequence bandwidth must be at least 1")
	}
	if err := checkKV(key, nil); err != nil {
		return nil, err
	}
	seq := &Sequence{s: s, key: append([]byte(nil), key...), bandwidth: bandwidth}
	if err := seq.lease(); err != nil {
		return nil, err
	}
	return seq, nil
}

func readSeq(t *Txn, key []byte) (uint64, error) {
	v, err := t.Get(key)
	switch {
	case errors.Is(err, ErrNotFound):
		return 0, nil
	case err != nil:
		return 0, err
	case len(v) != 8:
		return 0, fmt.Errorf("lsm: sequence %x holds %d bytes, want 8", key, len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

func (q *Sequence) lease() error {
	var n uint64
	err := q.s.Update(func(t *Txn) error {
		var err error
		if n, err = readSeq(t, q.key); err != nil {
			return err
		}
		if n+q.bandwidth < n {
			return fmt.Errorf("lsm: sequence %x exhausted", q.key)
		}
		return t.Set(q.key, binary.BigEndian.AppendUint64(nil, n+q.bandwidth))
	})
	if err != nil {
		return err
	}
	q.next, q.leased = n, n+q.bandwidth
	return nil
}

// Next returns the next number of the sequence.
func (q *Sequence) Next() (uint64, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if q.next >= q.leased {
		if err := q.lease(); err != nil {
			return 0, err
		}
	}
	v := q.next
	q.next++
	return v, nil
}

// Release returns the unused part of the lease to the store, so the next
// Sequence on the key continues without a gap. Call it before Close.
func (q *Sequence) Release() error {
	q.mu.Lock()
	defer q.mu.Unlock()
	err := q.s.Update(func(t *Txn) error {
		n, err := readSeq(t, q.key)
		if err != nil {
			return err
		}
		if n != q.leased {
			return nil // someone else moved it on; keep theirs
		}
		return t.Set(q.key, binary.BigEndian.AppendUint64(nil, q.next))
	})
	if err != nil {
		return err
	}
	q.leased = q.next
	return nil
}

// AddChange stages a change-log entry describing the writes added since
// the last commit; it is written in the same transaction as they are
// (the Batch commits early, before a write, to keep room for changes).
// It returns ErrChangesDisabled when the log is off.
func (b *Batch) AddChange(val []byte) error {
	if b.err != nil {
		return b.err
	}
	if b.s.changes == nil {
		return ErrChangesDisabled
	}
	if err := b.s.checkValueSize(val); err != nil {
		return err
	}
	if b.t == nil {
		b.t = b.s.db.NewTransaction(true)
	}
	b.size += b.s.changeEntryCost(13, len(val))
	b.count++
	if b.changes == nil {
		b.changes = [][]byte{}
	}
	b.changes = append(b.changes, append([]byte(nil), val...))
	return nil
}
