package ts

import (
	"encoding/binary"
	"math"
	"sort"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// MaxOpenPerMeta is the most open buckets the Bucketer keeps for one meta
// value. Measurements that arrive out of order may open extra buckets;
// past this limit the least recently used one is closed.
const MaxOpenPerMeta = 4

// group is the open buckets of one meta value, most recently used last.
type group struct {
	meta    any
	hasMeta bool
	key     string // its metaKey; "" when the meta has none (see group)
	open    []*Bucket
	rows    int // measurements in the last bucket that closed full or outgrown: the expected size of the next
}

// metaKey appends to dst the hash key of a (hasMeta, meta) pair. Two
// values get equal keys exactly when they are the same BSON value, type
// and bytes (SameMeta), as mongod compares metas: 1, 1.0 and 1 as a long
// are three metas. The common types (strings, numbers, dates,
// ObjectIDs, booleans, null, and documents and arrays of them) have a
// form of their own (fastMetaKey), anything else its BSON encoding,
// behind a different first byte. ok is false for a value that is not a
// BSON value.
func metaKey(dst []byte, meta any, hasMeta bool) (key []byte, ok bool) {
	if !hasMeta {
		return append(dst, 0), true
	}
	if key, ok := fastMetaKey(append(dst, 2), meta, 0); ok {
		return key, true
	}
	t, raw, err := bson.MarshalValue(meta)
	if err != nil {
		return dst, false
	}
	return append(append(dst, 1, byte(t)), raw...), true
}

// fastMetaKey appends the canonical form of v (see metaKey); ok is false
// for a value it has no form for.
func fastMetaKey(dst []byte, v any, depth int) ([]byte, bool) {
	if depth > document.MaxReadDepth {
		return dst, false
	}
	switch x := v.(type) {
	case string:
		dst = binary.AppendUvarint(append(dst, 's'), uint64(len(x)))
		return append(dst, x...), true
	case int32:
		return binary.BigEndian.AppendUint32(append(dst, 'i'), uint32(x)), true
	case int64:
		return binary.BigEndian.AppendUint64(append(dst, 'l'), uint64(x)), true
	case float64:
		return binary.BigEndian.AppendUint64(append(dst, 'f'), math.Float64bits(x)), true
	case bool:
		if x {
			return append(dst, 'b', 1), true
		}
		return append(dst, 'b', 0), true
	case nil:
		return append(dst, 'z'), true
	case bson.Null:
		return append(dst, 'z'), true
	case bson.DateTime:
		return binary.BigEndian.AppendUint64(append(dst, 'd'), uint64(x)), true
	case bson.ObjectID:
		return append(append(dst, 'o'), x[:]...), true
	case bson.D:
		dst = binary.AppendUvarint(append(dst, 'D'), uint64(len(x)))
		for _, e := range x {
			dst = binary.AppendUvarint(dst, uint64(len(e.Key)))
			dst = append(dst, e.Key...)
			var ok bool
			if dst, ok = fastMetaKey(dst, e.Value, depth+1); !ok {
				return dst, false
			}
		}
		return dst, true
	case bson.A:
		dst = binary.AppendUvarint(append(dst, 'A'), uint64(len(x)))
		for _, e := range x {
			var ok bool
			if dst, ok = fastMetaKey(dst, e, depth+1); !ok {
				return dst, false
			}
		}
		return dst, true
	}
	return dst, false
}

// Bucketer keeps the open buckets of one time-series collection and
// chooses the bucket for each measurement (docs/timeseries.md §6.3). Meta
// values share buckets only when they are the same BSON value (SameMeta),
// as in mongod: documents and arrays with the same fields in the same
// order, numbers of the same type (1, 1.0 and a long 1 are three metas,
// so each measurement reads back with its own). Measurements without the
// meta field share buckets with each other, not with those whose meta is
// null.
//
// For a measurement at time t Insert closes every open bucket of its meta
// that t lies beyond (t >= min + span), then uses an open bucket that
// covers t and has room, closing a covering bucket that is full; failing
// that it opens a new bucket with min BucketMin(t). Measurements that
// arrive out of order therefore go to a covering open bucket or a new
// one, never to a bucket already handed back as closed.
//
// A Bucketer stores nothing: after each Insert the caller writes the
// returned bucket's Document (insert when created, replace otherwise).
// Closed buckets are only dropped from the open set; TakeClosed hands
// them back. A Bucketer is not safe for concurrent use, and the caller
// must serialize Insert with its use of the returned buckets.
type Bucketer struct {
	o      Options
	groups []*group          // sorted by (hasMeta, meta) under document.Compare
	byKey  map[string]*group // groups by metaKey, in front of the search
	keyBuf []byte
	closed []*Bucket
	nopen  int
	events Events
}

// Events counts what a Bucketer did to its open buckets, under the names
// of mongod's bucket catalog counters that collStats lists. Each count
// is of Insert calls that succeeded.
type Events struct {
	// OpenedForMeta counts buckets opened for a meta value that had no
	// open bucket (mongod's numBucketsOpenedDueToMetadata).
	OpenedForMeta int64
	// ClosedForCount counts buckets closed because they held
	// MaxBucketCount measurements (numBucketsClosedDueToCount).
	ClosedForCount int64
	// ClosedForSize counts buckets closed because the next measurement
	// would have taken them past MaxBucketBytes (numBucketsClosedDueToSize).
	ClosedForSize int64
	// ClosedForTimeForward counts buckets closed because a measurement
	// came at or after their MinTime plus the span
	// (numBucketsClosedDueToTimeForward).
	ClosedForTimeForward int64
}

// NewBucketer returns a Bucketer with no open buckets for a collection
// with options o.
func NewBucketer(o Options) *Bucketer { return &Bucketer{o: o, byKey: map[string]*group{}} }

// SetOptions changes the options used for later measurements, after a
// collMod. Open buckets stay open: ApplyCollMod only grows the span, so
// they remain valid.
func (bk *Bucketer) SetOptions(o Options) { bk.o = o }

// Insert places measurement m in a bucket and returns it; created is true
// when the bucket is new. Errors (nothing changes): the time field is
// missing or not a date, or m has a field twice, 2 BadValue.
func (bk *Bucketer) Insert(m bson.D) (b *Bucket, created bool, err error) {
	t, meta, hasMeta, err := bk.o.Split(m)
	if err != nil {
		return nil, false, err
	}
	if err := checkFields(m); err != nil {
		return nil, false, err
	}
	g := bk.group(meta, hasMeta, true)
	forMeta := len(g.open) == 0 // a group always has an open bucket once made
	// Close what t lies beyond, then find a covering bucket with room.
	var found *Bucket
	var n int
	keep := g.open[:0]
	for _, ob := range g.open {
		switch {
		case t >= ob.MinTime && !ob.covers(bk.o, t):
			bk.close(ob)
			bk.events.ClosedForTimeForward++
			g.rows = ob.count
		case found == nil && ob.covers(bk.o, t):
			if size, ok := ob.fits(bk.o, t, m); ok {
				found, n = ob, size
				continue // re-appended below as most recently used
			}
			bk.close(ob)
			if ob.count >= MaxBucketCount {
				bk.events.ClosedForCount++
			} else {
				bk.events.ClosedForSize++
			}
			g.rows = ob.count
		default:
			keep = append(keep, ob)
		}
	}
	clear(g.open[len(keep):])
	g.open = keep
	if found == nil {
		found = NewBucket(bk.o, t, meta, hasMeta)
		found.rows = g.rows
		created = true
		bk.nopen++
		if forMeta {
			bk.events.OpenedForMeta++
		}
		n = found.addedSize(bk.o, m)
	}
	found.add(bk.o, m, t, hasMeta, n)
	g.open = append(g.open, found)
	for len(g.open) > MaxOpenPerMeta {
		bk.close(g.open[0])
		g.open = append(g.open[:0], g.open[1:]...)
	}
	return found, created, nil
}

// close hands an open bucket back as closed.
func (bk *Bucketer) close(b *Bucket) {
	bk.closed = append(bk.closed, b)
	bk.nopen--
}

// TakeEvents returns what happened since the last call and forgets it.
func (bk *Bucketer) TakeEvents() Events {
	e := bk.events
	bk.events = Events{}
	return e
}

// TakeClosed returns the buckets closed since the last call, oldest
// first, and forgets them. They will receive no more measurements.
func (bk *Bucketer) TakeClosed() []*Bucket {
	c := bk.closed
	bk.closed = nil
	return c
}

// CloseAll closes every open bucket (to bound memory, or before the
// collection's options change in a way that open buckets must not
// outlive). TakeClosed returns them afterwards.
func (bk *Bucketer) CloseAll() {
	for _, g := range bk.groups {
		for _, b := range g.open {
			bk.close(b)
		}
	}
	bk.groups = nil
	clear(bk.byKey)
}

// OpenCount returns the number of open buckets.
func (bk *Bucketer) OpenCount() int { return bk.nopen }

// Forget drops the open bucket with this id, if any, because it was
// deleted (expired or dropped). Insert never puts a measurement in it
// again; new buckets always get fresh ids. It takes time linear in the
// number of open buckets.
func (bk *Bucketer) Forget(id bson.ObjectID) {
	for gi := 0; gi < len(bk.groups); gi++ {
		g := bk.groups[gi]
		for i, b := range g.open {
			if b.ID == id {
				g.open = append(g.open[:i], g.open[i+1:]...)
				bk.nopen--
				bk.dropEmpty(g)
				return
			}
		}
	}
}

// Load reopens an existing bucket (one read back from storage, say after
// a restart) so that later measurements may join it. A full bucket, or
// one already open, is ignored. It obeys MaxOpenPerMeta like any other.
func (bk *Bucketer) Load(b *Bucket) {
	if b == nil || b.count >= MaxBucketCount {
		return
	}
	g := bk.group(b.Meta, b.HasMeta, true)
	for _, ob := range g.open {
		if ob.ID == b.ID {
			return
		}
	}
	g.open = append(g.open, b)
	bk.nopen++
	for len(g.open) > MaxOpenPerMeta {
		bk.close(g.open[0])
		g.open = append(g.open[:0], g.open[1:]...)
	}
}

// cmpMeta orders (hasMeta, meta) pairs: no meta first, then by
// document.Compare.
func cmpMeta(ah bool, a any, bh bool, b any) int {
	switch {
	case ah != bh:
		if !ah {
			return -1
		}
		return 1
	case !ah:
		return 0
	}
	return document.Compare(a, b)
}

// group finds the group of a meta value, creating it when asked to. A
// meta value with a hash key (every BSON value) is found by it; the
// sorted slice is searched only to insert a new group, or for a value
// without one.
func (bk *Bucketer) group(meta any, hasMeta bool, create bool) *group {
	key, hashed := metaKey(bk.keyBuf[:0], meta, hasMeta)
	bk.keyBuf = key[:0]
	if hashed {
		if g := bk.byKey[string(key)]; g != nil {
			return g
		}
	} else {
		for _, g := range bk.groups {
			if g.key == "" && SameMeta(g.hasMeta, g.meta, hasMeta, meta) {
				return g
			}
		}
	}
	if !create {
		return nil
	}
	// Groups of values equal under document.Compare but not the same
	// BSON value (1 and 1.0) sit side by side.
	i := sort.Search(len(bk.groups), func(i int) bool {
		g := bk.groups[i]
		return cmpMeta(g.hasMeta, g.meta, hasMeta, meta) > 0
	})
	g := &group{hasMeta: hasMeta}
	if hasMeta {
		g.meta = document.Clone(meta)
	}
	if hashed {
		g.key = string(key)
		if bk.byKey == nil {
			bk.byKey = map[string]*group{}
		}
		bk.byKey[g.key] = g
	}
	bk.groups = append(bk.groups, nil)
	copy(bk.groups[i+1:], bk.groups[i:])
	bk.groups[i] = g
	return g
}

// SameMeta reports whether two (hasMeta, meta) pairs are the same meta
// for bucketing: both without one, or the same BSON value, type and
// bytes, as mongod compares metas (1 and 1.0 differ, so do 0.0 and -0.0).
func SameMeta(ah bool, a any, bh bool, b any) bool {
	if ah != bh {
		return false
	}
	return !ah || sameValue(a, b, 0)
}

// sameValue reports whether a and b are the same BSON value.
func sameValue(a, b any, depth int) bool {
	switch x := a.(type) {
	case nil, bson.Null:
		switch b.(type) {
		case nil, bson.Null:
			return true
		}
		return false
	case string:
		y, ok := b.(string)
		return ok && x == y
	case int32:
		y, ok := b.(int32)
		return ok && x == y
	case int64:
		y, ok := b.(int64)
		return ok && x == y
	case float64:
		y, ok := b.(float64)
		return ok && math.Float64bits(x) == math.Float64bits(y)
	case bool:
		y, ok := b.(bool)
		return ok && x == y
	case bson.DateTime:
		y, ok := b.(bson.DateTime)
		return ok && x == y
	case bson.ObjectID:
		y, ok := b.(bson.ObjectID)
		return ok && x == y
	case bson.D:
		y, ok := b.(bson.D)
		if !ok || len(x) != len(y) || depth > document.MaxReadDepth {
			return false
		}
		for i := range x {
			if x[i].Key != y[i].Key || !sameValue(x[i].Value, y[i].Value, depth+1) {
				return false
			}
		}
		return true
	case bson.A:
		y, ok := b.(bson.A)
		if !ok || len(x) != len(y) || depth > document.MaxReadDepth {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i], depth+1) {
				return false
			}
		}
		return true
	}
	ta, ra, errA := bson.MarshalValue(a)
	tb, rb, errB := bson.MarshalValue(b)
	return errA == nil && errB == nil && ta == tb && string(ra) == string(rb)
}

// dropEmpty removes a group without open buckets.
func (bk *Bucketer) dropEmpty(g *group) {
	if len(g.open) > 0 {
		return
	}
	if g.key != "" {
		delete(bk.byKey, g.key)
	}
	for i, x := range bk.groups {
		if x == g {
			bk.groups = append(bk.groups[:i], bk.groups[i+1:]...)
			return
		}
	}
}
