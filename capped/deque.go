package capped

import (
	"encoding/binary"
	"unsafe"
)

// entry describes one live record: what the ring knows of it in memory.
type entry struct {
	seq uint64
	off int64
	n   uint32 // payload length
	lap uint32
}

// blockMax bounds the records of one deque block.
const blockMax = 128

// block is a run of live records that follow each other in the file:
// consecutive sequences from seq0, each record starting where the one
// before ends (from off0), all on one lap. Payload lengths are either
// all ulen (lens nil: nothing per record) or uvarints in lens, one per
// record. About 80 bytes for up to 128 records, plus a byte or two per
// record when lengths vary.
type block struct {
	seq0 uint64 // sequence of the first record
	abs0 uint64 // deque position of the first record (counted since the deque began)
	off0 int64  // offset of the first record
	end  int64  // offset just after the last record
	lap  uint32
	n    uint32 // records
	ulen uint32 // every record's payload length when lens is nil
	lens []byte // uvarint payload lengths, one per record; nil: all ulen
}

// deque holds the live records in sequence order (oldest first) as a
// ring buffer of blocks. Records are sequential in the file, so a block
// of up to blockMax of them needs its first record's position and the
// payload lengths only: about half a byte per record when lengths are
// equal, 2-3 when they vary (docs/capped.md, "Memory"), where an entry
// a record took 24.
type deque struct {
	buf    []block
	start  int
	nb     int    // blocks
	n      int    // records
	popped uint64 // records removed from the front since the deque began
	last   entry  // newest record (valid when n > 0)
}

func (d *deque) len() int { return d.n }

func (d *deque) blk(i int) *block { return &d.buf[(d.start+i)%len(d.buf)] }

// lenAt returns the payload length of record j of b and the position in
// b.lens after it, given the position p of record j's length.
func (b *block) lenAt(p int) (uint32, int) {
	if b.lens == nil {
		return b.ulen, p
	}
	v, k := binary.Uvarint(b.lens[p:])
	return uint32(v), p + k
}

// entryAt returns record j of b.
func (b *block) entryAt(j int) entry {
	if b.lens == nil {
		return entry{seq: b.seq0 + uint64(j), off: b.off0 + int64(j)*recordSize(int(b.ulen)), n: b.ulen, lap: b.lap}
	}
	off, p := b.off0, 0
	var n uint32
	for k := 0; ; k++ {
		n, p = b.lenAt(p)
		if k == j {
			break
		}
		off += recordSize(int(n))
	}
	return entry{seq: b.seq0 + uint64(j), off: off, n: n, lap: b.lap}
}

// blockOf returns the block holding deque position i (0 <= i < n).
func (d *deque) blockOf(i int) (int, *block) {
	a := d.popped + uint64(i)
	lo, hi := 0, d.nb-1 // the last block with abs0 <= a
	for lo < hi {
		m := (lo + hi + 1) / 2
		if d.blk(m).abs0 <= a {
			lo = m
		} else {
			hi = m - 1
		}
	}
	return lo, d.blk(lo)
}

// at returns record i (0: oldest). It costs a binary search over the
// blocks and, when lengths vary, a walk of up to blockMax lengths; loops
// over consecutive records use a cursor instead.
func (d *deque) at(i int) entry {
	if i == d.n-1 {
		return d.last
	}
	_, b := d.blockOf(i)
	return b.entryAt(int(d.popped + uint64(i) - b.abs0))
}

func (d *deque) push(e entry) {
	if d.nb > 0 {
		b := d.blk(d.nb - 1)
		if b.n < blockMax && e.seq == d.last.seq+1 && e.off == b.end && e.lap == b.lap {
			if b.lens == nil && e.n != b.ulen {
				b.lens = make([]byte, 0, 2*blockMax)
				for k := uint32(0); k < b.n; k++ {
					b.lens = binary.AppendUvarint(b.lens, uint64(b.ulen))
				}
			}
			if b.lens != nil {
				b.lens = binary.AppendUvarint(b.lens, uint64(e.n))
			}
			b.n++
			b.end = e.off + recordSize(int(e.n))
			d.n++
			d.last = e
			return
		}
	}
	if d.nb == len(d.buf) {
		nb := make([]block, max(4, 2*len(d.buf)))
		for i := 0; i < d.nb; i++ {
			nb[i] = *d.blk(i)
		}
		d.buf, d.start = nb, 0
	}
	*d.blk(d.nb) = block{seq0: e.seq, abs0: d.popped + uint64(d.n), off0: e.off, end: e.off + recordSize(int(e.n)), lap: e.lap, n: 1, ulen: e.n}
	d.nb++
	d.n++
	d.last = e
}

