package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"reflect"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// FuzzImportReaders feeds arbitrary input to what `ttlkv import` reads
// files with. None may panic; the fast JSON parser, wherever it takes a
// document, gives exactly what document.ParseExtJSON gives; the CSV and
// TSV readers end, every record on a line no earlier than the one before;
// a typed column converts any cell to a value or an error.
func FuzzImportReaders(f *testing.F) {
	for _, s := range []string{
		`{"a": 1, "b": [1.5, "x", null, {"c": true}]}`,
		`{"d": {"$date": "2024-01-01T00:00:00Z"}}`,
		"a, b ,c\n\n \"x, y\" , \"say \"\"hi\"\"\"\r\n\"two\nlines\",last\n1,\nbad\"q,1\n",
		"\"a\"\tb c\t\n\nx\r\n",
		"\"open,1\nmore\n",
		`{"a": "\ud800"}`,
		`{a: NumberLong("5"), b: 1.0, c: /x\/y/g, d: [Date(0), undefined, -Infinity], 'e': {"$date": "2024-01-01T00:00:00Z"}}`,
	} {
		f.Add([]byte(s), "n.int32()")
		f.Add([]byte(s), "at.date(2006-01-02)")
		f.Add([]byte(s), "b.binary(base64)")
	}
	f.Fuzz(func(t *testing.T, data []byte, spec string) {
		if fast, ok := fastJSON(data); ok {
			slow, err := document.ParseExtJSON(data)
			if err != nil {
				t.Fatalf("%q: the fast parser accepted what ParseExtJSON refuses (%v)", data, err)
			}
			if !reflect.DeepEqual(fast, slow) {
				t.Fatalf("%q:\nfast %#v\nslow %#v", data, fast, slow)
			}
		}
		// The legacy reader reads any text without panicking.
		_, _ = legacyDoc(string(data), nil)
		// readAll reads records until io.EOF; a reader that returns
		// more records than the input has bytes (plus one) is stuck.
		readAll := func(name string, read func() ([]string, int, error)) [][]string {
			var recs [][]string
			last := 0
			for n := 0; ; n++ {
				if n > len(data)+1 {
					t.Fatalf("%s: more than %d records from %d bytes", name, n, len(data))
				}
				rec, line, err := read()
				if errors.Is(err, io.EOF) {
					return recs
				}
				if line < last {
					t.Fatalf("%s: record on line %d after one on line %d", name, line, last)
				}
				last = line
				if err == nil {
					recs = append(recs, append([]string(nil), rec...))
				}
			}
		}
		c := &csvReader{r: bufio.NewReader(bytes.NewReader(data))}
		cells := readAll("csv", c.Read)
		tr := &tsvReader{csvReader{r: bufio.NewReader(bytes.NewReader(data))}}
		readAll("tsv", tr.Read)
		field, err := parseFieldSpec(spec, true)
		if err != nil {
			return
		}
		for _, rec := range cells {
			for _, cell := range rec {
				if _, err := csvValue(field, cell); err != nil && err.Error() == "" {
					t.Fatalf("%s of %q: an error without a message", spec, cell)
				}
			}
		}
	})
}
