package ts

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func mustOptions(t testing.TB, d bson.D) Options {
	t.Helper()
	o, err := ParseOptions(d)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func meas(tm bson.DateTime, meta any, rest ...bson.E) bson.D {
	d := bson.D{{Key: "t", Value: tm}}
	if meta != nil {
		d = append(d, bson.E{Key: "m", Value: meta})
	}
	return append(d, rest...)
}

// TestMongoGranularityExamples follows MongoDB's documentation: with
// granularity seconds a measurement at 20:10:14.134 opens a bucket at
// 20:10:00, one at 21:09:59.999 joins it and one at 21:10:00 opens
// another; likewise for minutes and hours with their spans.
func TestMongoGranularityExamples(t *testing.T) {
	t.Parallel()
	cases := []struct {
		granularity           string
		first, open, last, nx string
	}{
		{"seconds", "2021-05-18T20:10:14.134Z", "2021-05-18T20:10:00Z", "2021-05-18T21:09:59.999Z", "2021-05-18T21:10:00Z"},
		{"minutes", "2021-05-18T20:10:14.134Z", "2021-05-18T20:00:00Z", "2021-05-19T19:59:59.999Z", "2021-05-19T20:00:00Z"},
		{"hours", "2021-05-18T20:10:14.134Z", "2021-05-18T00:00:00Z", "2021-06-16T23:59:59.999Z", "2021-06-17T00:00:00Z"},
	}
	for _, c := range cases {
		t.Run(c.granularity, func(t *testing.T) {
			o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}, {Key: "granularity", Value: c.granularity}})
			bk := NewBucketer(o)
			b1, created, err := bk.Insert(meas(dt(t, c.first), "s1"))
			if err != nil || !created {
				t.Fatalf("first insert: %v created=%v", err, created)
			}
			if b1.MinTime != dt(t, c.open) {
				t.Fatalf("bucket min %v, want %s", b1.MinTime, c.open)
			}
			if got := b1.ID.Timestamp().UnixMilli(); got != int64(dt(t, c.open)) {
				t.Fatalf("_id timestamp %d, want the min time %s", got, c.open)
			}
			b2, created, err := bk.Insert(meas(dt(t, c.last), "s1"))
			if err != nil || created || b2 != b1 {
				t.Fatalf("%s did not join the bucket: %v created=%v", c.last, err, created)
			}
			b3, created, err := bk.Insert(meas(dt(t, c.nx), "s1"))
			if err != nil || !created || b3 == b1 {
				t.Fatalf("%s did not open a new bucket: %v created=%v", c.nx, err, created)
			}
			if b1.Count() != 2 || b3.Count() != 1 {
				t.Fatalf("counts %d and %d, want 2 and 1", b1.Count(), b3.Count())
			}
			if closed := bk.TakeClosed(); len(closed) != 1 || closed[0] != b1 {
				t.Fatalf("closed %v, want the first bucket (time moved beyond its span)", closed)
			}
		})
	}
}

func TestBucketCountLimit(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	bk := NewBucketer(o)
	base := dt(t, "2024-01-01T00:00:00Z")
	var first *Bucket
	for i := 0; i < MaxBucketCount; i++ {
		b, created, err := bk.Insert(meas(base+bson.DateTime(i), "x", bson.E{Key: "v", Value: int32(i)}))
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			first = b
		} else if created || b != first {
			t.Fatalf("measurement %d opened a new bucket", i)
		}
	}
	if first.Count() != MaxBucketCount {
		t.Fatalf("count %d", first.Count())
	}
	if first.Fits(o, base, meas(base, "x")) {
		t.Fatal("a full bucket Fits")
	}
	if err := first.Add(o, meas(base, "x")); !errors.Is(err, ErrNoFit) {
		t.Fatalf("Add to a full bucket: %v, want ErrNoFit", err)
	}
	b, created, err := bk.Insert(meas(base+5, "x"))
	if err != nil || !created || b == first {
		t.Fatalf("measurement 1001 did not open a new bucket: %v", err)
	}
	if closed := bk.TakeClosed(); len(closed) != 1 || closed[0] != first {
		t.Fatalf("closed = %v, want the full bucket", closed)
	}
}

