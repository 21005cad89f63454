package agg

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

const codeConversionFailure = document.Code(241)

// dateParts are the date extraction operators.
var dateParts = map[string]func(t time.Time) any{
	"$year":        func(t time.Time) any { return int32(t.Year()) },
	"$month":       func(t time.Time) any { return int32(t.Month()) },
	"$dayOfMonth":  func(t time.Time) any { return int32(t.Day()) },
	"$hour":        func(t time.Time) any { return int32(t.Hour()) },
	"$minute":      func(t time.Time) any { return int32(t.Minute()) },
	"$second":      func(t time.Time) any { return int32(t.Second()) },
	"$millisecond": func(t time.Time) any { return int32(t.Nanosecond() / 1e6) },
	"$dayOfWeek":   func(t time.Time) any { return int32(t.Weekday()) + 1 },
	"$dayOfYear":   func(t time.Time) any { return int32(t.YearDay()) },
	"$week":        func(t time.Time) any { return int32(sundayWeek(t)) },
	"$isoWeek": func(t time.Time) any {
		_, w := t.ISOWeek()
		return int32(w)
	},
	// $isoWeekYear is a long in mongod, unlike its siblings.
	"$isoWeekYear": func(t time.Time) any {
		y, _ := t.ISOWeek()
		return int64(y)
	},
	"$isoDayOfWeek": func(t time.Time) any { return int32(isoWeekday(t)) },
}

// sundayWeek is t's week of the year for $week and %U: weeks start on
// Sunday and the days before the year's first Sunday are week 0, as
// mongod (and strftime) counts them.
func sundayWeek(t time.Time) int { return (t.YearDay() - int(t.Weekday()) + 6) / 7 }

// isoWeekday is t's day of the week from Monday (1) to Sunday (7).
func isoWeekday(t time.Time) int {
	if w := t.Weekday(); w != time.Sunday {
		return int(w)
	}
	return 7
}

type datePartExpr struct {
	name string
	date Expr
	tz   Expr // nil: UTC
	fn   func(time.Time) any
}

func parseDatePart(name string, fn func(time.Time) any, arg any, depth pdepth) (Expr, error) {
	e := datePartExpr{name: name, fn: fn}
	var err error
	if d, ok := arg.(bson.D); ok && len(d) > 0 && !strings.HasPrefix(d[0].Key, "$") {
		for _, el := range d {
			switch el.Key {
			case "date":
				e.date, err = parseExpr(el.Value, depth.deeper())
			case "timezone":
				e.tz, err = parseExpr(el.Value, depth.deeper())
			default:
				return nil, document.Errorf(document.Code(40535), "unrecognized option to %s: \"%s\"", name, el.Key)
			}
			if err != nil {
				return nil, err
			}
		}
		if e.date == nil {
			return nil, document.Errorf(document.Code(40539), "missing 'date' argument to %s, provided: %s", name, document.Format(d))
		}
		return e, nil
	}
	if a, ok := arg.(bson.A); ok {
		if len(a) != 1 {
			return nil, document.Errorf(codeExpressionArity, "Expression %s takes exactly 1 arguments. %d were passed in.", name, len(a))
		}
		arg = a[0]
	}
	e.date, err = parseExpr(arg, depth.deeper())
	return e, err
}

func (d datePartExpr) Eval(e *Env) (any, error) {
	t, null, err := evalDate(d.name, d.date, e)
	if err != nil || null {
		return nil, err
	}
	loc := time.UTC
	if d.tz != nil {
		v, err := d.tz.Eval(e)
		if err != nil || nullish(v) {
			return nil, err
		}
		s, ok := v.(string)
		if !ok {
			return nil, document.Errorf(document.Code(40533), "%s requires a string for the timezone argument, but was given a %s (%s)", d.name, document.TypeName(v), valueString(v))
		}
		if loc, err = parseTZ(s); err != nil {
			return nil, err
		}
	}
	return d.fn(t.In(loc)), nil
}

// evalDate evaluates a date argument; null reports null or missing.
func evalDate(op string, x Expr, e *Env) (t time.Time, null bool, err error) {
	v, err := x.Eval(e)
	if err != nil {
		return time.Time{}, false, err
	}
	if nullish(v) {
		return time.Time{}, true, nil
	}
	t, err = coerceDate(v)
	return t, false, err
}

