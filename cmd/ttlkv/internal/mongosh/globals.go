package mongosh

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"

	"github.com/ttlkv/ttlkv/document"
)

// shellBatchSize is how many documents printing a cursor shows, and
// "it" shows next, by default: mongosh's config.displayBatchSize, which
// DBQuery.shellBatchSize also sets.
const shellBatchSize = 20

func (s *Shell) installGlobals() {
	s.installV8Messages()
	s.installToLocaleString()
	s.installJSONErrors()
	rt := s.rt
	printArgs := func(c goja.FunctionCall) string {
		parts := make([]string, len(c.Arguments))
		for i, a := range c.Arguments {
			parts[i] = s.printable(a, printOpts)
		}
		return strings.Join(parts, " ")
	}
	_ = rt.Set("print", func(c goja.FunctionCall) goja.Value {
		fmt.Fprintln(s.out, printArgs(c))
		return goja.Undefined()
	})
	_ = rt.Set("printjson", func(c goja.FunctionCall) goja.Value {
		// mongosh prints printjson's arguments in full, every object
		// and array on lines of its own.
		parts := make([]string, len(c.Arguments))
		for i, a := range c.Arguments {
			parts[i] = s.printable(a, printjsonOpts)
		}
		fmt.Fprintln(s.out, strings.Join(parts, " "))
		return goja.Undefined()
	})
	// No tojson: mongosh has none (it is the legacy shell's), and a
	// script that calls it fails there with a ReferenceError.
	console := rt.NewObject()
	for _, name := range []string{"log", "info", "debug"} {
		_ = console.Set(name, func(c goja.FunctionCall) goja.Value {
			fmt.Fprintln(s.out, printArgs(c))
			return goja.Undefined()
		})
	}
	for _, name := range []string{"error", "warn"} {
		_ = console.Set(name, func(c goja.FunctionCall) goja.Value {
			fmt.Fprintln(s.errw, printArgs(c))
			return goja.Undefined()
		})
	}
	_ = rt.Set("console", console)
	_ = rt.Set("sleep", func(c goja.FunctionCall) goja.Value {
		ms := c.Argument(0).ToInteger()
		if ms <= 0 {
			return goja.Undefined()
		}
		t := time.NewTimer(time.Duration(ms) * time.Millisecond)
		defer t.Stop()
		select {
		case <-t.C:
		case <-s.ctx.Done():
			s.throw("Interrupted", "sleep interrupted: %v", s.ctx.Err())
		}
		return goja.Undefined()
	})
	quit := func(c goja.FunctionCall) goja.Value {
		code := 0
		if a := c.Argument(0); !goja.IsUndefined(a) {
			code = int(a.ToInteger())
		}
		panic(&ExitError{Code: code})
	}
	_ = rt.Set("quit", quit)
	_ = rt.Set("exit", quit)
	// process: the part of Node's that mongosh scripts use, env (the
	// shell's environment, Options.Environ), exit(code) as quit, cwd()
	// and platform.
	process := rt.NewObject()
	env := rt.NewObject()
	for _, kv := range s.environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k != "" {
			_ = env.Set(k, v)
		}
	}
	_ = process.Set("env", env)
	_ = process.Set("exit", s.named("exit", quit))
	_ = process.Set("cwd", s.named("cwd", func(goja.FunctionCall) goja.Value {
		if s.dir != "" {
			return rt.ToValue(s.dir)
		}
		wd, err := os.Getwd()
		s.check(err)
		return rt.ToValue(wd)
	}))
	platform := runtime.GOOS
	if platform == "windows" {
		platform = "win32"
	}
	_ = process.Set("platform", platform)
	_ = rt.Set("process", process)
	_ = rt.Set("version", func(goja.FunctionCall) goja.Value { return rt.ToValue("ttlkv") })
	_ = rt.Set("load", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "string", 0, "load")
		name := c.Argument(0).String()
		path := s.absPath(name)
		src, err := os.ReadFile(path)
		if err != nil {
			s.throwFileError(err, path)
		}
		defer s.scriptPath(path)()
		if cmd, args, ok := directCommand(string(src)); ok {
			s.shellCommand(cmd, args, false)
			return rt.ToValue(true)
		}
		prog, err := s.compile(name, string(src))
		if err != nil {
			s.throw("SyntaxError", "%s", syntaxReport(err, string(src)))
		}
		v, err := rt.RunProgram(prog)
		if err != nil {
			panic(err)
		}
		s.settled(v) // a failed async main() fails load(), as in mongosh
		return rt.ToValue(true)
	})
	// use and it are functions too, as in mongosh: "it" alone in a
	// script is a reference to a function, not the command.
	_ = rt.Set("use", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "string", 0, "Mongo.use")
		msg, err := s.Use(s.validDBName(c.Argument(0).String()))
		s.check(err)
		return rt.ToValue(msg)
	})
	_ = rt.Set("it", func(goja.FunctionCall) goja.Value {
		s.shellCommand("it", nil, true)
		return goja.Undefined()
	})
	_ = rt.Set("getSiblingDB", func(c goja.FunctionCall) goja.Value { return s.cur.database(c.Argument(0).String()) })
	// db is mongosh's: it can be given another database (of this
	// connection or another, db = connect(uri)), and nothing else.
	dbGet := rt.ToValue(func(goja.FunctionCall) goja.Value { return s.curDB })
	dbSet := rt.ToValue(func(c goja.FunctionCall) goja.Value {
		d := s.dbOf(c.Argument(0))
		if d == nil {
			panic(s.mongoshError("MongoshInvalidInputError", "COMMON-10002", "Cannot reassign 'db' to non-Database type"))
		}
		s.curDB, s.cur = c.Argument(0), d.s
		return goja.Undefined()
	})
	_ = rt.GlobalObject().DefineAccessorProperty("db", dbGet, dbSet, goja.FLAG_TRUE, goja.FLAG_TRUE)
	_ = rt.Set("isInteractive", func(goja.FunctionCall) goja.Value { return rt.ToValue(s.interactive) })
	_ = rt.Set("cls", func(goja.FunctionCall) goja.Value {
		if s.interactive {
			fmt.Fprint(s.out, "\x1b[H\x1b[2J") // cursor home, clear the screen
		}
		return goja.Undefined()
	})
	// convertShardKeyToHashed(value): the key a hashed index keeps for
	// value, asked of the server with $toHashedIndexKey, as mongosh does.
	_ = rt.Set("convertShardKeyToHashed", func(c goja.FunctionCall) goja.Value {
		v, err := s.toBSON(c.Argument(0), 0)
		s.check(err)
		batch := s.cur.commandCursor("admin", bson.D{{Key: "aggregate", Value: 1}, {Key: "pipeline", Value: bson.A{
			bson.D{{Key: "$documents", Value: bson.A{bson.D{}}}},
			bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: bson.D{{Key: "$toHashedIndexKey", Value: bson.D{{Key: "$literal", Value: v}}}}}}}},
		}}, {Key: "cursor", Value: bson.D{}}}, "")
		if len(batch) == 0 {
			s.throw("MongoshRuntimeError", "convertShardKeyToHashed: the server returned no hash")
		}
		d, _ := batch[0].(bson.D)
		h, _ := document.Get(d, "_id")
		return s.toJS(h)
	})
	dbq := rt.NewObject()
	opt := rt.NewObject()
	for name, v := range map[string]int{"tailable": 2, "slaveOk": 4, "oplogReplay": 8, "noTimeout": 16, "awaitData": 32, "exhaust": 64, "partial": 128} {
		_ = opt.Set(name, v)
	}
	_ = dbq.Set("Option", opt)
	// DBQuery.shellBatchSize is what was given to it, undefined before,
	// as in mongosh; setting it sets displayBatchSize too.
	var dbqBatch goja.Value = goja.Undefined()
	batchGet := rt.ToValue(func(goja.FunctionCall) goja.Value { return dbqBatch })
	batchSet := rt.ToValue(func(c goja.FunctionCall) goja.Value {
		s.deprecation(`DBQuery.shellBatchSize is deprecated, please use config.set("displayBatchSize") instead`)
		n := c.Argument(0).ToInteger()
		if n < 1 {
			s.throw("MongoshInvalidInputError", "DBQuery.shellBatchSize must be a positive integer")
		}
		s.batchSize = int(n)
		dbqBatch = c.Argument(0)
		return goja.Undefined()
	})
	_ = dbq.DefineAccessorProperty("shellBatchSize", batchGet, batchSet, goja.FLAG_FALSE, goja.FLAG_TRUE)
	config := s.shellConfig()
	_ = rt.Set("config", config)
	_ = rt.Set("DBQuery", dbq)
}