func TestBucketSizeLimit(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}})
	bk := NewBucketer(o)
	base := dt(t, "2024-01-01T00:00:00Z")
	payload := strings.Repeat("x", 10*1024)
	var buckets []*Bucket
	for i := 0; i < 30; i++ {
		b, created, err := bk.Insert(meas(base+bson.DateTime(i), nil, bson.E{Key: "p", Value: payload}))
		if err != nil {
			t.Fatal(err)
		}
		if created {
			buckets = append(buckets, b)
		}
	}
	if len(buckets) < 3 {
		t.Fatalf("30 measurements of 10 KiB made %d buckets, want at least 3", len(buckets))
	}
	for i, b := range buckets {
		got := document.Size(b.Document(o))
		if got > MaxBucketBytes {
			t.Errorf("bucket %d is %d bytes, over %d", i, got, MaxBucketBytes)
		}
		if got > b.Size() {
			t.Errorf("bucket %d: estimate %d below the real size %d", i, b.Size(), got)
		}
		if i < len(buckets)-1 && got < MaxBucketBytes-2*(10*1024+64) {
			t.Errorf("bucket %d closed at %d bytes, far under the limit", i, got)
		}
	}
	// One measurement larger than the limit still gets a bucket.
	big := strings.Repeat("y", MaxBucketBytes+1)
	b, created, err := bk.Insert(meas(base, nil, bson.E{Key: "p", Value: big}))
	if err != nil || !created || b.Count() != 1 {
		t.Fatalf("oversized measurement: %v created=%v", err, created)
	}
	if b.Fits(o, base, meas(base, nil)) {
		t.Fatal("a bucket over the size limit still Fits")
	}
}

// TestMetaEquality: meta values share buckets when they are the same
// BSON value, as in mongod (jstests/core/timeseries/write/timeseries_metadata.js:
// "only measurements with a binary identical meta field are included in
// the same bucket"), after field order is normalized; numbers of
// different types are different metas, missing and null differ.
func TestMetaEquality(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	base := dt(t, "2024-01-01T00:00:00Z")
	cases := []struct {
		name string
		a, b any // nil interface: no meta field; use bsonNull for null
		same bool
	}{
		{"equal strings", "a", "a", true},
		{"different strings", "a", "b", false},
		{"int and double", int32(1), 1.0, false},
		{"0.0 and -0.0", 0.0, math.Copysign(0, -1), false},
		{"int and long", int32(7), int64(7), false},
		{"symbol and string", bson.Symbol("a"), "a", false},
		{"equal documents", bson.D{{Key: "x", Value: int32(1)}, {Key: "y", Value: "z"}}, bson.D{{Key: "x", Value: int64(1)}, {Key: "y", Value: "z"}}, false},
		{"same documents", bson.D{{Key: "x", Value: int32(1)}, {Key: "y", Value: "z"}}, bson.D{{Key: "x", Value: int32(1)}, {Key: "y", Value: "z"}}, true},
		{"field order is normalized", bson.D{{Key: "x", Value: int32(1)}, {Key: "y", Value: int32(2)}}, bson.D{{Key: "y", Value: int32(2)}, {Key: "x", Value: int32(1)}}, true},
		{"field order inside arrays is normalized", bson.A{bson.D{{Key: "c", Value: int32(1)}, {Key: "b", Value: int32(2)}}}, bson.A{bson.D{{Key: "b", Value: int32(2)}, {Key: "c", Value: int32(1)}}}, true},
		{"nested documents", bson.D{{Key: "a", Value: bson.D{{Key: "b", Value: "c"}}}}, bson.D{{Key: "a", Value: bson.D{{Key: "b", Value: "d"}}}}, false},
		{"equal arrays", bson.A{int32(1), "x"}, bson.A{1.0, "x"}, false},
		{"same arrays", bson.A{int32(1), "x"}, bson.A{int32(1), "x"}, true},
		{"array order matters", bson.A{int32(1), int32(2)}, bson.A{int32(2), int32(1)}, false},
		{"array vs scalar", bson.A{int32(1)}, int32(1), false},
		{"missing vs null", nil, bsonNull{}, false},
		{"null and null", bsonNull{}, bsonNull{}, true},
		{"missing and missing", nil, nil, true},
	}
	mk := func(v any) bson.D {
		switch v.(type) {
		case nil:
			return bson.D{{Key: "t", Value: base}}
		case bsonNull:
			return bson.D{{Key: "t", Value: base}, {Key: "m", Value: nil}}
		}
		return bson.D{{Key: "t", Value: base}, {Key: "m", Value: v}}
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bk := NewBucketer(o)
			b1, _, err := bk.Insert(mk(c.a))
			if err != nil {
				t.Fatal(err)
			}
			b2, created, err := bk.Insert(mk(c.b))
			if err != nil {
				t.Fatal(err)
			}
			if c.same && (b1 != b2 || created) {
				t.Fatalf("%v and %v went to different buckets", c.a, c.b)
			}
			if !c.same && (b1 == b2 || !created) {
				t.Fatalf("%v and %v shared a bucket", c.a, c.b)
			}
			// A different meta never closes the other meta's bucket.
			if closed := bk.TakeClosed(); len(closed) != 0 {
				t.Fatalf("closed %d buckets", len(closed))
			}
			if !c.same {
				if err := b1.Add(o, mk(c.b)); !errors.Is(err, ErrMetaMismatch) {
					t.Fatalf("Add with another meta: %v, want ErrMetaMismatch", err)
				}
			}
		})
	}
}

