package agg

import (
	"math"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $dateToParts, $dateFromParts, $tsSecond and $tsIncrement
// (docs/aggregation.md, "Dates from parts and strings").

// codeZoneNotString is mongod's code for a timezone that is not a string
// in $dateToParts, $dateFromParts and $dateFromString.
const codeZoneNotString = 40517

// dateToPartsExpr is {$dateToParts: {date, timezone, iso8601}}.
type dateToPartsExpr struct {
	date, tz, iso Expr
}

func parseDateToParts(arg any, depth pdepth) (Expr, error) {
	a, err := parseNamedArgs("$dateToParts", arg, depth, namedArgs{
		notObject: 40524, unknown: 40520, missing: []int{40522},
		required: []string{"date"}, optional: []string{"timezone", "iso8601"},
		unknownMsg: "Unrecognized argument to $dateToParts: %s",
	})
	if err != nil {
		return nil, err
	}
	return dateToPartsExpr{date: a["date"], tz: a["timezone"], iso: a["iso8601"]}, nil
}

// Eval follows mongod's order: the time zone and iso8601 are read (and
// refused) before a null date gives null.
func (x dateToPartsExpr) Eval(e *Env) (any, error) {
	dv, err := x.date.Eval(e)
	if err != nil {
		return nil, err
	}
	loc, null, err := evalZone(x.tz, e, codeZoneNotString)
	if err != nil || null {
		return nil, err
	}
	iso := false
	if x.iso != nil {
		v, err := x.iso.Eval(e)
		if err != nil || nullish(v) {
			return nil, err
		}
		b, ok := v.(bool)
		if !ok {
			return nil, document.Errorf(document.Code(40521), "iso8601 must evaluate to a bool, found %s", document.TypeName(v))
		}
		iso = b
	}
	if nullish(dv) {
		return nil, nil
	}
	t, err := coerceDate(dv)
	if err != nil {
		return nil, err
	}
	t = t.In(loc)
	clock := bson.D{
		{Key: "hour", Value: int32(t.Hour())},
		{Key: "minute", Value: int32(t.Minute())},
		{Key: "second", Value: int32(t.Second())},
		{Key: "millisecond", Value: int32(t.Nanosecond() / 1e6)},
	}
	if iso {
		y, w := t.ISOWeek()
		return append(bson.D{
			{Key: "isoWeekYear", Value: int32(y)},
			{Key: "isoWeek", Value: int32(w)},
			{Key: "isoDayOfWeek", Value: int32(isoWeekday(t))},
		}, clock...), nil
	}
	return append(bson.D{
		{Key: "year", Value: int32(t.Year())},
		{Key: "month", Value: int32(t.Month())},
		{Key: "day", Value: int32(t.Day())},
	}, clock...), nil
}

// dateFromPartsExpr is {$dateFromParts: {year, month, day, hour, minute,
// second, millisecond, timezone}} or its ISO form with isoWeekYear,
// isoWeek and isoDayOfWeek in place of year, month and day.
type dateFromPartsExpr struct {
	parts map[string]Expr
	iso   bool
}

var dateFromPartsArgs = []string{"year", "month", "day", "hour", "minute", "second", "millisecond",
	"isoWeekYear", "isoWeek", "isoDayOfWeek", "timezone"}

func parseDateFromParts(arg any, depth pdepth) (Expr, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(40519), "$dateFromParts only supports an object as its argument")
	}
	a, err := namedExprs(d, depth, dateFromPartsArgs, func(name string) error {
		return document.Errorf(document.Code(40518), "Unrecognized argument to $dateFromParts: %s", name)
	})
	if err != nil {
		return nil, err
	}
	has := func(names ...string) bool {
		for _, n := range names {
			if a[n] != nil {
				return true
			}
		}
		return false
	}
	switch {
	case !has("year", "isoWeekYear"):
		return nil, document.Errorf(document.Code(40516), "$dateFromParts requires either 'year' or 'isoWeekYear' to be present")
	case has("year") && has("isoWeekYear", "isoWeek", "isoDayOfWeek"):
		return nil, document.Errorf(document.Code(40489), "$dateFromParts does not allow mixing natural dates with ISO dates")
	case has("isoWeekYear") && has("year", "month", "day"):
		return nil, document.Errorf(document.Code(40525), "$dateFromParts does not allow mixing ISO dates with natural dates")
	}
	return dateFromPartsExpr{parts: a, iso: a["isoWeekYear"] != nil}, nil
}

// datePartBound is mongod's bound on the parts that carry over into the
// next larger unit (all but second and millisecond): a 16-bit integer.
const datePartBound = 1 << 15

// part evaluates one part: def when absent, null reported for null or
// missing; a part that is not a whole 64-bit number is 40515, and a
// bounded one outside [-32768, 32767] is 31034.
func (x dateFromPartsExpr) part(e *Env, name string, def int64, bounded bool) (n int64, null bool, err error) {
	p := x.parts[name]
	if p == nil {
		return def, false, nil
	}
	v, err := p.Eval(e)
	if err != nil || nullish(v) {
		return 0, true, err
	}
	n, ok := int64Value(v)
	if !ok {
		return 0, false, document.Errorf(document.Code(40515), "'%s' must evaluate to an integer, found %s with value %s", name, document.TypeName(v), document.Format(v))
	}
	if bounded && (n < -datePartBound || n >= datePartBound) {
		return 0, false, document.Errorf(document.Code(31034), "'%s' must evaluate to a value in the range [-32768, 32767]; value %d is not in range", name, n)
	}
	return n, false, nil
}

