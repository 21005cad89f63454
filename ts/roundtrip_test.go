package ts

import (
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// seed returns TTLKV_SEED if set, else a fresh seed, and logs it so a
// failure can be replayed.
func seed(t testing.TB) int64 {
	t.Helper()
	s := time.Now().UnixNano()
	if v := os.Getenv("TTLKV_SEED"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("bad TTLKV_SEED %q", v)
		}
		s = n
	}
	t.Logf("seed %d (replay with TTLKV_SEED=%d)", s, s)
	return s
}

func long() bool { return os.Getenv("TTLKV_LONG") == "1" }

// randValue returns a random canonical value, nested up to depth.
func randValue(r *rand.Rand, depth int) any {
	n := 12
	if depth > 0 {
		n = 14
	}
	switch r.Intn(n) {
	case 0:
		return int32(r.Intn(100) - 50)
	case 1:
		return int64(r.Intn(1000)) << 33
	case 2:
		return float64(r.Intn(1000)) / 8
	case 3:
		return fmt.Sprintf("s%d", r.Intn(20))
	case 4:
		return nil
	case 5:
		return r.Intn(2) == 0
	case 6:
		return bson.DateTime(r.Int63n(1 << 42))
	case 7:
		var id bson.ObjectID
		r.Read(id[:])
		return id
	case 8:
		b := make([]byte, r.Intn(8))
		r.Read(b)
		return bson.Binary{Subtype: 0, Data: b}
	case 9:
		return bson.Timestamp{T: uint32(r.Intn(100)), I: uint32(r.Intn(5))}
	case 10:
		return bson.MinKey{}
	case 11:
		return bson.Regex{Pattern: "a.*", Options: "i"}
	case 12:
		d := bson.D{}
		for i := r.Intn(3); i > 0; i-- {
			d = append(d, bson.E{Key: fmt.Sprintf("k%d", r.Intn(4)), Value: randValue(r, depth-1)})
		}
		return d
	default:
		a := bson.A{}
		for i := r.Intn(3); i > 0; i-- {
			a = append(a, randValue(r, depth-1))
		}
		return a
	}
}

var fieldNames = []string{"_id", "temp", "v", "a", "b", "c", "status", "x"}

// randMeasurement returns a measurement with a random subset of fields in
// a random order, the time field and (usually) the meta field among them.
func randMeasurement(r *rand.Rand, o Options, base bson.DateTime, metas []any) bson.D {
	perm := r.Perm(len(fieldNames))
	var m bson.D
	for _, i := range perm[:r.Intn(len(fieldNames))] {
		m = append(m, bson.E{Key: fieldNames[i], Value: randValue(r, 2)})
	}
	// time mostly increasing with jitter, sometimes far back.
	tm := base + bson.DateTime(r.Int63n(4*3600*1000))
	if r.Intn(20) == 0 {
		tm -= bson.DateTime(r.Int63n(48 * 3600 * 1000))
	}
	ins := func(e bson.E) {
		p := r.Intn(len(m) + 1)
		m = append(m, bson.E{})
		copy(m[p+1:], m[p:])
		m[p] = e
	}
	ins(bson.E{Key: o.TimeField, Value: tm})
	if o.MetaField != "" && r.Intn(10) != 0 {
		ins(bson.E{Key: o.MetaField, Value: metas[r.Intn(len(metas))]})
	}
	return m
}