// dateOf reads v as a date as mongod's coercibleToDate does: a date, a
// timestamp (its seconds) or an ObjectId (its creation second).
func dateOf(v any) (time.Time, bool) {
	switch d := v.(type) {
	case bson.DateTime:
		return d.Time().UTC(), true
	case bson.ObjectID:
		return d.Timestamp().UTC(), true
	case bson.Timestamp:
		return time.Unix(int64(d.T), 0).UTC(), true
	}
	return time.Time{}, false
}

// coerceDate is dateOf with mongod's refusal of anything else (16006).
func coerceDate(v any) (time.Time, error) {
	if t, ok := dateOf(v); ok {
		return t, nil
	}
	return time.Time{}, document.Errorf(document.Code(16006), "can't convert from BSON type %s to Date", document.TypeName(v))
}

// evalZone evaluates a timezone argument (nil: UTC); null reports null
// or missing, and a non-string is refused with code: mongod's
// $dateToParts, $dateFromParts and $dateFromString use 40517 where the
// date part operators use 40533.
func evalZone(x Expr, e *Env, code int) (*time.Location, bool, error) {
	if x == nil {
		return time.UTC, false, nil
	}
	v, err := x.Eval(e)
	if err != nil {
		return nil, false, err
	}
	if nullish(v) {
		return nil, true, nil
	}
	s, ok := v.(string)
	if !ok {
		return nil, false, document.Errorf(document.Code(code), "timezone must evaluate to a string, found %s", document.TypeName(v))
	}
	loc, err := parseTZ(s)
	if err != nil {
		return nil, false, err
	}
	return loc, false, nil
}

// parseTZ accepts "UTC", "Z", Olson names known to the system and
// offsets "+hh", "+hhmm", "+hh:mm".
func parseTZ(s string) (*time.Location, error) {
	if s == "UTC" {
		return time.UTC, nil
	}
	if s != "" && (s[0] == '+' || s[0] == '-') {
		// Exactly ±HH, ±HHMM or ±HH:MM, as mongod reads an offset; it
		// checks no range (+24:00 is a day ahead).
		var hh, mm string
		switch b := s[1:]; {
		case len(b) == 2:
			hh = b
		case len(b) == 4:
			hh, mm = b[:2], b[2:]
		case len(b) == 5 && b[2] == ':':
			hh, mm = b[:2], b[3:]
		}
		if allDigits(hh) && (mm == "" || allDigits(mm)) {
			h, _ := strconv.Atoi(hh)
			m := 0
			if mm != "" {
				m, _ = strconv.Atoi(mm)
			}
			off := h*3600 + m*60
			if s[0] == '-' {
				off = -off
			}
			return time.FixedZone(s, off), nil
		}
		return nil, document.Errorf(document.Code(40485), "unrecognized time zone identifier: \"%s\"", s)
	}
	// A name of the zone database; GMT is one of them, not UTC itself.
	loc, err := time.LoadLocation(s)
	if err != nil || s == "" || s == "Local" {
		return nil, document.Errorf(document.Code(40485), "unrecognized time zone identifier: \"%s\"", s)
	}
	return loc, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

type dateTruncExpr struct {
	date, unit, bin, tz, startOfWeek Expr
}

func parseDateTrunc(arg any, depth pdepth) (Expr, error) {
	a, err := parseNamedArgs("$dateTrunc", arg, depth, namedArgs{
		notObject: 5439007, unknown: 5439008, missing: []int{5439009, 5439010},
		required: []string{"date", "unit"}, optional: []string{"binSize", "timezone", "startOfWeek"},
		unknownMsg: "Unrecognized argument to $dateTrunc: %s. Expected arguments are date, unit, and optionally, binSize, timezone, startOfWeek",
	})
	if err != nil {
		return nil, err
	}
	return dateTruncExpr{date: a["date"], unit: a["unit"], bin: a["binSize"], tz: a["timezone"], startOfWeek: a["startOfWeek"]}, nil
}

// namedArgs describes an operator taking {name: expression} arguments,
// with the server's codes for each kind of mistake.
type namedArgs struct {
	notObject, unknown int
	missing            []int // one code per required argument
	required, optional []string
	unknownMsg         string // format with the unknown name
}

// parseNamedArgs parses an operator's object argument into expressions
// by name.
func parseNamedArgs(op string, arg any, depth pdepth, spec namedArgs) (map[string]Expr, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(spec.notObject), "%s only supports an object as its argument", op)
	}
	out, err := namedExprs(d, depth, slices.Concat(spec.required, spec.optional), func(name string) error {
		return document.Errorf(document.Code(spec.unknown), spec.unknownMsg, name)
	})
	if err != nil {
		return nil, err
	}
	for i, name := range spec.required {
		if out[name] == nil {
			return nil, document.Errorf(document.Code(spec.missing[i]), "Missing '%s' parameter to %s", name, op)
		}
	}
	return out, nil
}

