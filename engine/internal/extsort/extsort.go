// Package extsort sorts documents that may not fit in memory: a Sorter
// holds up to a byte budget of them, and past it writes each full
// buffer, sorted, to a temporary file (a run), then merges the runs as
// it is read, as mongod's external sorter does for a blocking sort with
// allowDiskUse. The sort is stable: documents that compare equal come
// out in the order they were added.
//
// Run files are unlinked as soon as they are created, so a crash leaves
// nothing behind; their descriptors are closed when the sort is read to
// its end, by Close, or, for a sort abandoned unread (a cursor that is
// never exhausted), when it is garbage collected.
package extsort

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ErrMemory is returned by Add when the documents held pass MaxBytes and
// the Sorter may not spill (NoSpill).
var ErrMemory = errors.New("extsort: the sort's memory limit was reached and spilling is not allowed")

// Sorter collects documents with Add and returns them sorted from Sort.
// The zero value is not usable: Compare and Size are required.
type Sorter struct {
	// Compare orders two documents (negative, zero, positive).
	Compare func(a, b bson.D) int
	// SortBuf, if set, sorts a buffer stably in Compare's order, faster
	// than comparing pairs (a collated sort computes each document's
	// keys once); the runs are still merged with Compare.
	SortBuf func([]bson.D)
	// Size estimates what a document costs in memory.
	Size func(bson.D) int64
	// MaxBytes is the most the documents held may cost (by Size)
	// before a run is written; <= 0 means no bound.
	MaxBytes int64
	// Dir is where runs are written; "" is os.TempDir(). It is made if
	// missing; when it cannot be written, runs go to os.TempDir().
	Dir string
	// NoSpill makes Add return ErrMemory past MaxBytes instead of
	// writing a run.
	NoSpill bool
	// Limit > 0 means only the first Limit sorted documents are wanted:
	// the Sorter keeps no more than that many of each run (a top-k).
	Limit int64

	buf   []bson.D
	held  int64
	total int64 // Size of everything added
	own   *owner
	runs  []run
	spilt int64 // bytes written to runs
}

// owner holds the run files for the Sorter and its Iter, which both
// point to it: when neither is reachable any more, a cleanup closes
// the files.
type owner struct{ fs *files }

// run is one sorted run: where it starts in its file, and its length.
type run struct {
	f   *os.File
	off int64
	n   int64 // bytes
}

// files are the Sorter's open run files, closed together.
type files struct{ list []*os.File }

func (fs *files) close() {
	for _, f := range fs.list {
		_ = f.Close()
	}
	fs.list = nil
}

// Add adds d. Past MaxBytes it sorts what is held and writes it as a
// run (or, with NoSpill, returns ErrMemory).
func (s *Sorter) Add(d bson.D) error {
	s.buf = append(s.buf, d)
	sz := s.Size(d)
	s.held += sz
	s.total += sz
	if s.Limit > 0 && int64(len(s.buf)) > 4*s.Limit+1024 {
		s.trim()
	}
	if s.MaxBytes > 0 && s.held > s.MaxBytes {
		if s.Limit > 0 && int64(len(s.buf)) > s.Limit {
			// A top-k keeps only its k: that may be enough.
			s.trim()
			if s.held <= s.MaxBytes/2 || (s.NoSpill && s.held <= s.MaxBytes) {
				return nil
			}
		}
		if s.NoSpill {
			return ErrMemory
		}
		return s.spill()
	}
	return nil
}

// trim sorts the buffer and keeps its first Limit documents.
func (s *Sorter) trim() {
	s.sortBuf()
	if int64(len(s.buf)) > s.Limit {
		clear(s.buf[s.Limit:])
		s.buf = s.buf[:s.Limit]
	}
	s.held = 0
	for _, d := range s.buf {
		s.held += s.Size(d)
	}
}

// Flush writes what is held as a run now, whatever it costs: for a
// caller that keeps its own budget (a $group that spills its groups).
func (s *Sorter) Flush() error {
	if len(s.buf) == 0 {
		return nil
	}
	return s.spill()
}

// sortBuf sorts the buffer, stably.
func (s *Sorter) sortBuf() {
	if s.SortBuf != nil {
		s.SortBuf(s.buf)
		return
	}
	slices.SortStableFunc(s.buf, s.Compare)
}

// Sorted reports what the documents added cost by Size, in all.
func (s *Sorter) Sorted() int64 { return s.total }

// Spilled reports how many runs were written and their bytes.
func (s *Sorter) Spilled() (runs int, bytes int64) { return len(s.runs), s.spilt }