// TestRoundTripProperty inserts random measurements through a Bucketer,
// keeping a model of what went where, then checks every bucket: the
// bucketing invariants, control min/max against a brute-force scan, and
// that Document -> document.Marshal -> document.Unmarshal -> DecodeBucket gives
// back exactly the inserted measurements, field order and types included.
func TestRoundTripProperty(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewSource(seed(t)))
	n := 3000
	switch {
	case long():
		n = 100000
	case raceOn:
		// One goroutine against a model: -race adds time, not
		// coverage (1,000 still spans about 20 time jumps a set).
		n = 1000
	}
	optionSets := []bson.D{
		{{Key: "timeField", Value: "ts"}, {Key: "metaField", Value: "meta"}},
		{{Key: "timeField", Value: "ts"}, {Key: "metaField", Value: "meta"}, {Key: "granularity", Value: "minutes"}},
		{{Key: "timeField", Value: "ts"}, {Key: "bucketMaxSpanSeconds", Value: int32(600)}, {Key: "bucketRoundingSeconds", Value: int32(600)}},
	}
	metas := []any{"a", int32(1), 1.0, bson.D{{Key: "x", Value: int32(1)}, {Key: "y", Value: "z"}},
		bson.D{{Key: "y", Value: "z"}, {Key: "x", Value: int32(1)}}, bson.A{int32(1), int32(2)}, nil}
	for _, od := range optionSets {
		o := mustOptions(t, od)
		bk := NewBucketer(o)
		model := map[*Bucket][]bson.D{}
		var order []*Bucket
		base := bson.DateTime(1_700_000_000_000)
		for i := 0; i < n; i++ {
			if r.Intn(50) == 0 {
				base += bson.DateTime(r.Int63n(3 * 3600 * 1000))
			}
			m := randMeasurement(r, o, base, metas)
			b, created, err := bk.Insert(m)
			if err != nil {
				t.Fatalf("insert %d %v: %v", i, m, err)
			}
			if _, seen := model[b]; created == seen {
				t.Fatalf("insert %d: created=%v but bucket seen=%v", i, created, seen)
			}
			if created {
				order = append(order, b)
			}
			model[b] = append(model[b], m)
		}
		closed := map[*Bucket]bool{}
		for _, b := range bk.TakeClosed() {
			if closed[b] {
				t.Fatal("a bucket was closed twice")
			}
			closed[b] = true
		}
		if len(closed)+bk.OpenCount() != len(order) {
			t.Fatalf("%d closed + %d open != %d buckets", len(closed), bk.OpenCount(), len(order))
		}
		for _, b := range order {
			checkBucket(t, o, b, model[b])
		}
		t.Logf("%v: %d measurements in %d buckets", od, n, len(order))
	}
}

func checkBucket(t *testing.T, o Options, b *Bucket, want []bson.D) {
	t.Helper()
	if b.Count() != len(want) || b.Count() > MaxBucketCount {
		t.Fatalf("count %d, model %d", b.Count(), len(want))
	}
	minOf, maxOf := map[string]any{}, map[string]any{}
	var fields []string
	for i, m := range want {
		tm, meta, hasMeta, _ := o.Split(m)
		if tm < b.MinTime || int64(tm-b.MinTime) >= o.BucketMaxSpanSeconds*1000 {
			t.Fatalf("measurement %d at %v outside bucket [%v, +%ds)", i, tm, b.MinTime, o.BucketMaxSpanSeconds)
		}
		if !SameMeta(hasMeta, meta, b.HasMeta, b.Meta) {
			t.Fatalf("measurement %d meta %v in bucket of meta %v", i, meta, b.Meta)
		}
		for _, e := range m {
			if hasMeta && e.Key == o.MetaField {
				continue
			}
			if _, ok := minOf[e.Key]; !ok {
				fields = append(fields, e.Key)
				minOf[e.Key], maxOf[e.Key] = e.Value, e.Value
				continue
			}
			if document.Compare(e.Value, minOf[e.Key]) < 0 {
				minOf[e.Key] = e.Value
			}
			if document.Compare(e.Value, maxOf[e.Key]) > 0 {
				maxOf[e.Key] = e.Value
			}
		}
	}
	minOf[o.TimeField] = b.MinTime
	// A measurement comes back with the bucket's meta value, which equals
	// its own under document.Compare but may differ in type (1 and 1.0).
	want = withMeta(o, want, b)
	cmin, cmax := b.ControlMin(), b.ControlMax()
	if len(cmin) != len(fields) || len(cmax) != len(fields) {
		t.Fatalf("control has %d/%d fields, want %v", len(cmin), len(cmax), fields)
	}
	for i, f := range fields {
		if cmin[i].Key != f || !same(cmin[i].Value, minOf[f]) || cmax[i].Key != f || !same(cmax[i].Value, maxOf[f]) {
			t.Fatalf("control field %d: min %v max %v, want %s min %v max %v", i, cmin[i], cmax[i], f, minOf[f], maxOf[f])
		}
	}
	if got := b.MaxTime(); !same(got, maxOf[o.TimeField]) {
		t.Fatalf("MaxTime %v, want %v", got, maxOf[o.TimeField])
	}
	if got := b.Measurements(o); !sameDocs(got, want) {
		for i := range got {
			if i < len(want) && !same(got[i], want[i]) {
				t.Fatalf("measurement %d of %d is\n%v\nwant\n%v", i, len(want), got[i], want[i])
			}
		}
		t.Fatalf("Measurements differ from the inserted ones")
	}
	d := b.Document(o)
	if size := document.Size(d); size > b.Size() {
		t.Fatalf("size estimate %d below the real %d", b.Size(), size)
	}
	raw, err := document.Marshal(d)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	back, err := document.Unmarshal(raw)
	if err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	nb, err := DecodeBucket(o, back)
	if err != nil {
		t.Fatalf("decode: %v\n%v", err, d)
	}
	if nb.ID != b.ID || nb.MinTime != b.MinTime || nb.MaxTime() != b.MaxTime() || nb.Count() != b.Count() || nb.HasMeta != b.HasMeta || !same(nb.Meta, b.Meta) {
		t.Fatalf("decoded header differs")
	}
	if !sameDocs(nb.Measurements(o), want) {
		t.Fatalf("decoded measurements differ from the inserted ones")
	}
	if !same(nb.Document(o), d) {
		t.Fatalf("re-encoded document differs")
	}
	checkCompressed(t, o, b, d, want)
}

