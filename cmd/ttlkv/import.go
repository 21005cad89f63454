package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/spf13/pflag"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
)

type importFlags struct {
	collection, file, typ string
	fields                []string
	fieldList             string // --fields as given
	fieldFile             string
	headerline            bool
	columnsHaveTypes      bool
	jsonArray             bool
	legacy                bool
	mode                  string
	upsert                bool     // the deprecated --upsert: --mode upsert
	upsertFields          []string // --upsertFields; ["_id"] for the modes that match, nil for insert
	upsertFieldList       string   // --upsertFields as given
	maintainOrder         bool
	ignoreBlanks          bool
	parseGrace            string
	useArrayIndexFields   bool
	stopOnError           bool
	batchSize             int
	workers               int
	drop                  bool
	quiet                 bool // --quiet: nothing on stderr
	bypassValidation      bool // --bypassDocumentValidation
	decodingWorkers       int  // --numDecodingWorkers: taken, not used (JSON is parsed on every core)
	ts                    tsFlags
}

// maxErrorLines is how many failed documents import reports one by one;
// the rest are counted in the summary.
const maxErrorLines = 10

var importCommand = &command{
	remote:    true,
	usageExit: 1,
	name:      "import",
	summary:   "load JSON lines, a JSON array, CSV or TSV into a collection (mongoimport's formats and flags)",
	usage:     "ttlkv import [-c] COLL [--file] [FILE] [--type json|csv|tsv] [--fields F,G | --fieldFile FILE | --headerline] [--columnsHaveTypes] [--parseGrace G] [--ignoreBlanks] [--useArrayIndexFields] [--jsonArray] [--legacy] [--mode insert|upsert|merge|delete] [--upsertFields F,G] [--stopOnError] [--maintainInsertionOrder] [--batchSize N] [--numInsertionWorkers N] [--drop] [--timeField F [--metaField M] [--granularity G] [--expireAfterSeconds N]]",
	notes: `Input is read once, from the file or stdin, in time and memory linear in its size; a leading
UTF-8 byte-order mark is skipped. A document that cannot be parsed or inserted is reported with the
line it starts on and skipped (the first ` + fmt.Sprint(maxErrorLines) + ` are listed, the rest counted); --stopOnError stops at
the first instead, keeping what came before. The exit code is 1 if any document failed.
CSV and TSV columns are named by --fields, --fieldFile or the first line (--headerline); values are
typed as numbers when they look like numbers, else strings, or by the column's type with
--columnsHaveTypes (name.string(), n.int32(), n.int64(), x.double(), x.decimal(), b.boolean(),
at.date_go(2006-01-02), data.binary(base64)); --parseGrace says what a cell that does not fit its type
does. Dotted names make nested documents (and arrays, a.0,a.1, with --useArrayIndexFields).
--mode upsert replaces, merge updates ($set) and delete deletes the document matching --upsertFields
(default _id); these modes keep the input order and stop at the first failed write.
On a terminal a progress line is redrawn; otherwise a plain progress line is printed every second.`,
	examples: []string{
		`ttlkv import events events.json`,
		`ttlkv import -c events --file events.json --mode upsert`,
		`ttlkv import -c people --file people.json --mode merge --upsertFields email`,
		`ttlkv import events --stopOnError < events.json`,
		`ttlkv import people people.csv --type csv --headerline`,
		`ttlkv import -c people --type tsv --file people.tsv --fields name,age --drop`,
		`ttlkv import typed --type csv --file typed.csv --headerline --columnsHaveTypes`,
		`ttlkv import weather weather.json --timeField timestamp --metaField metadata --granularity hours --expireAfterSeconds 86400`,
	},
	flags: func(fs *pflag.FlagSet) any {
		f := &importFlags{}
		fs.StringVarP(&f.collection, "collection", "c", "", "collection to import into (or give it as the first argument)")
		fs.StringVar(&f.file, "file", "", "file to import (or give it as the second argument; default stdin)")
		fs.StringVar(&f.typ, "type", "json", "input format: json (lines, or an array), csv or tsv")
		fs.StringVarP(&f.fieldList, "fields", "f", "", "csv/tsv: comma-separated field names (name.type() with --columnsHaveTypes)")
		fs.StringVar(&f.fieldFile, "fieldFile", "", "csv/tsv: file with one field name per line")
		fs.BoolVar(&f.headerline, "headerline", false, "csv/tsv: the first line names the fields")
		fs.BoolVar(&f.columnsHaveTypes, "columnsHaveTypes", false, "csv/tsv: field names carry types, e.g. n.int32()")
		fs.StringVar(&f.parseGrace, "parseGrace", "stop", "csv/tsv with --columnsHaveTypes: a cell that does not fit its type: autoCast (type it as an untyped cell), skipField, skipRow, stop (report the row)")
		fs.BoolVar(&f.ignoreBlanks, "ignoreBlanks", false, "csv/tsv: leave empty cells out of the document")
		fs.BoolVar(&f.useArrayIndexFields, "useArrayIndexFields", false, "csv/tsv: field names such as a.0,a.1 make arrays (indexes from 0, in order)")
		fs.BoolVar(&f.jsonArray, "jsonArray", false, "json: the input is one JSON array (detected anyway when it starts with '[')")
		fs.BoolVar(&f.legacy, "legacy", false, "json: read the legacy Extended JSON of the old shell too: ObjectId(\"...\"), NumberLong(5), ISODate(...)")
		fs.StringVar(&f.mode, "mode", "", "insert (default): add documents; upsert: replace the matching document; merge: update it with the input's fields; delete: delete it")
		fs.StringVar(&f.upsertFieldList, "upsertFields", "", "comma-separated fields that match documents for --mode upsert, merge or delete (default _id; alone it means --mode upsert)")
		fs.BoolVar(&f.upsert, "upsert", false, "deprecated: --mode upsert")
		_ = fs.MarkHidden("upsert")
		fs.BoolVar(&f.stopOnError, "stopOnError", false, "stop at the first bad line or failed document (what was imported before it stays)")
		fs.BoolVar(&f.maintainOrder, "maintainInsertionOrder", false, "insert in input order, one command at a time, and stop at the first failure (implies --stopOnError)")
		fs.IntVar(&f.batchSize, "batchSize", 1000, "documents per insert command (1 to 1000; others mean 1000)")
		fs.IntVarP(&f.workers, "numInsertionWorkers", "j", 1, "insert commands run at once (input order is kept only with 1)")
		fs.BoolVar(&f.drop, "drop", false, "drop the collection first")
		fs.IntVar(&f.decodingWorkers, "numDecodingWorkers", 0, "taken for mongoimport's sake; JSON is parsed on every core")
		fs.BoolVar(&f.bypassValidation, "bypassDocumentValidation", false, "insert and update without the collection's validator")
		fs.BoolVar(&f.quiet, "quiet", false, "print nothing on stderr (no counts, no errors; the exit code still tells), as mongoimport --quiet")
		f.ts.register(fs)
		return f
	},
	run: func(e *env, fs *pflag.FlagSet, cfg any, args []string) int {
		f := cfg.(*importFlags)
		if f.quiet {
			e.stderr = io.Discard
		}
		if f.collection != "" {
			args = append([]string{f.collection}, args...)
		}
		if f.collection == "" && f.file != "" && len(args) == 0 {
			// As mongoimport: the file's name without its extension.
			base := filepath.Base(f.file)
			args = []string{strings.TrimSuffix(base, filepath.Ext(base))}
			fmt.Fprintf(e.stderr, "no collection specified\nusing filename `%s` as collection\n", args[0])
		}
		if f.file != "" {
			args = append(args, f.file)
		}
		if len(args) < 1 || len(args) > 2 {
			fmt.Fprintln(e.stderr, "ttlkv import: give a collection name (-c) and, optionally, a file (--file; default stdin)")
			return 1
		}
		f.fieldFile = e.path(f.fieldFile)
		if err := f.check(fs); err != nil {
			// mongoimport exits 1 for a bad option too.
			fmt.Fprintf(e.stderr, "ttlkv import: %v\n", err)
			if errors.As(err, new(fieldsError)) {
				// mongoimport finds these once it runs, and counts.
				printCounts(e, f.mode, 0, 0)
			}
			return 1
		}
		in, size := e.stdin, int64(-1)
		if len(args) == 2 {
			file, err := os.Open(e.path(args[1]))
			if err != nil {
				code := e.fail("import", err)
				// mongoimport prints its counts after this failure too.
				printCounts(e, f.mode, 0, 0)
				return code
			}
			defer file.Close()
			if fi, err := file.Stat(); err == nil && fi.Mode().IsRegular() {
				size = fi.Size()
			}
			in = file
		}
		db, err := e.connect(engine.Options{})
		if err != nil {
			return e.fail("import", err)
		}
		imp := &importer{e: e, db: db, coll: args[0], f: f}
		if f.drop {
			fmt.Fprintf(e.stderr, "dropping: `%s.%s`\n", e.db, args[0])
			if _, err := do(e.ctx, db, e.db, bson.D{{Key: "drop", Value: args[0]}}); err != nil && codeOf(err) != document.CodeNamespaceNotFound {
				return e.closeSession("import", db, e.fail("import", err))
			}
		}
		if err := imp.prepareTimeseries(fs); err != nil {
			return e.closeSession("import", db, e.fail("import", err))
		}
		imp.prog = newProgress(e.stderr, e.isTerm(e.stderr), e.db+"."+args[0], size, true, e.progressEvery)
		imp.start()
		br := bufio.NewReaderSize(in, 1<<20)
		if f.typ == "json" {
			err = imp.readJSON(br)
		} else {
			err = imp.readCSV(br)
		}
		if ferr := imp.finish(); err == nil || errors.Is(err, errStopped) {
			if ferr != nil {
				err = ferr
			}
		}
		imp.prog.finish()
		if imp.suppressed > 0 {
			fmt.Fprintf(e.stderr, "... and %d more failed document(s) not listed\n", imp.suppressed)
		}
		imp.dropEmptyTimeseries()
		code := 0
		if err != nil && !errors.Is(err, errStopped) {
			// Before the counts, as mongoimport's "Failed: ..." line.
			fmt.Fprintf(e.stderr, "ttlkv import: %v\n", err)
			code = 1
		}
		printCounts(e, f.mode, imp.imported, imp.failed)
		// Like mongoimport, duplicate keys and validation failures alone
		// (without --stopOnError) do not fail the import.
		if imp.failed > imp.ignorable || errors.Is(err, errStopped) {
			code = 1
		}
		return e.closeSession("import", db, code)
	},
}

