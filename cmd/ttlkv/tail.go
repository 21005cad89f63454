package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/pflag"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
)

type tailFlags struct {
	fromStart bool
	query     string
	canonical bool
	maxTimeMS int
}

var tailCommand = &command{
	remote:  true,
	name:    "tail",
	summary: "follow a capped collection with a tailable cursor, printing each new document as Extended JSON until Ctrl-C",
	usage:   "ttlkv tail COLL [--from-start] [--query EXTJSON]",
	notes: `If tail falls so far behind that documents it has not read yet are overwritten, it prints a
warning to stderr saying how far behind it was and which documents were lost, and continues from
the oldest document still present (nothing is printed twice). A data directory is opened by one
process at a time: to follow the writes of another process, run 'ttlkv serve' on the directory and
tail through it with --uri mongodb://127.0.0.1:27017 (or tail a MongoDB server the same way).
A collection that does not exist is an error (exit 1), as a tailable cursor on it would end at
once in MongoDB; create it first, e.g. db.createCollection("log", {capped: true, size: 1048576}).
One that is dropped while tail runs is waited for.`,
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
		if f.maxTimeMS < 1 {
			fmt.Fprintln(e.stderr, "ttlkv tail: --maxTimeMS must be at least 1")
			return 2
		}
		filter := bson.D{}
		if f.query != "" {
			d, err := document.ParseExtJSON([]byte(f.query))
			if err != nil {
				return e.fail("tail", fmt.Errorf("--query: %w", err))
			}
			filter = d
		}
		db, err := e.connect(engine.Options{})
		if err != nil {
			return e.fail("tail", err)
		}
		info, err := collectionInfo(e, db, args[0])
		if err != nil {
			return e.closeSession("tail", db, e.fail("tail", err))
		}
		if info == nil {
			return e.closeSession("tail", db, e.fail("tail", fmt.Errorf("namespace %s.%s does not exist; tail follows a capped collection: create it first, e.g. db.createCollection(%q, {capped: true, size: 1048576})", e.db, args[0], args[0])))
		}
		return e.closeSession("tail", db, e.tail(db, args[0], filter, f))
	},
}

// tailState is what tail knows about its progress: how many documents
// it has printed, the _id of the last one, and whether it is still
// passing over the documents that were there when it started.
type tailState struct {
	printed  int64
	lastID   any  // _id of the last printed document; nil before the first
	skipping bool // not --from-start: documents present at the start are not printed
	resumed  bool // position lost: say where printing resumes at the next document
}

// tail follows coll with a tailable awaitData cursor, printing each
// document as Extended JSON, until e.ctx ends (exit 0) or a command fails
// (exit 1).
//
// A capped collection overwrites its oldest documents; a tailer that
// falls so far behind that the next document it needs is overwritten
// gets 136 CappedPositionLost. tail then warns on stderr, saying how far
// behind it was and which documents were lost, and continues from the
// oldest document still present. Every document present then is newer
// than every document printed, so nothing is printed twice, and nothing
// is skipped silently. A cursor that ends without error (the collection
// is empty or missing) or whose collection is dropped (175) is started
// again after --maxTimeMS.
func (e *env) tail(db conn, coll string, filter bson.D, f *tailFlags) int {
	st := &tailState{skipping: !f.fromStart}
	for e.ctx.Err() == nil {
		err := e.tailCursor(db, coll, filter, f, st)
		switch {
		case e.ctx.Err() != nil:
			return 0
		case codeOf(err) == document.CodeCappedPositionLost:
			e.tailLost(db, coll, err, st)
			continue // at once: the writers are ahead
		case codeOf(err) == document.CodeQueryPlanKilled:
			fmt.Fprintf(e.stderr, "ttlkv tail: %s.%s was dropped; waiting for it to be created again\n", e.db, coll)
			st.skipping = false // a new collection: everything in it is new
		case err != nil:
			return e.fail("tail", err)
		}
		t := time.NewTimer(time.Duration(f.maxTimeMS) * time.Millisecond)
		select {
		case <-e.ctx.Done():
		case <-t.C:
		}
		t.Stop()
	}
	return 0
}

// tailCursor runs one tailable cursor from the oldest document until it
// ends (nil) or fails.
func (e *env) tailCursor(db conn, coll string, filter bson.D, f *tailFlags, st *tailState) error {
	reply, err := do(e.ctx, db, e.db, bson.D{{Key: "find", Value: coll}, {Key: "filter", Value: filter},
		{Key: "tailable", Value: true}, {Key: "awaitData", Value: true}})
	if err != nil {
		return err
	}
	key := "firstBatch"
	for {
		cur, _ := document.Get(reply, "cursor")
		cd, _ := cur.(bson.D)
		b, _ := document.Get(cd, key)
		batch, _ := b.(bson.A)
		for _, x := range batch {
			if st.skipping {
				continue
			}
			d, _ := x.(bson.D)
			out, err := document.MarshalExtJSON(d, f.canonical)
			if err != nil {
				return err
			}
			if st.resumed {
				st.resumed = false
				fmt.Fprintf(e.stderr, "ttlkv tail: continuing from the oldest document still present, _id %s\n", extJSON(idOf(d)))
			}
			fmt.Fprintln(e.stdout, string(out))
			st.printed++
			st.lastID = idOf(d)
		}
		id := cursorIDOf(cd)
		if len(batch) == 0 || id == 0 {
			st.skipping = false // caught up with what was there at the start
		}
		if e.tailHook != nil {
			e.tailHook(st.printed, len(batch))
		}
		if id == 0 {
			return nil
		}
		key = "nextBatch"
		reply, err = do(e.ctx, db, e.db, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: coll}, {Key: "maxTimeMS", Value: int64(f.maxTimeMS)}})
		if err != nil {
			return err
		}
	}
}

// tailLost reports a lost position: the next document the tailer needed
// was overwritten, so it was more documents behind than the collection
// holds now.
func (e *env) tailLost(db conn, coll string, err error, st *tailState) {
	held := "?"
	if r, cerr := do(e.ctx, db, e.db, bson.D{{Key: "count", Value: coll}}); cerr == nil {
		held = fmt.Sprint(num(r, "n"))
	}
	after := "the start"
	if st.lastID != nil {
		after = fmt.Sprintf("_id %s (the last printed; %d printed so far)", extJSON(st.lastID), st.printed)
	}
	if st.skipping {
		after = "the documents present at the start"
	}
	fmt.Fprintf(e.stderr, "ttlkv tail: WARNING: fell behind %s.%s by more than the %s document(s) it holds: "+
		"documents inserted after %s were overwritten before they could be read and are lost (%v)\n",
		e.db, coll, held, after, err)
	st.skipping = false
	st.resumed = true
}

func idOf(d bson.D) any {
	v, _ := document.Get(d, "_id")
	return v
}

// extJSON renders one value as relaxed Extended JSON.
func extJSON(v any) string {
	b, err := document.MarshalExtJSON(bson.D{{Key: "v", Value: v}}, false)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(strings.TrimPrefix(string(b), `{"v":`), "}")
}
