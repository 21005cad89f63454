package mongosh

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// collObject is the JavaScript collection: its methods, and any other
// property names a sub-collection (db.system.profile), as in mongosh.
type collObject struct {
	s       *Shell
	db      string
	name    string
	methods map[string]goja.Value
	// explainWith, while set, is given the findAndModify command that
	// findAndModify and the findOneAnd* methods would run, and its
	// result is theirs: how explain() explains them.
	explainWith func(bson.D) goja.Value
}

func (c *collObject) Get(key string) goja.Value {
	if m, ok := c.methods[key]; ok {
		return m
	}
	switch key {
	case "_name":
		return c.s.rt.ToValue(c.name)
	case "constructor", "prototype", "__proto__", "then", "toJSON", "inspect":
		return nil
	}
	return c.s.collection(c.db, c.name+"."+key)
}
func (c *collObject) Set(string, goja.Value) bool { return false }
func (c *collObject) Has(key string) bool         { _, ok := c.methods[key]; return ok }
func (c *collObject) Delete(string) bool          { return false }
func (c *collObject) Keys() []string              { return nil }

// optDoc returns an options argument as a document (empty if absent).
func (s *Shell) optDoc(a goja.Value, what string) bson.D {
	if a == nil || goja.IsUndefined(a) || goja.IsNull(a) {
		return nil
	}
	d, err := s.toBSONDoc(a, what)
	s.check(err)
	return d
}

// docArg returns a required document argument.
func (s *Shell) docArg(a goja.Value, what string) bson.D {
	if a == nil || goja.IsUndefined(a) {
		s.throw("MongoshInvalidInputError", "missing required argument: %s", what)
	}
	d, err := s.toBSONDoc(a, what)
	s.check(err)
	return d
}

// argAt returns the required document argument at position pos of the
// collection method method, refusing a missing one as mongosh does
// ("Missing required argument at position 0 (Collection.deleteOne)").
func (s *Shell) argAt(a goja.Value, pos int, method, what string) bson.D {
	if a == nil || goja.IsUndefined(a) {
		panic(s.invalidInput(fmt.Sprintf("Missing required argument at position %d (Collection.%s)", pos, method)))
	}
	return s.docArg(a, what)
}

// spreadArray is mongosh's {...doc} of what is given as a document to
// insert and is not one: an array or a string as an object of its
// elements under "0", "1", ... (so insertOne([{a: 1}, 2]) stores {_id,
// 0: {a: 1}, 1: 2}), a number, a boolean, a Date or a RegExp as an empty
// one, as mongosh stores them. Anything else (a document, null, a BSON
// value) is returned as it is.
func (s *Shell) spreadArray(v goja.Value) goja.Value {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return v
	}
	o, ok := v.(*goja.Object)
	if !ok {
		if _, isSym := v.Export().(*goja.Symbol); isSym {
			return v
		}
		out := s.rt.NewObject()
		if goja.IsString(v) {
			for i, r := range utf16.Encode([]rune(v.String())) {
				_ = out.Set(strconv.Itoa(i), string(utf16.Decode([]uint16{r})))
			}
		}
		return out
	}
	switch o.ClassName() {
	case "Array":
		out := s.rt.NewObject()
		for _, k := range o.Keys() {
			_ = out.Set(k, o.Get(k))
		}
		return out
	case "Date", "RegExp":
		return s.rt.NewObject()
	}
	return v
}

// arrayAsDoc is an array inserted as a document, as the driver under
// mongosh serializes one: its elements under "0", "1", ...
func arrayAsDoc(a bson.A) bson.D {
	d := make(bson.D, len(a))
	for i, v := range a {
		d[i] = bson.E{Key: strconv.Itoa(i), Value: v}
	}
	return d
}

// deprecated prints mongosh's deprecation warning for method, once a
// shell.
func (s *Shell) deprecated(method, use string) {
	s.deprecation(fmt.Sprintf("Collection.%s() is deprecated. Use %s.", method, use))
}

// deprecation prints mongosh's "DeprecationWarning: msg", once a shell.
func (s *Shell) deprecation(msg string) {
	if s.warned[msg] {
		return
	}
	s.warned[msg] = true
	fmt.Fprintln(s.out, "DeprecationWarning: "+msg)
}

// take removes key from d and returns its value.
func take(d *bson.D, key string) (any, bool) {
	for i, e := range *d {
		if e.Key == key {
			*d = append((*d)[:i:i], (*d)[i+1:]...)
			return e.Value, true
		}
	}
	return nil, false
}

// unacknowledged reports whether a write's options ask for no
// acknowledgement (writeConcern {w: 0}): the driver under mongosh then
// reads no reply, so the result says acknowledged: false and carries
// no counts, and write errors go unseen.
func unacknowledged(opts bson.D) bool {
	wc, _ := document.Get(opts, "writeConcern")
	d, _ := wc.(bson.D)
	w, ok := document.Get(d, "w")
	if !ok {
		return false
	}
	switch n := w.(type) {
	case int32, int64, float64:
		return toFloatValue(n) == 0
	}
	return false
}

// toFloatValue is a BSON number as a float64.
func toFloatValue(v any) float64 {
	switch n := v.(type) {
	case int32:
		return float64(n)
	case int64:
		return float64(n)
	case float64:
		return n
	}
	return 0
}

func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case int32:
		return x != 0
	case int64:
		return x != 0
	case float64:
		return x != 0
	}
	return true
}

// writeCommand runs a write command and throws if it reports write
// errors, as the Node driver does.
func (s *Shell) writeCommand(db string, cmd bson.D, errName string) bson.D {
	r := s.command(db, cmd)
	if we, ok := document.Get(r, "writeErrors"); ok {
		if arr, ok := we.(bson.A); ok && len(arr) > 0 {
			first, _ := arr[0].(bson.D)
			msg, _ := document.Get(first, "errmsg")
			code, _ := document.Get(first, "code")
			cn, _ := document.Get(first, "codeName")
			name, _ := cn.(string)
			m, _ := msg.(string)
			// The driver throws the first write error itself
			// (errorResponse), not the reply; mongod's write errors
			// carry no codeName, so neither does the error.
			s.throwCoded(errName, m, toInt32(code), name, first)
		}
	}
	return r
}

