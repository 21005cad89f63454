package ts

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// MaxBucketCount is the most measurements a bucket holds (MongoDB's
// timeseriesBucketMaxCount).
const MaxBucketCount = 1000

// MaxBucketBytes is the size, in bytes of BSON, past which a bucket takes
// no more measurements (MongoDB's timeseriesBucketMaxSize). A measurement
// larger than this still gets a bucket of its own.
const MaxBucketBytes = 125 * 1024

// bucketOverhead estimates the bytes of a bucket document that do not
// depend on its measurements: _id, control and its fixed fields, data and
// layout headers.
const bucketOverhead = 160

// Errors returned by Bucket.Add for a measurement that does not belong in
// the bucket. They are engine faults, not user mistakes: the Bucketer
// never makes them.
var (
	// ErrMetaMismatch is returned when the measurement's meta value is not
	// equal to the bucket's (or one has a meta value and the other not).
	ErrMetaMismatch = errors.New("ts: measurement meta does not match the bucket")
	// ErrNoFit is returned when the measurement's time is outside
	// [MinTime, MinTime+span) or the bucket is full (see Bucket.Fits).
	ErrNoFit = errors.New("ts: measurement does not fit in the bucket")
)

// column holds one field's values, dense by row: the value of row r is
// vals[r] when r < len(vals) and has[r].
type column struct {
	name     string
	vals     []any
	has      []bool
	min, max any
	maxV     int // largest encoded value size seen, for the size estimate
	n        int // number of rows with a value
	enc      colEnc
}

func (c *column) at(r int) (any, bool) {
	if r < len(c.has) && c.has[r] {
		return c.vals[r], true
	}
	return nil, false
}

func (c *column) set(r int, v any, rows int) {
	if cap(c.vals) <= r {
		c.reserve(r, rows)
	}
	for len(c.vals) < r {
		c.vals = append(c.vals, nil)
		c.has = append(c.has, false)
	}
	c.vals = append(c.vals, v)
	c.has = append(c.has, true)
	c.n++
	if c.n == 1 {
		c.min, c.max = v, v
		return
	}
	if compare(v, c.min) < 0 {
		c.min = v
	}
	if compare(v, c.max) > 0 {
		c.max = v
	}
}

// reserve grows c's row slices to hold row r: to rows rows when the
// bucket expects that many (see Bucket.rows), else by 4 times (a bucket
// usually fills, so fewer, larger steps copy and clear less than
// append's doubling), at most to MaxBucketCount rows.
func (c *column) reserve(r, rows int) {
	n := max(rows, 4*cap(c.vals), 16)
	n = max(min(n, MaxBucketCount), r+1)
	vals := make([]any, len(c.vals), n)
	copy(vals, c.vals)
	has := make([]bool, len(c.has), n)
	copy(has, c.has)
	c.vals, c.has = vals, has
}

// compare is document.Compare with fast paths for two values of the same
// common type (a column usually holds one type).
func compare(a, b any) int {
	switch x := a.(type) {
	case float64:
		if y, ok := b.(float64); ok {
			return cmp.Compare(x, y)
		}
	case int32:
		if y, ok := b.(int32); ok {
			return cmp.Compare(x, y)
		}
	case int64:
		if y, ok := b.(int64); ok {
			return cmp.Compare(x, y)
		}
	case bson.DateTime:
		if y, ok := b.(bson.DateTime); ok {
			return cmp.Compare(x, y)
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y)
		}
	case bson.ObjectID:
		if y, ok := b.(bson.ObjectID); ok {
			return bytes.Compare(x[:], y[:])
		}
	}
	return document.Compare(a, b)
}

// Bucket is one bucket of measurements with equal meta values: the control
// block (min and max of the time and of every field, count), the meta
// value, and the measurements stored column-wise, one column per field in
// order of first appearance.
//
// Field order. Every field of a measurement, the meta field included, has
// a rank: data columns in order of first appearance, with the meta field
// placed where it stood in the bucket's first measurement. A measurement
// whose fields appear in rank order (the usual case: all measurements
// shaped alike) needs nothing more; for any other the bucket keeps its
// explicit order. Measurements therefore returns each measurement with
// exactly the field order it was inserted with.
//
// A Bucket is not safe for concurrent use; its exported fields must not
// be changed by callers.
type Bucket struct {
	// ID is the bucket's _id. Its timestamp part is MinTime in seconds
	// (modulo 2^32, as an ObjectId holds it); the rest is unique per
	// process, so IDs of new buckets are never reused.
	ID bson.ObjectID
	// Meta is the meta value shared by every measurement; nil when
	// HasMeta is false.
	Meta any
	// HasMeta is true when the measurements carry the meta field.
	HasMeta bool
	// MinTime is the bucket's min time: the first measurement's time
	// rounded down to BucketRoundingSeconds. Every measurement's time t
	// satisfies MinTime <= t.
	MinTime bson.DateTime

	cols     []column
	colIndex map[string]int
	metaRank int             // rank of the meta field when HasMeta
	orders   map[int][]int32 // explicit rank order of rows not in rank order
	count    int
	maxTime  bson.DateTime
	size     int // estimated encoded size of Document
	rows     int // measurements the bucket is expected to get (capacity to reserve), 0 if unknown
	timeCol  int // index of the time column, -1 before the first row
	version  int // control.version DecodeBucket read (0 for a new bucket)
}

