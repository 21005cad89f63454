package mongosh

import (
	"encoding/json"
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
	// closed is set by close(); killed when close() ended a cursor the
	// server still had open. A killed cursor keeps what it had buffered
	// but returns none of it, as the Node driver's does.
	closed, killed bool
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
	c.uninitialized(key)
	for i := range c.opts {
		if c.opts[i].Key == key {
			c.opts[i].Value = v
			return
		}
	}
	c.opts = append(c.opts, bson.E{Key: key, Value: v})
}

// uninitialized throws if option key cannot be set: an aggregation
// cursor has no find options, and a cursor that has sent its command
// can no longer change them (the driver's MongoCursorInUseError).
func (c *cursor) uninitialized(key string) {
	if c.cmd != nil {
		c.s.throw("MongoshInvalidInputError", "cursor.%s() is not available on an aggregation cursor; put the stage in the pipeline", key)
	}
	if c.started {
		c.s.throwNamed("MongoCursorInUseError", "Cursor is already initialized")
	}
}

// notKilled throws the driver's MongoCursorExhaustedError for a read
// that asks a killed cursor for its next document.
func (c *cursor) notKilled() {
	if c.killed {
		c.s.throwNamed("MongoCursorExhaustedError", "Cursor is exhausted")
	}
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
	if c.killed {
		return false
	}
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

// exhaustedNow is the driver's "closed": closed, or at the server's end,
// with nothing left buffered.
func (c *cursor) exhaustedNow() bool {
	return (c.closed || c.started && c.id == 0) && len(c.buf) == 0
}

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

// close ends the cursor: one not yet started never sends its command;
// one the server still has open is killed (see killed); one the server
// has ended still returns what it buffered.
func (c *cursor) close() {
	c.closed = true
	c.started = true
	if c.id != 0 {
		id := c.id
		c.id = 0
		c.killed = true
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
		_ = o.DefineDataProperty(name, s.named(name, f), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	self := func(a goja.FunctionCall) goja.Value { return o }
	_ = o.DefineDataProperty("help", s.helpMethod("cursor", o), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	defer s.giveMethodHelps("cursor", objectMethods(o)) // once its methods are there
	docOpt := func(key string) {
		m(key, func(a goja.FunctionCall) goja.Value {
			c.uninitialized(key)
			d, err := s.toBSONDoc(a.Argument(0), key)
			s.check(err)
			c.set(key, d)
			return o
		})
	}
	// numOpt is limit, skip, batchSize or maxTimeMS: the driver takes a
	// JavaScript number only and leaves its range to the server.
	numOpt := func(key string) {
		m(key, func(a goja.FunctionCall) goja.Value {
			c.uninitialized(key)
			arg := a.Argument(0)
			if !goja.IsNumber(arg) {
				if key == "maxTimeMS" {
					s.throwNamed("MongoInvalidArgumentError", "Argument for maxTimeMS must be a number")
				}
				s.throwNamed("MongoInvalidArgumentError", fmt.Sprintf("Operation %q requires an integer", key))
			}
			n := arg.ToFloat()
			switch {
			case n < 0 && key == "limit":
				c.set("singleBatch", true)
				n = -n
			case n < 0 && key == "batchSize":
				// The driver's negative batch size: one batch of that many.
				c.set("limit", numberToBSON(-n))
				c.set("singleBatch", true)
				return o
			}
			c.set(key, numberToBSON(n))
			return o
		})
	}
	anyOpt := func(key string) {
		m(key, func(a goja.FunctionCall) goja.Value {
			c.uninitialized(key)
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
	m("sort", func(a goja.FunctionCall) goja.Value {
		c.uninitialized("sort")
		c.set("sort", s.sortDirections(s.sortSpec(a.Argument(0))))
		return o
	})
	docOpt("projection")
	docOpt("min")
	docOpt("max")
	docOpt("collation")
	numOpt("limit")
	numOpt("skip")
	numOpt("batchSize")
	numOpt("maxTimeMS")
	anyOpt("hint")
	anyOpt("comment")
	boolOpt("returnKey")
	boolOpt("showRecordId")
	// allowDiskUse: the Node driver refuses it on a cursor with no sort
	// yet, whatever its argument.
	m("allowDiskUse", func(a goja.FunctionCall) goja.Value {
		if _, sorted := c.opt("sort"); !sorted {
			s.throwNamed("MongoInvalidArgumentError", `Option "allowDiskUse" requires a sort specification`)
		}
		v := true
		if arg := a.Argument(0); !goja.IsUndefined(arg) {
			v = arg.ToBoolean()
		}
		c.set("allowDiskUse", v)
		return o
	})
	boolOpt("noCursorTimeout")
	m("pretty", self)
	m("readPref", func(a goja.FunctionCall) goja.Value {
		c.uninitialized("readPref")
		switch mode := a.Argument(0).String(); mode {
		case "primary", "primaryPreferred", "secondary", "secondaryPreferred", "nearest":
		default:
			s.throwNamed("MongoInvalidArgumentError", fmt.Sprintf("Invalid read preference mode %q", mode))
		}
		return o // a standalone answers every mode itself
	})
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
		c.notKilled()
		if v := c.next(); v != nil {
			return v
		}
		return goja.Null()
	})
	m("tryNext", func(goja.FunctionCall) goja.Value {
		c.notKilled()
		if v := c.next(); v != nil {
			return v
		}
		return goja.Null()
	})
	m("toArray", func(goja.FunctionCall) goja.Value {
		if len(c.maps) > 0 {
			c.notKilled()
		}
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
		c.notKilled()
		n := 0
		for c.fill() {
			n += len(c.buf)
			c.buf = nil
		}
		return rt.ToValue(n)
	})
	// count is the driver's count of a find cursor: its skip and limit
	// always apply (count(false) too, as in mongosh 2.x).
	count := func() goja.Value {
		cmd := bson.D{{Key: "count", Value: c.coll}, {Key: "query", Value: c.filter}}
		for _, k := range []string{"hint", "collation", "maxTimeMS"} {
			if v, ok := c.opt(k); ok {
				cmd = append(cmd, bson.E{Key: k, Value: v})
			}
		}
		for _, k := range []string{"skip", "limit"} {
			if v, ok := c.opt(k); ok {
				cmd = append(cmd, bson.E{Key: k, Value: v})
			}
		}
		defer c.inSession()()
		r := s.command(c.db, cmd)
		n, _ := document.Get(r, "n")
		return s.toJS(n)
	}
	m("count", func(goja.FunctionCall) goja.Value { return count() })
	m("size", func(goja.FunctionCall) goja.Value { return count() })
	m("explain", func(a goja.FunctionCall) goja.Value {
		defer c.inSession()()
		return s.toJS(s.command(c.db, bson.D{{Key: "explain", Value: c.findCommand()}, {Key: "verbosity", Value: verbosity(s, a.Argument(0))}}))
	})
	m("close", func(goja.FunctionCall) goja.Value { c.close(); return goja.Undefined() })
	m("isClosed", func(goja.FunctionCall) goja.Value { return rt.ToValue(c.exhaustedNow()) })
	m("isExhausted", func(goja.FunctionCall) goja.Value { return rt.ToValue(c.exhaustedNow()) })
	m("objsLeftInBatch", func(goja.FunctionCall) goja.Value { return rt.ToValue(len(c.buf)) })
	m("getId", func(goja.FunctionCall) goja.Value { return s.toJS(c.id) })
	m("toString", func(goja.FunctionCall) goja.Value { return rt.ToValue(c.String()) })
	_ = o.DefineDataPropertySymbol(goja.SymIterator, rt.ToValue(func(goja.FunctionCall) goja.Value {
		return s.cursorIterator(c)
	}), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	return o
}

func (c *cursor) setFlag(key string, on bool) {
	if on {
		c.set(key, true)
		return
	}
	c.uninitialized(key)
	for i := range c.opts {
		if c.opts[i].Key == key {
			c.opts = append(c.opts[:i], c.opts[i+1:]...)
			return
		}
	}
}

// verbosity reads explain's verbosity argument: a mode name (given to
// the server as it is: the server refuses one it does not know), or a
// boolean (true = allPlansExecution), default queryPlanner.
func verbosity(s *Shell, a goja.Value) string {
	switch {
	case a == nil || goja.IsUndefined(a) || goja.IsNull(a):
		return "queryPlanner"
	case goja.IsString(a):
		return a.String()
	}
	if a.ToBoolean() {
		return "allPlansExecution"
	}
	return "queryPlanner"
}

// cursorIterator is a cursor's [Symbol.iterator]() result, so that
// for...of and spreading read the cursor's documents.
func (s *Shell) cursorIterator(c *cursor) goja.Value {
	it := s.rt.NewObject()
	_ = it.Set("next", func(goja.FunctionCall) goja.Value {
		r := s.rt.NewObject()
		v := c.next()
		_ = r.Set("done", v == nil)
		if v == nil {
			v = goja.Undefined()
		}
		_ = r.Set("value", v)
		return r
	})
	return it
}

// sortSpec reads a sort as the Node driver takes one: a document, a Map,
// a field name, a [name, direction] pair, or an array of names or pairs.
// The directions are checked by sortDirections.
func (s *Shell) sortSpec(v goja.Value) bson.D {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return bson.D{}
	}
	if goja.IsString(v) {
		return bson.D{{Key: v.String(), Value: int32(1)}}
	}
	o, ok := v.(*goja.Object)
	if ok && o.ClassName() == "Array" {
		items := o.Export()
		arr, _ := items.([]any)
		// One pair: [name, direction] with a direction that is not a name.
		if len(arr) == 2 {
			if _, ok := arr[0].(string); ok && !s.sortIsName(o.Get("1")) && !goja.IsUndefined(o.Get("1")) {
				return bson.D{{Key: arr[0].(string), Value: s.mustBSON(o.Get("1"))}}
			}
		}
		var d bson.D
		for i := range arr {
			el := o.Get(fmt.Sprint(i))
			if goja.IsString(el) {
				d = append(d, bson.E{Key: el.String(), Value: int32(1)})
				continue
			}
			if eo, ok := el.(*goja.Object); ok && eo.ClassName() == "Array" {
				d = append(d, bson.E{Key: eo.Get("0").String(), Value: s.mustBSON(eo.Get("1"))})
				continue
			}
			// anything else in the list the driver passes over
		}
		return d
	}
	if ok && o.ClassName() == "Map" {
		var d bson.D
		s.callMethod(o, "forEach", s.rt.ToValue(func(a goja.FunctionCall) goja.Value {
			d = append(d, bson.E{Key: a.Argument(1).String(), Value: s.mustBSON(a.Argument(0))})
			return goja.Undefined()
		}))
		return d
	}
	if !ok || s.boxOf(o) != nil || o.ClassName() == "Date" || o.ClassName() == "RegExp" {
		s.throwSortFormat(v)
	}
	d, err := s.toBSONDoc(v, "sort")
	s.check(err)
	return d
}

// sortIsName tells a string that is a field name from a direction.
func (s *Shell) sortIsName(v goja.Value) bool {
	if !goja.IsString(v) {
		return false
	}
	switch strings.ToLower(v.String()) {
	case "1", "-1", "asc", "desc", "ascending", "descending":
		return false
	}
	return true
}

func (s *Shell) mustBSON(v goja.Value) any {
	x, err := s.toBSON(v, 0)
	s.check(err)
	return x
}

// throwSortFormat is the driver's refusal of a sort it cannot read.
func (s *Shell) throwSortFormat(v goja.Value) {
	js := v.String()
	if b, err := json.Marshal(v.Export()); err == nil {
		js = string(b)
	}
	s.throwNamed("MongoInvalidArgumentError", "Invalid sort format: "+js+" Sort must be a valid object")
}

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
