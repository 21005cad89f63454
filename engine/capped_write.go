package engine

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"

	"github.com/ttlkv/ttlkv/capped"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// insertSpecial inserts into capped collections; time-series inserts are
// not implemented here.
func (db *DB) insertSpecial(ctx context.Context, c *coll, docs []any, ordered bool) ([]any, []WriteError, error) {
	if c.m().Kind != catalog.KindCapped {
		return nil, nil, document.Errorf(codeNotImplemented, "inserts into %s collections are not implemented yet", c.m().Kind)
	}
	return db.insertCapped(ctx, c, docs, ordered)
}

// cappedDoc is one document prepared for a capped insert.
type cappedDoc struct {
	d       bson.D
	payload []byte // framed msgpack
	ks      []byte // _id keystring
}

// prepareCapped normalises v and frames it for the ring (see
// encodeCappedPayload), encoding the document once, straight into the
// frame.
func prepareCapped(m *catalog.Coll, v any) (cappedDoc, error) {
	d, err := prepareInsert(v)
	if err != nil {
		return cappedDoc{}, err
	}
	var scratch [64]byte
	ks, err := cappedIDKeyTo(scratch[:0], m, d)
	if err != nil {
		return cappedDoc{}, err
	}
	// uvarint(len(ks)) ks, then room for the longest uvarint of the
	// document's length, then the document; the length prefix is put
	// right before the document once its length is known.
	const lenRoom = binary.MaxVarintLen32
	buf := make([]byte, 0, 256)
	buf = binary.AppendUvarint(buf, uint64(len(ks)))
	ksAt := len(buf)
	buf = append(buf, ks...)
	hdr := len(buf)
	buf = append(buf, make([]byte, lenRoom)...)
	buf, err = document.AppendMarshal(buf, d)
	if err != nil {
		return cappedDoc{}, err
	}
	n := len(buf) - hdr - lenRoom
	if uint64(n) > math.MaxUint32 {
		return cappedDoc{}, document.Errorf(document.CodeBadValue, "document too large for a capped record")
	}
	var lb [binary.MaxVarintLen32]byte
	l := binary.PutUvarint(lb[:], uint64(n))
	copy(buf[hdr+lenRoom-l:], lb[:l])
	if l < lenRoom {
		// Close the gap: move the key and its length prefix up.
		shift := lenRoom - l
		copy(buf[shift:], buf[:hdr])
		buf = buf[shift:]
	}
	return cappedDoc{d: d, payload: buf, ks: buf[ksAt : ksAt+len(ks) : ksAt+len(ks)]}, nil
}

// insertCapped appends docs to c's ring, each evicting the oldest
// records as the limits require, and indexes their _id. Ordered inserts
// stop at the first failure. The write lock is held per chunk.
func (db *DB) insertCapped(ctx context.Context, c *coll, docs []any, ordered bool) ([]any, []WriteError, error) {
	m := c.m()
	ids := make([]any, len(docs))
	var werrs []WriteError
	preps := make([]cappedDoc, len(docs))
	ok := make([]bool, len(docs))
	stopAt, err := prepareAll(len(docs), ordered, &werrs, func(i int) error {
		p, err := prepareCapped(m, docs[i])
		if err == nil {
			preps[i], ok[i] = p, true
		}
		return err
	})
	if err != nil {
		return nil, nil, err
	}
	for i := 0; i < stopAt; {
		if err := ctxErr(ctx); err != nil {
			return ids, werrs, err
		}
		c.wmu.Lock()
		if c.dropped.Load() {
			c.wmu.Unlock()
			// A resize (collMod cappedSize, docs/capped.md §7.8) replaced
			// the collection while this insert waited: go on in the new
			// one, which holds what was inserted so far.
			if nc := db.lookup(m.DB, m.Name); nc != nil && nc != c && nc.m().Kind == catalog.KindCapped {
				c = nc
				continue
			}
			return ids, werrs, errDropped
		}
		st, err := cappedOf(c)
		if err != nil {
			c.wmu.Unlock()
			return ids, werrs, err
		}
		w := newCappedWriter(db, c, st)
		end := min(stopAt, i+insertChunkDocs)
		w.byKey = make(map[string]uint64, end-i)
		// The ring space and count of the chunk's documents after each
		// one, for the evict callback's lookahead.
		var aheadB, aheadN int64
		for j := i; j < end; j++ {
			if ok[j] {
				aheadB += cappedRecordSize(len(preps[j].payload))
				aheadN++
			}
		}
		stop := false
		var acked []int
		for ; i < end && !stop; i++ {
			if !ok[i] {
				continue
			}
			aheadB -= cappedRecordSize(len(preps[i].payload))
			aheadN--
			w.setAhead(aheadB, aheadN)
			if err := w.insert(preps[i]); err != nil {
				var fault error
				if stop, fault = writeFailed(&werrs, i, err, ordered); fault != nil {
					w.flush()
					c.wmu.Unlock()
					return ids, werrs, fault
				}
				continue
			}
			acked = append(acked, i)
		}
		err = w.flush()
		c.wmu.Unlock()
		if err != nil {
			return ids, werrs, err
		}
		for _, j := range acked {
			ids[j] = preps[j].d[0].Value
		}
		if stop {
			break
		}
	}
	return ids, finishWriteErrors(werrs, ordered), nil
}

