package main

import (
	"bufio"
	"bytes"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The readers of import turn the input into documents, each with the
// line it starts on, in one pass over the input: time and memory are
// linear in its size whatever its format (docs/import-export.md).

// utf8BOM is the byte-order mark some editors write at the start of a
// UTF-8 file; it is skipped.
var utf8BOM = []byte("\xef\xbb\xbf")

// skipBOM discards a leading UTF-8 byte-order mark.
func skipBOM(br *bufio.Reader) {
	if b, _ := br.Peek(3); bytes.Equal(b, utf8BOM) {
		_, _ = br.Discard(3)
	}
}

// readJSON reads JSON lines, or one JSON array when the first non-blank
// byte is "[" (or --jsonArray says so).
func (im *importer) readJSON(br *bufio.Reader) error {
	skipBOM(br)
	array := im.f.jsonArray
	for i := 1; !array; i++ {
		b, err := br.Peek(i)
		if len(b) < i {
			break
		}
		c := b[i-1]
		if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
			if err != nil {
				break
			}
			continue
		}
		array = c == '['
		break
	}
	im.parser = im.startJSONParser()
	var err error
	if array {
		err = im.readArray(br)
	} else {
		err = im.readLines(br)
	}
	if perr := im.parser.close(); perr != nil && (err == nil || errors.Is(err, errStopped)) {
		err = perr
	}
	return err
}

