package main

import (
	"bufio"
	"fmt"
	"io"
	"os"

	"github.com/schollz/progressbar/v3"
	"github.com/spf13/pflag"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
)

type exportFlags struct {
	query, sort, out, format string
	limit, skip              int64
}

var exportCommand = &command{
	name:    "export",
	summary: "write a collection as JSON lines of relaxed Extended JSON (mongoexport's format)",
	usage:   "ttlkv export COLL [--query EXTJSON] [--sort EXTJSON] [--limit N] [--skip N] [--out FILE]",
	examples: []string{
		`ttlkv export events`,
		`ttlkv export events --query '{"kind": "login"}' --sort '{"at": -1}' --limit 10`,
		`ttlkv export events --out events-backup.json`,
	},
	flags: func(fs *pflag.FlagSet) any {
		f := &exportFlags{}
		fs.StringVarP(&f.query, "query", "q", "", "filter, as Extended JSON")
		fs.StringVar(&f.sort, "sort", "", "sort specification, as Extended JSON")
		fs.Int64Var(&f.limit, "limit", 0, "export at most N documents (0: all)")
		fs.Int64Var(&f.skip, "skip", 0, "skip the first N documents")
		fs.StringVarP(&f.out, "out", "o", "", "output file (default stdout)")
		fs.StringVar(&f.format, "jsonFormat", "relaxed", "relaxed or canonical Extended JSON")
		return f
	},
	run: func(e *env, _ *pflag.FlagSet, cfg any, args []string) int {
		f := cfg.(*exportFlags)
		if len(args) != 1 {
			fmt.Fprintln(e.stderr, "ttlkv export: give exactly one collection name")
			return 2
		}
		if f.format != "relaxed" && f.format != "canonical" {
			fmt.Fprintln(e.stderr, "ttlkv export: --jsonFormat must be relaxed or canonical")
			return 2
		}
		coll := args[0]
		find := bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: bson.D{}}}
		for _, p := range []struct{ key, src string }{{"filter", f.query}, {"sort", f.sort}} {
			if p.src == "" {
				continue
			}
			d, err := document.ParseExtJSON([]byte(p.src))
			if err != nil {
				return e.fail("export", fmt.Errorf("--%s: %w", map[string]string{"filter": "query", "sort": "sort"}[p.key], err))
			}
			if p.key == "filter" {
				find[1].Value = d
			} else {
				find = append(find, bson.E{Key: "sort", Value: d})
			}
		}
		if f.limit > 0 {
			find = append(find, bson.E{Key: "limit", Value: f.limit})
		}
		if f.skip > 0 {
			find = append(find, bson.E{Key: "skip", Value: f.skip})
		}
		db, err := e.open(engine.Options{DisableTTLMonitor: true})
		if err != nil {
			return e.fail("export", err)
		}
		var w io.Writer = e.stdout
		var file *os.File
		if f.out != "" {
			if file, err = os.Create(f.out); err != nil {
				return e.closeDB("export", db, e.fail("export", err))
			}
			w = file
		}
		bw := bufio.NewWriter(w)
		var bar *progressbar.ProgressBar
		if e.isTerm(e.stderr) && (f.out != "" || !e.isTerm(e.stdout)) {
			total := int64(-1)
			if r, err := do(e.ctx, db, e.db, bson.D{{Key: "count", Value: coll}, {Key: "query", Value: find[1].Value}}); err == nil {
				total = num(r, "n")
				if f.limit > 0 && f.limit < total {
					total = f.limit
				}
			}
			bar = progressbar.NewOptions64(total, progressbar.OptionSetWriter(e.stderr), progressbar.OptionSetDescription("exporting "+coll),
				progressbar.OptionShowCount(), progressbar.OptionShowIts(), progressbar.OptionSetItsString("docs"),
				progressbar.OptionSetPredictTime(true), progressbar.OptionClearOnFinish())
		}
		n := 0
		var werr error
		err = drain(e.ctx, db, e.db, coll, find, func(d bson.D) bool {
			b, err := document.MarshalExtJSON(d, f.format == "canonical")
			if err != nil {
				werr = err
				return false
			}
			b = append(b, '\n')
			if _, err := bw.Write(b); err != nil {
				werr = err
				return false
			}
			n++
			if bar != nil {
				_ = bar.Add(1)
			}
			return true
		})
		if err == nil {
			err = werr
		}
		if ferr := bw.Flush(); err == nil {
			err = ferr
		}
		if file != nil {
			if cerr := file.Close(); err == nil {
				err = cerr
			}
		}
		if bar != nil {
			_ = bar.Finish()
		}
		if err != nil {
			return e.closeDB("export", db, e.fail("export", err))
		}
		fmt.Fprintf(e.stderr, "exported %d record(s)\n", n)
		return e.closeDB("export", db, 0)
	},
}