// shellCommand runs one of mongosh's shell commands (directCommand):
// use, show, it, exit or quit with its words. What it shows is printed
// when echo is set, as mongosh prints an input's result: at the prompt
// and for --eval code, not for a script file or a load()ed one.
func (s *Shell) shellCommand(kind string, words []string, echo bool) {
	arg := ""
	if len(words) > 0 {
		arg = words[0]
	}
	out := s.out
	if !echo {
		out = io.Discard
	}
	switch kind {
	case "exit", "quit":
		code := 0
		if n, err := strconv.Atoi(arg); err == nil {
			code = n
		}
		panic(&ExitError{Code: code})
	case "use":
		if len(words) == 0 {
			panic(s.mongoshError("MongoshInvalidInputError", "COMMON-10001", "Missing required argument at position 0 (Mongo.use)"))
		}
		msg, err := s.Use(arg)
		s.check(err)
		fmt.Fprintln(out, msg)
	case "it":
		if !echo {
			return
		}
		if s.last == nil || s.last.exhaustedNow() {
			fmt.Fprintln(out, "no cursor")
			return
		}
		s.printCursor(s.last)
	case "show":
		switch arg {
		case "dbs", "databases":
			r := s.cur.command("admin", bson.D{{Key: "listDatabases", Value: 1}})
			dbs, _ := document.Get(r, "databases")
			arr, _ := dbs.(bson.A)
			var names, sizes []string
			for _, d := range arr {
				dd, _ := d.(bson.D)
				name, _ := document.Get(dd, "name")
				size, _ := document.Get(dd, "sizeOnDisk")
				names = append(names, fmt.Sprint(name))
				sizes = append(sizes, humanBytes(size))
			}
			fmt.Fprintln(out, textTable(names, sizes))
		case "collections", "tables":
			// As mongosh: a result always ends its line, an empty one too.
			fmt.Fprintln(out, s.showCollections())
		case "profile":
			fmt.Fprintln(out, s.showProfile())
		case "users", "roles", "log", "logs":
			// mongosh prints one field of the server's answer as a value.
			cmd, field, db := bson.D{{Key: "usersInfo", Value: 1}}, "users", s.DB()
			switch arg {
			case "roles":
				cmd, field = bson.D{{Key: "rolesInfo", Value: 1}, {Key: "showBuiltinRoles", Value: true}}, "roles"
			case "log":
				name := "global"
				if len(words) > 1 {
					name = words[1]
				}
				cmd, field, db = bson.D{{Key: "getLog", Value: name}}, "log", "admin"
			case "logs":
				cmd, field, db = bson.D{{Key: "getLog", Value: "*"}}, "names", "admin"
			}
			val := goja.Undefined() // a field the server left out prints as nothing
			if v, ok := document.Get(s.cur.command(db, cmd), field); ok {
				val = s.toJS(v)
			}
			fmt.Fprintln(out, s.inspectTopWith(val, s.echoOpts()))
		case "startupWarnings":
			fmt.Fprint(out, s.showStartupWarnings())
			fmt.Fprintln(out)
		default:
			what := arg
			if len(words) == 0 {
				what = "undefined"
			}
			panic(s.mongoshError("MongoshInvalidInputError", "COMMON-10001", fmt.Sprintf("'%s' is not a valid argument for \"show\".", what)))
		}
	}
}

