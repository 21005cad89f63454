package main

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/cmd/ttlkv/internal/mongosh"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
)

type exportFlags struct {
	collection, query, queryFile, sort, out, format, typ, fieldFile string
	fields                                                          []string
	jsonArray, pretty, noHeaderLine, assertExists, quiet            bool
	forceTableScan                                                  bool
	limit, skip                                                     int64
	columns                                                         []string // csv/tsv: the names of the columns, from --fields
}

var exportCommand = &command{
	remote:    true,
	usageExit: 1,
	name:      "export",
	summary:   "write a collection as JSON lines, a JSON array, CSV or TSV (mongoexport's formats and flags)",
	usage:     "ttlkv export [-c] COLL [--type json|csv|tsv] [--fields F,G | --fieldFile FILE] [--jsonArray] [--pretty] [--query FILTER] [--sort SPEC] [--limit N] [--skip N] [--out FILE]",
	notes: `--query takes Extended JSON, as mongoexport does ({"n": {"$lt": 2}}); --sort also the shell's
relaxed syntax ({at: -1}). --fields projects whole top-level fields (sub.x exports all of sub).
CSV and TSV need the fields to write (--fields or --fieldFile; dotted names reach into documents
and, by index, arrays); the first line names them unless --noHeaderLine. Cells are mongoexport's:
strings and numbers as they are, dates as ISO-8601, ObjectIds as ObjectId(hex), binary data as hex,
documents and arrays as legacy Extended JSON, missing fields empty.`,
	examples: []string{
		`ttlkv export events`,
		`ttlkv export events --query '{"kind": "login"}' --sort '{"at": -1}' --limit 10`,
		`ttlkv export -c events --query '{"_id": {"$lt": 2}}' --jsonArray --pretty`,
		`ttlkv export events --type csv --fields _id,kind,at --out events.csv`,
		`ttlkv export events --out events-backup.json`,
	},
	flags: func(fs *pflag.FlagSet) any {
		f := &exportFlags{}
		fs.StringVarP(&f.collection, "collection", "c", "", "collection to export (or give it as the argument)")
		fs.StringVarP(&f.query, "query", "q", "", "filter, as Extended JSON")
		fs.StringVar(&f.queryFile, "queryFile", "", "file holding the filter (instead of --query)")
		fs.BoolVar(&f.assertExists, "assertExists", false, "fail if the collection does not exist")
		fs.StringVar(&f.sort, "sort", "", "sort specification, as Extended JSON or in the shell's syntax")
		fs.Int64Var(&f.limit, "limit", 0, "export at most N documents (0: all)")
		fs.Int64Var(&f.skip, "skip", 0, "skip the first N documents")
		fs.StringVarP(&f.out, "out", "o", "", "output file (default stdout)")
		fs.StringVar(&f.typ, "type", "json", "output format: json, csv or tsv")
		fs.StringSliceVarP(&f.fields, "fields", "f", nil, "comma-separated fields to write (csv/tsv: required; json: a projection)")
		fs.StringVar(&f.fieldFile, "fieldFile", "", "file with one field name per line, as --fields")
		fs.BoolVar(&f.noHeaderLine, "noHeaderLine", false, "csv/tsv: do not write the field names first")
		fs.BoolVar(&f.jsonArray, "jsonArray", false, "json: write one JSON array instead of one document per line")
		fs.BoolVar(&f.pretty, "pretty", false, "json: indent the documents")
		fs.StringVar(&f.format, "jsonFormat", "relaxed", "relaxed or canonical Extended JSON")
		fs.BoolVar(&f.forceTableScan, "forceTableScan", false, "deprecated, as in mongoexport: a scan is what an export without --query does (refused with --query)")
		fs.BoolVar(&f.quiet, "quiet", false, "print nothing on stderr (no count, no errors; the exit code still tells), as mongoexport --quiet")
		return f
	},
	run: func(e *env, _ *pflag.FlagSet, cfg any, args []string) int {
		f := cfg.(*exportFlags)
		if f.quiet {
			e.stderr = io.Discard
		}
		if f.collection != "" {
			args = append([]string{f.collection}, args...)
		}
		if len(args) != 1 {
			fmt.Fprintln(e.stderr, "ttlkv export: give exactly one collection name (-c)")
			return 1
		}
		f.fieldFile = e.path(f.fieldFile)
		if f.forceTableScan && f.query != "" {
			fmt.Fprintln(e.stderr, "ttlkv export: cannot use --forceTableScan when specifying --query")
			return 1
		}
		if f.queryFile != "" {
			if f.query != "" {
				fmt.Fprintln(e.stderr, "ttlkv export: either --query or --queryFile can be specified as a query option")
				return 1
			}
			b, err := os.ReadFile(e.path(f.queryFile))
			if err != nil {
				return e.fail("export", fmt.Errorf("--queryFile: %w", err))
			}
			f.query = string(b)
		}
		if err := f.check(); err != nil {
			// mongoexport exits 1 for a bad option too.
			fmt.Fprintf(e.stderr, "ttlkv export: %v\n", err)
			return 1
		}
		coll := args[0]
		find := bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: bson.D{}}}
		if f.query != "" {
			// As mongoexport since 100.0: Extended JSON only.
			d, err := document.ParseExtJSON([]byte(f.query))
			if err != nil {
				var de *document.Error
				if errors.As(err, &de) {
					err = errors.New(strings.TrimPrefix(de.Message, "Extended JSON: "))
				}
				return e.fail("export", fmt.Errorf("error parsing query as Extended JSON: %w", err))
			}
			find[1].Value = d
		}
		if f.sort != "" {
			d, err := parseSort(f.sort)
			if err != nil {
				return e.fail("export", err)
			}
			find = append(find, bson.E{Key: "sort", Value: d})
		}
		if len(f.fields) > 0 {
			find = append(find, bson.E{Key: "projection", Value: fieldProjection(f.fields)})
		}
		switch {
		case f.limit > 0:
			find = append(find, bson.E{Key: "limit", Value: f.limit})
		case f.limit < 0:
			// As the driver mongoexport uses reads a negative limit: that
			// many documents, in one batch.
			find = append(find, bson.E{Key: "limit", Value: -f.limit}, bson.E{Key: "singleBatch", Value: true})
		}
		if f.skip != 0 {
			// A negative skip is the server's error, as in mongoexport.
			find = append(find, bson.E{Key: "skip", Value: f.skip})
		}
		db, err := e.connect(engine.Options{DisableTTLMonitor: true})
		if err != nil {
			return e.fail("export", err)
		}
		// A collection that does not exist exports nothing at all (not
		// even "[]" or a header), or fails with --assertExists, as in
		// mongoexport.
		info, err := collectionInfo(e, db, coll)
		if err != nil {
			return e.closeSession("export", db, e.fail("export", err))
		}
		if info == nil {
			if f.assertExists {
				return e.closeSession("export", db, e.fail("export", fmt.Errorf("collection `%s` does not exist", coll)))
			}
			fmt.Fprintln(e.stderr, "exported 0 records")
			return e.closeSession("export", db, 0)
		}
		var w io.Writer = e.stdout
		var file *os.File
		if f.out != "" {
			// mongoexport makes the directory --out names.
			if err := os.MkdirAll(filepath.Dir(e.path(f.out)), 0o750); err != nil {
				return e.closeSession("export", db, e.fail("export", err))
			}
			if file, err = os.Create(e.path(f.out)); err != nil {
				return e.closeSession("export", db, e.fail("export", err))
			}
			w = file
		}
		var prog *progress
		if f.out != "" || !e.isTerm(e.stdout) {
			total := int64(-1)
			if r, err := do(e.ctx, db, e.db, bson.D{{Key: "count", Value: coll}, {Key: "query", Value: find[1].Value}}); err == nil {
				total = num(r, "n")
				if f.limit > 0 && f.limit < total {
					total = f.limit
				}
			}
			prog = newProgress(e.stderr, e.isTerm(e.stderr), e.db+"."+coll, total, false, e.progressEvery)
		}
		out := newExportWriter(w, f)
		// The header goes out once the query has answered (with its
		// first document, or after none), so a query the server refuses
		// writes nothing, as in mongoexport.
		headed := false
		n := 0
		var werr error
		err = drain(e.ctx, db, e.db, coll, find, func(d bson.D) bool {
			if !headed {
				headed = true
				if werr = out.header(); werr != nil {
					return false
				}
			}
			if werr = out.write(d); werr != nil {
				return false
			}
			n++
			prog.add(1, 1)
			return e.ctx.Err() == nil
		})
		if err == nil {
			err = werr
		}
		if err == nil && !headed {
			err = out.header()
		}
		if err == nil {
			err = e.ctx.Err()
		}
		// A CSV export that fails leaves its buffered rows unwritten, as
		// mongoexport's does (its CSV writer is flushed only at the end,
		// or when its buffer fills).
		if err == nil || out.csv == nil {
			if ferr := out.close(); err == nil {
				err = ferr
			}
		}
		if file != nil {
			if cerr := file.Close(); err == nil {
				err = cerr
			}
		}
		prog.finish()
		if err != nil {
			return e.closeSession("export", db, e.fail("export", err))
		}
		if n == 1 {
			fmt.Fprintln(e.stderr, "exported 1 record")
		} else {
			fmt.Fprintf(e.stderr, "exported %d records\n", n)
		}
		return e.closeSession("export", db, 0)
	},
}

