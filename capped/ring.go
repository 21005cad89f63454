package capped

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/ttlkv/ttlkv/document"
)

// seqReserve is how many sequence numbers one header write reserves; see
// "Sequence numbers" in doc.go.
const seqReserve = 1 << 16

// Options configures a Ring. The zero value is the default.
type Options struct {
	// FS is the file system; nil means OSFS.
	FS FS
	// SyncEveryAppend makes Append (and Overwrite) return only after the
	// record is fsynced, so it survives power loss. Concurrent appenders
	// share fsyncs (group commit). Default false: an appended record
	// survives a process crash (it is in the OS page cache) but not power
	// loss until Sync or Close.
	SyncEveryAppend bool
	// BufferAppends (ignored with SyncEveryAppend) keeps appended
	// records in memory and writes them with one pwrite per run of up
	// to 256 KiB, at Flush, Sync, Close, Overwrite, a wrap, or a header
	// write, whichever comes first. A buffered record is not visible to
	// readers (Read, Scan, ReadRun, Count, LastSeq, Wait) and does not
	// survive a process crash until it is written; Flush writes it and
	// makes it visible. Evictions are unaffected: an evicted record's
	// bytes are still overwritten only after its evict callback returned.
	BufferAppends bool
}

// Record is one record of the ring. Data is owned by the caller.
type Record struct {
	Seq  uint64 // sequence number, unique for the life of the file
	Off  int64  // byte offset of the record in the file
	Data []byte // payload
}

// Limits are the retention limits Append enforces besides physical space.
type Limits struct {
	// MaxRecords caps Count(); 0 or negative: no count limit.
	MaxRecords int64
	// MaxDataBytes caps DataBytes() (the sum of payload lengths, what
	// MongoDB's size counts); 0 or negative: only physical space limits.
	// Physical space always binds too: see "Size" in doc.go.
	MaxDataBytes int64
	// Deleted, if not nil, names the live records that hold nothing
	// (the engine's deleted documents, rewritten in place): they count
	// toward neither limit, though they keep their space until evicted.
	Deleted DeletedSet
	// Grown, if not nil, names the live records that count more bytes
	// toward MaxDataBytes than their payload holds (the engine's
	// documents that outgrew their record and live outside the ring,
	// the record pointing at them). Their extra bytes count as if they
	// were in the ring, so an append evicts the oldest records while
	// the total, extra included, is over MaxDataBytes.
	Grown GrownSet
	// AppendExtra is the extra bytes the appended record counts toward
	// MaxDataBytes beyond its payload (a record that points at a
	// document kept outside the ring). The append evicts the oldest
	// records while the total, this record's extra included, is over
	// MaxDataBytes; when the record alone is over it, every older
	// record goes and the record stays. The caller adds the record to
	// Grown after the append.
	AppendExtra int64
}

// GrownSet is a set of live records whose counted size is their payload
// plus some extra bytes. Like DeletedSet, its members are live records
// only: the ring removes each one it evicts (Evict).
type GrownSet interface {
	// Live returns how many records the set holds and the extra bytes
	// they count beyond their payloads.
	Live() (n, extra int64)
	// Has reports whether record seq is in the set.
	Has(seq uint64) bool
	// Extra returns the extra bytes member record seq counts, given its
	// payload (which the ring reads for the purpose, only for members
	// an append is about to evict). It must not call the ring.
	Extra(seq uint64, payload []byte) int64
	// Evict removes record seq, which counted extra bytes (what Extra
	// returned), from the set. Append calls it for each member it
	// evicts, as the record stops being live, with the ring's locks
	// held: it must not call the ring.
	Evict(seq uint64, extra int64)
}

// DeletedSet is a set of live records that Limits does not count. Its
// members are live records only: the ring removes each one it evicts
// (Evict), so the set never has to know the ring's first sequence or
// keep a length per member.
type DeletedSet interface {
	// Live returns how many records the set holds and their payload
	// bytes.
	Live() (n, bytes int64)
	// Has reports whether record seq is in the set.
	Has(seq uint64) bool
	// Evict removes record seq, of n payload bytes, from the set, if it
	// is there. Append calls it for each record it evicts, oldest first,
	// as the record stops being live (with the ring's locks held: Evict
	// must not call the ring), whenever Live reported members before the
	// append.
	Evict(seq uint64, n int64)
}