// namedExprs parses the fields of an operator's object argument, each
// an expression, by name; a name not in known is refused with unknown's
// error.
func namedExprs(d bson.D, depth pdepth, known []string, unknown func(name string) error) (map[string]Expr, error) {
	out := map[string]Expr{}
	for _, el := range d {
		if !slices.Contains(known, el.Key) {
			return nil, unknown(el.Key)
		}
		x, err := parseExpr(el.Value, depth.deeper())
		if err != nil {
			return nil, err
		}
		out[el.Key] = x
	}
	return out, nil
}

var weekdays = map[string]time.Weekday{
	"sunday": time.Sunday, "sun": time.Sunday, "monday": time.Monday, "mon": time.Monday,
	"tuesday": time.Tuesday, "tue": time.Tuesday, "wednesday": time.Wednesday, "wed": time.Wednesday,
	"thursday": time.Thursday, "thu": time.Thursday, "friday": time.Friday, "fri": time.Friday,
	"saturday": time.Saturday, "sat": time.Saturday,
}

// Eval truncates the date to the start of its bin; bins of binSize units
// count from 2000-01-01T00:00:00 in the time zone, as MongoDB's do.
func (d dateTruncExpr) Eval(e *Env) (any, error) {
	// As mongod: a null or missing argument gives null before any is
	// judged; then the date, the unit, binSize and startOfWeek are
	// judged in that order.
	dv, err := d.date.Eval(e)
	if err != nil || nullish(dv) {
		return nil, err
	}
	uv, err := d.unit.Eval(e)
	if err != nil || nullish(uv) {
		return nil, err
	}
	var bv any
	if d.bin != nil {
		if bv, err = d.bin.Eval(e); err != nil || nullish(bv) {
			return nil, err
		}
	}
	var sv any
	weekly := d.startOfWeek != nil && uv == "week"
	if weekly {
		if sv, err = d.startOfWeek.Eval(e); err != nil || nullish(sv) {
			return nil, err
		}
	}
	loc, null, err := evalZone(d.tz, e, codeZoneNotString)
	if err != nil || null {
		return nil, zoneContext("$dateTrunc", err)
	}
	t, ok := dateOf(dv)
	if !ok {
		return nil, document.Errorf(document.Code(5439012), "$dateTrunc requires 'date' to be a date, but got %s", document.TypeName(dv))
	}
	unit, err := timeUnit("$dateTrunc", uv)
	if err != nil {
		return nil, err
	}
	bin := int64(1)
	if d.bin != nil {
		f := query.ToFloat(bv)
		if !document.IsNumber(bv) || f != math.Trunc(f) || f < -(1<<63) || f >= 1<<63 {
			return nil, document.Errorf(document.Code(5439017), "$dateTrunc requires 'binSize' to be a 64-bit integer, but got value '%s' of type %s", valueString(bv), document.TypeName(bv))
		}
		if f <= 0 {
			return nil, document.Errorf(document.Code(5439018), "$dateTrunc requires 'binSize' to be greater than 0, but got value %d", int64(f))
		}
		bin = int64(f)
	}
	start := time.Sunday
	if weekly {
		if start, err = dayOfWeek("$dateTrunc", sv); err != nil {
			return nil, err
		}
	}
	switch unit {
	case "year", "quarter", "month", "week", "day":
		if bin > 1e11 {
			return nil, document.Errorf(document.Code(5439006), "dateTrunc unsupported binSize value")
		}
	case "hour", "minute", "second", "millisecond":
		step := map[string]int64{"hour": 3600000, "minute": 60000, "second": 1000, "millisecond": 1}[unit]
		if bin > math.MaxInt64/step {
			return nil, document.Errorf(document.Code(5439002), "dateTrunc overflowed")
		}
	}
	lt := t.In(loc)
	ref := localDate(2000, 1, 1, 0, 0, 0, 0, loc)
	var out time.Time
	switch unit {
	case "year", "quarter", "month":
		per := map[string]int64{"year": 12, "quarter": 3, "month": 1}[unit] * bin
		months := int64(lt.Year()-2000)*12 + int64(lt.Month()-1)
		months = floorDiv(months, per) * per
		out = localDate(2000+int(floorDiv(months, 12)), time.Month(months-floorDiv(months, 12)*12+1), 1, 0, 0, 0, 0, loc)
	case "week":
		// The first week starts on the first startOfWeek on or after 2000-01-01.
		ref = localDate(2000, 1, 1+(int(start)-int(ref.Weekday())+7)%7, 0, 0, 0, 0, loc)
		out = truncDays(lt, ref, 7*bin, loc)
	case "day":
		out = truncDays(lt, ref, bin, loc)
	case "hour", "minute", "second", "millisecond":
		step := map[string]time.Duration{"hour": time.Hour, "minute": time.Minute, "second": time.Second, "millisecond": time.Millisecond}[unit]
		span := int64(step/time.Millisecond) * bin
		refMS := ref.UnixMilli()
		ms := lt.UnixMilli()
		out = time.UnixMilli(refMS + floorDiv(ms-refMS, span)*span)
	}
	if out.Before(minBSONDate) || out.After(maxBSONDate) {
		// The bin starts before the first date BSON holds (or after
		// the last): mongod's dateAdd overflows computing it.
		return nil, document.Errorf(document.Code(5166406), "dateAdd overflowed")
	}
	return bson.NewDateTimeFromTime(out), nil
}

