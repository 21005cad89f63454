package engine

import (
	"bytes"
	"encoding/binary"
	"sort"
	"sync"
)

// cappedIDIndex is a capped collection's _id index, kept in memory: an
// ordered map from the _id keystring to the ring record (sequence and
// offset) holding it. The ring is the truth and every record frame
// carries its _id keystring, so the index is rebuilt from the ring when
// the collection opens and needs no crash protocol; an insert costs no
// Badger write for it and an eviction no tombstone (both were most of a
// capped insert's cost, see docs/capped.md).
//
// Entries are sorted by keystring. Keystrings are prefix-free, so this
// is also the order of the Badger entry keys the index stands for
// (IndexKey(coll, _id index, ks, seq)), which range scans compare with.
// The entries live in pages of at most idPageMax, each sorted and
// non-empty, in order; a lookup is two binary searches. A FIFO of
// (sequence, keystring) in insertion order names what to remove when
// the ring evicts: prune drops the entries of records older than the
// ring's first live sequence.
//
// An entry may outlive its record until the next prune (the writer
// prunes at the end of every insert chunk): readers check the sequence
// against the ring (Ring.Read, FirstSeq) as they did with Badger
// entries. Memory: about 70 bytes per live record (the entry, its FIFO
// slot and the keystring's bytes; more when random keys leave pages half
// full), beside the ring's own 24.
//
// Writers hold the collection's write lock; the index's own lock lets
// readers scan while a writer adds or prunes.
type cappedIDIndex struct {
	mu    sync.RWMutex
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
func (x *cappedIDIndex) get(ks []byte) (seq uint64, off int64, ok bool) {
	x.mu.RLock()
	defer x.mu.RUnlock()
	pi, ei := x.lowerBound(func(e *idEnt) bool { return e.ks >= string(ks) })
	if pi < len(x.pages) && x.pages[pi].e[ei].ks == string(ks) {
		e := &x.pages[pi].e[ei]
		return e.seq, e.off, true
	}
	return 0, 0, false
}

// len returns the number of entries.
func (x *cappedIDIndex) len() int {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return x.n
}

// keyBytes returns the bytes the entries' Badger keys would take (17
// bytes of prefix, the keystring, 8 of sequence), for collStats.
func (x *cappedIDIndex) keyBytes() int64 {
	x.mu.RLock()
	defer x.mu.RUnlock()
	return int64(x.n)*25 + x.ksLen
}

// add inserts entries in ascending sequence order (newer than every
// entry added before); an entry for a keystring the index holds replaces
// it (its record was evicted: _id is unique among live records). The
// keystrings are copied into one string.
func (x *cappedIDIndex) add(adds []idAdd) {
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
	x.mu.Lock()
	defer x.mu.Unlock()
	at := 0
	for _, a := range adds {
		ks := all[at : at+len(a.ks)]
		at += len(a.ks)
		x.put(idEnt{ks: ks, seq: a.seq, off: a.off})
		x.fifo.push(idRef{seq: a.seq, ks: ks})
	}
}

// prune removes the entries of records older than first (evicted).
func (x *cappedIDIndex) prune(first uint64) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for x.fifo.len() > 0 && x.fifo.front().seq < first {
		r := x.fifo.pop()
		x.del(r.ks, r.seq)
	}
}

// lowerBound returns the position of the first entry for which ge is
// true (ge must be false then true along the order); pi == len(pages)
// when there is none.
func (x *cappedIDIndex) lowerBound(ge func(*idEnt) bool) (pi, ei int) {
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

func (x *cappedIDIndex) put(e idEnt) {
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
func (x *cappedIDIndex) del(ks string, seq uint64) {
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

// cmpEntry compares the Badger key suffix ks || seq (big endian) of an
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
	var s [8]byte
	binary.BigEndian.PutUint64(s[:], seq)
	return bytes.Compare(s[:], k[len(ks):])
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
func (x *cappedIDIndex) scan(pre, lo, hi []byte, reverse bool, fn func(ks string, seq uint64, off int64) bool) {
	loRel, loBelow, loAbove := relBound(lo, pre)
	hiRel, hiBelow, hiAbove := relBound(hi, pre)
	if loAbove || hiBelow {
		return
	}
	_, _ = loBelow, hiAbove // unbounded on that side (rel is nil)
	x.mu.RLock()
	defer x.mu.RUnlock()
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
