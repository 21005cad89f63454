package engine

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"slices"
	"sort"
	"sync"
	"unsafe"

	"github.com/ttlkv/ttlkv/capped"
	"github.com/ttlkv/ttlkv/lsm"
)

// idSide is the exact part of a capped collection's _id index (see
// cappedIDIndex): an ordered map from the _id keystring to the ring
// record (sequence and offset) holding it, for the _ids that did not
// arrive in increasing order.
//
// Entries are sorted by keystring. Keystrings are prefix-free, so this
// is also the order of the Badger entry keys the index stands for
// (IndexKey(coll, _id index, ks, seq)), which range scans compare with.
// The entries live in pages of at most idPageMax, each sorted and
// non-empty, in order; a lookup is two binary searches. A FIFO of
// (sequence, keystring) in insertion order names what to remove when
// the ring evicts: prune drops the entries of records older than the
// ring's first live sequence. Memory: about 70 bytes an entry (the
// entry, its FIFO slot and the keystring's bytes; more when random keys
// leave pages half full). Its owner's lock guards it.
type idSide struct {
	pages []*idPage
	n     int   // entries
	ksLen int64 // sum of the entries' keystring lengths
	fifo  idFIFO
}

// idPageMax bounds a page; a full page splits in two.
const idPageMax = 128

type idPage struct{ e []idEnt }

// idEnt is one entry: the _id keystring and its record.
type idEnt struct {
	ks  string
	seq uint64
	off int64
}

// idAdd is an entry to add (cappedIDIndex.add).
type idAdd struct {
	ks  []byte
	seq uint64
	off int64
}

// get returns the record holding keystring ks, if the index has one.
func (x *idSide) get(ks []byte) (seq uint64, off int64, ok bool) {
	pi, ei := x.lowerBound(func(e *idEnt) bool { return e.ks >= string(ks) })
	if pi < len(x.pages) && x.pages[pi].e[ei].ks == string(ks) {
		e := &x.pages[pi].e[ei]
		return e.seq, e.off, true
	}
	return 0, 0, false
}

// len returns the number of entries.
func (x *idSide) len() int {
	return x.n
}

// cappedKeyExtra is about the bytes of an _id entry's Badger key
// besides its keystring: a 3-byte index prefix and a sequence of up to
// 16.7 million with its length byte (docs/storage-keys.md).
const cappedKeyExtra = 3 + 4 + 1

// keyBytes returns about the bytes the entries' Badger keys would take
// (cappedKeyExtra besides the keystring), for collStats.
func (x *idSide) keyBytes() int64 {
	return int64(x.n)*cappedKeyExtra + x.ksLen
}

// add inserts entries in ascending sequence order (newer than every
// entry added before); an entry for a keystring the index holds replaces
// it (its record was evicted: _id is unique among live records). The
// keystrings are copied into one string.
func (x *idSide) add(adds []idAdd) {
	if len(adds) == 0 {
		return
	}
	total := 0
	for _, a := range adds {
		total += len(a.ks)
	}
	buf := make([]byte, 0, total)
	for _, a := range adds {
		buf = append(buf, a.ks...)
	}
	all := string(buf)
	at := 0
	for _, a := range adds {
		ks := all[at : at+len(a.ks)]
		at += len(a.ks)
		x.put(idEnt{ks: ks, seq: a.seq, off: a.off})
		x.fifo.push(idRef{seq: a.seq, ks: ks})
	}
}

// prune removes the entries of records older than first (evicted).
func (x *idSide) prune(first uint64) {
	for x.fifo.len() > 0 && x.fifo.front().seq < first {
		r := x.fifo.pop()
		x.del(r.ks, r.seq)
	}
}

// lowerBound returns the position of the first entry for which ge is
// true (ge must be false then true along the order); pi == len(pages)
// when there is none.
func (x *idSide) lowerBound(ge func(*idEnt) bool) (pi, ei int) {
	pi = sort.Search(len(x.pages), func(i int) bool {
		p := x.pages[i]
		return ge(&p.e[len(p.e)-1])
	})
	if pi == len(x.pages) {
		return pi, 0
	}
	p := x.pages[pi]
	ei = sort.Search(len(p.e), func(j int) bool { return ge(&p.e[j]) })
	return pi, ei
}