// NewBucket returns an empty bucket for measurements with meta value meta
// (hasMeta false: without one) whose min time is o.BucketMin(t). meta is
// copied.
func NewBucket(o Options, t bson.DateTime, meta any, hasMeta bool) *Bucket {
	min := o.BucketMin(t)
	b := &Bucket{
		ID:       bson.NewObjectIDFromTimestamp(time.UnixMilli(int64(min))),
		HasMeta:  hasMeta,
		MinTime:  min,
		colIndex: map[string]int{},
		maxTime:  min,
		timeCol:  -1,
	}
	if hasMeta {
		b.Meta = document.Clone(meta)
	}
	b.size = b.baseSize(o)
	return b
}

// NewBucketLike returns an empty bucket with b's ID, meta and min time:
// what b becomes when some of its measurements are deleted or updated
// and the rest written again. The bucket keeps its identity and time
// range (MongoDB keeps control.min of the time then too), so every
// measurement that stays still fits.
func NewBucketLike(o Options, b *Bucket) *Bucket {
	nb := NewBucket(o, b.MinTime, b.Meta, b.HasMeta)
	nb.ID, nb.MinTime, nb.maxTime = b.ID, b.MinTime, b.MinTime
	nb.size = nb.baseSize(o)
	return nb
}

func (b *Bucket) baseSize(o Options) int {
	n := bucketOverhead + elemSize(o.TimeField, b.MinTime)
	if b.HasMeta {
		n += elemSize("meta", b.Meta)
	}
	return n
}

// Count returns the number of measurements in the bucket.
func (b *Bucket) Count() int { return b.count }

// MaxTime returns the latest measurement time in the bucket (MinTime when
// the bucket is empty).
func (b *Bucket) MaxTime() bson.DateTime { return b.maxTime }

// Size returns the estimated BSON size of the bucket document, the
// measure Fits compares with MaxBucketBytes. It is at least the exact
// size of the data columns.
func (b *Bucket) Size() int { return b.size }

// Fits reports whether a measurement m with time t may go into b: b's
// time range covers t (MinTime <= t < MinTime + BucketMaxSpanSeconds), b
// holds fewer than MaxBucketCount measurements, and b is empty or stays
// within MaxBucketBytes with m added. Fits does not compare meta values;
// the caller chooses the bucket by meta.
func (b *Bucket) Fits(o Options, t bson.DateTime, m bson.D) bool {
	_, ok := b.fits(o, t, m)
	return ok
}

// fits is Fits that also returns the bytes m adds.
func (b *Bucket) fits(o Options, t bson.DateTime, m bson.D) (int, bool) {
	if !b.covers(o, t) || b.count >= MaxBucketCount {
		return 0, false
	}
	n := b.addedSize(o, m)
	return n, b.count == 0 || b.size+n <= MaxBucketBytes
}

func (b *Bucket) covers(o Options, t bson.DateTime) bool {
	return t >= b.MinTime && uint64(t)-uint64(b.MinTime) < uint64(o.spanMillis())
}

// addedSize estimates how many bytes m adds to the bucket document.
func (b *Bucket) addedSize(o Options, m bson.D) int {
	key := rowKey(b.count)
	n := 0
	guess := 0
	for _, e := range m {
		if b.HasMeta && e.Key == o.MetaField {
			continue
		}
		vs := valueSize(e.Value)
		n += 2 + len(key) + vs
		ci, ok := b.colOf(e.Key, guess)
		guess = ci + 1
		switch {
		case !ok:
			// A new column: its header in data, and entries in control
			// min and max.
			n += 2 + len(e.Key) + 5 + 2*(2+len(e.Key)+vs)
		case vs > b.cols[ci].maxV:
			// control min and max are each at most the largest value.
			n += 2 * (vs - b.cols[ci].maxV)
		}
	}
	return n
}

