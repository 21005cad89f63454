package mongosh

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/dop251/goja"
)

// What --json prints, as mongosh --json does: the last value of the
// --eval code as indented Extended JSON, and when the code fails, the
// error instead, as a document (its own keys, then message, stack and
// name) on standard output, and exit status 1. A value that holds a
// shell object (a database, a collection, a cursor, a connection, a
// session, a Bulk, rs or sh) cannot be written: mongosh's Extended JSON
// writer meets the driver's client inside it twice and fails with the
// bson library's BSONError naming the path ("Converting circular
// structure to EJSON: (root) -> _mongo -> ..."), which is what the
// shell throws for it.

// jsonFailed prints err, the failure of --eval code src under --json,
// as mongosh --json does, and returns what ends the run with status 1
// and nothing more on standard error. An exit (quit(n)) is returned as
// it is.
func (s *Shell) jsonFailed(err error, src string) error {
	var ee *ExitError
	if errors.As(err, &ee) {
		return err
	}
	var se *ScriptError
	if !errors.As(err, &se) {
		return err
	}
	rt := s.rt
	doc := rt.NewObject()
	if se.Name == "SyntaxError" && se.value == nil {
		s.babelFields(doc, se.Message, src)
	}
	if o, ok := se.value.(*goja.Object); ok {
		for _, k := range o.Keys() {
			_ = doc.Set(k, o.Get(k))
		}
	}
	stack := se.Name + ": " + se.Message
	if o, ok := se.value.(*goja.Object); ok {
		// goja's frames, after its own first line(s): "\tat f
		// (<eval>:1:22(3))" a line, put as V8 indents them.
		if st := o.Get("stack"); st != nil && goja.IsString(st) {
			if i := strings.Index(st.String(), "\n\tat "); i >= 0 {
				frames := strings.TrimRight(st.String()[i:], "\n")
				stack += strings.ReplaceAll(frames, "\n\tat ", "\n    at ")
			}
		}
	}
	_ = doc.Set("message", se.Message)
	_ = doc.Set("stack", stack)
	_ = doc.Set("name", se.Name)
	out, _, jerr := s.extJSON(doc)
	if jerr != nil { // an own key that cannot be written: the three alone
		plain := rt.NewObject()
		for _, k := range []string{"message", "stack", "name"} {
			_ = plain.Set(k, doc.Get(k))
		}
		if out, _, jerr = s.extJSON(plain); jerr != nil {
			return err
		}
	}
	fmt.Fprintln(s.out, out)
	return &ExitError{Code: 1}
}

// extJSON is v as --json prints it: Extended JSON in the shell's mode,
// indented by two spaces, as EJSON.stringify writes it; ok is false when
// v is nothing JSON writes (a function, a symbol: mongosh prints
// undefined).
func (s *Shell) extJSON(v goja.Value) (out string, ok bool, err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, isErr := r.(error); isErr {
				err = e
				return
			}
			panic(r)
		}
	}()
	str := s.ejsonStringify(v, s.json == "relaxed", s.rt.ToValue(2))
	if goja.IsUndefined(str) {
		return "", false, nil
	}
	return str.String(), true, nil
}

// Where each kind of shell object leads, from its own keys, to the
// driver's client seen a second time (mongosh's objects and the Node
// driver's): the props of the bson library's message after "(root)",
// and the index among them of the object seen first.
var (
	// a database, a collection, a cursor, a Bulk
	viaMongo = circularPath{props: []string{"_mongo", "__serviceProvider", "mongoClient", "s", "sessionPool", "client"}, first: 3}
	// a connection (db.getMongo())
	viaProvider = circularPath{props: []string{"__serviceProvider", "mongoClient", "s", "sessionPool", "client"}, first: 2}
	// a session
	viaSession = circularPath{props: []string{"_session", "client", "s", "sessionPool", "client"}, first: 2}
	// rs and sh
	viaDatabase = circularPath{props: []string{"_database", "_mongo", "__serviceProvider", "mongoClient", "s", "sessionPool", "client"}, first: 4}
)

// circularPath is the route through a shell object to the object it
// holds twice; first counts "(root)" as 0.
type circularPath struct {
	props []string
	first int
}

// circularMessage is the bson library's BSONError message for the
// props (from "(root)") whose last repeats the one at index first: the
// route, then a line whose backslash and slash join the two.
func circularMessage(props []string, first int) string {
	var lead strings.Builder
	for _, p := range props[:first] {
		lead.WriteString(p + " -> ")
	}
	seen, cur := props[first], props[len(props)-1]
	circ := " -> "
	for _, p := range props[first+1 : len(props)-1] {
		circ += p + " -> "
	}
	// JavaScript's ' '.repeat(n) takes n down to a whole number.
	space := strings.Repeat(" ", lead.Len()+len(seen)/2)
	dashes := strings.Repeat("-", max(len(circ)+(len(seen)+len(cur))/2-1, 0))
	return "Converting circular structure to EJSON:\n" +
		"    " + lead.String() + seen + circ + cur + "\n" +
		"    " + space + "\\" + dashes + "/"
}

