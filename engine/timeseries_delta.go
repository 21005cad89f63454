package engine

import (
	"bytes"
	"encoding/binary"
	"strings"
	"sync"

	"github.com/klauspost/compress/s2"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
	"github.com/ttlkv/ttlkv/ts"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Bucket deltas. A bucket is stored as its base record (a record of the
// buckets collection, ts.Bucket.CompressedDocument, with all its index
// entries) plus zero or more delta records, each holding the
// measurements one insert transaction appended to the bucket:
//
//	key:   IndexPrefix(<buckets id>, tsDeltaIndexID) | rid (8 bytes BE) | seq (4 bytes BE)
//	value: s2(ts.Bucket.EncodeTail): the measurements in columns, without the meta value
//
// Index id 0 is never given to an index, so the deltas are a key range
// of their own that the generic record and index code never visits, and
// that dropping the collection removes with its index entries. The
// measurements of a bucket are those of its base followed by those of
// its deltas in seq order.
//
// Writes (tsInsertChunk) append a delta for each open bucket a
// transaction touches and fold the deltas into a new base, deleting
// them, only when they would hold at least as many measurements as the
// base (or there are tsMaxDeltas of them), and when the bucket closes.
// A base therefore at least doubles between rewrites, so a measurement
// is rewritten O(1) times, where rewriting the whole bucket on every
// insert made filling a bucket over k inserts cost O(k^2). A bucket's
// base and deltas always change in one transaction with everything else
// the insert writes, so an acknowledged measurement survives a crash.
//
// Reads see base plus deltas: the scanner of a buckets collection merges
// them into the record it returns (tsMergeRecord), so bucket filters on
// control.max, reads of system.buckets.<name> and time-series reads all
// see whole buckets. Removing a bucket record removes its deltas
// (writeCtx.remove calls tsRemoveDeltas). The index keys of a bucket
// (its _id, control.min of the time, meta) never change while it grows,
// so deltas need no index entries and the control.min index stays exact.

// tsDeltaIndexID is the index id under which a buckets collection keeps
// its delta records. Index ids start at 1 (_id_).
const tsDeltaIndexID = 0

// tsMaxDeltas is the most delta records a bucket gets before they are
// folded into its base, whatever their size: it bounds the keys one fold
// deletes and the records a read of the bucket merges.
const tsMaxDeltas = 256

// tsDeltaPrefix is the prefix of the delta keys of bucket record rid.
func tsDeltaPrefix(coll, rid uint64) []byte {
	return binary.BigEndian.AppendUint64(lsm.IndexPrefix(coll, tsDeltaIndexID), rid)
}

// tsDeltaKey is the key of delta seq of bucket record rid.
func tsDeltaKey(coll, rid uint64, seq uint32) []byte {
	return binary.BigEndian.AppendUint32(tsDeltaPrefix(coll, rid), seq)
}

// isBucketsColl reports whether m is the buckets collection of a
// time-series collection (only those hold deltas).
func isBucketsColl(m *catalog.Coll) bool {
	return m.Kind == catalog.KindNormal && strings.HasPrefix(m.Name, tsBucketsPre)
}

// encodeDelta returns the stored form of a delta holding the
// measurements from..Count()-1 of bucket b: s2 of b.EncodeTail(from),
// a column layout without the meta value (every row has the bucket's
// meta; decodeDelta puts it back).
func encodeDelta(b *ts.Bucket, from int) ([]byte, error) {
	bufp := tsTailBufs.Get().(*[]byte)
	defer tsTailBufs.Put(bufp)
	raw, err := b.AppendTail((*bufp)[:0], from)
	*bufp = raw[:0]
	if err != nil {
		return nil, err
	}
	// s2, not zstd: a delta is small and short-lived, and zstd's
	// per-call table building costs more than the insert itself. It
	// encodes into a recycled buffer of its worst-case size, and the
	// delta keeps a copy of what it used.
	zp := tsTailBufs.Get().(*[]byte)
	defer tsTailBufs.Put(zp)
	if n := s2.MaxEncodedLen(len(raw)); cap(*zp) < n {
		*zp = make([]byte, n)
	}
	return bytes.Clone(s2.Encode((*zp)[:cap(*zp)], raw)), nil
}

// tsTailBufs recycles the buffers deltas are encoded in before s2.
var tsTailBufs = sync.Pool{New: func() any { return new([]byte) }}

// decodeDelta is the inverse of encodeDelta: the delta's measurements,
// each with the meta field (when the bucket has one) set to meta. It
// also reads the row form of earlier versions, s2({r: [measurement,
// ...]}) with the meta value stored as null.
func decodeDelta(o ts.Options, v []byte, meta any) ([]bson.D, error) {
	if n, err := s2.DecodedLen(v); err != nil || n > ts.MaxBucketBytes*8 {
		return nil, document.Errorf(document.CodeInternalError, "time-series delta: bad s2 block (%v)", err)
	}
	raw, err := s2.Decode(nil, v)
	if err != nil {
		return nil, err
	}
	d, err := document.Unmarshal(raw)
	if err != nil {
		return nil, err
	}
	if len(d) == 0 || d[0].Key != "r" {
		return ts.DecodeTailDocument(o, d, meta)
	}
	if len(d) != 1 || d[0].Key != "r" {
		return nil, document.Errorf(document.CodeInternalError, "time-series delta is not {r: [...]}")
	}
	a, ok := d[0].Value.(bson.A)
	if !ok {
		return nil, document.Errorf(document.CodeInternalError, "time-series delta rows are %s, not an array", typeName(d[0].Value))
	}
	rows := make([]bson.D, len(a))
	for i, x := range a {
		if rows[i], ok = x.(bson.D); !ok {
			return nil, document.Errorf(document.CodeInternalError, "time-series delta row %d is %s, not an object", i, typeName(x))
		}
		if o.MetaField != "" {
			for j := range rows[i] {
				if rows[i][j].Key == o.MetaField {
					rows[i][j].Value = meta
					break
				}
			}
		}
	}
	return rows, nil
}

// tsDeltaSet is what tsReadDeltas found for one bucket: its delta
// records, still encoded, in order.
type tsDeltaSet struct {
	raws  [][]byte
	n     int   // delta records
	bytes int64 // their stored bytes
}

// rows decodes the deltas' measurements, in order, with the meta field
// set to meta.
func (ds tsDeltaSet) rows(o ts.Options, meta any) ([]bson.D, error) {
	var out []bson.D
	for i, v := range ds.raws {
		rows, err := decodeDelta(o, v, meta)
		if err != nil {
			return nil, document.Errorf(document.CodeInternalError, "time-series delta %d: %v", i, err)
		}
		out = append(out, rows...)
	}
	return out, nil
}

// tsReadDeltas reads the deltas of bucket record rid in txn, in order.
// Sequence numbers must run 0, 1, 2, ... with no gap: a gap means a lost
// delta and is reported as corruption.
func tsReadDeltas(txn *lsm.Txn, coll, rid uint64) (tsDeltaSet, error) {
	var ds tsDeltaSet
	pre := tsDeltaPrefix(coll, rid)
	it := txn.NewIter(lsm.IterOptions{Prefix: pre})
	defer it.Close()
	for it.Next() {
		k := it.Key()
		if len(k) != len(pre)+4 || binary.BigEndian.Uint32(k[len(pre):]) != uint32(ds.n) {
			return ds, document.Errorf(document.CodeInternalError, "time-series bucket record %d: delta key %x out of sequence (want seq %d)", rid, k, ds.n)
		}
		v, err := it.Value()
		if err != nil {
			return ds, err
		}
		ds.raws = append(ds.raws, v)
		ds.n++
		ds.bytes += int64(len(v))
	}
	return ds, it.Err()
}

// tsRemoveDeltas deletes every delta of bucket record rid in txn, and
// reads the key the next delta would get, so that a concurrent append
// conflicts with txn. It counts the removal in db.tsRemovals. No
// other iterator of txn may be open (Badger allows one per write
// transaction).
func (db *DB) tsRemoveDeltas(txn *lsm.Txn, coll, rid uint64) error {
	db.tsRemovals.Add(1)
	var keys [][]byte
	it := txn.NewIter(lsm.IterOptions{Prefix: tsDeltaPrefix(coll, rid), KeysOnly: true})
	for it.Next() {
		keys = append(keys, bytes.Clone(it.Key()))
	}
	err := it.Err()
	it.Close()
	if err != nil {
		return err
	}
	for _, k := range keys {
		if err := txn.Delete(k); err != nil {
			return err
		}
	}
	// Read the next delta key too: a writer that appends it before txn
	// commits (the TTL reaper stages its batch without the wmu) then
	// makes txn's commit conflict, and the retry removes that delta as
	// well instead of leaving it orphaned.
	_, err = txn.Has(tsDeltaKey(coll, rid, uint32(len(keys))))
	return err
}

// bucketsOptions returns the time-series options of the collection whose
// buckets collection is m.
func (db *DB) bucketsOptions(m *catalog.Coll) (ts.Options, bool) {
	c := db.lookup(m.DB, strings.TrimPrefix(m.Name, tsBucketsPre))
	if c == nil || c.m().Kind != catalog.KindTimeseries {
		return ts.Options{}, false
	}
	t, err := decodeTSMeta(c.m())
	if err != nil {
		return ts.Options{}, false
	}
	return t.opts, true
}

// applyDeltas returns the bucket of base document d with the
// measurements of deltas ds appended.
func applyDeltas(o ts.Options, d bson.D, ds tsDeltaSet) (*ts.Bucket, error) {
	b, err := ts.DecodeBucket(o, d)
	if err != nil {
		return nil, err
	}
	rows, err := ds.rows(o, b.Meta)
	if err != nil {
		return nil, document.Errorf(document.CodeInternalError, "time-series bucket %s: %v", b.ID.Hex(), err)
	}
	for i, r := range rows {
		if err := b.Append(o, r); err != nil {
			return nil, document.Errorf(document.CodeInternalError, "time-series bucket %s: delta row %d does not apply: %v", b.ID.Hex(), i, err)
		}
	}
	return b, nil
}

// tsMergeRecord returns bucket record rid of buckets collection m with
// its deltas applied: d itself when it has none, else the merged bucket
// in the uncompressed version-1 form (as MongoDB shows an open bucket).
func (db *DB) tsMergeRecord(txn *lsm.Txn, m *catalog.Coll, rid uint64, d bson.D) (bson.D, error) {
	ds, err := tsReadDeltas(txn, m.ID, rid)
	if err != nil || ds.n == 0 {
		return d, err
	}
	o, ok := db.bucketsOptions(m)
	if !ok {
		return d, nil
	}
	b, err := applyDeltas(o, d, ds)
	if err != nil {
		return nil, err
	}
	return b.Document(o), nil
}

// tsLoadBucket reads bucket record rid with its deltas in txn. found is
// false when the record does not exist.
func tsLoadBucket(txn *lsm.Txn, o ts.Options, coll, rid uint64) (d bson.D, b *ts.Bucket, found bool, err error) {
	d, _, err = getRecord(txn, coll, rid)
	if err == lsm.ErrNotFound {
		return nil, nil, false, nil
	} else if err != nil {
		return nil, nil, false, err
	}
	ds, err := tsReadDeltas(txn, coll, rid)
	if err != nil {
		return nil, nil, false, err
	}
	b, err = applyDeltas(o, d, ds)
	return d, b, err == nil, err
}
