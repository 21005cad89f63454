package engine

// Capped collections (docs/capped.md §7) keep their documents in a ring extent
// file (package capped), one per collection, named "<collection id>.ring"
// in the capped/ subdirectory of the data directory. The ring is the
// truth. The _id index is kept in memory (cappedIDIndex: _id keystring
// -> ring sequence and offset), built from the ring when the collection
// opens, so it needs no crash protocol and an insert makes no Badger
// write for it; see capped_idindex.go.
//
// Secondary indexes live in Badger and point at ring records:
//
//	key   = IndexKey(collection, index, keystring, ring sequence)
//	value = the record's byte offset in the ring (8 bytes, big endian)
//
// Crash protocol for them: the ring's evict callback deletes the evicted
// records' entries and commits before the ring reuses their space, so a
// committed entry never names reused bytes. A document is appended to
// the ring first and indexed after; a crash in between leaves a record
// without entries, and openExt reconciles the indexes with the ring
// (entries for records not in the ring removed, records without their
// entries indexed). Appends are buffered (capped.Options.BufferAppends)
// and written when the insert chunk flushes, before its entries commit
// and before its records enter the _id index; an evict callback may
// commit entries of records not written yet, which readers skip and
// reconciliation removes after a crash. An insert is acknowledged only
// after its records are written and indexed.
//
// Record payloads are framed: uvarint(len(ks)), ks (the record's _id
// index keystring), uvarint(len(msg)), msg (the document in the engine's
// msgpack encoding, document.Marshal), then zero padding. Carrying ks lets
// the _id index be rebuilt, and eviction name a record's _id, without
// decoding the document (validate checks that ks matches the document).
// The padding lets an update rewrite the record in place with a document
// that fits its space; a document that outgrew it lives outside the ring
// and the record holds a pointer frame (capped_grow.go). See
// docs/capped.md.
//
// Secondary indexes are maintained on insert, eviction and in-place
// update; see capped_index.go. TTL indexes are refused (docs/ttl-indexes.md §1.4).

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/capped"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// codeNotImplemented marks features not built yet (MongoDB's 238
// NotImplemented).
const codeNotImplemented = document.Code(238)

// Capped size limits (docs/capped.md §7.1-7.2). cappedMinSize and
// cappedSizeAlign shape the ring file, not the size a user sees.
const (
	cappedMinSize   = 4096
	cappedMaxSize   = 1 << 50 // 1 PiB
	cappedSizeAlign = 256
	cappedMaxDocs   = 1 << 31 // max must be below this
	cappedDir       = "capped"
	cappedFileExt   = ".ring"
)

// cappedOpts are a capped collection's parsed limits.
type cappedOpts struct {
	size int64 // the size as given: the limit on data bytes, shown as maxSize
	max  int64 // document limit; 0: none
}

// cappedState is the open ring of a capped collection (coll.ext).
type cappedState struct {
	ring   *capped.Ring
	ids    *cappedIDIndex // the _id index (in memory, built from the ring)
	opts   cappedOpts
	tmpDir string // InMemory databases: a private directory removed at close
	// tombs are the deleted records still in the ring (docs/capped.md
	// §7.5), found again when the ring opens.
	tombs cappedTombs
	// grown are the records whose document outgrew them and lives
	// outside the ring (capped_grow.go), found again when the ring
	// opens.
	grown cappedGrown
	store *lsm.Store // holds the outside copies
	id    uint64     // the collection's id, which their keys start with
	// outLow: no outside copy below this sequence is left to delete
	// after an eviction (dropEvictedOutside); under the write lock.
	outLow uint64
}

// liveCount returns the number of documents in the ring: its records
// less its tombstones.
func (s *cappedState) liveCount() int64 {
	n, _ := s.tombs.Live()
	return s.ring.Count() - n
}

// cappedDeleted reports whether ring payload p is a tombstone: a frame
// whose _id keystring is empty, which no document's is.
func cappedDeleted(p []byte) bool { return len(p) > 0 && p[0] == 0 }

// cappedTombstone returns the payload that replaces a deleted record's
// n bytes: all zero, an empty keystring and document.
func cappedTombstone(n int) []byte { return make([]byte, n) }

