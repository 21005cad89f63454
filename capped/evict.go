package capped

import "fmt"

// Evicted names a record leaving the ring, without its data: what
// AppendEvicting hands its callback.
type Evicted struct {
	Seq uint64 // sequence number
	Off int64  // byte offset of the record in the file
	Len int    // payload length
}

// AppendEvicting is Append whose evict callback receives the records
// leaving the ring as Evicted values (sequence, offset, payload length),
// oldest first, without reading their data: a caller that already knows
// what it needs about them (or reads only some, with Read or ReadRun,
// which evict may call) saves a pread per evicted record. Everything
// else is as for Append: evict is called once, before any byte of those
// records is reused and before any of them stops being live; if it
// returns an error nothing is written or evicted. The slice passed to
// evict is reused by the next append; evict must not keep it.
func (r *Ring) AppendEvicting(data []byte, lim Limits, evict func([]Evicted) error) (seq uint64, off int64, err error) {
	if err := r.checkAppend(data, lim); err != nil {
		return 0, 0, err
	}
	if evict == nil {
		evict = func([]Evicted) error { return nil }
	}
	r.writeMu.Lock()
	seq, off, err = r.appendLocked(data, lim, nil, evict)
	r.writeMu.Unlock()
	if err != nil || !r.opts.SyncEveryAppend {
		return seq, off, err
	}
	if err := r.groupSync(seq); err != nil {
		return 0, 0, err
	}
	return seq, off, nil
}

// runReadBytes bounds one pread of ReadRun.
const runReadBytes = 128 << 10

// ReadRun calls fn with the live committed records from sequence from
// on (from the oldest live record when from is older), oldest first,
// until fn returns false or the newest committed record has been passed.
// Records that lie next to each other in the file are read with one
// pread of up to 128 KiB (a single larger record is read alone), each
// verified as Read verifies it; the Data of records of one read share a
// backing array (the caller owns it). fn runs without the ring's locks
// held, so it may call any read method; a record evicted after it was
// read is still passed to fn (it was live when read). It returns
// ErrClosed on a closed ring and a *CorruptionError for a record that
// fails its checks.
func (r *Ring) ReadRun(from uint64, fn func(Record) bool) error {
	return r.ReadRange(from, ^uint64(0), fn)
}

// ReadRange is ReadRun limited to the records with sequence at most to:
// it reads no byte past the newest of them, so a short range costs a
// short read.
func (r *Ring) ReadRange(from, to uint64, fn func(Record) bool) error {
	var batch []Record
	next := from
	for next <= to {
		var err error
		batch, next, err = r.readSpan(next, to, batch[:0])
		if err != nil {
			return err
		}
		if len(batch) == 0 {
			return nil
		}
		for _, rec := range batch {
			if !fn(rec) {
				return nil
			}
		}
	}
	return nil
}

// readSpan reads the physically contiguous live committed records from
// sequence from on, up to runReadBytes (at least one record) and up to
// sequence to, and returns them with the sequence to continue from.
func (r *Ring) readSpan(from, to uint64, out []Record) ([]Record, uint64, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		return out, from, ErrClosed
	}
	from = max(from, r.firstSeq)
	i := r.live.search(from)
	n := r.live.len()
	if i == n || r.live.at(i).seq > min(r.committed, to) {
		return out, from, nil
	}
	first := r.live.at(i)
	start, end := first.off, first.off+recordSize(int(first.n))
	count := 1
	for c := r.live.cursorAt(i + 1); c.ok; c.next() {
		e := c.e
		s := recordSize(int(e.n))
		if e.seq > r.committed || e.seq > to || e.off != end || end+s-start > runReadBytes {
			break
		}
		end += s
		count++
	}
	buf := make([]byte, end-start)
	if _, err := r.f.ReadAt(buf, start); err != nil {
		return out, from, fmt.Errorf("capped: read %s at %d: %w", r.path, start, err)
	}
	var e entry
	for c, k := r.live.cursorAt(i), 0; k < count; c.next() {
		k++
		e = c.e
		b := buf[e.off-start : e.off-start+recordSize(int(e.n))]
		h, payload, err := decodeRecord(b)
		if err != nil {
			return out, from, corruptf(r.path, e.off, "live record %d: %v", e.seq, err)
		}
		if h.kind != kindRecord || h.seq != e.seq || h.length != e.n || h.lap != e.lap {
			return out, from, corruptf(r.path, e.off, "live record %d: found kind %d seq %d length %d lap %d, want seq %d length %d lap %d",
				e.seq, h.kind, h.seq, h.length, h.lap, e.seq, e.n, e.lap)
		}
		out = append(out, Record{Seq: e.seq, Off: e.off, Data: payload[:len(payload):len(payload)]})
	}
	return out, e.seq + 1, nil
}
