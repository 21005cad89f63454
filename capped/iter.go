package capped

import "context"

// Iterator walks the ring's records in sequence order (or reverse). It
// reads one record per Next under the ring's read lock, so it never sees
// a partly written record and never reads past the last committed one.
// An Iterator is not safe for concurrent use by several goroutines.
type Iterator struct {
	r       *Ring
	reverse bool
	next    uint64 // forward: the smallest sequence still to return; reverse: the largest
	low     uint64 // reverse: stop below this
	rec     Record
	err     error
	done    bool
}

// Scan returns an iterator over the records with sequence >= from
// (forward) or <= from (reverse). from 0 means the oldest live record
// (forward) or the newest committed one (reverse), as of this call.
//
// A forward iterator is a tail cursor: when Next returns false with a nil
// Err, it is at the end, and a later Next returns records appended since
// (use Wait to block until there are some). If records it has not yet
// returned are evicted, Next returns false and Err matches
// ErrOverwritten (carrying document.CodeCappedPositionLost). A reverse
// iterator ends at the oldest record that was live when Scan was called,
// or fails with ErrOverwritten if it is overtaken by evictions.
func (r *Ring) Scan(from uint64, reverse bool) *Iterator {
	it := &Iterator{r: r, reverse: reverse, next: from}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if !reverse {
		if from == 0 {
			it.next = r.firstSeq
		}
		return it
	}
	if from == 0 || from > r.committed {
		it.next = r.committed
	}
	it.low = r.firstSeq
	return it
}

// Next advances to the next record and reports whether there is one.
func (it *Iterator) Next() bool {
	if it.err != nil || it.done {
		return false
	}
	r := it.r
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		it.err = ErrClosed
		return false
	}
	var e entry
	if !it.reverse {
		if it.next <= r.evictedMax {
			it.err = overwritten(it.next)
			return false
		}
		i := r.live.search(it.next)
		if i == r.live.len() || r.live.at(i).seq > r.committed {
			return false
		}
		e = r.live.at(i)
	} else {
		if it.next < it.low || it.next == 0 {
			it.done = true
			return false
		}
		if it.next <= r.evictedMax {
			it.err = overwritten(it.next)
			return false
		}
		i := r.live.search(it.next + 1) // first entry > next
		if i == 0 {
			it.done = true
			return false
		}
		e = r.live.at(i - 1)
		if e.seq < it.low {
			it.done = true
			return false
		}
	}
	data, err := r.readEntry(e)
	if err != nil {
		it.err = err
		return false
	}
	it.rec = Record{Seq: e.seq, Off: e.off, Data: data}
	if it.reverse {
		it.next = e.seq - 1
	} else {
		it.next = e.seq + 1
	}
	return true
}

// Record returns the record Next moved to. Its Data is owned by the caller.
func (it *Iterator) Record() Record { return it.rec }

// Err returns the error that stopped the iterator, or nil at a normal end.
func (it *Iterator) Err() error { return it.err }

// Wait blocks until LastSeq() > afterSeq, the ring is closed (ErrClosed)
// or ctx ends (ctx.Err()). It is woken by the append that commits a
// record, never by polling.
func (r *Ring) Wait(ctx context.Context, afterSeq uint64) error {
	for {
		r.mu.RLock()
		last, closed, ch := r.committed, r.closed, r.notify
		if last <= afterSeq && !closed {
			r.notifyTaken.Store(true)
		}
		r.mu.RUnlock()
		if last > afterSeq {
			return nil
		}
		if closed {
			return ErrClosed
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}
