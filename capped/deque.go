package capped

import "sort"

// entry is the in-memory index of one live record: 24 bytes per record.
type entry struct {
	seq uint64
	off int64
	n   uint32 // payload length
	lap uint32
}

// deque holds the live records in sequence order (oldest first) in a
// growable ring buffer.
type deque struct {
	buf   []entry
	start int
	n     int
}

func (d *deque) len() int { return d.n }

func (d *deque) at(i int) entry { return d.buf[(d.start+i)%len(d.buf)] }

func (d *deque) push(e entry) {
	if d.n == len(d.buf) {
		nb := make([]entry, max(16, 2*len(d.buf)))
		for i := 0; i < d.n; i++ {
			nb[i] = d.at(i)
		}
		d.buf, d.start = nb, 0
	}
	d.buf[(d.start+d.n)%len(d.buf)] = e
	d.n++
}

func (d *deque) popFront() entry {
	e := d.at(0)
	d.start = (d.start + 1) % len(d.buf)
	d.n--
	return e
}

// search returns the index of the first entry with seq >= s (d.len() if none).
func (d *deque) search(s uint64) int {
	if d.n == 0 {
		return 0
	}
	// Fast path: sequences are dense except after a crash recovery.
	if f := d.at(0).seq; s >= f && s-f < uint64(d.n) {
		i := int(s - f)
		if d.at(i).seq == s {
			return i
		}
	}
	return sort.Search(d.n, func(i int) bool { return d.at(i).seq >= s })
}