// echoOpts is how the value of an input prints: in full for --eval
// code (EvalCode), as print() does otherwise.
func (s *Shell) echoOpts() inspectOpts {
	if s.echoFull {
		return cursorOpts
	}
	return printOpts
}

// showProfile is "show profile" as mongosh prints it: a note when
// system.profile is empty, else the five most recent entries slower than
// 0 ms, each as its op, namespace, time and date on one line and its
// other fields on the next.
func (s *Shell) showProfile() string {
	db := s.DB()
	r := s.cur.command(db, bson.D{{Key: "count", Value: "system.profile"}})
	if n, _ := document.Get(r, "n"); toInt32(n) == 0 {
		return "db.system.profile is empty.\nUse db.setProfilingLevel(2) will enable profiling.\nUse db.getCollection('system.profile').find() to show raw profile entries."
	}
	docs := s.cur.commandCursor(db, bson.D{{Key: "find", Value: "system.profile"}, {Key: "filter", Value: bson.D{{Key: "millis", Value: bson.D{{Key: "$gt", Value: int32(0)}}}}},
		{Key: "sort", Value: bson.D{{Key: "$natural", Value: int32(-1)}}}, {Key: "limit", Value: int32(5)}}, "system.profile")
	var out []string
	for _, x := range docs {
		d, _ := x.(bson.D)
		get := func(k string) string {
			v, ok := document.Get(d, k)
			if !ok {
				return "undefined"
			}
			return s.toJS(v).String()
		}
		ts := get("ts")
		if len(ts) > 24 {
			ts = ts[:24]
		}
		line := get("op") + "\t" + get("ns") + " " + get("millis") + "ms " + ts + "\n"
		for _, e := range d {
			switch e.Key {
			case "op", "ns", "millis", "ts":
				continue
			}
			switch v := e.Value.(type) {
			case bool:
				line += e.Key + " "
			case string:
				line += e.Key + ":" + v + " "
			case int32, int64, float64:
				line += e.Key + ":" + s.toJS(v).String() + " "
			default:
				line += e.Key + ":" + s.inspectTopWith(s.toJS(v), s.echoOpts()) + " "
			}
		}
		out = append(out, line)
	}
	return strings.Join(out, "\n")
}