// checkCompressed checks the version-2 form and the delta helpers of b
// (Document d, measurements want): the compressed document decodes to
// the same bucket, Rows gives the tail of the measurements, and Append
// rebuilds the bucket from its measurements.
func checkCompressed(t *testing.T, o Options, b *Bucket, d bson.D, want []bson.D) {
	t.Helper()
	cd, err := b.CompressedDocument(o)
	if err != nil {
		t.Fatalf("CompressedDocument: %v", err)
	}
	if v, _ := document.Lookup(cd, "control.version"); v != int32(2) {
		t.Fatalf("compressed control.version = %v", v)
	}
	raw, err := document.Marshal(cd)
	if err != nil {
		t.Fatalf("marshal v2: %v", err)
	}
	back, err := document.Unmarshal(raw)
	if err != nil {
		t.Fatalf("unmarshal v2: %v", err)
	}
	cb, err := DecodeBucket(o, back)
	if err != nil {
		t.Fatalf("decode v2: %v", err)
	}
	if cb.ID != b.ID || cb.Count() != b.Count() || cb.MaxTime() != b.MaxTime() || !sameDocs(cb.Measurements(o), want) || !same(cb.Document(o), d) {
		t.Fatalf("version-2 round trip differs")
	}
	k := b.Count() / 2
	if got := b.Rows(o, k); !sameDocs(got, want[k:]) {
		t.Fatalf("Rows(%d) differs from the measurements' tail", k)
	}
	if got := b.Rows(o, b.Count()); len(got) != 0 {
		t.Fatalf("Rows(Count) = %d rows", len(got))
	}
	rb := NewBucket(o, b.MinTime, b.Meta, b.HasMeta)
	for i, m := range want {
		if err := rb.Append(o, m); err != nil {
			t.Fatalf("Append %d: %v", i, err)
		}
	}
	if !sameDocs(rb.Measurements(o), want) || !same(rb.ControlMin(), b.ControlMin()) || !same(rb.ControlMax(), b.ControlMax()) {
		t.Fatalf("Append rebuild differs")
	}
}