func (x *idSide) put(e idEnt) {
	if len(x.pages) == 0 {
		x.pages = append(x.pages, &idPage{e: append(make([]idEnt, 0, idPageMax), e)})
		x.n++
		x.ksLen += int64(len(e.ks))
		return
	}
	pi, ei := x.lowerBound(func(o *idEnt) bool { return o.ks >= e.ks })
	if pi < len(x.pages) && x.pages[pi].e[ei].ks == e.ks {
		o := &x.pages[pi].e[ei]
		x.ksLen += int64(len(e.ks) - len(o.ks))
		*o = e
		return
	}
	if pi == len(x.pages) { // after every entry: the end of the last page
		pi = len(x.pages) - 1
		ei = len(x.pages[pi].e)
	}
	p := x.pages[pi]
	x.n++
	x.ksLen += int64(len(e.ks))
	if len(p.e) < idPageMax {
		p.e = append(p.e, idEnt{})
		copy(p.e[ei+1:], p.e[ei:])
		p.e[ei] = e
		return
	}
	// Split the full page. An append at the end of the index (the
	// common increasing _id) starts a new page and leaves this one
	// full; otherwise each half keeps idPageMax/2.
	var np *idPage
	if pi == len(x.pages)-1 && ei == len(p.e) {
		np = &idPage{e: append(make([]idEnt, 0, idPageMax), e)}
	} else {
		half := idPageMax / 2
		np = &idPage{e: append(make([]idEnt, 0, idPageMax), p.e[half:]...)}
		clear(p.e[half:])
		p.e = p.e[:half]
		if ei <= half {
			p.e = append(p.e, idEnt{})
			copy(p.e[ei+1:], p.e[ei:])
			p.e[ei] = e
		} else {
			ei -= half
			np.e = append(np.e, idEnt{})
			copy(np.e[ei+1:], np.e[ei:])
			np.e[ei] = e
		}
	}
	x.pages = append(x.pages, nil)
	copy(x.pages[pi+2:], x.pages[pi+1:])
	x.pages[pi+1] = np
}

// del removes the entry of keystring ks if it names record seq (a later
// record with the same _id replaced it otherwise).
func (x *idSide) del(ks string, seq uint64) {
	pi, ei := x.lowerBound(func(o *idEnt) bool { return o.ks >= ks })
	if pi == len(x.pages) {
		return
	}
	p := x.pages[pi]
	if p.e[ei].ks != ks || p.e[ei].seq != seq {
		return
	}
	x.n--
	x.ksLen -= int64(len(ks))
	copy(p.e[ei:], p.e[ei+1:])
	p.e[len(p.e)-1] = idEnt{}
	p.e = p.e[:len(p.e)-1]
	if len(p.e) == 0 {
		copy(x.pages[pi:], x.pages[pi+1:])
		x.pages[len(x.pages)-1] = nil
		x.pages = x.pages[:len(x.pages)-1]
	}
}

// cmpEntry compares the Badger key suffix ks || seq (lsm's record-id suffix) of an
// entry with k, a key suffix after the index prefix.
func cmpEntry(ks string, seq uint64, k []byte) int {
	n := min(len(ks), len(k))
	if a := ks[:n]; a != string(k[:n]) {
		if a < string(k[:n]) {
			return -1
		}
		return 1
	}
	if len(k) <= len(ks) {
		return 1 // k is a prefix of ks, so shorter than ks || seq
	}
	var s [10]byte
	return bytes.Compare(lsm.AppendIndexRecordID(s[:0], seq), k[len(ks):])
}

// relBound turns a scan bound (a full Badger key, nil: none) into one
// relative to the index prefix pre: rel is the suffix after pre, or nil
// when the bound does not restrict the index's keys; below/above say
// that the bound lies before or after every key under pre.
func relBound(b, pre []byte) (rel []byte, below, above bool) {
	if b == nil {
		return nil, false, false
	}
	if bytes.HasPrefix(b, pre) {
		return b[len(pre):], false, false
	}
	if bytes.Compare(b, pre) < 0 {
		return nil, true, false
	}
	return nil, false, true
}

