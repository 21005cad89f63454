package engine

import (
	"sync"
	"unsafe"
)

// cappedTombs tracks a ring's deleted records: a delete rewrites the
// record in place as a tombstone (cappedTombstone), which keeps its
// space and sequence until the ring evicts it and which every reader
// skips. It is the ring's capped.DeletedSet: the ring hands it each
// record it evicts (Evict), with the record's length, so the set keeps
// one bit a sequence and no length.
//
// The bits cover the sequences from the oldest tombstone's to the
// newest's, in a circular buffer of 64-bit words that grows at either
// end (deletes come in any order: a stack popped from its newest end
// deletes backwards) and drops words from its front as the ring evicts,
// oldest first. A look-up is O(1); an add or an eviction is O(1)
// amortised over the buffer's doublings and halvings, plus one word for
// each 64 sequences by which an add widens the set's span. Its memory is bounded by the ring's record
// count, not by the number of deletes: at most half a byte a record
// between the oldest and the newest tombstone, plus 64 bytes (an eighth
// of a byte a record when the buffer is full), and nothing when there is
// no tombstone (docs/capped.md §7.5). Its own lock lets collStats read it while a writer deletes.
type cappedTombs struct {
	mu    sync.Mutex
	buf   []uint64 // circular; len a power of two, or nil when the set is empty
	head  int      // index in buf of the first word
	nw    int      // words in use, from head
	base  uint64   // sequence of bit 0 of the first word, a multiple of 64
	n     int64    // tombstones
	bytes int64    // their payload bytes
}

// cappedTombsMinWords is the smallest buffer the set allocates and the
// size below which it does not shrink.
const cappedTombsMinWords = 4

// word returns a pointer to word i (counted from the first).
func (t *cappedTombs) word(i int) *uint64 { return &t.buf[(t.head+i)&(len(t.buf)-1)] }

// resize moves the words in use to a buffer of size words.
func (t *cappedTombs) resize(size int) {
	nb := make([]uint64, size)
	for i := 0; i < t.nw; i++ {
		nb[i] = *t.word(i)
	}
	t.buf, t.head = nb, 0
}

// grow makes room for one more word.
func (t *cappedTombs) grow() {
	if t.nw < len(t.buf) {
		return
	}
	t.resize(max(cappedTombsMinWords, 2*len(t.buf)))
}

// add records the tombstone of record seq, of n payload bytes.
func (t *cappedTombs) add(seq uint64, n int) {
	t.mu.Lock()
	defer t.mu.Unlock()
	w := seq &^ 63
	if t.nw == 0 {
		t.base = w
		t.grow()
		t.nw = 1
	}
	for w < t.base { // older than every word: prepend
		t.grow()
		t.head = (t.head - 1) & (len(t.buf) - 1)
		t.nw++
		*t.word(0) = 0
		t.base -= 64
	}
	for w >= t.base+64*uint64(t.nw) { // newer: append
		t.grow()
		t.nw++
		*t.word(t.nw - 1) = 0
	}
	p := t.word(int((w - t.base) / 64))
	bit := uint64(1) << (seq & 63)
	if *p&bit != 0 {
		return
	}
	*p |= bit
	t.n++
	t.bytes += int64(n)
}

// Live returns the number of tombstones and their payload bytes
// (capped.DeletedSet).
func (t *cappedTombs) Live() (n, bytes int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.n, t.bytes
}

// Has reports whether record seq is a tombstone (capped.DeletedSet).
func (t *cappedTombs) Has(seq uint64) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.has(seq)
}

func (t *cappedTombs) has(seq uint64) bool {
	if t.nw == 0 || seq < t.base || seq >= t.base+64*uint64(t.nw) {
		return false
	}
	return *t.word(int((seq - t.base) / 64))&(1<<(seq&63)) != 0
}

// Evict forgets the tombstone of record seq, of n payload bytes, which
// the ring evicts (capped.DeletedSet): the ring evicts oldest first, so
// the words it empties are at the front, where they are dropped.
func (t *cappedTombs) Evict(seq uint64, n int64) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if !t.has(seq) {
		return
	}
	*t.word(int((seq - t.base) / 64)) &^= 1 << (seq & 63)
	t.n--
	t.bytes -= n
	for t.nw > 0 && *t.word(0) == 0 {
		t.head = (t.head + 1) & (len(t.buf) - 1)
		t.nw--
		t.base += 64
	}
	switch {
	case t.nw == 0:
		t.buf, t.head = nil, 0 // give back the memory
	case len(t.buf) > cappedTombsMinWords && t.nw < len(t.buf)/4:
		t.resize(len(t.buf) / 2)
	}
}

// memBytes returns the bytes of memory the set holds (its words).
func (t *cappedTombs) memBytes() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	return int64(len(t.buf)) * int64(unsafe.Sizeof(uint64(0)))
}
