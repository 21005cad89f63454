package main

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/doc"
	"github.com/ttlkv/ttlkv/engine"
)

type tailFlags struct {
	fromStart bool
	query     string
	canonical bool
	maxTimeMS int
}

var tailCommand = &command{
	name:    "tail",
	summary: "follow a capped collection with a tailable cursor, printing each new document as Extended JSON until Ctrl-C",
	usage:   "ttlkv tail COLL [--from-start] [--query EXTJSON]",
	examples: []string{
		`ttlkv tail log`,
		`ttlkv tail log --from-start --query '{"level": "error"}'`,
	},
	flags: func(fs *pflag.FlagSet) any {
		f := &tailFlags{}
		fs.BoolVar(&f.fromStart, "from-start", false, "print the documents already in the collection first")
		fs.StringVarP(&f.query, "query", "q", "", "only documents matching this filter (Extended JSON)")
		fs.BoolVar(&f.canonical, "canonical", false, "print canonical instead of relaxed Extended JSON")
		fs.IntVar(&f.maxTimeMS, "maxTimeMS", 1000, "how long each getMore waits for new documents")
		return f
	},
	run: func(e *env, _ *pflag.FlagSet, cfg any, args []string) int {
		f := cfg.(*tailFlags)
		if len(args) != 1 {
			fmt.Fprintln(e.stderr, "ttlkv tail: give exactly one collection name")
			return 2
		}
		filter := bson.D{}
		if f.query != "" {
			d, err := doc.ParseExtJSON([]byte(f.query))
			if err != nil {
				return e.fail("tail", fmt.Errorf("--query: %w", err))
			}
			filter = d
		}
		db, err := e.open(engine.Options{})
		if err != nil {
			return e.fail("tail", err)
		}
		return e.closeDB("tail", db, e.tail(db, args[0], filter, f))
	},
}

// tail prints documents as a tailable, awaitData cursor returns them.
// When the cursor ends (an empty or missing collection gives none, and
// a tailer that fell behind the capped overwrite loses its position) it
// starts a new one after a short wait, skipping what it has printed.
func (e *env) tail(db *engine.DB, coll string, filter bson.D, f *tailFlags) int {
	print := f.fromStart
	var seen int64
	for e.ctx.Err() == nil {
		find := bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: filter},
			{Key: "tailable", Value: true}, {Key: "awaitData", Value: true}}
		if seen > 0 {
			find = append(find, bson.E{Key: "skip", Value: seen})
		}
		reply, err := do(e.ctx, db, e.db, find)
		if err != nil {
			if e.ctx.Err() != nil {
				return 0
			}
			return e.fail("tail", err)
		}
		key := "firstBatch"
		for {
			cur, _ := doc.Get(reply, "cursor")
			cd, _ := cur.(bson.D)
			b, _ := doc.Get(cd, key)
			batch, _ := b.(bson.A)
			for _, x := range batch {
				seen++
				if !print {
					continue
				}
				out, err := doc.MarshalExtJSON(x, f.canonical)
				if err != nil {
					return e.fail("tail", err)
				}
				fmt.Fprintln(e.stdout, string(out))
			}
			id := cursorIDOf(cd)
			if len(batch) == 0 {
				print = true // caught up with what was there at the start
			}
			if id == 0 {
				break
			}
			key = "nextBatch"
			reply, err = do(e.ctx, db, e.db, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: coll}, {Key: "maxTimeMS", Value: int64(f.maxTimeMS)}})
			if err != nil {
				if e.ctx.Err() != nil {
					return 0
				}
				if codeOf(err) == doc.CodeCappedPositionLost {
					fmt.Fprintf(e.stderr, "ttlkv tail: %v; restarting\n", err)
					break
				}
				return e.fail("tail", err)
			}
		}
		print = true
		t := time.NewTimer(time.Duration(f.maxTimeMS) * time.Millisecond)
		select {
		case <-e.ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return 0
}