// cappedWriter appends to one capped collection under its write lock,
// one chunk of documents at a time. The _id index is in memory
// (cappedIDIndex): flush adds the chunk's records to it once the ring has
// written them, and drops the records the chunk evicted, so a collection
// with only _id makes no Badger write at all.
//
// Secondary index entries of appended documents are batched (pending)
// and committed by flush, or earlier by the evict callback, which must
// commit the deletes of evicted records' entries before it returns (the
// crash protocol, see capped_ext.go). Eviction is strict (docs/capped.md §7.3):
// the ring evicts, per append, only the oldest records the new one needs
// gone. To keep that from costing a Badger commit per insert, the evict
// callback also deletes, in the same commit, the secondary entries of
// the records the rest of the chunk is expected to evict (see
// lookahead). Those records are doomed: still live, but without
// secondary entries until the chunk's own appends evict them. A later
// evict callback that names only doomed or pending records commits
// nothing and reads nothing (the ring names evicted records without
// their data, capped.Ring.AppendEvicting). flush puts back the entries
// of doomed records that are still live (the chunk stopped early, or
// evicted fewer than expected). So while a chunk runs, another reader's
// secondary index lookup may miss a document that the same chunk is
// about to evict; the chunk's own duplicate checks do not (see secTaken),
// and a crash leaves only entries missing, which reconciliation on open
// restores.
//
// Secondary index keys of an evicted record are computed from its
// document, so the evict path decodes the documents it reads.
type cappedWriter struct {
	db  *DB
	c   *coll
	m   *catalog.Coll
	st  *cappedState
	sec []*catalog.Index // secondary indexes, in m.Indexes order; empty: only _id
	err error            // first failure of the evict callback

	prefixes [][]byte // entry key prefix per secondary index
	kbuf     []byte   // entryKey's scratch

	added   []idAdd             // appended by this chunk: its _id entries, added by flush
	pending []seqID             // appended, secondary entries not committed yet; ascending seq
	mine    []seqID             // appended, secondary entries committed by an evict callback; ascending seq
	byKey   map[string]uint64   // _id keystring -> sequence, appended by this writer
	secKey  []map[string]uint64 // per unique secondary index: key -> sequence appended by this writer

	doomed    []seqID             // live records whose secondary entries are deleted; ascending seq, from doomedAt
	doomedAt  int                 // doomed[:doomedAt] have been evicted
	doomedSec []map[string]uint64 // per unique secondary index: key -> sequence of doomed (secTaken)
	firstSeq  uint64              // first sequence this writer appended; 0: none yet

	// The documents of the chunk after the one being inserted: their
	// ring space (record overhead and padding included) and count. The
	// caller sets them before each insert; zero: no lookahead.
	aheadBytes int64
	aheadCount int64

	// inserted are the documents appended since the last flush, whose
	// insert events flush writes (change streams on only).
	inserted []bson.D
	// outEvicted says the chunk evicted records pointing at outside
	// copies (grown documents), which flush deletes.
	outEvicted bool
	// silent says the documents appended are copies whose insert events
	// were logged when they were first inserted (a capped resize): no
	// events again.
	silent bool
}

