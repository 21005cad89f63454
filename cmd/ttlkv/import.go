package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/pflag"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
)

type importFlags struct {
	mode        string
	stopOnError bool
	batchSize   int
	drop        bool
	ts          tsFlags
}

// maxJSONArray is mongoimport's limit on a --jsonArray input, which is
// read whole.
const maxJSONArray = 16 << 20

var importCommand = &command{
	name:    "import",
	summary: "load JSON lines or a JSON array of Extended JSON documents into a collection (mongoimport's formats)",
	usage:   "ttlkv import COLL [FILE] [--mode insert|upsert] [--stopOnError] [--batchSize N] [--drop] [--timeField F [--metaField M] [--granularity G] [--expireAfterSeconds N]]",
	examples: []string{
		`ttlkv import events events.json`,
		`ttlkv import events events.json --mode upsert`,
		`ttlkv import events --stopOnError < events.json`,
		`ttlkv import weather weather.json --timeField timestamp --metaField metadata --granularity hours --expireAfterSeconds 86400`,
	},
	flags: func(fs *pflag.FlagSet) any {
		f := &importFlags{}
		fs.StringVar(&f.mode, "mode", "insert", "insert: add documents (duplicate _id is an error); upsert: replace documents with the same _id")
		fs.BoolVar(&f.stopOnError, "stopOnError", false, "stop at the first bad line or failed document (what was imported before it stays)")
		fs.IntVar(&f.batchSize, "batchSize", 1000, "documents per insert command")
		fs.BoolVar(&f.drop, "drop", false, "drop the collection first")
		f.ts.register(fs)
		return f
	},
	run: func(e *env, fs *pflag.FlagSet, cfg any, args []string) int {
		f := cfg.(*importFlags)
		if len(args) < 1 || len(args) > 2 {
			fmt.Fprintln(e.stderr, "ttlkv import: give a collection name and, optionally, a file (default stdin)")
			return 2
		}
		if f.mode != "insert" && f.mode != "upsert" {
			fmt.Fprintf(e.stderr, "ttlkv import: --mode must be insert or upsert, not %q\n", f.mode)
			return 2
		}
		if f.batchSize < 1 || f.batchSize > maxWriteBatch {
			fmt.Fprintf(e.stderr, "ttlkv import: --batchSize must be between 1 and %d (maxWriteBatchSize)\n", maxWriteBatch)
			return 2
		}
		if err := f.ts.check(fs); err != nil {
			fmt.Fprintf(e.stderr, "ttlkv import: %v\n", err)
			return 2
		}
		in, size, name := e.stdin, int64(-1), "stdin"
		if len(args) == 2 {
			file, err := os.Open(args[1])
			if err != nil {
				return e.fail("import", err)
			}
			defer file.Close()
			if fi, err := file.Stat(); err == nil {
				size = fi.Size()
			}
			in, name = file, args[1]
		}
		db, err := e.open(engine.Options{})
		if err != nil {
			return e.fail("import", err)
		}
		imp := &importer{e: e, db: db, coll: args[0], f: f}
		if f.drop {
			if _, err := do(e.ctx, db, e.db, bson.D{{Key: "drop", Value: args[0]}}); err != nil && codeOf(err) != document.CodeNamespaceNotFound {
				return e.closeDB("import", db, e.fail("import", err))
			}
		}
		if err := imp.prepareTimeseries(fs); err != nil {
			return e.closeDB("import", db, e.fail("import", err))
		}
		if e.isTerm(e.stderr) {
			imp.bar = progressbar.NewOptions64(size, progressbar.OptionSetWriter(e.stderr), progressbar.OptionShowBytes(true),
				progressbar.OptionSetDescription("importing "+name), progressbar.OptionSetPredictTime(true),
				progressbar.OptionShowElapsedTimeOnFinish(), progressbar.OptionClearOnFinish())
		}
		err = imp.read(in)
		if err == nil {
			err = imp.flush()
		}
		if imp.bar != nil {
			_ = imp.bar.Finish()
		}
		fmt.Fprintf(e.stderr, "%d document(s) imported successfully. %d document(s) failed to import.\n", imp.imported, imp.failed)
		code := 0
		if err != nil && !errors.Is(err, errStopped) {
			fmt.Fprintf(e.stderr, "ttlkv import: %v\n", err)
			code = 1
		}
		if imp.failed > 0 || errors.Is(err, errStopped) {
			code = 1
		}
		return e.closeDB("import", db, code)
	},
}

// errStopped ends an import after --stopOnError saw a failure (already
// reported).
var errStopped = errors.New("stopped at the first error")

type importer struct {
	e     *env
	db    *engine.DB
	coll  string
	f     *importFlags
	bar   *progressbar.ProgressBar
	batch bson.A
	lines []int // input line of each batched document
	// batchBytes is the input size of the batch; a batch is sent at
	// maxBatchBytes whatever its count.
	batchBytes int
	imported   int64
	failed     int64
	// timeseries is set when the target is a time-series collection.
	timeseries bool
}