func (s *cappedState) limits() capped.Limits {
	return capped.Limits{MaxRecords: s.opts.max, MaxDataBytes: s.opts.size, Deleted: &s.tombs, Grown: &s.grown}
}

// cappedOf returns c's ring state, or an error if c is not an open capped
// collection.
func cappedOf(c *coll) (*cappedState, error) {
	st, ok := c.ext.(*cappedState)
	if !ok || st == nil {
		if c.dropped.Load() {
			return nil, errDropped
		}
		return nil, fmt.Errorf("engine: collection %s has no open capped ring", c.m().NS())
	}
	return st, nil
}

// cappedRingCapacity is the size of the ring file that holds a capped
// collection of size bytes (docs/capped.md §7.2): size rounded up to a
// multiple of 256, at least 4096. The size itself, as given, is what
// listCollections and collStats show and what the data may fill.
func cappedRingCapacity(size int64) int64 {
	if size <= cappedMinSize {
		return cappedMinSize
	}
	return (size + cappedSizeAlign - 1) / cappedSizeAlign * cappedSizeAlign
}

// cappedNumber reads a numeric capped option (size, max) of cmdName; a
// non-number is 14 TypeMismatch. Fractions are truncated as MongoDB's
// safe integer conversion does.
func cappedNumber(cmdName, field string, v any) (float64, error) {
	f, ok := asFloat(v)
	if !ok {
		return 0, document.Errorf(document.CodeTypeMismatch, "BSON field '%s.%s' is the wrong type '%s', expected types '[long, int, decimal, double]'", cmdName, field, typeName(v))
	}
	if math.IsNaN(f) {
		return 0, document.Errorf(document.CodeBadValue, "BSON field '%s.%s' must be a number, not NaN", cmdName, field)
	}
	return math.Trunc(f), nil
}

// parseCappedSize validates a requested size and returns it, whole
// bytes, as MongoDB keeps it.
func parseCappedSize(cmdName string, v any) (int64, error) {
	f, err := cappedNumber(cmdName, "size", v)
	if err != nil {
		return 0, err
	}
	if f < 1 || f > cappedMaxSize {
		return 0, document.Errorf(document.CodeBadValue, "capped collection size must be between 1 and %d bytes (1 PiB), got %s", int64(cappedMaxSize), fmtValue(v))
	}
	return int64(f), nil
}

// parseCappedCreate parses create's capped options (capped is true).
func parseCappedCreate(opts bson.D, has map[string]any, co *createOptions) (*createOptions, error) {
	sizeV, ok := has["size"]
	if !ok {
		return nil, document.Errorf(document.CodeInvalidOptions, "the 'size' field is required when 'capped' is true")
	}
	size, err := parseCappedSize("create", sizeV)
	if err != nil {
		return nil, err
	}
	var max int64
	if maxV, ok := has["max"]; ok {
		f, err := cappedNumber("create", "max", maxV)
		if err != nil {
			return nil, err
		}
		if f >= cappedMaxDocs {
			return nil, document.Errorf(document.CodeBadValue, "max in a capped collection has to be < 2^31 or not set, got %s", fmtValue(maxV))
		}
		if f > 0 {
			max = int64(f)
		}
	}
	co.kind = catalog.KindCapped
	co.ext = &cappedOpts{size: size, max: max}
	co.raw = cappedRawOptions(size, max, opts)
	return co, nil
}

// cappedRawOptions is what listCollections shows: {capped: true, size,
// max?} and the other visible options as given.
func cappedRawOptions(size, max int64, opts bson.D) bson.D {
	raw := bson.D{{Key: "capped", Value: true}, {Key: "size", Value: size}}
	if max > 0 {
		raw = append(raw, bson.E{Key: "max", Value: max})
	}
	for _, e := range visibleOptions(opts) {
		switch e.Key {
		case "capped", "size", "max":
			continue
		}
		raw = append(raw, e)
	}
	return raw
}