// insertManyError throws the MongoBulkWriteError of an insertMany of
// docs whose reply r holds write errors arr (each given the document
// that failed as its op): its result counts what the server
// inserted (r's n) and keeps the _ids of those, which are all but the
// failed ones, and, for an ordered insert, none past the first failure.
func (s *Shell) insertManyError(arr bson.A, docs bson.A, ids bson.D, ordered bool, r bson.D) {
	failed := map[string]bool{}
	first := -1
	errs := make(bson.A, len(arr))
	for k, x := range arr {
		d, _ := x.(bson.D)
		i, _ := document.Get(d, "index")
		at := int(toInt32(i))
		if at >= 0 && at < len(docs) {
			d = append(append(bson.D(nil), d...), bson.E{Key: "op", Value: docs[at]})
		}
		errs[k] = d
		failed[strconv.Itoa(at)] = true
		if first < 0 || at < first {
			first = at
		}
	}
	kept := bson.D{}
	for _, e := range ids {
		at, _ := strconv.Atoi(e.Key)
		if failed[e.Key] || (ordered && at > first) {
			continue
		}
		kept = append(kept, e)
	}
	n, _ := document.Get(r, "n")
	res := bson.D{{Key: "insertedCount", Value: int32(toInt32(n))}, {Key: "matchedCount", Value: int32(0)}, {Key: "modifiedCount", Value: int32(0)},
		{Key: "deletedCount", Value: int32(0)}, {Key: "upsertedCount", Value: int32(0)}, {Key: "upsertedIds", Value: bson.D{}}, {Key: "insertedIds", Value: kept}}
	fn, _ := goja.AssertFunction(s.rt.Get("__bulkError"))
	if _, err := fn(goja.Undefined(), s.toJS(errs), s.toJS(res)); err != nil {
		panic(err)
	}
}

// isAbsent reports whether an optional argument was left out (or null).
func isAbsent(v goja.Value) bool { return v == nil || goja.IsUndefined(v) || goja.IsNull(v) }

// isPlainObject reports whether v is an object the driver takes as a
// document: not an array, a date, a regular expression or a BSON value.
func (s *Shell) isPlainObject(v goja.Value) bool {
	o, ok := v.(*goja.Object)
	if !ok || s.boxOf(o) != nil {
		return false
	}
	switch o.ClassName() {
	case "Array", "Date", "RegExp", "Function", "Number", "String", "Boolean":
		return false
	}
	return true
}

// filterOrValue is a filter argument: a document, {} when left out, or
// for anything else its BSON value, for the server to refuse as it
// does.
func (s *Shell) filterOrValue(v goja.Value) any {
	switch {
	case isAbsent(v):
		return bson.D{}
	case s.isPlainObject(v):
		return s.optDoc(v, "filter")
	}
	return s.mustBSON(v)
}

// hasOperators reports whether an update document starts with a $
// operator (mongosh's test for "update" versus "replacement").
func hasOperators(d bson.D) bool {
	return len(d) > 0 && strings.HasPrefix(d[0].Key, "$")
}

// indexName is MongoDB's default index name: field_direction joined by _.
func indexName(key bson.D) string {
	parts := make([]string, 0, 2*len(key))
	for _, e := range key {
		v, ok := keyValueString(e.Value)
		if !ok {
			v = document.TypeName(e.Value)
		}
		parts = append(parts, e.Key, v)
	}
	return strings.Join(parts, "_")
}

// keyValueString is a key pattern's or sort's value as text: a number
// in its shortest decimal form ("1", "-1", "2.5"), a string as it is;
// ok is false for any other type.
func keyValueString(v any) (string, bool) {
	switch x := v.(type) {
	case int32:
		return strconv.FormatInt(int64(x), 10), true
	case int64:
		return strconv.FormatInt(x, 10), true
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64), true
	case string:
		return x, true
	}
	return "", false
}