// check validates the flags together.
func (f *exportFlags) check() error {
	f.typ = strings.ToLower(f.typ) // as mongoexport reads it
	if f.format != "relaxed" && f.format != "canonical" {
		return fmt.Errorf("invalid JSON format '%s', choose 'relaxed' or 'canonical'", f.format)
	}
	// As mongoexport: --fields, when given, wins over --fieldFile (whose
	// names may be none: CSV lines then hold nothing).
	fromFile := f.fieldFile != "" && len(f.fields) == 0
	if fromFile {
		names, err := readFieldFile(f.fieldFile)
		if err != nil {
			return fmt.Errorf("--fieldFile: %v", err)
		}
		f.fields = names
	}
	// What does not apply to the format is ignored, not refused, as
	// mongoexport ignores it.
	switch f.typ {
	case "json":
		f.noHeaderLine = false
	case "csv", "tsv":
		if len(f.fields) == 0 && !fromFile {
			return fmt.Errorf("%s mode requires a field list", strings.ToUpper(f.typ))
		}
		f.jsonArray, f.pretty = false, false
		// A positional projection (a.$) is the column a, as mongoexport
		// names and reads it.
		f.columns = make([]string, len(f.fields))
		for i, name := range f.fields {
			f.columns[i] = strings.TrimSuffix(name, ".$")
		}
	case "":
		return errors.New("--type cannot be empty")
	default:
		return fmt.Errorf("invalid output type '%s', choose 'json', 'csv' or 'tsv'", f.typ)
	}
	return nil
}