// cappedOptsOf reads the limits back from a catalog entry.
func cappedOptsOf(m *catalog.Coll) (cappedOpts, error) {
	var o cappedOpts
	v, _ := get(m.Options, "size")
	n, ok := asInt64(v)
	if !ok || n < 1 || n > cappedMaxSize {
		return o, fmt.Errorf("engine: capped collection %s: bad size %v in the catalog", m.NS(), v)
	}
	o.size = n
	if v, ok := get(m.Options, "max"); ok {
		o.max, _ = asInt64(v)
	}
	return o, nil
}

// cappedFileName is the ring file of collection id.
func cappedFileName(id uint64) string { return strconv.FormatUint(id, 10) + cappedFileExt }

// cappedRingDir returns the directory holding ring files, creating it
// (and fsyncing the data directory) if needed. InMemory databases get a
// fresh private temporary directory per collection.
func (db *DB) cappedRingDir() (dir string, tmp bool, err error) {
	if db.opts.InMemory || db.dir == "" {
		d, err := os.MkdirTemp("", "ttlkv-capped-")
		return d, true, err
	}
	dir = filepath.Join(db.dir, cappedDir)
	if _, err := os.Stat(dir); err == nil {
		return dir, false, nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", false, err
	}
	return dir, false, capped.OSFS{}.SyncDir(db.dir)
}

func (db *DB) ringOptions() capped.Options {
	// Appends are buffered: a chunk's records are written with few
	// pwrites when cappedWriter.flush calls Ring.Flush, before the
	// chunk's entries commit and its inserts are acknowledged.
	return capped.Options{FS: db.opts.seams.ringFS, SyncEveryAppend: db.opts.SyncWrites, BufferAppends: true}
}

// prepareExt creates kind-specific storage for a new collection: for a
// capped one, its ring file, allocated and fsynced with its directory.
// It runs inside the create transaction, under catMu.
func (db *DB) prepareExt(c *coll, m *catalog.Coll, co *createOptions) error {
	if m.Kind != catalog.KindCapped {
		return nil
	}
	o, ok := co.ext.(*cappedOpts)
	if !ok {
		return fmt.Errorf("engine: capped create of %s without parsed options", m.NS())
	}
	dir, tmp, err := db.cappedRingDir()
	if err != nil {
		return fmt.Errorf("engine: capped directory: %w", err)
	}
	if !tmp {
		db.sweepCappedOrphans(dir, m.ID)
	}
	path := filepath.Join(dir, cappedFileName(m.ID))
	// The id is fresh, so a file of that name is left from a create
	// that crashed before its catalog entry committed.
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	r, err := capped.Create(path, cappedRingCapacity(o.size), db.ringOptions())
	if err != nil {
		if tmp {
			os.RemoveAll(dir)
		}
		if errors.Is(err, capped.ErrNoSpace) {
			// MongoDB allocates a capped collection as it fills; the
			// ring is allocated whole when created (docs/capped.md §7.2).
			return document.Errorf(document.CodeOutOfDiskSpace, "cannot allocate the %d-byte ring file of capped collection %s: no space left on device", cappedRingCapacity(o.size), m.NS())
		}
		return fmt.Errorf("engine: creating the ring file of capped collection %s: %w", m.NS(), err)
	}
	m.Extra = bson.D{{Key: "cappedFile", Value: cappedFileName(m.ID)}}
	st := &cappedState{ring: r, ids: newCappedIDIndex(ringIDs{r}), opts: *o, store: db.store, id: m.ID}
	if tmp {
		st.tmpDir = dir
	}
	c.ext = st
	return nil
}

// sweepCappedOrphans removes ring files of collections that no longer
// exist (a drop or convertToCapped interrupted by a crash after its
// catalog change). Called under catMu; keep is the id being created.
func (db *DB) sweepCappedOrphans(dir string, keep uint64) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	live := map[uint64]bool{keep: true}
	for _, c := range db.collsOf("") {
		live[c.m().ID] = true
	}
	for _, e := range ents {
		name := e.Name()
		id, err := strconv.ParseUint(strings.TrimSuffix(name, cappedFileExt), 10, 64)
		if err != nil || !strings.HasSuffix(name, cappedFileExt) || live[id] || id > db.nextCollID.Load() {
			continue
		}
		if err := os.Remove(filepath.Join(dir, name)); err == nil {
			db.logf("capped: removed the ring file %s of a dropped collection", name)
		}
	}
}