// collection returns the collection object for db.name, made once.
func (s *Shell) collection(db, name string) *goja.Object {
	full := db + "." + name
	if o, ok := s.colls[full]; ok {
		return o
	}
	rt := s.rt
	co := &collObject{s: s, db: db, name: name, methods: map[string]goja.Value{}}
	m := func(n string, f func(c goja.FunctionCall) goja.Value) { co.methods[n] = s.named(n, f) }
	arg := func(c goja.FunctionCall, i int) goja.Value { return c.Argument(i) }
	ack := func(fields ...bson.E) goja.Value {
		return s.toJS(append(bson.D{{Key: "acknowledged", Value: true}}, fields...))
	}
	// unack is the result of a write sent with writeConcern {w: 0}:
	// acknowledged false, and fields the server's reply would have
	// filled undefined (bson.Undefined), as the driver's.
	unack := func(fields ...bson.E) goja.Value {
		return s.toJS(append(bson.D{{Key: "acknowledged", Value: false}}, fields...))
	}
	withID := func(d bson.D) (bson.D, any) {
		if id, ok := document.Get(d, "_id"); ok {
			return d, id
		}
		id := bson.NewObjectID()
		return append(bson.D{{Key: "_id", Value: id}}, d...), id
	}

	insertMany := func(docsArg, optsArg goja.Value) goja.Value {
		o, ok := docsArg.(*goja.Object)
		if !ok || o.ClassName() != "Array" {
			s.throwNamed("MongoInvalidArgumentError", `Argument "docs" must be an array of documents`)
		}
		if o.Get("length").ToInteger() == 0 {
			s.throwNamed("MongoInvalidArgumentError", "Invalid BulkOperation, Batch cannot be empty")
		}
		spread := s.rt.NewArray()
		for i := int64(0); i < o.Get("length").ToInteger(); i++ {
			_ = spread.Set(strconv.FormatInt(i, 10), s.spreadArray(o.Get(strconv.FormatInt(i, 10))))
		}
		docsArg = spread
		raw, err := s.toBSON(docsArg, 0)
		s.check(err)
		arr := raw.(bson.A)
		docs := make(bson.A, len(arr))
		ids := bson.D{}
		for i, x := range arr {
			if a, isArr := x.(bson.A); isArr {
				x = arrayAsDoc(a)
			}
			d, ok := x.(bson.D)
			if !ok {
				s.throw("MongoshInvalidInputError", "insertMany: document %d is not an object", i)
			}
			d, id := withID(d)
			docs[i] = d
			ids = append(ids, bson.E{Key: strconv.Itoa(i), Value: id})
		}
		opts := s.optDoc(optsArg, "options")
		ordered := true
		if v, ok := take(&opts, "ordered"); ok {
			ordered = truthy(v)
		}
		cmd := bson.D{{Key: "insert", Value: name}, {Key: "documents", Value: docs}, {Key: "ordered", Value: ordered}}
		r := s.command(db, append(cmd, opts...))
		if unacknowledged(opts) {
			return unack(bson.E{Key: "insertedIds", Value: ids})
		}
		if we, _ := document.Get(r, "writeErrors"); we != nil {
			if arr, ok := we.(bson.A); ok && len(arr) > 0 {
				s.insertManyError(arr, docs, ids, ordered, r)
			}
		}
		return ack(bson.E{Key: "insertedIds", Value: ids})
	}
	insertOne := func(docArg, optsArg goja.Value) (goja.Value, any) {
		d := s.argAt(s.spreadArray(docArg), 0, "insertOne", "document")
		d, id := withID(d)
		cmd := bson.D{{Key: "insert", Value: name}, {Key: "documents", Value: bson.A{d}}, {Key: "ordered", Value: true}}
		opts := s.optDoc(optsArg, "options")
		if unacknowledged(opts) {
			s.command(db, append(cmd, opts...))
			return unack(bson.E{Key: "insertedId", Value: id}), id
		}
		s.writeCommand(db, append(cmd, opts...), "MongoServerError")
		return ack(bson.E{Key: "insertedId", Value: id}), id
	}
	m("insertOne", func(c goja.FunctionCall) goja.Value {
		v, _ := insertOne(arg(c, 0), arg(c, 1))
		return v
	})
	m("insertMany", func(c goja.FunctionCall) goja.Value { return insertMany(arg(c, 0), arg(c, 1)) })
	// insert is mongosh's insertMany of its argument, an array or one
	// document: its failures are MongoBulkWriteErrors.
	m("insert", func(c goja.FunctionCall) goja.Value {
		s.deprecated("insert", "insertOne, insertMany, or bulkWrite")
		docs := arg(c, 0)
		if o, ok := docs.(*goja.Object); !ok || o.ClassName() != "Array" {
			docs = rt.NewArray(docs)
		}
		return insertMany(docs, arg(c, 1))
	})

	// find reads find's arguments as the driver does: a filter is a
	// plain object or an ObjectId (the _id), a projection that is no
	// object goes to the server as it is.
	find := func(c goja.FunctionCall) (bson.D, bson.D) {
		var filter bson.D
		switch f := arg(c, 0); {
		case isAbsent(f):
			filter = bson.D{}
		case s.isPlainObject(f):
			filter = s.optDoc(f, "filter")
		default:
			if v, ok := s.boxed(f); ok {
				if id, isID := v.(bson.ObjectID); isID {
					filter = bson.D{{Key: "_id", Value: id}}
					break
				}
			}
			s.throwNamed("MongoInvalidArgumentError", "Query filter must be a plain object or ObjectId")
		}
		var opts bson.D
		if p := arg(c, 1); !isAbsent(p) && !s.isPlainObject(p) {
			opts = append(opts, bson.E{Key: "projection", Value: s.mustBSON(p)})
		} else if p := s.optDoc(p, "projection"); len(p) > 0 {
			opts = append(opts, bson.E{Key: "projection", Value: p})
		}
		more := s.optDoc(arg(c, 2), "options")
		if o, ok := arg(c, 2).(*goja.Object); ok {
			if sv := o.Get("sort"); sv != nil && !goja.IsUndefined(sv) {
				for i := range more {
					if more[i].Key == "sort" {
						more[i].Value = s.sortDirections(s.sortSpec(sv))
					}
				}
			}
		}
		opts = append(opts, more...)
		return filter, opts
	}
	m("find", func(c goja.FunctionCall) goja.Value {
		filter, opts := find(c)
		return s.newCursor(db, name, filter, opts)
	})
	m("findOne", func(c goja.FunctionCall) goja.Value {
		filter, opts := find(c)
		opts = append(opts, bson.E{Key: "limit", Value: int32(1)}, bson.E{Key: "singleBatch", Value: true})
		cur := s.cursorOf(s.newCursor(db, name, filter, opts))
		if v := cur.next(); v != nil {
			return v
		}
		return goja.Null()
	})
	count := func(filter goja.Value, optsArg goja.Value) goja.Value {
		f := s.optDoc(filter, "filter")
		if f == nil {
			f = bson.D{}
		}
		cmd := bson.D{{Key: "count", Value: name}, {Key: "query", Value: f}}
		r := s.command(db, append(cmd, s.optDoc(optsArg, "options")...))
		n, _ := document.Get(r, "n")
		return s.toJS(n)
	}
	// countDocuments is the driver's: an aggregation of $match, the
	// options' $skip and $limit, and a $group counting; the server
	// judges the filter.
	m("countDocuments", func(c goja.FunctionCall) goja.Value {
		pipeline := bson.A{bson.D{{Key: "$match", Value: s.filterOrValue(arg(c, 0))}}}
		var rest bson.D
		for _, e := range s.optDoc(arg(c, 1), "options") {
			switch e.Key {
			case "skip", "limit":
				pipeline = append(pipeline, bson.D{{Key: "$" + e.Key, Value: e.Value}})
			default:
				rest = append(rest, e)
			}
		}
		pipeline = append(pipeline, bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: int32(1)}, {Key: "n", Value: bson.D{{Key: "$sum", Value: int32(1)}}}}}})
		cmd := append(bson.D{{Key: "aggregate", Value: name}, {Key: "pipeline", Value: pipeline}, {Key: "cursor", Value: bson.D{}}}, rest...)
		docs := s.drainReply(db, s.command(db, cmd), name)
		if len(docs) == 0 {
			return rt.ToValue(0)
		}
		d, _ := docs[0].(bson.D)
		n, _ := document.Get(d, "n")
		return s.toJS(n)
	})
	m("count", func(c goja.FunctionCall) goja.Value {
		s.deprecated("count", "countDocuments or estimatedDocumentCount")
		return count(arg(c, 0), arg(c, 1))
	})
	m("estimatedDocumentCount", func(c goja.FunctionCall) goja.Value {
		cmd := bson.D{{Key: "count", Value: name}}
		r := s.command(db, append(cmd, s.optDoc(arg(c, 0), "options")...))
		n, _ := document.Get(r, "n")
		return s.toJS(n)
	})

	// update builds one update statement; kind is "update" (operators or
	// a pipeline required), "replace" (no operators allowed) or "legacy"
	// (update(): operators too, and its multi option).
	updateStmt := func(c goja.FunctionCall, method, kind string, multi bool) (bson.D, bson.D) {
		if method == "updateOne" || method == "updateMany" || method == "update" {
			// The driver's own checks of a filter and an update.
			if a := arg(c, 0); !goja.IsUndefined(a) && !s.isPlainObject(a) {
				s.throwNamed("MongoInvalidArgumentError", "Selector must be a valid JavaScript object")
			}
			if a, ok := arg(c, 1).(*goja.Object); !goja.IsUndefined(arg(c, 1)) && (!ok || a.ClassName() != "Array" && !s.isPlainObject(a)) {
				s.throwNamed("MongoInvalidArgumentError", "Document must be a valid JavaScript object")
			}
		}
		q := s.argAt(arg(c, 0), 0, method, "filter")
		var u any
		if o, ok := arg(c, 1).(*goja.Object); ok && o.ClassName() == "Array" && kind != "replace" {
			v, err := s.toBSON(o, 0)
			s.check(err)
			u = v
		} else {
			if kind == "update" && goja.IsUndefined(arg(c, 1)) {
				// As the driver under mongosh: an absent update has no
				// operators.
				s.throw("MongoInvalidArgumentError", "Update document requires atomic operators")
			}
			ud := s.argAt(arg(c, 1), 1, method, "update")
			switch {
			case kind != "replace" && !hasOperators(ud):
				// update() too: mongosh sends it as updateOne or
				// updateMany, which refuse a replacement.
				s.throw("MongoInvalidArgumentError", "Update document requires atomic operators")
			case kind == "replace" && hasOperators(ud):
				s.throw("MongoInvalidArgumentError", "Replacement document must not contain atomic operators")
			}
			u = ud
		}
		var opts bson.D
		if _, isObj := arg(c, 2).(*goja.Object); isObj || kind != "legacy" {
			// update()'s options are an object or nothing: mongosh reads
			// multi and upsert off anything else (a legacy boolean
			// upsert) and finds none.
			opts = s.optDoc(arg(c, 2), "options")
		}
		if kind == "legacy" {
			if v, ok := take(&opts, "multi"); ok {
				multi = truthy(v)
			}
		}
		stmt := bson.D{{Key: "q", Value: q}, {Key: "u", Value: u}, {Key: "multi", Value: multi}}
		var rest bson.D
		for _, e := range opts {
			switch e.Key {
			case "upsert", "arrayFilters", "hint", "collation":
				stmt = append(stmt, e)
			default:
				rest = append(rest, e)
			}
		}
		return bson.D{{Key: "update", Value: name}, {Key: "updates", Value: bson.A{stmt}}}, rest
	}
	update := func(method, kind string, multi bool) func(c goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value {
			if kind == "legacy" {
				s.deprecated("update", "updateOne, updateMany, or bulkWrite")
			}
			cmd, rest := updateStmt(c, method, kind, multi)
			if unacknowledged(rest) {
				s.command(db, append(cmd, rest...))
				return unack(
					bson.E{Key: "insertedId", Value: nil},
					bson.E{Key: "matchedCount", Value: bson.Undefined{}},
					bson.E{Key: "modifiedCount", Value: bson.Undefined{}},
					bson.E{Key: "upsertedCount", Value: int32(0)},
				)
			}
			r := s.writeCommand(db, append(cmd, rest...), "MongoServerError")
			n, _ := document.Get(r, "n")
			nMod, _ := document.Get(r, "nModified")
			var upsertedID any
			upserted := 0
			if up, ok := document.Get(r, "upserted"); ok {
				if arr, ok := up.(bson.A); ok && len(arr) > 0 {
					upserted = len(arr)
					first, _ := arr[0].(bson.D)
					upsertedID, _ = document.Get(first, "_id")
				}
			}
			return ack(
				bson.E{Key: "insertedId", Value: upsertedID},
				bson.E{Key: "matchedCount", Value: int32(int64(toInt32(n)) - int64(upserted))},
				bson.E{Key: "modifiedCount", Value: toInt32(nMod)},
				bson.E{Key: "upsertedCount", Value: int32(upserted)},
			)
		}
	}
	m("updateOne", update("updateOne", "update", false))
	m("updateMany", update("updateMany", "update", true))
	m("replaceOne", update("replaceOne", "replace", false))
	m("update", update("update", "legacy", false))

	deleteCmd := func(method string, filter goja.Value, optsArg goja.Value, limit int32) (bson.D, bson.D) {
		if goja.IsUndefined(filter) {
			s.argAt(filter, 0, method, "filter") // refused: missing
		}
		// The server judges a filter that is no document.
		stmt := bson.D{{Key: "q", Value: s.filterOrValue(filter)}, {Key: "limit", Value: limit}}
		var rest bson.D
		for _, e := range s.optDoc(optsArg, "options") {
			switch e.Key {
			case "hint", "collation":
				stmt = append(stmt, e)
			case "justOne":
			default:
				rest = append(rest, e)
			}
		}
		return bson.D{{Key: "delete", Value: name}, {Key: "deletes", Value: bson.A{stmt}}}, rest
	}
	del := func(method string, filter, optsArg goja.Value, limit int32) goja.Value {
		cmd, rest := deleteCmd(method, filter, optsArg, limit)
		if unacknowledged(rest) {
			s.command(db, append(cmd, rest...))
			return unack(bson.E{Key: "deletedCount", Value: bson.Undefined{}})
		}
		r := s.writeCommand(db, append(cmd, rest...), "MongoServerError")
		n, _ := document.Get(r, "n")
		return ack(bson.E{Key: "deletedCount", Value: toInt32(n)})
	}
	m("deleteOne", func(c goja.FunctionCall) goja.Value { return del("deleteOne", arg(c, 0), arg(c, 1), 1) })
	m("deleteMany", func(c goja.FunctionCall) goja.Value { return del("deleteMany", arg(c, 0), arg(c, 1), 0) })
	m("remove", func(c goja.FunctionCall) goja.Value {
		s.deprecated("remove", "deleteOne, deleteMany, findOneAndDelete, or bulkWrite")
		limit := int32(0)
		a := arg(c, 1)
		if o, ok := a.(*goja.Object); ok {
			if v := o.Get("justOne"); v != nil && v.ToBoolean() {
				limit = 1
			}
			return del("remove", arg(c, 0), a, limit)
		}
		if a != nil && a.ToBoolean() {
			limit = 1
		}
		return del("remove", arg(c, 0), goja.Undefined(), limit)
	})

	findAndModify := func(q bson.D, opts bson.D, fields bson.D) goja.Value {
		cmd := append(bson.D{{Key: "findAndModify", Value: name}, {Key: "query", Value: q}}, fields...)
		for _, e := range opts {
			switch e.Key {
			case "returnDocument":
				if e.Value != "before" && e.Value != "after" {
					panic(s.invalidInput("returnDocument needs to be either 'before' or 'after'"))
				}
				cmd = append(cmd, bson.E{Key: "new", Value: e.Value == "after"})
			case "returnNewDocument", "returnOriginal":
				v := truthy(e.Value)
				if e.Key == "returnOriginal" {
					v = !v
				}
				cmd = append(cmd, bson.E{Key: "new", Value: v})
			case "projection":
				cmd = append(cmd, bson.E{Key: "fields", Value: e.Value})
			case "includeResultMetadata":
			default:
				cmd = append(cmd, e)
			}
		}
		if co.explainWith != nil {
			return co.explainWith(cmd)
		}
		r := s.command(db, cmd)
		if v, ok := document.Get(opts, "includeResultMetadata"); ok && truthy(v) {
			return s.toJS(r)
		}
		v, _ := document.Get(r, "value")
		return s.toJS(v)
	}
	m("findOneAndUpdate", func(c goja.FunctionCall) goja.Value {
		cmd, _ := updateStmt(goja.FunctionCall{Arguments: []goja.Value{arg(c, 0), arg(c, 1)}}, "findOneAndUpdate", "update", false)
		stmt := cmd[1].Value.(bson.A)[0].(bson.D)
		q, _ := document.Get(stmt, "q")
		u, _ := document.Get(stmt, "u")
		return findAndModify(q.(bson.D), s.optDoc(arg(c, 2), "options"), bson.D{{Key: "update", Value: u}})
	})
	m("findOneAndReplace", func(c goja.FunctionCall) goja.Value {
		cmd, _ := updateStmt(goja.FunctionCall{Arguments: []goja.Value{arg(c, 0), arg(c, 1)}}, "findOneAndReplace", "replace", false)
		stmt := cmd[1].Value.(bson.A)[0].(bson.D)
		q, _ := document.Get(stmt, "q")
		u, _ := document.Get(stmt, "u")
		return findAndModify(q.(bson.D), s.optDoc(arg(c, 2), "options"), bson.D{{Key: "update", Value: u}})
	})
	m("findOneAndDelete", func(c goja.FunctionCall) goja.Value {
		return findAndModify(s.argAt(arg(c, 0), 0, "findOneAndDelete", "filter"), s.optDoc(arg(c, 1), "options"), bson.D{{Key: "remove", Value: true}})
	})
	// findAndModify({query, update | remove, ...}): mongosh's, which is
	// findOneAndDelete with remove, findOneAndUpdate with an update of
	// operators or a pipeline, findOneAndReplace with a document.
	m("findAndModify", func(c goja.FunctionCall) goja.Value {
		opts := s.argAt(arg(c, 0), 0, "findAndModify", "options")
		q, ok := document.Get(opts, "query")
		if !ok {
			panic(s.invalidInput(`Missing required property: "query"`))
		}
		qd, _ := q.(bson.D)
		_, hasFields := document.Get(opts, "fields")
		if _, hasProj := document.Get(opts, "projection"); hasProj && hasFields {
			panic(s.invalidInput("Cannot specify both .fields and .projection for findAndModify()"))
		}
		var rest bson.D
		var update any
		remove := false
		for _, e := range opts {
			switch e.Key {
			case "query":
			case "update":
				update = e.Value
			case "remove":
				remove = truthy(e.Value)
			case "fields":
				rest = append(rest, bson.E{Key: "projection", Value: e.Value})
			default:
				rest = append(rest, e)
			}
		}
		if remove {
			return findAndModify(qd, rest, bson.D{{Key: "remove", Value: true}})
		}
		if update == nil {
			panic(s.invalidInput("Must specify options.update or options.remove"))
		}
		return findAndModify(qd, rest, bson.D{{Key: "update", Value: update}})
	})

	createIndexes := func(keys []bson.D, optsArg, quorum goja.Value) []string {
		opts := s.optDoc(optsArg, "options")
		specs := make(bson.A, len(keys))
		names := make([]string, len(keys))
		for i, k := range keys {
			if len(k) == 0 {
				s.throw("MongoshInvalidInputError", "createIndex: the index key must not be empty")
			}
			n := indexName(k)
			if v, ok := document.Get(opts, "name"); ok && len(keys) == 1 {
				n, _ = v.(string)
			}
			// The spec in the order mongosh's driver sends it (the
			// server quotes it in its errors): the options as given,
			// the name where the options had it (else after them),
			// the key last.
			spec := bson.D{}
			named := false
			for _, e := range opts {
				switch e.Key {
				case "key":
				case "name":
					spec = append(spec, bson.E{Key: "name", Value: n})
					named = true
				default:
					spec = append(spec, e)
				}
			}
			if !named {
				spec = append(spec, bson.E{Key: "name", Value: n})
			}
			spec = append(spec, bson.E{Key: "key", Value: k})
			specs[i] = spec
			names[i] = n
		}
		cmd := bson.D{{Key: "createIndexes", Value: name}, {Key: "indexes", Value: specs}}
		if quorum != nil && !goja.IsUndefined(quorum) {
			q, err := s.toBSON(quorum, 0)
			s.check(err)
			cmd = append(cmd, bson.E{Key: "commitQuorum", Value: q})
		}
		s.command(db, cmd)
		return names
	}
	// objectOptions refuses index options that are not an object, as
	// mongosh does.
	objectOptions := func(a goja.Value) {
		if o, ok := a.(*goja.Object); goja.IsUndefined(a) || ok && o.ClassName() != "Array" {
			return
		}
		panic(s.invalidInput(`The "options" argument must be an object.`))
	}
	m("createIndex", func(c goja.FunctionCall) goja.Value {
		k := s.argAt(arg(c, 0), 0, "createIndex", "keys")
		objectOptions(arg(c, 1))
		return rt.ToValue(createIndexes([]bson.D{k}, arg(c, 1), arg(c, 2))[0])
	})
	// ensureIndex is createIndexes of one key: its answer is the list of
	// names.
	m("ensureIndex", func(c goja.FunctionCall) goja.Value {
		k := s.argAt(arg(c, 0), 0, "ensureIndex", "keys")
		objectOptions(arg(c, 1))
		return rt.NewArray(createIndexes([]bson.D{k}, arg(c, 1), arg(c, 2))[0])
	})
	m("createIndexes", func(c goja.FunctionCall) goja.Value {
		o, ok := arg(c, 0).(*goja.Object)
		if !ok || o.ClassName() != "Array" {
			s.throw("MongoshInvalidInputError", "createIndexes: the key specs must be an array, got %s", s.describe(arg(c, 0)))
		}
		raw, err := s.toBSON(o, 0)
		s.check(err)
		var keys []bson.D
		for i, x := range raw.(bson.A) {
			d, ok := x.(bson.D)
			if !ok {
				s.throw("MongoshInvalidInputError", "createIndexes: key spec %d is not an object", i)
			}
			keys = append(keys, d)
		}
		names := createIndexes(keys, arg(c, 1), arg(c, 2))
		items := make([]any, len(names))
		for i, n := range names {
			items[i] = n
		}
		return rt.NewArray(items...)
	})
	listIndexes := func() bson.A {
		return s.commandCursor(db, bson.D{{Key: "listIndexes", Value: name}}, name)
	}
	m("getIndexes", func(goja.FunctionCall) goja.Value { return s.toJS(listIndexes()) })
	m("getIndices", func(goja.FunctionCall) goja.Value { return s.toJS(listIndexes()) })
	// exists(): the collection's listCollections entry, or null.
	m("exists", func(goja.FunctionCall) goja.Value {
		infos := s.commandCursor(db, bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: name}}}}, "")
		if len(infos) == 0 {
			return goja.Null()
		}
		return s.toJS(infos[0])
	})
	m("getMongo", func(goja.FunctionCall) goja.Value {
		d := s.database(db).ToObject(rt)
		f, _ := goja.AssertFunction(d.Get("getMongo"))
		v, err := f(d)
		s.check(err)
		return v
	})
	m("getIndexSpecs", func(goja.FunctionCall) goja.Value { return s.toJS(listIndexes()) })
	m("getIndexKeys", func(goja.FunctionCall) goja.Value {
		out := bson.A{}
		for _, x := range listIndexes() {
			d, _ := x.(bson.D)
			k, _ := document.Get(d, "key")
			out = append(out, k)
		}
		return s.toJS(out)
	})
	m("dropIndex", func(c goja.FunctionCall) goja.Value {
		a := arg(c, 0)
		if goja.IsUndefined(a) {
			panic(s.invalidInput("Missing required argument at position 0 (Collection.dropIndex)"))
		}
		if goja.IsString(a) && a.String() == "*" {
			panic(s.invalidInput("To drop indexes in the collection using '*', use db.collection.dropIndexes()."))
		}
		v, err := s.toBSON(a, 0)
		s.check(err)
		if _, isStr := v.(string); !isStr {
			if _, isDoc := v.(bson.D); !isDoc {
				s.throw("MongoshInvalidInputError", "dropIndex: the index must be a name or a key pattern, got %s", s.describe(a))
			}
		}
		return s.toJS(s.command(db, bson.D{{Key: "dropIndexes", Value: name}, {Key: "index", Value: v}}))
	})
	m("dropIndexes", func(c goja.FunctionCall) goja.Value {
		var v any = "*"
		if a := arg(c, 0); !goja.IsUndefined(a) && !goja.IsNull(a) {
			x, err := s.toBSON(a, 0)
			s.check(err)
			v = x
		}
		return s.toJS(s.command(db, bson.D{{Key: "dropIndexes", Value: name}, {Key: "index", Value: v}}))
	})
	// hideIndex and unhideIndex are mongosh's collMod helpers; a hidden
	// TTL index still expires documents.
	for n, hidden := range map[string]bool{"hideIndex": true, "unhideIndex": false} {
		m(n, func(c goja.FunctionCall) goja.Value {
			a := arg(c, 0)
			v, err := s.toBSON(a, 0)
			s.check(err)
			var ix bson.D
			switch x := v.(type) {
			case string:
				ix = bson.D{{Key: "name", Value: x}}
			case bson.D:
				ix = bson.D{{Key: "keyPattern", Value: x}}
			default:
				s.throw("MongoshInvalidInputError", "%s: the index must be a name or a key pattern, got %s", n, s.describe(a))
			}
			ix = append(ix, bson.E{Key: "hidden", Value: hidden})
			return s.toJS(s.command(db, bson.D{{Key: "collMod", Value: name}, {Key: "index", Value: ix}}))
		})
	}
	m("drop", func(goja.FunctionCall) goja.Value {
		s.checkOpen()
		_, err := s.run.RunCommand(s.ctx, db, bson.D{{Key: "drop", Value: name}})
		if err != nil {
			if document.CodeOf(err) == document.CodeNamespaceNotFound {
				return rt.ToValue(false)
			}
			s.throwServer("MongoServerError", nil, err)
		}
		return rt.ToValue(true)
	})
	info := func() bson.D {
		all := s.commandCursor(db, bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: name}}}}, "")
		if len(all) == 0 {
			return nil
		}
		d, _ := all[0].(bson.D)
		return d
	}
	m("isCapped", func(goja.FunctionCall) goja.Value {
		i := info()
		if i == nil {
			s.throw("MongoshRuntimeError", "collection %s not found", full)
		}
		opts, _ := document.Get(i, "options")
		od, _ := opts.(bson.D)
		capped, _ := document.Get(od, "capped")
		return rt.ToValue(truthy(capped))
	})
	// The size helpers and stats() compute from the $collStats stage, as
	// mongosh's do (helpers.go, __collStats).
	collStats := func(fn string, args ...goja.Value) goja.Value {
		h := rt.Get("__collStats").(*goja.Object)
		f, _ := goja.AssertFunction(h.Get(fn))
		v, err := f(goja.Undefined(), append([]goja.Value{s.collection(db, name)}, args...)...)
		if err != nil {
			panic(err)
		}
		return v
	}
	sizeHelper := func(method, field string) {
		m(method, func(c goja.FunctionCall) goja.Value {
			if len(c.Arguments) > 0 {
				panic(s.invalidInput(fmt.Sprintf("%q takes no argument. Use db.collection.stats to get detailed information.", method)))
			}
			return collStats("single", rt.ToValue(field))
		})
	}
	sizeHelper("dataSize", "size")
	sizeHelper("storageSize", "storageSize")
	sizeHelper("totalSize", "totalSize")
	sizeHelper("totalIndexSize", "totalIndexSize")
	m("latencyStats", func(c goja.FunctionCall) goja.Value { return collStats("latency", arg(c, 0)) })
	jsHelper := func(helper string, args ...goja.Value) goja.Value {
		f, _ := goja.AssertFunction(rt.Get(helper))
		v, err := f(goja.Undefined(), args...)
		if err != nil {
			panic(err)
		}
		return v
	}
	m("bulkWrite", func(c goja.FunctionCall) goja.Value {
		return jsHelper("__bulkWrite", s.collection(db, name), arg(c, 0), arg(c, 1))
	})
	m("initializeOrderedBulkOp", func(goja.FunctionCall) goja.Value {
		return jsHelper("__bulk", s.collection(db, name), rt.ToValue(true))
	})
	m("initializeUnorderedBulkOp", func(goja.FunctionCall) goja.Value {
		return jsHelper("__bulk", s.collection(db, name), rt.ToValue(false))
	})
	m("stats", func(c goja.FunctionCall) goja.Value { return collStats("stats", arg(c, 0)) })
	m("validate", func(c goja.FunctionCall) goja.Value {
		cmd := bson.D{{Key: "validate", Value: name}}
		if a := arg(c, 0); !goja.IsUndefined(a) {
			if o, ok := a.(*goja.Object); ok {
				cmd = append(cmd, s.optDoc(o, "options")...)
			} else {
				cmd = append(cmd, bson.E{Key: "full", Value: a.ToBoolean()})
			}
		}
		return s.toJS(s.command(db, cmd))
	})
	m("renameCollection", func(c goja.FunctionCall) goja.Value {
		s.checkArg(arg(c, 0), "string", 0, "Collection.renameCollection")
		cmd := bson.D{{Key: "renameCollection", Value: full}, {Key: "to", Value: db + "." + arg(c, 0).String()}, {Key: "dropTarget", Value: arg(c, 1).ToBoolean()}}
		return s.toJS(s.command("admin", cmd))
	})
	m("convertToCapped", func(c goja.FunctionCall) goja.Value {
		return s.toJS(s.command(db, bson.D{{Key: "convertToCapped", Value: name}, {Key: "size", Value: numberToBSON(arg(c, 0).ToFloat())}}))
	})
	// aggregate(pipeline, options), or aggregate(stage, stage, ...) as
	// mongosh takes its arguments: anything but an array first is the
	// first stage, and the server judges the stages.
	m("aggregate", func(c goja.FunctionCall) goja.Value {
		pv, optsArg := arg(c, 0), arg(c, 1)
		if o, ok := pv.(*goja.Object); len(c.Arguments) > 0 && (!ok || o.ClassName() != "Array") {
			pv, optsArg = rt.NewArray(func() []any {
				out := make([]any, len(c.Arguments))
				for i, a := range c.Arguments {
					out[i] = a
				}
				return out
			}()...), goja.Undefined()
		}
		pipeline := bson.A{}
		if !goja.IsUndefined(pv) && !goja.IsNull(pv) {
			p, err := s.toBSON(pv, 0)
			s.check(err)
			pipeline = p.(bson.A)
		}
		opts := s.optDoc(optsArg, "options")
		cmd := bson.D{{Key: "aggregate", Value: name}, {Key: "pipeline", Value: pipeline}}
		if v, ok := document.Get(opts, "explain"); ok && v == true {
			return s.toJS(s.command(db, append(cmd, opts...)))
		}
		if _, ok := document.Get(opts, "cursor"); !ok {
			cmd = append(cmd, bson.E{Key: "cursor", Value: bson.D{}})
		}
		// An AggregationCursor: toArray, forEach, next, hasNext, itcount.
		// Like mongosh, run the command now so errors throw here.
		o := s.newCursor(db, name, nil, nil)
		cur := s.cursorOf(o)
		cur.cmd = append(cmd, opts...)
		cur.fill()
		return o
	})
	m("watch", func(c goja.FunctionCall) goja.Value { return s.watch(db, name, arg(c, 0), arg(c, 1)) })
	m("distinct", func(c goja.FunctionCall) goja.Value {
		var key any = arg(c, 0).String()
		if !goja.IsString(arg(c, 0)) {
			key = s.mustBSON(arg(c, 0)) // the server judges a key that is no string
		}
		cmd := bson.D{{Key: "distinct", Value: name}, {Key: "key", Value: key}}
		if q := s.optDoc(arg(c, 1), "query"); q != nil {
			cmd = append(cmd, bson.E{Key: "query", Value: q})
		}
		r := s.command(db, append(cmd, s.optDoc(arg(c, 2), "options")...))
		v, _ := document.Get(r, "values")
		return s.toJS(v)
	})
	// runCommand(name, options) runs {name: collection, ...options};
	// given a document, it runs that document.
	m("runCommand", func(c goja.FunctionCall) goja.Value {
		s.checkArg(arg(c, 0), "string or object", 0, "Collection.runCommand")
		if !goja.IsString(arg(c, 0)) {
			if !goja.IsUndefined(arg(c, 1)) && !goja.IsNull(arg(c, 1)) {
				panic(s.invalidInput("Collection.runCommand takes a command string as its first arugment"))
			}
			return s.toJS(s.command(db, s.commandArg(arg(c, 0))))
		}
		cmd := bson.D{{Key: arg(c, 0).String(), Value: name}}
		return s.toJS(s.command(db, append(cmd, s.optDoc(arg(c, 1), "options")...)))
	})
	m("explain", func(c goja.FunctionCall) goja.Value {
		return s.explainable(db, name, verbosity(s, arg(c, 0)), co)
	})
	s.collectionAdminMethods(m, db, name)
	str := func(goja.FunctionCall) goja.Value { return rt.ToValue(full) }
	m("getName", func(goja.FunctionCall) goja.Value { return rt.ToValue(name) })
	m("getFullName", str)
	m("toString", str)
	m("getDB", func(goja.FunctionCall) goja.Value { return s.database(db) })
	m("getCollection", func(c goja.FunctionCall) goja.Value { return s.collection(db, name+"."+arg(c, 0).String()) })
	o := rt.NewDynamicObject(co)
	co.methods["help"] = s.helpMethod("coll", o)
	s.giveMethodHelps("coll", func(n string) goja.Value { return co.methods[n] })
	s.colls[full] = o
	return o
}