// layoutSize is the size of an explicit row order in layout.rows.
func layoutSize(r int, ranks []int32) int {
	n := 2 + len(rowKey(r)) + 5
	for i, rank := range ranks {
		n += 2 + len(rowKey(i)) + valueSize(rank)
	}
	return n
}

// Add appends measurement m to the bucket, copying its values. It returns
// a *document.Error with code 2 BadValue when m's time field is not a date or
// m has two fields of the same name (a column layout cannot hold them),
// ErrMetaMismatch when m's meta differs from the bucket's, and ErrNoFit
// when Fits is false. On error the bucket is unchanged.
func (b *Bucket) Add(o Options, m bson.D) error {
	t, hasMeta, err := b.admit(o, m)
	if err != nil {
		return err
	}
	n, ok := b.fits(o, t, m)
	if !ok {
		return ErrNoFit
	}
	b.add(o, m, t, hasMeta, n)
	return nil
}

// admit checks measurement m as Add and Append both do before asking
// whether it fits: its time (Split), no field twice (checkFields), and
// the bucket's meta (ErrMetaMismatch). It returns m's time and whether
// m has a meta field.
func (b *Bucket) admit(o Options, m bson.D) (bson.DateTime, bool, error) {
	t, meta, hasMeta, err := o.Split(m)
	if err != nil {
		return 0, false, err
	}
	if err := checkFields(m); err != nil {
		return 0, false, err
	}
	if !SameMeta(hasMeta, meta, b.HasMeta, b.Meta) {
		return 0, false, ErrMetaMismatch
	}
	return t, hasMeta, nil
}

// add appends a checked measurement m with time t that adds n bytes.
func (b *Bucket) add(o Options, m bson.D, t bson.DateTime, hasMeta bool, n int) {
	b.size += n
	r := b.count
	if hasMeta && r == 0 {
		// The meta field's rank: the number of fields before it in the
		// first measurement, all of which become new columns.
		for i, e := range m {
			if e.Key == o.MetaField {
				b.metaRank = i
				break
			}
		}
	}
	var buf [16]int32
	ranks := buf[:0]
	inOrder := true
	guess := 0
	for _, e := range m {
		var rank int
		if hasMeta && e.Key == o.MetaField {
			rank = b.metaRank
		} else {
			ci, ok := b.colOf(e.Key, guess)
			if !ok {
				ci = len(b.cols)
				b.cols = append(b.cols, column{name: e.Key})
				b.colIndex[e.Key] = ci
				if e.Key == o.TimeField {
					b.timeCol = ci
				}
			}
			c := &b.cols[ci]
			v := document.Clone(e.Value)
			c.set(r, v, b.rows)
			if vs := valueSize(v); vs > c.maxV {
				c.maxV = vs
			}
			rank = b.rankOf(ci)
			guess = ci + 1
		}
		if len(ranks) > 0 && int32(rank) <= ranks[len(ranks)-1] {
			inOrder = false
		}
		ranks = append(ranks, int32(rank))
	}
	if !inOrder {
		if b.orders == nil {
			b.orders = map[int][]int32{}
		}
		b.orders[r] = append([]int32(nil), ranks...)
		b.size += layoutSize(r, ranks)
	}
	if r == 0 || t > b.maxTime {
		b.maxTime = t
	}
	b.count++
}

// colOf returns the column of field key, trying column guess first (the
// column after the previous field's: measurements are usually shaped
// alike, so a map lookup is rarely needed).
func (b *Bucket) colOf(key string, guess int) (int, bool) {
	if guess < len(b.cols) && b.cols[guess].name == key {
		return guess, true
	}
	ci, ok := b.colIndex[key]
	return ci, ok
}

// rankOf returns the rank of data column ci.
func (b *Bucket) rankOf(ci int) int {
	if b.HasMeta && ci >= b.metaRank {
		return ci + 1
	}
	return ci
}

// ranks returns the number of ranks: the columns plus the meta field.
func (b *Bucket) ranks() int {
	if b.HasMeta {
		return len(b.cols) + 1
	}
	return len(b.cols)
}

// checkFields rejects a measurement with duplicate field names.
func checkFields(m bson.D) error {
	if len(m) <= 16 {
		for i := range m {
			for j := 0; j < i; j++ {
				if m[i].Key == m[j].Key {
					return dupField(m[i].Key)
				}
			}
		}
		return nil
	}
	seen := make(map[string]struct{}, len(m))
	for _, e := range m {
		if _, ok := seen[e.Key]; ok {
			return dupField(e.Key)
		}
		seen[e.Key] = struct{}{}
	}
	return nil
}