// abortExt removes what prepareExt made when the create failed.
func (db *DB) abortExt(c *coll, m *catalog.Coll) {
	st, ok := c.ext.(*cappedState)
	if !ok || st == nil {
		return
	}
	c.ext = nil
	st.ring.Close()
	os.Remove(st.ring.Path())
	if st.tmpDir != "" {
		os.RemoveAll(st.tmpDir)
	}
}

// openExt opens kind-specific state of an existing collection: a capped
// collection's ring (running its recovery), its _id index built from
// what the ring holds, and the reconciliation of its secondary indexes.
// A collection just created by prepareExt is already open.
func (db *DB) openExt(c *coll) error {
	m := c.m()
	if m.Kind != catalog.KindCapped || c.ext != nil {
		return nil
	}
	o, err := cappedOptsOf(m)
	if err != nil {
		return err
	}
	if db.opts.InMemory || db.dir == "" {
		return fmt.Errorf("engine: capped collection %s cannot be reopened in memory", m.NS())
	}
	path := filepath.Join(db.dir, cappedDir, cappedFileName(m.ID))
	r, err := capped.Open(path, db.ringOptions())
	if err != nil {
		return fmt.Errorf("engine: opening the ring of capped collection %s: %w", m.NS(), err)
	}
	if rec := r.Recovery(); rec.DroppedOldest > 0 {
		db.logf("capped %s: recovery dropped %d unreadable oldest records; stopped at %d: %s", m.NS(), rec.DroppedOldest, rec.StopOffset, rec.StopReason)
	}
	st := &cappedState{ring: r, opts: o, store: db.store, id: m.ID}
	if err := db.buildCappedIDIndex(m, st, db.opts.Role == RoleReadOnly); err != nil {
		r.Close()
		return fmt.Errorf("engine: building the _id index of capped collection %s: %w", m.NS(), err)
	}
	if db.opts.Role != RoleReadOnly {
		if err := db.reconcileCappedSecondary(c, m, st); err != nil {
			r.Close()
			return fmt.Errorf("engine: reconciling the secondary indexes of capped collection %s: %w", m.NS(), err)
		}
		if err := db.recoverCappedEvents(m, st); err != nil {
			r.Close()
			return err
		}
		// After the insert events: the update came after its insert.
		if err := db.recoverCappedUpdate(m, st); err != nil {
			r.Close()
			return err
		}
	}
	c.ext = st
	return nil
}

// offValue encodes a ring offset as an index entry value.
func offValue(off int64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], uint64(off))
	return b[:]
}

func decodeOff(v []byte) (int64, bool) {
	if len(v) != 8 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(v)), true
}