type bsonNull struct{}

// TestMetaCopied: a caller changing its meta document after Insert does
// not change the bucket's meta or the bucketer's grouping.
func TestMetaCopied(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	bk := NewBucketer(o)
	meta := bson.D{{Key: "k", Value: "a"}}
	m := meas(1000, meta, bson.E{Key: "v", Value: bson.A{int32(1)}})
	b, _, err := bk.Insert(m)
	if err != nil {
		t.Fatal(err)
	}
	meta[0].Value = "changed"
	m[2].Value.(bson.A)[0] = int32(99)
	if got := b.Meta.(bson.D)[0].Value; got != "a" {
		t.Fatalf("bucket meta changed to %v", got)
	}
	if got := b.Measurements(o)[0][2].Value.(bson.A)[0]; got != int32(1) {
		t.Fatalf("stored value changed to %v", got)
	}
	b2, created, _ := bk.Insert(meas(2000, bson.D{{Key: "k", Value: "a"}}))
	if created || b2 != b {
		t.Fatal("the original meta no longer finds its bucket")
	}
}

func TestOutOfOrder(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	bk := NewBucketer(o)
	h := bson.DateTime(3600 * 1000)
	base := dt(t, "2024-01-01T10:00:00Z")
	b10, _, _ := bk.Insert(meas(base+30*60*1000, "s")) // 10:30
	b9, created, _ := bk.Insert(meas(base-h/2, "s"))   // 09:30: before b10's min
	if !created || b9 == b10 || b9.MinTime != base-h/2 {
		t.Fatalf("an earlier measurement did not open its own bucket (min %v)", b9.MinTime)
	}
	if b, created, _ := bk.Insert(meas(base-h/4, "s")); created || b != b9 { // 09:45
		t.Fatal("09:45 did not join the 09:30 bucket")
	}
	if len(bk.TakeClosed()) != 0 {
		t.Fatal("no bucket should be closed yet")
	}
	// 10:35 joins the 10:30 bucket and lies beyond the 09:30 one
	// ([09:30, 10:30)), which closes.
	if b, created, _ := bk.Insert(meas(base+35*60*1000, "s")); created || b != b10 {
		t.Fatal("10:35 did not join the 10:30 bucket")
	}
	if closed := bk.TakeClosed(); len(closed) != 1 || closed[0] != b9 {
		t.Fatalf("closed %v, want the 09:30 bucket", closed)
	}
	// 11:31 is beyond the 10:30 bucket.
	if _, created, _ := bk.Insert(meas(base+h+31*60*1000, "s")); !created {
		t.Fatal("11:31 joined an old bucket")
	}
	if closed := bk.TakeClosed(); len(closed) != 1 || closed[0] != b10 {
		t.Fatalf("closed %v, want the 10:30 bucket", closed)
	}
	// A late measurement for a closed bucket's range opens a new bucket.
	if b, created, _ := bk.Insert(meas(base-h/4+1, "s")); !created || b == b9 {
		t.Fatal("a measurement went into a closed bucket")
	}
	// Many decreasing times: open buckets stay bounded.
	bk2 := NewBucketer(o)
	for i := 0; i < 50; i++ {
		if _, _, err := bk2.Insert(meas(base-bson.DateTime(i)*h, "s")); err != nil {
			t.Fatal(err)
		}
	}
	if bk2.OpenCount() != MaxOpenPerMeta || len(bk2.TakeClosed()) != 50-MaxOpenPerMeta {
		t.Fatalf("open %d, want %d", bk2.OpenCount(), MaxOpenPerMeta)
	}
}