// showStartupWarnings is "show startupWarnings": the server's startup
// warnings in mongosh's banner, or nothing when it has none (or cannot
// say).
func (s *Shell) showStartupWarnings() string {
	r, err := s.cur.run.RunCommand(s.ctx, "admin", bson.D{{Key: "getLog", Value: "startupWarnings"}})
	if err != nil || !document.ReplyOK(r) {
		return ""
	}
	v, _ := document.Get(r, "log")
	lines, _ := v.(bson.A)
	if len(lines) == 0 {
		return ""
	}
	var text []string
	for _, l := range lines {
		str, _ := l.(string)
		var entry struct {
			T struct {
				Date string `json:"$date"`
			} `json:"t"`
			Msg string `json:"msg"`
		}
		if json.Unmarshal([]byte(str), &entry) != nil || entry.Msg == "" {
			text = append(text, "   Unexpected log line format: "+str)
			continue
		}
		text = append(text, "   "+entry.T.Date+": "+entry.Msg)
	}
	return "------\n   The server generated these startup warnings when booting\n" + strings.Join(text, "\n") + "\n------\n"
}

// showCollections is "show collections" as mongosh lays it out: the
// names in the order of JavaScript's localeCompare (the root collation),
// system collections last, each with its badge ("[time-series]",
// "[view]") in a column of its own.
func (s *Shell) showCollections() string {
	type entry struct{ name, badge string }
	var list []entry
	for _, d := range s.cur.commandCursor(s.DB(), bson.D{{Key: "listCollections", Value: 1}, {Key: "nameOnly", Value: true}}, "") {
		dd, _ := d.(bson.D)
		n, _ := document.Get(dd, "name")
		name, ok := n.(string)
		if !ok {
			continue
		}
		badge := ""
		switch t, _ := document.Get(dd, "type"); t {
		case "timeseries":
			badge = "[time-series]"
		case "view":
			badge = "[view]"
		}
		list = append(list, entry{name, badge})
	}
	c := collate.New(language.Und)
	sort.SliceStable(list, func(i, j int) bool { return c.CompareString(list[i].name, list[j].name) < 0 })
	var names, badges, sysNames, sysBadges []string
	for _, e := range list {
		if strings.HasPrefix(e.name, "system.") || strings.HasPrefix(e.name, "enxcol_.") {
			sysNames, sysBadges = append(sysNames, e.name), append(sysBadges, e.badge)
			continue
		}
		names, badges = append(names, e.name), append(badges, e.badge)
	}
	names, badges = append(names, sysNames...), append(badges, sysBadges...)
	wn := 0
	for _, n := range names {
		wn = max(wn, utf16Len(n))
	}
	rows := make([]string, len(names))
	for i := range names {
		rows[i] = strings.TrimRight(pad(names[i], wn, false)+"  "+badges[i], " ")
	}
	return strings.Join(rows, "\n")
}