// scan calls fn with the entries whose Badger keys (pre, ks, seq) lie in
// [lo, hi) (nil: unbounded), in key order or reversed, until fn returns
// false. fn runs under the index's read lock: it must not call the
// index's writers.
func (x *idSide) scan(pre, lo, hi []byte, reverse bool, fn func(ks string, seq uint64, off int64) bool) {
	loRel, loBelow, loAbove := relBound(lo, pre)
	hiRel, hiBelow, hiAbove := relBound(hi, pre)
	if loAbove || hiBelow {
		return
	}
	_, _ = loBelow, hiAbove // unbounded on that side (rel is nil)
	geLo := func(e *idEnt) bool { return loRel == nil || cmpEntry(e.ks, e.seq, loRel) >= 0 }
	geHi := func(e *idEnt) bool { return hiRel != nil && cmpEntry(e.ks, e.seq, hiRel) >= 0 }
	if !reverse {
		pi, ei := x.lowerBound(geLo)
		for ; pi < len(x.pages); pi, ei = pi+1, 0 {
			p := x.pages[pi]
			for ; ei < len(p.e); ei++ {
				e := &p.e[ei]
				if geHi(e) || !fn(e.ks, e.seq, e.off) {
					return
				}
			}
		}
		return
	}
	// The last entry below hi, walking down while at or above lo.
	pi, ei := x.lowerBound(geHi)
	ei--
	for pi >= 0 {
		if pi < len(x.pages) {
			p := x.pages[pi]
			for ; ei >= 0; ei-- {
				e := &p.e[ei]
				if !geLo(e) || !fn(e.ks, e.seq, e.off) {
					return
				}
			}
		}
		pi--
		if pi >= 0 {
			ei = len(x.pages[pi].e) - 1
		}
	}
}

// idRef names an entry in insertion order (the FIFO).
type idRef struct {
	seq uint64
	ks  string
}

// idFIFO is a growable ring buffer of idRefs, oldest first.
type idFIFO struct {
	buf   []idRef
	start int
	n     int
}

func (f *idFIFO) len() int { return f.n }

func (f *idFIFO) front() idRef { return f.buf[f.start] }

func (f *idFIFO) push(r idRef) {
	if f.n == len(f.buf) {
		nb := make([]idRef, max(64, 2*len(f.buf)))
		for i := 0; i < f.n; i++ {
			nb[i] = f.buf[(f.start+i)%len(f.buf)]
		}
		f.buf, f.start = nb, 0
	}
	f.buf[(f.start+f.n)%len(f.buf)] = r
	f.n++
}

func (f *idFIFO) pop() idRef {
	r := f.buf[f.start]
	f.buf[f.start] = idRef{}
	f.start = (f.start + 1) % len(f.buf)
	f.n--
	if f.n == 0 {
		f.start = 0
	}
	return r
}

// cappedIDIndex is a capped collection's _id index, kept in memory. The
// ring is the truth and every record frame carries its _id keystring, so
// the index is rebuilt from the ring when the collection opens and needs
// no crash protocol; an insert costs no Badger write for it and an
// eviction no tombstone (docs/capped.md, "The _id index").
//
// It has two parts (docs/capped.md, "Memory"):
//
//   - the run: records whose keystring was greater than every earlier
//     run record's when they were added, as default ObjectId _ids are.
//     Ring order is their _id order, so the index keeps only a sample,
//     one (keystring, sequence) every idRunBlock run records, and
//     answers a lookup by a binary search over the samples, a byte of
//     hash a record to pick the block's candidates, and a read of those
//     records from the ring (of the whole block, at most idRunSpan
//     records, when out-of-order records lie between its own).
//     Uniqueness of a new greatest keystring is free. About three bytes
//     a record.
//   - the side: the other records (_ids out of order, such as random
//     strings), in an exact ordered map (idSide): about 70 bytes a
//     record.
//
// An entry may outlive its record until the next prune (the writer
// prunes at the end of every insert chunk): readers check the sequence
// against the ring (Ring.Read, FirstSeq) as they did with Badger
// entries. Writers hold the collection's write lock; the index's own
// lock lets readers look up and scan while a writer adds or prunes.
type cappedIDIndex struct {
	mu   sync.RWMutex
	src  idSource
	run  idRun
	side idSide
	seed maphash.Seed // of the run blocks' filters
}