// buildCappedIDIndex builds the in-memory _id index of a capped
// collection from its ring (every record frame carries its _id
// keystring) and, unless the database is read-only, deletes any _id
// entries in Badger under the collection's _id index (kept there by
// earlier builds; the index is not in Badger any more).
func (db *DB) buildCappedIDIndex(m *catalog.Coll, st *cappedState, readOnly bool) error {
	ids := newCappedIDIndex(ringIDs{st.ring})
	var adds []idAdd
	var ferr error
	ptrs := map[uint64]uint64{} // pointer records: sequence -> generation of their outside copy
	var lost []capped.Record    // pointer records without their copy
	err := st.ring.ReadRun(0, func(rec capped.Record) bool {
		if cappedDeleted(rec.Data) {
			st.tombs.add(rec.Seq, len(rec.Data))
			return true
		}
		ks, err := cappedKS(rec.Data)
		if err != nil {
			ferr = fmt.Errorf("record %d at offset %d: %w", rec.Seq, rec.Off, err)
			return false
		}
		if p, ok := cappedPointerOf(rec.Data); ok {
			var has bool
			if has, ferr = st.hasOutside(rec.Seq, p.gen); ferr != nil {
				return false
			}
			if !has {
				// Only an insert outside the ring whose record was
				// synced before its copy committed, then a crash, leaves
				// this: the insert was not acknowledged.
				lost = append(lost, capped.Record{Seq: rec.Seq, Off: rec.Off, Data: bytes.Clone(rec.Data)})
				return true
			}
			ptrs[rec.Seq] = p.gen
			st.grown.add(rec.Seq, int(payloadExtra(rec.Data)))
		}
		adds = append(adds, idAdd{ks: ks, seq: rec.Seq, off: rec.Off})
		if len(adds) == insertChunkDocs {
			ids.add(adds)
			adds = adds[:0]
		}
		return true
	})
	if err == nil {
		err = ferr
	}
	if err != nil {
		return err
	}
	ids.add(adds)
	st.ids = ids
	for _, rec := range lost {
		st.tombs.add(rec.Seq, len(rec.Data))
		if readOnly {
			continue // read as deleted; the next writable open writes the tombstone
		}
		if err := st.ring.Overwrite(rec.Seq, rec.Off, cappedTombstone(len(rec.Data))); err != nil {
			return err
		}
		db.logf("capped %s: record %d pointed at a document outside the ring that an interrupted insert never wrote; deleted", m.NS(), rec.Seq)
	}
	if readOnly {
		return nil
	}
	pre := lsm.IndexPrefix(m.ID, idIndexID)
	n, err := db.store.DeleteRange(pre, lsm.PrefixEnd(pre))
	if n > 0 {
		db.logf("capped %s: removed %d _id entries from the store (the _id index is kept in memory)", m.NS(), n)
	}
	if err != nil {
		return err
	}
	n, err = db.sweepCappedOutside(st, ptrs)
	if n > 0 {
		db.logf("capped %s: removed %d outside copies of grown documents that no ring record names", m.NS(), n)
	}
	return err
}

// dropExt removes kind-specific files of a dropped collection: a capped
// collection's ring is closed (waiting tailers wake with ErrClosed) and
// its file removed.
func (db *DB) dropExt(c *coll) error {
	st, ok := c.ext.(*cappedState)
	if !ok || st == nil {
		return nil
	}
	st.ring.Close()
	err := os.Remove(st.ring.Path())
	if errors.Is(err, fs.ErrNotExist) {
		err = nil
	}
	if st.tmpDir != "" {
		os.RemoveAll(st.tmpDir)
	}
	return err
}

// closeExt closes kind-specific state at DB close.
func (c *coll) closeExt() error {
	st, ok := c.ext.(*cappedState)
	if !ok || st == nil {
		return nil
	}
	err := st.ring.Close()
	if errors.Is(err, capped.ErrClosed) {
		err = nil
	}
	if st.tmpDir != "" {
		os.RemoveAll(st.tmpDir)
	}
	return err
}

// specialStats counts capped collections from their ring; time-series
// collections report nothing here yet.
func (db *DB) specialStats(c *coll) collStatsInfo {
	st := collStatsInfo{indexSizes: map[string]int64{}}
	cs, err := cappedOf(c)
	if c.m().Kind != catalog.KindCapped || err != nil {
		return st
	}
	tn, tb := cs.tombs.Live()
	st.count = cs.ring.Count() - tn
	_, gx := cs.grown.Live()
	st.size = cs.ring.DataBytes() - tb + gx
	m := c.m()
	_ = db.store.View(func(txn *lsm.Txn) error {
		for _, ix := range m.Indexes {
			if ix.ID == idIndexID {
				st.indexSizes[ix.Name] = cs.ids.keyBytes() // in memory
				continue
			}
			st.indexSizes[ix.Name] = indexKeyBytes(txn, m, ix)
		}
		return nil
	})
	return st
}

// specialStatsFields adds a capped collection's collStats fields:
// maxSize (the size as given) and max when set.
func (db *DB) specialStatsFields(c *coll, scale int64) bson.D {
	if c.m().Kind != catalog.KindCapped {
		return nil
	}
	o, err := cappedOptsOf(c.m())
	if err != nil {
		return nil
	}
	// MongoDB: appendNumber("max", getCappedMaxDocs()), 0 when the
	// collection has no max, then appendNumber("maxSize",
	// getCappedMaxSize() / scale) (src/mongo/db/stats/storage_stats.cpp).
	return bson.D{{Key: "max", Value: int32OrLong(o.max)}, {Key: "maxSize", Value: int32OrLong(o.size / scale)}}
}

