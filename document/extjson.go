package document

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ParseExtJSON parses one MongoDB Extended JSON v2 document, relaxed or
// canonical (the two may be mixed), through the driver's own parser. The
// result is canonical: nested documents are bson.D, arrays bson.A, null
// nil. Beyond what the driver rejects (malformed JSON, malformed type
// wrappers such as a bad $oid, an unknown key inside $binary, an
// out-of-range $numberInt), ParseExtJSON also rejects invalid UTF-8,
// anything but whitespace after the document, and a top-level value that
// is not a document. Errors carry CodeFailedToParse and say what was wrong
// and, where known, at which byte.
func ParseExtJSON(data []byte) (bson.D, error) {
	start, err := checkJSON(data)
	if err != nil {
		return nil, err
	}
	if data[start] != '{' {
		return nil, Errorf(CodeFailedToParse, "Extended JSON: expected a document at byte %d, found %q", start, data[start])
	}
	var d bson.D
	if err := bson.UnmarshalExtJSON(data, false, &d); err != nil {
		return nil, Errorf(CodeFailedToParse, "Extended JSON: %v", err)
	}
	out, err := Normalize(d)
	if err != nil {
		return nil, Errorf(CodeFailedToParse, "Extended JSON: %v", err)
	}
	return out, nil
}

// ParseExtJSONValue parses any one Extended JSON v2 value (a document,
// an array, a type wrapper or a plain JSON scalar) with the same rules as
// ParseExtJSON, and returns it in canonical form.
func ParseExtJSONValue(data []byte) (any, error) {
	if _, err := checkJSON(data); err != nil {
		return nil, err
	}
	wrapped := make([]byte, 0, len(data)+6)
	wrapped = append(wrapped, `{"v":`...)
	wrapped = append(wrapped, data...)
	wrapped = append(wrapped, '}')
	var d bson.D
	if err := bson.UnmarshalExtJSON(wrapped, false, &d); err != nil {
		return nil, Errorf(CodeFailedToParse, "Extended JSON: %v", err)
	}
	if len(d) != 1 {
		return nil, Errorf(CodeFailedToParse, "Extended JSON: expected one value")
	}
	v, err := NormalizeValue(d[0].Value)
	if err != nil {
		return nil, Errorf(CodeFailedToParse, "Extended JSON: %v", err)
	}
	return v, nil
}

// checkJSON checks that data is valid UTF-8 holding exactly one
// syntactically valid JSON value, and returns the offset of its first
// byte.
func checkJSON(data []byte) (int, error) {
	if !utf8.Valid(data) {
		i := 0
		for i < len(data) {
			r, n := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			i += n
		}
		return 0, Errorf(CodeFailedToParse, "Extended JSON: invalid UTF-8 at byte %d", i)
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		var se *json.SyntaxError
		switch {
		case errors.As(err, &se):
			return 0, Errorf(CodeFailedToParse, "Extended JSON: %v at byte %d", se, se.Offset)
		case errors.Is(err, io.EOF):
			return 0, Errorf(CodeFailedToParse, "Extended JSON: empty input")
		case errors.Is(err, io.ErrUnexpectedEOF):
			return 0, Errorf(CodeFailedToParse, "Extended JSON: unexpected end of input at byte %d", len(data))
		}
		return 0, Errorf(CodeFailedToParse, "Extended JSON: %v", err)
	}
	end := int(dec.InputOffset())
	if rest := bytes.TrimLeft(data[end:], " \t\r\n"); len(rest) > 0 {
		return 0, Errorf(CodeFailedToParse, "Extended JSON: unexpected data after the value at byte %d", len(data)-len(rest))
	}
	start := len(data) - len(bytes.TrimLeft(data, " \t\r\n"))
	return start, nil
}

// MarshalExtJSON renders v (a bson.D, bson.A or scalar, canonical or
// convertible by NormalizeValue) as Extended JSON v2, canonical when
// canonical is true and relaxed otherwise, without HTML escaping. Errors
// carry CodeBadValue.
func MarshalExtJSON(v any, canonical bool) ([]byte, error) {
	c, err := NormalizeValue(v)
	if err != nil {
		return nil, err
	}
	if d, ok := c.(bson.D); ok {
		b, err := bson.MarshalExtJSON(d, canonical, false)
		if err != nil {
			return nil, Errorf(CodeBadValue, "cannot render Extended JSON: %v", err)
		}
		return b, nil
	}
	b, err := bson.MarshalExtJSON(bson.D{{Key: "v", Value: c}}, canonical, false)
	if err != nil {
		return nil, Errorf(CodeBadValue, "cannot render Extended JSON: %v", err)
	}
	const prefix = `{"v":`
	if !bytes.HasPrefix(b, []byte(prefix)) || !bytes.HasSuffix(b, []byte("}")) {
		return nil, Errorf(CodeInternalError, "unexpected Extended JSON framing %q", b)
	}
	return b[len(prefix) : len(b)-1], nil
}
