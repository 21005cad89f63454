package mongosh

import (
	"testing"
	"time"
)

// TestLocaleRefusals checks that what the shell's small Intl does not
// do is an error saying so, and that out-of-range settings are Node's
// RangeErrors (format.js holds what it does, compared with mongosh).
func TestLocaleRefusals(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	cases := []struct{ src, want string }{
		{`try { (0.5).toLocaleString(undefined, {style: "percent"}) } catch (e) { print(e.name, e.message) }`,
			`TypeError Number.prototype.toLocaleString: the option "style" is not supported by ttlkv's shell (it has no Intl; it knows minimumFractionDigits, maximumFractionDigits, useGrouping)`},
		{`try { new Intl.NumberFormat("en", {notation: "compact"}) } catch (e) { print(e.message) }`,
			`Intl.NumberFormat: the option "notation" is not supported by ttlkv's shell (it has no Intl; it knows minimumFractionDigits, maximumFractionDigits, useGrouping)`},
		{`try { new Date(0).toLocaleDateString("en-US", {dateStyle: "full"}) } catch (e) { print(e.message) }`,
			`Date.prototype.toLocaleDateString: the option "dateStyle" is not supported by ttlkv's shell (it has no Intl; it knows timeZone)`},
		{`try { (5).toLocaleString(undefined, {minimumFractionDigits: 4, maximumFractionDigits: 2}) } catch (e) { print(e.name, e.message) }`,
			"RangeError maximumFractionDigits value is out of range."},
		{`try { (5).toLocaleString(undefined, {maximumFractionDigits: 101}) } catch (e) { print(e.name, e.message) }`,
			"RangeError maximumFractionDigits value is out of range."},
		{`try { new Date(0).toLocaleString("en-US", {timeZone: "Nowhere/X"}) } catch (e) { print(e.name, e.message) }`,
			"RangeError Invalid time zone specified: Nowhere/X"},
		{`try { Date.prototype.toLocaleString.call({}) } catch (e) { print(e.name, e.message) }`, "TypeError this is not a Date object."},
		{`print(typeof Intl.DateTimeFormat, new Intl.NumberFormat("de-DE").resolvedOptions().locale, (1234.5).toLocaleString("en", {maximumFractionDigits: 0, useGrouping: false}))`, "undefined de-DE 1235"},
	}
	for _, tc := range cases {
		got, err := eval(t, s, out, tc.src)
		if err != nil || got != tc.want+"\n" {
			t.Errorf("%s: got %q (%v), want %q", tc.src, got, err, tc.want)
		}
	}
}

// TestZoneLongName checks the time zone names a Date's toString ends
// with, as Node 20 (ICU) prints them for the same zones.
func TestZoneLongName(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ abbr, place, want string }{
		{"UTC", "UTC", "Coordinated Universal Time"},
		{"UTC", "Local", "Coordinated Universal Time"},
		{"BST", "Europe/London", "British Summer Time"},
		{"CEST", "Europe/Berlin", "Central European Summer Time"},
		{"EST", "America/New_York", "Eastern Standard Time"},
		{"CST", "America/Chicago", "Central Standard Time"},
		{"CST", "Asia/Shanghai", "China Standard Time"},
		{"IST", "Asia/Kolkata", "India Standard Time"},
		{"IST", "Europe/Dublin", "Irish Standard Time"},
		{"+03", "Etc/GMT-3", "GMT+03:00"},
		{"-0330", "X", "GMT-03:30"},
		{"XYZ", "X", "XYZ"},
	} {
		if got := zoneLongName(tc.abbr, tc.place); got != tc.want {
			t.Errorf("zoneLongName(%q, %q) = %q, want %q", tc.abbr, tc.place, got, tc.want)
		}
	}
	// What goja's toString ends with is replaced, in whatever zone the
	// test runs.
	abbr, _ := time.Unix(0, 0).Zone()
	want := "(" + zoneLongName(abbr, time.Local.String()) + ")"
	s, out, _ := testShell(t, Options{})
	got, err := eval(t, s, out, `const zd = new Date(0); print(zd.toString().slice(zd.toString().indexOf("(")), String(zd) === zd.toString(), zd.toTimeString().endsWith(zd.toString().slice(zd.toString().indexOf("("))), new Date(NaN).toString())`)
	if err != nil || got != want+" true true Invalid Date\n" {
		t.Errorf("toString: got %q (%v), want %q", got, err, want+" true true Invalid Date")
	}
}

// TestJSONErrorsAsMongosh checks that JSON.parse and EJSON.parse fail on
// what is not JSON with V8's words, as in mongosh (format.js holds more).
func TestJSONErrorsAsMongosh(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	got, err := eval(t, s, out, `for (const f of [() => JSON.parse("{bad"), () => EJSON.parse(""), () => EJSON.parse("[1,]"), () => JSON.parse(undefined), () => JSON.parse("{} x")]) { try { f() } catch (e) { print(e.name, e.message) } }`)
	want := "SyntaxError Expected property name or '}' in JSON at position 1\n" +
		"SyntaxError Unexpected end of JSON input\n" +
		"SyntaxError Unexpected token ']', \"[1,]\" is not valid JSON\n" +
		"SyntaxError \"undefined\" is not valid JSON\n" +
		"SyntaxError Unexpected non-whitespace character after JSON at position 3\n"
	if err != nil || got != want {
		t.Errorf("got %q (%v), want %q", got, err, want)
	}
}

// TestDateCalled checks that Date called without new is V8's: the time
// now in toString's form, the zone's long name at its end (goja's Date()
// wrote Go's abbreviation); with new, in a subclass and as a value Date
// is still JavaScript's.
func TestDateCalled(t *testing.T) {
	t.Parallel()
	s, out, _ := testShell(t, Options{})
	src := `const dc = Date(), dn = new Date().toString();
print(typeof dc, /^[A-Z][a-z]{2} [A-Z][a-z]{2} \d{2} \d{4} \d{2}:\d{2}:\d{2} GMT[+-]\d{4} \(.+\)$/.test(dc), dc.slice(dc.indexOf("(")) === dn.slice(dn.indexOf("(")), typeof Date(0));
class Dx extends Date {}
print(new Date(0), new Dx(0) instanceof Date, new Dx(0) instanceof Dx, new Date(0).constructor === Date, ISODate("2020-01-01") instanceof Date);
print(Date, Date.name, Date.length, String(Date), Object.keys(Date), Date.UTC(2020, 0), Date.parse("2020-01-01T00:00:00Z"), typeof Date.now())`
	want := "string true true string\n" +
		"ISODate('1970-01-01T00:00:00.000Z') true true true true\n" +
		"[Function: Date] Date 7 function Date() { [native code] } [] 1577836800000 1577836800000 number\n"
	got, err := eval(t, s, out, src)
	if err != nil || got != want {
		t.Errorf("got %q (%v), want %q", got, err, want)
	}
}