// dayOfWeek reads a startOfWeek argument of op as mongod's
// parseDayOfWeek does: a string (5439015) naming a day in full or in
// three letters, in any case (5439016).
func dayOfWeek(op string, v any) (time.Weekday, error) {
	s, ok := v.(string)
	if !ok {
		return 0, document.Errorf(document.Code(5439015), "%s requires 'startOfWeek' to be a string, but got %s", op, document.TypeName(v))
	}
	w, ok := weekdays[strings.ToLower(s)]
	if !ok {
		return 0, document.Errorf(document.Code(5439016), "%s parameter 'startOfWeek' value cannot be recognized as a day of a week: %s", op, s)
	}
	return w, nil
}

// zoneContext puts op's context before a failure to read its time zone,
// keeping the code, as mongod's $dateDiff and $dateTrunc do.
func zoneContext(op string, err error) error {
	var de *document.Error
	if !errors.As(err, &de) {
		return err
	}
	return &document.Error{Code: de.Code, Message: op + " parameter 'timezone' value parsing failed :: caused by :: " + de.Message}
}

// minBSONDate and maxBSONDate are the first and last instants a BSON
// date holds.
var minBSONDate, maxBSONDate = time.UnixMilli(math.MinInt64), time.UnixMilli(math.MaxInt64)