func humanBytes(v any) string {
	var n float64
	switch x := v.(type) {
	case int32:
		n = float64(x)
	case int64:
		n = float64(x)
	case float64:
		n = x
	}
	// mongosh formats sizes with numeral's "0 ib" up to 1000 bytes and
	// "0.00 ib" above: binary units, a space, the unit.
	if n <= 1000 {
		return fmt.Sprintf("%.0f B", n)
	}
	units := []string{"B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"}
	i := 0
	for n >= 1024 && i < len(units)-1 {
		n /= 1024
		i++
	}
	return fmt.Sprintf("%.2f %s", n, units[i])
}

// textTable lays out "show dbs" as mongosh does (the text-table
// package): names padded on the right, sizes on the left, two spaces
// between, no trailing space.
func textTable(left, right []string) string {
	wl, wr := 0, 0
	for i := range left {
		wl, wr = max(wl, utf16Len(left[i])), max(wr, utf16Len(right[i]))
	}
	rows := make([]string, len(left))
	for i := range left {
		rows[i] = strings.TrimRight(pad(left[i], wl, false)+"  "+pad(right[i], wr, true), " ")
	}
	return strings.Join(rows, "\n")
}

// collectionNames lists the collections of db, sorted, as
// db.getCollectionNames() does.
func (s *Shell) collectionNames(db string) []string {
	var names []string
	for _, d := range s.commandCursor(db, bson.D{{Key: "listCollections", Value: 1}, {Key: "nameOnly", Value: true}}, "") {
		dd, _ := d.(bson.D)
		if n, ok := document.Get(dd, "name"); ok {
			if str, ok := n.(string); ok {
				names = append(names, str)
			}
		}
	}
	sort.Strings(names)
	return names
}

// commandCursor runs a command that returns a cursor and drains it with
// getMore, returning every document.
func (s *Shell) commandCursor(db string, cmd bson.D, coll string) bson.A {
	return s.drainReply(db, s.command(db, cmd), coll)
}

// drainReply returns every document of the cursor reply r, following it
// with getMore.
func (s *Shell) drainReply(db string, r bson.D, coll string) bson.A {
	cur, _ := document.Get(r, "cursor")
	cd, _ := cur.(bson.D)
	batch, _ := document.Get(cd, "firstBatch")
	out, _ := batch.(bson.A)
	id := cursorID(cd)
	for id != 0 {
		if coll == "" {
			coll = collFromNS(cd)
		}
		r := s.command(db, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: coll}})
		cur, _ := document.Get(r, "cursor")
		cd, _ = cur.(bson.D)
		nb, _ := document.Get(cd, "nextBatch")
		more, _ := nb.(bson.A)
		out = append(out, more...)
		id = cursorID(cd)
	}
	return out
}

func cursorID(cd bson.D) int64 {
	v, _ := document.Get(cd, "id")
	switch n := v.(type) {
	case int64:
		return n
	case int32:
		return int64(n)
	case float64:
		return int64(n)
	}
	return 0
}