// fieldProjection is the projection of --fields, as mongoexport makes
// it: a dotted name projects its whole top-level field (the server's
// projection of a.0 would not select an array's element; the CSV writer
// picks the value out), except a positional a.$.
func fieldProjection(fields []string) bson.D {
	proj := bson.D{}
	seen := map[string]bool{}
	for _, name := range fields {
		if i := strings.LastIndexByte(name, '.'); i >= 0 && name[i+1:] != "$" {
			name = name[:strings.IndexByte(name, '.')]
		}
		// An empty name (a blank line of --fieldFile) is an empty CSV
		// column, and no path to project.
		if name != "" && !seen[name] {
			seen[name] = true
			proj = append(proj, bson.E{Key: name, Value: int32(1)})
		}
	}
	return proj
}

// parseSort reads a sort specification given as Extended JSON or,
// failing that, in the shell's relaxed syntax ({at: -1}), which
// mongoexport's --sort reads too (as legacy JSON, with unquoted keys).
func parseSort(src string) (bson.D, error) {
	d, err := document.ParseExtJSON([]byte(src))
	if err == nil {
		return d, nil
	}
	d, serr := mongosh.ParseDocument(src)
	if serr != nil {
		// mongoexport's words (its "query" is the sort here), with the
		// Extended JSON reader's reason.
		var de *document.Error
		if errors.As(err, &de) {
			err = errors.New(strings.TrimPrefix(de.Message, "Extended JSON: "))
		}
		return nil, fmt.Errorf("query '%s' is not valid JSON: %v", src, err)
	}
	return document.Normalize(d)
}

