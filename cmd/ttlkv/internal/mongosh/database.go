package mongosh

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// dbObject is the JavaScript db: its methods, and any other property
// names a collection (db.orders), as in mongosh.
type dbObject struct {
	s       *Shell
	name    string
	methods map[string]goja.Value
}

func (d *dbObject) Get(key string) goja.Value {
	if m, ok := d.methods[key]; ok {
		return m
	}
	switch key {
	case "_name":
		return d.s.rt.ToValue(d.name)
	case "constructor", "prototype", "__proto__", "then", "toJSON", "inspect":
		return nil
	}
	return d.s.collection(d.name, key)
}
func (d *dbObject) Set(string, goja.Value) bool { return false }
func (d *dbObject) Has(key string) bool         { _, ok := d.methods[key]; return ok }
func (d *dbObject) Delete(string) bool          { return false }
func (d *dbObject) Keys() []string              { return nil }

// database returns the db object for name, made once per name.
func (s *Shell) database(name string) *goja.Object {
	if o, ok := s.dbs[name]; ok {
		return o
	}
	d := &dbObject{s: s, name: name, methods: map[string]goja.Value{}}
	rt := s.rt
	m := func(n string, f func(c goja.FunctionCall) goja.Value) { d.methods[n] = s.named(n, f) }
	str := func(c goja.FunctionCall) goja.Value { return rt.ToValue(name) }
	m("getName", str)
	m("toString", str)
	m("valueOf", str)
	m("getCollection", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "string", 0, "Database.getColl")
		coll := c.Argument(0).String()
		if coll == "" || strings.ContainsAny(coll, "$\x00") {
			panic(s.invalidInput("Invalid collection name: " + coll))
		}
		return s.collection(name, coll)
	})
	// The sharding helpers a standalone answers as mongosh's do: the
	// status refuses, the commands are the server's to refuse.
	m("printShardingStatus", func(c goja.FunctionCall) goja.Value {
		return s.callMethod(rt.Get("sh").ToObject(rt), "status", c.Argument(0))
	})
	m("checkMetadataConsistency", func(c goja.FunctionCall) goja.Value {
		cmd := s.appendOptions(bson.D{{Key: "checkMetadataConsistency", Value: 1}}, c.Argument(0), "options")
		return s.toJS(s.commandCursor(name, cmd, ""))
	})
	m("setSecondaryOk", func(goja.FunctionCall) goja.Value {
		return s.callMethod(s.mongo(), "setSecondaryOk")
	})
	m("getSiblingDB", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "string", 0, "Database.getSiblingDB")
		return s.database(s.validDBName(c.Argument(0).String()))
	})
	m("watch", func(c goja.FunctionCall) goja.Value { return s.watch(name, "", c.Argument(0), c.Argument(1)) })
	m("getCollectionNames", func(goja.FunctionCall) goja.Value {
		names := s.collectionNames(name)
		items := make([]any, len(names))
		for i, n := range names {
			items[i] = n
		}
		return rt.NewArray(items...)
	})
	m("getCollectionInfos", func(c goja.FunctionCall) goja.Value {
		cmd := bson.D{{Key: "listCollections", Value: 1}}
		if f := c.Argument(0); !goja.IsUndefined(f) && !goja.IsNull(f) {
			fd, err := s.toBSONDoc(f, "filter")
			s.check(err)
			cmd = append(cmd, bson.E{Key: "filter", Value: fd})
		}
		// The legacy (filter, nameOnly, authorizedCollections) booleans
		// are no options: mongosh spreads them into nothing.
		if _, ok := c.Argument(1).(*goja.Object); ok {
			cmd = s.appendOptions(cmd, c.Argument(1), "options")
		}
		return s.toJS(s.commandCursor(name, cmd, ""))
	})
	m("createCollection", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "string", 0, "Database.createCollection")
		cmd := bson.D{{Key: "create", Value: c.Argument(0).String()}}
		cmd = s.appendOptions(cmd, c.Argument(1), "options")
		s.command(name, cmd)
		return s.toJS(bson.D{{Key: "ok", Value: 1.0}})
	})
	// db.createView(name, source, pipeline, options): create with viewOn
	// and pipeline, as mongosh sends it.
	m("createView", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "string", 0, "Database.createView")
		s.checkArg(c.Argument(1), "string", 1, "Database.createView")
		p, err := s.toBSON(c.Argument(2), 0)
		s.check(err)
		pipeline, ok := p.(bson.A)
		if !ok {
			s.throw("MongoshInvalidInputError", "createView: the pipeline must be an array, got %s", s.describe(c.Argument(2)))
		}
		cmd := bson.D{{Key: "create", Value: c.Argument(0).String()}, {Key: "viewOn", Value: c.Argument(1).String()}, {Key: "pipeline", Value: pipeline}}
		cmd = s.appendOptions(cmd, c.Argument(3), "options")
		s.command(name, cmd)
		return s.toJS(bson.D{{Key: "ok", Value: 1.0}})
	})
	m("dropDatabase", func(goja.FunctionCall) goja.Value {
		r := s.command(name, bson.D{{Key: "dropDatabase", Value: 1}})
		out := bson.D{{Key: "ok", Value: 1}, {Key: "dropped", Value: name}}
		if v, ok := document.Get(r, "dropped"); ok {
			out[1].Value = v
		}
		return s.toJS(out)
	})
	runCmd := func(target, method string) func(c goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value {
			s.checkArg(c.Argument(0), "string or object", 0, method)
			cmd := s.commandArg(c.Argument(0))
			return s.toJS(s.command(target, cmd))
		}
	}
	m("runCommand", runCmd(name, "Database.runCommand"))
	m("adminCommand", runCmd("admin", "Database.adminCommand"))
	simple := func(cmdName, target string) func(c goja.FunctionCall) goja.Value {
		return func(c goja.FunctionCall) goja.Value {
			cmd := bson.D{{Key: cmdName, Value: 1}}
			cmd = s.appendOptions(cmd, c.Argument(0), "options")
			return s.toJS(s.command(target, cmd))
		}
	}
	m("serverStatus", simple("serverStatus", "admin"))
	m("currentOp", func(c goja.FunctionCall) goja.Value {
		// db.currentOp(true) is mongosh's {$all: true}; an object is a
		// filter ({desc: "TTLMonitor"}).
		if all, ok := c.Argument(0).Export().(bool); ok {
			return s.toJS(s.command("admin", bson.D{{Key: "currentOp", Value: 1}, {Key: "$all", Value: all}}))
		}
		return simple("currentOp", "admin")(c)
	})
	m("hello", simple("hello", name))
	m("isMaster", simple("hello", name))
	m("serverBuildInfo", simple("buildInfo", "admin"))
	m("stats", func(c goja.FunctionCall) goja.Value {
		cmd := bson.D{{Key: "dbStats", Value: 1}}
		if a := c.Argument(0); goja.IsNumber(a) {
			cmd = append(cmd, bson.E{Key: "scale", Value: numberToBSON(a.ToFloat())})
		} else {
			cmd = s.appendOptions(cmd, a, "options")
		}
		return s.toJS(s.command(name, cmd))
	})
	// The profiler, as mongosh's helpers over the profile command (ttlkv
	// keeps none: level 0 is all there is, slowms and sampleRate set).
	m("getProfilingStatus", func(goja.FunctionCall) goja.Value {
		return s.toJS(s.command(name, bson.D{{Key: "profile", Value: int32(-1)}}))
	})
	m("setProfilingLevel", func(c goja.FunctionCall) goja.Value {
		lv := c.Argument(0)
		if goja.IsUndefined(lv) {
			panic(s.invalidInput("Missing required argument at position 0 (Database.setProfilingLevel)"))
		}
		level := lv.ToFloat()
		if level < 0 || level > 2 {
			panic(s.invalidInput(fmt.Sprintf("Input level %s is out of range [0..2]", lv.String())))
		}
		cmd := bson.D{{Key: "profile", Value: numberToBSON(level)}}
		if a := c.Argument(1); goja.IsNumber(a) {
			cmd = append(cmd, bson.E{Key: "slowms", Value: numberToBSON(a.ToFloat())})
		} else {
			cmd = s.appendOptions(cmd, a, "options")
		}
		return s.toJS(s.command(name, cmd))
	})
	s.adminMethods(m, name)
	m("version", func(goja.FunctionCall) goja.Value {
		r := s.command("admin", bson.D{{Key: "buildInfo", Value: 1}})
		v, _ := document.Get(r, "version")
		return s.toJS(v)
	})
	m("getMongo", func(goja.FunctionCall) goja.Value { return s.mongo() })
	o := rt.NewDynamicObject(d)
	d.methods["help"] = s.helpMethod("db", o)
	s.giveMethodHelps("db", func(n string) goja.Value { return d.methods[n] })
	s.dbs[name] = o
	return o
}

