package main

import (
	"fmt"
	"strings"

	"github.com/spf13/pflag"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
)

var checkCommand = &command{
	name:     "check",
	summary:  "validate every collection of every database; exit 1 listing each inconsistency",
	usage:    "ttlkv check [--change-log]",
	examples: []string{"ttlkv check", "ttlkv check --dir ./ttlkv-data"},
	flags: func(fs *pflag.FlagSet) any {
		return fs.Bool("change-log", false, "also rebuild the collections from the change log and compare (check_changes.go)")
	},
	run: func(e *env, _ *pflag.FlagSet, cfg any, args []string) int {
		if len(args) > 0 {
			fmt.Fprintln(e.stderr, "ttlkv check: takes no arguments")
			return 2
		}
		changeLog := *cfg.(*bool)
		db, err := e.open(engine.Options{DisableTTLMonitor: true, ChangeStreams: changeLog})
		if err != nil {
			return e.fail("check", err)
		}
		code := e.check(db)
		if changeLog {
			code = max(code, e.checkChangeLog(db))
		}
		return e.closeDB("check", db, code)
	},
}

// check validates every collection and prints one line per collection
// and one per problem, then each warning. It returns 1 if any
// collection is inconsistent; warnings alone leave it 0.
func (e *env) check(db *engine.DB) int {
	colls, _, err := collections(e.ctx, db)
	if err != nil {
		return e.fail("check", err)
	}
	bad, nWarned := 0, 0
	for _, c := range colls {
		ns := c[0] + "." + c[1]
		reply, err := do(e.ctx, db, c[0], bson.D{{Key: "validate", Value: c[1]}, {Key: "full", Value: true}})
		if err != nil {
			if codeOf(err) == document.CodeCommandNotSupportedOnView {
				fmt.Fprintf(e.stdout, "skip     %s (a view: it holds no documents of its own)\n", ns)
				continue
			}
			bad++
			fmt.Fprintf(e.stdout, "ERROR    %s: validate failed: %v\n", ns, err)
			continue
		}
		valid, _ := document.Get(reply, "valid")
		errsV, _ := document.Get(reply, "errors")
		errs, _ := errsV.(bson.A)
		warnsV, _ := document.Get(reply, "warnings")
		warns, _ := warnsV.(bson.A)
		// A warning (documents that fail the validator, say) leaves the
		// collection valid, as in mongod: it is printed but does not
		// make check fail.
		printWarnings := func() {
			for _, x := range warns {
				fmt.Fprintf(e.stdout, "         warning: %v\n", x)
			}
			nWarned += len(warns)
		}
		if valid == true && len(errs) == 0 {
			fmt.Fprintf(e.stdout, "ok       %s (%d records, %d indexes)\n", ns, num(reply, "nrecords"), num(reply, "nIndexes"))
			printWarnings()
			continue
		}
		bad++
		fmt.Fprintf(e.stdout, "INVALID  %s (%d records, %d indexes)\n", ns, num(reply, "nrecords"), num(reply, "nIndexes"))
		for _, x := range errs {
			fmt.Fprintf(e.stdout, "         - %v\n", x)
		}
		if len(errs) == 0 {
			fmt.Fprintln(e.stdout, "         - validate reported valid: false without details")
		}
		printEntries(e, reply, "missingIndexEntries", "missing")
		printEntries(e, reply, "extraIndexEntries", "extra")
		printWarnings()
	}
	if nWarned > 0 {
		fmt.Fprintf(e.stdout, "%d warning(s)\n", nWarned)
	}
	if bad > 0 {
		fmt.Fprintf(e.stdout, "%d of %d collection(s) inconsistent\n", bad, len(colls))
		return 1
	}
	fmt.Fprintf(e.stdout, "all %d collection(s) consistent\n", len(colls))
	return 0
}

// printEntries prints the index entries validate listed under field of
// its reply, one a line: what, the index, the record id, the _id of
// the document (a missing entry's) and the key.
func printEntries(e *env, reply bson.D, field, what string) {
	v, _ := document.Get(reply, field)
	entries, _ := v.(bson.A)
	for _, x := range entries {
		d, _ := x.(bson.D)
		name, _ := document.Get(d, "indexName")
		rid, _ := document.Get(d, "recordId")
		key, _ := document.Get(d, "indexKey")
		line := fmt.Sprintf("         %-8s index %v, record %v", what+":", name, document.Format(rid))
		if id, ok := document.Get(d, "idKey"); ok {
			line += ", " + strings.TrimSuffix(strings.TrimPrefix(document.Format(id), "{ "), " }")
		}
		fmt.Fprintf(e.stdout, "%s, key %s\n", line, document.Format(key))
	}
}