func dupField(k string) error {
	return document.Errorf(document.CodeBadValue, "a time-series measurement cannot have the field '%s' twice", k)
}

// ControlMin returns control.min of the bucket document: for every data
// field, in column order, its least value by document.Compare; for the time
// field the bucket's MinTime (the rounded min time, as MongoDB stores it,
// which is at most the earliest measurement time). The meta field is not
// included.
func (b *Bucket) ControlMin() bson.D { return b.control(true) }

// ControlMax returns control.max of the bucket document: for every data
// field, in column order, its greatest value by document.Compare (for the time
// field, MaxTime).
func (b *Bucket) ControlMax() bson.D { return b.control(false) }

func (b *Bucket) control(min bool) bson.D {
	d := make(bson.D, 0, len(b.cols))
	for i := range b.cols {
		c := &b.cols[i]
		v := c.max
		if min {
			v = c.min
			if i == b.timeCol {
				v = b.MinTime
			}
		}
		d = append(d, bson.E{Key: c.name, Value: v})
	}
	return d
}

// Measurements returns the measurements in insertion order, each a
// document with the fields, field order and values it was added with (the
// meta field included). The meta field's value is the bucket's Meta,
// equal under document.Compare to the inserted one but possibly of another
// numeric type (a bucket opened by 1.0 gives 1.0 for a measurement
// inserted with 1), as in MongoDB. Values are shared with the bucket:
// callers must not modify them.
func (b *Bucket) Measurements(o Options) []bson.D { return b.measurements(o, 0) }

// measurements returns rows from..count-1 (from < count).
func (b *Bucket) measurements(o Options, from int) []bson.D {
	out := make([]bson.D, b.count-from)
	nr := b.ranks()
	for r := from; r < b.count; r++ {
		if order, ok := b.orders[r]; ok {
			d := make(bson.D, 0, len(order))
			for _, rank := range order {
				d = append(d, b.fieldAt(o, int(rank), r))
			}
			out[r-from] = d
			continue
		}
		d := make(bson.D, 0, nr)
		for rank := 0; rank < nr; rank++ {
			if b.HasMeta && rank == b.metaRank {
				d = append(d, bson.E{Key: o.MetaField, Value: b.Meta})
				continue
			}
			c := &b.cols[b.colOfRank(rank)]
			if v, ok := c.at(r); ok {
				d = append(d, bson.E{Key: c.name, Value: v})
			}
		}
		out[r-from] = d
	}
	return out
}

func (b *Bucket) colOfRank(rank int) int {
	if b.HasMeta && rank > b.metaRank {
		return rank - 1
	}
	return rank
}

// fieldAt returns row r's field of the given rank; the rank is known to
// be present in the row.
func (b *Bucket) fieldAt(o Options, rank, r int) bson.E {
	if b.HasMeta && rank == b.metaRank {
		return bson.E{Key: o.MetaField, Value: b.Meta}
	}
	c := &b.cols[b.colOfRank(rank)]
	v, _ := c.at(r)
	return bson.E{Key: c.name, Value: v}
}

// Document returns the stored form of the bucket, MongoDB's version-1
// layout plus the field-order information ttlkv needs:
//
//	{_id, control: {version: 1, min, max, count},
//	 meta?,                                  // when HasMeta
//	 data: {<field>: {"0": v0, "1": v1, ...}}, // columns in first-appearance order,
//	                                          // keys are row numbers, absent rows omitted
//	 layout?: {metaPos?: <rank of meta>,      // when HasMeta
//	           rows?: {"<row>": [rank, ...]}}} // rows not in rank order
//
// control.count and the numbers in layout are int32. The values are
// shared with the bucket: callers must not modify them.
func (b *Bucket) Document(o Options) bson.D {
	data := make(bson.D, 0, len(b.cols))
	for i := range b.cols {
		c := &b.cols[i]
		col := make(bson.D, 0, len(c.vals))
		for r, v := range c.vals {
			if c.has[r] {
				col = append(col, bson.E{Key: rowKey(r), Value: v})
			}
		}
		data = append(data, bson.E{Key: c.name, Value: col})
	}
	return b.document(o, 1, data)
}

// MongoDocument returns the bucket as MongoDB's uncompressed (version
// 1) bucket document: {_id, control: {version: 1, min, max}, meta?,
// data: {<field>: {"0": v0, ...}}}, without ttlkv's control.count and
// layout, so that mongorestore can write it into a MongoDB time-series
// collection. The values are shared with the bucket.
func (b *Bucket) MongoDocument(o Options) bson.D {
	d := b.Document(o)
	out := make(bson.D, 0, len(d))
	for _, e := range d {
		switch e.Key {
		case "layout":
			continue
		case "control":
			c := e.Value.(bson.D)
			e.Value = bson.D{c[0], c[1], c[2]} // version, min, max
		}
		out = append(out, e)
	}
	return out
}