// spill writes the buffer, sorted (and cut to Limit), as a run.
func (s *Sorter) spill() error {
	s.sortBuf()
	if s.Limit > 0 && int64(len(s.buf)) > s.Limit {
		clear(s.buf[s.Limit:])
		s.buf = s.buf[:s.Limit]
	}
	f, err := s.file()
	if err != nil {
		return err
	}
	off, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return fmt.Errorf("extsort: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	var n int64
	for _, d := range s.buf {
		kind, b, err := encodeRecord(d)
		if err != nil {
			return fmt.Errorf("extsort: encoding a document: %w", err)
		}
		if err := w.WriteByte(kind); err != nil {
			return fmt.Errorf("extsort: writing a run: %w", err)
		}
		if _, err := w.Write(b); err != nil {
			return fmt.Errorf("extsort: writing a run: %w", err)
		}
		n += 1 + int64(len(b))
	}
	if err := w.Flush(); err != nil {
		return fmt.Errorf("extsort: writing a run: %w", err)
	}
	s.runs = append(s.runs, run{f: f, off: off, n: n})
	s.spilt += n
	clear(s.buf)
	s.buf, s.held = s.buf[:0], 0
	return nil
}

// file returns the file runs are appended to, creating (and unlinking)
// it on the first spill.
func (s *Sorter) file() (*os.File, error) {
	if s.own != nil && len(s.own.fs.list) > 0 {
		return s.own.fs.list[0], nil
	}
	f, err := createUnlinked(s.Dir)
	if err != nil {
		return nil, err
	}
	s.own = &owner{fs: &files{list: []*os.File{f}}}
	runtime.AddCleanup(s.own, func(fs *files) { fs.close() }, s.own.fs)
	return f, nil
}

func createUnlinked(dir string) (*os.File, error) {
	if dir != "" {
		if err := os.MkdirAll(dir, 0o700); err == nil {
			if f, err := os.CreateTemp(dir, "sort-*"); err == nil {
				_ = os.Remove(f.Name())
				return f, nil
			}
		}
	}
	f, err := os.CreateTemp("", "ttlkv-sort-*")
	if err != nil {
		return nil, fmt.Errorf("extsort: a file for the sort's runs: %w", err)
	}
	_ = os.Remove(f.Name())
	return f, nil
}

// Close releases the Sorter's run files; an Iter from it is then
// unusable.
func (s *Sorter) Close() {
	if s.own != nil {
		s.own.fs.close()
	}
	s.buf, s.runs = nil, nil
}

// Sort returns the documents added, sorted. The Sorter must not be
// added to afterwards.
func (s *Sorter) Sort() (*Iter, error) {
	s.sortBuf()
	if s.Limit > 0 && int64(len(s.buf)) > s.Limit {
		s.buf = s.buf[:s.Limit]
	}
	it := &Iter{cmp: s.Compare, limit: s.Limit, own: s.own}
	if len(s.runs) == 0 {
		it.mem = s.buf
		return it, nil
	}
	for i, r := range s.runs {
		src := &source{idx: i, r: bufio.NewReaderSize(io.NewSectionReader(r.f, r.off, r.n), 64<<10)}
		if err := src.advance(); err != nil {
			s.Close()
			return nil, err
		}
		if src.cur != nil {
			it.h.list = append(it.h.list, src)
		}
	}
	if len(s.buf) > 0 {
		// What is still in memory is the latest run.
		it.h.list = append(it.h.list, &source{idx: len(s.runs), mem: s.buf[1:], cur: s.buf[0]})
	}
	if it.h.list == nil {
		it.h.list = []*source{}
	}
	it.h.cmp = s.Compare
	heap.Init(&it.h)
	return it, nil
}

// Iter reads a Sorter's documents in order.
type Iter struct {
	cmp   func(a, b bson.D) int
	limit int64
	n     int64
	mem   []bson.D // no runs: the sorted buffer
	h     sources  // runs: their heap (list not nil)
	own   *owner
}

// Next returns the next document, or nil at the end.
func (it *Iter) Next() (bson.D, error) {
	if it.limit > 0 && it.n >= it.limit {
		it.Close()
		return nil, nil
	}
	if it.h.list == nil {
		if len(it.mem) == 0 {
			return nil, nil
		}
		d := it.mem[0]
		it.mem[0] = nil
		it.mem = it.mem[1:]
		it.n++
		return d, nil
	}
	if len(it.h.list) == 0 {
		it.Close()
		return nil, nil
	}
	top := it.h.list[0]
	d := top.cur
	if err := top.advance(); err != nil {
		it.Close()
		return nil, err
	}
	if top.cur == nil {
		heap.Pop(&it.h)
	} else {
		heap.Fix(&it.h, 0)
	}
	it.n++
	return d, nil
}

// Close releases the run files; Next then returns nil.
func (it *Iter) Close() {
	if it.own != nil {
		it.own.fs.close()
	}
	it.mem, it.h.list = nil, []*source{}
}

// source is one run being merged: a file section or the in-memory rest.
type source struct {
	idx int
	r   *bufio.Reader
	mem []bson.D
	cur bson.D
}

// advance reads the source's next document into cur (nil at its end).
func (s *source) advance() error {
	if s.r == nil {
		if len(s.mem) == 0 {
			s.cur = nil
			return nil
		}
		s.cur, s.mem = s.mem[0], s.mem[1:]
		return nil
	}
	var hdr [5]byte // the record's kind, then its BSON's length
	if _, err := io.ReadFull(s.r, hdr[:]); err != nil {
		if err == io.EOF {
			s.cur = nil
			return nil
		}
		return fmt.Errorf("extsort: reading a run: %w", err)
	}
	n := int(binary.LittleEndian.Uint32(hdr[1:]))
	if n < 5 {
		return fmt.Errorf("extsort: a run holds a document of %d bytes", n)
	}
	b := make([]byte, 1+n)
	copy(b, hdr[:])
	if _, err := io.ReadFull(s.r, b[5:]); err != nil {
		return fmt.Errorf("extsort: reading a run: %w", err)
	}
	d, err := decodeRecord(b)
	if err != nil {
		return fmt.Errorf("extsort: decoding a run's document: %w", err)
	}
	s.cur = d
	return nil
}

// sources is a heap of runs by their current document; of equal ones
// the earlier run comes first, which keeps the merge stable.
type sources struct {
	list []*source
	cmp  func(a, b bson.D) int
}

func (h sources) Len() int { return len(h.list) }
func (h sources) Less(i, j int) bool {
	if c := h.cmp(h.list[i].cur, h.list[j].cur); c != 0 {
		return c < 0
	}
	return h.list[i].idx < h.list[j].idx
}
func (h sources) Swap(i, j int) { h.list[i], h.list[j] = h.list[j], h.list[i] }
func (h *sources) Push(x any)   { h.list = append(h.list, x.(*source)) }
func (h *sources) Pop() any {
	x := h.list[len(h.list)-1]
	h.list = h.list[:len(h.list)-1]
	return x
}

// A run's record is a kind byte and a BSON document: recordPlain, the
// document; recordEnvelope, {d: the document without its top-level
// fields whose names BSON cannot encode (a NUL byte: the engine's own
// fields, such as a $text query's score), x: [name, value, ...]}.
const (
	recordPlain    = 0
	recordEnvelope = 1
)

// encodeRecord returns d's record in a run: its kind and its BSON.
func encodeRecord(d bson.D) (byte, []byte, error) {
	var rest bson.D
	var inner bson.A
	for i, e := range d {
		if strings.IndexByte(e.Key, 0) < 0 {
			if rest != nil {
				rest = append(rest, e)
			}
			continue
		}
		if rest == nil {
			rest = append(make(bson.D, 0, len(d)), d[:i]...)
		}
		inner = append(inner, e.Key, e.Value)
	}
	if rest == nil {
		b, err := bson.Marshal(d)
		return recordPlain, b, err
	}
	b, err := bson.Marshal(bson.D{{Key: "d", Value: rest}, {Key: "x", Value: inner}})
	return recordEnvelope, b, err
}

// decodeRecord is encodeRecord's inverse: the fields an envelope took
// out come back last.
func decodeRecord(b []byte) (bson.D, error) {
	var d bson.D
	if err := bson.Unmarshal(b[1:], &d); err != nil {
		return nil, err
	}
	if b[0] != recordEnvelope {
		return d, nil
	}
	if len(d) != 2 {
		return nil, fmt.Errorf("an envelope of %d fields", len(d))
	}
	doc, _ := d[0].Value.(bson.D)
	inner, _ := d[1].Value.(bson.A)
	for i := 0; i+1 < len(inner); i += 2 {
		name, _ := inner[i].(string)
		doc = append(doc, bson.E{Key: name, Value: inner[i+1]})
	}
	return doc, nil
}