func TestForgetAndLoad(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	bk := NewBucketer(o)
	b, _, _ := bk.Insert(meas(1000, "s"))
	bk.Forget(b.ID)
	if bk.OpenCount() != 0 {
		t.Fatalf("open %d after Forget", bk.OpenCount())
	}
	b2, created, _ := bk.Insert(meas(2000, "s"))
	if !created || b2 == b || b2.ID == b.ID {
		t.Fatal("a forgotten bucket was reused")
	}
	// Reopen a stored bucket in a fresh bucketer (a restart).
	stored, err := DecodeBucket(o, b2.Document(o))
	if err != nil {
		t.Fatal(err)
	}
	bk2 := NewBucketer(o)
	bk2.Load(stored)
	bk2.Load(stored) // idempotent
	if bk2.OpenCount() != 1 {
		t.Fatalf("open %d after Load", bk2.OpenCount())
	}
	b3, created, _ := bk2.Insert(meas(3000, "s"))
	if created || b3 != stored || b3.Count() != 2 {
		t.Fatal("a measurement did not join the loaded bucket")
	}
	// A full bucket is not reopened.
	full := NewBucket(o, 0, "f", true)
	for i := 0; i < MaxBucketCount; i++ {
		if err := full.Add(o, meas(bson.DateTime(i), "f")); err != nil {
			t.Fatal(err)
		}
	}
	bk2.Load(full)
	if bk2.OpenCount() != 1 {
		t.Fatal("a full bucket was loaded")
	}
	bk2.CloseAll()
	if bk2.OpenCount() != 0 || len(bk2.TakeClosed()) != 1 {
		t.Fatal("CloseAll did not close the open bucket")
	}
	if _, created, _ := bk2.Insert(meas(4000, "s")); !created {
		t.Fatal("a measurement joined a closed bucket")
	}
}

// TestExpiryExample is docs/timeseries.md §6.6's example: expiry 5 s, two measurements
// at now-5min and now share a bucket that is not deleted; two at
// now-3600s-5min and now-3600s share one that is.
func TestExpiryExample(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}})
	now := dt(t, "2024-03-01T12:34:56.789Z")
	const expire = 5
	minute, hour := bson.DateTime(60*1000), bson.DateTime(3600*1000)
	cases := []struct {
		a, b bson.DateTime
		gone bool
	}{
		{now - 5*minute, now, false},
		{now - hour - 5*minute, now - hour, true},
	}
	for _, c := range cases {
		bk := NewBucketer(o)
		b1, _, _ := bk.Insert(meas(c.a, nil))
		b2, _, _ := bk.Insert(meas(c.b, nil))
		if b1 != b2 {
			t.Fatalf("%v and %v are in different buckets", c.a, c.b)
		}
		gone := b1.ExpiresAt(o, expire) <= now
		if gone != c.gone {
			t.Errorf("bucket of %v..%v expires at %v; deleted at %v = %v, want %v", c.a, c.b, b1.ExpiresAt(o, expire), now, gone, c.gone)
		}
	}
	// Exactly min + span + expiry is due; a millisecond before is not.
	b := NewBucket(o, 0, nil, false)
	if got := b.ExpiresAt(o, expire); got != bson.DateTime((3600+expire)*1000) {
		t.Fatalf("ExpiresAt = %d", got)
	}
	if got := NewBucket(o, math.MaxInt64-10, nil, false).ExpiresAt(o, math.MaxInt64); got != math.MaxInt64 {
		t.Fatalf("ExpiresAt saturates to %d", got)
	}
}

