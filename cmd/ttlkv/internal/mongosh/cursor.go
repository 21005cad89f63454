package mongosh

import (
	"fmt"
	"strings"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// cursor is a find cursor: lazily built options until the first read,
// then the find command's batches followed with getMore.
type cursor struct {
	s       *Shell
	db      string
	coll    string
	filter  bson.D
	opts    bson.D // find command fields after filter, in the order set
	started bool
	id      int64
	buf     bson.A
	maps    []goja.Callable
	obj     *goja.Object
	// explainFn, when set, makes printing the cursor run explain.
	explainFn func() goja.Value
	// cmd, when set, is the command that opens the cursor instead of a
	// find (an aggregate); find's options cannot be set on it.
	cmd bson.D
	// sess is the session the cursor was made through, if any: its
	// commands are the session's.
	sess *session
	// maxAwait is maxAwaitTimeMS: how long a tailable awaitData
	// cursor's getMore waits for a document (its maxTimeMS); nil: the
	// server's default.
	maxAwait any
}

// inSession makes the cursor's session current until the returned
// function is called.
func (c *cursor) inSession() func() {
	prev := c.s.curSess
	c.s.curSess = c.sess
	return func() { c.s.curSess = prev }
}

func (c *cursor) String() string { return "Cursor(" + c.db + "." + c.coll + ")" }

// cursorOf returns the cursor behind a cursor object, or nil.
func (s *Shell) cursorOf(o *goja.Object) *cursor {
	v := o.GetSymbol(s.curSym)
	if v == nil {
		return nil
	}
	c, _ := v.Export().(*cursor)
	return c
}

func (c *cursor) set(key string, v any) {
	if c.cmd != nil {
		c.s.throw("MongoshInvalidInputError", "cursor.%s() is not available on an aggregation cursor; put the stage in the pipeline", key)
	}
	if c.started {
		c.s.throw("MongoshInvalidInputError", "cannot change a cursor's %s after it has started returning documents", key)
	}
	for i := range c.opts {
		if c.opts[i].Key == key {
			c.opts[i].Value = v
			return
		}
	}
	c.opts = append(c.opts, bson.E{Key: key, Value: v})
}

func (c *cursor) opt(key string) (any, bool) { return document.Get(c.opts, key) }

func (c *cursor) findCommand() bson.D {
	if c.cmd != nil {
		return c.cmd
	}
	cmd := bson.D{{Key: "find", Value: c.coll}, {Key: "filter", Value: c.filter}}
	return append(cmd, c.opts...)
}

// fill makes sure the buffer holds a document if the cursor has one
// now. A tailable cursor returns false when nothing new has arrived.
func (c *cursor) fill() bool {
	if len(c.buf) > 0 {
		return true
	}
	s := c.s
	defer c.inSession()()
	if !c.started {
		c.started = true
		r := s.command(c.db, c.findCommand())
		cur, _ := document.Get(r, "cursor")
		cd, _ := cur.(bson.D)
		fb, _ := document.Get(cd, "firstBatch")
		c.buf, _ = fb.(bson.A)
		c.id = cursorID(cd)
		if len(c.buf) > 0 {
			return true
		}
	}
	_, tailable := c.opt("tailable")
	for c.id != 0 {
		cmd := bson.D{{Key: "getMore", Value: c.id}, {Key: "collection", Value: c.coll}}
		if bs, ok := c.opt("batchSize"); ok {
			cmd = append(cmd, bson.E{Key: "batchSize", Value: bs})
		}
		if c.maxAwait != nil {
			cmd = append(cmd, bson.E{Key: "maxTimeMS", Value: c.maxAwait})
		}
		r := s.command(c.db, cmd)
		cur, _ := document.Get(r, "cursor")
		cd, _ := cur.(bson.D)
		nb, _ := document.Get(cd, "nextBatch")
		c.buf, _ = nb.(bson.A)
		c.id = cursorID(cd)
		if len(c.buf) > 0 {
			return true
		}
		if tailable {
			return false
		}
	}
	return false
}

func (c *cursor) exhaustedNow() bool { return c.started && c.id == 0 && len(c.buf) == 0 }

// next returns the next document, after the cursor's map functions.
func (c *cursor) next() goja.Value {
	if !c.fill() {
		return nil
	}
	d := c.buf[0]
	c.buf = c.buf[1:]
	v := c.s.toJS(d)
	for _, f := range c.maps {
		r, err := f(goja.Undefined(), v)
		if err != nil {
			panic(err)
		}
		v = r
	}
	return v
}

// take returns up to n documents.
func (c *cursor) take(n int) []goja.Value {
	var out []goja.Value
	for len(out) < n {
		v := c.next()
		if v == nil {
			break
		}
		out = append(out, v)
	}
	return out
}

func (c *cursor) close() {
	if c.id != 0 {
		id := c.id
		c.id = 0
		c.buf = nil
		_, _ = c.s.run.RunCommand(c.s.ctx, c.db, bson.D{{Key: "killCursors", Value: c.coll}, {Key: "cursors", Value: bson.A{id}}})
	}
}

// newCursor makes the JavaScript cursor object for a find.
func (s *Shell) newCursor(db, coll string, filter bson.D, opts bson.D) *goja.Object {
	rt := s.rt
	c := &cursor{s: s, db: db, coll: coll, filter: filter, opts: opts, sess: s.curSess}
	o := rt.NewObject()
	c.obj = o
	_ = o.DefineDataPropertySymbol(s.curSym, rt.ToValue(c), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	m := func(name string, f func(a goja.FunctionCall) goja.Value) {
		_ = o.DefineDataProperty(name, rt.ToValue(f), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	self := func(a goja.FunctionCall) goja.Value { return o }
	docOpt := func(key string) {
		m(key, func(a goja.FunctionCall) goja.Value {
			d, err := s.toBSONDoc(a.Argument(0), key)
			s.check(err)
			if key == "sort" {
				d = s.sortDirections(d)
			}
			c.set(key, d)
			return o
		})
	}
	numOpt := func(key string, neg bool) {
		m(key, func(a goja.FunctionCall) goja.Value {
			arg := a.Argument(0)
			if !goja.IsNumber(arg) {
				if v, ok := s.boxed(arg); ok && document.IsNumber(v) {
					c.set(key, v)
					return o
				}
				s.throw("MongoshInvalidInputError", "cursor.%s() needs a number, got %s", key, s.describe(arg))
			}
			n := arg.ToInteger()
			if n < 0 && key == "limit" {
				c.set("singleBatch", true)
				n = -n
			} else if n < 0 && !neg {
				s.throw("MongoshInvalidInputError", "cursor.%s() needs a non-negative number, got %d", key, n)
			}
			c.set(key, numberToBSON(float64(n)))
			return o
		})
	}
	anyOpt := func(key string) {
		m(key, func(a goja.FunctionCall) goja.Value {
			v, err := s.toBSON(a.Argument(0), 0)
			s.check(err)
			c.set(key, v)
			return o
		})
	}
	boolOpt := func(key string) {
		m(key, func(a goja.FunctionCall) goja.Value {
			v := true
			if arg := a.Argument(0); !goja.IsUndefined(arg) {
				v = arg.ToBoolean()
			}
			c.set(key, v)
			return o
		})
	}
	docOpt("sort")
	docOpt("projection")
	docOpt("min")
	docOpt("max")
	docOpt("collation")
	numOpt("limit", true)
	numOpt("skip", false)
	numOpt("batchSize", false)
	numOpt("maxTimeMS", false)
	anyOpt("hint")
	anyOpt("comment")
	boolOpt("returnKey")
	boolOpt("showRecordId")
	boolOpt("allowDiskUse")
	boolOpt("noCursorTimeout")
	m("pretty", self)
	m("readPref", self)
	m("oplogReplay", self) // a flag only a replica set's oplog reads
	m("allowPartialResults", func(goja.FunctionCall) goja.Value {
		c.set("allowPartialResults", true) // a standalone has no shards to miss
		return o
	})
	m("readConcern", func(a goja.FunctionCall) goja.Value {
		c.set("readConcern", bson.D{{Key: "level", Value: a.Argument(0).String()}})
		return o
	})
	m("maxAwaitTimeMS", func(a goja.FunctionCall) goja.Value {
		c.maxAwait = numberToBSON(float64(a.Argument(0).ToInteger()))
		return o
	})
	m("maxScan", func(goja.FunctionCall) goja.Value {
		panic(s.mongoshError("MongoshDeprecatedError", "COMMON-10003", "`maxScan()` was removed because it was deprecated in MongoDB 4.0"))
	})
	m("toJSON", func(goja.FunctionCall) goja.Value {
		panic(s.invalidInput("Cannot serialize a cursor to JSON. Did you mean to call .toArray() first?"))
	})
	m("tailable", func(a goja.FunctionCall) goja.Value {
		arg := a.Argument(0)
		on, await := true, false
		if ao, ok := arg.(*goja.Object); ok {
			if v := ao.Get("awaitData"); v != nil && !goja.IsUndefined(v) {
				await = v.ToBoolean()
			}
		} else if !goja.IsUndefined(arg) {
			on = arg.ToBoolean()
		}
		c.setFlag("tailable", on)
		c.setFlag("awaitData", on && await)
		return o
	})
	m("addOption", func(a goja.FunctionCall) goja.Value {
		flag := a.Argument(0).ToInteger()
		switch flag {
		case 2:
			c.setFlag("tailable", true)
		case 32:
			c.setFlag("awaitData", true)
		case 16:
			c.setFlag("noCursorTimeout", true)
		case 4, 8, 64, 128:
			// slaveOk, oplogReplay, exhaust, partial: no meaning for an embedded engine.
		default:
			s.throw("MongoshInvalidInputError", "addOption: unknown option flag %d", flag)
		}
		return o
	})
	m("hasNext", func(goja.FunctionCall) goja.Value { return rt.ToValue(c.fill()) })
	m("next", func(goja.FunctionCall) goja.Value {
		v := c.next()
		if v == nil {
			if _, tailable := c.opt("tailable"); tailable {
				return goja.Null()
			}
			s.throw("MongoshInvalidInputError", "cursor.next(): the cursor has no more documents")
		}
		return v
	})
	m("tryNext", func(goja.FunctionCall) goja.Value {
		if v := c.next(); v != nil {
			return v
		}
		return goja.Null()
	})
	m("toArray", func(goja.FunctionCall) goja.Value {
		var items []any
		for v := c.next(); v != nil; v = c.next() {
			items = append(items, v)
		}
		return rt.NewArray(items...)
	})
	m("forEach", func(a goja.FunctionCall) goja.Value {
		f, ok := goja.AssertFunction(a.Argument(0))
		if !ok {
			s.throw("MongoshInvalidInputError", "cursor.forEach() needs a function, got %s", s.describe(a.Argument(0)))
		}
		for v := c.next(); v != nil; v = c.next() {
			r, err := f(goja.Undefined(), v)
			if err != nil {
				panic(err)
			}
			if r != nil && r.StrictEquals(rt.ToValue(false)) {
				break
			}
		}
		return goja.Undefined()
	})
	m("map", func(a goja.FunctionCall) goja.Value {
		f, ok := goja.AssertFunction(a.Argument(0))
		if !ok {
			s.throw("MongoshInvalidInputError", "cursor.map() needs a function, got %s", s.describe(a.Argument(0)))
		}
		c.maps = append(c.maps, f)
		return o
	})
	m("itcount", func(goja.FunctionCall) goja.Value {
		n := 0
		for c.fill() {
			n += len(c.buf)
			c.buf = nil
		}
		return rt.ToValue(n)
	})
	count := func(applySkipLimit bool) goja.Value {
		cmd := bson.D{{Key: "count", Value: c.coll}, {Key: "query", Value: c.filter}}
		for _, k := range []string{"hint", "collation", "maxTimeMS"} {
			if v, ok := c.opt(k); ok {
				cmd = append(cmd, bson.E{Key: k, Value: v})
			}
		}
		if applySkipLimit {
			for _, k := range []string{"skip", "limit"} {
				if v, ok := c.opt(k); ok {
					cmd = append(cmd, bson.E{Key: k, Value: v})
				}
			}
		}
		defer c.inSession()()
		r := s.command(c.db, cmd)
		n, _ := document.Get(r, "n")
		return s.toJS(n)
	}
	m("count", func(a goja.FunctionCall) goja.Value { return count(a.Argument(0).ToBoolean()) })
	m("size", func(goja.FunctionCall) goja.Value { return count(true) })
	m("explain", func(a goja.FunctionCall) goja.Value {
		defer c.inSession()()
		return s.toJS(s.command(c.db, bson.D{{Key: "explain", Value: c.findCommand()}, {Key: "verbosity", Value: verbosity(s, a.Argument(0))}}))
	})
	m("close", func(goja.FunctionCall) goja.Value { c.close(); return goja.Undefined() })
	m("isClosed", func(goja.FunctionCall) goja.Value { return rt.ToValue(c.started && c.id == 0) })
	m("isExhausted", func(goja.FunctionCall) goja.Value { return rt.ToValue(c.exhaustedNow()) })
	m("objsLeftInBatch", func(goja.FunctionCall) goja.Value { return rt.ToValue(len(c.buf)) })
	m("getId", func(goja.FunctionCall) goja.Value { return s.toJS(c.id) })
	m("toString", func(goja.FunctionCall) goja.Value { return rt.ToValue(c.String()) })
	return o
}

func (c *cursor) setFlag(key string, on bool) {
	if on {
		c.set(key, true)
		return
	}
	if c.started {
		c.s.throw("MongoshInvalidInputError", "cannot change a cursor's %s after it has started returning documents", key)
	}
	for i := range c.opts {
		if c.opts[i].Key == key {
			c.opts = append(c.opts[:i], c.opts[i+1:]...)
			return
		}
	}
}

// verbosity reads explain's verbosity argument: a mode name, or a
// boolean (true = allPlansExecution), default queryPlanner.
func verbosity(s *Shell, a goja.Value) string {
	switch {
	case a == nil || goja.IsUndefined(a) || goja.IsNull(a):
		return "queryPlanner"
	case goja.IsString(a):
		switch v := a.String(); v {
		case "queryPlanner", "executionStats", "allPlansExecution":
			return v
		default:
			s.throw("MongoshInvalidInputError", "explain verbosity must be queryPlanner, executionStats or allPlansExecution, not %q", v)
		}
	}
	if a.ToBoolean() {
		return "allPlansExecution"
	}
	return "queryPlanner"
}

var _ = fmt.Sprint

// sortDirections checks and normalises a cursor's sort as the driver
// under mongosh does before sending it: 1, -1 and their spellings ("1",
// "asc", "ascending", "desc", "descending", any case) become 1 or -1, a
// {$meta: ...} stays; anything else is MongoInvalidArgumentError
// "Invalid sort direction: <value as JSON>".
func (s *Shell) sortDirections(d bson.D) bson.D {
	out := make(bson.D, len(d))
	for i, e := range d {
		out[i] = e
		if m, ok := e.Value.(bson.D); ok && len(m) > 0 && m[0].Key == "$meta" {
			continue
		}
		str, _ := keyValueString(e.Value)
		switch strings.ToLower(str) {
		case "1", "asc", "ascending":
			out[i].Value = int32(1)
		case "-1", "desc", "descending":
			out[i].Value = int32(-1)
		default:
			b, _ := document.MarshalExtJSON(bson.D{{Key: "v", Value: e.Value}}, false)
			js := strings.TrimSuffix(strings.TrimPrefix(string(b), `{"v":`), "}")
			s.throw("MongoInvalidArgumentError", "Invalid sort direction: %s", js)
		}
	}
	return out
}
