package capped

import "fmt"

// Check verifies the ring for `validate`: a valid header slot matching
// the open ring, and every live record readable with a good checksum,
// strictly increasing sequence numbers, each linked to its predecessor,
// and the count and payload bytes matching Count and DataBytes. It
// returns a *CorruptionError for the first problem. Buffered appends
// are written first (see Flush). Writers wait while it runs; readers do
// not.
func (r *Ring) Check() error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	if err := r.writable(); err != nil {
		return err
	}
	if err := r.flushPend(); err != nil {
		return err
	}
	var hb [2 * headerSlotSize]byte
	if _, err := r.f.ReadAt(hb[:], 0); err != nil {
		return fmt.Errorf("capped: check %s: %w", r.path, err)
	}
	cur, err := decodeHeader(hb[(r.hdrGen%2)*headerSlotSize:][:headerSlotSize])
	if err != nil {
		return corruptf(r.path, int64(r.hdrGen%2)*headerSlotSize, "current header slot: %v", err)
	}
	if cur.gen != r.hdrGen || cur.capacity != r.capacity {
		return corruptf(r.path, int64(r.hdrGen%2)*headerSlotSize, "header generation %d capacity %d, want %d and %d", cur.gen, cur.capacity, r.hdrGen, r.capacity)
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	var bytes, committed int64
	var prev entry
	i := 0
	for c := r.live.cursorAt(0); c.ok; c.next() {
		e := c.e
		h, payload, err := r.readRecordAt(e.off)
		if err != nil {
			return corruptf(r.path, e.off, "record %d: %v", e.seq, err)
		}
		if h.kind != kindRecord || h.seq != e.seq || h.lap != e.lap || int(h.length) != len(payload) || h.length != e.n {
			return corruptf(r.path, e.off, "record %d: header says kind %d seq %d lap %d length %d", e.seq, h.kind, h.seq, h.lap, h.length)
		}
		if i > 0 {
			if e.seq <= prev.seq {
				return corruptf(r.path, e.off, "sequence %d after %d", e.seq, prev.seq)
			}
			if h.prevOff != prev.off {
				return corruptf(r.path, e.off, "record %d links to %d, not to its predecessor at %d", e.seq, h.prevOff, prev.off)
			}
		}
		if e.seq <= r.committed {
			bytes += int64(e.n)
			committed++
		}
		prev = e
		i++
	}
	if bytes != r.dataBytes {
		return corruptf(r.path, DataStart, "live records hold %d payload bytes, accounting says %d", bytes, r.dataBytes)
	}
	if n := int64(r.live.search(r.committed + 1)); n != committed {
		return corruptf(r.path, DataStart, "%d committed records, accounting says %d", committed, n)
	}
	if r.live.len() > 0 && r.live.at(0).seq != r.firstSeq {
		return corruptf(r.path, r.live.at(0).off, "oldest record %d, FirstSeq says %d", r.live.at(0).seq, r.firstSeq)
	}
	return nil
}