// seqID is a ring record's sequence, _id keystring, offset and secondary
// index keys: what its index entries are made of.
type seqID struct {
	seq uint64
	ks  []byte
	off int64
	sec [][][]byte // keys per secondary index of the writer; nil without any
}

// cappedRecordSize is the ring space of a record with n payload bytes
// (capped's record header and 8-byte alignment).
func cappedRecordSize(n int) int64 {
	return (int64(capped.RecordOverhead) + int64(n) + 7) &^ 7
}

func newCappedWriter(db *DB, c *coll, st *cappedState) *cappedWriter {
	w := &cappedWriter{db: db, c: c, st: st, byKey: map[string]uint64{}}
	w.setMeta(c.m())
	return w
}

// setMeta points the writer at catalog entry m (its indexes).
func (w *cappedWriter) setMeta(m *catalog.Coll) {
	w.m = m
	w.sec = cappedSecondary(m)
	w.prefixes = w.prefixes[:0]
	for _, ix := range w.sec {
		w.prefixes = append(w.prefixes, lsm.IndexPrefix(m.ID, ix.ID))
	}
	if w.secKey == nil && len(w.sec) > 0 {
		w.secKey = make([]map[string]uint64, len(w.sec))
		for i, ix := range w.sec {
			if ix.Unique {
				w.secKey[i] = map[string]uint64{}
			}
		}
	}
}

// setAhead tells the writer the ring space and count of the documents
// that follow the one it inserts next, for the evict callback's
// lookahead.
func (w *cappedWriter) setAhead(bytes, count int64) { w.aheadBytes, w.aheadCount = bytes, count }

// idTaken reports whether a live document already has the _id keystring
// ks: one this writer appended, or one in the collection's _id index.
// Sequences never repeat, so a record known by its sequence is live
// while its sequence is at least FirstSeq.
func (w *cappedWriter) idTaken(ks []byte) (bool, error) {
	first := w.st.ring.FirstSeq()
	if seq, ok := w.byKey[string(ks)]; ok && seq >= first {
		return true, nil
	}
	seq, _, ok, err := w.st.ids.get(ks)
	if err != nil {
		return false, cappedErr(w.c, err)
	}
	return ok && seq >= first, nil
}

// secTaken reports whether a live record other than this writer's new
// one holds key k of unique secondary index w.sec[i]: one this writer
// appended, a doomed one (its entries deleted ahead of its eviction), or
// one whose entry is committed.
func (w *cappedWriter) secTaken(i int, k []byte) (bool, error) {
	first := w.st.ring.FirstSeq()
	if seq, ok := w.secKey[i][string(k)]; ok && seq >= first {
		return true, nil
	}
	if w.doomedAt < len(w.doomed) {
		if w.doomedSec == nil {
			w.doomedSec = make([]map[string]uint64, len(w.sec))
			for j := range w.sec {
				if w.secKey[j] == nil {
					continue
				}
				w.doomedSec[j] = map[string]uint64{}
				for _, d := range w.doomed[w.doomedAt:] {
					if d.sec != nil {
						for _, dk := range d.sec[j] {
							w.doomedSec[j][string(dk)] = d.seq
						}
					}
				}
			}
		}
		if seq, ok := w.doomedSec[i][string(k)]; ok && seq >= first {
			return true, nil // live, its entries deleted ahead of its eviction
		}
	}
	return cappedKeyLive(w.db, w.m.ID, w.sec[i].ID, k, first, 0)
}

