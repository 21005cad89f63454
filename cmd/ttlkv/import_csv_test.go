package main

import (
	"bufio"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// TestCSVReader: fields, quotes, white space and line numbers as
// mongoimport's CSV reader gives them.
func TestCSVReader(t *testing.T) {
	t.Parallel()
	in := "a, b ,c\n\n \"x, y\" , \"say \"\"hi\"\"\"\r\n\"two\nlines\",last\n1,\n,\nbad\"q,1\nok,2"
	r := &csvReader{r: bufio.NewReader(strings.NewReader(in))}
	type rec struct {
		fields []string
		line   int
		err    string
	}
	var got []rec
	for {
		f, line, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		e := ""
		if err != nil {
			e = err.Error()
		}
		got = append(got, rec{append([]string(nil), f...), line, e})
	}
	want := []rec{
		{[]string{"a", "b", "c"}, 1, ""},
		{[]string{"x, y", `say "hi"`}, 3, ""},
		{[]string{"two\nlines", "last"}, 4, ""},
		{[]string{"1", ""}, 6, ""},
		{[]string{"", ""}, 7, ""},
		{nil, 8, errBareQuote},
		{[]string{"ok", "2"}, 9, ""},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("records\n%+v\nwant\n%+v", got, want)
	}
	// A quote that never closes is an error at the line it opens.
	r = &csvReader{r: bufio.NewReader(strings.NewReader("a\n\"open,1\nmore\n"))}
	r.Read()
	if _, line, err := r.Read(); err == nil || err.Error() != errQuoteField || line != 2 {
		t.Errorf("unclosed quote: line %d, %v", line, err)
	}
}

// TestTSVReader: tabs split, quotes are data, an empty line is one empty
// cell (as mongoimport's TSV reader reads it).
func TestTSVReader(t *testing.T) {
	t.Parallel()
	r := &tsvReader{csvReader{r: bufio.NewReader(strings.NewReader("\"a\"\tb c\t\n\nx\r\n"))}}
	f, line, err := r.Read()
	if err != nil || line != 1 || !reflect.DeepEqual(f, []string{`"a"`, "b c", ""}) {
		t.Errorf("first: %q line %d %v", f, line, err)
	}
	f, line, err = r.Read()
	if err != nil || line != 2 || !reflect.DeepEqual(f, []string{""}) {
		t.Errorf("empty line: %q line %d %v", f, line, err)
	}
	f, line, err = r.Read()
	if err != nil || line != 3 || !reflect.DeepEqual(f, []string{"x"}) {
		t.Errorf("second: %q line %d %v", f, line, err)
	}
	if _, _, err := r.Read(); !errors.Is(err, io.EOF) {
		t.Errorf("end: %v", err)
	}
}
