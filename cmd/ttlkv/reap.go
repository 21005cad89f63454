package main

import (
	"fmt"

	"github.com/spf13/pflag"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
)

type reapFlags struct{ json bool }

var reapCommand = &command{
	name:     "reap",
	summary:  "run one TTL pass now (delete every expired document) and print what it deleted",
	usage:    "ttlkv reap [--json]",
	examples: []string{"ttlkv reap", "ttlkv reap --json"},
	flags: func(fs *pflag.FlagSet) any {
		f := &reapFlags{}
		fs.BoolVar(&f.json, "json", false, "print the runTTLPass reply as relaxed Extended JSON")
		return f
	},
	run: func(e *env, _ *pflag.FlagSet, cfg any, args []string) int {
		f := cfg.(*reapFlags)
		if len(args) > 0 {
			fmt.Fprintln(e.stderr, "ttlkv reap: takes no arguments")
			return 2
		}
		db, err := e.open(engine.Options{DisableTTLMonitor: true})
		if err != nil {
			return e.fail("reap", err)
		}
		// The pass itself rather than the runTTLPass command: an
		// interrupted pass (Ctrl-C) still reports what it deleted.
		res, err := db.RunTTLPass(e.ctx)
		if err != nil {
			if res != nil && res.Deleted > 0 {
				fmt.Fprintf(e.stdout, "TTL pass interrupted after deleting %d expired document(s)\n", res.Deleted)
				printTTLIndexes(e, res.Reply())
			}
			return e.closeDB("reap", db, e.fail("reap", err))
		}
		reply := res.Reply()
		if f.json {
			out, err := document.MarshalExtJSON(reply, false)
			if err != nil {
				return e.closeDB("reap", db, e.fail("reap", err))
			}
			fmt.Fprintln(e.stdout, string(out))
			return e.closeDB("reap", db, 0)
		}
		fmt.Fprintf(e.stdout, "TTL pass: deleted %d expired document(s) in %d sub-pass(es)\n", num(reply, "deleted"), num(reply, "subPasses"))
		printTTLIndexes(e, reply)
		return e.closeDB("reap", db, 0)
	},
}

// printTTLIndexes prints the per-index lines of a runTTLPass reply.
func printTTLIndexes(e *env, reply bson.D) {
	idx, _ := document.Get(reply, "indexes")
	arr, _ := idx.(bson.A)
	for _, x := range arr {
		d, _ := x.(bson.D)
		ns, _ := document.Get(d, "ns")
		name, _ := document.Get(d, "index")
		fmt.Fprintf(e.stdout, "  %v index %v: %d deleted\n", ns, name, num(d, "deleted"))
	}
}