// truncDays truncates to bins of n calendar days counted from ref,
// counting days by the calendar (any distance from ref, unlike a
// time.Duration's ±292 years).
func truncDays(t, ref time.Time, n int64, loc *time.Location) time.Time {
	civil := func(x time.Time) int64 {
		return floorDiv(time.Date(x.Year(), x.Month(), x.Day(), 0, 0, 0, 0, time.UTC).Unix(), 86400)
	}
	days := civil(t) - civil(ref)
	// A midnight a change of clock skips moves forward, as timelib
	// moves it (Sao Paulo's 2018-11-04 starts at 01:00).
	return localDate(ref.Year(), ref.Month(), ref.Day()+int(floorDiv(days, n)*n), 0, 0, 0, 0, loc)
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

type dateToStringExpr struct {
	date, format, tz, onNull Expr
}

func parseDateToString(arg any, depth pdepth) (Expr, error) {
	a, err := parseNamedArgs("$dateToString", arg, depth, namedArgs{
		notObject: 18629, unknown: 18534, missing: []int{18628},
		required: []string{"date"}, optional: []string{"format", "timezone", "onNull"},
		unknownMsg: "Unrecognized argument to $dateToString: %s",
	})
	if err != nil {
		return nil, err
	}
	return dateToStringExpr{date: a["date"], format: a["format"], tz: a["timezone"], onNull: a["onNull"]}, nil
}

func (d dateToStringExpr) Eval(e *Env) (any, error) {
	// mongod's order: the format is checked and the timezone read
	// first; then a null or missing date gives onNull, even when the
	// format or timezone is null; then a null format or timezone gives
	// null; only then must the date be one.
	dv, err := d.date.Eval(e)
	if err != nil {
		return nil, err
	}
	format := "%Y-%m-%dT%H:%M:%S.%LZ"
	nullArg := false
	if d.format != nil {
		fv, err := d.format.Eval(e)
		if err != nil {
			return nil, err
		}
		if nullish(fv) {
			nullArg = true
		} else {
			s, ok := fv.(string)
			if !ok {
				return nil, document.Errorf(document.Code(18533), "$dateToString requires that 'format' be a string, found: %s with value %s", document.TypeName(fv), valueString(fv))
			}
			if _, err := formatDate(time.Unix(0, 0).UTC(), s); err != nil {
				return nil, err
			}
			format = s
		}
	}
	loc, null, err := evalZone(d.tz, e, codeZoneNotString)
	if err != nil {
		return nil, err
	}
	if nullish(dv) {
		if d.onNull != nil {
			return d.onNull.Eval(e)
		}
		return nil, nil
	}
	if null || nullArg {
		return nil, nil
	}
	t, err := coerceDate(dv)
	if err != nil {
		return nil, err
	}
	return formatDate(t.In(loc), format)
}

// errYearRange is mongod's refusal to print a year outside 0-9999.
func errYearRange() error {
	return document.Errorf(document.Code(18537), "Could not convert date to string: date component was outside the supported range of 0-9999")
}

func formatDate(t time.Time, format string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		if i+1 == len(format) {
			return "", document.Errorf(document.Code(18535), "Unmatched '%%' at end of format string")
		}
		i++
		switch format[i] {
		case 'Y':
			if t.Year() < 0 || t.Year() > 9999 {
				return "", errYearRange()
			}
			fmt.Fprintf(&b, "%04d", t.Year())
		case 'm':
			fmt.Fprintf(&b, "%02d", int(t.Month()))
		case 'd':
			fmt.Fprintf(&b, "%02d", t.Day())
		case 'H':
			fmt.Fprintf(&b, "%02d", t.Hour())
		case 'M':
			fmt.Fprintf(&b, "%02d", t.Minute())
		case 'S':
			fmt.Fprintf(&b, "%02d", t.Second())
		case 'L':
			fmt.Fprintf(&b, "%03d", t.Nanosecond()/1e6)
		case 'j':
			fmt.Fprintf(&b, "%03d", t.YearDay())
		case 'w':
			fmt.Fprintf(&b, "%d", int(t.Weekday())+1)
		case 'u':
			fmt.Fprintf(&b, "%d", isoWeekday(t))
		case 'U':
			fmt.Fprintf(&b, "%02d", sundayWeek(t))
		case 'b':
			b.WriteString(t.Month().String()[:3])
		case 'B':
			b.WriteString(t.Month().String())
		case 'G':
			y, _ := t.ISOWeek()
			if y < 0 || y > 9999 {
				return "", errYearRange()
			}
			fmt.Fprintf(&b, "%04d", y)
		case 'V':
			_, w := t.ISOWeek()
			fmt.Fprintf(&b, "%02d", w)
		case 'z':
			b.WriteString(t.Format("-0700"))
		case 'Z':
			_, off := t.Zone()
			fmt.Fprintf(&b, "%d", off/60)
		case '%':
			b.WriteByte('%')
		default:
			return "", document.Errorf(document.Code(18536), "Invalid format character '%%%c' in format string", format[i])
		}
	}
	return b.String(), nil
}
