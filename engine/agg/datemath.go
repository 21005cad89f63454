package agg

import (
	"math"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $dateAdd, $dateSubtract and $dateDiff: date arithmetic in calendar
// units, in a time zone (docs/aggregation.md, "Date arithmetic").

// dateMathExpr is {$dateAdd or $dateSubtract: {startDate, unit, amount,
// timezone}}.
type dateMathExpr struct {
	op                      string
	start, unit, amount, tz Expr
	sub                     bool
}

func parseDateMath(op string, arg any, depth pdepth) (Expr, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(5166400), "%s expects an object as its argument", op)
	}
	a, err := namedExprs(d, depth, []string{"startDate", "unit", "amount", "timezone"}, func(name string) error {
		return document.Errorf(document.Code(5166401), "Unrecognized argument to %s: %s. Expected arguments are startDate, unit, amount, and optionally timezone.", op, name)
	})
	if err != nil {
		return nil, err
	}
	x := dateMathExpr{op: op, sub: op == "$dateSubtract", start: a["startDate"], unit: a["unit"], amount: a["amount"], tz: a["timezone"]}
	if x.start == nil || x.unit == nil || x.amount == nil {
		return nil, document.Errorf(document.Code(5166402), "%s requires startDate, unit, and amount to be present", op)
	}
	return x, nil
}

// timeUnit reads a unit argument as mongod's parseTimeUnit does.
func timeUnit(op string, v any) (string, error) {
	s, ok := v.(string)
	if !ok {
		return "", document.Errorf(document.Code(5439013), "%s requires 'unit' to be a string, but got %s", op, document.TypeName(v))
	}
	switch s {
	case "year", "quarter", "month", "week", "day", "hour", "minute", "second", "millisecond":
		return s, nil
	}
	return "", document.Errorf(document.Code(5439014), "%s parameter 'unit' value cannot be recognized as a time unit: %s", op, s)
}

// Eval follows mongod: null if startDate, unit, amount or timezone is
// null or missing; then the date must be one (or a timestamp or an
// ObjectId), the unit a unit and the amount a whole 64-bit number, in
// that order.
func (x dateMathExpr) Eval(e *Env) (any, error) {
	sv, err := x.start.Eval(e)
	if err != nil || nullish(sv) {
		return nil, err
	}
	uv, err := x.unit.Eval(e)
	if err != nil || nullish(uv) {
		return nil, err
	}
	av, err := x.amount.Eval(e)
	if err != nil || nullish(av) {
		return nil, err
	}
	loc, null, err := evalZone(x.tz, e, codeZoneNotString)
	if err != nil || null {
		return nil, err
	}
	t, ok := dateOf(sv)
	if !ok {
		return nil, document.Errorf(document.Code(5166403), "%s requires startDate to be convertible to a date", x.op)
	}
	// The unit is checked only now, and not as $dateDiff and $dateTrunc
	// check theirs: 5166404 for a unit that is not a string, 9 for one
	// that is not a unit.
	us, ok := uv.(string)
	if !ok {
		return nil, document.Errorf(document.Code(5166404), "%s expects string defining the time unit", x.op)
	}
	unit, err := timeUnit(x.op, us)
	if err != nil {
		return nil, document.Errorf(document.CodeFailedToParse, "unknown time unit value: %s", us)
	}
	amount, ok := int64Value(av)
	if !ok {
		return nil, document.Errorf(document.Code(5166405), "%s expects integer amount of time units", x.op)
	}
	if x.sub {
		if amount == math.MinInt64 {
			return nil, document.Errorf(document.Code(6045000), "invalid $dateSubtract 'amount' parameter value: %d", amount)
		}
		amount = -amount
	}
	if lim, ok := maxDateAddAmount[unit]; ok && (amount > lim || amount < -lim) {
		return nil, document.Errorf(document.Code(5976500), "invalid dateAdd 'amount' parameter value: %d %s", amount, unit) // mongod's dateAdd words it, for $dateSubtract too
	}
	out, ok := dateAdd(t, unit, amount, loc)
	if !ok {
		return nil, document.Errorf(document.Code(5166406), "dateAdd overflowed")
	}
	return bson.NewDateTimeFromTime(out), nil
}