// validateSpecial checks a capped collection: the ring's own Check,
// records in strictly increasing sequence that decode, count <= max,
// data bytes <= size, grown records whose outside copies exist, decode
// and hold the _id their pointer frames name, no outside copy that no
// record names (a warning), an _id index holding exactly one entry per
// record, naming its offset, and secondary indexes holding exactly the
// keys of the ring's documents (multikey flags included), their missing
// and extra entries reported as an ordinary collection's are
// (reportEntries). The caller holds c.wmu.
func (db *DB) validateSpecial(ctx context.Context, c *coll, res *ValidateResult, fail func(string, ...any)) {
	m := c.m()
	if m.Kind != catalog.KindCapped {
		return
	}
	st, err := cappedOf(c)
	if err != nil {
		fail("%v", err)
		return
	}
	if err := st.ring.Check(); err != nil {
		fail("ring check: %v", err)
	}
	want := map[string]int64{} // expected _id entry -> offset
	sec := cappedSecondary(m)
	secWant := map[string]int64{} // expected secondary entries -> offset
	offs := map[uint64]int64{}    // records whose documents decode -> offset, to reread them
	// An index's own findings (a record making it multikey, an entry
	// naming another offset) follow its missing and extra entries, as
	// for an ordinary collection.
	var idxErrs []string
	idxFail := func(format string, args ...any) { idxErrs = append(idxErrs, fmt.Sprintf(format, args...)) }
	var last uint64
	var bytes int64
	ptrs := map[uint64]uint64{} // pointer records: sequence -> generation
	var ptrExtra int64
	it := st.ring.Scan(0, false)
	for it.Next() {
		rec := it.Record()
		if rec.Seq <= last {
			fail("ring record %d follows record %d", rec.Seq, last)
		}
		last = rec.Seq
		if cappedDeleted(rec.Data) {
			continue // a deleted document's tombstone
		}
		res.Records++
		p, grown := cappedPointerOf(rec.Data)
		if grown {
			ptrs[rec.Seq] = p.gen
			ptrExtra += payloadExtra(rec.Data)
			if !st.grown.Has(rec.Seq) {
				fail("ring record %d points at an outside copy but is not counted as grown", rec.Seq)
			}
		} else {
			bytes += int64(len(rec.Data))
			if st.grown.Has(rec.Seq) {
				fail("ring record %d is counted as grown but holds its document", rec.Seq)
			}
		}
		stored, err := cappedKS(rec.Data)
		if err != nil {
			res.corrupt(int64(rec.Seq), fmt.Sprintf("ring record %d at offset %d does not decode: %v", rec.Seq, rec.Off, err))
			continue
		}
		// The _id index is rebuilt from the frames' keys, so it holds
		// this record's entry whether or not its document decodes.
		want[string(lsm.IndexKey(m.ID, idIndexID, stored, rec.Seq))] = rec.Off
		d, ok := st.validateRecordDoc(rec, p, grown, res)
		if !ok {
			continue
		}
		ks, err := cappedIDKey(m, d)
		if err != nil {
			fail("ring record %d: _id key: %v", rec.Seq, err)
			continue
		}
		if string(ks) != string(stored) {
			// The record contradicts itself: mongod's nearest case is a
			// record that fails validation, so it counts as invalid.
			// Its document's keys are still expected of the indexes.
			if grown {
				res.corrupt(int64(rec.Seq), fmt.Sprintf("ring record %d at offset %d names an outside copy (generation %d) whose document's _id does not match the _id key of its pointer frame", rec.Seq, rec.Off, p.gen))
			} else {
				res.corrupt(int64(rec.Seq), fmt.Sprintf("ring record %d at offset %d carries an _id key that does not match its document's _id", rec.Seq, rec.Off))
			}
		}
		if len(sec) > 0 {
			offs[rec.Seq] = rec.Off
			if err := cappedSecondaryWant(m, sec, rec.Seq, rec.Off, d, secWant, func(ix *catalog.Index) {
				if !ix.Multikey {
					res.badIndex(ix.Name)
					idxFail("ring record %d makes index %s multikey, which the catalog does not say", rec.Seq, ix.Name)
				}
			}); err != nil {
				idxFail("ring record %d: %v", rec.Seq, err)
			}
		}
	}
	if err := it.Err(); err != nil {
		fail("ring scan: %v", err)
	}
	if st.opts.max > 0 && res.Records > st.opts.max {
		fail("%d documents, more than max %d", res.Records, st.opts.max)
	}
	// The documents in the ring fit the size; grown ones (updated
	// beyond their records, or inserted larger than the size) may take
	// the collection over it until the next insert.
	if bytes > st.opts.size {
		fail("%d data bytes in the ring, more than size %d", bytes, st.opts.size)
	}
	// Grown documents: the set counts exactly the pointer records and
	// their extra bytes (each copy was read above). A copy no record
	// names is a warning: reads never reach it, nothing is lost, and
	// opening the collection removes it (sweepCappedOutside), as mongod
	// drops at startup the storage its catalog does not name.
	if gn, gx := st.grown.Live(); gn != int64(len(ptrs)) || gx != ptrExtra {
		fail("grown documents counted as %d with %d extra bytes; the ring has %d pointer records with %d", gn, gx, len(ptrs), ptrExtra)
	}
	var strayOut int
	err = db.store.Scan(lsm.IterOptions{Prefix: lsm.RecordPrefix(m.ID), KeysOnly: true}, func(k, _ []byte) error {
		seq, gen, ok := decodeCappedOutKey(lsm.RecordPrefix(m.ID), k)
		if !ok || ptrs[seq] != gen {
			strayOut++
		}
		return nil
	})
	if err != nil {
		fail("reading the outside copies: %v", err)
	}
	if strayOut > 0 {
		res.Warnings = append(res.Warnings, orphanedCopiesWarning(strayOut))
	}
	db.validateCappedSecondary(m, secWant, res, idxFail, func(seq uint64) bson.D {
		off, ok := offs[seq]
		if !ok {
			return nil
		}
		data, err := st.ring.Read(seq, off)
		if err != nil {
			return nil
		}
		d, _, _ := st.decodeRecord(capped.Record{Seq: seq, Off: off, Data: data})
		return d
	})
	for _, e := range idxErrs {
		fail("%s", e)
	}
	// The _id index is in memory; entries of evicted records leave it
	// when an insert chunk ends, so it holds exactly the live records.
	err = st.ids.scan(nil, nil, nil, false, func(ks string, seq uint64, off int64) bool {
		res.KeysPerIndex["_id_"]++
		k := string(lsm.IndexKey(m.ID, idIndexID, []byte(ks), seq))
		got, ok := want[k]
		switch {
		case !ok:
			res.badIndex("_id_")
			fail("_id index has an entry for ring record %d that the ring does not hold", seq)
		case got != off:
			res.badIndex("_id_")
			fail("_id index entry of ring record %d names offset %d, the record is at %d", seq, off, got)
		}
		delete(want, k)
		return true
	})
	if err != nil {
		fail("_id index scan: %v", err)
	}
	if n := int64(st.ids.len()); n != res.Records {
		res.badIndex("_id_")
		fail("_id index counts %d entries for %d ring records", n, res.Records)
	}
	for k := range want {
		_, seq, _ := lsm.SplitIndexKey([]byte(k))
		res.badIndex("_id_")
		fail("ring record %d is missing its _id index entry", seq)
	}
	if n := res.KeysPerIndex["_id_"]; n != res.Records {
		res.badIndex("_id_")
		fail("_id index has %d entries for %d ring records", n, res.Records)
	}
	var stray int
	err = db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: lsm.IndexPrefix(m.ID, idIndexID), KeysOnly: true})
		defer it.Close()
		for it.Next() {
			stray++
		}
		return it.Err()
	})
	if err != nil {
		fail("reading the store under the _id index: %v", err)
	}
	if stray > 0 {
		fail("the store holds %d _id index entries of a capped collection, whose _id index is kept in memory", stray)
	}
}

