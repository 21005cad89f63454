package capped

import (
	"errors"
	"fmt"
)

// readRecordAt reads and fully verifies the record or wrap marker at off.
// Every failure is an error describing the damage, never a panic.
func (r *Ring) readRecordAt(off int64) (recHeader, []byte, error) {
	if off < DataStart || off%recAlign != 0 || off > r.end-RecordOverhead {
		return recHeader{}, nil, fmt.Errorf("offset %d outside the data area [%d, %d)", off, DataStart, r.end)
	}
	var hb [RecordOverhead]byte
	if _, err := r.f.ReadAt(hb[:], off); err != nil {
		return recHeader{}, nil, fmt.Errorf("read: %w", err)
	}
	h, err := decodeRecHeader(hb[:])
	if err != nil {
		return h, nil, err
	}
	if h.kind == kindWrap {
		return h, nil, checkRecordCRC(hb[:], h)
	}
	if off+recordSize(int(h.length)) > r.end {
		return h, nil, fmt.Errorf("record of %d bytes runs past the end of the data area", h.length)
	}
	buf := make([]byte, RecordOverhead+int(h.length))
	if _, err := r.f.ReadAt(buf, off); err != nil {
		return h, nil, fmt.Errorf("read: %w", err)
	}
	_, payload, err := decodeRecord(buf)
	return h, payload, err
}