// maxDateAddAmount is the largest amount of each unit $dateAdd takes
// before computing, as mongod checks it: what spans the 2^64
// milliseconds a date has (a year of 365 days, a quarter and a month
// from it). A smaller amount can still overflow: 5166406.
var maxDateAddAmount = map[string]int64{
	"year": 584942417, "quarter": 584942417 * 4, "month": 584942417 * 12,
	"week": 30500568904, "day": 213503982334, "hour": 5124095576030,
	"minute": 307445734561825, "second": 18446744073709551,
}

// maxDateMS bounds the dates dateAdd gives (about ±292 million years,
// what a 64-bit count of milliseconds holds, with room to spare).
const maxDateMS = 1 << 62

// dateAdd adds amount units to t as mongod does: hours and smaller as
// elapsed time; days and weeks as calendar days in loc (the same wall
// time, across a change of clock); months, quarters and years as
// calendar months in loc, a day past the end of the month going back
// to its last day (January 31 plus one month is the end of February).
func dateAdd(t time.Time, unit string, amount int64, loc *time.Location) (time.Time, bool) {
	ms := t.UnixMilli()
	step := map[string]int64{"millisecond": 1, "second": 1000, "minute": 60_000, "hour": 3_600_000}[unit]
	if step != 0 {
		if amount > maxDateMS/step || amount < -maxDateMS/step {
			return time.Time{}, false
		}
		r := ms + amount*step
		if r > maxDateMS || r < -maxDateMS {
			return time.Time{}, false
		}
		return time.UnixMilli(r).UTC(), true
	}
	lt := t.In(loc)
	switch unit {
	case "week", "day":
		days := amount
		if unit == "week" {
			if amount > maxDateMS/7 || amount < -maxDateMS/7 {
				return time.Time{}, false
			}
			days *= 7
		}
		if days > 1<<40 || days < -(1<<40) {
			return time.Time{}, false
		}
		out := localDate(lt.Year(), lt.Month(), lt.Day()+int(days), lt.Hour(), lt.Minute(), lt.Second(), lt.Nanosecond(), loc)
		return out.UTC(), inDateRange(out)
	}
	months := amount * map[string]int64{"month": 1, "quarter": 3, "year": 12}[unit]
	if amount > 1<<36 || amount < -(1<<36) {
		return time.Time{}, false
	}
	total := int64(lt.Year())*12 + int64(lt.Month()-1) + months
	y, m := floorDiv(total, 12), time.Month(total-floorDiv(total, 12)*12+1)
	last := time.Date(int(y), m+1, 0, 0, 0, 0, 0, loc).Day()
	out := localDate(int(y), m, min(lt.Day(), last), lt.Hour(), lt.Minute(), lt.Second(), lt.Nanosecond(), loc)
	return out.UTC(), inDateRange(out)
}

// inDateRange reports whether t is a date a BSON date holds with room to
// spare (its year within about ±146 million, where maxDateMS falls),
// checked on the year first since far dates overflow UnixMilli.
func inDateRange(t time.Time) bool {
	if y := t.Year(); y > 146_000_000 || y < -146_000_000 {
		return false
	}
	ms := t.UnixMilli()
	return ms <= maxDateMS && ms >= -maxDateMS
}

// dateDiffExpr is {$dateDiff: {startDate, endDate, unit, timezone,
// startOfWeek}}.
type dateDiffExpr struct {
	start, end, unit, tz, startOfWeek Expr
}

func parseDateDiff(arg any, depth pdepth) (Expr, error) {
	a, err := parseNamedArgs("$dateDiff", arg, depth, namedArgs{
		notObject: 5166301, unknown: 5166302, missing: []int{5166303, 5166304, 5166305},
		required: []string{"startDate", "endDate", "unit"}, optional: []string{"timezone", "startOfWeek"},
		unknownMsg: "Unrecognized argument to $dateDiff: %s",
	})
	if err != nil {
		return nil, err
	}
	return dateDiffExpr{start: a["startDate"], end: a["endDate"], unit: a["unit"], tz: a["timezone"], startOfWeek: a["startOfWeek"]}, nil
}