// insert appends one document and queues its index entries. A duplicate
// _id or unique secondary key is 11000 and appends nothing.
func (w *cappedWriter) insert(p cappedDoc) error {
	if taken, err := w.idTaken(p.ks); err != nil {
		return err
	} else if taken {
		return dupKeyErr(w.m, w.m.Indexes[0], p.d)
	}
	var sec [][][]byte
	evict := w.evictOnlyID // only _id: nothing to do in Badger
	if len(w.sec) > 0 {
		var err error
		if sec, err = w.secKeys(p.d); err != nil {
			return err
		}
		evict = w.evict
	}
	w.err = nil
	data, lim := p.payload, w.st.limits()
	var outMsg []byte // the document, when it goes outside the ring
	if w.st.outsideInsert(len(p.payload)) {
		// Larger than the collection's size, or than the ring: as
		// mongod 7.0, accepted, every older document evicted. The
		// record points at a copy outside the ring (capped_grow.go).
		var err error
		if outMsg, err = cappedMsg(p.payload); err != nil {
			return err
		}
		data = cappedPointerFrame(p.ks, cappedPointer{gen: 1, n: len(outMsg)})
		lim.AppendExtra = int64(len(p.payload) - len(data))
	}
	seq, off, err := w.st.ring.AppendEvicting(data, lim, evict)
	if err != nil {
		if w.err != nil {
			return w.err
		}
		return cappedErr(w.c, err)
	}
	if outMsg != nil {
		// The record is buffered (not on disk before flush) unless every
		// append is synced; then a crash before this commit leaves a
		// pointer without its copy, which Open turns into a tombstone
		// (the insert was not acknowledged).
		if err := w.st.store.Update(func(txn *lsm.Txn) error { return txn.Set(cappedOutKey(w.st.id, seq, 1), outMsg) }); err != nil {
			return err
		}
		w.st.grown.add(seq, int(lim.AppendExtra))
	}
	w.db.failpoint(FailpointCappedAfterAppend)
	if w.firstSeq == 0 {
		w.firstSeq = seq
	}
	w.added = append(w.added, idAdd{ks: p.ks, seq: seq, off: off})
	w.byKey[string(p.ks)] = seq
	if w.db.changesOn() && !w.silent {
		w.inserted = append(w.inserted, p.d)
	}
	if len(w.sec) == 0 {
		return nil
	}
	w.pending = append(w.pending, seqID{seq: seq, ks: p.ks, off: off, sec: sec})
	for i := range w.sec {
		if w.secKey[i] != nil {
			for _, k := range sec[i] {
				w.secKey[i][string(k)] = seq
			}
		}
	}
	return nil
}

// evictOnlyID is the ring's evict callback for a collection with only
// the _id index, which is in memory: the writer's flush drops the evicted
// records from it, so there is nothing to do before the ring reuses
// their space.
func (w *cappedWriter) evictOnlyID(ev []capped.Evicted) error {
	w.noteGrownEvicted(ev)
	w.db.failpoint(FailpointCappedEvict)
	return nil
}

// noteGrownEvicted notes whether records about to leave the ring point
// at outside copies, which flush deletes once the chunk is written (not
// before: until then a crash brings the records back).
func (w *cappedWriter) noteGrownEvicted(ev []capped.Evicted) {
	if w.outEvicted {
		return
	}
	if n, _ := w.st.grown.Live(); n == 0 {
		return
	}
	for _, e := range ev {
		if w.st.grown.Has(e.Seq) {
			w.outEvicted = true
			return
		}
	}
}

// secKeys computes d's keys in every secondary index, refusing a key a
// unique index already holds (11000) and recording in the catalog,
// before the document is written, an index d makes multikey.
func (w *cappedWriter) secKeys(d bson.D) ([][][]byte, error) {
	out := make([][][]byte, len(w.sec))
	var mk []uint64
	for i, ix := range w.sec {
		keys, multi, err := indexkey.Of(ix, d)
		if err != nil {
			return nil, err
		}
		if multi && !ix.Multikey {
			mk = append(mk, ix.ID)
		}
		if ix.Unique {
			for _, k := range keys {
				taken, err := w.secTaken(i, k)
				if err != nil {
					return nil, err
				}
				if taken {
					return nil, dupKeyErr(w.m, ix, d)
				}
			}
		}
		out[i] = keys
	}
	if len(mk) > 0 {
		nm, err := w.db.cappedMarkMultikey(w.c, w.m, mk)
		if err != nil {
			return nil, err
		}
		w.setMeta(nm)
	}
	return out, nil
}