// Ring is an open ring extent file. Its methods are safe for concurrent
// use: writers (Append, Overwrite, Sync, Close) are serialised by an
// internal mutex, readers (Read, Scan, Wait and the accessors) run
// concurrently with them and never see a partly written record.
type Ring struct {
	path     string
	fs       FS
	f        File
	opts     Options
	capacity int64
	end      int64 // end of the data area

	// syncMu serialises fsyncs of the group commit; durable is the
	// highest sequence covered by a completed fsync.
	syncMu  sync.Mutex
	durable atomic.Uint64
	// afterDurable, if set (package tests), runs when an fsync has
	// marked records durable: a group-commit appender that then finds
	// its record durable must also find it visible.
	afterDurable func()

	// writeMu serialises writers and guards the writer state below.
	writeMu      sync.Mutex
	head         int64  // where the next record goes (before wrapping)
	lap          uint32 // lap at head
	lastOff      int64  // newest written record (0: none)
	nextSeq      uint64
	writtenSeq   uint64 // newest written record's sequence
	writtenBytes int64  // payload bytes of live written records
	anchor       anchor
	hdrGen       uint64
	seqLimit     uint64
	wbuf         []byte
	ebuf         []Evicted // AppendEvicting's callback argument, reused
	gbuf         []grownEvicted
	pend         []byte // BufferAppends: encoded records not written yet, from pendOff
	pendOff      int64
	pendSeq      uint64 // newest record in pend
	hbuf         [headerSlotSize]byte
	recovery     RecoveryInfo

	// mu guards the state readers see. Readers hold it shared while they
	// read a record; eviction and in-place overwrite take it exclusively
	// before touching a live record's bytes.
	mu          sync.RWMutex
	live        deque
	firstSeq    uint64 // oldest live record, or committed+1 when empty
	evictedMax  uint64 // highest sequence ever evicted (or lost in recovery)
	committed   uint64 // highest sequence visible to readers
	dataBytes   int64  // payload bytes of live committed records
	closed      bool
	failed      error
	notify      chan struct{}
	notifyTaken atomic.Bool
}

// grownEvicted is a member of Limits.Grown that an append evicts, with
// the extra bytes it counted.
type grownEvicted struct {
	seq   uint64
	extra int64
}

// anchor is the record recovery starts from (see doc.go).
type anchor struct {
	seq  uint64 // 0: ring empty, next record at off
	off  int64
	lap  uint32
	size int64
}

// RecoveryInfo describes what Open's recovery did.
type RecoveryInfo struct {
	// StopOffset and StopReason say where the forward scan ended and
	// why. After a clean Close the scan ends at stale or never-written
	// bytes; after a crash it may end at a torn record, which is cut off
	// (it was past the synced point, else Open fails).
	StopOffset int64
	StopReason string
	// DroppedOldest counts records at the old end of the ring that were
	// unreadable and dropped as evicted (see doc.go, "Recovery").
	DroppedOldest int
	// Records is the number of live records found.
	Records int
}

func (o Options) fs() FS {
	if o.FS == nil {
		return OSFS{}
	}
	return o.FS
}

// Create creates a ring file of capacity bytes (the whole file, header
// included) at path, allocates all of it, and fsyncs the file and its
// directory. It fails with an error matching fs.ErrExist if the file
// exists, with ErrBadCapacity if capacity is not in
// [MinCapacity, MaxCapacity], and with ErrNoSpace if the file system
// cannot hold capacity bytes (the file is then removed).
func Create(path string, capacity int64, o Options) (*Ring, error) {
	if capacity < MinCapacity || capacity > MaxCapacity {
		return nil, fmt.Errorf("%w: %d not in [%d, %d]", ErrBadCapacity, capacity, MinCapacity, MaxCapacity)
	}
	fsys := o.fs()
	f, err := fsys.OpenFile(path, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Ring, error) {
		f.Close()
		fsys.Remove(path)
		return nil, fmt.Errorf("capped: create %s: %w", path, err)
	}
	if ok, err := fallocate(f, capacity); err != nil {
		return fail(err)
	} else if !ok {
		zero := make([]byte, min(capacity, 1<<20))
		for off := int64(0); off < capacity; {
			n := min(int64(len(zero)), capacity-off)
			if _, err := f.WriteAt(zero[:n], off); err != nil {
				if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EFBIG) {
					err = errors.Join(ErrNoSpace, err)
				}
				return fail(err)
			}
			off += n
		}
	}
	h := header{
		capacity: capacity, anchorOff: DataStart, anchorLap: 1,
		firstSeq: 1, firstOff: DataStart, seqLimit: 1,
	}
	var buf [headerSlotSize]byte
	for gen := uint64(0); gen < 2; gen++ {
		h.gen = gen
		h.encode(buf[:])
		if _, err := f.WriteAt(buf[:], int64(gen%2)*headerSlotSize); err != nil {
			return fail(err)
		}
	}
	if err := f.Sync(); err != nil {
		return fail(err)
	}
	if err := fsys.SyncDir(filepath.Dir(path)); err != nil {
		return fail(err)
	}
	r := newRing(path, fsys, f, o, h)
	r.head, r.lap, r.nextSeq = DataStart, 1, 1
	r.firstSeq = 1
	return r, nil
}

