package mongosh

import (
	"strconv"
	"unicode/utf16"

	"github.com/dop251/goja"
)

// JSON.parse's errors in V8's words. goja's parser says what Go's
// encoding/json says ("invalid character 'b' looking for beginning of
// object key string"); mongosh users see V8's ("Expected property name
// or '}' in JSON at position 1"). The shell's JSON.parse runs goja's and,
// when it fails, finds V8's message by scanning the text as V8's parser
// does (v8JSONError).

// installJSONErrors wraps JSON.parse so that its SyntaxErrors carry V8's
// messages.
func (s *Shell) installJSONErrors() {
	rt := s.rt
	jsonObj := rt.Get("JSON").ToObject(rt)
	orig, ok := goja.AssertFunction(jsonObj.Get("parse"))
	if !ok {
		return
	}
	_ = jsonObj.DefineDataProperty("parse", s.named("parse", func(c goja.FunctionCall) goja.Value {
		v, err := orig(c.This, c.Arguments...)
		if err == nil {
			return v
		}
		if ex, ok := err.(*goja.Exception); ok {
			if e, ok := ex.Value().(*goja.Object); ok && e.Get("name") != nil && e.Get("name").String() == "SyntaxError" {
				if msg := v8JSONError(c.Argument(0).String()); msg != "" {
					_ = e.Set("message", msg)
				}
			}
		}
		panic(err)
	}), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	// JSON.stringify with a space: goja's loses a level of indentation
	// after an empty object or array ({"a": {}, "b": {...}} puts b's
	// keys one level too deep); the shell writes compact JSON with
	// goja's and indents it itself, as V8 does.
	stringify, ok := goja.AssertFunction(jsonObj.Get("stringify"))
	if !ok {
		return
	}
	_ = jsonObj.DefineDataProperty("stringify", s.named("stringify", func(c goja.FunctionCall) goja.Value {
		space := c.Argument(2)
		if len(c.Arguments) < 3 || goja.IsUndefined(space) || goja.IsNull(space) {
			v, err := stringify(c.This, c.Arguments...)
			if err != nil {
				panic(err)
			}
			return v
		}
		v, err := stringify(c.This, c.Argument(0), c.Argument(1))
		if err != nil {
			panic(err)
		}
		if goja.IsUndefined(v) {
			return v
		}
		return rt.ToValue(indentJSON([]byte(v.String()), space))
	}), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
}

// jsonScan is V8's JSON parser reduced to finding its first error.
type jsonScan struct {
	src []uint16
	msg string // the error, once found
}

// v8JSONError is V8's message for the first error in text, "" if text
// is JSON.
func v8JSONError(text string) string {
	switch text {
	case "undefined", "NaN", "Infinity", "[object Object]":
		return `"` + text + `" is not valid JSON`
	}
	p := &jsonScan{src: utf16.Encode([]rune(text))}
	i := p.value(p.ws(0))
	if p.msg == "" {
		if i = p.ws(i); i < len(p.src) {
			p.msg = "Unexpected non-whitespace character after JSON at position " + strconv.Itoa(i)
		}
	}
	return p.msg
}

func (p *jsonScan) ws(i int) int {
	for i < len(p.src) && (p.src[i] == ' ' || p.src[i] == '\t' || p.src[i] == '\n' || p.src[i] == '\r') {
		i++
	}
	return i
}

// at records msg at position i ("... in JSON at position i").
func (p *jsonScan) at(msg string, i int) {
	if p.msg == "" {
		p.msg = msg + " in JSON at position " + strconv.Itoa(i)
	}
}

// unexpected records V8's report of the character at i where a value
// should begin: the end of the input, or the character with the text
// around it.
func (p *jsonScan) unexpected(i int) {
	if p.msg != "" {
		return
	}
	n := len(p.src)
	if i >= n {
		p.msg = "Unexpected end of JSON input"
		return
	}
	tok := "Unexpected token '" + string(utf16.Decode(p.src[i:i+1])) + "', "
	const ctx = 10
	text := func(a, b int) string { return string(utf16.Decode(p.src[max(a, 0):min(b, n)])) }
	switch {
	case n <= 2*ctx+1:
		p.msg = tok + `"` + text(0, n) + `" is not valid JSON`
	case i < ctx:
		p.msg = tok + `"` + text(0, i+ctx) + `"... is not valid JSON`
	case i < n-ctx:
		p.msg = tok + `..."` + text(i-ctx, i+ctx) + `"... is not valid JSON`
	default:
		p.msg = tok + `..."` + text(i-ctx, n) + `" is not valid JSON`
	}
}

func (p *jsonScan) value(i int) int {
	if p.msg != "" {
		return i
	}
	if i >= len(p.src) {
		p.unexpected(i)
		return i
	}
	switch c := p.src[i]; {
	case c == '{':
		return p.object(i + 1)
	case c == '[':
		return p.array(i + 1)
	case c == '"':
		return p.str(i + 1)
	case c == '-' || ('0' <= c && c <= '9'):
		return p.number(i)
	case c == 't':
		return p.literal(i, "true")
	case c == 'f':
		return p.literal(i, "false")
	case c == 'n':
		return p.literal(i, "null")
	}
	p.unexpected(i)
	return i
}

func (p *jsonScan) literal(i int, word string) int {
	for k := 0; k < len(word); k++ {
		if i+k >= len(p.src) || p.src[i+k] != uint16(word[k]) {
			p.unexpected(i + k)
			return i + k
		}
	}
	return i + len(word)
}

func (p *jsonScan) object(i int) int {
	i = p.ws(i)
	if i < len(p.src) && p.src[i] == '}' {
		return i + 1
	}
	first := true
	for p.msg == "" {
		if i >= len(p.src) || p.src[i] != '"' {
			if first {
				p.at("Expected property name or '}'", i)
			} else {
				p.at("Expected double-quoted property name", i)
			}
			return i
		}
		first = false
		i = p.ws(p.str(i + 1))
		if p.msg != "" {
			return i
		}
		if i >= len(p.src) || p.src[i] != ':' {
			p.at("Expected ':' after property name", i)
			return i
		}
		i = p.ws(p.value(p.ws(i + 1)))
		if p.msg != "" {
			return i
		}
		var closed bool
		if i, closed = p.delimiter(i, '}', "Expected ',' or '}' after property value"); closed {
			return i
		}
	}
	return i
}

func (p *jsonScan) array(i int) int {
	i = p.ws(i)
	if i < len(p.src) && p.src[i] == ']' {
		return i + 1
	}
	for p.msg == "" {
		i = p.ws(p.value(i))
		if p.msg != "" {
			return i
		}
		var closed bool
		if i, closed = p.delimiter(i, ']', "Expected ',' or ']' after array element"); closed {
			return i
		}
	}
	return i
}

// delimiter scans what must follow an object's member or an array's
// element at i: a comma (it returns the index past the comma and the
// white space after it, and false) or the closing bracket (the index
// past it, and true); anything else records msg and returns i and true.
func (p *jsonScan) delimiter(i int, closer uint16, msg string) (int, bool) {
	switch {
	case i < len(p.src) && p.src[i] == ',':
		return p.ws(i + 1), false
	case i < len(p.src) && p.src[i] == closer:
		return i + 1, true
	}
	p.at(msg, i)
	return i, true
}

// str scans a string from i, after its opening quote.
func (p *jsonScan) str(i int) int {
	for {
		if i >= len(p.src) {
			p.at("Unterminated string", i)
			return i
		}
		switch c := p.src[i]; {
		case c == '"':
			return i + 1
		case c < 0x20:
			p.at("Bad control character in string literal", i)
			return i
		case c == '\\':
			i++
			if i >= len(p.src) {
				p.at("Unterminated string", i)
				return i
			}
			switch p.src[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				for k := 1; k <= 4; k++ {
					if i+k >= len(p.src) || !isHex(p.src[i+k]) {
						p.at("Bad Unicode escape", i+k)
						return i + k
					}
				}
				i += 5
			default:
				p.at("Bad escaped character", i)
				return i
			}
		default:
			i++
		}
	}
}

func isHex(c uint16) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func (p *jsonScan) number(i int) int {
	digit := func(k int) bool { return k < len(p.src) && '0' <= p.src[k] && p.src[k] <= '9' }
	if p.src[i] == '-' {
		i++
		if !digit(i) {
			p.at("No number after minus sign", i)
			return i
		}
	}
	if p.src[i] == '0' {
		i++
		if digit(i) {
			p.at("Unexpected number", i)
			return i
		}
	} else {
		for digit(i) {
			i++
		}
	}
	if i < len(p.src) && p.src[i] == '.' {
		i++
		if !digit(i) {
			p.at("Unterminated fractional number", i)
			return i
		}
		for digit(i) {
			i++
		}
	}
	if i < len(p.src) && (p.src[i] == 'e' || p.src[i] == 'E') {
		i++
		if i < len(p.src) && (p.src[i] == '+' || p.src[i] == '-') {
			i++
		}
		if !digit(i) {
			p.at("Exponent part is missing a number", i)
			return i
		}
		for digit(i) {
			i++
		}
	}
	return i
}