// TestAppendRefuses: Append skips the span and size checks but still
// refuses a wrong meta, an early time, a bad time and a full bucket.
func TestAppendRefuses(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	b := NewBucket(o, 60000, "s", true)
	far := bson.D{{Key: "t", Value: bson.DateTime(60000 + 10*3600*1000)}, {Key: "m", Value: "s"}}
	if err := b.Append(o, far); err != nil {
		t.Fatalf("Append beyond the span: %v", err)
	}
	for name, m := range map[string]bson.D{
		"meta":     {{Key: "t", Value: bson.DateTime(61000)}, {Key: "m", Value: "x"}},
		"no meta":  {{Key: "t", Value: bson.DateTime(61000)}},
		"early":    {{Key: "t", Value: bson.DateTime(59999)}, {Key: "m", Value: "s"}},
		"not date": {{Key: "t", Value: int32(1)}, {Key: "m", Value: "s"}},
		"dup":      {{Key: "t", Value: bson.DateTime(61000)}, {Key: "m", Value: "s"}, {Key: "v", Value: 1}, {Key: "v", Value: 2}},
	} {
		if err := b.Append(o, m); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
	for b.Count() < MaxBucketCount {
		if err := b.Append(o, bson.D{{Key: "t", Value: bson.DateTime(61000)}, {Key: "m", Value: "s"}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := b.Append(o, bson.D{{Key: "t", Value: bson.DateTime(61000)}, {Key: "m", Value: "s"}}); err != ErrNoFit {
		t.Fatalf("Append to a full bucket = %v, want ErrNoFit", err)
	}
	if b.Count() != MaxBucketCount {
		t.Fatalf("count %d", b.Count())
	}
}

// TestCompressedRefuses: DecodeBucket rejects version-2 data that
// Compress did not make, or a version that does not match the data.
func TestCompressedRefuses(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	b := NewBucket(o, 60000, "s", true)
	if err := b.Add(o, bson.D{{Key: "t", Value: bson.DateTime(61000)}, {Key: "m", Value: "s"}, {Key: "v", Value: int32(5)}}); err != nil {
		t.Fatal(err)
	}
	good, err := b.CompressedDocument(o)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := DecodeBucket(o, good); err != nil {
		t.Fatalf("good: %v", err)
	}
	z := func(v any) bson.Binary {
		raw, err := document.Marshal(bson.D{{Key: "c", Value: v}})
		if err != nil {
			t.Fatal(err)
		}
		c, _ := Compress(raw)
		return bson.Binary{Subtype: ColumnsSubtype, Data: c}
	}
	cases := []struct {
		name string
		path string
		v    any
	}{
		{"version 1 with binary", "control.version", int32(1)},
		{"version 3", "control.version", int32(3)},
		{"subtype 0", "data", bson.Binary{Subtype: 0, Data: good[len(good)-2].Value.(bson.Binary).Data}},
		{"not zstd", "data", bson.Binary{Subtype: ColumnsSubtype, Data: []byte("garbage")}},
		{"not columns", "data", z(int32(1))},
		{"column not triple", "data", z(bson.A{bson.A{"t"}})},
		{"rows not aligned", "data", z(bson.A{bson.A{"t", bson.A{int32(0), int32(1)}, bson.A{bson.DateTime(61000)}}})},
		{"row out of range", "data", z(bson.A{bson.A{"t", bson.A{int32(5000)}, bson.A{bson.DateTime(61000)}}})},
		{"time not date", "data", z(bson.A{bson.A{"t", nil, bson.A{"x"}}})},
		{"data object", "data", bson.D{{Key: "t", Value: bson.D{{Key: "0", Value: bson.DateTime(61000)}}}}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			d := edit(t, good, c.path, c.v)
			if _, err := DecodeBucket(o, d); err == nil {
				t.Fatalf("accepted %v", d)
			}
		})
	}
}

// same is reflect.DeepEqual for canonical values, except that a nil and
// an empty document or array are the same.
func same(a, b any) bool {
	switch x := a.(type) {
	case bson.D:
		y, ok := b.(bson.D)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].Key != y[i].Key || !same(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	case bson.A:
		y, ok := b.(bson.A)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !same(x[i], y[i]) {
				return false
			}
		}
		return true
	case bson.Binary:
		y, ok := b.(bson.Binary)
		return ok && x.Subtype == y.Subtype && string(x.Data) == string(y.Data)
	}
	return a == b
}

func sameDocs(a, b []bson.D) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if !same(a[i], b[i]) {
			return false
		}
	}
	return true
}