// recordKeys returns what the index entries of ring record rec are made
// of: the _id keystring from its frame and the keys of its document in
// the writer's secondary indexes. A document whose keys fail (it produced valid
// ones when it was written) gets none, so it stays evictable.
func (w *cappedWriter) recordKeys(rec capped.Record) (seqID, error) {
	s := seqID{seq: rec.Seq, off: rec.Off}
	if cappedDeleted(rec.Data) {
		return s, nil // a deleted document's tombstone has no entries
	}
	ks, msg, err := cappedFrame(rec.Data)
	if err != nil || len(ks) == 0 {
		return s, fmt.Errorf("engine: capped record %d: %v", rec.Seq, err)
	}
	s.ks = ks
	if len(w.sec) == 0 {
		return s, nil
	}
	if _, ok := cappedPointerOf(rec.Data); ok {
		// A grown document: its outside copy is deleted only after the
		// chunk that evicts the record is written, so it is there.
		var live bool
		if msg, live, err = w.st.recordMsg(rec); err != nil || !live {
			return s, fmt.Errorf("engine: capped record %d: outside copy: %v", rec.Seq, err)
		}
	}
	d, err := document.Unmarshal(msg)
	if err != nil {
		return s, fmt.Errorf("engine: capped record %d: %w", rec.Seq, err)
	}
	s.sec = make([][][]byte, len(w.sec))
	for i, ix := range w.sec {
		s.sec[i], _, _ = indexkey.Of(ix, d)
	}
	return s, nil
}

// entryKey returns, in the writer's scratch buffer (valid until the next
// call; lsm.Batch copies keys), the entry key of keystring k and record
// seq in secondary index w.sec[j]. It equals lsm.IndexKey.
func (w *cappedWriter) entryKey(j int, k []byte, seq uint64) []byte {
	w.kbuf = append(append(w.kbuf[:0], w.prefixes[j]...), k...)
	w.kbuf = lsm.AppendIndexRecordID(w.kbuf, seq)
	return w.kbuf
}

// delEntries adds to b the deletes of every secondary index entry of s.
func (w *cappedWriter) delEntries(b *lsm.Batch, s seqID) error {
	for i, keys := range s.sec {
		for _, k := range keys {
			if err := b.Delete(w.entryKey(i, k, s.seq)); err != nil {
				return err
			}
		}
	}
	return nil
}

// setEntries adds to b every secondary index entry of s, naming its
// offset.
func (w *cappedWriter) setEntries(b *lsm.Batch, s seqID) error {
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], uint64(s.off))
	for i, keys := range s.sec {
		for _, k := range keys {
			if err := b.Set(w.entryKey(i, k, s.seq), v[:]); err != nil {
				return err
			}
		}
	}
	return nil
}