// shellObjectPath reports the circular path of o when it is a shell
// object --json cannot write.
func (s *Shell) shellObjectPath(o *goja.Object) (circularPath, bool) {
	if s.cursorOf(o) != nil {
		return viaMongo, true
	}
	if _, ok := s.mongos[o]; ok {
		return viaProvider, true
	}
	if _, ok := s.sessions[o]; ok {
		return viaSession, true
	}
	switch o.Export().(type) {
	case *dbObject, *collObject:
		return viaMongo, true
	case *sessionProxy:
		return viaSession, true
	}
	for _, name := range []string{"rs", "sh"} {
		if g, ok := s.rt.Get(name).(*goja.Object); ok && g == o {
			return viaDatabase, true
		}
	}
	if c, ok := o.Get("_coll").(*goja.Object); ok {
		if _, isColl := c.Export().(*collObject); isColl { // a Bulk
			return viaMongo, true
		}
	}
	return circularPath{}, false
}

// checkWritable throws mongosh's BSONError when v, or an array element
// or a plain object's value within it, is a shell object: what --json
// cannot write.
func (s *Shell) checkWritable(v goja.Value) {
	if msg := s.unwritable(v, []string{"(root)"}, 0); msg != "" {
		e, err := s.rt.New(s.rt.Get("Error").(*goja.Object), s.rt.ToValue(msg))
		if err != nil {
			panic(err)
		}
		_ = e.DefineDataProperty("name", s.rt.ToValue("BSONError"), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		panic(e)
	}
}

// unwritable is checkWritable's search: the message for the first
// shell object within v, whose route from the root is path, or "".
func (s *Shell) unwritable(v goja.Value, path []string, depth int) string {
	o, ok := v.(*goja.Object)
	if !ok || depth > maxDepth {
		return ""
	}
	if p, ok := s.shellObjectPath(o); ok {
		props := append(append([]string{}, path...), p.props...)
		return circularMessage(props, len(path)-1+p.first)
	}
	switch o.ClassName() {
	case "Array":
		n := int(o.Get("length").ToInteger())
		for i := 0; i < n; i++ {
			if m := s.unwritable(o.Get(strconv.Itoa(i)), append(path, "index "+strconv.Itoa(i)), depth+1); m != "" {
				return m
			}
		}
	case "Object":
		if s.boxOf(o) != nil {
			return ""
		}
		for _, k := range o.Keys() {
			if m := s.unwritable(o.Get(k), append(path, k), depth+1); m != "" {
				return m
			}
		}
	}
	return ""
}

// babelReasons are the reason codes of Babel, mongosh's parser, for the
// syntax errors the shell words as Babel does (syntaxReport).
var babelReasons = map[string]string{
	"Missing semicolon.":                "MissingSemicolon",
	"Unexpected token":                  "UnexpectedToken",
	"Unterminated string constant.":     "UnterminatedString",
	"Identifier directly after number.": "NumberIdentifier",
}

// babelMessage is the first line of a syntax report: "msg (line:col)".
var babelMessage = regexp.MustCompile(`^(.*) \((\d+):(\d+)\)$`)

// babelFields sets on doc the keys of Babel's SyntaxError that mongosh
// --json prints before its message (code, reasonCode, loc, pos,
// syntaxPlugin), for a report (msg) of src whose words are Babel's;
// others have none.
func (s *Shell) babelFields(doc *goja.Object, msg, src string) {
	first, _, _ := strings.Cut(msg, "\n")
	m := babelMessage.FindStringSubmatch(first)
	if m == nil {
		return
	}
	reason, ok := babelReasons[m[1]]
	if !ok && strings.HasSuffix(m[1], "has already been declared.") {
		reason, ok = "VarRedeclaration", true
	}
	line, _ := strconv.Atoi(m[2])
	col, _ := strconv.Atoi(m[3])
	off := lineOffset(src, line)
	if !ok || off < 0 {
		return
	}
	index := len(utf16.Encode([]rune(src[:off]))) + col
	rt := s.rt
	_ = doc.Set("code", "BABEL_PARSE_ERROR")
	_ = doc.Set("reasonCode", reason)
	loc := rt.NewObject()
	_ = loc.Set("line", line)
	_ = loc.Set("column", col)
	_ = loc.Set("index", index)
	_ = doc.Set("loc", loc)
	_ = doc.Set("pos", index)
	_ = doc.Set("syntaxPlugin", goja.Null())
}