func collFromNS(cd bson.D) string {
	v, _ := document.Get(cd, "ns")
	ns, _ := v.(string)
	if i := strings.IndexByte(ns, '.'); i >= 0 {
		return ns[i+1:]
	}
	return ns
}

// printResult prints the value of a script's last expression.
func (s *Shell) printResult(v goja.Value) {
	if v == nil { // a shell command (use, it, show): it printed its own
		return
	}
	v = s.settled(v)
	if goja.IsUndefined(v) {
		if s.interactive {
			// mongosh's prompt shows undefined as an empty line
			// (after print(1), var x = 1), --eval as nothing.
			fmt.Fprintln(s.out)
		}
		return
	}
	opts := printOpts
	if s.echoFull {
		opts = cursorOpts
	}
	if o, ok := v.(*goja.Object); ok && s.json == "" {
		if out, isResult := s.formatCommandResult(o, opts); isResult {
			fmt.Fprintln(s.out, out)
			return
		}
	}
	if o, ok := v.(*goja.Object); ok {
		if c := s.cursorOf(o); c != nil {
			if c.explainFn != nil {
				v = c.explainFn()
			} else if s.json == "" {
				s.printCursor(c)
				return
			}
		}
	}
	if s.json != "" {
		s.checkWritable(v)
		out, ok, err := s.extJSON(v)
		s.check(err)
		if !ok { // a function or a symbol: JSON has none, mongosh prints undefined
			out = "undefined"
		}
		fmt.Fprintln(s.out, out)
		return
	}
	fmt.Fprintln(s.out, s.inspectTopWith(v, opts))
}

// printable is what print (o printOpts) and printjson (printjsonOpts)
// show for one argument, as mongosh: a string as it is, undefined as
// nothing, a cursor as its next displayBatchSize documents in full (and
// the hint to type "it" when more remain; "it" then goes on from
// there), anything else inspected.
func (s *Shell) printable(v goja.Value, o inspectOpts) string {
	v = s.settled(v)
	if obj, ok := v.(*goja.Object); ok {
		if out, isResult := s.formatCommandResult(obj, o); isResult {
			return out
		}
		if c := s.cursorOf(obj); c != nil && c.explainFn != nil {
			return s.inspectTopWith(c.explainFn(), o)
		}
		if c := s.cursorOf(obj); c != nil {
			docs := c.take(s.batchSize)
			s.last = c
			if len(docs) == 0 {
				return ""
			}
			arr := s.rt.NewArray()
			for i, d := range docs {
				_ = arr.Set(fmt.Sprint(i), d)
			}
			o.depth, o.maxArray, o.maxString = -1, -1, -1
			out := s.inspectWith(arr, o)
			if !c.exhaustedNow() && len(docs) == s.batchSize {
				out += "\nType \"it\" for more"
			}
			return out
		}
	}
	return s.inspectTopWith(v, o)
}

// printCursor prints the next displayBatchSize documents of c, and the
// hint to type "it" when more remain.
func (s *Shell) printCursor(c *cursor) {
	docs := c.take(s.batchSize)
	arr := s.rt.NewArray()
	for i, d := range docs {
		_ = arr.Set(fmt.Sprint(i), d)
	}
	s.last = c
	if s.json != "" {
		x, err := s.toBSON(arr, 0)
		s.check(err)
		out, err := document.MarshalExtJSON(x, s.json == "canonical")
		s.check(err)
		fmt.Fprintln(s.out, indentJSON(out, s.rt.ToValue(2)))
	} else if len(docs) > 0 {
		fmt.Fprintln(s.out, s.inspectWith(arr, cursorOpts))
	} else {
		fmt.Fprintln(s.out) // mongosh shows a cursor with nothing as an empty line
	}
	if !c.exhaustedNow() && len(docs) == s.batchSize {
		fmt.Fprintln(s.out, `Type "it" for more`)
	}
}