// evict is the ring's evict callback with secondary indexes: it deletes
// the secondary index entries of the records leaving the ring (unless deleted already as doomed) and of
// those the rest of the chunk is expected to evict (lookahead), writes
// the pending entries, and commits, all before the ring reuses any
// space. When every leaving record was doomed or pending it reads and
// commits nothing.
func (w *cappedWriter) evict(ev []capped.Evicted) error {
	w.noteGrownEvicted(ev)
	var delFirst, delLast uint64 // the leaving records of earlier chunks whose entries are live
	ndel := 0
	var own []uint64 // leaving records of this chunk whose entries are committed
	last := uint64(0)
	for _, e := range ev {
		last = e.Seq
		if len(w.pending) > 0 && e.Seq >= w.pending[0].seq {
			// Appended by this chunk and never indexed: drop the entry.
			i, _ := slices.BinarySearchFunc(w.pending, e.Seq, func(p seqID, s uint64) int { return cmpU64(p.seq, s) })
			if i < len(w.pending) && w.pending[i].seq == e.Seq {
				w.pending = slices.Delete(w.pending, i, i+1)
				continue
			}
		}
		for w.doomedAt < len(w.doomed) && w.doomed[w.doomedAt].seq < e.Seq {
			w.doomedAt++ // evicted in an earlier call (cannot happen: oldest first)
		}
		if w.doomedAt < len(w.doomed) && w.doomed[w.doomedAt].seq == e.Seq {
			w.doomedAt++
			continue
		}
		if w.firstSeq != 0 && e.Seq >= w.firstSeq {
			// Appended by this chunk, entries committed by an earlier
			// callback; the ring may not have written it yet (buffered
			// appends), so its keys come from w.mine, not from a read.
			own = append(own, e.Seq)
			continue
		}
		if ndel == 0 {
			delFirst = e.Seq
		}
		delLast = e.Seq
		ndel++
	}
	if ndel == 0 && len(own) == 0 {
		return nil
	}
	b := w.db.store.NewBatch()
	fail := func(err error) error {
		b.Cancel()
		w.err = err
		return err
	}
	from := last + 1
	if n := len(w.doomed); n > 0 {
		from = max(from, w.doomed[n-1].seq+1)
	}
	for _, seq := range own {
		i, ok := slices.BinarySearchFunc(w.mine, seq, func(p seqID, s uint64) int { return cmpU64(p.seq, s) })
		if !ok {
			return fail(fmt.Errorf("engine: capped record %d of this insert left the ring with no known entries", seq))
		}
		if err := w.delEntries(b, w.mine[i]); err != nil {
			return fail(err)
		}
	}
	var doomed []seqID
	if ndel > 0 {
		var err error
		if doomed, err = w.readEvicted(b, delFirst, delLast, ndel, from); err != nil {
			return fail(err)
		}
	}
	for _, p := range w.pending {
		if err := w.setEntries(b, p); err != nil {
			return fail(err)
		}
	}
	if err := b.Flush(); err != nil {
		w.err = err
		return err
	}
	w.db.failpoint(FailpointCappedEvict)
	if len(own) > 0 {
		i, _ := slices.BinarySearchFunc(w.mine, own[len(own)-1]+1, func(p seqID, s uint64) int { return cmpU64(p.seq, s) })
		w.mine = w.mine[i:]
	}
	w.mine = append(w.mine, w.pending...)
	w.pending = w.pending[:0]
	if w.doomedAt == len(w.doomed) {
		w.doomed, w.doomedAt = w.doomed[:0], 0
	}
	w.doomed = append(w.doomed, doomed...)
	w.doomedSec = nil
	return nil
}