// recoverRing reads the header and rebuilds the in-memory index. See
// "Recovery" in doc.go for the rules.
func recoverRing(path string, fsys FS, f File, o Options) (*Ring, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("capped: open %s: %w", path, err)
	}
	size := fi.Size()
	if size < MinCapacity {
		return nil, corruptf(path, 0, "file is %d bytes, smaller than the minimum capacity %d", size, MinCapacity)
	}
	var hb [2 * headerSlotSize]byte
	if _, err := f.ReadAt(hb[:], 0); err != nil {
		return nil, fmt.Errorf("capped: open %s: read header: %w", path, err)
	}
	h0, err0 := decodeHeader(hb[:headerSlotSize])
	h1, err1 := decodeHeader(hb[headerSlotSize:])
	var h header
	switch {
	case err0 != nil && err1 != nil:
		return nil, corruptf(path, 0, "no valid header slot: slot 0: %v; slot 1: %v", err0, err1)
	case err0 != nil:
		h = h1
	case err1 != nil:
		h = h0
	case h1.gen > h0.gen:
		h = h1
	default:
		h = h0
	}
	if h.capacity > size {
		return nil, corruptf(path, 0, "header capacity %d exceeds the file size %d", h.capacity, size)
	}
	r := newRing(path, fsys, f, o, h)
	info := &r.recovery
	empty := func(at int64, lap uint32, nextSeq uint64) *Ring {
		r.anchor = anchor{off: at, lap: lap}
		r.head, r.lap = at, lap
		r.nextSeq = max(nextSeq, h.seqLimit, 1)
		r.writtenSeq = r.nextSeq - 1
		r.committed = r.nextSeq - 1
		r.firstSeq = r.nextSeq
		r.evictedMax = r.nextSeq - 1
		return r
	}
	if h.anchorSeq == 0 {
		return empty(h.anchorOff, h.anchorLap, 1), nil
	}

	ah, _, err := r.readRecordAt(h.anchorOff)
	if err == nil && (ah.kind != kindRecord || ah.seq != h.anchorSeq || ah.lap != h.anchorLap) {
		err = fmt.Errorf("found kind %d sequence %d lap %d, want a record with sequence %d lap %d", ah.kind, ah.seq, ah.lap, h.anchorSeq, h.anchorLap)
	}
	if err != nil {
		if h.anchorSeq <= h.syncedSeq {
			return nil, corruptf(path, h.anchorOff, "anchor record %d (synced): %v", h.anchorSeq, err)
		}
		*info = RecoveryInfo{StopOffset: h.anchorOff, StopReason: fmt.Sprintf("anchor record %d, past the synced point: %v", h.anchorSeq, err)}
		return empty(h.anchorOff, h.anchorLap, h.anchorSeq+1), nil
	}
	anc := entry{seq: ah.seq, off: h.anchorOff, n: ah.length, lap: ah.lap}
	r.anchor.size = recordSize(int(ah.length))

	// Forward from the anchor: each record must follow the previous one
	// (its prevOff), be newer, be on the expected lap, and not move the
	// oldest live sequence backwards.
	maxSteps := (r.end-DataStart)/recordSize(1) + 2
	chain := []entry{anc}
	cur, curOldest := anc, ah.oldest
	pos := cur.off + recordSize(int(cur.n))
	for step := int64(0); ; step++ {
		if step > maxSteps {
			return nil, corruptf(path, pos, "record chain longer than the file can hold")
		}
		p, lap := pos, cur.lap
		var wrapSeq uint64
		var reason error
		if r.end-p < RecordOverhead {
			p, lap = DataStart, lap+1
		} else if wh, _, err := r.readRecordAt(p); err == nil && wh.kind == kindWrap {
			if wh.lap != lap || wh.prevOff != cur.off || wh.seq <= cur.seq {
				reason = fmt.Errorf("wrap marker does not follow record %d", cur.seq)
			}
			wrapSeq = wh.seq
			p, lap = DataStart, lap+1
		}
		var rh recHeader
		if reason == nil {
			rh, _, reason = r.readRecordAt(p)
		}
		if reason == nil {
			switch {
			case rh.kind != kindRecord:
				reason = fmt.Errorf("kind %d where a record should be", rh.kind)
			case rh.seq <= cur.seq:
				reason = fmt.Errorf("sequence %d does not follow %d (stale record)", rh.seq, cur.seq)
			case wrapSeq != 0 && rh.seq != wrapSeq:
				reason = fmt.Errorf("sequence %d, the wrap marker announced %d", rh.seq, wrapSeq)
			case rh.lap != lap:
				reason = fmt.Errorf("lap %d, want %d (stale record)", rh.lap, lap)
			case rh.prevOff != cur.off:
				reason = fmt.Errorf("previous offset %d, want %d", rh.prevOff, cur.off)
			case rh.oldest < curOldest:
				reason = fmt.Errorf("oldest live sequence %d went back from %d", rh.oldest, curOldest)
			}
		}
		if reason != nil {
			if cur.seq < h.syncedSeq {
				return nil, corruptf(path, p, "after record %d, before the synced record %d: %v", cur.seq, h.syncedSeq, reason)
			}
			info.StopOffset, info.StopReason = p, reason.Error()
			break
		}
		cur, curOldest = entry{seq: rh.seq, off: p, n: rh.length, lap: rh.lap}, rh.oldest
		chain = append(chain, cur)
		pos = p + recordSize(int(rh.length))
	}
	oldest := curOldest

	// Backward from the anchor to the oldest live record.
	var back []entry
	e := anc
	for step := int64(0); e.seq > oldest; step++ {
		if step > maxSteps {
			return nil, corruptf(path, e.off, "backward record chain longer than the file can hold")
		}
		ph, err := r.prevOf(e)
		if err != nil {
			// The oldest records are the ones an interrupted append had
			// evicted and begun to overwrite: drop them as evicted.
			dropped := e.seq - oldest
			info.DroppedOldest = int(min(dropped, 1<<31))
			oldest = e.seq
			break
		}
		if ph.seq < oldest {
			break
		}
		back = append(back, ph)
		e = ph
	}
	for i := len(back) - 1; i >= 0; i-- {
		r.live.push(back[i])
	}
	for _, c := range chain {
		if c.seq >= oldest {
			r.live.push(c)
		}
	}
	for c := r.live.cursorAt(0); c.ok; c.next() {
		r.writtenBytes += int64(c.e.n)
	}
	r.dataBytes = r.writtenBytes
	info.Records = r.live.len()
	r.head, r.lap, r.lastOff = pos, cur.lap, cur.off
	r.nextSeq = max(cur.seq+1, h.seqLimit)
	r.writtenSeq = cur.seq
	r.committed = cur.seq
	r.firstSeq = r.live.at(0).seq
	r.evictedMax = r.firstSeq - 1
	return r, nil
}

// prevOf reads the record before e through e's prevOff link.
func (r *Ring) prevOf(e entry) (entry, error) {
	var zero entry
	var h recHeader
	// The link is in e's header.
	var hb [RecordOverhead]byte
	if _, err := r.f.ReadAt(hb[:], e.off); err != nil {
		return zero, err
	}
	h, err := decodeRecHeader(hb[:])
	if err != nil {
		return zero, err
	}
	if h.prevOff == 0 {
		return zero, errors.New("no previous record")
	}
	wantLap := e.lap
	if h.prevOff >= e.off {
		wantLap--
	}
	ph, _, err := r.readRecordAt(h.prevOff)
	if err != nil {
		return zero, err
	}
	if ph.kind != kindRecord || ph.seq >= e.seq || ph.lap != wantLap {
		return zero, fmt.Errorf("record at %d is not the predecessor of %d", h.prevOff, e.seq)
	}
	if h.prevOff < e.off && h.prevOff+recordSize(int(ph.length)) > e.off {
		return zero, fmt.Errorf("record at %d overlaps its successor", h.prevOff)
	}
	return entry{seq: ph.seq, off: h.prevOff, n: ph.length, lap: ph.lap}, nil
}
