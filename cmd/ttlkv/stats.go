package main

import (
	"fmt"

	"github.com/spf13/pflag"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/doc"
	"github.com/ttlkv/ttlkv/engine"
)

type statsFlags struct{ json bool }

var statsCommand = &command{
	name:     "stats",
	summary:  "show what an operator needs: documents and index sizes per collection, disk use, TTL metrics",
	usage:    "ttlkv stats [--json]",
	examples: []string{"ttlkv stats", "ttlkv stats --json"},
	flags: func(fs *pflag.FlagSet) any {
		f := &statsFlags{}
		fs.BoolVar(&f.json, "json", false, "print {serverStatus, collections} as relaxed Extended JSON")
		return f
	},
	run: func(e *env, _ *pflag.FlagSet, cfg any, args []string) int {
		f := cfg.(*statsFlags)
		if len(args) > 0 {
			fmt.Fprintln(e.stderr, "ttlkv stats: takes no arguments")
			return 2
		}
		db, err := e.open(engine.Options{DisableTTLMonitor: true})
		if err != nil {
			return e.fail("stats", err)
		}
		return e.closeDB("stats", db, e.stats(db, f.json))
	},
}

func (e *env) stats(db *engine.DB, asJSON bool) int {
	status, err := do(e.ctx, db, "admin", bson.D{{Key: "serverStatus", Value: 1}})
	if err != nil {
		return e.fail("stats", err)
	}
	colls, _, err := collections(e.ctx, db)
	if err != nil {
		return e.fail("stats", err)
	}
	var per bson.A
	for _, c := range colls {
		st, err := do(e.ctx, db, c[0], bson.D{{Key: "collStats", Value: c[1]}})
		if err != nil {
			st = bson.D{{Key: "ns", Value: c[0] + "." + c[1]}, {Key: "error", Value: err.Error()}}
		}
		per = append(per, st)
	}
	if asJSON {
		out, err := doc.MarshalExtJSON(bson.D{{Key: "serverStatus", Value: status}, {Key: "collections", Value: per}}, false)
		if err != nil {
			return e.fail("stats", err)
		}
		fmt.Fprintln(e.stdout, string(out))
		return 0
	}
	w := e.stdout
	fmt.Fprintf(w, "data directory   %s\n", db.Dir())
	v, _ := doc.Get(status, "version")
	fmt.Fprintf(w, "engine version   %v\n", v)
	fmt.Fprintf(w, "disk use         %s (LSM %s, value log %s)\n",
		humanBytes(num(status, "storageEngine.lsmBytes")+num(status, "storageEngine.vlogBytes")),
		humanBytes(num(status, "storageEngine.lsmBytes")), humanBytes(num(status, "storageEngine.vlogBytes")))
	var docs, idx int64
	for _, x := range per {
		d := x.(bson.D)
		docs += num(d, "count")
		idx += num(d, "totalIndexSize")
	}
	fmt.Fprintf(w, "documents        %d in %d collection(s), index size %s\n", docs, len(per), humanBytes(idx))
	if len(per) > 0 {
		fmt.Fprintf(w, "\n%-32s %10s %10s %8s %10s  %s\n", "collection", "documents", "size", "indexes", "index size", "kind")
		for _, x := range per {
			d := x.(bson.D)
			ns, _ := doc.Get(d, "ns")
			if errV, bad := doc.Get(d, "error"); bad {
				fmt.Fprintf(w, "%-32v %v\n", ns, errV)
				continue
			}
			kind := ""
			if c, _ := doc.Get(d, "capped"); c == true {
				kind = fmt.Sprintf("capped (max %s)", humanBytes(num(d, "maxSize")))
			}
			fmt.Fprintf(w, "%-32v %10d %10s %8d %10s  %s\n", ns, num(d, "count"), humanBytes(num(d, "size")),
				num(d, "nindexes"), humanBytes(num(d, "totalIndexSize")), kind)
		}
	}
	fmt.Fprintf(w, "\noperations       insert %d, query %d, update %d, delete %d\n",
		num(status, "opcounters.insert"), num(status, "opcounters.query"), num(status, "opcounters.update"), num(status, "opcounters.delete"))
	fmt.Fprintf(w, "TTL monitor      %d document(s) deleted in %d pass(es), %d sub-pass(es)\n",
		num(status, "metrics.ttl.deletedDocuments"), num(status, "metrics.ttl.passes"), num(status, "metrics.ttl.subPasses"))
	fmt.Fprintf(w, "batched deletes  %d batch(es), %d document(s), %d ms\n",
		num(status, "batchedDeletes.batches"), num(status, "batchedDeletes.docs"), num(status, "batchedDeletes.timeInBatchMillis"))
	return 0
}
