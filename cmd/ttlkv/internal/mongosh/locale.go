package mongosh

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"
)

// numberSeparators are the grouping and decimal separators of the
// locales Number.prototype.toLocaleString knows, by language; any other
// locale is formatted as English.
var numberSeparators = map[string][2]string{
	"en": {",", "."},
	"de": {".", ","},
	"fr": {"\u202f", ","},
}

// installToLocaleString gives the shell the part of JavaScript's Intl
// that mongosh users reach for, as Node formats it; goja has no Intl.
//
//   - Number.prototype.toLocaleString(locale, options) and
//     Intl.NumberFormat(locale, options).format(n): grouped thousands and
//     at most three fraction digits, rounded half away from zero
//     ("1,234,567.891" in en-US, "1.234.567,891" in de-DE), with the
//     options minimumFractionDigits, maximumFractionDigits and
//     useGrouping.
//   - Date.prototype.toLocaleString, toLocaleDateString and
//     toLocaleTimeString(locale, options): en-US's "1/2/2024, 3:04:05 PM"
//     (en-GB, de and fr their own), in local time or options.timeZone.
//
// Any other option is a TypeError saying the shell lacks it, rather
// than a format that would look right and be wrong.
func (s *Shell) installToLocaleString() {
	rt := s.rt
	proto := rt.Get("Number").ToObject(rt).Get("prototype").ToObject(rt)
	_ = proto.DefineDataProperty("toLocaleString", rt.ToValue(func(c goja.FunctionCall) goja.Value {
		f := c.This.ToFloat()
		if o, ok := c.This.(*goja.Object); ok {
			f = s.callMethod(o, "valueOf").ToFloat()
		}
		return rt.ToValue(s.numberFormat(c.Argument(0), c.Argument(1), "Number.prototype.toLocaleString").format(f))
	}), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)

	nf := func(c goja.ConstructorCall) *goja.Object {
		f := s.numberFormat(c.Argument(0), c.Argument(1), "Intl.NumberFormat")
		o := rt.NewObject()
		_ = o.SetPrototype(c.This.Prototype())
		_ = o.Set("format", func(c goja.FunctionCall) goja.Value {
			return rt.ToValue(f.format(c.Argument(0).ToFloat()))
		})
		_ = o.Set("resolvedOptions", func(goja.FunctionCall) goja.Value {
			r := rt.NewObject()
			_ = r.Set("locale", f.locale)
			_ = r.Set("minimumFractionDigits", f.minFrac)
			_ = r.Set("maximumFractionDigits", f.maxFrac)
			_ = r.Set("useGrouping", map[bool]any{true: "auto", false: false}[f.grouping])
			return r
		})
		return o
	}
	ctor := rt.ToValue(nf).ToObject(rt)
	nfProto := rt.NewObject()
	_ = nfProto.SetSymbol(goja.SymToStringTag, "Intl.NumberFormat")
	_ = ctor.DefineDataProperty("prototype", nfProto, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	_ = nfProto.DefineDataProperty("constructor", ctor, goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	intl := rt.NewObject()
	_ = intl.SetSymbol(goja.SymToStringTag, "Intl")
	_ = intl.DefineDataProperty("NumberFormat", ctor, goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
	_ = rt.GlobalObject().DefineDataProperty("Intl", intl, goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)

	dproto := rt.Get("Date").ToObject(rt).Get("prototype").ToObject(rt)
	// toString and toTimeString end with the time zone's name in V8's
	// (ICU's) long form, "(Coordinated Universal Time)", where goja
	// writes Go's abbreviation, "(UTC)".
	for _, name := range []string{"toString", "toTimeString"} {
		orig, ok := goja.AssertFunction(dproto.Get(name))
		if !ok {
			continue
		}
		_ = dproto.DefineDataProperty(name, rt.ToValue(func(c goja.FunctionCall) goja.Value {
			v, err := orig(c.This, c.Arguments...)
			if err != nil {
				panic(err)
			}
			str := v.String()
			i := strings.LastIndexByte(str, '(')
			if i < 0 || !strings.HasSuffix(str, ")") {
				return v
			}
			return rt.ToValue(str[:i+1] + zoneLongName(str[i+1:len(str)-1], time.Local.String()) + ")")
		}), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	s.installDateCall()
	for name, parts := range map[string]string{"toLocaleString": "dt", "toLocaleDateString": "d", "toLocaleTimeString": "t"} {
		name, parts := name, parts
		_ = dproto.DefineDataProperty(name, rt.ToValue(func(c goja.FunctionCall) goja.Value {
			o, ok := c.This.(*goja.Object)
			if !ok || o.ClassName() != "Date" {
				panic(rt.NewTypeError("this is not a Date object."))
			}
			ms := s.callMethod(o, "getTime").ToFloat()
			if math.IsNaN(ms) {
				return rt.ToValue("Invalid Date")
			}
			t := time.UnixMilli(int64(ms))
			return rt.ToValue(s.localeDate(t, c.Argument(0), c.Argument(1), parts, "Date.prototype."+name))
		}), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
}

// localeLang is the language of a locale argument ("de" for "de-DE"),
// "en" when none is given. A list of locales is taken by its first.
func (s *Shell) localeLang(v goja.Value) (lang, locale string) {
	if o, ok := v.(*goja.Object); ok && o.ClassName() == "Array" {
		v = o.Get("0")
	}
	if v == nil || goja.IsUndefined(v) || !goja.IsString(v) {
		return "en", "en-US"
	}
	locale = v.String()
	lang, _, _ = strings.Cut(strings.ToLower(locale), "-")
	return lang, locale
}

// localeOptions reads the options argument of an Intl function: the
// value of each option in known, refusing any other (what the shell
// does not do is said, not done wrong).
func (s *Shell) localeOptions(v goja.Value, fn string, known ...string) map[string]goja.Value {
	got := map[string]goja.Value{}
	o, ok := v.(*goja.Object)
	if !ok {
		return got
	}
	for _, k := range o.Keys() {
		val := o.Get(k)
		if goja.IsUndefined(val) {
			continue
		}
		if !slices.Contains(known, k) {
			panic(s.rt.NewTypeError("%s: the option %q is not supported by ttlkv's shell (it has no Intl; it knows %s)", fn, k, strings.Join(known, ", ")))
		}
		got[k] = val
	}
	return got
}

// numberFormatter is a Number.prototype.toLocaleString or
// Intl.NumberFormat setting.
type numberFormatter struct {
	locale, lang     string
	minFrac, maxFrac int
	grouping         bool
}

func (s *Shell) numberFormat(locale, options goja.Value, fn string) numberFormatter {
	lang, loc := s.localeLang(locale)
	f := numberFormatter{locale: loc, lang: lang, minFrac: 0, maxFrac: 3, grouping: true}
	opts := s.localeOptions(options, fn, "minimumFractionDigits", "maximumFractionDigits", "useGrouping")
	digits := func(k string) (int, bool) {
		v, ok := opts[k]
		if !ok {
			return 0, false
		}
		n := v.ToFloat()
		if math.IsNaN(n) || n < 0 || n > 100 {
			panic(s.rangeError(k + " value is out of range."))
		}
		return int(n), true
	}
	minSet, maxSet := false, false
	if n, ok := digits("minimumFractionDigits"); ok {
		f.minFrac, minSet = n, true
	}
	if n, ok := digits("maximumFractionDigits"); ok {
		f.maxFrac, maxSet = n, true
	}
	switch {
	case minSet && !maxSet && f.maxFrac < f.minFrac:
		f.maxFrac = f.minFrac
	case maxSet && !minSet && f.minFrac > f.maxFrac:
		f.minFrac = f.maxFrac
	case f.minFrac > f.maxFrac:
		panic(s.rangeError("maximumFractionDigits value is out of range."))
	}
	if v, ok := opts["useGrouping"]; ok {
		f.grouping = v.ToBoolean()
	}
	return f
}

// format is f as Intl formats it.
func (f numberFormatter) format(n float64) string {
	return formatLocale(n, f.lang, f.minFrac, f.maxFrac, f.grouping)
}

// localeNumber is f as toLocaleString formats it for language lang
// with no options.
func localeNumber(f float64, lang string) string {
	return formatLocale(f, lang, 0, 3, true)
}

// formatLocale is f for language lang with minFrac to maxFrac fraction
// digits, its thousands grouped or not.
func formatLocale(f float64, lang string, minFrac, maxFrac int, grouping bool) string {
	switch {
	case math.IsNaN(f):
		return "NaN"
	case math.IsInf(f, 1):
		return "∞"
	case math.IsInf(f, -1):
		return "-∞"
	}
	sep, ok := numberSeparators[lang]
	if !ok {
		sep = numberSeparators["en"]
	}
	neg := math.Signbit(f) // -0 and what rounds to 0 keep their sign, as in Intl
	digits := roundDecimal(strconv.FormatFloat(math.Abs(f), 'f', -1, 64), maxFrac)
	whole, frac, _ := strings.Cut(digits, ".")
	frac += strings.Repeat("0", max(0, minFrac-len(frac)))
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range whole {
		if grouping && i > 0 && (len(whole)-i)%3 == 0 {
			b.WriteString(sep[0])
		}
		b.WriteRune(r)
	}
	if frac != "" {
		b.WriteString(sep[1] + frac)
	}
	return b.String()
}

// roundDecimal rounds the non-negative decimal string d to at most n
// fraction digits, half away from zero, dropping trailing zeros.
func roundDecimal(d string, n int) string {
	whole, frac, _ := strings.Cut(d, ".")
	if len(frac) > n {
		up := frac[n] >= '5'
		frac = frac[:n]
		if up {
			num := []byte(whole + frac)
			i := len(num) - 1
			for ; i >= 0 && num[i] == '9'; i-- {
				num[i] = '0'
			}
			if i < 0 {
				num = append([]byte{'1'}, num...)
			} else {
				num[i]++
			}
			whole, frac = string(num[:len(num)-n]), string(num[len(num)-n:])
		}
	}
	frac = strings.TrimRight(frac, "0")
	if frac == "" {
		return whole
	}
	return whole + "." + frac
}

// rangeError is JavaScript's RangeError with message msg, for the caller
// to panic with.
func (s *Shell) rangeError(msg string) *goja.Object {
	e, err := s.rt.New(s.rt.Get("RangeError"), s.rt.ToValue(msg))
	if err != nil {
		panic(err)
	}
	return e
}

// localeDate is t as Date's toLocaleString (parts "dt"),
// toLocaleDateString ("d") or toLocaleTimeString ("t") formats it for
// the locale, in local time or the options' timeZone.
func (s *Shell) localeDate(t time.Time, locale, options goja.Value, parts, fn string) string {
	lang, loc := s.localeLang(locale)
	opts := s.localeOptions(options, fn, "timeZone")
	t = t.Local()
	if tz, ok := opts["timeZone"]; ok {
		zone, err := time.LoadLocation(tz.String())
		if err != nil || tz.String() == "" || tz.String() == "Local" {
			panic(s.rangeError("Invalid time zone specified: " + tz.String()))
		}
		t = t.In(zone)
	}
	y, mo, d := t.Date()
	h, mi, sec := t.Clock()
	var date, clock, sep string
	switch {
	case lang == "de":
		date, clock, sep = fmt.Sprintf("%d.%d.%d", d, mo, y), fmt.Sprintf("%02d:%02d:%02d", h, mi, sec), ", "
	case lang == "fr":
		date, clock, sep = fmt.Sprintf("%02d/%02d/%d", d, mo, y), fmt.Sprintf("%02d:%02d:%02d", h, mi, sec), " "
	case strings.EqualFold(loc, "en-GB"):
		date, clock, sep = fmt.Sprintf("%02d/%02d/%d", d, mo, y), fmt.Sprintf("%02d:%02d:%02d", h, mi, sec), ", "
	default: // en-US
		ampm, h12 := "AM", h%12
		if h >= 12 {
			ampm = "PM"
		}
		if h12 == 0 {
			h12 = 12
		}
		date, clock, sep = fmt.Sprintf("%d/%d/%d", mo, d, y), fmt.Sprintf("%d:%02d:%02d %s", h12, mi, sec, ampm), ", "
	}
	switch parts {
	case "d":
		return date
	case "t":
		return clock
	}
	return date + sep + clock
}

// zoneNames are ICU's long names of the time zone abbreviations Go
// gives, as V8 prints them in a Date's toString; zoneNamesIn those that
// depend on the zone's place (the key's prefix of its IANA name).
var zoneNames = map[string]string{
	"UTC": "Coordinated Universal Time", "GMT": "Greenwich Mean Time", "BST": "British Summer Time",
	"CET": "Central European Standard Time", "CEST": "Central European Summer Time",
	"EET": "Eastern European Standard Time", "EEST": "Eastern European Summer Time",
	"WET": "Western European Standard Time", "WEST": "Western European Summer Time",
	"EST": "Eastern Standard Time", "EDT": "Eastern Daylight Time",
	"CST": "Central Standard Time", "CDT": "Central Daylight Time",
	"MST": "Mountain Standard Time", "MDT": "Mountain Daylight Time",
	"PST": "Pacific Standard Time", "PDT": "Pacific Daylight Time",
	"AKST": "Alaska Standard Time", "AKDT": "Alaska Daylight Time", "HST": "Hawaii-Aleutian Standard Time",
	"IST": "India Standard Time", "JST": "Japan Standard Time", "KST": "Korean Standard Time",
	"HKT": "Hong Kong Standard Time", "PKT": "Pakistan Standard Time", "MSK": "Moscow Standard Time",
	"AEST": "Australian Eastern Standard Time", "AEDT": "Australian Eastern Daylight Time",
	"ACST": "Australian Central Standard Time", "ACDT": "Australian Central Daylight Time",
	"AWST": "Australian Western Standard Time", "NZST": "New Zealand Standard Time",
	"NZDT": "New Zealand Daylight Time", "SAST": "South Africa Standard Time",
}

var zoneNamesIn = map[[2]string]string{
	{"Asia/Shanghai", "CST"}: "China Standard Time", {"Asia/Chongqing", "CST"}: "China Standard Time",
	{"Asia/Taipei", "CST"}: "Taipei Standard Time", {"America/Havana", "CST"}: "Cuba Standard Time",
	{"Europe/Dublin", "IST"}: "Irish Standard Time", {"Asia/Jerusalem", "IST"}: "Israel Standard Time",
}

// zoneLongName is ICU's name for the abbreviation abbr of the zone
// named place: a known one's long name, a bare offset ("+03", "-0330")
// as "GMT+03:00", anything else as it is.
func zoneLongName(abbr, place string) string {
	if n, ok := zoneNamesIn[[2]string{place, abbr}]; ok {
		return n
	}
	if n, ok := zoneNames[abbr]; ok {
		return n
	}
	if len(abbr) >= 3 && (abbr[0] == '+' || abbr[0] == '-') && strings.Trim(abbr[1:], "0123456789") == "" {
		h, m := abbr[1:3], "00"
		if len(abbr) == 5 {
			m = abbr[3:5]
		}
		return "GMT" + abbr[:1] + h + ":" + m
	}
	return abbr
}

// dateCall makes Date called without new V8's: the time now as
// toString gives it, with the zone's long name ("Sat Nov 28 2026
// 13:31:11 GMT+0000 (Coordinated Universal Time)"), where goja's Date()
// writes Go's abbreviation ("(UTC)"). It runs with goja's Date and
// returns the Date the shell has: a function that, called, answers that
// string and, with new (or as a class's super), makes the Date goja
// would; its prototype, statics, name and length are goja's Date's.
const dateCall = `(function (D) {
  var now = function () { return new D().toString(); };
  var Date = function Date() {
    if (new.target === undefined) return now();
    return Reflect.construct(D, arguments, new.target);
  };
  Object.defineProperty(Date, 'length', { value: 7 });
  Object.defineProperty(Date, 'prototype', { value: D.prototype, writable: false, enumerable: false, configurable: false });
  Object.defineProperty(D.prototype, 'constructor', { value: Date, writable: true, enumerable: false, configurable: true });
  ['now', 'parse', 'UTC'].forEach(function (k) {
    Object.defineProperty(Date, k, { value: D[k], writable: true, enumerable: false, configurable: true });
  });
  Object.defineProperty(Date, 'toString', { value: function toString() { return 'function Date() { [native code] }'; }, writable: true, enumerable: false, configurable: true });
  return Date;
})`

// installDateCall replaces the global Date with dateCall's.
func (s *Shell) installDateCall() {
	rt := s.rt
	fn, err := rt.RunString(dateCall)
	if err != nil {
		panic(err)
	}
	mk, _ := goja.AssertFunction(fn)
	d, err := mk(goja.Undefined(), rt.Get("Date"))
	if err != nil {
		panic(err)
	}
	_ = rt.GlobalObject().DefineDataProperty("Date", d, goja.FLAG_TRUE, goja.FLAG_FALSE, goja.FLAG_TRUE)
}