// TestWriteFuzzSeeds regenerates testdata/fuzz/FuzzDecodeBucket when
// TTLKV_WRITE_SEEDS=1.
func TestWriteFuzzSeeds(t *testing.T) {
	t.Parallel()
	if os.Getenv("TTLKV_WRITE_SEEDS") != "1" {
		t.Skip("set TTLKV_WRITE_SEEDS=1 to rewrite the fuzz seeds")
	}
	dir := filepath.Join("testdata", "fuzz", "FuzzDecodeBucket")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for i, s := range fuzzSeeds(t) {
		body := fmt.Sprintf("go test fuzz v1\n[]byte(%q)\n", s)
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("seed%02d", i)), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// fuzzSeeds returns msgpack-encoded bucket documents: valid ones of
// several shapes and a few broken ones.
func fuzzSeeds(t testing.TB) [][]byte {
	o := fuzzOptions
	var docs []bson.D
	b := NewBucket(o, 61000, "s", true)
	for _, m := range []bson.D{
		{{Key: "t", Value: bson.DateTime(61000)}, {Key: "m", Value: "s"}, {Key: "v", Value: int32(5)}},
		{{Key: "v", Value: 2.5}, {Key: "t", Value: bson.DateTime(62000)}, {Key: "m", Value: "s"}, {Key: "w", Value: bson.A{"x"}}},
		{{Key: "m", Value: "s"}, {Key: "t", Value: bson.DateTime(63000)}, {Key: "o", Value: bson.D{{Key: "a", Value: nil}}}},
	} {
		if err := b.Add(o, m); err != nil {
			t.Fatal(err)
		}
	}
	docs = append(docs, b.Document(o))
	b2 := NewBucket(o, -5000, nil, false)
	_ = b2.Add(o, bson.D{{Key: "t", Value: bson.DateTime(-4000)}})
	docs = append(docs, b2.Document(o), NewBucket(o, 0, bson.D{{Key: "k", Value: int64(1)}}, true).Document(o))
	good := b.Document(o)
	docs = append(docs,
		bson.D{},
		good[:2],
		append(document.CloneDoc(good), bson.E{Key: "extra", Value: int32(1)}),
	)
	var out [][]byte
	for _, d := range docs {
		raw, err := document.Marshal(d)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, raw)
	}
	return out
}

var fuzzOptions = Options{TimeField: "t", MetaField: "m", Granularity: GranularitySeconds, BucketMaxSpanSeconds: 3600, BucketRoundingSeconds: 60}

// FuzzDecodeBucket feeds arbitrary msgpack to DecodeBucket. It must never
// panic; a bucket it accepts must give measurements, re-encode to a
// document that decodes again to the same document, and keep every
// measurement time at or after its min time.
func FuzzDecodeBucket(f *testing.F) {
	for _, s := range fuzzSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := document.Unmarshal(data)
		if err != nil {
			return
		}
		o := fuzzOptions
		b, err := DecodeBucket(o, d)
		if err != nil {
			return
		}
		ms := b.Measurements(o)
		if len(ms) != b.Count() {
			t.Fatalf("%d measurements, count %d", len(ms), b.Count())
		}
		for _, m := range ms {
			tm, _, _, err := o.Split(m)
			if err != nil || tm < b.MinTime {
				t.Fatalf("measurement %v: time %v before min %v (%v)", m, tm, b.MinTime, err)
			}
		}
		d2 := b.Document(o)
		b2, err := DecodeBucket(o, d2)
		if err != nil {
			t.Fatalf("re-encoded bucket does not decode: %v\n%v", err, d2)
		}
		if !same(b2.Document(o), d2) || !sameDocs(b2.Measurements(o), ms) {
			t.Fatalf("round trip not stable")
		}
		_ = b.ControlMin()
		_ = b.ControlMax()
		_ = b.ExpiresAt(o, 1<<62)
	})
}

func withMeta(o Options, ms []bson.D, b *Bucket) []bson.D {
	out := make([]bson.D, len(ms))
	for i, m := range ms {
		out[i] = append(bson.D(nil), m...)
		for j := range out[i] {
			if b.HasMeta && out[i][j].Key == o.MetaField {
				out[i][j].Value = b.Meta
			}
		}
	}
	return out
}