// idSource reads the _id keystrings of a capped collection's records
// (the ring; a model in tests).
type idSource interface {
	// firstSeq returns the sequence of the oldest live record.
	firstSeq() uint64
	// idsFrom calls fn with each live record whose sequence is in
	// [from, to], oldest first, until fn returns false. ks is valid
	// during the call only.
	idsFrom(from, to uint64, fn func(seq uint64, off int64, ks []byte) bool) error
}

// ringIDs is the idSource of a ring.
type ringIDs struct{ r *capped.Ring }

func (s ringIDs) firstSeq() uint64 { return s.r.FirstSeq() }

func (s ringIDs) idsFrom(from, to uint64, fn func(seq uint64, off int64, ks []byte) bool) error {
	var ferr error
	err := s.r.ReadRange(from, to, func(rec capped.Record) bool {
		if cappedDeleted(rec.Data) {
			return true // a deleted document holds no _id
		}
		ks, err := cappedKS(rec.Data)
		if err != nil {
			ferr = fmt.Errorf("ring record %d at offset %d: %w", rec.Seq, rec.Off, err)
			return false
		}
		return fn(rec.Seq, rec.Off, ks)
	})
	if err != nil {
		return err
	}
	return ferr
}

func newCappedIDIndex(src idSource) *cappedIDIndex {
	return &cappedIDIndex{src: src, seed: maphash.MakeSeed()}
}

// The run's sampling: a new sample every idRunBlock run records, or
// sooner when the run's records are far apart in the ring (out-of-order
// _ids between them), so that a lookup reads at most idRunSpan records.
const (
	idRunBlock = 32
	idRunSpan  = 4 * idRunBlock
)

// idRun is the sampled part of the _id index: blocks of run records in
// ring order, which is their keystring order.
type idRun struct {
	s     []idSample // oldest first
	maxKS []byte     // keystring of the newest run record (when s is not empty)
	n     int        // live run records
	ksLen int64      // their keystring bytes
	// recounted is the first live sequence for which s[0]'s counts were
	// last recomputed (its oldest records evicted).
	recounted uint64
}

// idSample is a block of the run: run records with sequences in
// [seq, last], keystrings from ks up to the next block's.
type idSample struct {
	ks   string // keystring of the block's first run record
	seq  uint64 // its sequence
	last uint64 // sequence of the block's newest run record
	n    uint32 // live run records in the block
	ksb  uint32 // their keystring bytes
	m    uint8  // run records added to the block (fp slots used)
	// dense says the block's run records have the consecutive
	// sequences seq, seq+1, ... (no other record between them), so
	// the j-th has sequence seq+j.
	dense bool
	// fp holds a byte of a hash of each run record's keystring, in the
	// order they were added: a lookup reads only the records whose
	// byte matches (of a dense block; any match reads a sparse block
	// whole), so a keystring the block does not hold (the uniqueness
	// check of an out-of-order _id, most often) reads none 88% of the
	// time for a full block, and one it holds about one record.
	fp [idRunBlock]byte
}

// fingerprint returns the fp byte of keystring ks.
func (x *cappedIDIndex) fingerprint(ks []byte) byte { return byte(maphash.Bytes(x.seed, ks)) }

// get returns the record holding keystring ks, if the index has one. An
// error is a failure to read the ring.
func (x *cappedIDIndex) get(ks []byte) (seq uint64, off int64, ok bool, err error) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	sseq, soff, sok := x.side.get(ks)
	if sok && sseq >= x.src.firstSeq() {
		return sseq, soff, true, nil
	}
	if seq, off, ok, err := x.runFind(ks); err != nil || ok {
		return seq, off, ok, err
	}
	return sseq, soff, sok, nil // none, or a record evicted and not yet pruned
}

