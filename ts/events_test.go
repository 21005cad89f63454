package ts

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestBucketerEvents follows mongod's jstest timeseries_collStats.js: a
// first meta opens a bucket for its metadata, a full bucket closes for
// its count, an oversized measurement closes a bucket for its size, a
// measurement past the span closes one for time; an earlier measurement
// opens a bucket without closing any; a failed Insert counts nothing.
func TestBucketerEvents(t *testing.T) {
	t.Parallel()
	o := mustOptions(t, bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	bk := NewBucketer(o)
	base := dt(t, "2024-01-01T10:00:00Z")
	ins := func(d bson.D) {
		t.Helper()
		if _, _, err := bk.Insert(d); err != nil {
			t.Fatal(err)
		}
	}
	want := func(what string, w Events) {
		t.Helper()
		if got := bk.TakeEvents(); got != w {
			t.Errorf("%s: events %+v, want %+v", what, got, w)
		}
	}
	ins(meas(base, "a"))
	ins(meas(base+1, "a"))
	ins(meas(base, "b"))
	want("two metas", Events{OpenedForMeta: 2})
	want("taken", Events{})
	for i := 0; i < MaxBucketCount+1; i++ {
		ins(meas(base, "count"))
	}
	want("1001 measurements", Events{OpenedForMeta: 1, ClosedForCount: 1})
	big := strings.Repeat("x", MaxBucketBytes/2+1)
	ins(meas(base, "size", bson.E{Key: "v", Value: big}))
	ins(meas(base, "size", bson.E{Key: "v", Value: big}))
	want("two halves", Events{OpenedForMeta: 1, ClosedForSize: 1})
	ins(meas(base+3*3600*1000, "a"))
	want("three hours on", Events{ClosedForTimeForward: 1})
	ins(meas(base-3600*1000, "a"))
	want("an hour back", Events{})
	if _, _, err := bk.Insert(bson.D{{Key: "m", Value: "z"}}); err == nil {
		t.Fatal("a measurement without time was taken")
	}
	want("failed insert", Events{})
}
