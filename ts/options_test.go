package ts

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// dt parses an RFC 3339 time (with optional fraction) into a DateTime.
func dt(t testing.TB, s string) bson.DateTime {
	t.Helper()
	tm, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatalf("bad time %q: %v", s, err)
	}
	return bson.NewDateTimeFromTime(tm)
}

// wantCode fails unless err is a *document.Error with the code and, when frag
// is not empty, a message containing frag.
func wantCode(t *testing.T, err error, code document.Code, frag string) {
	t.Helper()
	var e *document.Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v, want *document.Error with code %d", err, code)
	}
	if e.Code != code {
		t.Fatalf("code %d (%v), want %d: %s", e.Code, e.Code, code, e.Message)
	}
	if frag != "" && !strings.Contains(e.Message, frag) {
		t.Fatalf("message %q lacks %q", e.Message, frag)
	}
}

func TestParseOptionsAccepts(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		in   any
		want Options
	}{
		{"defaults", bson.D{{Key: "timeField", Value: "t"}},
			Options{TimeField: "t", Granularity: "seconds", BucketMaxSpanSeconds: 3600, BucketRoundingSeconds: 60}},
		{"meta", bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}},
			Options{TimeField: "t", MetaField: "m", Granularity: "seconds", BucketMaxSpanSeconds: 3600, BucketRoundingSeconds: 60}},
		{"seconds", bson.D{{Key: "timeField", Value: "t"}, {Key: "granularity", Value: "seconds"}},
			Options{TimeField: "t", Granularity: "seconds", BucketMaxSpanSeconds: 3600, BucketRoundingSeconds: 60}},
		{"minutes", bson.D{{Key: "timeField", Value: "t"}, {Key: "granularity", Value: "minutes"}},
			Options{TimeField: "t", Granularity: "minutes", BucketMaxSpanSeconds: 86400, BucketRoundingSeconds: 3600}},
		{"hours", bson.D{{Key: "timeField", Value: "t"}, {Key: "granularity", Value: "hours"}},
			Options{TimeField: "t", Granularity: "hours", BucketMaxSpanSeconds: 2592000, BucketRoundingSeconds: 86400}},
		{"custom", bson.D{{Key: "timeField", Value: "t"}, {Key: "bucketMaxSpanSeconds", Value: int32(300)}, {Key: "bucketRoundingSeconds", Value: int64(300)}},
			Options{TimeField: "t", BucketMaxSpanSeconds: 300, BucketRoundingSeconds: 300}},
		{"custom min", bson.D{{Key: "timeField", Value: "t"}, {Key: "bucketMaxSpanSeconds", Value: 1.0}, {Key: "bucketRoundingSeconds", Value: int32(1)}},
			Options{TimeField: "t", BucketMaxSpanSeconds: 1, BucketRoundingSeconds: 1}},
		{"custom max", bson.D{{Key: "timeField", Value: "t"}, {Key: "bucketMaxSpanSeconds", Value: int32(31536000)}, {Key: "bucketRoundingSeconds", Value: int32(31536000)}},
			Options{TimeField: "t", BucketMaxSpanSeconds: 31536000, BucketRoundingSeconds: 31536000}},
		{"granularity with its span only", bson.D{{Key: "timeField", Value: "t"}, {Key: "granularity", Value: "seconds"}, {Key: "bucketMaxSpanSeconds", Value: int32(3600)}},
			Options{TimeField: "t", Granularity: "seconds", BucketMaxSpanSeconds: 3600, BucketRoundingSeconds: 60}},
		{"map form", bson.M{"timeField": "t", "metaField": "m"},
			Options{TimeField: "t", MetaField: "m", Granularity: "seconds", BucketMaxSpanSeconds: 3600, BucketRoundingSeconds: 60}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseOptions(c.in)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}

