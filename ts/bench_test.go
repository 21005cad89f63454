package ts

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// sensorMeasurements returns n measurements shaped like MongoDB's weather
// example: _id, timestamp one second apart, a metadata document, temp.
func sensorMeasurements(n int) []bson.D {
	ms := make([]bson.D, n)
	base := bson.DateTime(1_700_000_000_000)
	for i := range ms {
		ms[i] = bson.D{
			{Key: "_id", Value: bson.NewObjectID()},
			{Key: "timestamp", Value: base + bson.DateTime(i)*1000},
			{Key: "metadata", Value: bson.D{{Key: "sensorId", Value: int32(5578)}, {Key: "type", Value: "temperature"}}},
			{Key: "temp", Value: 12 + float64(i%40)/4},
		}
	}
	return ms
}

var sensorOptions = Options{TimeField: "timestamp", MetaField: "metadata", Granularity: GranularitySeconds,
	BucketMaxSpanSeconds: 3600, BucketRoundingSeconds: 60}

// BenchmarkBucketEncoding measures the column layout: the msgpack size
// of one bucket document holding n measurements against the sum of the n
// measurements stored one by one (reported as bucket-B/meas and
// rows-B/meas), and the time to build, encode and decode a bucket.
func BenchmarkBucketEncoding(b *testing.B) {
	for _, n := range []int{10, 100, 1000} {
		b.Run(itoa(n), func(b *testing.B) {
			o := sensorOptions
			ms := sensorMeasurements(n)
			rows := 0
			for _, m := range ms {
				raw, err := document.Marshal(m)
				if err != nil {
					b.Fatal(err)
				}
				rows += len(raw)
			}
			var bucketBytes int
			b.ReportAllocs()
			for b.Loop() {
				bk := NewBucketer(o)
				var bu *Bucket
				for _, m := range ms {
					var err error
					if bu, _, err = bk.Insert(m); err != nil {
						b.Fatal(err)
					}
				}
				raw, err := document.Marshal(bu.Document(o))
				if err != nil {
					b.Fatal(err)
				}
				bucketBytes = len(raw)
				d, err := document.Unmarshal(raw)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := DecodeBucket(o, d); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(bucketBytes)/float64(n), "bucket-B/meas")
			b.ReportMetric(float64(rows)/float64(n), "rows-B/meas")
		})
	}
}

// BenchmarkBucketerInsert measures choosing a bucket and adding one
// measurement, over 100 meta values.
func BenchmarkBucketerInsert(b *testing.B) {
	o := sensorOptions
	bk := NewBucketer(o)
	ms := sensorMeasurements(1000)
	for i, m := range ms {
		m[2].Value = bson.D{{Key: "sensorId", Value: int32(i % 100)}, {Key: "type", Value: "temperature"}}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		m := ms[i%len(ms)]
		m[1].Value = bson.DateTime(1_700_000_000_000 + int64(i)*10)
		if _, _, err := bk.Insert(m); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

func itoa(n int) string { return rowKey(n) }

// BenchmarkWriterShape runs the ts side of the engine's time-series
// insert path on BenchmarkTimeseries' shape: 100 sensors, one reading
// per sensor per second, batches of 1,000; after each batch every
// bucket it touched is encoded as the engine's writer does, a tail of
// the new measurements (a delta) or, when the tail would hold as many
// measurements as the stored base or the bucket closed, the whole
// bucket compressed (a fold). One op is one measurement.
func BenchmarkWriterShape(b *testing.B) {
	o := sensorOptions
	const sensors, batch = 100, 1000
	metas := make([]bson.D, sensors)
	for s := range metas {
		metas[s] = bson.D{{Key: "sensor", Value: "sensor-" + itoa(s)}, {Key: "site", Value: "north"}}
	}
	type stored struct{ base, count int }
	b.ReportAllocs()
	bk := NewBucketer(o)
	state := map[*Bucket]*stored{}
	var touched []*Bucket
	seen := map[*Bucket]bool{}
	tail := []byte(nil)
	i := 0
	for b.Loop() {
		m := bson.D{
			{Key: "_id", Value: bson.NewObjectID()},
			{Key: "timestamp", Value: bson.DateTime(1_700_000_000_000 + int64(i/sensors)*1000)},
			{Key: "metadata", Value: metas[i%sensors]},
			{Key: "temp", Value: 20 + float64(i%97)/10},
			{Key: "hum", Value: int32(40 + i%31)},
		}
		bu, _, err := bk.Insert(m)
		if err != nil {
			b.Fatal(err)
		}
		if !seen[bu] {
			seen[bu] = true
			touched = append(touched, bu)
		}
		i++
		if i%batch != 0 {
			continue
		}
		closed := bk.TakeClosed()
		for _, cb := range closed {
			// A closed bucket is stored whole unless it is already
			// (no deltas, nothing new).
			if st := state[cb]; st == nil || st.count > st.base || cb.Count() > st.count {
				if _, err := cb.CompressedDocument(o); err != nil {
					b.Fatal(err)
				}
			}
			delete(state, cb)
			delete(seen, cb)
		}
		for _, bu := range touched {
			if !seen[bu] {
				continue // closed
			}
			st := state[bu]
			switch {
			case st == nil || bu.Count()-st.base >= st.base:
				if _, err := bu.CompressedDocument(o); err != nil {
					b.Fatal(err)
				}
				state[bu] = &stored{base: bu.Count(), count: bu.Count()}
			default:
				if tail, err = bu.AppendTail(tail[:0], st.count); err != nil {
					b.Fatal(err)
				}
				st.count = bu.Count()
			}
		}
		touched = touched[:0]
		clear(seen)
	}
}
