package ts

import (
	"math"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Granularity names accepted in the timeseries options, coarsest last.
const (
	GranularitySeconds = "seconds" // span 3600 s, rounding 60 s (the default)
	GranularityMinutes = "minutes" // span 86400 s, rounding 3600 s
	GranularityHours   = "hours"   // span 2592000 s, rounding 86400 s
)

// MaxCustomSpanSeconds is the largest bucketMaxSpanSeconds (and
// bucketRoundingSeconds) a custom bucketing may use: one year.
const MaxCustomSpanSeconds = 31536000

// Codes of MongoDB's IDL parser that doc/errors.go does not name.
const (
	codeIDLDuplicateField = document.Code(40413) // a sub-field given twice
	codeIDLFailedToParse  = document.Code(40414) // a required sub-field missing
)

type granularityDefaults struct {
	name           string
	span, rounding int64
	rank           int
}

var granularities = []granularityDefaults{
	{GranularitySeconds, 3600, 60, 0},
	{GranularityMinutes, 86400, 3600, 1},
	{GranularityHours, 2592000, 86400, 2},
}

func lookupGranularity(name string) (granularityDefaults, bool) {
	for _, g := range granularities {
		if g.name == name {
			return g, true
		}
	}
	return granularityDefaults{}, false
}

// Options are a time-series collection's options. The zero value is not
// valid; get Options from ParseOptions (and ApplyCollMod), which always
// fill BucketMaxSpanSeconds and BucketRoundingSeconds.
type Options struct {
	// TimeField is the top-level field holding each measurement's date.
	TimeField string
	// MetaField is the top-level field whose value groups measurements
	// into buckets; "" means the collection has none.
	MetaField string
	// Granularity is "seconds", "minutes" or "hours", or "" when the
	// collection uses custom span and rounding.
	Granularity string
	// BucketMaxSpanSeconds is how far after its min time a bucket may hold
	// measurements: min <= t < min + span.
	BucketMaxSpanSeconds int64
	// BucketRoundingSeconds is what a new bucket's min time is rounded
	// down to a multiple of.
	BucketRoundingSeconds int64
}

// bucketing is the parsed form of the granularity and custom bucketing
// sub-fields of a create or collMod timeseries document.
type bucketing struct {
	granularity          string
	hasGranularity       bool
	span, rounding       int64
	hasSpan, hasRounding bool
}

// ParseOptions validates the timeseries sub-document of a create command
// (docs/timeseries.md §6.1–6.2) and returns the options it describes. v must be a
// document (bson.D, or a map that document.Normalize accepts). Errors, all
// *document.Error:
//   - v not a document, timeField or metaField not a string, granularity
//     not a string, span or rounding not a number: 14 TypeMismatch;
//   - an unknown sub-field: 40415 IDLUnknownField; a sub-field given twice:
//     40413; timeField missing: 40414 (MongoDB's IDL codes);
//   - timeField or metaField holding a NUL byte: 2 BadValue;
//   - timeField or metaField empty or containing '.', metaField equal to
//     timeField, metaField "_id": 72 InvalidOptions;
//   - granularity not one of seconds/minutes/hours, span or rounding out
//     of 1..31536000 or not an integer: 2 BadValue;
//   - span without rounding or the reverse, span != rounding, a span
//     beside a granularity other than its default, or any rounding beside
//     a granularity: 72 InvalidOptions (docs/timeseries.md, "Options").
//
// With no granularity and no custom values the granularity is "seconds".
func ParseOptions(v any) (Options, error) {
	d, err := asDoc(v, "'timeseries' option must be a document")
	if err != nil {
		return Options{}, err
	}
	var o Options
	var hasTime, hasMeta bool
	var bk bucketing
	seen := map[string]bool{}
	for _, e := range d {
		if seen[e.Key] {
			return Options{}, document.Errorf(codeIDLDuplicateField, "BSON field 'create.timeseries.%s' is a duplicate field", e.Key)
		}
		seen[e.Key] = true
		switch e.Key {
		case "timeField":
			s, ok := e.Value.(string)
			if !ok {
				return Options{}, typeMismatch("create", "timeField", e.Value, "string")
			}
			o.TimeField, hasTime = s, true
		case "metaField":
			s, ok := e.Value.(string)
			if !ok {
				return Options{}, typeMismatch("create", "metaField", e.Value, "string")
			}
			o.MetaField, hasMeta = s, true
		default:
			handled, err := bk.parseField("create", e)
			if err != nil {
				return Options{}, err
			}
			if !handled {
				return Options{}, document.Errorf(document.CodeIDLUnknownField, "BSON field 'create.timeseries.%s' is an unknown field.", e.Key)
			}
		}
	}
	if !hasTime {
		return Options{}, document.Errorf(codeIDLFailedToParse, "BSON field 'create.timeseries.timeField' is missing but a required field")
	}
	for _, f := range [][2]string{{"timeField", o.TimeField}, {"metaField", o.MetaField}} {
		if strings.IndexByte(f[1], 0) >= 0 {
			return Options{}, document.Errorf(document.CodeBadValue, "The '%s' for a time-series collection must not contain a null byte", f[0])
		}
	}
	if o.TimeField == "" {
		return Options{}, document.Errorf(document.CodeInvalidOptions, "The 'timeField' for a time-series collection must not be empty")
	}
	if strings.Contains(o.TimeField, ".") {
		return Options{}, document.Errorf(document.CodeInvalidOptions, "The 'timeField' for a time-series collection must not contain a '.': %q", o.TimeField)
	}
	if hasMeta {
		switch {
		case o.MetaField == "":
			return Options{}, document.Errorf(document.CodeInvalidOptions, "The 'metaField' for a time-series collection must not be empty")
		case strings.Contains(o.MetaField, "."):
			return Options{}, document.Errorf(document.CodeInvalidOptions, "The 'metaField' for a time-series collection must not contain a '.': %q", o.MetaField)
		case o.MetaField == o.TimeField:
			return Options{}, document.Errorf(document.CodeInvalidOptions, "The 'metaField' and 'timeField' of a time-series collection must be different, both are %q", o.TimeField)
		case o.MetaField == "_id":
			return Options{}, document.Errorf(document.CodeInvalidOptions, "The 'metaField' for a time-series collection cannot be '_id'")
		}
	}
	g, span, rounding, err := bk.resolve()
	if err != nil {
		return Options{}, err
	}
	if !bk.hasGranularity && !bk.hasSpan {
		g = GranularitySeconds
		span, rounding = 3600, 60
	}
	o.Granularity, o.BucketMaxSpanSeconds, o.BucketRoundingSeconds = g, span, rounding
	return o, nil
}

// parseField parses one bucketing sub-field (granularity,
// bucketMaxSpanSeconds, bucketRoundingSeconds). It reports false for any
// other field name.
func (bk *bucketing) parseField(cmd string, e bson.E) (bool, error) {
	switch e.Key {
	case "granularity":
		s, ok := e.Value.(string)
		if !ok {
			return true, typeMismatch(cmd, "granularity", e.Value, "string")
		}
		if _, ok := lookupGranularity(s); !ok {
			return true, document.Errorf(document.CodeBadValue, "Enumeration value '%s' for field '%s.timeseries.granularity' is not a valid value.", s, cmd)
		}
		bk.granularity, bk.hasGranularity = s, true
	case "bucketMaxSpanSeconds", "bucketRoundingSeconds":
		n, err := secondsValue(cmd, e)
		if err != nil {
			return true, err
		}
		if e.Key == "bucketMaxSpanSeconds" {
			bk.span, bk.hasSpan = n, true
		} else {
			bk.rounding, bk.hasRounding = n, true
		}
	default:
		return false, nil
	}
	return true, nil
}

// resolve applies create's pairing rules (docs/timeseries.md, as
// MongoDB's checkBucketingParameters) to the parsed bucketing fields. It
// returns the granularity ("" for custom) and the span and rounding; all
// zero when nothing was given. With a granularity, a span other than its
// default and any rounding at all are 72 InvalidOptions; without one,
// span and rounding must both be given and be equal (72).
func (bk *bucketing) resolve() (string, int64, int64, error) {
	if bk.hasGranularity {
		g, _ := lookupGranularity(bk.granularity)
		if bk.hasSpan && bk.span != g.span {
			return "", 0, 0, document.Errorf(document.CodeInvalidOptions,
				"Time-series 'bucketMaxSpanSeconds' cannot be set to a value other than the default of %d for the provided granularity", g.span)
		}
		if bk.hasRounding {
			return "", 0, 0, document.Errorf(document.CodeInvalidOptions,
				"Time-series 'bucketRoundingSeconds' cannot be set alongside the granularity parameter")
		}
		return g.name, g.span, g.rounding, nil
	}
	if !bk.hasSpan && !bk.hasRounding {
		return "", 0, 0, nil
	}
	if bk.hasSpan != bk.hasRounding || bk.span != bk.rounding {
		return "", 0, 0, document.Errorf(document.CodeInvalidOptions,
			"Time-series 'bucketRoundingSeconds' must be equal to 'bucketMaxSpanSeconds'")
	}
	return "", bk.span, bk.rounding, nil
}

// secondsValue reads bucketMaxSpanSeconds or bucketRoundingSeconds: an
// integral number in 1..MaxCustomSpanSeconds.
func secondsValue(cmd string, e bson.E) (int64, error) {
	var n int64
	switch x := e.Value.(type) {
	case int32:
		n = int64(x)
	case int64:
		n = x
	case float64:
		if x != math.Trunc(x) || math.IsNaN(x) || x < math.MinInt64 || x >= math.MaxInt64 {
			return 0, document.Errorf(document.CodeBadValue, "BSON field '%s.timeseries.%s' must be an integer, got %v", cmd, e.Key, x)
		}
		n = int64(x)
	default:
		return 0, typeMismatch(cmd, e.Key, e.Value, "int")
	}
	if n < 1 {
		return 0, document.Errorf(document.CodeBadValue, "BSON field '%s.timeseries.%s' value must be >= 1, actual value '%d'", cmd, e.Key, n)
	}
	if n > MaxCustomSpanSeconds {
		return 0, document.Errorf(document.CodeBadValue, "BSON field '%s.timeseries.%s' value must be <= %d, actual value '%d'", cmd, e.Key, MaxCustomSpanSeconds, n)
	}
	return n, nil
}

func typeMismatch(cmd, field string, v any, want string) error {
	got := document.TypeName(v)
	if got == "" {
		got = "unknown"
	}
	return document.Errorf(document.CodeTypeMismatch, "BSON field '%s.timeseries.%s' is the wrong type '%s', expected type '%s'", cmd, field, got, want)
}

// asDoc returns v as a bson.D, normalising maps; anything else is 14.
func asDoc(v any, msg string) (bson.D, error) {
	switch x := v.(type) {
	case bson.D:
		return x, nil
	case bson.M, map[string]any:
		d, err := document.Normalize(x)
		if err != nil {
			return nil, err
		}
		return d, nil
	}
	return nil, document.Errorf(document.CodeTypeMismatch, "%s, got %s", msg, typeNameOf(v))
}

func typeNameOf(v any) string {
	if n := document.TypeName(v); n != "" {
		return n
	}
	return "unknown type"
}

// Listing returns the options as listCollections shows them under
// options.timeseries (docs/timeseries.md §6.4): {timeField, metaField?, granularity,
// bucketMaxSpanSeconds} for a granularity, {timeField, metaField?,
// bucketMaxSpanSeconds, bucketRoundingSeconds} for custom bucketing.
// Numbers are int32, as MongoDB shows them.
func (o Options) Listing() bson.D {
	d := bson.D{{Key: "timeField", Value: o.TimeField}}
	if o.MetaField != "" {
		d = append(d, bson.E{Key: "metaField", Value: o.MetaField})
	}
	if o.Granularity != "" {
		d = append(d, bson.E{Key: "granularity", Value: o.Granularity})
	}
	d = append(d, bson.E{Key: "bucketMaxSpanSeconds", Value: int32(o.BucketMaxSpanSeconds)})
	if o.Granularity == "" {
		d = append(d, bson.E{Key: "bucketRoundingSeconds", Value: int32(o.BucketRoundingSeconds)})
	}
	return d
}

// Equal reports whether o and p are the same options, field by field.
// A create that repeats an existing time-series collection succeeds only
// when its parsed options are Equal to the stored ones.
func (o Options) Equal(p Options) bool { return o == p }

// ApplyCollMod validates the timeseries sub-document of a collMod against
// the current options o and returns the new options; o is not changed.
// Accepted sub-fields are granularity, bucketMaxSpanSeconds and
// bucketRoundingSeconds ({} changes nothing). Errors, all *document.Error:
//   - v not a document, or a sub-field of the wrong type: 14;
//   - another sub-field (timeField and metaField included): 40415;
//   - a granularity with a span other than its default or with any
//     rounding: 72;
//   - a granularity that does not grow (seconds -> minutes -> hours; the
//     same granularity is a no-op): 72 "Invalid transition for
//     timeseries.granularity";
//   - custom values without both span and rounding, or unequal: 72;
//   - a change from custom bucketing (or to it) that shrinks the span or
//     the rounding: 72 "... needs to be equal or greater to transition".
//
// The rules are MongoDB's; docs/timeseries.md lists them.
//
// Bucketing only ever grows, so every existing bucket still satisfies the
// new options (its measurements lie within min + the new span).
func (o Options) ApplyCollMod(v any) (Options, error) {
	d, err := asDoc(v, "'timeseries' option must be a document")
	if err != nil {
		return o, err
	}
	var bk bucketing
	seen := map[string]bool{}
	for _, e := range d {
		if seen[e.Key] {
			return o, document.Errorf(codeIDLDuplicateField, "BSON field 'collMod.timeseries.%s' is a duplicate field", e.Key)
		}
		seen[e.Key] = true
		handled, err := bk.parseField("collMod", e)
		if err != nil {
			return o, err
		}
		if !handled {
			return o, document.Errorf(document.CodeIDLUnknownField, "BSON field 'collMod.timeseries.%s' is an unknown field.", e.Key)
		}
	}
	return o.collModTarget(bk)
}

// collModTarget applies collMod's rules (docs/timeseries.md, as MongoDB's
// isTimeseriesGranularityValidAndUnchanged) to the parsed fields.
func (o Options) collModTarget(bk bucketing) (Options, error) {
	if !bk.hasGranularity && !bk.hasSpan && !bk.hasRounding {
		return o, nil
	}
	var to granularityDefaults
	var span, rounding int64
	if bk.hasGranularity {
		to, _ = lookupGranularity(bk.granularity)
		if bk.hasSpan && bk.span != to.span {
			return o, document.Errorf(document.CodeInvalidOptions,
				"Timeseries 'bucketMaxSpanSeconds' is not configurable to a value other than the default for the provided granularity")
		}
		if bk.hasRounding {
			return o, document.Errorf(document.CodeInvalidOptions,
				"Timeseries 'bucketRoundingSeconds' is not configurable alongside the granularity parameter")
		}
		if o.Granularity != "" {
			from, _ := lookupGranularity(o.Granularity)
			if to.rank == from.rank {
				return o, nil
			}
			if to.rank < from.rank {
				return o, document.Errorf(document.CodeInvalidOptions,
					"Invalid transition for timeseries.granularity. Can only transition from 'seconds' to 'minutes' or 'minutes' to 'hours'.")
			}
			n := o
			n.Granularity, n.BucketMaxSpanSeconds, n.BucketRoundingSeconds = to.name, to.span, to.rounding
			return n, nil
		}
		span, rounding = to.span, to.rounding
	} else {
		if !bk.hasSpan || !bk.hasRounding {
			return o, document.Errorf(document.CodeInvalidOptions,
				"Timeseries 'bucketMaxSpanSeconds' and 'bucketRoundingSeconds' need to be set alongside each other")
		}
		if bk.span != bk.rounding {
			return o, document.Errorf(document.CodeInvalidOptions,
				"Timeseries 'bucketRoundingSeconds' needs to be equal to 'bucketMaxSpanSeconds'")
		}
		span, rounding = bk.span, bk.rounding
	}
	if span == o.BucketMaxSpanSeconds && rounding == o.BucketRoundingSeconds {
		return o, nil
	}
	if o.BucketMaxSpanSeconds > span {
		return o, document.Errorf(document.CodeInvalidOptions,
			"Timeseries 'bucketMaxSpanSeconds' needs to be equal or greater to transition")
	}
	if o.BucketRoundingSeconds > rounding {
		return o, document.Errorf(document.CodeInvalidOptions,
			"Timeseries 'bucketRoundingSeconds' needs to be equal or greater to transition")
	}
	n := o
	n.Granularity, n.BucketMaxSpanSeconds, n.BucketRoundingSeconds = "", span, rounding
	if bk.hasGranularity {
		n.Granularity = to.name
	}
	return n, nil
}

// spanMillis and roundingMillis return the bucketing in milliseconds,
// guarding against options that were not produced by ParseOptions.
func (o Options) spanMillis() int64     { return clampSeconds(o.BucketMaxSpanSeconds) * 1000 }
func (o Options) roundingMillis() int64 { return clampSeconds(o.BucketRoundingSeconds) * 1000 }

func clampSeconds(s int64) int64 {
	switch {
	case s < 1:
		return 1
	case s > MaxCustomSpanSeconds:
		return MaxCustomSpanSeconds
	}
	return s
}

// BucketMin returns t rounded down to a multiple of BucketRoundingSeconds
// (floor, so a time before 1970 rounds towards the past). It is the min
// time of a bucket opened by a measurement at t. Times so close to the
// smallest DateTime that the multiple is not representable return
// math.MinInt64.
func (o Options) BucketMin(t bson.DateTime) bson.DateTime {
	r := o.roundingMillis()
	ms := int64(t)
	mod := ms % r
	if mod < 0 {
		mod += r
	}
	if ms < math.MinInt64+mod {
		return bson.DateTime(math.MinInt64)
	}
	return bson.DateTime(ms - mod)
}

// Split checks a measurement and returns its time and meta values. The
// time field must be present and a date, otherwise 2 BadValue naming the
// field. hasMeta is false when the collection has no metaField or the
// measurement lacks it (such measurements share buckets with each other,
// apart from those whose meta is null).
func (o Options) Split(m bson.D) (t bson.DateTime, meta any, hasMeta bool, err error) {
	var haveTime bool
	for _, e := range m {
		switch {
		case e.Key == o.TimeField && !haveTime:
			dt, ok := e.Value.(bson.DateTime)
			if !ok {
				return 0, nil, false, document.Errorf(document.CodeBadValue,
					"'%s' must be present and contain a valid BSON UTC datetime value", o.TimeField)
			}
			t, haveTime = dt, true
		case o.MetaField != "" && e.Key == o.MetaField && !hasMeta:
			meta, hasMeta = e.Value, true
		}
	}
	if !haveTime {
		return 0, nil, false, document.Errorf(document.CodeBadValue,
			"'%s' must be present and contain a valid BSON UTC datetime value", o.TimeField)
	}
	if hasMeta {
		meta = NormalizeMeta(meta)
	}
	return t, meta, hasMeta, nil
}

// NormalizeMeta is meta value v as a bucket keeps it: the fields of every
// document in it, at any depth and inside arrays, sorted by name
// (bytewise); arrays keep their order. As in mongod, measurements whose
// metas differ only in field order share buckets, and read back with the
// sorted meta (docs/timeseries.md §6.2). v is returned as it is when it
// is already so.
func NormalizeMeta(v any) any {
	if !metaNeedsSort(v) {
		return v
	}
	return document.SortFields(v)
}

// metaNeedsSort reports whether some document in v has fields out of
// order.
func metaNeedsSort(v any) bool {
	switch x := v.(type) {
	case bson.D:
		for i, e := range x {
			if i > 0 && x[i-1].Key > e.Key {
				return true
			}
			if metaNeedsSort(e.Value) {
				return true
			}
		}
	case bson.A:
		for _, e := range x {
			if metaNeedsSort(e) {
				return true
			}
		}
	}
	return false
}