func newRing(path string, fsys FS, f File, o Options, h header) *Ring {
	return &Ring{
		path: path, fs: fsys, f: f, opts: o,
		capacity: h.capacity, end: dataEnd(h.capacity),
		hdrGen: h.gen, seqLimit: h.seqLimit,
		anchor: anchor{seq: h.anchorSeq, off: h.anchorOff, lap: h.anchorLap},
		notify: make(chan struct{}),
	}
}

// Open opens an existing ring file and runs recovery (see doc.go). Damage
// before the synced point is returned as a *CorruptionError; damage past
// it is cut off as a torn tail (see Recovery). Open never panics on a
// damaged file.
func Open(path string, o Options) (*Ring, error) {
	fsys := o.fs()
	f, err := fsys.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return nil, err
	}
	r, err := recoverRing(path, fsys, f, o)
	if err != nil {
		f.Close()
		return nil, err
	}
	// Everything recovered is made durable and the header records it,
	// so the synced point never regresses.
	if err := f.Sync(); err != nil {
		f.Close()
		return nil, fmt.Errorf("capped: open %s: %w", path, err)
	}
	r.durable.Store(r.writtenSeq)
	r.writeMu.Lock()
	err = r.writeHeader(true)
	r.writeMu.Unlock()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("capped: open %s: %w", path, err)
	}
	return r, nil
}

// Recovery reports what Open's recovery found. It is zero for a ring
// returned by Create.
func (r *Ring) Recovery() RecoveryInfo {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	return r.recovery
}

// writeHeader writes the next header slot from the current state and, if
// sync, fsyncs it. Called with writeMu held.
func (r *Ring) writeHeader(sync bool) error {
	// A header may name a buffered record (the anchor): write it first.
	if err := r.flushPend(); err != nil {
		return err
	}
	r.mu.RLock()
	first := r.firstSeq
	firstOff := int64(DataStart)
	if r.live.len() > 0 {
		firstOff = r.live.at(0).off
	}
	r.mu.RUnlock()
	h := header{
		gen:       r.hdrGen + 1,
		capacity:  r.capacity,
		anchorSeq: r.anchor.seq, anchorOff: r.anchor.off, anchorLap: r.anchor.lap,
		firstSeq: first, firstOff: firstOff,
		syncedSeq: r.durable.Load(),
		seqLimit:  r.seqLimit,
	}
	h.encode(r.hbuf[:])
	if _, err := r.f.WriteAt(r.hbuf[:], int64(h.gen%2)*headerSlotSize); err != nil {
		return err
	}
	r.hdrGen = h.gen
	if sync {
		return r.f.Sync()
	}
	return nil
}

// fail records the first write-path I/O error; the ring refuses writes after it.
func (r *Ring) fail(err error) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.failed == nil {
		r.failed = fmt.Errorf("%w: %s: %w", ErrFailed, r.path, err)
	}
	return r.failed
}

// writable returns the error that forbids writing now, if any. Called
// with writeMu held.
func (r *Ring) writable() error {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		return ErrClosed
	}
	return r.failed
}

// broadcast wakes every Wait. Called with mu held exclusively.
func (r *Ring) broadcast() {
	if r.notifyTaken.Swap(false) {
		close(r.notify)
		r.notify = make(chan struct{})
	}
}