// The import modes, as mongoimport names them.
const (
	modeInsert = "insert" // insert every document
	modeUpsert = "upsert" // replace the matching document, or insert
	modeMerge  = "merge"  // $set the document's fields in the matching one, or insert
	modeDelete = "delete" // delete the matching document
)

// The --parseGrace choices: what a typed CSV or TSV cell that does not
// fit its column's type does.
const (
	graceAutoCast  = "autoCast"  // type it as an untyped cell
	graceSkipField = "skipField" // leave the field out
	graceSkipRow   = "skipRow"   // leave the row out
	graceStop      = "stop"      // report the row as failed
)

// check validates the flags together, as mongoimport's validateSettings
// does, and fills in what they imply.
func (f *importFlags) check(fs *pflag.FlagSet) error {
	f.typ = strings.ToLower(f.typ) // as mongoimport reads it
	// As mongoimport: a batch size out of 1..1000 is 1000, fewer than
	// one insertion worker is one. (More than 64 are 64 here.)
	if f.batchSize < 1 || f.batchSize > 1000 {
		f.batchSize = 1000
	}
	f.workers = min(max(f.workers, 1), 64)
	switch f.typ {
	case "json":
		for _, n := range []string{"fields", "fieldFile", "headerline", "columnsHaveTypes", "ignoreBlanks"} {
			if fs.Changed(n) {
				return fmt.Errorf("cannot use --%s when input type is JSON", n)
			}
		}
	case "csv", "tsv":
		// --jsonArray is not refused: mongoimport ignores it here.
		if f.legacy {
			return errors.New("cannot use --legacy if input type is not JSON")
		}
		// Exactly one source of names, with mongoimport's messages.
		fields, fieldFile := fs.Changed("fields"), fs.Changed("fieldFile")
		switch {
		case f.headerline && fields:
			return errors.New("incompatible options: --fields and --headerline")
		case f.headerline && fieldFile:
			return errors.New("incompatible options: --fieldFile and --headerline")
		case f.headerline:
		case !fields && !fieldFile:
			return errors.New("must specify --fields, --fieldFile or --headerline to import this file type")
		case fieldFile && f.fieldFile == "":
			return errors.New("--fieldFile cannot be empty string")
		case fields && fieldFile:
			return errors.New("incompatible options: --fields and --fieldFile")
		}
		if fields {
			f.fields = splitFieldList(f.fieldList) // "" is one field named ""
		}
		if f.fieldFile != "" {
			names, err := readFieldFile(f.fieldFile)
			if err != nil {
				return fmt.Errorf("--fieldFile: %v", err)
			}
			f.fields = names
		}
		switch f.parseGrace {
		case graceAutoCast, graceSkipField, graceSkipRow, graceStop:
		default:
			return fmt.Errorf("invalid parse grace: %s", f.parseGrace)
		}
		var cols []csvField
		for _, s := range f.fields {
			c, err := parseFieldSpec(s, f.columnsHaveTypes)
			if err != nil {
				return fieldsError{err}
			}
			cols = append(cols, c)
		}
		if !f.headerline {
			if err := checkFieldNames(cols, f.useArrayIndexFields); err != nil {
				return fieldsError{err}
			}
		}
	default:
		return fmt.Errorf("unknown type %s (json, csv or tsv)", f.typ)
	}
	if f.upsert {
		f.mode = modeUpsert
	}
	if f.upsertFieldList != "" {
		switch f.mode {
		case "":
			f.mode = modeUpsert
		case modeInsert:
			return errors.New("cannot use --upsertFields with --mode=insert")
		}
		f.upsertFields = strings.Split(f.upsertFieldList, ",")
		var cols []csvField
		for _, name := range f.upsertFields {
			cols = append(cols, csvField{name: name, path: strings.Split(name, ".")})
		}
		if err := checkFieldNames(cols, f.useArrayIndexFields); err != nil {
			return fmt.Errorf("invalid --upsertFields argument: %v", err)
		}
	} else if f.mode != "" && f.mode != modeInsert {
		f.upsertFields = []string{"_id"}
	}
	switch f.mode {
	case "":
		f.mode = modeInsert
	case modeInsert, modeUpsert, modeMerge, modeDelete:
	default:
		// mongoimport's option parser's words.
		return fmt.Errorf("Invalid value `%s' for option `--mode'. Allowed values are: insert, upsert, merge or delete", f.mode)
	}
	// As in mongoimport: the modes that match documents keep the input
	// order, and keeping it stops at the first failure.
	if f.mode != modeInsert {
		f.maintainOrder = true
	}
	if f.maintainOrder {
		f.stopOnError = true
		f.workers = 1
	}
	return f.ts.check(fs)
}