// document returns the stored form with the given control.version and
// data value.
func (b *Bucket) document(o Options, version int32, data any) bson.D {
	control := bson.D{
		{Key: "version", Value: version},
		{Key: "min", Value: b.ControlMin()},
		{Key: "max", Value: b.ControlMax()},
		{Key: "count", Value: int32(b.count)},
	}
	d := bson.D{{Key: "_id", Value: b.ID}, {Key: "control", Value: control}}
	if b.HasMeta {
		d = append(d, bson.E{Key: "meta", Value: b.Meta})
	}
	d = append(d, bson.E{Key: "data", Value: data})
	var layout bson.D
	if b.HasMeta {
		layout = append(layout, bson.E{Key: "metaPos", Value: int32(b.metaRank)})
	}
	if len(b.orders) > 0 {
		rows := make(bson.D, 0, len(b.orders))
		for r := 0; r < b.count; r++ {
			if order, ok := b.orders[r]; ok {
				a := make(bson.A, len(order))
				for i, rank := range order {
					a[i] = rank
				}
				rows = append(rows, bson.E{Key: rowKey(r), Value: a})
			}
		}
		layout = append(layout, bson.E{Key: "rows", Value: rows})
	}
	if layout != nil {
		d = append(d, bson.E{Key: "layout", Value: layout})
	}
	return d
}

// ExpiresAt returns when the whole bucket may be deleted under a
// collection expiry of expireAfterSeconds (docs/timeseries.md §6.6): MinTime +
// BucketMaxSpanSeconds + expireAfterSeconds, the moment every measurement
// the bucket could hold has expired. The bucket is due when ExpiresAt <=
// now. The sum saturates at the DateTime range instead of wrapping.
func (b *Bucket) ExpiresAt(o Options, expireAfterSeconds int64) bson.DateTime {
	return bson.DateTime(satAdd(satAdd(int64(b.MinTime), o.spanMillis()), satMul1000(expireAfterSeconds)))
}

func satAdd(a, b int64) int64 {
	s := a + b
	if (b > 0 && s < a) || (b < 0 && s > a) {
		if b > 0 {
			return math.MaxInt64
		}
		return math.MinInt64
	}
	return s
}

func satMul1000(s int64) int64 {
	switch {
	case s > math.MaxInt64/1000:
		return math.MaxInt64
	case s < math.MinInt64/1000:
		return math.MinInt64
	}
	return s * 1000
}

// ttlMaxMillis is 2038-01-19T03:14:07.000Z, the last time the TTL monitor
// accepts in a time-series collection (the largest signed 32-bit second).
const ttlMaxMillis = math.MaxInt32 * 1000

// OutOfTTLRange reports whether a measurement time falls outside the range
// the TTL monitor can handle (docs/timeseries.md §6.8): before 1970-01-01T00:00:00.000Z
// or after 2038-01-19T03:14:07.000Z. Both boundaries are in range. A
// time-series collection that ever held such a measurement is never
// reaped by the TTL monitor.
func OutOfTTLRange(t bson.DateTime) bool {
	return t < 0 || t > ttlMaxMillis
}

// rowKeys caches the decimal strings of row numbers.
var rowKeys = func() []string {
	k := make([]string, MaxBucketCount)
	for i := range k {
		k[i] = strconv.Itoa(i)
	}
	return k
}()

func rowKey(r int) string {
	if r < len(rowKeys) {
		return rowKeys[r]
	}
	return strconv.Itoa(r)
}

// elemSize is the BSON size of the element key: v.
func elemSize(key string, v any) int {
	return document.Size(bson.D{{Key: key, Value: v}}) - 5
}

// valueSize is the BSON size of v without type byte and key.
func valueSize(v any) int {
	switch x := v.(type) {
	case float64, int64, bson.DateTime, bson.Timestamp:
		return 8
	case int32:
		return 4
	case bool:
		return 1
	case nil, bson.Null:
		return 0
	case string:
		return 4 + len(x) + 1
	case bson.ObjectID:
		return 12
	}
	return document.Size(bson.D{{Key: "", Value: v}}) - 7
}

// malformed returns the error DecodeBucket gives for a bad bucket
// document.
func malformed(format string, args ...any) error {
	return document.Errorf(document.CodeInternalError, "ts: malformed bucket document: %s", fmt.Sprintf(format, args...))
}
