package main

import (
	"bytes"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// parseImportJSON parses one document of an import. Most imported
// documents are plain JSON (no "$" anywhere, so no Extended JSON type
// wrappers); those are read by fastJSON, a one-pass parser several times
// cheaper than the driver's Extended JSON reader, giving the very values
// document.ParseExtJSON gives (relaxed Extended JSON: an integer is an
// int32 if it fits, else an int64; a number with a fraction or exponent
// a double). Anything else, and anything fastJSON is not sure of, goes to
// document.ParseExtJSON, which also words every error.
func parseImportJSON(text []byte) (bson.D, error) {
	if d, ok := fastJSON(text); ok {
		return d, nil
	}
	return document.ParseExtJSON(text)
}

// fastMaxDepth bounds the nesting fastJSON handles itself.
const fastMaxDepth = 64

// fastJSON parses a plain JSON document; ok is false when the input holds
// a "$", is not valid UTF-8, or is anything but one well-formed document
// of plain values with distinct keys.
func fastJSON(b []byte) (bson.D, bool) {
	if bytes.IndexByte(b, '$') >= 0 || !utf8.Valid(b) {
		return nil, false
	}
	p := fastParser{b: b}
	p.ws()
	if p.i >= len(p.b) || p.b[p.i] != '{' {
		return nil, false
	}
	d, ok := p.object(1)
	if !ok {
		return nil, false
	}
	p.ws()
	return d, ok && p.i == len(p.b)
}

type fastParser struct {
	b []byte
	i int
}

func (p *fastParser) ws() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// object parses {...} at p.i.
func (p *fastParser) object(depth int) (bson.D, bool) {
	if depth > fastMaxDepth {
		return nil, false
	}
	p.i++ // {
	d := bson.D{}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == '}' {
		p.i++
		return d, true
	}
	for {
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != '"' {
			return nil, false
		}
		k, ok := p.str()
		if !ok {
			return nil, false
		}
		for _, e := range d {
			if e.Key == k {
				return nil, false // duplicate keys: leave them to the driver
			}
		}
		p.ws()
		if p.i >= len(p.b) || p.b[p.i] != ':' {
			return nil, false
		}
		p.i++
		v, ok := p.value(depth)
		if !ok {
			return nil, false
		}
		d = append(d, bson.E{Key: k, Value: v})
		p.ws()
		if p.i >= len(p.b) {
			return nil, false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
			if len(d) > 64 {
				return nil, false // the duplicate check above is quadratic
			}
		case '}':
			p.i++
			return d, true
		default:
			return nil, false
		}
	}
}

// array parses [...] at p.i.
func (p *fastParser) array(depth int) (bson.A, bool) {
	if depth > fastMaxDepth {
		return nil, false
	}
	p.i++ // [
	a := bson.A{}
	p.ws()
	if p.i < len(p.b) && p.b[p.i] == ']' {
		p.i++
		return a, true
	}
	for {
		v, ok := p.value(depth)
		if !ok {
			return nil, false
		}
		a = append(a, v)
		p.ws()
		if p.i >= len(p.b) {
			return nil, false
		}
		switch p.b[p.i] {
		case ',':
			p.i++
		case ']':
			p.i++
			return a, true
		default:
			return nil, false
		}
	}
}

// value parses any value after optional whitespace.
func (p *fastParser) value(depth int) (any, bool) {
	p.ws()
	if p.i >= len(p.b) {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		return p.object(depth + 1)
	case c == '[':
		return p.array(depth + 1)
	case c == '"':
		return p.str()
	case c == 't':
		return true, p.lit("true")
	case c == 'f':
		return false, p.lit("false")
	case c == 'n':
		return nil, p.lit("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, false
}

func (p *fastParser) lit(s string) bool {
	if !bytes.HasPrefix(p.b[p.i:], []byte(s)) {
		return false
	}
	p.i += len(s)
	return true
}

// number parses a JSON number: an integer as int32 or int64, anything
// with a fraction or exponent as a double. "-0" and integers beyond int64
// are left to the driver.
func (p *fastParser) number() (any, bool) {
	start := p.i
	if p.b[p.i] == '-' {
		p.i++
	}
	digits := func() int {
		n := 0
		for p.i < len(p.b) && p.b[p.i] >= '0' && p.b[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	intStart := p.i
	n := digits()
	if n == 0 || (n > 1 && p.b[intStart] == '0') {
		return nil, false
	}
	isFloat := false
	if p.i < len(p.b) && p.b[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, false
		}
		isFloat = true
	}
	if p.i < len(p.b) && (p.b[p.i] == 'e' || p.b[p.i] == 'E') {
		p.i++
		if p.i < len(p.b) && (p.b[p.i] == '+' || p.b[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, false
		}
		isFloat = true
	}
	s := string(p.b[start:p.i])
	if !isFloat {
		if s == "-0" {
			return nil, false
		}
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, false
		}
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return int32(v), true
		}
		return v, true
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || (f == 0 && s[0] == '-') {
		return nil, false
	}
	return f, true
}

// str parses a JSON string at p.i (the opening quote).
func (p *fastParser) str() (string, bool) {
	p.i++
	start := p.i
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			s := string(p.b[start:p.i])
			p.i++
			return s, true
		case c == '\\':
			return p.escaped(start)
		case c < 0x20:
			return "", false
		}
		p.i++
	}
	return "", false
}

// escaped finishes a string holding escapes, from start.
func (p *fastParser) escaped(start int) (string, bool) {
	out := append([]byte(nil), p.b[start:p.i]...)
	for p.i < len(p.b) {
		c := p.b[p.i]
		switch {
		case c == '"':
			p.i++
			return string(out), true
		case c < 0x20:
			return "", false
		case c != '\\':
			out = append(out, c)
			p.i++
			continue
		}
		p.i++
		if p.i >= len(p.b) {
			return "", false
		}
		e := p.b[p.i]
		p.i++
		switch e {
		case '"', '\\', '/':
			out = append(out, e)
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r, ok := p.hex4()
			if !ok {
				return "", false
			}
			if utf16.IsSurrogate(r) {
				if !bytes.HasPrefix(p.b[p.i:], []byte(`\u`)) {
					return "", false
				}
				p.i += 2
				r2, ok := p.hex4()
				if !ok {
					return "", false
				}
				r = utf16.DecodeRune(r, r2)
				if r == utf8.RuneError {
					return "", false
				}
			}
			if r == 0 {
				return "", false // NUL: leave it to the driver
			}
			out = utf8.AppendRune(out, r)
		default:
			return "", false
		}
	}
	return "", false
}

func (p *fastParser) hex4() (rune, bool) {
	if p.i+4 > len(p.b) {
		return 0, false
	}
	v, err := strconv.ParseUint(string(p.b[p.i:p.i+4]), 16, 32)
	if err != nil {
		return 0, false
	}
	p.i += 4
	return rune(v), true
}