// printCounts prints mongoimport's last line.
func printCounts(e *env, mode string, done, failed int64) {
	if mode == modeDelete {
		fmt.Fprintf(e.stderr, "%d document(s) deleted successfully. %d document(s) failed to delete.\n", done, failed)
	} else {
		fmt.Fprintf(e.stderr, "%d document(s) imported successfully. %d document(s) failed to import.\n", done, failed)
	}
}

// fieldsError is a bad --fields or --fieldFile name or type, which
// mongoimport reports after connecting, with its counts.
type fieldsError struct{ err error }

func (e fieldsError) Error() string { return e.err.Error() }
func (e fieldsError) Unwrap() error { return e.err }

// splitFieldList splits --fields at the commas outside parentheses, as
// mongoimport does, so a type argument may hold one (a date layout such
// as born.date(Jan 2, 2006)).
func splitFieldList(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, c := range s {
		switch c {
		case '(':
			depth++
		case ')':
			depth = max(depth-1, 0)
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// errStopped ends an import after --stopOnError saw a failure (already
// reported).
var errStopped = errors.New("stopped at the first error")

// importBatch is one insert (or upsert) command's worth of documents with
// the input line of each.
type importBatch struct {
	docs  bson.A
	lines []int
}

type importer struct {
	e    *env
	db   conn
	coll string
	f    *importFlags
	prog *progress
	// pending counts input bytes read but not yet given to prog (by the
	// reader).
	pending int64
	// parser parses JSON input on every core (JSON input only).
	parser *jsonParser

	batch      importBatch
	batchBytes int // input bytes in batch; a batch is sent at maxBatchBytes whatever its count

	// Insert commands run on f.workers goroutines fed by queue.
	queue chan importBatch
	wg    sync.WaitGroup

	mu         sync.Mutex // guards the counters below and stderr
	imported   int64
	failed     int64
	ignorable  int64 // of failed: duplicate keys and validation failures, which mongoimport goes past (exit 0)
	listed     int   // failures listed on stderr
	suppressed int64 // failures counted but not listed
	stopped    bool  // --stopOnError saw a failure
	sendErr    error // a command that failed as a whole

	// timeseries is set when the target is a time-series collection,
	// createdTS when this import created it.
	timeseries, createdTS bool
}

// start launches the insert workers.
func (im *importer) start() {
	n := im.f.workers
	if im.f.stopOnError {
		n = 1 // stop means: nothing after the first failure
	}
	im.queue = make(chan importBatch, n)
	for range n {
		im.wg.Add(1)
		go func() {
			defer im.wg.Done()
			for b := range im.queue {
				if im.halted() {
					continue // drain: a failure stopped the import
				}
				if err := im.flushBatch(b); err != nil {
					im.mu.Lock()
					if im.sendErr == nil && !errors.Is(err, errStopped) {
						im.sendErr = err
					}
					im.mu.Unlock()
				}
			}
		}()
	}
}

// halted reports whether the import must stop: a command failed, or
// --stopOnError saw a failure, or the context ended.
func (im *importer) halted() bool {
	im.mu.Lock()
	defer im.mu.Unlock()
	return im.sendErr != nil || im.stopped || im.e.ctx.Err() != nil
}

// finish sends the last batch and waits for the workers.
func (im *importer) finish() error {
	im.queueBatch()
	close(im.queue)
	im.wg.Wait()
	im.mu.Lock()
	defer im.mu.Unlock()
	switch {
	case im.sendErr != nil:
		return im.sendErr
	case im.stopped:
		return errStopped
	}
	return im.e.ctx.Err()
}

// parseError reports a document that could not be read.
func (im *importer) parseError(line int, err error) error {
	// A JSON syntax or Extended JSON error is reported as mongoimport
	// words it, without the server's code name.
	var de *document.Error
	if errors.As(err, &de) && de.Code == document.CodeFailedToParse {
		err = errors.New(strings.TrimPrefix(de.Message, "Extended JSON: "))
	}
	im.report(line, err)
	im.mu.Lock()
	im.failed++
	im.mu.Unlock()
	if im.f.stopOnError {
		// Stop reading; what was read before is still sent by finish.
		return errStopped
	}
	return nil
}

// report prints one failure, or counts it once maxErrorLines are shown.
func (im *importer) report(line int, msg any) {
	im.mu.Lock()
	defer im.mu.Unlock()
	if im.listed >= maxErrorLines {
		im.suppressed++
		return
	}
	im.listed++
	fmt.Fprintf(im.e.stderr, "line %d: %v\n", line, msg)
}

// add batches one document read from the given line.
func (im *importer) add(d bson.D, line, size int) error {
	im.prog.add(0, 1)
	im.batch.docs = append(im.batch.docs, d)
	im.batch.lines = append(im.batch.lines, line)
	im.batchBytes += size
	if len(im.batch.docs) >= im.f.batchSize || im.batchBytes >= maxBatchBytes {
		im.queueBatch()
		if im.halted() {
			if im.f.stopOnError {
				return errStopped
			}
			return im.e.ctx.Err()
		}
	}
	return nil
}

// queueBatch hands the current batch to the workers.
func (im *importer) queueBatch() {
	if len(im.batch.docs) == 0 {
		return
	}
	im.queue <- im.batch
	im.batch, im.batchBytes = importBatch{}, 0
}

// flushBatch sends one batch: one insert command in insert mode; in the
// other modes, one write per document, by the document's --upsertFields
// (a document that has none of them is inserted, or in delete mode
// skipped), as runs of consecutive writes of one kind in input order.
func (im *importer) flushBatch(b importBatch) error {
	ordered := im.f.maintainOrder
	if im.f.mode == modeInsert {
		return im.send(im.bypass(bson.D{{Key: "insert", Value: im.coll}, {Key: "documents", Value: b.docs}, {Key: "ordered", Value: ordered}}), b.lines)
	}
	var kind string // the command of the run: insert, update or delete
	var run bson.A
	var runLines []int
	flush := func() error {
		if len(run) == 0 {
			return nil
		}
		key := map[string]string{"insert": "documents", "update": "updates", "delete": "deletes"}[kind]
		cmd := bson.D{{Key: kind, Value: im.coll}, {Key: key, Value: run}, {Key: "ordered", Value: ordered}}
		if kind != "delete" {
			cmd = im.bypass(cmd)
		}
		err := im.send(cmd, runLines)
		run, runLines = nil, nil
		return err
	}
	for i, x := range b.docs {
		d := x.(bson.D)
		sel := upsertSelector(im.f.upsertFields, d)
		k, op := "insert", any(d)
		switch {
		case sel == nil && im.f.mode == modeDelete:
			continue // nothing to match it by
		case sel == nil:
		case im.f.mode == modeUpsert:
			k, op = "update", bson.D{{Key: "q", Value: sel}, {Key: "u", Value: d}, {Key: "upsert", Value: true}}
		case im.f.mode == modeMerge:
			k, op = "update", bson.D{{Key: "q", Value: sel}, {Key: "u", Value: bson.D{{Key: "$set", Value: d}}}, {Key: "upsert", Value: true}}
		case im.f.mode == modeDelete:
			k, op = "delete", bson.D{{Key: "q", Value: sel}, {Key: "limit", Value: int32(1)}}
		}
		if k != kind {
			if err := flush(); err != nil {
				return err
			}
			kind = k
		}
		run = append(run, op)
		runLines = append(runLines, b.lines[i])
	}
	return flush()
}

// bypass adds bypassDocumentValidation to an insert or update command
// when --bypassDocumentValidation asks for it.
func (im *importer) bypass(cmd bson.D) bson.D {
	if im.f.bypassValidation {
		cmd = append(cmd, bson.E{Key: "bypassDocumentValidation", Value: true})
	}
	return cmd
}

// upsertSelector returns the filter that matches a document in the modes
// other than insert: each of the fields (dotted paths reach into
// documents) equal to the document's value, null where it has none; nil
// when it has none of them.
func upsertSelector(fields []string, d bson.D) bson.D {
	sel := make(bson.D, 0, len(fields))
	found := false
	for _, f := range fields {
		v := upsertValue(d, f)
		found = found || v != nil
		sel = append(sel, bson.E{Key: f, Value: v})
	}
	if !found {
		return nil
	}
	return sel
}

// upsertValue returns the value at a dotted path of d, through
// documents only, or nil.
func upsertValue(d bson.D, path string) any {
	head, rest, dotted := strings.Cut(path, ".")
	v, ok := document.Get(d, head)
	if !ok || !dotted {
		return v
	}
	sub, ok := v.(bson.D)
	if !ok {
		return nil
	}
	return upsertValue(sub, rest)
}

// send runs a write command and reports each failed document by line.
func (im *importer) send(cmd bson.D, lines []int) error {
	reply, err := im.db.RunCommand(im.e.ctx, im.e.db, cmd)
	if err != nil {
		return err
	}
	we, _ := document.Get(reply, "writeErrors")
	errs, _ := we.(bson.A)
	ignorable := int64(0)
	for _, x := range errs {
		d, _ := x.(bson.D)
		switch num(d, "code") {
		case 11000, 11001, 12582, 121: // duplicate key, document validation
			ignorable++
		}
		i := num(d, "index")
		msg, _ := document.Get(d, "errmsg")
		line := 0
		if i >= 0 && int(i) < len(lines) {
			line = lines[i]
		}
		im.report(line, msg)
	}
	im.mu.Lock()
	defer im.mu.Unlock()
	// As mongoimport counts: what was inserted, upserted, changed or
	// deleted; an update that matched a document and left it as it was
	// is not counted.
	if _, ok := document.Get(reply, "nModified"); ok {
		up, _ := document.Get(reply, "upserted")
		ups, _ := up.(bson.A)
		im.imported += num(reply, "nModified") + int64(len(ups))
	} else {
		im.imported += num(reply, "n")
	}
	im.failed += int64(len(errs))
	im.ignorable += ignorable
	if len(errs) > 0 && im.f.stopOnError {
		im.stopped = true
		return errStopped
	}
	return nil
}

// dropEmptyTimeseries drops the time-series collection this import
// created when nothing could be imported into it (every measurement
// lacked the time field, say), so a failed import leaves nothing behind.
func (im *importer) dropEmptyTimeseries() {
	if !im.createdTS || im.imported > 0 {
		return
	}
	if _, err := do(im.e.ctx, im.db, im.e.db, bson.D{{Key: "drop", Value: im.coll}}); err == nil {
		fmt.Fprintf(im.e.stderr, "dropped the time-series collection %s.%s created by this import: nothing was imported into it\n", im.e.db, im.coll)
	}
}