func tooLarge(format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	return fmt.Errorf("%w: %w", ErrTooLarge, document.Errorf(document.CodeBadValue, "%s", msg))
}

// Append writes data (at least one byte) as the newest record and
// returns its sequence number and offset.
//
// Before any byte of an older record is overwritten, and before any
// record is dropped for the limits, Append calls evict once with the
// records leaving the ring, oldest first, with their data; it is not
// called when nothing leaves. If evict returns an error, nothing is
// written, nothing is evicted, and Append returns that error. evict runs
// with the writer lock held: it may call the ring's read methods but not
// Append, Overwrite, Sync or Close. A nil evict accepts every eviction.
//
// Records leave for physical space first, then while Count() would
// exceed lim.MaxRecords or DataBytes() lim.MaxDataBytes. A record that
// cannot fit in an empty ring returns an error matching ErrTooLarge
// (carrying document.CodeBadValue). After an I/O error Append returns an error
// matching ErrFailed and so does every later write.
func (r *Ring) Append(data []byte, lim Limits, evict func([]Record) error) (seq uint64, off int64, err error) {
	if err := r.checkAppend(data, lim); err != nil {
		return 0, 0, err
	}
	r.writeMu.Lock()
	seq, off, err = r.appendLocked(data, lim, evict, nil)
	r.writeMu.Unlock()
	if err != nil || !r.opts.SyncEveryAppend {
		return seq, off, err
	}
	if err := r.groupSync(seq); err != nil {
		return 0, 0, err
	}
	return seq, off, nil
}

// checkAppend refuses data that no ring state could take.
func (r *Ring) checkAppend(data []byte, lim Limits) error {
	if len(data) == 0 {
		return ErrEmptyRecord
	}
	usable := r.end - DataStart
	if len(data) > maxPayload || recordSize(len(data)) > usable {
		return tooLarge("a record of %d bytes does not fit in a capped ring with %d usable bytes (%d per record of overhead)", len(data), usable, RecordOverhead)
	}
	if lim.MaxDataBytes > 0 && int64(len(data)) > lim.MaxDataBytes && lim.AppendExtra == 0 {
		return tooLarge("a record of %d bytes is larger than the collection size %d", len(data), lim.MaxDataBytes)
	}
	return nil
}

func overlaps(a0, a1, b0, b1 int64) bool { return a0 < b1 && b0 < a1 }