func (d *deque) popFront() entry {
	b := d.blk(0)
	n, p := b.lenAt(0)
	e := entry{seq: b.seq0, off: b.off0, n: n, lap: b.lap}
	d.n--
	d.popped++
	if b.n == 1 {
		*b = block{}
		d.start = (d.start + 1) % len(d.buf)
		d.nb--
		if d.nb == 0 {
			d.start = 0
		}
		if d.nb < len(d.buf)/4 && len(d.buf) > 64 {
			nb := make([]block, len(d.buf)/2)
			for i := 0; i < d.nb; i++ {
				nb[i] = *d.blk(i)
			}
			d.buf, d.start = nb, 0
		}
		return e
	}
	b.seq0++
	b.abs0++
	b.off0 += recordSize(int(n))
	b.n--
	if b.lens != nil {
		b.lens = b.lens[p:]
	}
	return e
}

// search returns the index of the first entry with seq >= s (d.len() if none).
func (d *deque) search(s uint64) int {
	if d.n == 0 || s > d.last.seq {
		return d.n
	}
	// The first block whose last sequence is >= s.
	lo, hi := 0, d.nb-1
	for lo < hi {
		m := (lo + hi) / 2
		b := d.blk(m)
		if b.seq0+uint64(b.n)-1 >= s {
			hi = m
		} else {
			lo = m + 1
		}
	}
	b := d.blk(lo)
	j := uint64(0)
	if s > b.seq0 {
		j = s - b.seq0
	}
	return int(b.abs0 + j - d.popped)
}

// cursor walks the deque's records forward from a position.
type cursor struct {
	d  *deque
	bi int // block
	j  int // record within the block
	p  int // position of its length in lens
	e  entry
	ok bool
}

// cursorAt returns a cursor on record i; ok is false when i >= len().
func (d *deque) cursorAt(i int) cursor {
	c := cursor{d: d}
	if i >= d.n || i < 0 {
		return c
	}
	bi, b := d.blockOf(i)
	j := int(d.popped + uint64(i) - b.abs0)
	c.bi, c.ok = bi, true
	off, p := b.off0, 0
	for k := 0; k < j; k++ {
		var n uint32
		n, p = b.lenAt(p)
		off += recordSize(int(n))
	}
	c.j, c.p = j, p
	n, _ := b.lenAt(p)
	c.e = entry{seq: b.seq0 + uint64(j), off: off, n: n, lap: b.lap}
	return c
}

// next moves to the following record; ok is false past the newest.
func (c *cursor) next() {
	if !c.ok {
		return
	}
	b := c.d.blk(c.bi)
	_, p := b.lenAt(c.p)
	if c.j+1 < int(b.n) {
		c.j++
		c.p = p
		n, _ := b.lenAt(p)
		c.e = entry{seq: c.e.seq + 1, off: c.e.off + recordSize(int(c.e.n)), n: n, lap: b.lap}
		return
	}
	c.bi++
	if c.bi >= c.d.nb {
		c.ok = false
		return
	}
	b = c.d.blk(c.bi)
	n, _ := b.lenAt(0)
	c.j, c.p = 0, 0
	c.e = entry{seq: b.seq0, off: b.off0, n: n, lap: b.lap}
}

// blockSize is the bytes a block takes in the deque's buffer.
const blockSize = unsafe.Sizeof(block{})

// memBytes returns the bytes the deque holds in memory (its blocks and
// their length bytes).
func (d *deque) memBytes() int64 {
	n := int64(len(d.buf)) * int64(blockSize)
	for i := 0; i < d.nb; i++ {
		n += int64(cap(d.blk(i).lens))
	}
	return n
}
