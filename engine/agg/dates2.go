package agg

import (
	"errors"
	"math"
	"strings"
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
		return 0, false, document.Errorf(document.Code(40515), "'%s' must evaluate to an integer, found %s with value %s", name, document.TypeName(v), valueString(v))
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
	t := localDate(year, month, day, int(clock[0]), int(clock[1]), int(sec), int(ms-carry*1000)*1e6, loc)
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

// dateFromStringExpr is {$dateFromString: {dateString, format, timezone,
// onError, onNull}}.
type dateFromStringExpr struct {
	str, format, tz, onNull, onError Expr
}

func parseDateFromString(arg any, depth pdepth) (Expr, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(40540), "$dateFromString only supports an object as an argument, found: %s", document.TypeName(arg))
	}
	a, err := namedExprs(d, depth, []string{"dateString", "format", "timezone", "onNull", "onError"}, func(name string) error {
		return document.Errorf(document.Code(40541), "Unrecognized argument to $dateFromString: %s", name)
	})
	if err != nil {
		return nil, err
	}
	if a["dateString"] == nil {
		return nil, document.Errorf(document.Code(40542), "Missing 'dateString' parameter to $dateFromString")
	}
	return dateFromStringExpr{str: a["dateString"], format: a["format"], tz: a["timezone"], onNull: a["onNull"], onError: a["onError"]}, nil
}

// fromStringSpecifiers are the % specifiers $dateFromString reads, as
// mongod's: %w and %U, which $dateToString writes, are not among them.
const fromStringSpecifiers = "bBdGHjLmMSuVYzZ"

// Eval follows mongod's order: the format (40684, 18535, 18536) and the
// time zone (40517, 40485) are checked first, then a null or missing
// dateString gives onNull; a dateString that is not a string or cannot
// be read fails with 241 ConversionFailure, which onError replaces.
func (x dateFromStringExpr) Eval(e *Env) (any, error) {
	sv, err := x.str.Eval(e)
	if err != nil {
		return nil, err
	}
	format, formatNull := "", false
	if x.format != nil {
		fv, err := x.format.Eval(e)
		if err != nil {
			return nil, err
		}
		if formatNull = nullish(fv); !formatNull {
			s, ok := fv.(string)
			if !ok {
				return nil, document.Errorf(document.Code(40684), "$dateFromString requires that 'format' be a string, found: %s with value %s", document.TypeName(fv), valueString(fv))
			}
			if err := checkFormat(s, fromStringSpecifiers); err != nil {
				return nil, err
			}
			format = s
		}
	}
	loc, tzNull, err := evalZone(x.tz, e, codeZoneNotString)
	if err != nil {
		return nil, err
	}
	if nullish(sv) {
		if x.onNull != nil {
			return x.onNull.Eval(e)
		}
		return nil, nil
	}
	out, err := func() (any, error) {
		s, ok := sv.(string)
		if !ok {
			return nil, document.Errorf(codeConversionFailure, "$dateFromString requires that 'dateString' be a string, found: %s with value %s", document.TypeName(sv), valueString(sv))
		}
		if tzNull || formatNull {
			return nil, nil
		}
		return dateFromString(s, format, x.format != nil, loc)
	}()
	var de *document.Error
	if err != nil && x.onError != nil && errors.As(err, &de) && de.Code == codeConversionFailure {
		return x.onError.Eval(e)
	}
	return out, err
}

// checkFormat refuses a format with a lone % at its end (18535) or a
// specifier not in allowed (18536).
func checkFormat(format, allowed string) error {
	for i := 0; i < len(format); i++ {
		if format[i] != '%' {
			continue
		}
		i++
		if i == len(format) {
			return document.Errorf(document.Code(18535), "Unmatched '%%' at end of format string")
		}
		if format[i] != '%' && !strings.ContainsRune(allowed, rune(format[i])) {
			return document.Errorf(document.Code(18536), "Invalid format character '%%%c' in format string", format[i])
		}
	}
	return nil
}

// unset marks a part a date string did not give.
const unset = math.MinInt32

// zoneKind is what a date string said of its time zone.
type zoneKind int

const (
	zoneNone   zoneKind = iota // nothing: the timezone argument applies
	zoneOffset                 // an offset from UTC, such as +02:00 or GMT+2
	zoneAbbr                   // an abbreviation, such as Z, UTC or CEST
)

// parsedDate holds the parts read from a date string.
type parsedDate struct {
	y, m, d, h, mi, s, ns int
	isoY, isoW, isoD      int
	zone                  zoneKind
	offset                int // seconds east of UTC, when zone is set
	abbr                  string
}