// appendLocked appends under writeMu. At most one of evict (records
// with their data) and evictLite (records named only) is non-nil.
func (r *Ring) appendLocked(data []byte, lim Limits, evict func([]Record) error, evictLite func([]Evicted) error) (uint64, int64, error) {
	if err := r.writable(); err != nil {
		return 0, 0, err
	}
	s := recordSize(len(data))
	pos, wrap := r.head, false
	if r.end-r.head < s {
		pos, wrap = DataStart, true
	}
	// hits reports whether writing this record destroys the bytes in
	// [o, o+n): a wrap abandons [head, end) and writes [DataStart, +s).
	hits := func(o, n int64) bool {
		if wrap && o >= r.head {
			return true
		}
		return overlaps(o, o+n, pos, pos+s)
	}

	// Decide the evictions. Only the writer changes r.live, so reading
	// it under writeMu alone is safe.
	count := r.live.len()
	k := 0
	for k < count {
		e := r.live.at(k)
		if !hits(e.off, recordSize(int(e.n))) {
			break
		}
		k++
	}
	bytes := r.writtenBytes
	// Deleted records count toward neither limit: dn of the records
	// from k on are, holding db bytes.
	var dn, db int64
	if lim.Deleted != nil && count > 0 {
		dn, db = lim.Deleted.Live()
	}
	deleted := dn > 0 // the set has members to evict
	// Grown records count gx extra bytes (gn of them from k on); the
	// payload of each one leaving is read to learn its extra.
	var gn, gx int64
	if lim.Grown != nil && count > 0 {
		gn, gx = lim.Grown.Live()
	}
	r.gbuf = r.gbuf[:0]
	leave := func(e entry) error {
		bytes -= int64(e.n)
		if dn > 0 && lim.Deleted.Has(e.seq) {
			dn--
			db -= int64(e.n)
		}
		if gn > 0 && lim.Grown.Has(e.seq) {
			// A grown record appended by this writer may still be in
			// the append buffer: write it first, so it can be read.
			if len(r.pend) > 0 && e.seq <= r.pendSeq {
				if err := r.flushPend(); err != nil {
					return err
				}
			}
			p, err := r.readEntry(e)
			if err != nil {
				return err
			}
			x := lim.Grown.Extra(e.seq, p)
			gn--
			gx -= x
			r.gbuf = append(r.gbuf, grownEvicted{seq: e.seq, extra: x})
		}
		return nil
	}
	for i := 0; i < k; i++ {
		if err := leave(r.live.at(i)); err != nil {
			return 0, 0, err
		}
	}
	for k < count {
		overCount := lim.MaxRecords > 0 && int64(count-k)-dn+1 > lim.MaxRecords
		overBytes := lim.MaxDataBytes > 0 && bytes-db+gx+int64(len(data))+lim.AppendExtra > lim.MaxDataBytes
		if !overCount && !overBytes {
			break
		}
		if err := leave(r.live.at(k)); err != nil {
			return 0, 0, err
		}
		k++
	}
	if k > 0 && evictLite != nil {
		if cap(r.ebuf) < k {
			r.ebuf = make([]Evicted, k, max(k, 2*cap(r.ebuf)))
		}
		ev := r.ebuf[:k]
		for i := range ev {
			e := r.live.at(i)
			ev[i] = Evicted{Seq: e.seq, Off: e.off, Len: int(e.n)}
		}
		if err := evictLite(ev); err != nil {
			return 0, 0, err
		}
	}
	if k > 0 && evict != nil {
		recs := make([]Record, k)
		for i := range recs {
			e := r.live.at(i)
			d, err := r.readEntry(e)
			if err != nil {
				return 0, 0, err
			}
			recs[i] = Record{Seq: e.seq, Off: e.off, Data: d}
		}
		if err := evict(recs); err != nil {
			return 0, 0, err
		}
	}
	seq := r.nextSeq

	// Move the anchor before its bytes are overwritten, and reserve
	// sequence numbers, with one header write.
	moveAnchor := r.anchor.seq == 0 || hits(r.anchor.off, r.anchor.size)
	// A header that stops naming a record must be durable before that
	// record's bytes change: otherwise a power cut can keep the new
	// bytes and lose the header, and the durable header names a record
	// that no longer exists. An empty anchor (seq 0) names no record.
	reuse := moveAnchor && r.anchor.seq != 0
	if moveAnchor {
		if k < count {
			e := r.live.at(count - 1)
			r.anchor = anchor{seq: e.seq, off: e.off, lap: e.lap, size: recordSize(int(e.n))}
		} else {
			lap := r.lap
			if wrap {
				lap++
			}
			r.anchor = anchor{seq: seq, off: pos, lap: lap, size: s}
		}
	}
	if moveAnchor || seq >= r.seqLimit {
		if seq >= r.seqLimit {
			r.seqLimit = seq + seqReserve
		}
		// The new anchor, when it is a written record, must be on disk
		// before a header that names it: one fsync orders the two.
		if moveAnchor && r.anchor.seq != seq && r.durable.Load() < r.anchor.seq {
			if err := r.syncData(); err != nil {
				return 0, 0, err
			}
		}
		if err := r.writeHeader(r.opts.SyncEveryAppend || reuse); err != nil {
			return 0, 0, r.fail(err)
		}
	}

	// Publish the evictions before touching their bytes: a reader holding
	// mu finishes first, later readers get ErrOverwritten.
	oldest := seq // the oldest live record once this one is appended
	if k < count {
		oldest = r.live.at(k).seq
	}
	r.mu.Lock()
	gi := 0 // next of r.gbuf
	for i := 0; i < k; i++ {
		e := r.live.popFront()
		if e.seq <= r.committed {
			r.dataBytes -= int64(e.n)
		}
		if deleted {
			lim.Deleted.Evict(e.seq, int64(e.n))
		}
		if gi < len(r.gbuf) && r.gbuf[gi].seq == e.seq {
			lim.Grown.Evict(e.seq, r.gbuf[gi].extra)
			gi++
		}
		r.evictedMax = max(r.evictedMax, e.seq)
	}
	if r.live.len() > 0 {
		r.firstSeq = r.live.at(0).seq
	} else {
		r.firstSeq = r.committed + 1
	}
	r.mu.Unlock()
	r.writtenBytes = bytes

	if wrap {
		if err := r.flushPend(); err != nil {
			return 0, 0, err
		}
		if r.end-r.head >= RecordOverhead {
			var m [RecordOverhead]byte
			encodeRecord(m[:], recHeader{seq: seq, oldest: oldest, prevOff: r.lastOff, lap: r.lap, kind: kindWrap}, nil)
			if _, err := r.f.WriteAt(m[:], r.head); err != nil {
				return 0, 0, r.fail(err)
			}
		}
		r.lap++
	}
	if int64(cap(r.wbuf)) < s {
		r.wbuf = make([]byte, s)
	}
	b := r.wbuf[:s]
	clear(b[RecordOverhead+len(data):])
	encodeRecord(b, recHeader{length: uint32(len(data)), seq: seq, oldest: oldest, prevOff: r.lastOff, lap: r.lap, kind: kindRecord}, data)
	buffered := r.buffered()
	if buffered {
		if len(r.pend) == 0 {
			r.pendOff = pos
		}
		r.pend = append(r.pend, b...)
		r.pendSeq = seq
	} else if _, err := r.f.WriteAt(b, pos); err != nil {
		return 0, 0, r.fail(err)
	}
	r.head = pos + s
	r.lastOff = pos
	r.nextSeq = seq + 1
	r.writtenSeq = seq
	r.writtenBytes += int64(len(data))

	r.mu.Lock()
	r.live.push(entry{seq: seq, off: pos, n: uint32(len(data)), lap: r.lap})
	if r.live.len() == 1 {
		r.firstSeq = seq
	}
	if !r.opts.SyncEveryAppend && !buffered {
		r.committed = seq
		r.dataBytes += int64(len(data))
		r.broadcast()
	}
	r.mu.Unlock()
	if buffered && len(r.pend) >= pendMax {
		if err := r.flushPend(); err != nil {
			return 0, 0, err
		}
	}
	return seq, pos, nil
}

