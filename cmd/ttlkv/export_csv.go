package main

import (
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// CSV and TSV cells as mongoexport writes them: a value goes through the
// legacy Extended JSON of mongo-tools (the form of the old shell and of
// mongoexport before 100.0) and is printed in one of two ways. A scalar
// is printed as text (an int64 as 7, a date as 2024-01-01T00:00:00.000Z,
// binary data as upper-case hex, a regular expression as /re/i); a
// document or an array is written as compact legacy Extended JSON
// ({"$numberLong":"7"}, {"$date":"..."}, a whole double with ".0", "<"
// as \u003c).

// legacyDateMax is the first date, in milliseconds, that legacy Extended
// JSON writes as a number rather than as an ISO-8601 string (the year
// 3001).
const legacyDateMax = 32535215999000

// legacyDateFormat is how legacy Extended JSON writes a date.
const legacyDateFormat = "2006-01-02T15:04:05.000Z"

// errLegacySymbol is mongoexport's refusal of a symbol, which legacy
// Extended JSON has no form for.
func errLegacySymbol(s bson.Symbol) error {
	return fmt.Errorf("conversion of BSON value '%s' of type 'bson.Symbol' not supported", string(s))
}

// lookupCell returns the value at a dotted path of d as mongoexport's
// CSV export finds it: a part names a field of a document or, read as
// an integer, an element of an array. ok is false when there is none.
func lookupCell(d bson.D, path string) (any, bool) {
	var cur any = d
	for part := range strings.SplitSeq(path, ".") {
		switch c := cur.(type) {
		case bson.D:
			found := false
			for _, e := range c {
				if e.Key == part {
					cur, found = e.Value, true
					break
				}
			}
			if !found {
				return nil, false
			}
		case bson.A:
			i, err := strconv.Atoi(part)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// csvCell renders one value for CSV and TSV as mongoexport does.
func csvCell(v any) (string, error) {
	switch x := v.(type) {
	case nil, bson.Null:
		return "", nil
	case string:
		return x, nil
	case bool:
		return strconv.FormatBool(x), nil
	case int32:
		return strconv.FormatInt(int64(x), 10), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		return fmt.Sprint(x), nil
	case bson.Decimal128:
		return x.String(), nil
	case bson.DateTime:
		if int64(x) < legacyDateMax {
			return x.Time().UTC().Format(legacyDateFormat), nil
		}
		return fmt.Sprintf(`{ "$date": { "$numberLong" : "%d" }}`, int64(x)), nil
	case bson.ObjectID:
		return "ObjectId(" + x.Hex() + ")", nil
	case bson.Binary:
		data := x.Data
		if x.Subtype == 0x02 && len(data) >= 4 {
			data = data[4:] // the old binary subtype's length prefix
		}
		return strings.ToUpper(hex.EncodeToString(data)), nil
	case bson.Regex:
		return "/" + x.Pattern + "/" + x.Options, nil
	case bson.Timestamp:
		return fmt.Sprintf(`{ "$timestamp": { "t": %d, "i": %d } }`, x.T, x.I), nil
	case bson.MinKey:
		return "$MinKey", nil
	case bson.MaxKey:
		return "$MaxKey", nil
	case bson.Undefined:
		return `{ "$undefined": true }`, nil
	case bson.JavaScript:
		return string(x), nil
	case bson.CodeWithScope:
		return string(x.Code), nil
	case bson.DBPointer:
		return fmt.Sprintf(`{ "$ref": "%s", "$id": ObjectID(%q) }`, x.DB, x.Pointer.Hex()), nil
	case bson.Symbol:
		return "", errLegacySymbol(x)
	case bson.D, bson.A:
		var b bytes.Buffer
		if err := writeLegacyJSON(&b, v); err != nil {
			if errors.Is(err, errEmptyCell) {
				return "", nil
			}
			return "", err
		}
		return b.String(), nil
	}
	return fmt.Sprint(v), nil
}

// writeLegacyJSON writes v as compact legacy Extended JSON.
func writeLegacyJSON(b *bytes.Buffer, v any) error {
	switch x := v.(type) {
	case nil, bson.Null:
		b.WriteString("null")
	case string:
		legacyJSONString(b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case int32:
		b.WriteString(strconv.FormatInt(int64(x), 10))
	case int64:
		fmt.Fprintf(b, `{"$numberLong":"%d"}`, x)
	case float64:
		switch {
		case math.IsInf(x, 1):
			b.WriteString("+Infinity")
		case math.IsInf(x, -1):
			b.WriteString("-Infinity")
		default:
			s := strconv.FormatFloat(x, 'g', -1, 64)
			b.WriteString(s)
			if _, frac := math.Modf(x); frac == 0 && !strings.Contains(s, "e") {
				b.WriteString(".0")
			}
		}
	case bson.Decimal128:
		fmt.Fprintf(b, `{"$numberDecimal":"%s"}`, x.String())
	case bson.DateTime:
		if int64(x) < legacyDateMax {
			fmt.Fprintf(b, `{"$date":"%s"}`, x.Time().UTC().Format(legacyDateFormat))
		} else {
			fmt.Fprintf(b, `{"$date":{"$numberLong":"%d"}}`, int64(x))
		}
	case bson.ObjectID:
		fmt.Fprintf(b, `{"$oid":"%s"}`, x.Hex())
	case bson.Binary:
		fmt.Fprintf(b, `{"$binary":"%s","$type":"%02x"}`, base64.StdEncoding.EncodeToString(x.Data), x.Subtype)
	case bson.Regex:
		b.WriteString(`{"$regex":`)
		legacyJSONString(b, x.Pattern)
		fmt.Fprintf(b, `,"$options":"%s"}`, x.Options)
	case bson.Timestamp:
		fmt.Fprintf(b, `{"$timestamp":{"t":%d,"i":%d}}`, x.T, x.I)
	case bson.MinKey:
		b.WriteString(`{"$minKey":1}`)
	case bson.MaxKey:
		b.WriteString(`{"$maxKey":1}`)
	case bson.Undefined:
		b.WriteString(`{"$undefined":true}`)
	case bson.JavaScript:
		q, err := legacyCode(string(x))
		if err != nil {
			return err
		}
		fmt.Fprintf(b, `{"$code":%s}`, q)
	case bson.CodeWithScope:
		q, err := legacyCode(string(x.Code))
		if err != nil {
			return err
		}
		fmt.Fprintf(b, `{"$code":%s,"$scope":`, q)
		if err := writeLegacyJSON(b, x.Scope); err != nil {
			return err
		}
		b.WriteByte('}')
	case bson.DBPointer:
		b.WriteString(`{"$ref":`)
		legacyJSONString(b, x.DB)
		fmt.Fprintf(b, `,"$id":{"$oid":"%s"}}`, x.Pointer.Hex())
	case bson.Symbol:
		return errLegacySymbol(x)
	case bson.D:
		b.WriteByte('{')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			legacyJSONString(b, e.Key)
			b.WriteByte(':')
			if err := writeLegacyJSON(b, e.Value); err != nil {
				return err
			}
		}
		b.WriteByte('}')
	case bson.A:
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := writeLegacyJSON(b, e); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	default:
		return fmt.Errorf("conversion of BSON value '%v' of type '%T' not supported", v, v)
	}
	return nil
}

// legacyCodeEscaper escapes what mongo-tools' JSON encoder escapes in
// the quoted text of code.
var legacyCodeEscaper = strings.NewReplacer("<", `\u003c`, ">", `\u003e`, "&", `\u0026`)

// errEmptyCell is a document whose legacy JSON mongoexport cannot write:
// its cell is left empty.
var errEmptyCell = errors.New("no legacy JSON")

// legacyCode is code's text in a document cell as mongoexport writes it:
// Go-quoted (a tab is \t), then <, > and & escaped. A character Go
// quotes in a way JSON does not read (\x01, \a, \v, \U...) is
// errEmptyCell, as mongoexport then writes an empty cell.
func legacyCode(code string) (string, error) {
	q := strconv.Quote(code)
	for i := 0; i < len(q)-1; i++ {
		if q[i] == '\\' {
			switch q[i+1] {
			case 'x', 'a', 'v', 'U':
				return "", errEmptyCell
			}
			i++
		}
	}
	return legacyCodeEscaper.Replace(q), nil
}

// legacyJSONString writes s as a JSON string the way mongo-tools' JSON
// encoder does: control characters other than \n and \r, and <, > and
// &, as \u00XX; U+2028 and U+2029 escaped; invalid UTF-8 as \ufffd.
func legacyJSONString(b *bytes.Buffer, s string) {
	const digits = "0123456789abcdef"
	b.WriteByte('"')
	start := 0
	for i := 0; i < len(s); {
		if c := s[i]; c < utf8.RuneSelf {
			if c >= 0x20 && c != '\\' && c != '"' && c != '<' && c != '>' && c != '&' {
				i++
				continue
			}
			b.WriteString(s[start:i])
			switch c {
			case '\\', '"':
				b.WriteByte('\\')
				b.WriteByte(c)
			case '\n':
				b.WriteString(`\n`)
			case '\r':
				b.WriteString(`\r`)
			default:
				b.WriteString(`\u00`)
				b.WriteByte(digits[c>>4])
				b.WriteByte(digits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			b.WriteString(s[start:i])
			b.WriteString(`\ufffd`)
		case r == '\u2028' || r == '\u2029':
			b.WriteString(s[start:i])
			b.WriteString(`\u202`)
			b.WriteByte(digits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	b.WriteString(s[start:])
	b.WriteByte('"')
}
