package main

import (
	"bufio"
	"errors"
	"io"
	"strings"
)

// csvReader reads CSV records as mongoimport's reader (its fork of
// encoding/csv) reads them: white space before a field is skipped, an
// unquoted field's trailing white space is dropped, and so is white
// space between a closing quote and the next comma; a quoted field may
// hold commas, doubled quotes and newlines; a quote inside an unquoted
// field is an error. Empty lines are skipped.
type csvReader struct {
	r    *bufio.Reader
	line int // lines read so far
	rec  []string
	sb   strings.Builder
	raw  string // the last line read, with its line ending
}

// csvSyntaxError is a record that is not CSV; line is where it starts.
type csvSyntaxError struct {
	line int
	msg  string
}

func (e *csvSyntaxError) Error() string { return e.msg }

var (
	errBareQuote  = "bare \" in non-quoted-field"
	errQuoteField = "extraneous \" in field" // mongoimport's CSV reader's words
)

// readLine returns the next line without its line ending, and whether
// there was one.
func (c *csvReader) readLine() (string, bool, error) {
	s, err := c.r.ReadString('\n')
	if len(s) == 0 && err != nil {
		return "", false, err
	}
	c.line++
	c.raw = s
	s = strings.TrimSuffix(s, "\n")
	s = strings.TrimSuffix(s, "\r")
	return s, true, nil
}

func isCSVSpace(b byte) bool { return b == ' ' || b == '\t' }

// Read returns the next record (valid until the next call) and the line
// it starts on; io.EOF at the end; a *csvSyntaxError for a malformed
// record, after which reading goes on at the next line.
func (c *csvReader) Read() ([]string, int, error) {
	var line string
	for {
		l, ok, err := c.readLine()
		if !ok {
			if err == nil {
				err = io.EOF
			}
			return nil, 0, err
		}
		if l != "" {
			line = l
			break
		}
	}
	start := c.line
	c.rec = c.rec[:0]
	i := 0
	for {
		for i < len(line) && isCSVSpace(line[i]) {
			i++
		}
		if i < len(line) && line[i] == '"' {
			// A quoted field, perhaps over several lines.
			c.sb.Reset()
			i++
			for {
				j := strings.IndexByte(line[i:], '"')
				if j < 0 {
					c.sb.WriteString(line[i:])
					c.sb.WriteByte('\n')
					next, ok, err := c.readLine()
					if !ok {
						if err != nil && !errors.Is(err, io.EOF) {
							return nil, start, err
						}
						return nil, start, &csvSyntaxError{start, errQuoteField}
					}
					line, i = next, 0
					continue
				}
				c.sb.WriteString(line[i : i+j])
				i += j + 1
				if i < len(line) && line[i] == '"' {
					c.sb.WriteByte('"') // a doubled quote
					i++
					continue
				}
				break
			}
			for i < len(line) && isCSVSpace(line[i]) {
				i++
			}
			c.rec = append(c.rec, c.sb.String())
			if i == len(line) {
				return c.rec, start, nil
			}
			if line[i] != ',' {
				return nil, start, &csvSyntaxError{start, errQuoteField}
			}
			i++
			continue
		}
		j := strings.IndexByte(line[i:], ',')
		field := line[i:]
		if j >= 0 {
			field = line[i : i+j]
		}
		if strings.IndexByte(field, '"') >= 0 {
			return nil, start, &csvSyntaxError{start, errBareQuote}
		}
		c.rec = append(c.rec, strings.TrimRight(field, " \t"))
		if j < 0 {
			return c.rec, start, nil
		}
		i += j + 1
	}
}

// tsvReader reads TSV as mongoimport does: each line split at its tabs,
// quotes being part of the values. An empty line is a record of one
// empty field, as in mongoimport (whose CSV reader skips empty lines).
type tsvReader struct {
	csvReader
}

// Read returns the next record and the line it is on.
func (t *tsvReader) Read() ([]string, int, error) {
	for {
		l, ok, err := t.readLine()
		if !ok {
			if err == nil {
				err = io.EOF
			}
			return nil, 0, err
		}
		return strings.Split(l, "\t"), t.line, nil
	}
}