func TestParseOptionsRejects(t *testing.T) {
	t.Parallel()
	tf := bson.E{Key: "timeField", Value: "t"}
	cases := []struct {
		name string
		in   any
		code document.Code
		frag string
	}{
		{"not an object", "t", document.CodeTypeMismatch, ""},
		{"array", bson.A{"t"}, document.CodeTypeMismatch, ""},
		{"null", nil, document.CodeTypeMismatch, ""},
		{"timeField number", bson.D{{Key: "timeField", Value: int32(1)}}, document.CodeTypeMismatch, "timeField"},
		{"metaField number", bson.D{tf, {Key: "metaField", Value: true}}, document.CodeTypeMismatch, "metaField"},
		{"granularity number", bson.D{tf, {Key: "granularity", Value: int32(1)}}, document.CodeTypeMismatch, "granularity"},
		{"span string", bson.D{tf, {Key: "bucketMaxSpanSeconds", Value: "1"}, {Key: "bucketRoundingSeconds", Value: int32(1)}}, document.CodeTypeMismatch, "bucketMaxSpanSeconds"},
		{"unknown field", bson.D{tf, {Key: "foo", Value: int32(1)}}, document.CodeIDLUnknownField, "create.timeseries.foo"},
		{"duplicate field", bson.D{tf, tf}, document.Code(40413), "duplicate"},
		{"no timeField", bson.D{{Key: "metaField", Value: "m"}}, document.Code(40414), "timeField"},
		{"dotted timeField", bson.D{{Key: "timeField", Value: "a.b"}}, document.CodeInvalidOptions, "'.'"},
		{"dotted metaField", bson.D{tf, {Key: "metaField", Value: "m.x"}}, document.CodeInvalidOptions, "'.'"},
		{"empty timeField", bson.D{{Key: "timeField", Value: ""}}, document.CodeInvalidOptions, "empty"},
		{"empty metaField", bson.D{tf, {Key: "metaField", Value: ""}}, document.CodeInvalidOptions, "empty"},
		{"meta equals time", bson.D{tf, {Key: "metaField", Value: "t"}}, document.CodeInvalidOptions, "different"},
		{"meta _id", bson.D{tf, {Key: "metaField", Value: "_id"}}, document.CodeInvalidOptions, "_id"},
		{"bad granularity", bson.D{tf, {Key: "granularity", Value: "days"}}, document.CodeBadValue, "days"},
		{"span alone", bson.D{tf, {Key: "bucketMaxSpanSeconds", Value: int32(100)}}, document.CodeInvalidOptions, "must be equal"},
		{"rounding alone", bson.D{tf, {Key: "bucketRoundingSeconds", Value: int32(100)}}, document.CodeInvalidOptions, "must be equal"},
		// MongoDB 8 (timeseries_options.cpp, checkBucketingParameters; jstests/core/timeseries/ddl/
		// bucket_span_and_rounding_seconds.js): no rounding beside a granularity, even its default,
		// and custom values must be equal whatever the granularity says (issue 20's example).
		{"span default alone", bson.D{tf, {Key: "bucketMaxSpanSeconds", Value: int32(3600)}}, document.CodeInvalidOptions, "must be equal"},
		{"granularity and its default rounding", bson.D{tf, {Key: "granularity", Value: "seconds"}, {Key: "bucketRoundingSeconds", Value: int32(60)}}, document.CodeInvalidOptions, "alongside the granularity"},
		{"granularity and its defaults", bson.D{tf, {Key: "granularity", Value: "seconds"}, {Key: "bucketMaxSpanSeconds", Value: int32(3600)}, {Key: "bucketRoundingSeconds", Value: int32(60)}}, document.CodeInvalidOptions, "alongside the granularity"},
		{"minutes with equal custom values", bson.D{tf, {Key: "granularity", Value: "minutes"}, {Key: "bucketMaxSpanSeconds", Value: int32(4000)}, {Key: "bucketRoundingSeconds", Value: int32(4000)}}, document.CodeInvalidOptions, "86400"},
		{"unequal", bson.D{tf, {Key: "bucketMaxSpanSeconds", Value: int32(100)}, {Key: "bucketRoundingSeconds", Value: int32(50)}}, document.CodeInvalidOptions, "equal"},
		{"zero", bson.D{tf, {Key: "bucketMaxSpanSeconds", Value: int32(0)}, {Key: "bucketRoundingSeconds", Value: int32(0)}}, document.CodeBadValue, ">= 1"},
		{"negative", bson.D{tf, {Key: "bucketMaxSpanSeconds", Value: int64(-5)}, {Key: "bucketRoundingSeconds", Value: int64(-5)}}, document.CodeBadValue, ">= 1"},
		{"too large", bson.D{tf, {Key: "bucketMaxSpanSeconds", Value: int32(31536001)}, {Key: "bucketRoundingSeconds", Value: int32(31536001)}}, document.CodeBadValue, "<= 31536000"},
		{"fraction", bson.D{tf, {Key: "bucketMaxSpanSeconds", Value: 1.5}, {Key: "bucketRoundingSeconds", Value: 1.5}}, document.CodeBadValue, "integer"},
		{"NaN", bson.D{tf, {Key: "bucketMaxSpanSeconds", Value: math.NaN()}, {Key: "bucketRoundingSeconds", Value: int32(1)}}, document.CodeBadValue, "integer"},
		{"granularity and other span", bson.D{tf, {Key: "granularity", Value: "seconds"}, {Key: "bucketMaxSpanSeconds", Value: int32(60)}, {Key: "bucketRoundingSeconds", Value: int32(60)}}, document.CodeInvalidOptions, "3600"},
		{"granularity and other rounding", bson.D{tf, {Key: "granularity", Value: "hours"}, {Key: "bucketRoundingSeconds", Value: int32(60)}}, document.CodeInvalidOptions, "alongside the granularity"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseOptions(c.in)
			wantCode(t, err, c.code, c.frag)
		})
	}
}