func TestOutOfTTLRange(t *testing.T) {
	t.Parallel()
	cases := []struct {
		t   string
		out bool
	}{
		{"1969-12-31T23:59:59.999Z", true},
		{"1970-01-01T00:00:00Z", false},
		{"2000-01-01T00:00:00Z", false},
		{"2038-01-19T03:14:07Z", false},
		{"2038-01-19T03:14:07.001Z", true},
		{"2038-01-19T03:14:08Z", true},
		{"1900-01-01T00:00:00Z", true},
	}
	for _, c := range cases {
		if got := OutOfTTLRange(dt(t, c.t)); got != c.out {
			t.Errorf("OutOfTTLRange(%s) = %v, want %v", c.t, got, c.out)
		}
	}
}

// TestFieldOrder: measurements come back with the fields and field order
// they were inserted with, whatever the mix of shapes.
func TestFieldOrder(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	in := []bson.D{
		{{Key: "m", Value: "s"}, {Key: "t", Value: bson.DateTime(1)}, {Key: "a", Value: int32(1)}},
		{{Key: "m", Value: "s"}, {Key: "t", Value: bson.DateTime(2)}, {Key: "b", Value: "x"}, {Key: "a", Value: int32(2)}},
		{{Key: "t", Value: bson.DateTime(3)}, {Key: "m", Value: "s"}},
		{{Key: "a", Value: nil}, {Key: "m", Value: "s"}, {Key: "t", Value: bson.DateTime(0)}, {Key: "c", Value: bson.A{}}},
		{{Key: "m", Value: "s"}, {Key: "t", Value: bson.DateTime(2)}, {Key: "a", Value: int32(2)}, {Key: "b", Value: "y"}},
	}
	b := NewBucket(o, 0, "s", true)
	for _, m := range in {
		if err := b.Add(o, m); err != nil {
			t.Fatal(err)
		}
	}
	check := func(name string, b *Bucket) {
		if got := b.Measurements(o); !reflect.DeepEqual(got, in) {
			t.Fatalf("%s: Measurements =\n%v\nwant\n%v", name, got, in)
		}
	}
	check("built", b)
	d := b.Document(o)
	nb, err := DecodeBucket(o, d)
	if err != nil {
		t.Fatal(err)
	}
	check("decoded", nb)
	// Ranks follow row 0: m, t, a, then b, c as they appear. Rows 0 and 4
	// are in rank order; 1 (b before a), 2 (t before m) and 3 need one.
	layout, _ := document.Get(d, "layout")
	rows, _ := document.Get(layout.(bson.D), "rows")
	if keys := keysOf(rows.(bson.D)); !reflect.DeepEqual(keys, []string{"1", "2", "3"}) {
		t.Fatalf("explicit orders for rows %v, want [1 2 3]", keys)
	}
	// The control block: min time is the bucket min, max the latest.
	wantMin := bson.D{{Key: "t", Value: bson.DateTime(0)}, {Key: "a", Value: nil}, {Key: "b", Value: "x"}, {Key: "c", Value: bson.A{}}}
	wantMax := bson.D{{Key: "t", Value: bson.DateTime(3)}, {Key: "a", Value: int32(2)}, {Key: "b", Value: "y"}, {Key: "c", Value: bson.A{}}}
	if !reflect.DeepEqual(b.ControlMin(), wantMin) || !reflect.DeepEqual(b.ControlMax(), wantMax) {
		t.Fatalf("control min %v max %v", b.ControlMin(), b.ControlMax())
	}
	if b.MaxTime() != 3 {
		t.Fatalf("MaxTime %v", b.MaxTime())
	}
}

func keysOf(d bson.D) []string {
	var k []string
	for _, e := range d {
		k = append(k, e.Key)
	}
	return k
}

