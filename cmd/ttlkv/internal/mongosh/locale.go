package mongosh

import (
	"math"
	"strconv"
	"strings"

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

// installToLocaleString replaces goja's Number.prototype.toLocaleString,
// which refuses a locale argument, with one that formats as Node's
// Intl does by default: grouped thousands and at most three fraction
// digits, rounded half away from zero ("1,234,567.891" in en-US,
// "1.234.567,891" in de-DE).
func (s *Shell) installToLocaleString() {
	rt := s.rt
	proto := rt.Get("Number").ToObject(rt).Get("prototype").ToObject(rt)
	_ = proto.DefineDataProperty("toLocaleString", rt.ToValue(func(c goja.FunctionCall) goja.Value {
		f := c.This.ToFloat()
		if o, ok := c.This.(*goja.Object); ok {
			f = s.callMethod(o, "valueOf").ToFloat()
		}
		lang := "en"
		if l := c.Argument(0); goja.IsString(l) {
			lang, _, _ = strings.Cut(strings.ToLower(l.String()), "-")
		}
		return rt.ToValue(localeNumber(f, lang))
	}), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// localeNumber is f as toLocaleString formats it for language lang.
func localeNumber(f float64, lang string) string {
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
	digits := roundDecimal(strconv.FormatFloat(math.Abs(f), 'f', -1, 64), 3)
	whole, frac, _ := strings.Cut(digits, ".")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, r := range whole {
		if i > 0 && (len(whole)-i)%3 == 0 {
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