// exportWriter writes documents in one of export's formats.
type exportWriter struct {
	bw     *bufio.Writer
	f      *exportFlags
	csv    *csv.Writer
	n      int
	record []string
	// started is set by header: the query answered, so close ends the
	// output (an array's "]"); a refused query writes nothing at all.
	started bool
}

func newExportWriter(w io.Writer, f *exportFlags) *exportWriter {
	x := &exportWriter{bw: bufio.NewWriterSize(w, 1<<16), f: f}
	if f.typ != "json" {
		x.csv = csv.NewWriter(x.bw)
		if f.typ == "tsv" {
			x.csv.Comma = '\t'
		}
		x.record = make([]string, len(f.columns))
	}
	return x
}

// header writes CSV's and TSV's field names, before any document (so
// an export that matches nothing still has them, as mongoexport's does).
func (x *exportWriter) header() error {
	x.started = true
	if x.csv == nil || x.f.noHeaderLine {
		return nil
	}
	if x.f.typ == "tsv" {
		return x.tsvLine(x.f.columns)
	}
	return x.csv.Write(x.f.columns)
}

// tsvLine writes one TSV line: the values joined by tabs, unquoted, as
// mongoimport's TSV reader splits them (mongoexport writes no TSV).
func (x *exportWriter) tsvLine(rec []string) error {
	for i, v := range rec {
		if i > 0 {
			x.bw.WriteByte('\t')
		}
		x.bw.WriteString(v)
	}
	return x.bw.WriteByte('\n')
}

func (x *exportWriter) write(d bson.D) error {
	defer func() { x.n++ }()
	if x.csv != nil {
		for i, name := range x.f.columns {
			v, ok := lookupCell(d, name)
			if !ok {
				x.record[i] = ""
				continue
			}
			s, err := csvCell(v)
			if err != nil {
				return err
			}
			x.record[i] = s
		}
		if x.f.typ == "tsv" {
			return x.tsvLine(x.record)
		}
		return x.csv.Write(x.record)
	}
	b, err := document.MarshalExtJSON(d, x.f.format == "canonical")
	if err != nil {
		return err
	}
	if x.f.pretty {
		var ind bytes.Buffer
		if err := json.Indent(&ind, b, "", "\t"); err != nil {
			return err
		}
		b = ind.Bytes()
	}
	// mongoexport's array: "[", the documents joined by "," (and a
	// newline when pretty), "]".
	switch {
	case !x.f.jsonArray:
	case x.n == 0:
		x.bw.WriteString("[")
	case x.f.pretty:
		x.bw.WriteString(",\n")
	default:
		x.bw.WriteString(",")
	}
	_, err = x.bw.Write(b)
	if !x.f.jsonArray {
		err = x.bw.WriteByte('\n')
	}
	return err
}

// close ends the output (an array's "]") and flushes it.
func (x *exportWriter) close() error {
	if x.csv != nil {
		x.csv.Flush()
		if err := x.csv.Error(); err != nil {
			return err
		}
	}
	if x.csv == nil && !x.f.jsonArray && x.f.pretty && x.started && x.n == 0 {
		x.bw.WriteString("\n") // mongoexport's --pretty footer
	}
	if x.f.jsonArray && x.started {
		switch {
		case x.n == 0 && x.f.pretty:
			x.bw.WriteString("[]\n\n")
		case x.n == 0:
			x.bw.WriteString("[]\n")
		case x.f.pretty:
			x.bw.WriteString("]\n\n")
		default:
			x.bw.WriteString("]\n")
		}
	}
	return x.bw.Flush()
}