// TestDocumentLayout pins the stored form of a small bucket.
func TestDocumentLayout(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	b := NewBucket(o, 61000, "s", true)
	for _, m := range []bson.D{
		{{Key: "t", Value: bson.DateTime(61000)}, {Key: "m", Value: "s"}, {Key: "v", Value: int32(5)}},
		{{Key: "t", Value: bson.DateTime(62000)}, {Key: "m", Value: "s"}},
		{{Key: "t", Value: bson.DateTime(63000)}, {Key: "m", Value: "s"}, {Key: "v", Value: int32(3)}},
	} {
		if err := b.Add(o, m); err != nil {
			t.Fatal(err)
		}
	}
	want := bson.D{
		{Key: "_id", Value: b.ID},
		{Key: "control", Value: bson.D{
			{Key: "version", Value: int32(1)},
			{Key: "min", Value: bson.D{{Key: "t", Value: bson.DateTime(60000)}, {Key: "v", Value: int32(3)}}},
			{Key: "max", Value: bson.D{{Key: "t", Value: bson.DateTime(63000)}, {Key: "v", Value: int32(5)}}},
			{Key: "count", Value: int32(3)},
		}},
		{Key: "meta", Value: "s"},
		{Key: "data", Value: bson.D{
			{Key: "t", Value: bson.D{{Key: "0", Value: bson.DateTime(61000)}, {Key: "1", Value: bson.DateTime(62000)}, {Key: "2", Value: bson.DateTime(63000)}}},
			{Key: "v", Value: bson.D{{Key: "0", Value: int32(5)}, {Key: "2", Value: int32(3)}}},
		}},
		{Key: "layout", Value: bson.D{{Key: "metaPos", Value: int32(1)}}},
	}
	if got := b.Document(o); !reflect.DeepEqual(got, want) {
		t.Fatalf("Document =\n%v\nwant\n%v", got, want)
	}
	// Without a meta field there is no meta and no layout.
	o2 := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}})
	b2 := NewBucket(o2, 0, nil, false)
	if err := b2.Add(o2, bson.D{{Key: "t", Value: bson.DateTime(1)}, {Key: "x", Value: "y"}}); err != nil {
		t.Fatal(err)
	}
	if keys := keysOf(b2.Document(o2)); !reflect.DeepEqual(keys, []string{"_id", "control", "data"}) {
		t.Fatalf("keys %v", keys)
	}
}

func TestAddRejects(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	b := NewBucket(o, 60000, "s", true)
	cases := []struct {
		name string
		m    bson.D
		want error
	}{
		{"no time", bson.D{{Key: "m", Value: "s"}}, &document.Error{Code: document.CodeBadValue}},
		{"string time", bson.D{{Key: "t", Value: "x"}, {Key: "m", Value: "s"}}, &document.Error{Code: document.CodeBadValue}},
		{"duplicate field", bson.D{{Key: "t", Value: bson.DateTime(60000)}, {Key: "m", Value: "s"}, {Key: "x", Value: int32(1)}, {Key: "x", Value: int32(2)}}, &document.Error{Code: document.CodeBadValue}},
		{"other meta", bson.D{{Key: "t", Value: bson.DateTime(60000)}, {Key: "m", Value: "q"}}, ErrMetaMismatch},
		{"no meta", bson.D{{Key: "t", Value: bson.DateTime(60000)}}, ErrMetaMismatch},
		{"before min", bson.D{{Key: "t", Value: bson.DateTime(59999)}, {Key: "m", Value: "s"}}, ErrNoFit},
		{"at min+span", bson.D{{Key: "t", Value: bson.DateTime(60000 + 3600*1000)}, {Key: "m", Value: "s"}}, ErrNoFit},
	}
	for _, c := range cases {
		if err := b.Add(o, c.m); !errors.Is(err, c.want) {
			t.Errorf("%s: Add = %v, want %v", c.name, err, c.want)
		}
	}
	if b.Count() != 0 || len(b.ControlMin()) != 0 {
		t.Fatalf("failed adds changed the bucket: count %d", b.Count())
	}
	if _, _, err := NewBucketer(o).Insert(bson.D{{Key: "t", Value: int64(5)}}); document.CodeOf(err) != document.CodeBadValue {
		t.Fatalf("Insert with a non-date time: %v", err)
	}
}

