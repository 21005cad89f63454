package mongosh

import (
	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// changeStream is mongosh's ChangeStreamCursor: db.coll.watch(),
// db.watch() (coll ""), followed with aggregate $changeStream and
// getMore (docs/change-streams.md).
type changeStream struct {
	s        *Shell
	db, coll string // coll "$cmd.aggregate" for a database stream
	id       int64
	buf      bson.A
	token    any
	maxAwait int64 // getMore's maxTimeMS
	closed   bool
}

// watchOptions are the watch() options that are cursor options, not
// $changeStream fields.
var watchOptions = map[string]bool{"batchSize": true, "maxAwaitTimeMS": true, "collation": true, "comment": true}

// watch opens a change stream on db.coll (coll "": the database) with
// a pipeline and mongosh's watch options, and returns its cursor object.
func (s *Shell) watch(db, coll string, pipelineArg, optsArg goja.Value) goja.Value {
	return s.watchWith(db, coll, pipelineArg, optsArg, nil)
}

// watchWith is watch with stage's fields first in the $changeStream
// stage (Mongo.watch's allChangesForCluster).
func (s *Shell) watchWith(db, coll string, pipelineArg, optsArg goja.Value, stage bson.D) goja.Value {
	var pipeline bson.A
	if !goja.IsUndefined(pipelineArg) && !goja.IsNull(pipelineArg) {
		p, err := s.toBSON(pipelineArg, 0)
		s.check(err)
		var ok bool
		if pipeline, ok = p.(bson.A); !ok {
			s.throw("MongoshInvalidInputError", "watch: the pipeline must be an array, got %s", s.describe(pipelineArg))
		}
	}
	opts := s.optDoc(optsArg, "options")
	stage = append(bson.D{}, stage...)
	cs := &changeStream{s: s, db: db, coll: coll, maxAwait: 1000}
	cursor := bson.D{}
	for _, e := range opts {
		switch {
		case e.Key == "maxAwaitTimeMS":
			switch n := e.Value.(type) {
			case int32:
				cs.maxAwait = int64(n)
			case int64:
				cs.maxAwait = n
			case float64:
				cs.maxAwait = int64(n)
			}
		case e.Key == "batchSize":
			cursor = append(cursor, e)
		case watchOptions[e.Key]:
		default:
			stage = append(stage, e)
		}
	}
	var agg any = coll
	if coll == "" {
		agg, cs.coll = int32(1), "$cmd.aggregate"
	}
	full := append(bson.A{bson.D{{Key: "$changeStream", Value: stage}}}, pipeline...)
	r := s.command(db, bson.D{{Key: "aggregate", Value: agg}, {Key: "pipeline", Value: full}, {Key: "cursor", Value: cursor}})
	cs.take(r, "firstBatch")
	return cs.object()
}

// take reads a cursor reply's batch, id and postBatchResumeToken.
func (cs *changeStream) take(r bson.D, key string) {
	cur, _ := document.Get(r, "cursor")
	cd, _ := cur.(bson.D)
	b, _ := document.Get(cd, key)
	cs.buf, _ = b.(bson.A)
	cs.id = cursorID(cd)
	if t, ok := document.Get(cd, "postBatchResumeToken"); ok && len(cs.buf) == 0 {
		cs.token = t
	}
}

// more runs one getMore, waiting up to maxAwait for events.
func (cs *changeStream) more(wait int64) {
	if cs.id == 0 || cs.closed {
		return
	}
	r := cs.s.command(cs.db, bson.D{{Key: "getMore", Value: cs.id}, {Key: "collection", Value: cs.coll}, {Key: "maxTimeMS", Value: wait}})
	cs.take(r, "nextBatch")
}

// pop returns the next buffered event, or nil.
func (cs *changeStream) pop() goja.Value {
	if len(cs.buf) == 0 {
		return goja.Null()
	}
	d := cs.buf[0]
	cs.buf = cs.buf[1:]
	if dd, ok := d.(bson.D); ok {
		if id, ok := document.Get(dd, "_id"); ok {
			cs.token = id
		}
	}
	return cs.s.toJS(d)
}

func (cs *changeStream) object() *goja.Object {
	s := cs.s
	rt := s.rt
	o := rt.NewObject()
	m := func(name string, f func(a goja.FunctionCall) goja.Value) {
		_ = o.DefineDataProperty(name, s.named(name, f), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	// hasNext blocks until an event arrives (or the stream ends or the
	// shell is interrupted), as mongosh's does.
	m("hasNext", func(goja.FunctionCall) goja.Value {
		for len(cs.buf) == 0 && cs.id != 0 && !cs.closed && s.ctx.Err() == nil {
			cs.more(cs.maxAwait)
		}
		return rt.ToValue(len(cs.buf) > 0)
	})
	m("next", func(goja.FunctionCall) goja.Value {
		for len(cs.buf) == 0 && cs.id != 0 && !cs.closed && s.ctx.Err() == nil {
			cs.more(cs.maxAwait)
		}
		if len(cs.buf) == 0 {
			s.throw("MongoshInvalidInputError", "the change stream is closed")
		}
		return cs.pop()
	})
	// tryNext returns the next event, or null when none is available now.
	m("tryNext", func(goja.FunctionCall) goja.Value {
		if len(cs.buf) == 0 {
			cs.more(0)
		}
		return cs.pop()
	})
	m("getResumeToken", func(goja.FunctionCall) goja.Value { return s.toJS(cs.token) })
	m("isClosed", func(goja.FunctionCall) goja.Value { return rt.ToValue(cs.closed || cs.id == 0) })
	m("isExhausted", func(goja.FunctionCall) goja.Value { return rt.ToValue((cs.closed || cs.id == 0) && len(cs.buf) == 0) })
	m("close", func(goja.FunctionCall) goja.Value {
		if cs.id != 0 && !cs.closed {
			_, _ = s.run.RunCommand(s.ctx, cs.db, bson.D{{Key: "killCursors", Value: cs.coll}, {Key: "cursors", Value: bson.A{cs.id}}})
		}
		cs.closed, cs.buf = true, nil
		return goja.Undefined()
	})
	m("toString", func(goja.FunctionCall) goja.Value {
		return rt.ToValue("ChangeStreamCursor on " + cs.db + "." + cs.coll)
	})
	return o
}