// read parses the input, JSON lines or one JSON array, batching
// documents; a bad document is reported with its line number.
func (im *importer) read(in io.Reader) error {
	br := bufio.NewReaderSize(in, 1<<20)
	head, _ := br.Peek(64 << 10)
	head = bytes.TrimPrefix(head, []byte("\xef\xbb\xbf"))
	if t := bytes.TrimLeft(head, " \t\r\n"); len(t) > 0 && t[0] == '[' {
		return im.readArray(br)
	}
	line := 0
	for {
		text, err := br.ReadBytes('\n')
		if len(text) > 0 {
			line++
			if im.bar != nil {
				_ = im.bar.Add(len(text))
			}
			if t := bytes.TrimSpace(text); len(t) > 0 {
				if perr := im.add(t, line); perr != nil {
					return perr
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

func (im *importer) readArray(br *bufio.Reader) error {
	data, err := io.ReadAll(io.LimitReader(br, maxJSONArray+1))
	if err != nil {
		return err
	}
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if len(data) > maxJSONArray {
		return fmt.Errorf("a JSON array input is limited to %d bytes (as mongoimport's --jsonArray); use JSON lines for more", maxJSONArray)
	}
	if im.bar != nil {
		_ = im.bar.Add(len(data))
	}
	lineAt := func(off int64) int { return bytes.Count(data[:off], []byte("\n")) + 1 }
	dec := json.NewDecoder(bytes.NewReader(data))
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("line 1: %v", err)
	}
	for dec.More() {
		start := dec.InputOffset()
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			im.failed++
			return fmt.Errorf("line %d: malformed JSON: %v (the rest of the array cannot be read)", lineAt(start), err)
		}
		// Skip the separator and whitespace to find the element's line.
		rest := data[start:]
		off := start + int64(len(rest)-len(bytes.TrimLeft(rest, ", \t\r\n")))
		if err := im.add(raw, lineAt(off)); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil {
		return fmt.Errorf("line %d: %v", lineAt(dec.InputOffset()), err)
	}
	return nil
}

// add parses one document and batches it.
func (im *importer) add(text []byte, line int) error {
	d, err := document.ParseExtJSON(text)
	if err != nil {
		im.failed++
		fmt.Fprintf(im.e.stderr, "line %d: %v\n", line, err)
		if im.f.stopOnError {
			if ferr := im.flush(); ferr != nil {
				return ferr
			}
			return errStopped
		}
		return nil
	}
	im.batch = append(im.batch, d)
	im.lines = append(im.lines, line)
	im.batchBytes += len(text)
	if len(im.batch) >= im.f.batchSize || im.batchBytes >= maxBatchBytes {
		return im.flush()
	}
	return nil
}

// flush sends the batch: one insert command, or one update command of
// upserts by _id (documents without _id are inserted).
func (im *importer) flush() error {
	if len(im.batch) == 0 {
		return nil
	}
	batch, lines := im.batch, im.lines
	im.batch, im.lines, im.batchBytes = nil, nil, 0
	ordered := im.f.stopOnError
	var cmd bson.D
	if im.f.mode == "upsert" {
		var ups bson.A
		var withoutID bson.A
		var upLines, insLines []int
		for i, x := range batch {
			d := x.(bson.D)
			if id, ok := document.Get(d, "_id"); ok {
				ups = append(ups, bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: id}}}, {Key: "u", Value: d}, {Key: "upsert", Value: true}})
				upLines = append(upLines, lines[i])
			} else {
				withoutID = append(withoutID, d)
				insLines = append(insLines, lines[i])
			}
		}
		if len(ups) > 0 {
			if err := im.send(bson.D{{Key: "update", Value: im.coll}, {Key: "updates", Value: ups}, {Key: "ordered", Value: ordered}}, upLines, true); err != nil {
				return err
			}
		}
		if len(withoutID) == 0 {
			return nil
		}
		batch, lines = withoutID, insLines
	}
	cmd = bson.D{{Key: "insert", Value: im.coll}, {Key: "documents", Value: batch}, {Key: "ordered", Value: ordered}}
	return im.send(cmd, lines, false)
}

// send runs a write command and reports each failed document by line.
func (im *importer) send(cmd bson.D, lines []int, upsert bool) error {
	reply, err := im.db.RunCommand(im.e.ctx, im.e.db, cmd)
	if err != nil {
		return err
	}
	n := num(reply, "n")
	im.imported += n
	we, _ := document.Get(reply, "writeErrors")
	errs, _ := we.(bson.A)
	for _, x := range errs {
		d, _ := x.(bson.D)
		i := num(d, "index")
		msg, _ := document.Get(d, "errmsg")
		line := 0
		if i >= 0 && int(i) < len(lines) {
			line = lines[i]
		}
		fmt.Fprintf(im.e.stderr, "line %d: %v\n", line, msg)
	}
	im.failed += int64(len(errs))
	if len(errs) > 0 && im.f.stopOnError {
		return errStopped
	}
	return nil
}