func TestDecodeBucketRejects(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	b := NewBucket(o, 60000, "s", true)
	for _, m := range []bson.D{
		{{Key: "t", Value: bson.DateTime(61000)}, {Key: "m", Value: "s"}, {Key: "v", Value: int32(5)}},
		{{Key: "v", Value: int32(6)}, {Key: "t", Value: bson.DateTime(62000)}, {Key: "m", Value: "s"}},
	} {
		if err := b.Add(o, m); err != nil {
			t.Fatal(err)
		}
	}
	good := b.Document(o)
	if _, err := DecodeBucket(o, good); err != nil {
		t.Fatalf("good document: %v", err)
	}
	// edit returns a deep copy of good changed at path (dotted) to v, or
	// with the field removed when v is the remove sentinel.
	cases := []struct {
		name string
		path string
		v    any
	}{
		{"_id string", "_id", "x"},
		{"no _id", "_id", remove{}},
		{"no control", "control", remove{}},
		{"control not object", "control", int32(1)},
		{"version 2", "control.version", int32(2)},
		{"version double", "control.version", 1.0},
		{"no min", "control.min", remove{}},
		{"min time string", "control.min.t", "x"},
		{"no min time", "control.min.t", remove{}},
		{"min after a time", "control.min.t", bson.DateTime(61500)},
		{"max not object", "control.max", bson.A{}},
		{"count too big", "control.count", int32(1001)},
		{"count negative", "control.count", int32(-1)},
		{"count long", "control.count", int64(2)},
		{"count above rows", "control.count", int32(3)},
		{"count below rows", "control.count", int32(1)},
		{"unknown control field", "control.extra", int32(1)},
		{"no data", "data", remove{}},
		{"data array", "data", bson.A{}},
		{"column not object", "data.v", int32(1)},
		{"empty column", "data.v", bson.D{}},
		{"meta column", "data.m", bson.D{{Key: "0", Value: "s"}}},
		{"bad row key", "data.v.x", int32(1)},
		{"row key leading zero", "data.v.01", int32(1)},
		{"row beyond count", "data.v.5", int32(1)},
		{"time not a date", "data.t.1", "x"},
		{"no time column", "data.t", remove{}},
		{"unknown field", "extra", int32(1)},
		{"no layout", "layout", remove{}},
		{"metaPos out of range", "layout.metaPos", int32(9)},
		{"metaPos long", "layout.metaPos", int64(1)},
		{"rows not object", "layout.rows", int32(1)},
		{"rows rank missing", "layout.rows.1", bson.A{int32(0), int32(1)}},
		{"rows rank repeated", "layout.rows.1", bson.A{int32(0), int32(0), int32(1)}},
		{"rows rank out of range", "layout.rows.1", bson.A{int32(0), int32(1), int32(7)}},
		{"rows rank long", "layout.rows.1", bson.A{int32(0), int32(1), int64(2)}},
		{"rows beyond count", "layout.rows.4", bson.A{int32(0)}},
		{"unknown layout field", "layout.x", int32(0)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := edit(t, good, c.path, c.v)
			if _, err := DecodeBucket(o, d); err == nil {
				t.Fatalf("accepted %v", d)
			}
		})
	}
	// Meta in a collection without a metaField.
	o2 := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}})
	if _, err := DecodeBucket(o2, good); err == nil {
		t.Fatal("accepted meta without a metaField")
	}
	// Duplicate top-level field.
	if _, err := DecodeBucket(o, append(document.CloneDoc(good), bson.E{Key: "data", Value: bson.D{}})); err == nil {
		t.Fatal("accepted data twice")
	}
}

type remove struct{}

// edit returns a copy of d with the value at a dotted path set to v
// (appended if absent), or removed when v is remove{}. d is not changed.
func edit(t *testing.T, d bson.D, path string, v any) bson.D {
	t.Helper()
	return setPath(t, d, strings.Split(path, "."), v)
}

func setPath(t *testing.T, d bson.D, parts []string, v any) bson.D {
	t.Helper()
	_, rm := v.(remove)
	out := make(bson.D, 0, len(d)+1)
	found := false
	for _, e := range d {
		if e.Key != parts[0] || found {
			out = append(out, e)
			continue
		}
		found = true
		switch {
		case len(parts) > 1:
			sub, ok := e.Value.(bson.D)
			if !ok {
				t.Fatalf("%s is not a document", e.Key)
			}
			out = append(out, bson.E{Key: e.Key, Value: setPath(t, sub, parts[1:], v)})
		case !rm:
			out = append(out, bson.E{Key: e.Key, Value: v})
		}
	}
	if !found {
		if len(parts) > 1 || rm {
			t.Fatalf("no field %s", parts[0])
		}
		out = append(out, bson.E{Key: parts[0], Value: v})
	}
	return out
}