// commandArg turns runCommand's argument into a command document: a
// document as given, or a string naming a command run with value 1.
func (s *Shell) commandArg(a goja.Value) bson.D {
	if goja.IsString(a) {
		return bson.D{{Key: a.String(), Value: 1}}
	}
	d, err := s.toBSONDoc(a, "the command")
	s.check(err)
	if len(d) == 0 {
		s.throw("MongoshInvalidInputError", "the command document is empty")
	}
	return d
}

// appendOptions appends the fields of an options object (if given) to
// cmd.
func (s *Shell) appendOptions(cmd bson.D, a goja.Value, what string) bson.D {
	if a == nil || goja.IsUndefined(a) || goja.IsNull(a) {
		return cmd
	}
	d, err := s.toBSONDoc(a, what)
	s.check(err)
	return append(cmd, d...)
}

// validDBName returns name, or throws mongosh's error for a database
// name it refuses.
func (s *Shell) validDBName(name string) string {
	if name == "" || strings.ContainsAny(name, "/\\. \"\x00") {
		panic(s.invalidInput("Invalid database name: " + name))
	}
	return name
}

// mongo returns the Mongo object of connection s (db.getMongo(), what
// Mongo() returns), made once.
func (s *Shell) mongo() *goja.Object {
	if s.mongoObj != nil {
		return s.mongoObj
	}
	rt := s.rt
	mo := rt.NewObject()
	s.mongoObj = mo
	s.mongos[mo] = s
	_ = mo.DefineDataProperty("help", s.helpMethod("mongo", mo), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	defer s.giveMethodHelps("mongo", objectMethods(mo)) // once its methods are there
	// No toString: as mongosh's Mongo, String(db.getMongo()) is
	// "[object Object]"; print and the echo show the connection string.
	_ = mo.Set("getDB", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "string", 0, "Mongo.getDB")
		return s.database(s.validDBName(c.Argument(0).String()))
	})
	// use(name): the global db becomes this connection's database name.
	_ = mo.Set("use", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "string", 0, "Mongo.use")
		s.setDB(s.validDBName(c.Argument(0).String()))
		return rt.ToValue("switched to db " + c.Argument(0).String())
	})
	// close(): the connection's commands fail from now on
	// (MongoNotConnectedError); one a script opened is disconnected.
	_ = mo.Set("close", func(goja.FunctionCall) goja.Value {
		s.closeConn()
		return goja.Undefined()
	})
	_ = mo.Set("startSession", s.startSession)
	_ = mo.Set("bulkWrite", func(c goja.FunctionCall) goja.Value {
		fn, _ := goja.AssertFunction(rt.Get("__clientBulkWrite"))
		v, err := fn(goja.Undefined(), mo, c.Argument(0), c.Argument(1))
		if err != nil {
			panic(err)
		}
		return v
	})
	// getURI: the connection string, as mongosh's: the shell's own
	// without its password (an embedded engine has none and gives its
	// description), a script's as it was opened.
	_ = mo.Set("getURI", func(goja.FunctionCall) goja.Value {
		if s.byScript {
			return rt.ToValue(s.uri)
		}
		return rt.ToValue(s.connDesc)
	})
	_ = mo.Set("getCollection", func(c goja.FunctionCall) goja.Value {
		if goja.IsUndefined(c.Argument(0)) {
			panic(s.invalidInput("Missing required argument at position 0"))
		}
		s.checkArg(c.Argument(0), "string", 0, "Mongo.getCollection")
		dbName, coll, ok := strings.Cut(c.Argument(0).String(), ".")
		if !ok || dbName == "" || coll == "" {
			panic(s.invalidInput("Collection must be of the format <db>.<collection>"))
		}
		return s.collection(dbName, coll)
	})
	_ = mo.Set("convertShardKeyToHashed", func(c goja.FunctionCall) goja.Value {
		fn, _ := goja.AssertFunction(rt.Get("convertShardKeyToHashed"))
		v, err := fn(goja.Undefined(), c.Argument(0))
		if err != nil {
			panic(err)
		}
		return v
	})
	_ = mo.Set("getDBs", func(c goja.FunctionCall) goja.Value {
		return s.toJS(s.command("admin", s.appendOptions(bson.D{{Key: "listDatabases", Value: 1}}, c.Argument(0), "options")))
	})
	_ = mo.Set("watch", func(c goja.FunctionCall) goja.Value {
		pipeline, opts := c.Argument(0), c.Argument(1)
		if o, ok := pipeline.(*goja.Object); ok && o.ClassName() != "Array" {
			pipeline, opts = goja.Undefined(), pipeline // watch(options)
		}
		return s.watchWith("admin", "", pipeline, opts, bson.D{{Key: "allChangesForCluster", Value: true}})
	})
	// Read and write concerns and read preferences: kept and given
	// back, as mongosh's are; a standalone has one member, so they
	// change no answer.
	var readConcern, readPref goja.Value = goja.Undefined(), rt.ToValue("primary")
	var readTags, writeConcern goja.Value = goja.Undefined(), goja.Undefined()
	_ = mo.Set("getReadConcern", func(goja.FunctionCall) goja.Value { return readConcern })
	_ = mo.Set("setReadConcern", func(c goja.FunctionCall) goja.Value {
		readConcern = c.Argument(0)
		return goja.Undefined()
	})
	_ = mo.Set("getReadPrefMode", func(goja.FunctionCall) goja.Value { return readPref })
	_ = mo.Set("getReadPrefTagSet", func(goja.FunctionCall) goja.Value { return readTags })
	_ = mo.Set("setReadPref", func(c goja.FunctionCall) goja.Value {
		switch m := c.Argument(0).String(); m {
		case "primary", "primaryPreferred", "secondary", "secondaryPreferred", "nearest":
			readPref, readTags = c.Argument(0), c.Argument(1)
		default:
			panic(s.driverError("MongoInvalidArgumentError", fmt.Sprintf("Invalid read preference mode %s", strconv.Quote(m))))
		}
		return goja.Undefined()
	})
	// setSecondaryOk is deprecated for setReadPref("primaryPreferred"),
	// which it sets when the mode is primary.
	_ = mo.Set("setSecondaryOk", func(goja.FunctionCall) goja.Value {
		s.deprecation(`.setSecondaryOk() is deprecated. Use .setReadPref("primaryPreferred") instead`)
		if mode := readPref.String(); mode == "primary" {
			fmt.Fprintln(s.out, `Setting read preference from "primary" to "primaryPreferred"`)
			readPref = rt.ToValue("primaryPreferred")
		} else {
			fmt.Fprintf(s.out, "Leaving read preference unchanged (is already %q)\n", mode)
		}
		return goja.Undefined()
	})
	_ = mo.Set("getWriteConcern", func(goja.FunctionCall) goja.Value { return writeConcern })
	_ = mo.Set("setWriteConcern", func(c goja.FunctionCall) goja.Value {
		w := c.Argument(0)
		if o, ok := w.(*goja.Object); ok {
			if !goja.IsUndefined(c.Argument(1)) || !goja.IsUndefined(c.Argument(2)) {
				panic(s.invalidInput("If concern is given as an object no other arguments must be specified"))
			}
			writeConcern = o
			return goja.Undefined()
		}
		if t := jsTypeof(w); t != "string" && t != "number" {
			panic(s.invalidInput("w value must be a number or string, got: " + t))
		}
		wc := rt.NewObject()
		_ = wc.Set("w", w)
		if t := c.Argument(1); !goja.IsUndefined(t) {
			_ = wc.Set("wtimeout", t)
		}
		if j := c.Argument(2); !goja.IsUndefined(j) {
			_ = wc.Set("j", j)
		}
		writeConcern = wc
		return goja.Undefined()
	})
	unimplemented := func(msg string) func(goja.FunctionCall) goja.Value {
		return func(goja.FunctionCall) goja.Value {
			panic(s.mongoshError("MongoshUnimplementedError", "COMMON-90002", msg))
		}
	}
	_ = mo.Set("isCausalConsistency", unimplemented("Causal consistency for drivers is set via Mongo.startSession and can be checked via session.getOptions. The default value is true"))
	_ = mo.Set("setCausalConsistency", unimplemented("It is not possible to set causal consistency for an entire connection due to the driver, use startSession({causalConsistency: <>}) instead."))
	_ = mo.Set("getDBNames", func(goja.FunctionCall) goja.Value {
		r := s.command("admin", bson.D{{Key: "listDatabases", Value: 1}, {Key: "nameOnly", Value: true}})
		dbs, _ := document.Get(r, "databases")
		arr, _ := dbs.(bson.A)
		out := bson.A{}
		for _, x := range arr {
			xd, _ := x.(bson.D)
			n, _ := document.Get(xd, "name")
			out = append(out, n)
		}
		return s.toJS(out)
	})
	s.nameNative(mo, 0, map[*goja.Object]bool{})
	return mo
}