func cmpU64(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// readEvicted reads, in runs of contiguous records (capped.Ring.ReadRun),
// the ndel leaving records delFirst..delLast, adding to b the deletes of
// their entries, and then the lookahead: the oldest live records from
// sequence from on that the rest of the chunk will evict, those covering
// aheadBytes of ring space (plus one average document, for the end of
// the file a wrap abandons), or aheadCount records when the collection
// is at its max. The lookahead stops at this chunk's own records; it
// returns what it doomed, which the caller records once b commits.
func (w *cappedWriter) readEvicted(b *lsm.Batch, delFirst, delLast uint64, ndel int, from uint64) ([]seqID, error) {
	wantBytes, wantCount := w.aheadBytes, int64(0)
	if mx := w.st.opts.max; mx > 0 && w.st.liveCount() >= mx {
		wantBytes, wantCount = 0, w.aheadCount
	}
	if wantBytes > 0 {
		wantBytes += w.aheadBytes / max(w.aheadCount, 1)
	}
	var out []seqID
	if wantCount > 0 {
		out = make([]seqID, 0, wantCount)
	}
	var gotBytes, gotCount int64
	deleted := 0 // leaving records handled
	var ferr error
	err := w.st.ring.ReadRun(delFirst, func(rec capped.Record) bool {
		if rec.Seq <= delLast {
			s, err := w.recordKeys(rec)
			if err == nil {
				err = w.delEntries(b, s)
			}
			if err != nil {
				ferr = err
				return false
			}
			deleted++
			return true
		}
		if rec.Seq < from {
			return true
		}
		if (wantBytes <= 0 || gotBytes >= wantBytes) && (wantCount <= 0 || gotCount >= wantCount) {
			return false
		}
		if w.firstSeq != 0 && rec.Seq >= w.firstSeq {
			return false // this chunk's own records
		}
		s, err := w.recordKeys(rec)
		if err == nil {
			err = w.delEntries(b, s)
		}
		if err != nil {
			ferr = err
			return false
		}
		out = append(out, s)
		gotBytes += cappedRecordSize(len(rec.Data))
		gotCount++
		return true
	})
	if ferr != nil {
		return nil, ferr
	}
	if err != nil {
		return nil, err
	}
	if deleted != ndel {
		// Sequences are not dense (a reopen skips ahead), so count.
		return nil, fmt.Errorf("engine: capped eviction read %d of the %d leaving records %d..%d", deleted, ndel, delFirst, delLast)
	}
	return out, nil
}

// flush writes the chunk's records, adds them to the _id index and drops
// from it the records the chunk evicted, then commits the pending
// secondary entries and puts back those of doomed records that are
// still live. The writer may go on with another chunk.
func (w *cappedWriter) flush() error {
	// The chunk's records become visible (and survive a process crash)
	// before they are indexed and the inserts are acknowledged. They
	// are indexed even if the write failed: the ring then refuses
	// writes until reopened, readers skip records they cannot read, and
	// the reopen rebuilds the index from what the ring holds.
	ferr := w.st.ring.Flush()
	w.st.ids.add(w.added)
	w.st.ids.prune(w.st.ring.FirstSeq())
	w.added = w.added[:0]
	clear(w.byKey)
	inserted := w.inserted
	w.inserted = w.inserted[:0]
	if ferr != nil {
		return cappedErr(w.c, ferr)
	}
	if w.outEvicted {
		w.outEvicted = false
		w.db.dropEvictedOutside(w.st)
	}
	w.db.failpoint(FailpointCappedBeforeEvents)
	first := w.st.ring.FirstSeq()
	live := w.doomed[w.doomedAt:]
	for len(live) > 0 && live[0].seq < first {
		live = live[1:]
	}
	if len(w.pending) > 0 || len(live) > 0 || len(inserted) > 0 {
		b := w.db.store.NewBatch()
		var err error
		for _, p := range w.pending {
			if err = w.setEntries(b, p); err != nil {
				break
			}
		}
		if err == nil {
			err = w.db.batchInsertEvents(b, w.m, inserted, w.firstSeq)
		}
		for _, d := range live {
			if err != nil {
				break
			}
			err = w.setEntries(b, d)
		}
		if err == nil {
			err = b.Flush()
		} else {
			b.Cancel()
		}
		if err != nil {
			return err
		}
	}
	w.pending, w.mine, w.firstSeq = w.pending[:0], w.mine[:0], 0
	w.doomed, w.doomedAt, w.doomedSec = w.doomed[:0], 0, nil
	return nil
}

// cappedErr maps ring errors to the engine's: a closed ring of a dropped
// collection is 175 QueryPlanKilled; errors carrying a *document.Error
// (ErrTooLarge, ErrOverwritten, ErrSizeChanged) keep it.
func cappedErr(c *coll, err error) error {
	if errors.Is(err, capped.ErrClosed) && c.dropped.Load() {
		return document.Errorf(document.CodeQueryPlanKilled, "collection dropped: %s", c.m().NS())
	}
	var de *document.Error
	if errors.As(err, &de) {
		return document.Errorf(de.Code, "%s", de.Message)
	}
	return cappedFailedErr(c, err)
}

// cappedOverwrite replaces rec (holding oldDoc) with newDoc (encoded as
// msg), with its event (a replace when replacement is set) made
// crash-consistent by an update intent (cappedUpdateIntent), described
// from touched (what the update's modifiers did; nil: the difference of
// the documents). The document may change size, as MongoDB 7.0 allows
// (SERVER-58865), and keeps its record, so its place in natural order:
// a document that fits the record's space (its length when inserted,
// padding included) is written into it; a larger one is kept outside
// the ring and the record points at it (capped_grow.go), its size
// counting toward the collection's until the record leaves
// (docs/capped.md §7.5).
func cappedOverwrite(c *coll, st *cappedState, rec capped.Record, oldDoc, newDoc bson.D, msg []byte, replacement bool, touched []query.Touched) error {
	db := c.db
	// The _id is immutable, so the record keeps its _id key (and entry).
	ks, err := cappedKS(rec.Data)
	if err != nil {
		return fmt.Errorf("engine: capped record %d: %w", rec.Seq, err)
	}
	oldPtr, wasPtr := cappedPointerOf(rec.Data)
	var data []byte
	grown := false
	if head := cappedFramedLen(ks, msg); head <= len(rec.Data) {
		data = encodeCappedPayload(make([]byte, 0, len(rec.Data)), ks, msg, len(rec.Data)-head)
	} else {
		// The copy first, under a generation no record names yet: a
		// crash before the record points at it leaves the old document
		// and a copy that Open removes.
		if data, _, err = st.cappedGrow(rec, ks, msg); err != nil {
			return err
		}
		grown = true
		db.failpoint(FailpointCappedGrowOutside)
	}
	newPtr, _ := cappedPointerOf(data)
	if err := db.cappedReindex(c, st, rec, oldDoc, newDoc); err != nil {
		if grown {
			db.dropOutside(st, rec.Seq, newPtr.gen)
		}
		return err
	}
	ev, err := db.cappedUpdateIntent(c, rec.Seq, data, oldDoc, newDoc, replacement, touched)
	if err != nil {
		return err
	}
	if ev != nil {
		db.failpoint(FailpointCappedUpdateIntent)
	}
	if err := st.ring.Overwrite(rec.Seq, rec.Off, data); err != nil {
		return cappedErr(c, err)
	}
	if ev != nil {
		db.failpoint(FailpointCappedUpdateWritten)
	}
	if wasPtr {
		st.grown.Evict(rec.Seq, payloadExtra(rec.Data))
	}
	if grown {
		st.grown.add(rec.Seq, int(payloadExtra(data)))
	}
	if wasPtr {
		// The record names another copy, or none: the old one goes.
		db.dropOutside(st, rec.Seq, oldPtr.gen)
	}
	return db.logCappedUpdate(c, ev)
}

// applyCappedUpdates is applyUpdates for a capped collection: rids are
// ring sequences; each document is re-read from the ring and re-matched
// under the write lock, and rewritten in place.
func (db *DB) applyCappedUpdates(c *coll, rids []uint64, f *query.Filter, u *query.Update, now time.Time, returnNew bool) (matched, modified int64, last bson.D, err error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.dropped.Load() {
		return 0, 0, nil, errDropped
	}
	st, err := cappedOf(c)
	if err != nil {
		return 0, 0, nil, err
	}
	for _, seq := range rids {
		rec, d, oldMsg, err := cappedReread(c, st, seq, f)
		if err != nil {
			return matched, modified, last, err
		}
		if d == nil {
			continue
		}
		var touched []query.Touched
		uo := query.UpdateOptions{Now: now}
		if db.changesOn() && !u.IsReplacement() && !u.IsPipeline() {
			uo.Touched = &touched // what the change event describes
		}
		nd, err := u.Apply(d, uo)
		if err != nil {
			return matched, modified, last, err
		}
		matched++
		if returnNew {
			last = nd
		} else {
			last = d
		}
		// A no-op only when the encoding is the same ($set of 1.0 over 1
		// changes the type).
		msg, err := document.Marshal(nd)
		if err != nil {
			return matched - 1, modified, last, err
		}
		if bytes.Equal(oldMsg, msg) {
			continue
		}
		if !document.Equal(idOf(d), idOf(nd)) {
			return matched - 1, modified, last, document.Errorf(document.CodeImmutableField, "Performing an update on the path '_id' would modify the immutable field '_id'")
		}
		if err := document.ValidateUpdateResult(nd); err != nil {
			return matched - 1, modified, last, err
		}
		if err := cappedOverwrite(c, st, rec, d, nd, msg, u.IsReplacement(), touched); err != nil {
			return matched - 1, modified, last, err
		}
		modified++
	}
	return matched, modified, last, nil
}