// Eval reads the parts in mongod's order (the clock, the time zone, then
// the date), so the first refusal is the one mongod gives. Parts past
// their range carry over into the next unit as mongod's do: month 14 is
// February of the next year, day 0 the last day of the month before,
// second 3600 an hour later; the carrying happens on the zone's clock.
func (x dateFromPartsExpr) Eval(e *Env) (any, error) {
	clock := [4]int64{}
	for i, p := range []struct {
		name    string
		bounded bool
	}{{"hour", true}, {"minute", true}, {"second", false}, {"millisecond", false}} {
		n, null, err := x.part(e, p.name, 0, p.bounded)
		if err != nil || null {
			return nil, err
		}
		clock[i] = n
	}
	loc, null, err := evalZone(x.parts["timezone"], e, codeZoneNotString)
	if err != nil || null {
		return nil, err
	}
	names, yearCode := [3]string{"year", "month", "day"}, 40523
	if x.iso {
		names, yearCode = [3]string{"isoWeekYear", "isoWeek", "isoDayOfWeek"}, 31095
	}
	var date [3]int64
	for i, name := range names {
		def := int64(1)
		if i == 0 {
			def = 1970
		}
		n, null, err := x.part(e, name, def, i > 0)
		if err != nil || null {
			return nil, err
		}
		date[i] = n
	}
	if date[0] < 1 || date[0] > 9999 {
		return nil, document.Errorf(document.Code(yearCode), "'%s' must evaluate to an integer in the range 1 to 9999, found %d", names[0], date[0])
	}
	year, month, day := int(date[0]), time.Month(date[1]), int(date[2])
	if x.iso {
		// Week 1 is the week (from Monday) that holds January 4.
		jan4 := time.Date(year, 1, 4, 0, 0, 0, 0, time.UTC)
		month, day = time.January, 4-(isoWeekday(jan4)-1)+int(date[1]-1)*7+int(date[2]-1)
	}
	return fromParts(year, month, day, clock, loc)
}

// maxDateSeconds is the most seconds from the epoch whose milliseconds a
// 64-bit count holds.
const maxDateSeconds = math.MaxInt64 / 1000

// fromParts is the date with the parts on loc's clock; hour and minute
// are bounded by the caller, second and millisecond may be any 64-bit
// numbers: mongod counts the milliseconds in microseconds and the result
// in milliseconds, and a count that overflows is 159 DurationOverflow.
func fromParts(year int, month time.Month, day int, clock [4]int64, loc *time.Location) (any, error) {
	overflow := document.Errorf(document.CodeDurationOverflow, "Overflow casting from a lower-precision duration to a higher-precision duration")
	ms := clock[3]
	if ms > math.MaxInt64/1000 || ms < math.MinInt64/1000 {
		return nil, overflow
	}
	sec := clock[2]
	carry := floorDiv(ms, 1000)
	if (carry > 0 && sec > math.MaxInt64-carry) || (carry < 0 && sec < math.MinInt64-carry) {
		return nil, overflow
	}
	sec += carry
	// Past this many seconds no date of years 1 to 9999 comes back into
	// range, and time.Date would lose them.
	if sec > 2*maxDateSeconds || sec < -2*maxDateSeconds {
		return nil, overflow
	}
	t := time.Date(year, month, day, int(clock[0]), int(clock[1]), int(sec), int(ms-carry*1000)*1e6, loc)
	if u := t.Unix(); u > maxDateSeconds || u < -maxDateSeconds {
		return nil, overflow
	}
	return bson.NewDateTimeFromTime(t), nil
}

// opTsSecond is $tsSecond: a timestamp's seconds, as a long.
func opTsSecond(args []any) (any, error) {
	return tsPart(args[0], "$tsSecond", 5687301, func(ts bson.Timestamp) uint32 { return ts.T })
}

// opTsIncrement is $tsIncrement: a timestamp's increment, as a long.
func opTsIncrement(args []any) (any, error) {
	return tsPart(args[0], "$tsIncrement", 5687302, func(ts bson.Timestamp) uint32 { return ts.I })
}

func tsPart(v any, op string, code int, part func(bson.Timestamp) uint32) (any, error) {
	if nullish(v) {
		return nil, nil
	}
	ts, ok := v.(bson.Timestamp)
	if !ok {
		return nil, document.Errorf(document.Code(code), " Argument to %s must be a timestamp, but is %s", op, document.TypeName(v))
	}
	return int64(part(ts)), nil
}

func addDateOps() {
	listOps["$tsSecond"] = opSpec{1, 1, opTsSecond}
	listOps["$tsIncrement"] = opSpec{1, 1, opTsIncrement}
}