// pendMax is the size at which buffered appends are written.
const pendMax = 256 << 10

// buffered reports whether appends are buffered (BufferAppends).
func (r *Ring) buffered() bool { return r.opts.BufferAppends && !r.opts.SyncEveryAppend }

// flushPend writes the buffered records with one pwrite and makes them
// visible. Called with writeMu held.
func (r *Ring) flushPend() error {
	if len(r.pend) == 0 {
		return nil
	}
	if _, err := r.f.WriteAt(r.pend, r.pendOff); err != nil {
		r.pend = r.pend[:0]
		return r.fail(err)
	}
	r.pend = r.pend[:0]
	if cap(r.pend) > 4*pendMax {
		r.pend = nil
	}
	r.commit(r.pendSeq)
	return nil
}

// Flush writes the records buffered by BufferAppends (one pwrite) and
// makes them visible to readers. It does not fsync (see Sync). Without
// BufferAppends it does nothing.
func (r *Ring) Flush() error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	if len(r.pend) == 0 {
		return nil
	}
	if err := r.writable(); err != nil {
		return err
	}
	return r.flushPend()
}

// groupSync returns once an fsync that started after sequence seq was
// written has completed. Concurrent callers share one fsync: whoever
// gets syncMu fsyncs everything written so far, and the others find
// their record already covered.
func (r *Ring) groupSync(seq uint64) error {
	r.syncMu.Lock()
	defer r.syncMu.Unlock()
	if r.durable.Load() >= seq {
		return nil
	}
	r.mu.RLock()
	failed, closed := r.failed, r.closed
	r.mu.RUnlock()
	if failed != nil {
		return failed
	}
	if closed {
		return ErrClosed
	}
	// Everything pushed to r.live has been written; the newest entry is
	// the target.
	r.mu.RLock()
	target := seq
	if n := r.live.len(); n > 0 {
		target = max(target, r.live.at(n-1).seq)
	}
	r.mu.RUnlock()
	if err := r.f.Sync(); err != nil {
		return r.fail(err)
	}
	r.commit(target)
	r.setDurable(target)
	return nil
}