// encodeCappedPayload frames a document for the ring (see the file
// comment): the _id keystring ks and the msgpack document msg, each
// behind its uvarint length, then pad zero bytes.
func encodeCappedPayload(dst, ks, msg []byte, pad int) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(ks)))
	dst = append(dst, ks...)
	dst = binary.AppendUvarint(dst, uint64(len(msg)))
	dst = append(dst, msg...)
	for i := 0; i < pad; i++ {
		dst = append(dst, 0)
	}
	return dst
}

// cappedFramedLen is len(encodeCappedPayload(nil, ks, msg, 0)).
func cappedFramedLen(ks, msg []byte) int {
	return uvarintLen(uint64(len(ks))) + len(ks) + uvarintLen(uint64(len(msg))) + len(msg)
}

func uvarintLen(x uint64) int {
	n := 1
	for x >= 0x80 {
		x >>= 7
		n++
	}
	return n
}

// cappedFrame splits a ring payload into its _id keystring and msgpack
// document (both aliasing p).
func cappedFrame(p []byte) (ks, msg []byte, err error) {
	n, k := binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)-k) {
		return nil, nil, fmt.Errorf("capped record frame: bad _id key length prefix")
	}
	ks, p = p[k:k+int(n)], p[k+int(n):]
	n, k = binary.Uvarint(p)
	if k <= 0 || n > uint64(len(p)-k) {
		return nil, nil, fmt.Errorf("capped record frame: bad document length prefix")
	}
	return ks, p[k : k+int(n)], nil
}