// readLines reads a stream of JSON values, as mongoimport does: usually
// one document a line, but a document may span lines (what --pretty
// writes) and a line may hold several; white space between them is
// skipped. Each value is parsed on its own and reported with the line
// it starts on. Unlike mongoimport, a '{' at the start of a line while
// a value is still open begins a new one, so one broken line costs one
// document, not the rest of the input.
func (im *importer) readLines(br *bufio.Reader) error {
	line := 0
	var sc valueScanner
	for {
		text, err := br.ReadBytes('\n')
		if len(text) > 0 {
			line++
			im.prog.add(int64(len(text)), 0)
			// ReadBytes made a new slice: addJSON may keep what it gets.
			for _, v := range sc.feed(text, line) {
				if perr := im.addJSON(v.text, v.line); perr != nil {
					return perr
				}
			}
		}
		if err == io.EOF {
			if v, ok := sc.rest(); ok {
				// A value whose brackets or quotes never close: parsed
				// as it is, so its error is reported.
				return im.addJSON(v.text, v.line)
			}
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// jsonValue is one top-level value of a JSON stream and the line it
// starts on.
type jsonValue struct {
	text []byte
	line int
}

// valueScanner splits a JSON stream fed to it line by line into its
// top-level values, tracking brackets and strings across lines.
type valueScanner struct {
	acc        []byte // the value begun on an earlier line
	start      int    // the line acc begins on
	depth      int
	inStr, esc bool
}

// feed scans one line and returns the values that end in it. A value
// that begins and ends on this line is a sub-slice of text.
func (s *valueScanner) feed(text []byte, line int) []jsonValue {
	var out []jsonValue
	if len(s.acc) > 0 && !s.inStr && len(text) > 0 && text[0] == '{' {
		// A '{' at the start of a line while a value is still open
		// begins a new document (a document's own lines are indented,
		// as --pretty writes them): the open one is broken, and is
		// reported with its line rather than swallowing what follows.
		out = append(out, jsonValue{bytes.TrimSpace(s.acc), s.start})
		s.acc, s.depth = nil, 0
	}
	begin := -1 // where in text the value being scanned begins, when it begins here
	if len(s.acc) > 0 {
		begin = 0
	}
	emit := func(end int) {
		v := text[begin:end]
		if len(s.acc) > 0 {
			v = append(s.acc, v...)
			s.acc = nil
		} else {
			s.start = line
		}
		out = append(out, jsonValue{bytes.TrimSpace(v), s.start})
		begin = -1
	}
	for i, c := range text {
		if begin < 0 {
			if c == ' ' || c == '\t' || c == '\r' || c == '\n' {
				continue
			}
			begin, s.start = i, line
		}
		switch {
		case s.inStr && s.esc:
			s.esc = false
		case s.inStr && c == '\\':
			s.esc = true
		case s.inStr:
			s.inStr = c != '"'
		case c == '"':
			s.inStr = true
		case c == '{' || c == '[':
			s.depth++
		case c == '}' || c == ']':
			s.depth--
			if s.depth <= 0 {
				s.depth = 0
				emit(i + 1)
			}
		case s.depth == 0 && (c == ' ' || c == '\t' || c == '\r' || c == '\n'):
			emit(i) // the end of a top-level scalar
		}
	}
	if begin >= 0 {
		if len(s.acc) == 0 {
			s.start = line
		}
		s.acc = append(s.acc, text[begin:]...)
	}
	return out
}

// rest returns what is left unfinished at the end of the stream.
func (s *valueScanner) rest() (jsonValue, bool) {
	t := bytes.TrimSpace(s.acc)
	return jsonValue{t, s.start}, len(t) > 0
}

// readArray reads one JSON array element by element. It splits the
// array at the commas between its elements (outside strings and nested
// brackets), counting lines as it goes, so each element is parsed on its
// own: a malformed element is reported with the line it starts on and
// skipped, and the elements after it are still imported. Only an element
// whose brackets or quotes never close ends the import, because the rest
// of the input cannot be told apart from it.
func (im *importer) readArray(br *bufio.Reader) error {
	line := 1
	var elem []byte
	read := func() (byte, error) {
		c, err := br.ReadByte()
		if err == nil {
			if c == '\n' {
				line++
			}
			im.pending++
		}
		return c, err
	}
	skipSpace := func() (byte, error) {
		for {
			c, err := read()
			if err != nil || (c != ' ' && c != '\t' && c != '\r' && c != '\n') {
				return c, err
			}
		}
	}
	c, err := skipSpace()
	if err == io.EOF {
		// --jsonArray of empty input: mongoimport finds no array.
		return fmt.Errorf("line %d: bad JSON array format - found no closing bracket ']' in input source", line)
	}
	if err != nil {
		return err
	}
	if c != '[' {
		return fmt.Errorf("line %d: a JSON array must start with '[', found %q", line, c)
	}
	first := true
	for {
		c, err := skipSpace()
		if err == io.EOF {
			return fmt.Errorf("line %d: the JSON array is not closed with ']'", line)
		}
		if err != nil {
			return err
		}
		if c == ']' {
			break
		}
		if !first {
			if c != ',' {
				return fmt.Errorf("line %d: expected ',' or ']' between array elements, found %q", line, c)
			}
			if c, err = skipSpace(); err != nil {
				return fmt.Errorf("line %d: the JSON array is not closed with ']'", line)
			}
		}
		first = false
		start := line
		elem = append(elem[:0], c)
		depth, inString, esc := 0, c == '"', false
		switch c {
		case '{', '[':
			depth = 1
		case ']', ',':
			return fmt.Errorf("line %d: missing array element", line)
		}
		// Scan to the end of the element: its closing bracket, or for a
		// scalar the next ',' or ']' (left unread).
		for depth > 0 || inString || !isScalarEnd(br) {
			c, err := read()
			if err == io.EOF {
				im.mu.Lock()
				im.failed++
				im.mu.Unlock()
				return fmt.Errorf("line %d: the array element starting here never ends (unclosed bracket or string); nothing after it can be read", start)
			}
			if err != nil {
				return err
			}
			elem = append(elem, c)
			switch {
			case inString && esc:
				esc = false
			case inString && c == '\\':
				esc = true
			case inString:
				inString = c != '"'
			case c == '"':
				inString = true
			case c == '{' || c == '[':
				depth++
			case c == '}' || c == ']':
				depth--
			}
			if depth == 0 && !inString && (c == '}' || c == ']') {
				break
			}
		}
		im.prog.add(im.pending, 0)
		im.pending = 0
		if err := im.addJSON(bytes.Clone(elem), start); err != nil {
			return err
		}
		elem = elem[:0:min(cap(elem), 1<<20)] // do not keep one huge element's buffer
	}
	// Only whitespace may follow the array.
	if c, err := skipSpace(); err == nil {
		return fmt.Errorf("line %d: unexpected %q after the JSON array", line, c)
	}
	return nil
}

// isScalarEnd reports whether the next byte ends a scalar array element
// (whitespace, ',' or ']', or the end of input).
func isScalarEnd(br *bufio.Reader) bool {
	b, err := br.Peek(1)
	if err != nil {
		return true
	}
	switch b[0] {
	case ',', ']', ' ', '\t', '\r', '\n':
		return true
	}
	return false
}

// csvField is one column of a CSV or TSV import: its (possibly dotted)
// name and, with --columnsHaveTypes, its type.
type csvField struct {
	name string
	path []string
	typ  string // "" (auto) or mongoimport's type name
	arg  string // the type's argument: a date layout, a binary encoding
}

// csvTypes are the column types --columnsHaveTypes accepts, as
// mongoimport names them.
var csvTypes = map[string]bool{"auto": true, "string": true, "int32": true, "int64": true, "double": true,
	"decimal": true, "boolean": true, "date": true, "date_go": true, "date_ms": true, "date_oracle": true, "binary": true}

// typedFieldRE splits a typed column name, name.type(arg), as
// mongoimport does: the type is the last word before a parenthesis that
// the name's end closes.
var typedFieldRE = regexp.MustCompile(`(?s)^(.*)\.(\w+)\((.*)\)$`)

// typeArgUnescaper reads the escapes of a column type's argument.
var typeArgUnescaper = strings.NewReplacer(`\\`, `\`, `\(`, "(", `\)`, ")", `\`, "")

// parseFieldSpec parses a field name, with --columnsHaveTypes a
// "name.type()" or "name.type(arg)".
func parseFieldSpec(spec string, typed bool) (csvField, error) {
	// Not trimmed: mongoimport names a column " b" in --fields "a, b".
	f := csvField{name: spec}
	if typed {
		m := typedFieldRE.FindStringSubmatch(spec)
		if m == nil {
			return f, fmt.Errorf("could not parse type from header %#q", spec)
		}
		f.name, f.typ, f.arg = m[1], m[2], m[3]
		if !csvTypes[f.typ] {
			return f, fmt.Errorf("invalid type %#q in header %#q", f.typ, spec)
		}
		// As mongoimport: \( and \) are parentheses, \\ a backslash,
		// another backslash is dropped.
		f.arg = typeArgUnescaper.Replace(f.arg)
		switch f.typ {
		case "binary":
			if f.arg != "base64" && f.arg != "base32" && f.arg != "hex" {
				return f, fmt.Errorf("invalid binary encoding: %#q", f.arg)
			}
		case "date", "date_go", "date_ms", "date_oracle":
		default:
			if f.arg != "" {
				return f, fmt.Errorf("type %s does not support arguments", f.typ)
			}
		}
		if f.typ == "auto" {
			f.typ = ""
		}
		f.arg = goDateLayout(f.typ, f.arg)
	}
	// An empty name (a header "a,,b" or "a,b,") names a field "", as
	// in mongoimport; two of them are "fields cannot be identical".
	f.path = strings.Split(f.name, ".")
	return f, nil
}

// readFieldFile reads --fieldFile: one field name per line.
func readFieldFile(name string) ([]string, error) {
	b, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	// Every line is a name, an empty one too (a field named "", as
	// mongo-tools read the file); the newline ending the last line does
	// not start another.
	text := strings.TrimSuffix(strings.TrimPrefix(string(b), string(utf8BOM)), "\n")
	if text == "" {
		return nil, nil
	}
	var out []string
	for _, l := range strings.Split(text, "\n") {
		out = append(out, strings.TrimSuffix(l, "\r"))
	}
	return out, nil
}

// countingReader counts the bytes read through it, for progress.
type countingReader struct {
	r io.Reader
	n *int64
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	*c.n += int64(n)
	return n, err
}

// readCSV reads CSV (comma) or TSV (tab) rows with encoding/csv; each row
// becomes a document of the named fields, in order (a dotted name makes
// nested documents). Values are typed as mongoimport types them: with
// --columnsHaveTypes by the column's type, else a number if the text is
// one, and a string otherwise.
func (im *importer) readCSV(br *bufio.Reader) error {
	skipBOM(br)
	cr := &csvReader{r: bufio.NewReader(countingReader{br, &im.pending})}
	read := cr.Read
	var tr *tsvReader
	if im.f.typ == "tsv" {
		tr = &tsvReader{*cr}
		read = tr.Read
	}
	var fields []csvField
	specs := im.f.fields
	if im.f.headerline {
		rec, _, err := read()
		if err == io.EOF {
			// No header line at all: mongoimport fails with "EOF".
			return errors.New("EOF")
		}
		if err != nil {
			return fmt.Errorf("header line: %v", err)
		}
		specs = append([]string(nil), rec...)
	}
	for _, s := range specs {
		f, err := parseFieldSpec(s, im.f.columnsHaveTypes)
		if err != nil {
			return err
		}
		fields = append(fields, f)
	}
	if im.f.headerline {
		if err := checkFieldNames(fields, im.f.useArrayIndexFields); err != nil {
			return err
		}
	}
	row := &csvRow{fields: fields, ignoreBlanks: im.f.ignoreBlanks, grace: im.f.parseGrace, arrays: im.f.useArrayIndexFields}
	for {
		rec, line, err := read()
		if err == io.EOF {
			return nil
		}
		var se *csvSyntaxError
		if errors.As(err, &se) {
			if perr := im.parseError(se.line, se); perr != nil {
				return perr
			}
			continue
		}
		if err != nil {
			return err
		}
		d, err := row.document(rec)
		var skip errSkipRow
		if errors.As(err, &skip) {
			im.report(line, skip) // --parseGrace skipRow: not a failure
			if tr != nil {
				// mongoimport writes a skipped TSV row to stdout as it
				// read it, and a newline. (Its CSV rows go to a writer
				// it never flushes.)
				fmt.Fprint(im.e.stdout, tr.raw+"\n")
			}
			continue
		}
		if err != nil {
			if perr := im.parseError(line, err); perr != nil {
				return perr
			}
			continue
		}
		im.prog.add(im.pending, 0)
		im.pending = 0
		if err := im.add(d, line, 0); err != nil {
			return err
		}
	}
}

// csvValue converts one cell.
func csvValue(f csvField, s string) (any, error) {
	switch f.typ {
	case "":
		return autoValue(s), nil
	case "string":
		return s, nil
	case "int32":
		n, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%q is not an int32", s)
		}
		return int32(n), nil
	case "int64":
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not an int64", s)
		}
		return n, nil
	case "double":
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a double", s)
		}
		return x, nil
	case "decimal":
		x, err := bson.ParseDecimal128(s)
		if err != nil {
			return nil, fmt.Errorf("%q is not a decimal", s)
		}
		return x, nil
	case "boolean":
		// mongoimport's boolean(): true or false in any case, 1 or 0.
		switch strings.ToLower(s) {
		case "true", "1":
			return true, nil
		case "false", "0":
			return false, nil
		}
		return nil, fmt.Errorf("%q is not a boolean", s)
	case "date", "date_go", "date_ms", "date_oracle":
		// A Go layout (parseFieldSpec translated the others). As in
		// mongoimport, an empty one reads only an empty cell, as the
		// zero time.
		layout := f.arg
		t, err := time.Parse(layout, s)
		if err != nil {
			return nil, fmt.Errorf("%q does not match the date layout %q", s, layout)
		}
		return bson.NewDateTimeFromTime(t), nil
	case "binary":
		var b []byte
		var err error
		switch f.arg {
		case "base64", "":
			b, err = base64.StdEncoding.DecodeString(s)
		case "hex":
			b, err = hex.DecodeString(s)
		case "base32":
			b, err = base32.StdEncoding.DecodeString(s)
		default:
			return nil, fmt.Errorf("binary encoding %q: use base64, base32 or hex", f.arg)
		}
		if err != nil {
			return nil, fmt.Errorf("%q is not %s", s, f.arg)
		}
		return bson.Binary{Data: b}, nil
	}
	return nil, fmt.Errorf("type %s() is not supported", f.typ)
}

// autoValue types a cell as mongoimport does without --columnsHaveTypes:
// an integer (int32 if it fits, else int64), a double, or the string.
func autoValue(s string) any {
	if s == "" {
		return s
	}
	if n, err := strconv.ParseInt(s, 10, 64); err == nil {
		if n >= math.MinInt32 && n <= math.MaxInt32 {
			return int32(n)
		}
		return n
	}
	// Any text ParseFloat reads is a double, as in mongoimport: NaN,
	// Infinity and inf too, and Go's digit separators ("1_000" is
	// 1000.0, as mongoimport 100.x types it).
	if x, err := strconv.ParseFloat(s, 64); err == nil {
		return x
	}
	return s
}