// setDurable raises the durable mark to s. Callers commit (make
// visible) before they raise it: an appender in groupSync returns as
// soon as the mark covers its record, and must then be able to read it.
func (r *Ring) setDurable(s uint64) {
	for {
		d := r.durable.Load()
		if d >= s || r.durable.CompareAndSwap(d, s) {
			break
		}
	}
	if r.afterDurable != nil {
		r.afterDurable()
	}
}

// commit makes records up to target visible to readers.
func (r *Ring) commit(target uint64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if target <= r.committed {
		return
	}
	for c := r.live.cursorAt(r.live.search(r.committed + 1)); c.ok && c.e.seq <= target; c.next() {
		r.dataBytes += int64(c.e.n)
	}
	r.committed = target
	if r.live.len() == 0 {
		r.firstSeq = target + 1
	}
	r.broadcast()
}

// readEntry reads and verifies the record e. The caller holds writeMu or
// mu (shared), so e cannot be overwritten meanwhile.
func (r *Ring) readEntry(e entry) ([]byte, error) {
	buf := make([]byte, RecordOverhead+int(e.n))
	if _, err := r.f.ReadAt(buf, e.off); err != nil {
		return nil, fmt.Errorf("capped: read %s at %d: %w", r.path, e.off, err)
	}
	h, payload, err := decodeRecord(buf)
	if err != nil {
		return nil, corruptf(r.path, e.off, "live record %d: %v", e.seq, err)
	}
	if h.kind != kindRecord || h.seq != e.seq || h.length != e.n || h.lap != e.lap {
		return nil, corruptf(r.path, e.off, "live record %d: found kind %d seq %d length %d lap %d, want seq %d length %d lap %d",
			e.seq, h.kind, h.seq, h.length, h.lap, e.seq, e.n, e.lap)
	}
	return payload, nil
}

// Read returns a copy of the data of record seq at offset off. It
// returns an error matching ErrOverwritten (carrying
// document.CodeCappedPositionLost) if the record was evicted, ErrNotFound if
// no committed record seq lives at off, and a *CorruptionError if the
// bytes on disk fail their checksum.
func (r *Ring) Read(seq uint64, off int64) ([]byte, error) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		return nil, ErrClosed
	}
	if seq < r.firstSeq {
		return nil, overwritten(seq)
	}
	if seq > r.committed {
		return nil, fmt.Errorf("%w: sequence %d is newer than the last committed %d", ErrNotFound, seq, r.committed)
	}
	i := r.live.search(seq)
	if i == r.live.len() || r.live.at(i).seq != seq {
		return nil, fmt.Errorf("%w: no record with sequence %d", ErrNotFound, seq)
	}
	e := r.live.at(i)
	if e.off != off {
		return nil, fmt.Errorf("%w: record %d is at offset %d, not %d", ErrNotFound, seq, e.off, off)
	}
	return r.readEntry(e)
}

func overwritten(seq uint64) error {
	return fmt.Errorf("%w: %w", ErrOverwritten,
		document.Errorf(document.CodeCappedPositionLost, "the capped position of record %d was overwritten", seq))
}