// explainable is db.coll.explain(verbosity): find, count and the write
// methods, each returning the explain output of the command it would run.
func (s *Shell) explainable(db, name, verb string, co *collObject) goja.Value {
	rt := s.rt
	o := rt.NewObject()
	explain := func(cmd bson.D) goja.Value {
		return s.toJS(s.command(db, bson.D{{Key: "explain", Value: cmd}, {Key: "verbosity", Value: verb}}))
	}
	s.printsAs(o, "Explainable("+db+"."+name+")")
	_ = o.DefineDataProperty("help", s.helpMethod("explain", o), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	defer s.giveMethodHelps("explain", objectMethods(o)) // once its methods are there
	_ = o.Set("getVerbosity", func(goja.FunctionCall) goja.Value { return rt.ToValue(verb) })
	_ = o.Set("setVerbosity", func(c goja.FunctionCall) goja.Value {
		verb = verbosity(s, c.Argument(0))
		return goja.Undefined()
	})
	_ = o.Set("getCollection", func(goja.FunctionCall) goja.Value { return s.collection(db, name) })
	_ = o.Set("distinct", func(c goja.FunctionCall) goja.Value {
		cmd := bson.D{{Key: "distinct", Value: name}, {Key: "key", Value: c.Argument(0).String()}}
		if q := s.optDoc(c.Argument(1), "query"); q != nil {
			cmd = append(cmd, bson.E{Key: "query", Value: q})
		}
		return explain(append(cmd, s.optDoc(c.Argument(2), "options")...))
	})
	// The findAndModify family: the collection's own methods, which
	// check their arguments as they do, hand their command to explain.
	for _, n := range []string{"findAndModify", "findOneAndDelete", "findOneAndReplace", "findOneAndUpdate"} {
		_ = o.Set(n, func(c goja.FunctionCall) goja.Value {
			f, _ := goja.AssertFunction(co.methods[n])
			co.explainWith = explain
			defer func() { co.explainWith = nil }()
			v, err := f(goja.Undefined(), c.Arguments...)
			if err != nil {
				panic(err)
			}
			return v
		})
	}
	_ = o.Set("find", func(c goja.FunctionCall) goja.Value {
		f, _ := goja.AssertFunction(co.methods["find"])
		cv, err := f(goja.Undefined(), c.Arguments...)
		if err != nil {
			panic(err)
		}
		cur := s.cursorOf(cv.(*goja.Object))
		// The explained find is a cursor whose first read runs explain.
		return s.explainCursor(cur, explain)
	})
	_ = o.Set("aggregate", func(c goja.FunctionCall) goja.Value {
		p, err := s.toBSON(c.Argument(0), 0)
		s.check(err)
		cmd := bson.D{{Key: "aggregate", Value: name}, {Key: "pipeline", Value: p}, {Key: "cursor", Value: bson.D{}}}
		return explain(append(cmd, s.optDoc(c.Argument(1), "options")...))
	})
	for _, n := range []string{"count", "countDocuments"} {
		_ = o.Set(n, func(c goja.FunctionCall) goja.Value {
			cmd := bson.D{{Key: "count", Value: name}, {Key: "query", Value: s.optDoc(c.Argument(0), "filter")}}
			if cmd[1].Value == nil {
				cmd[1].Value = bson.D{}
			}
			return explain(append(cmd, s.optDoc(c.Argument(1), "options")...))
		})
	}
	for n, limit := range map[string]int32{"deleteOne": 1, "deleteMany": 0, "remove": 0} {
		_ = o.Set(n, func(c goja.FunctionCall) goja.Value {
			q := s.docArg(c.Argument(0), "filter")
			return explain(bson.D{{Key: "delete", Value: name}, {Key: "deletes", Value: bson.A{bson.D{{Key: "q", Value: q}, {Key: "limit", Value: limit}}}}})
		})
	}
	for n, multi := range map[string]bool{"updateOne": false, "updateMany": true, "update": false} {
		_ = o.Set(n, func(c goja.FunctionCall) goja.Value {
			q := s.docArg(c.Argument(0), "filter")
			u, err := s.toBSON(c.Argument(1), 0)
			s.check(err)
			stmt := bson.D{{Key: "q", Value: q}, {Key: "u", Value: u}, {Key: "multi", Value: multi}}
			for _, e := range s.optDoc(c.Argument(2), "options") {
				stmt = append(stmt, e)
			}
			return explain(bson.D{{Key: "update", Value: name}, {Key: "updates", Value: bson.A{stmt}}})
		})
	}
	return o
}

// explainCursor makes cur, a find cursor whose sort, limit, skip and
// projection shape the find, mongosh's ExplainableCursor: printed (or
// finish()), it runs explain instead of the query.
func (s *Shell) explainCursor(cur *cursor, explain func(bson.D) goja.Value) goja.Value {
	// As mongosh's ExplainableCursor: printed or finish()ed, the plan
	// (run once); read, the documents.
	o := cur.obj
	var plan goja.Value
	cur.explainFn = func() goja.Value {
		if plan == nil {
			plan = explain(cur.findCommand())
		}
		return plan
	}
	_ = o.Set("finish", func(goja.FunctionCall) goja.Value { return cur.explainFn() })
	return o
}