// runFind looks ks up in the run: the block whose keystrings may hold
// it, then the ring's records of that block.
func (x *cappedIDIndex) runFind(ks []byte) (seq uint64, off int64, ok bool, err error) {
	r := &x.run
	if len(r.s) == 0 || bytes.Compare(ks, r.maxKS) > 0 {
		return 0, 0, false, nil
	}
	i := sort.Search(len(r.s), func(i int) bool { return r.s[i].ks > string(ks) }) - 1
	if i < 0 {
		return 0, 0, false, nil
	}
	b := &r.s[i]
	f := x.fingerprint(ks)
	match := func(s uint64, o int64, k []byte) bool {
		if bytes.Equal(k, ks) {
			seq, off, ok = s, o, true
			return false
		}
		return true
	}
	for j := 0; j < int(b.m); j++ {
		if b.fp[j] != f {
			continue
		}
		if !b.dense {
			err = x.src.idsFrom(b.seq, b.last, match)
			return seq, off, ok, err
		}
		if err = x.src.idsFrom(b.seq+uint64(j), b.seq+uint64(j), match); err != nil || ok {
			return seq, off, ok, err
		}
	}
	return 0, 0, false, nil
}

// remove drops the entry of record seq, whose keystring is ks: its
// document was deleted, its record is a tombstone that ring reads skip.
func (x *cappedIDIndex) remove(ks []byte, seq uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	if ss, _, ok := x.side.get(ks); ok && ss == seq {
		x.side.del(string(ks), seq)
		return
	}
	r := &x.run
	i := sort.Search(len(r.s), func(i int) bool { return r.s[i].seq > seq }) - 1
	if i < 0 || seq > r.s[i].last {
		return
	}
	b := &r.s[i]
	b.n--
	b.ksb -= uint32(len(ks))
	r.n--
	r.ksLen -= int64(len(ks))
}

// len returns the number of entries.
func (x *cappedIDIndex) len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.run.n + x.side.len()
}

// keyBytes returns about the bytes the entries' Badger keys would take
// (cappedKeyExtra besides the keystring), for collStats.
func (x *cappedIDIndex) keyBytes() int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return int64(x.run.n)*cappedKeyExtra + x.run.ksLen + x.side.keyBytes()
}

// sideLen returns the number of entries of the exact side index.
func (x *cappedIDIndex) sideLen() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.side.len()
}

// memBytes returns the bytes of memory the index holds: the run's
// samples and the side's pages, FIFO and keystrings.
func (x *cappedIDIndex) memBytes() int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	n := int64(cap(x.run.s))*int64(unsafe.Sizeof(idSample{})) + int64(cap(x.run.maxKS))
	for i := range x.run.s {
		n += int64(len(x.run.s[i].ks))
	}
	s := &x.side
	n += int64(cap(s.pages))*8 + int64(len(s.pages))*int64(unsafe.Sizeof(idPage{})+idPageMax*unsafe.Sizeof(idEnt{}))
	n += s.ksLen + int64(cap(s.fifo.buf))*int64(unsafe.Sizeof(idRef{}))
	return n
}