// Overwrite replaces the data of live record seq at off in place. data
// must have the record's length, else the error matches ErrSizeChanged
// (carrying document.CodeCannotGrowDocumentInCappedNS). The record keeps its
// sequence number and position. Readers see the old or the new data,
// never a mix. An overwrite interrupted by power loss can leave the
// record failing its checksum (see doc.go, "Overwrite").
func (r *Ring) Overwrite(seq uint64, off int64, data []byte) error {
	if len(data) == 0 {
		return ErrEmptyRecord
	}
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	if err := r.writable(); err != nil {
		return err
	}
	if err := r.flushPend(); err != nil {
		return err
	}
	r.mu.RLock()
	first, committed := r.firstSeq, r.committed
	i := r.live.search(seq)
	var e entry
	found := i < r.live.len() && r.live.at(i).seq == seq
	if found {
		e = r.live.at(i)
	}
	r.mu.RUnlock()
	switch {
	case seq < first:
		return overwritten(seq)
	case !found || seq > committed:
		return fmt.Errorf("%w: no committed record with sequence %d", ErrNotFound, seq)
	case e.off != off:
		return fmt.Errorf("%w: record %d is at offset %d, not %d", ErrNotFound, seq, e.off, off)
	case int64(len(data)) != int64(e.n):
		return fmt.Errorf("%w: %w", ErrSizeChanged, document.Errorf(document.CodeCannotGrowDocumentInCappedNS,
			"cannot change the size of a document in a capped collection: %d != %d", len(data), e.n))
	}
	var hb [RecordOverhead]byte
	if _, err := r.f.ReadAt(hb[:], e.off); err != nil {
		return fmt.Errorf("capped: read %s at %d: %w", r.path, e.off, err)
	}
	h, err := decodeRecHeader(hb[:])
	if err != nil || h.seq != seq || h.kind != kindRecord {
		return corruptf(r.path, e.off, "live record %d has a bad header (%v)", seq, err)
	}
	s := recordSize(len(data))
	if int64(cap(r.wbuf)) < s {
		r.wbuf = make([]byte, s)
	}
	b := r.wbuf[:s]
	clear(b[RecordOverhead+len(data):])
	encodeRecord(b, h, data)
	r.mu.Lock()
	_, err = r.f.WriteAt(b, e.off)
	r.mu.Unlock()
	if err != nil {
		return r.fail(err)
	}
	if r.opts.SyncEveryAppend {
		if err := r.f.Sync(); err != nil {
			return r.fail(err)
		}
	}
	return nil
}

// Sync makes every record appended so far durable and records the synced
// point in the header (two fsyncs: data, then header).
func (r *Ring) Sync() error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	if err := r.writable(); err != nil {
		return err
	}
	return r.syncLocked()
}

// syncData fsyncs every record written so far and makes them durable
// and visible. Called with writeMu held.
func (r *Ring) syncData() error {
	if err := r.flushPend(); err != nil {
		return err
	}
	target := r.writtenSeq
	if err := r.f.Sync(); err != nil {
		return r.fail(err)
	}
	// Visible first, then durable: syncData does not hold syncMu, so an
	// appender's groupSync may see the durable mark at once (setDurable).
	r.commit(target)
	r.setDurable(target)
	return nil
}

func (r *Ring) syncLocked() error {
	if err := r.syncData(); err != nil {
		return err
	}
	if err := r.writeHeader(true); err != nil {
		return r.fail(err)
	}
	return nil
}

// Close syncs the ring (see Sync), records the exact next sequence number
// so none is skipped on reopen, and closes the file. Waiters get
// ErrClosed. Close after Close returns ErrClosed. If the ring had failed,
// Close closes the file and returns the failure.
func (r *Ring) Close() error {
	r.writeMu.Lock()
	defer r.writeMu.Unlock()
	r.syncMu.Lock()
	defer r.syncMu.Unlock()
	r.mu.RLock()
	closed, failed := r.closed, r.failed
	r.mu.RUnlock()
	if closed {
		return ErrClosed
	}
	var err error
	if failed == nil {
		r.seqLimit = r.nextSeq
		err = r.syncLocked()
	} else {
		err = failed
	}
	r.mu.Lock()
	r.closed = true
	close(r.notify)
	r.mu.Unlock()
	if cerr := r.f.Close(); err == nil && cerr != nil {
		err = cerr
	}
	return err
}

// FirstSeq returns the sequence of the oldest live record, or
// LastSeq()+1 when the ring is empty.
func (r *Ring) FirstSeq() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.firstSeq
}

// LastSeq returns the sequence number of the newest committed record (0
// before the first append). Sequence numbers increase by one per append,
// but skip a range after recovery from a crash (see doc.go).
func (r *Ring) LastSeq() uint64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.committed
}

// Count returns the number of live committed records.
func (r *Ring) Count() int64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return int64(r.live.search(r.committed + 1))
}

// DataBytes returns the sum of the payload lengths of live committed
// records (MongoDB's dataSize).
func (r *Ring) DataBytes() int64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.dataBytes
}

// Capacity returns the file size given to Create.
func (r *Ring) Capacity() int64 { return r.capacity }

// Path returns the file's path.
func (r *Ring) Path() string { return r.path }

// MemBytes returns the bytes of memory the ring keeps for its live
// records (its in-memory record index), for memory accounting; it does
// not count the append buffer or the file's page cache.
func (r *Ring) MemBytes() int64 {
	r.mu.RLock()
	defer r.mu.RUnlock()
	return r.live.memBytes()
}