// configDefaults are mongosh 2.12.0's settings (config) and their
// defaults, in its order. displayBatchSize is the shell's batch size;
// the others are kept and answered but change nothing here.
var configDefaults = []struct {
	key string
	def any // nil: null; undefinedSetting: undefined
}{
	{"displayBatchSize", shellBatchSize}, {"maxTimeMS", nil}, {"enableTelemetry", false}, {"editor", nil},
	{"disableSchemaSampling", false},
	{"snippetIndexSourceURLs", "https://compass.mongodb.com/mongosh/snippets-index.bson.br"},
	{"snippetRegistryURL", "https://registry.npmjs.org"}, {"snippetAutoload", true},
	{"inspectCompact", 3}, {"inspectDepth", 6}, {"historyLength", 1000}, {"showStackTraces", false},
	{"redactHistory", "remove"}, {"oidcRedirectURI", undefinedSetting}, {"oidcTrustedEndpoints", undefinedSetting},
	{"browser", undefinedSetting}, {"updateURL", "https://downloads.mongodb.com/compass/mongosh.json"},
	{"telemetryEndpoint", "https://mongosh-telemetry.mongodb.com"}, {"disableLogging", false},
	{"logLocation", undefinedSetting}, {"logRetentionDays", 30}, {"logMaxFileCount", 100},
	{"logCompressionEnabled", false}, {"logRetentionGB", undefinedSetting},
}

// undefinedSetting marks a setting whose default is undefined.
var undefinedSetting = new(struct{})

// shellConfig is mongosh's config: get, set and reset of the settings
// above, printed as the Map of them mongosh prints. A name that is not
// a setting is mongosh's "not available" answer to set; displayBatchSize
// must be a positive number.
func (s *Shell) shellConfig() *goja.Object {
	rt := s.rt
	settings := map[string]goja.Value{}
	def := func(key string) (goja.Value, bool) {
		for _, d := range configDefaults {
			if d.key == key {
				switch d.def {
				case nil:
					return goja.Null(), true
				case undefinedSetting:
					return goja.Undefined(), true
				}
				return rt.ToValue(d.def), true
			}
		}
		return nil, false
	}
	get := func(key string) goja.Value {
		if key == "displayBatchSize" {
			return rt.ToValue(s.batchSize)
		}
		if v, ok := settings[key]; ok {
			return v
		}
		v, _ := def(key)
		return v
	}
	config := rt.NewObject()
	_ = config.Set("set", s.named("set", func(c goja.FunctionCall) goja.Value {
		key := c.Argument(0).String()
		if _, ok := def(key); !ok {
			return rt.ToValue(fmt.Sprintf("Option %q is not available in this environment", key))
		}
		v := c.Argument(1)
		if key == "displayBatchSize" {
			f := v.ToFloat()
			if !isNumber(v) || !(f > 0) {
				return rt.ToValue(`Cannot set option "displayBatchSize": displayBatchSize must be a positive integer`)
			}
			s.batchSize = max(1, int(math.Ceil(f)))
		} else {
			settings[key] = v
		}
		return rt.ToValue(fmt.Sprintf("Setting %q has been changed", key))
	}))
	_ = config.Set("get", s.named("get", func(c goja.FunctionCall) goja.Value {
		if v := get(c.Argument(0).String()); v != nil {
			return v
		}
		return goja.Undefined()
	}))
	_ = config.Set("reset", s.named("reset", func(c goja.FunctionCall) goja.Value {
		key := c.Argument(0).String()
		if key == "displayBatchSize" {
			s.batchSize = shellBatchSize
		}
		delete(settings, key)
		return rt.ToValue(fmt.Sprintf("Setting %q has been reset to its default value", key))
	}))
	_ = config.DefineDataPropertySymbol(s.printSym, rt.ToValue(func(goja.FunctionCall) goja.Value {
		m, err := rt.New(rt.Get("Map"))
		if err != nil {
			panic(err)
		}
		setFn, _ := goja.AssertFunction(m.Get("set"))
		for _, d := range configDefaults {
			if _, err := setFn(m, rt.ToValue(d.key), get(d.key)); err != nil {
				panic(err)
			}
		}
		return m
	}), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	return config
}
