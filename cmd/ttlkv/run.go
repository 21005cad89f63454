package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
)

type runFlags struct{ canonical bool }

var runCommand = &command{
	remote:  true,
	name:    "run",
	summary: "run one database command given as Extended JSON and print the reply",
	usage:   "ttlkv run [--db NAME] [--canonical] 'COMMAND'",
	notes: `The reply is printed to stdout. The exit code is 0 when the command succeeded, 1 when it failed
(ok: 0) or when its reply carries writeErrors or a writeConcernError, as mongo-tools treat them:
an insert, update or delete that failed for some documents fails the script; stderr says so.`,
	examples: []string{
		`ttlkv run '{"ping": 1}'`,
		`ttlkv run '{"insert": "events", "documents": [{"at": {"$date": "2024-01-01T00:00:00Z"}}]}'`,
		`ttlkv run '{"createIndexes": "events", "indexes": [{"key": {"at": 1}, "name": "at_1", "expireAfterSeconds": 3600}]}'`,
		`ttlkv run --db admin '{"getParameter": 1, "ttlMonitorSleepSecs": 1}'`,
	},
	flags: func(fs *pflag.FlagSet) any {
		f := &runFlags{}
		fs.BoolVar(&f.canonical, "canonical", false, "print canonical instead of relaxed Extended JSON")
		return f
	},
	run: func(e *env, _ *pflag.FlagSet, cfg any, args []string) int {
		f := cfg.(*runFlags)
		if len(args) != 1 {
			fmt.Fprintln(e.stderr, "ttlkv run: give exactly one command document, e.g. ttlkv run '{\"ping\": 1}'")
			return 2
		}
		cmd, err := document.ParseExtJSON([]byte(args[0]))
		if err != nil {
			return e.fail("run", err)
		}
		if len(cmd) == 0 {
			return e.fail("run", fmt.Errorf("the command document is empty"))
		}
		db, err := e.connect(engine.Options{})
		if err != nil {
			return e.fail("run", err)
		}
		reply, cmdErr := db.RunCommand(e.ctx, e.db, cmd)
		code := 0
		if cmdErr != nil || !document.ReplyOK(reply) {
			code = 1
		}
		if msg := writeFailure(reply); msg != "" && code == 0 {
			fmt.Fprintf(e.stderr, "ttlkv run: %s\n", msg)
			code = 1
		}
		if reply != nil {
			out, err := document.MarshalExtJSON(reply, f.canonical)
			if err != nil {
				return e.closeSession("run", db, e.fail("run", err))
			}
			fmt.Fprintln(e.stdout, string(out))
		} else if cmdErr != nil {
			fmt.Fprintf(e.stderr, "ttlkv run: %v\n", cmdErr)
		}
		return e.closeSession("run", db, code)
	},
}

// writeFailure describes the write errors or write concern error an ok: 1
// reply carries ("" if none).
func writeFailure(reply bson.D) string {
	var parts []string
	if v, ok := document.Get(reply, "writeErrors"); ok {
		if errs, _ := v.(bson.A); len(errs) > 0 {
			first, _ := errs[0].(bson.D)
			msg, _ := document.Get(first, "errmsg")
			parts = append(parts, fmt.Sprintf("%d write error(s), the first at index %d: %v", len(errs), num(first, "index"), msg))
		}
	}
	if v, ok := document.Get(reply, "writeConcernError"); ok {
		wce, _ := v.(bson.D)
		msg, _ := document.Get(wce, "errmsg")
		parts = append(parts, fmt.Sprintf("write concern error: %v", msg))
	}
	return strings.Join(parts, "; ")
}