// dateParser reads a date string, recording the first failure as mongod
// words it: the string, the position and timelib's message.
type dateParser struct {
	in  string
	pos int
	p   parsedDate
	err error
}

func (r *dateParser) fail(msg string) {
	if r.err != nil {
		return
	}
	at := ""
	if r.pos < len(r.in) {
		at = r.in[r.pos : r.pos+1]
	}
	r.err = document.Errorf(codeConversionFailure, "Error parsing date string '%s'; %d: %s '%s'", r.in, r.pos, msg, at)
}

func (r *dateParser) peek() byte {
	if r.pos < len(r.in) {
		return r.in[r.pos]
	}
	return 0
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isLetter(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }

// number reads 1 to max digits; ok is false when there is none.
func (r *dateParser) number(max int) (n, digits int, ok bool) {
	for digits < max && isDigit(r.peek()) {
		n = n*10 + int(r.peek()-'0')
		r.pos++
		digits++
	}
	return n, digits, digits > 0
}

// word reads a run of letters.
func (r *dateParser) word() string {
	start := r.pos
	for isLetter(r.peek()) {
		r.pos++
	}
	return r.in[start:r.pos]
}

func (r *dateParser) spaces() {
	for r.peek() == ' ' || r.peek() == '\t' {
		r.pos++
	}
}

var monthNames = map[string]int{
	"jan": 1, "feb": 2, "mar": 3, "apr": 4, "may": 5, "jun": 6, "jul": 7, "aug": 8, "sep": 9, "sept": 9, "oct": 10, "nov": 11, "dec": 12,
	"january": 1, "february": 2, "march": 3, "april": 4, "june": 6, "july": 7, "august": 8, "september": 9,
	"october": 10, "november": 11, "december": 12,
}

// zoneAbbrs are the time zone abbreviations a date string may end with,
// in seconds east of UTC (the common ones of timelib's table), and the
// military letters A to Z but J.
var zoneAbbrs = func() map[string]int {
	h := 3600
	m := map[string]int{
		"utc": 0, "gmt": 0, "ut": 0, "z": 0, "wet": 0, "west": h, "bst": h, "cet": h, "cest": 2 * h,
		"eet": 2 * h, "eest": 3 * h, "msk": 3 * h, "ist": 2 * h, "jst": 9 * h, "kst": 9 * h, "hkt": 8 * h,
		"aest": 10 * h, "aedt": 11 * h, "acst": 9*h + 1800, "awst": 8 * h, "nzst": 12 * h, "nzdt": 13 * h,
		"est": -5 * h, "edt": -4 * h, "cst": -6 * h, "cdt": -5 * h, "mst": -7 * h, "mdt": -6 * h,
		"pst": -8 * h, "pdt": -7 * h, "akst": -9 * h, "akdt": -8 * h, "hst": -10 * h, "ast": -4 * h, "adt": -3 * h,
	}
	for i, c := range "abcdefghiklm" {
		m[string(c)] = (i + 1) * h
	}
	for i, c := range "nopqrstuvwxy" {
		m[string(c)] = -(i + 1) * h
	}
	return m
}()

// zone reads a time zone at the current position: an offset (+hh,
// +hhmm, +hh:mm, after GMT or UTC too) or an abbreviation. A zone name
// such as Europe/Paris is refused, as mongod refuses it.
func (r *dateParser) zone() {
	r.spaces()
	if c := r.peek(); c == '+' || c == '-' {
		r.offset()
		return
	}
	start := r.pos
	w := r.word()
	if r.peek() == '/' || r.peek() == '_' {
		r.pos = start
		r.fail("passing a time zone identifier as part of the string is not allowed")
		return
	}
	lw := strings.ToLower(w)
	if c := r.peek(); (lw == "gmt" || lw == "utc") && (c == '+' || c == '-') {
		r.offset()
		return
	}
	off, ok := zoneAbbrs[lw]
	if !ok {
		r.pos = start
		r.fail("The timezone could not be found in the database")
		return
	}
	r.p.zone, r.p.offset, r.p.abbr = zoneAbbr, off, strings.ToUpper(w)
}

// offset reads +h, +hh, +hmm, +hhmm, +h:mm or +hh:mm.
func (r *dateParser) offset() {
	sign := 1
	if r.peek() == '-' {
		sign = -1
	}
	r.pos++
	start := r.pos
	n, digits, ok := r.number(4)
	h, m := n, 0
	switch {
	case !ok:
		r.fail("The timezone could not be found in the database")
		return
	case digits <= 2 && r.peek() == ':':
		r.pos++
		var md int
		if m, md, ok = r.number(2); md != 2 {
			r.pos = start
			r.fail("The timezone could not be found in the database")
			return
		}
	case digits >= 3:
		h, m = n/100, n%100
	}
	r.p.zone, r.p.offset = zoneOffset, sign*(h*3600+m*60)
}

// dateFromString reads s with format (when hasFormat) or as mongod reads
// a date string without one, on loc's clock unless s names its zone.
func dateFromString(s, format string, hasFormat bool, loc *time.Location) (any, error) {
	// mongod's parser stops at a NUL byte, in the string and the format.
	if i := strings.IndexByte(s, 0); i >= 0 {
		s = s[:i]
	}
	r := &dateParser{in: s, p: parsedDate{y: unset, m: unset, d: unset, h: unset, mi: unset, s: unset, ns: 0,
		isoY: unset, isoW: unset, isoD: unset}}
	if hasFormat {
		if i := strings.IndexByte(format, 0); i >= 0 {
			format = format[:i]
		}
		r.withFormat(format)
	} else {
		r.free()
	}
	if r.err != nil {
		return nil, r.err
	}
	p := &r.p
	if p.isoY != unset || p.isoW != unset || p.isoD != unset {
		switch {
		case p.y != unset || p.m != unset || p.d != unset:
			r.fail("Mixing of ISO dates with natural dates is not allowed")
		case p.isoY == unset:
			r.fail("The parsed date was invalid")
		default:
			// Week 1 and Monday when not given.
			w, d := p.isoW, p.isoD
			if w == unset {
				w = 1
			}
			if d == unset {
				d = 1
			}
			jan4 := time.Date(p.isoY, 1, 4, 0, 0, 0, 0, time.UTC)
			t := jan4.AddDate(0, 0, -(isoWeekday(jan4)-1)+(w-1)*7+d-1)
			p.y, p.m, p.d = t.Year(), int(t.Month()), t.Day()
		}
	}
	// A clock part not given is 0: mongod's parser sets the rest of the
	// clock when it reads any of it, and mongod all of it when it reads
	// none.
	for _, f := range []*int{&p.h, &p.mi, &p.s} {
		if *f == unset {
			*f = 0
		}
	}
	if r.err == nil && p.y != unset && p.m != unset && p.d != unset &&
		(p.m < 1 || p.m > 12 || p.d < 1 || p.d > time.Date(p.y, time.Month(p.m)+1, 0, 0, 0, 0, 0, time.UTC).Day()) {
		r.fail("The parsed date was invalid")
	}
	if r.err == nil && (p.h > 23 || p.mi > 59 || p.s > 59) {
		r.fail("The parsed time was invalid")
	}
	if r.err != nil {
		return nil, r.err
	}
	if p.y == unset || p.m == unset || p.d == unset {
		return nil, document.Errorf(codeConversionFailure, "an incomplete date/time string has been found, with elements missing: \"%s\"", s)
	}
	if p.zone != zoneNone {
		if !utcZone(loc) {
			if p.zone == zoneOffset {
				return nil, document.Errorf(codeConversionFailure, "you cannot pass in a date/time string with GMT offset together with a timezone argument")
			}
			return nil, document.Errorf(codeConversionFailure, "you cannot pass in a date/time string with time zone information ('%s') together with a timezone argument", p.abbr)
		}
		loc = time.FixedZone("", p.offset)
	}
	// A wall time a change of clock skips moves forward, as timelib
	// moves it (localDate).
	return bson.NewDateTimeFromTime(localDate(p.y, time.Month(p.m), p.d, p.h, p.mi, p.s, p.ns, loc)), nil
}

// utcZone reports whether loc is UTC itself, by name or as a zero offset:
// only then may a date string name its own zone.
func utcZone(loc *time.Location) bool {
	if loc == time.UTC || loc.String() == "UTC" {
		return true
	}
	name := loc.String()
	if name == "" || (name[0] != '+' && name[0] != '-') {
		return false
	}
	_, off := time.Unix(0, 0).In(loc).Zone()
	return off == 0
}

// withFormat reads the string by format as mongod's parser does: each
// specifier reads up to its count of digits, other characters (and %%)
// must match themselves, and neither may be left over.
func (r *dateParser) withFormat(format string) {
	i := 0
	for ; i < len(format) && r.pos < len(r.in) && r.err == nil; i++ {
		c := format[i]
		if c != '%' || i+1 == len(format) || format[i+1] == '%' {
			if c == '%' && i+1 < len(format) {
				i++
			}
			if r.peek() != c {
				r.fail("Format literal not found")
			}
			r.pos++
			continue
		}
		i++
		r.specifier(format[i])
	}
	switch {
	case r.err != nil:
	case r.pos < len(r.in):
		r.fail("Trailing data")
	case i < len(format):
		r.fail("Data missing")
	}
}

// specifier reads the part one % specifier stands for.
func (r *dateParser) specifier(spec byte) {
	p := &r.p
	// num reads up to max digits where a number must be.
	num := func(max int) int {
		if !isDigit(r.peek()) {
			r.fail("Unexpected data found.")
			return 0
		}
		n, _, _ := r.number(max)
		return n
	}
	// The specifiers that read a whole number, and their most digits.
	numbers := map[byte]struct {
		part   *int
		digits int
	}{
		'Y': {&p.y, 4}, 'm': {&p.m, 2}, 'd': {&p.d, 2}, 'H': {&p.h, 2}, 'M': {&p.mi, 2}, 'S': {&p.s, 2},
		'G': {&p.isoY, 4}, 'V': {&p.isoW, 2}, 'u': {&p.isoD, 1},
	}
	if n, ok := numbers[spec]; ok {
		*n.part = num(n.digits)
		return
	}
	switch spec {
	case 'L':
		// Up to three digits of a fraction: .8 is 800 milliseconds.
		start := r.pos
		n := num(3)
		for digits := r.pos - start; digits < 3; digits++ {
			n *= 10
		}
		p.ns = n * 1e6
	case 'j':
		if p.y == unset {
			r.fail("A 'day of year' can only come after a year has been found")
			return
		}
		// mongod's parser counts this day of the year from 0.
		t := time.Date(p.y, 1, num(3)+1, 0, 0, 0, 0, time.UTC)
		p.y, p.m, p.d = t.Year(), int(t.Month()), t.Day()
	case 'b', 'B':
		r.monthName("A textual month could not be found")
	case 'z':
		r.zone()
	case 'Z':
		// An offset in minutes: +285 is four hours and 45 minutes east.
		sign := 1
		switch r.peek() {
		case '-':
			sign = -1
			fallthrough
		case '+':
			r.pos++
		}
		n, _, ok := r.number(4)
		if !ok {
			r.fail("Invalid timezone offset in minutes")
			return
		}
		p.zone, p.offset = zoneOffset, sign*n*60
	}
}

// free reads a date string without a format. mongod accepts what its
// date library does, a great many forms; ttlkv reads these:
//
//	2017-07-04, 2017/07/04, 2017-Jul-04    year, month, day
//	7/4/2017, 7/4/17                       month, day, year (17 is 2017, 70 is 1970)
//	04-07-2017                             day, month, year
//	July 4th, 2017, Jul 4 2017             month name, day, year
//
// then, after T or spaces, a time hh:mm, hh:mm:ss or hh:mm.ss with a
// fraction of a second after . or ,, or a 12-hour time (11am, 11:30 pm),
// or noon, midnight or today, and a zone (Z, +02:00, +0200, +02,
// GMT+2, an abbreviation such as UTC, EST or CEST).
func (r *dateParser) free() {
	p := &r.p
	r.spaces()
	start := r.pos
	n, digits, _ := r.number(4)
	switch sep := r.peek(); {
	case digits == 4 && (sep == '-' || sep == '/'):
		p.y = n
		r.pos++
		if isLetter(r.peek()) && sep == '-' {
			r.monthName("The timezone could not be found in the database")
		} else {
			p.m = r.need(2)
		}
		r.expect(sep)
		p.d = r.need(2)
	case digits > 0 && digits <= 2 && (sep == '/' || sep == '-'):
		// Month first before a slash, day first before a dash.
		r.pos++
		second := r.need(2)
		r.expect(sep)
		y, yd, _ := r.number(4)
		switch {
		case yd == 4:
			p.y = y
		case yd == 2 && sep == '/':
			p.y = 1900 + y
			if y < 70 {
				p.y = 2000 + y
			}
		default:
			r.fail("Unexpected character")
		}
		p.m, p.d = n, second
		if sep == '-' {
			p.m, p.d = second, n
		}
	case digits > 0 && digits <= 2 && sep == ':':
		r.pos = start // a time without a date
	case digits == 0 && isLetter(r.peek()):
		r.monthName("The timezone could not be found in the database")
		r.spaces()
		p.d = r.need(2)
		if w := strings.ToLower(r.word()); w != "" && w != "st" && w != "nd" && w != "rd" && w != "th" {
			r.fail("Unexpected character")
		}
		if r.peek() == ',' {
			r.pos++
		}
		r.spaces()
		if y, yd, _ := r.number(4); yd == 4 {
			p.y = y
		} else if yd > 0 {
			r.fail("Unexpected character")
		}
	default:
		r.pos = start
		r.fail("Unexpected character")
	}
	if r.err != nil {
		return
	}
	if c := r.peek(); c == 'T' || c == 't' {
		r.pos++
	} else {
		r.spaces()
	}
	if isDigit(r.peek()) {
		p.h = r.need(2)
		if r.meridian() {
			return
		}
		r.expect(':')
		p.mi = r.need(2)
		if c := r.peek(); c == ':' || c == '.' {
			r.pos++
			p.s = r.need(2)
			if c := r.peek(); c == '.' || c == ',' {
				r.pos++
				start := r.pos
				n, digits, ok := r.number(9)
				if !ok {
					r.fail("Unexpected character")
				}
				for ; digits < 9; digits++ {
					n *= 10
				}
				p.ns = n
				for isDigit(r.peek()) && r.pos-start < 64 {
					r.pos++ // digits past nanoseconds are dropped
				}
			}
		}
	}
	if r.err != nil || r.meridian() {
		return
	}
	r.clockWord()
	r.zoneToEnd()
}

// zoneToEnd reads the rest of a date string after its time, which may
// only be a zone between white space; anything else is "Unexpected
// character".
func (r *dateParser) zoneToEnd() {
	r.spaces()
	if r.pos < len(r.in) {
		r.zone()
		r.spaces()
	}
	if r.err == nil && r.pos < len(r.in) {
		r.fail("Unexpected character")
	}
}

// meridian reads an am or pm (a.m., PM, ...) after a 12-hour clock's
// time, as mongod's parser does in "July 4th, 2017 11am" or "11:30 pm",
// and then the rest of the string, which may only be a zone; it reports
// whether there was one. The hour must be 1 to 12: 12am is midnight.
func (r *dateParser) meridian() bool {
	start := r.pos
	r.spaces()
	c := r.peek() | 0x20
	if c != 'a' && c != 'p' {
		r.pos = start
		return false
	}
	r.pos++
	if r.peek() == '.' {
		r.pos++
	}
	if r.peek()|0x20 != 'm' {
		r.pos = start
		return false
	}
	r.pos++
	if r.peek() == '.' {
		r.pos++
	}
	if r.pos < len(r.in) && r.peek() != ' ' && r.peek() != '\t' {
		r.pos = start
		return false
	}
	if r.p.h < 1 || r.p.h > 12 {
		r.pos = start
		r.fail("Unexpected character")
		return true
	}
	r.p.h %= 12
	if c == 'p' {
		r.p.h += 12
	}
	r.zoneToEnd()
	return true
}

// clockWord reads the words mongod's parser takes for a time of day
// where a time may stand: noon is 12:00, midnight and today 00:00.
func (r *dateParser) clockWord() {
	start := r.pos
	r.spaces()
	switch strings.ToLower(r.word()) {
	case "noon":
		r.p.h, r.p.mi, r.p.s, r.p.ns = 12, 0, 0, 0
	case "midnight", "today":
		r.p.h, r.p.mi, r.p.s, r.p.ns = 0, 0, 0, 0
	default:
		r.pos = start
	}
}

// need reads 1 to max digits, failing where there are none.
func (r *dateParser) need(max int) int {
	n, _, ok := r.number(max)
	if !ok {
		r.fail("Unexpected character")
	}
	return n
}

func (r *dateParser) expect(c byte) {
	if r.peek() != c {
		r.fail("Unexpected character")
		return
	}
	r.pos++
}

// monthName reads a month's name or its first three letters, failing
// with msg.
func (r *dateParser) monthName(msg string) {
	start := r.pos
	m, ok := monthNames[strings.ToLower(r.word())]
	if !ok {
		r.pos = start
		r.fail(msg)
		return
	}
	r.p.m = m
}

// localDate is time.Date, but a wall time a change of clock skips (02:30
// on a spring-forward night) is read with the offset before the change,
// as mongod's timelib reads it: 02:30 EST, that is 03:30 EDT. (Go moves
// it either way.)
func localDate(year int, month time.Month, day, hour, min, sec, nsec int, loc *time.Location) time.Time {
	t := time.Date(year, month, day, hour, min, sec, nsec, loc)
	wall := time.Date(year, month, day, hour, min, sec, nsec, time.UTC)
	got := time.Date(t.Year(), t.Month(), t.Day(), t.Hour(), t.Minute(), t.Second(), t.Nanosecond(), time.UTC)
	if got.Equal(wall) {
		return t
	}
	_, before := t.Add(-6 * time.Hour).Zone()
	return wall.Add(-time.Duration(before) * time.Second).In(loc)
}