func TestListing(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   bson.D
		want bson.D
	}{
		{bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}},
			bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}, {Key: "granularity", Value: "seconds"}, {Key: "bucketMaxSpanSeconds", Value: int32(3600)}}},
		{bson.D{{Key: "timeField", Value: "t"}, {Key: "granularity", Value: "hours"}},
			bson.D{{Key: "timeField", Value: "t"}, {Key: "granularity", Value: "hours"}, {Key: "bucketMaxSpanSeconds", Value: int32(2592000)}}},
		{bson.D{{Key: "timeField", Value: "t"}, {Key: "bucketRoundingSeconds", Value: int32(500)}, {Key: "bucketMaxSpanSeconds", Value: int32(500)}},
			bson.D{{Key: "timeField", Value: "t"}, {Key: "bucketMaxSpanSeconds", Value: int32(500)}, {Key: "bucketRoundingSeconds", Value: int32(500)}}},
	}
	for _, c := range cases {
		o, err := ParseOptions(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if got := o.Listing(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Listing(%v) = %v, want %v", c.in, got, c.want)
		}
		// The listing parses back to the same options (create again with
		// the listed options succeeds).
		back, err := ParseOptions(o.Listing())
		if err != nil || !back.Equal(o) {
			t.Errorf("listing %v parses to %+v, %v; want %+v", o.Listing(), back, err, o)
		}
	}
}

func TestOptionsEqual(t *testing.T) {
	t.Parallel()
	a, _ := ParseOptions(bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}})
	b, _ := ParseOptions(bson.D{{Key: "metaField", Value: "m"}, {Key: "timeField", Value: "t"}, {Key: "granularity", Value: "seconds"}})
	if !a.Equal(b) {
		t.Fatalf("%+v != %+v", a, b)
	}
	for _, other := range []bson.D{
		{{Key: "timeField", Value: "t"}},
		{{Key: "timeField", Value: "u"}, {Key: "metaField", Value: "m"}},
		{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}, {Key: "granularity", Value: "minutes"}},
		{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}, {Key: "bucketMaxSpanSeconds", Value: int32(60)}, {Key: "bucketRoundingSeconds", Value: int32(60)}},
	} {
		c, err := ParseOptions(other)
		if err != nil {
			t.Fatal(err)
		}
		if a.Equal(c) {
			t.Errorf("%+v Equal %+v", a, c)
		}
	}
}