// add inserts entries in ascending sequence order (newer than every
// entry added before). An entry whose keystring is greater than the
// run's newest goes to the run, any other to the side, where it
// replaces an entry of the same keystring (its record was evicted: _id
// is unique among live records).
func (x *cappedIDIndex) add(adds []idAdd) {
	if len(adds) == 0 {
		return
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	r := &x.run
	var side []idAdd
	for i, a := range adds {
		if len(r.s) > 0 && bytes.Compare(a.ks, r.maxKS) <= 0 {
			if side == nil {
				side = make([]idAdd, 0, len(adds)-i)
			}
			side = append(side, a)
			continue
		}
		f := x.fingerprint(a.ks)
		if k := len(r.s) - 1; k < 0 || r.s[k].m >= idRunBlock || a.seq-r.s[k].seq >= idRunSpan {
			r.s = append(r.s, idSample{ks: string(a.ks), seq: a.seq, last: a.seq, n: 1, ksb: uint32(len(a.ks)), m: 1, dense: true})
			r.s[len(r.s)-1].fp[0] = f
		} else {
			b := &r.s[k]
			b.dense = b.dense && a.seq == b.last+1
			b.fp[b.m] = f
			b.m++
			b.last = a.seq
			b.n++
			b.ksb += uint32(len(a.ks))
		}
		r.maxKS = append(r.maxKS[:0], a.ks...)
		r.n++
		r.ksLen += int64(len(a.ks))
	}
	x.side.add(side)
}

// prune removes the entries of records older than first (evicted).
func (x *cappedIDIndex) prune(first uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	x.side.prune(first)
	r := &x.run
	k := 0
	for k < len(r.s) && r.s[k].last < first {
		r.n -= int(r.s[k].n)
		r.ksLen -= int64(r.s[k].ksb)
		k++
	}
	if k > 0 {
		clear(r.s[:k])
		r.s = r.s[k:]
	}
	if len(r.s) == 0 {
		r.s = nil // the run starts again from any keystring
		r.maxKS = r.maxKS[:0]
		return
	}
	// The oldest block lost some records: count what is left of it.
	b := &r.s[0]
	if b.seq >= first || r.recounted == first {
		return
	}
	var n, ksb uint32
	err := x.src.idsFrom(first, b.last, func(s uint64, _ int64, ks []byte) bool {
		if ss, _, ok := x.side.get(ks); !ok || ss != s {
			n++
			ksb += uint32(len(ks))
		}
		return true
	})
	if err != nil {
		return // the counts stay as they were; the ring refuses reads
	}
	r.n += int(n) - int(b.n)
	r.ksLen += int64(ksb) - int64(b.ksb)
	b.n, b.ksb = n, ksb
	r.recounted = first
}

// idEntry is an entry the run yields to a scan.
type idEntry struct {
	ks  string
	seq uint64
	off int64
}

// cmpID orders entries as their Badger keys (ks || seq) do.
func cmpID(aks string, aseq uint64, bks string, bseq uint64) int {
	if aks != bks {
		if aks < bks {
			return -1
		}
		return 1
	}
	switch {
	case aseq < bseq:
		return -1
	case aseq > bseq:
		return 1
	}
	return 0
}

// runIter yields the run's entries within scan bounds, a block at a time.
type runIter struct {
	x            *cappedIDIndex
	reverse      bool
	loRel, hiRel []byte // nil: unbounded
	bi           int    // next block to read
	buf          []idEntry
	i            int
	done         bool
	err          error
}

func (x *cappedIDIndex) newRunIter(loRel, hiRel []byte, reverse bool) *runIter {
	it := &runIter{x: x, reverse: reverse, loRel: loRel, hiRel: hiRel}
	s := x.run.s
	// below reports whether block i's first key is below the bound b.
	below := func(i int, b []byte) bool { return cmpEntry(s[i].ks, s[i].seq, b) < 0 }
	if !reverse {
		// The last block starting below lo may hold keys at or above it.
		if loRel != nil {
			it.bi = sort.Search(len(s), func(i int) bool { return !below(i, loRel) }) - 1
		}
		it.bi = max(it.bi, 0)
		it.done = it.bi >= len(s)
	} else {
		it.bi = len(s) - 1
		if hiRel != nil {
			it.bi = sort.Search(len(s), func(i int) bool { return !below(i, hiRel) }) - 1
		}
		it.done = it.bi < 0
	}
	return it
}

// fill reads blocks until one yields entries in bounds or none is left.
func (it *runIter) fill() {
	x, s := it.x, it.x.run.s
	for !it.done && it.i >= len(it.buf) {
		b := s[it.bi]
		it.buf, it.i = it.buf[:0], 0
		err := x.src.idsFrom(b.seq, b.last, func(seq uint64, off int64, ks []byte) bool {
			if ss, _, ok := x.side.get(ks); ok && ss == seq {
				return true // a side entry
			}
			if it.loRel != nil && cmpEntry(string(ks), seq, it.loRel) < 0 {
				return true
			}
			if it.hiRel != nil && cmpEntry(string(ks), seq, it.hiRel) >= 0 {
				return false
			}
			it.buf = append(it.buf, idEntry{ks: string(ks), seq: seq, off: off})
			return true
		})
		if err != nil {
			it.err, it.done = err, true
			return
		}
		if !it.reverse {
			it.bi++
			// A block starting at or above hi holds nothing below it.
			it.done = it.bi >= len(s) || (it.hiRel != nil && cmpEntry(s[it.bi].ks, s[it.bi].seq, it.hiRel) >= 0)
		} else {
			slices.Reverse(it.buf)
			// Blocks before one starting below lo hold nothing at or above it.
			it.done = it.bi == 0 || (it.loRel != nil && cmpEntry(b.ks, b.seq, it.loRel) < 0)
			it.bi--
		}
	}
}

// peek returns the next entry, if any.
func (it *runIter) peek() (idEntry, bool) {
	it.fill()
	if it.i < len(it.buf) {
		return it.buf[it.i], true
	}
	return idEntry{}, false
}

// scan calls fn with the entries whose Badger keys (pre, ks, seq) lie in
// [lo, hi) (nil: unbounded), in key order or reversed, until fn returns
// false: the run's and the side's, merged. fn runs under the index's
// read lock: it must not call the index's writers. An error is a failure
// to read the ring; the entries before it were passed to fn.
func (x *cappedIDIndex) scan(pre, lo, hi []byte, reverse bool, fn func(ks string, seq uint64, off int64) bool) error {
	loRel, _, loAbove := relBound(lo, pre)
	hiRel, hiBelow, _ := relBound(hi, pre)
	if loAbove || hiBelow {
		return nil
	}
	x.mu.RLock()
	defer x.mu.RUnlock()
	if loRel != nil && hiRel != nil && bytes.Equal(hiRel, lsm.PrefixEnd(loRel)) {
		if _, rest, err := lsm.DecodeKey(loRel, false); err == nil && len(rest) == 0 {
			return x.scanPoint(loRel, reverse, fn)
		}
	}
	it := x.newRunIter(loRel, hiRel, reverse)
	stopped := false
	// runBefore passes fn the run's entries that come before (ks, seq)
	// in the scan's direction (all of them when all is set).
	runBefore := func(ks string, seq uint64, all bool) bool {
		for {
			e, ok := it.peek()
			if !ok {
				return true
			}
			if !all {
				c := cmpID(e.ks, e.seq, ks, seq)
				if (!reverse && c > 0) || (reverse && c < 0) {
					return true
				}
			}
			it.i++
			if !fn(e.ks, e.seq, e.off) {
				stopped = true
				return false
			}
		}
	}
	x.side.scan(pre, lo, hi, reverse, func(ks string, seq uint64, off int64) bool {
		if !runBefore(ks, seq, false) {
			return false
		}
		if !fn(ks, seq, off) {
			stopped = true
			return false
		}
		return true
	})
	if !stopped {
		runBefore("", 0, true)
	}
	return it.err
}

// scanPoint is scan of the range of one whole keystring ks (a find by
// _id: [ks, PrefixEnd(ks))): keystrings are prefix-free, so only entries
// of ks lie in it, found as get finds them, without reading the run
// block around them. Called with the read lock held.
func (x *cappedIDIndex) scanPoint(ks []byte, reverse bool, fn func(ks string, seq uint64, off int64) bool) error {
	var ents []idEntry
	if seq, off, ok := x.side.get(ks); ok {
		ents = append(ents, idEntry{ks: string(ks), seq: seq, off: off})
	}
	seq, off, ok, err := x.runFind(ks)
	if err != nil {
		return err
	}
	if ok && (len(ents) == 0 || ents[0].seq != seq) {
		ents = append(ents, idEntry{ks: string(ks), seq: seq, off: off})
		if len(ents) == 2 && ents[0].seq > ents[1].seq {
			ents[0], ents[1] = ents[1], ents[0]
		}
	}
	if reverse {
		slices.Reverse(ents)
	}
	for _, e := range ents {
		if !fn(e.ks, e.seq, e.off) {
			return nil
		}
	}
	return nil
}