// cappedMsg returns the msgpack document inside a ring payload.
func cappedMsg(p []byte) ([]byte, error) {
	_, msg, err := cappedFrame(p)
	return msg, err
}

// cappedKS returns the _id keystring inside a ring payload.
func cappedKS(p []byte) ([]byte, error) {
	n, k := binary.Uvarint(p)
	if k <= 0 || n == 0 || n > uint64(len(p)-k) {
		return nil, fmt.Errorf("capped record frame: bad _id key length prefix")
	}
	return p[k : k+int(n)], nil
}

// decodeCappedPayload decodes the document of a ring payload.
func decodeCappedPayload(p []byte) (bson.D, error) {
	msg, err := cappedMsg(p)
	if err != nil {
		return nil, err
	}
	return document.Unmarshal(msg)
}

// cappedIDKey returns the _id index keystring of d.
func cappedIDKey(m *catalog.Coll, d bson.D) ([]byte, error) { return cappedIDKeyTo(nil, m, d) }

// cappedIDKeyTo appends the _id index keystring of d to dst. A document
// whose first field is a non-array _id (what prepareInsert makes) takes
// the short path: the keystring of that value, as indexkey.Of computes it
// for the ascending {_id: 1} index.
func cappedIDKeyTo(dst []byte, m *catalog.Coll, d bson.D) ([]byte, error) {
	if len(d) > 0 && d[0].Key == "_id" && len(m.Indexes) > 0 {
		ix := m.Indexes[0]
		if _, arr := d[0].Value.(bson.A); !arr && ix.ID == idIndexID && ix.PartialFilter == nil && !ix.Sparse && len(ix.Key) == 1 && ix.Extra == nil {
			if f, ok := asFloat(ix.Key[0].Value); ok && f > 0 {
				return lsm.AppendKey(dst, d[0].Value, false), nil
			}
		}
	}
	ix := m.Index("_id_")
	if ix == nil {
		ix = idIndex()
	}
	keys, _, err := indexkey.Of(ix, d)
	if err != nil {
		return nil, err
	}
	if len(keys) != 1 {
		return nil, document.Errorf(document.CodeInvalidIDField, "a capped document must have exactly one _id key, found %d", len(keys))
	}
	return append(dst, keys[0]...), nil
}

// cappedFailedErr explains a ring that failed an I/O operation: it
// refuses every later write (capped.ErrFailed) until the database is
// reopened. Other errors are returned unchanged.
func cappedFailedErr(c *coll, err error) error {
	if errors.Is(err, capped.ErrFailed) {
		return fmt.Errorf("engine: capped collection %s refuses writes after an I/O error on its ring file until the database is closed and reopened (acknowledged writes are kept): %w", c.m().NS(), err)
	}
	return err
}