func TestApplyCollMod(t *testing.T) {
	t.Parallel()
	mk := func(d bson.D) Options {
		o, err := ParseOptions(append(bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "m"}}, d...))
		if err != nil {
			t.Fatal(err)
		}
		return o
	}
	g := func(s string) bson.D { return bson.D{{Key: "granularity", Value: s}} }
	custom := func(n int32) bson.D {
		return bson.D{{Key: "bucketMaxSpanSeconds", Value: n}, {Key: "bucketRoundingSeconds", Value: n}}
	}
	sec, min, hr := mk(g("seconds")), mk(g("minutes")), mk(g("hours"))
	cust := mk(custom(7200))
	ok := []struct {
		name string
		from Options
		mod  any
		want Options
	}{
		{"empty no-op", sec, bson.D{}, sec},
		{"seconds->minutes", sec, g("minutes"), min},
		{"minutes->hours", min, g("hours"), hr},
		{"seconds->hours", sec, g("hours"), hr},
		{"same granularity", min, g("minutes"), min},
		{"granularity with its span", sec, bson.D{{Key: "granularity", Value: "minutes"}, {Key: "bucketMaxSpanSeconds", Value: int32(86400)}}, min},
		{"granularity to equal custom", sec, custom(3600), mk(custom(3600))},
		{"custom grows", sec, custom(7200), cust},
		{"custom same", cust, custom(7200), cust},
		{"custom to a larger granularity", cust, g("hours"), hr},
	}
	for _, c := range ok {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.from.ApplyCollMod(c.mod)
			if err != nil {
				t.Fatal(err)
			}
			if !got.Equal(c.want) {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
	bad := []struct {
		name string
		from Options
		mod  any
		code document.Code
		frag string
	}{
		{"minutes->seconds", min, g("seconds"), document.CodeInvalidOptions, "Invalid transition for timeseries.granularity"},
		{"hours->minutes", hr, g("minutes"), document.CodeInvalidOptions, "Invalid transition for timeseries.granularity"},
		{"hours->seconds", hr, g("seconds"), document.CodeInvalidOptions, "Invalid transition for timeseries.granularity"},
		{"custom to a smaller granularity", cust, g("seconds"), document.CodeInvalidOptions, "'bucketMaxSpanSeconds' needs to be equal or greater"},
		{"custom to a granularity with smaller rounding", cust, g("minutes"), document.CodeInvalidOptions, "'bucketRoundingSeconds' needs to be equal or greater"},
		{"custom shrinks", cust, custom(3600), document.CodeInvalidOptions, "'bucketMaxSpanSeconds' needs to be equal or greater"},
		// jstests/core/timeseries/ddl/timeseries_collmod_timeseries_options.js: no rounding beside
		// a granularity in collMod either.
		{"granularity and its default rounding", sec, bson.D{{Key: "granularity", Value: "minutes"}, {Key: "bucketRoundingSeconds", Value: int32(3600)}}, document.CodeInvalidOptions, "alongside the granularity"},
		{"rounding alone", sec, bson.D{{Key: "bucketRoundingSeconds", Value: int32(7200)}}, document.CodeInvalidOptions, "alongside each other"},
		{"bad granularity", sec, g("days"), document.CodeBadValue, "days"},
		{"not an object", sec, "minutes", document.CodeTypeMismatch, ""},
		{"granularity number", sec, bson.D{{Key: "granularity", Value: int32(2)}}, document.CodeTypeMismatch, ""},
		{"timeField", sec, bson.D{{Key: "timeField", Value: "x"}}, document.CodeIDLUnknownField, "collMod.timeseries.timeField"},
		{"metaField", sec, bson.D{{Key: "metaField", Value: "x"}}, document.CodeIDLUnknownField, "metaField"},
		{"span alone", sec, bson.D{{Key: "bucketMaxSpanSeconds", Value: int32(7200)}}, document.CodeInvalidOptions, "alongside"},
		{"unequal", sec, bson.D{{Key: "bucketMaxSpanSeconds", Value: int32(7200)}, {Key: "bucketRoundingSeconds", Value: int32(3600)}}, document.CodeInvalidOptions, "equal"},
		{"out of range", sec, custom(31536001), document.CodeBadValue, ""},
		{"granularity and other span", sec, bson.D{{Key: "granularity", Value: "minutes"}, {Key: "bucketMaxSpanSeconds", Value: int32(3600)}}, document.CodeInvalidOptions, ""},
	}
	for _, c := range bad {
		t.Run(c.name, func(t *testing.T) {
			got, err := c.from.ApplyCollMod(c.mod)
			wantCode(t, err, c.code, c.frag)
			if !got.Equal(c.from) {
				t.Fatalf("failed collMod returned %+v, want the old %+v", got, c.from)
			}
		})
	}
}

func TestBucketMin(t *testing.T) {
	t.Parallel()
	o := Options{TimeField: "t", BucketMaxSpanSeconds: 3600, BucketRoundingSeconds: 60}
	cases := []struct{ in, want bson.DateTime }{
		{0, 0},
		{59999, 0},
		{60000, 60000},
		{-1, -60000},
		{-60000, -60000},
		{-60001, -120000},
		{math.MaxInt64, math.MaxInt64 - math.MaxInt64%60000},
		{math.MinInt64, math.MinInt64}, // not representable: clamps
		{math.MinInt64 + 60000 + 5, math.MinInt64 + 60000 - (math.MinInt64+60000)%60000 - 60000},
	}
	for _, c := range cases {
		got := o.BucketMin(c.in)
		if got != c.want {
			t.Errorf("BucketMin(%d) = %d, want %d", int64(c.in), int64(got), int64(c.want))
		}
		if got > c.in {
			t.Errorf("BucketMin(%d) = %d is after the time", int64(c.in), int64(got))
		}
	}
	tm := dt(t, "2021-05-18T20:10:14.134Z")
	if got, want := o.BucketMin(tm), dt(t, "2021-05-18T20:10:00Z"); got != want {
		t.Errorf("BucketMin = %v, want %v", got, want)
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	o := Options{TimeField: "t", MetaField: "m", Granularity: "seconds", BucketMaxSpanSeconds: 3600, BucketRoundingSeconds: 60}
	when := bson.DateTime(1000)
	tm, meta, has, err := o.Split(bson.D{{Key: "m", Value: "a"}, {Key: "t", Value: when}, {Key: "x", Value: int32(1)}})
	if err != nil || tm != when || meta != "a" || !has {
		t.Fatalf("Split = %v %v %v %v", tm, meta, has, err)
	}
	_, meta, has, err = o.Split(bson.D{{Key: "t", Value: when}})
	if err != nil || has || meta != nil {
		t.Fatalf("Split without meta = %v %v %v", meta, has, err)
	}
	_, meta, has, err = o.Split(bson.D{{Key: "t", Value: when}, {Key: "m", Value: nil}})
	if err != nil || !has || meta != nil {
		t.Fatalf("Split with null meta = %v %v %v", meta, has, err)
	}
	for _, m := range []bson.D{
		{{Key: "x", Value: int32(1)}},
		{{Key: "t", Value: "2021-01-01"}},
		{{Key: "t", Value: int64(1000)}},
		{{Key: "t", Value: nil}},
		{{Key: "t", Value: bson.Timestamp{T: 1}}},
	} {
		_, _, _, err := o.Split(m)
		wantCode(t, err, document.CodeBadValue, "'t'")
	}
}