// diffDate reads one of $dateDiff's dates.
func diffDate(name string, v any) (time.Time, error) {
	if t, ok := dateOf(v); ok {
		return t, nil
	}
	return time.Time{}, document.Errorf(document.Code(5166307), "$dateDiff requires '%s' to be a date, but got %s", name, document.TypeName(v))
}

// Eval counts the boundaries of unit crossed from startDate to endDate
// in the time zone, as mongod does: a year boundary between December 31
// and January 1 counts one year however few seconds apart they are;
// weeks start on startOfWeek (Sunday by default).
func (x dateDiffExpr) Eval(e *Env) (any, error) {
	sv, err := x.start.Eval(e)
	if err != nil || nullish(sv) {
		return nil, err
	}
	ev, err := x.end.Eval(e)
	if err != nil || nullish(ev) {
		return nil, err
	}
	uv, err := x.unit.Eval(e)
	if err != nil || nullish(uv) {
		return nil, err
	}
	var wv any
	weekly := x.startOfWeek != nil && uv == "week"
	if weekly {
		if wv, err = x.startOfWeek.Eval(e); err != nil || nullish(wv) {
			return nil, err
		}
	}
	loc, null, err := evalZone(x.tz, e, codeZoneNotString)
	if err != nil || null {
		return nil, zoneContext("$dateDiff", err)
	}
	a, err := diffDate("startDate", sv)
	if err != nil {
		return nil, err
	}
	b, err := diffDate("endDate", ev)
	if err != nil {
		return nil, err
	}
	unit, err := timeUnit("$dateDiff", uv)
	if err != nil {
		return nil, err
	}
	start := time.Sunday
	if weekly {
		if start, err = dayOfWeek("$dateDiff", wv); err != nil {
			return nil, err
		}
	}
	if unit == "millisecond" {
		// Elapsed time, whatever the zone, as mongod counts it.
		am, bm := a.UnixMilli(), b.UnixMilli()
		d := bm - am
		if (bm >= 0) != (am >= 0) && (d >= 0) != (bm >= 0) {
			return nil, document.Errorf(document.Code(5166308), "dateDiff overflowed")
		}
		return d, nil
	}
	return dateDiff(a.In(loc), b.In(loc), unit, start), nil
}

// dateDiff is the count of unit boundaries from a to b (negative when b
// is earlier), both in the zone to count in.
func dateDiff(a, b time.Time, unit string, startOfWeek time.Weekday) int64 {
	months := func(t time.Time) int64 { return int64(t.Year())*12 + int64(t.Month()-1) }
	// days counts calendar days from a fixed day, in t's zone.
	days := func(t time.Time) int64 {
		y, m, d := t.Date()
		return time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400
	}
	switch unit {
	case "year":
		return int64(b.Year() - a.Year())
	case "quarter":
		return floorDiv(months(b), 3) - floorDiv(months(a), 3)
	case "month":
		return months(b) - months(a)
	case "week":
		// Day 0 (1970-01-01) is a Thursday; shift so weeks start on startOfWeek.
		shift := (int64(time.Thursday) - int64(startOfWeek) + 7) % 7
		return floorDiv(days(b)+shift, 7) - floorDiv(days(a)+shift, 7)
	case "day":
		return days(b) - days(a)
	}
	step := map[string]int64{"hour": 3_600_000, "minute": 60_000, "second": 1000}[unit]
	// Hours, minutes and seconds count the boundaries of the zone's
	// wall time (an hour boundary in a zone with a half-hour offset
	// falls where its clock says), then, as mongod's do, take back a
	// change of the clock between the two in whole units: across a
	// change of an hour, 1:00 EDT to 1:00 EST is one hour.
	_, offA := a.Zone()
	_, offB := b.Zone()
	la := a.UnixMilli() + int64(offA)*1000
	lb := b.UnixMilli() + int64(offB)*1000
	return floorDiv(lb, step) - floorDiv(la, step) + int64(offA-offB)*1000/step
}
