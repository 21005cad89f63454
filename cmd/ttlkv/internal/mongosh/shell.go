// Package mongosh runs scripts written for MongoDB's shell, mongosh,
// against anything that executes MongoDB command documents. It embeds the
// goja JavaScript engine and gives scripts mongosh's globals (db, print,
// ObjectId, ISODate, EJSON, ...), its collection and cursor methods, its
// value types and its way of printing results. Every method builds a
// command document and hands it to a Runner; nothing here stores data.
package mongosh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"unicode"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// Runner executes one database command, as engine.DB.RunCommand does.
// A failed command returns a reply with ok: 0 and, usually, a *document.Error.
type Runner interface {
	RunCommand(ctx context.Context, db string, cmd bson.D) (bson.D, error)
}

// Options configures New. The zero value of each field means its default.
type Options struct {
	// DB is the database the global db starts on. Default "test".
	DB string
	// Stdout receives print, printjson and printed results. Default discard.
	Stdout io.Writer
	// Stderr receives console.error and warnings. Default discard.
	Stderr io.Writer
	// JSON, when "relaxed" or "canonical", prints the value of a
	// script's last expression as Extended JSON in that mode instead of
	// mongosh's inspect format (mongosh --json).
	JSON string
	// Context bounds every command and sleep; cancelling it interrupts
	// the running script. Default context.Background().
	Context context.Context
	// Connection describes what the shell is connected to; db.getMongo()
	// prints it as mongosh prints its connection string. Default
	// "ttlkv (embedded engine)".
	Connection string
	// Environ is the environment scripts see as process.env, as
	// os.Environ gives it ("KEY=value"). Default: none.
	Environ []string
	// Dir is the directory load() resolves relative paths against.
	// Default: the process's working directory.
	Dir string
	// URI is the connection string the Runner was opened with, "" for
	// an embedded engine; new Mongo(db.getMongo()) opens it again.
	URI string
	// Dial opens the connections of a script's connect(uri), new
	// Mongo(uri) and Mongo(uri). uri is a mongodb:// or mongodb+srv://
	// connection string as mongosh makes it: directConnection=true for
	// one host, serverSelectionTimeoutMS=2000 for localhost. A Runner
	// that is an io.Closer is closed by Mongo.close() or Close. A
	// failure is shown as the Node driver under mongosh shows it
	// (connect.go). Nil: connect() and Mongo() are refused.
	Dial func(ctx context.Context, uri string) (Runner, error)
}

// Shell is one JavaScript runtime with mongosh's globals. It is not safe
// for concurrent use.
//
// A *Shell is also one connection of that runtime: the shell's own (the
// one New returns, on its Runner) or one a script opened with connect()
// or Mongo() (connect.go), which shares the runtime (core) with it. The
// database, collection and Mongo objects a connection makes send their
// commands to its Runner.
type Shell struct {
	*core

	run      Runner
	colls    map[string]*goja.Object
	dbs      map[string]*goja.Object
	mongoObj *goja.Object // what db.getMongo() returns for this connection's databases
	connDesc string       // Options.Connection, or the connection string a script gave
	// uri is the connection string a script opened this connection
	// with (mongosh's, its parameters added), Options.URI for the
	// shell's own.
	uri string
	// closer closes the Runner of a connection a script opened; nil for
	// the shell's own, which its owner closes.
	closer   io.Closer
	closed   bool // Mongo.close() was called: commands fail as the driver's do
	byScript bool // a script opened it
}

// core is the state the connections of one runtime share.
type core struct {
	rt   *goja.Runtime
	base context.Context // Options.Context
	// ctx bounds the commands of the running Eval: base, cancelled early
	// by Interrupt.
	ctx context.Context

	mu     sync.Mutex         // guards cancel
	cancel context.CancelFunc // ends the running Eval's ctx; nil when idle
	out    io.Writer
	errw   io.Writer
	json   string

	boxSym   *goja.Symbol
	curSym   *goja.Symbol
	printSym *goja.Symbol // mongosh's asPrintable: a method giving what an object prints as
	// methodHelpFns are the help functions of methods (kind.name), made
	// once and given to each object's method (help.go).
	methodHelpFns map[string]*goja.Object
	circ          map[*goja.Object]int // inspect: the objects printed with "<ref *n>", and their n
	// getOwnPropertyDescriptor is Object.getOwnPropertyDescriptor, which
	// inspect asks for accessors.
	getOwnPropertyDescriptor goja.Callable
	protos                   protos
	minKeyCtor               *goja.Object
	maxKeyCtor               *goja.Object
	last                     *cursor                     // the cursor "it" continues
	batchSize                int                         // config.displayBatchSize
	sessions                 map[*goja.Object]goja.Value // each Session startSession made, and the id it prints as
	curSess                  *session                    // the session whose database or collection runs a method, if any
	interactive              bool                        // SetInteractive: a person types at a terminal
	echoFull                 bool                        // EvalCode: the last value prints in full
	dir                      string                      // Options.Dir
	lastDecl                 string                      // what the last compiled program's last statement declares (lastDeclared)
	environ                  []string                    // Options.Environ: process.env
	srcs                     map[string]string           // the last source run under each name, for error messages
	warned                   map[string]bool             // the deprecation warnings printed (deprecated)
	cmdResult                *goja.Object                // mongosh's CommandResult constructor (admin.go)

	// curDB is the global db: a Database of some connection (cur), or
	// one seen through a session.
	curDB  goja.Value
	cur    *Shell
	mongos map[*goja.Object]*Shell // each Mongo object and its connection
	opened []*Shell                // the connections scripts opened, closed by Close
	dial   func(ctx context.Context, uri string) (Runner, error)
}

// protos are the prototypes of the wrapper objects toJS makes.
type protos struct {
	long, objectID, decimal, timestamp, binary, minKey, maxKey, regex, int32, double, other *goja.Object
	// uuid is a Binary of subtype 4 (its prototype is binary's); dbRef,
	// code and symbol are DBRef, Code and BSONSymbol.
	uuid, dbRef, code, symbol *goja.Object
}

// ExitError is returned by Eval when the script called quit() or exit().
type ExitError struct {
	// Code is the exit status the script asked for.
	Code int
}

// Error says that the script asked to exit with Code.
func (e *ExitError) Error() string { return fmt.Sprintf("exit %d", e.Code) }

// New returns a shell whose commands go to r.
func New(r Runner, opts Options) (*Shell, error) {
	if opts.DB == "" {
		opts.DB = "test"
	}
	if opts.Stdout == nil {
		opts.Stdout = io.Discard
	}
	if opts.Stderr == nil {
		opts.Stderr = io.Discard
	}
	if opts.Context == nil {
		opts.Context = context.Background()
	}
	switch opts.JSON {
	case "", "relaxed", "canonical":
	default:
		return nil, fmt.Errorf("--json must be relaxed or canonical, not %q", opts.JSON)
	}
	c := &core{
		rt:       goja.New(),
		base:     opts.Context,
		ctx:      opts.Context,
		out:      opts.Stdout,
		errw:     opts.Stderr,
		json:     opts.JSON,
		boxSym:   goja.NewSymbol("bson"),
		curSym:   goja.NewSymbol("cursor"),
		printSym: goja.NewSymbol("asPrintable"),
		srcs:     map[string]string{},
		warned:   map[string]bool{},
		sessions: map[*goja.Object]goja.Value{},
		mongos:   map[*goja.Object]*Shell{},

		methodHelpFns: map[string]*goja.Object{},

		batchSize: shellBatchSize,
		dir:       opts.Dir,
		environ:   opts.Environ,
		dial:      opts.Dial,
	}
	s := &Shell{
		core:     c,
		run:      r,
		colls:    map[string]*goja.Object{},
		dbs:      map[string]*goja.Object{},
		connDesc: opts.Connection,
		uri:      opts.URI,
	}
	c.cur = s
	if s.connDesc == "" {
		s.connDesc = "ttlkv (embedded engine)"
	}
	if err := s.installValues(); err != nil {
		return nil, err
	}
	s.installGlobals()
	s.installConnect()
	if err := s.installHelpers(); err != nil {
		return nil, err
	}
	if err := s.installAdmin(); err != nil {
		return nil, err
	}
	s.installHelp()
	s.nameNative(s.rt.GlobalObject(), 2, map[*goja.Object]bool{})
	s.setDB(opts.DB)
	return s, nil
}

// DB returns the name of the database the global db points at.
func (s *Shell) DB() string { return s.dbOf(s.curDB).name }

// Use points the global db at database name of the connection db is on,
// as mongosh's "use" does, and returns mongosh's message.
func (s *Shell) Use(name string) (string, error) {
	if name == "" || strings.ContainsAny(name, "/\\. \"$\x00") {
		return "", fmt.Errorf("invalid database name %q", name)
	}
	s.cur.setDB(name)
	return "switched to db " + name, nil
}

// setDB makes database name of connection s the global db.
func (s *Shell) setDB(name string) {
	s.curDB, s.cur = s.database(name), s
}

// dbOf returns the database v is, seen through a session or not; nil
// when v is not a database.
func (s *Shell) dbOf(v goja.Value) *dbObject {
	o, ok := v.(*goja.Object)
	if !ok {
		return nil
	}
	switch x := o.Export().(type) {
	case *dbObject:
		return x
	case *sessionProxy:
		d, _ := x.base.Export().(*dbObject)
		return d
	}
	return nil
}

// directCommands are mongosh's shell commands that are not JavaScript
// (its isDirectShellCommand ones).
var directCommands = map[string]bool{"use": true, "show": true, "it": true, "exit": true, "quit": true}

// directCommand reports whether src, taken whole, is one of mongosh's
// shell commands, and returns it and its words. mongosh decides it so
// for each input it evaluates (an interactive line, --eval code, a
// script file, a load()ed file): the first word, once the input is
// trimmed and one trailing ';' dropped, names a shell command and the
// next word does not start with '(' (so "use(x)" is JavaScript). The
// rest of the input is that command's words, whatever it is; inside a
// longer script the same words are JavaScript, and "show dbs" there is
// a syntax error, as in mongosh (docs/shell.md).
func directCommand(src string) (string, []string, bool) {
	words := strings.Fields(strings.TrimSuffix(strings.TrimSpace(src), ";"))
	if len(words) == 0 || !directCommands[words[0]] {
		return "", nil, false
	}
	if len(words) > 1 && strings.HasPrefix(words[1], "(") {
		return "", nil, false
	}
	return words[0], words[1:], true
}

// Eval runs src (named name in error messages) and prints the value of
// its last expression as mongosh --eval does: nothing for undefined,
// strings as they are, a cursor's first 20 documents, anything else in
// mongosh's inspect format, or Extended JSON with Options.JSON. The error,
// if any, is a *ScriptError or an *ExitError.
//
// The run ends early, with a ScriptError named "Interrupted", when
// Options.Context ends or Interrupt is called.
func (s *Shell) Eval(name, src string) error { return s.evalSrc(name, src, true) }

// EvalCode runs src as mongosh --eval runs its code: as Eval, except
// that the last expression's value is printed in full, with no depth,
// array length or string length limit.
func (s *Shell) EvalCode(name, src string) error {
	s.echoFull = true
	defer func() { s.echoFull = false }()
	err := s.evalSrc(name, src, true)
	if err != nil && s.json != "" {
		return s.jsonFailed(err, src)
	}
	return err
}

// RunFile runs src, the script file name, as mongosh runs the files it
// is given: like Eval, but the value of the last expression is not
// printed.
// While it runs, __filename and __dirname are its absolute path and
// directory.
func (s *Shell) RunFile(name, src string) error {
	defer s.scriptPath(s.absPath(name))()
	return s.evalSrc(name, src, false)
}

// absPath is name resolved against Options.Dir (else the working
// directory), as mongosh resolves a script's or load()'s file.
func (s *Shell) absPath(name string) string {
	if s.dir != "" && !filepath.IsAbs(name) {
		name = filepath.Join(s.dir, name)
	}
	if abs, err := filepath.Abs(name); err == nil {
		return abs
	}
	return name
}

// scriptPath makes __filename and __dirname the script file path's, as
// mongosh has them while a file runs; the function it returns puts
// back what they were (undefined for --eval code and the prompt).
func (s *Shell) scriptPath(path string) func() {
	g := s.rt.GlobalObject()
	prevFile, prevDir := g.Get("__filename"), g.Get("__dirname")
	_ = g.Set("__filename", path)
	_ = g.Set("__dirname", filepath.Dir(path))
	return func() {
		if prevFile == nil {
			_ = g.Delete("__filename")
			_ = g.Delete("__dirname")
			return
		}
		_ = g.Set("__filename", prevFile)
		_ = g.Set("__dirname", prevDir)
	}
}

// throwFileError throws a file error as Node's under mongosh: an Error
// with code (ENOENT), errno, syscall and path, and Node's message
// ("ENOENT: no such file or directory, open '/x.js'").
func (s *Shell) throwFileError(err error, path string) {
	code, errno, syscallName, msg := "", 0, "open", ""
	switch {
	case errors.Is(err, fs.ErrNotExist):
		code, errno, msg = "ENOENT", -2, "no such file or directory"
	case errors.Is(err, fs.ErrPermission):
		code, errno, msg = "EACCES", -13, "permission denied"
	case errors.Is(err, syscall.EISDIR):
		code, errno, syscallName, msg = "EISDIR", -21, "read", "illegal operation on a directory"
	default:
		s.check(err)
	}
	text := code + ": " + msg + ", " + syscallName
	if syscallName == "open" {
		text += " '" + path + "'"
	}
	e, jerr := s.rt.New(s.rt.Get("Error"), s.rt.ToValue(text))
	if jerr != nil {
		panic(jerr)
	}
	_ = e.Set("errno", errno)
	_ = e.Set("code", code)
	_ = e.Set("syscall", syscallName)
	if syscallName == "open" {
		_ = e.Set("path", path)
	}
	panic(e)
}

// evalSrc is Eval, printing the last expression's value when show is set.
func (s *Shell) evalSrc(name, src string, show bool) error {
	ctx, cancel := context.WithCancel(s.base)
	s.mu.Lock()
	s.ctx, s.cancel = ctx, cancel
	s.mu.Unlock()
	s.rt.ClearInterrupt()
	// A cancelled context stops the JavaScript too, not only the
	// commands and sleeps that watch it: goja checks the interrupt flag
	// between instructions, so even while(true){} ends.
	stop := context.AfterFunc(ctx, func() { s.rt.Interrupt(errInterrupted) })
	defer func() {
		stop()
		s.mu.Lock()
		s.ctx, s.cancel = s.base, nil
		s.mu.Unlock()
		cancel()
		s.rt.ClearInterrupt()
	}()
	var v goja.Value
	var err error
	if cmd, args, ok := directCommand(src); ok {
		err = s.guard(func() { s.shellCommand(cmd, args, show) })
	} else {
		v, err = s.exec(name, src)
	}
	if err == nil && show {
		err = s.guard(func() { s.printResult(v) })
	} else if err == nil && v != nil {
		// A script file's last value is not printed, but awaited as
		// mongosh awaits it: an async main() that fails fails the file.
		err = s.guard(func() { s.settled(v) })
	}
	var ee *ExitError
	if err != nil && ctx.Err() != nil && !errors.As(err, &ee) {
		// Whatever failed (a command, a sleep, the next instruction)
		// failed because the run was stopped: say that, as mongosh does.
		err = &ScriptError{Name: "MongoshInterruptedError", Message: "execution was interrupted"}
	}
	return err
}

// exec compiles and runs src, turning a thrown value into a *ScriptError.
func (s *Shell) exec(name, src string) (goja.Value, error) {
	prog, err := s.compile(name, src)
	if err != nil {
		return nil, &ScriptError{Name: "SyntaxError", Message: syntaxReport(err, src)}
	}
	decl := s.lastDecl
	var v goja.Value
	err = s.guard(func() {
		var e error
		v, e = s.rt.RunProgram(prog)
		if e != nil {
			panic(e)
		}
		if decl != "" && (v == nil || goja.IsUndefined(v)) {
			if d, e := s.rt.RunString(decl); e == nil {
				v = d
			}
		}
	})
	return v, err
}

// guard runs f, converting JavaScript exceptions, interrupts and Go
// panics carrying errors into the errors Eval documents.
func (s *Shell) guard(f func()) (err error) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		switch x := r.(type) {
		case *goja.Exception:
			err = s.scriptError(x.Value(), x)
		case *goja.InterruptedError:
			s.rt.ClearInterrupt()
			if ex, ok := x.Value().(*ExitError); ok {
				err = ex
				return
			}
			err = &ScriptError{Name: "MongoshInterruptedError", Message: fmt.Sprint(x.Value())}
		case goja.Value:
			err = s.scriptError(x, nil)
		case *ExitError:
			err = x
		case error:
			err = &ScriptError{Name: "Error", Message: x.Error()}
		default:
			err = &ScriptError{Name: "Error", Message: fmt.Sprint(x)}
		}
	}()
	f()
	return nil
}

var syntaxPrefix = regexp.MustCompile(`^SyntaxError: `)

func syntaxMessage(err error) string {
	msg := err.Error()
	var ex *goja.CompilerSyntaxError
	if errors.As(err, &ex) {
		msg = ex.Error()
	}
	return syntaxPrefix.ReplaceAllString(msg, "")
}

// syntaxReport is what mongosh prints after "SyntaxError: " for code
// that does not parse: its parser's message and the position (line, and
// column from 0), a blank line, and the lines around it with the
// position marked (Babel's code frame: two lines before, three after).
// goja's parser words some errors otherwise; the common ones are said
// as mongosh says them ("Unexpected token", "Missing semicolon.",
// "Unterminated string constant."); others keep goja's words.
func syntaxReport(err error, src string) string {
	// A name declared twice: goja's compiler's error, with its position.
	var ce *goja.CompilerSyntaxError
	if errors.As(err, &ce) && ce.File != nil && strings.HasSuffix(ce.Message, "has already been declared") {
		pos := ce.File.Position(ce.Offset)
		return codeFrame(ce.Message+".", src, pos.Line, pos.Column-1)
	}
	// goja's compiler keeps only the parser's message; parsing again
	// gives its first error with the position.
	var list parser.ErrorList
	if !errors.As(err, &list) {
		_, perr := parser.ParseFile(nil, "", src, 0)
		if !errors.As(perr, &list) {
			return syntaxMessage(err)
		}
	}
	if len(list) == 0 {
		return syntaxMessage(err)
	}
	pe := list[0]
	lines := strings.Split(src, "\n")
	line, col := pe.Position.Line, pe.Position.Column-1
	if line < 1 || line > len(lines) || col < 0 {
		return syntaxMessage(err)
	}
	text := []rune(lines[line-1])
	at := func(i int) rune {
		if i >= 0 && i < len(text) {
			return text[i]
		}
		return 0
	}
	isIdent := func(r rune) bool { return r == '_' || r == '$' || unicode.IsLetter(r) || unicode.IsDigit(r) }
	msg := pe.Message
	switch {
	case strings.HasPrefix(msg, "Unexpected token ILLEGAL") && strings.ContainsRune("'\"`", at(col)):
		msg = "Unterminated string constant."
	case strings.HasPrefix(msg, "Unexpected token ILLEGAL") && unicode.IsDigit(at(col)) && isIdent(at(col+1)):
		msg, col = "Identifier directly after number.", col+1
	case msg == "Unexpected identifier":
		// Babel reports where the statement should have ended: right
		// after the token before this one.
		i := col - 1
		for i >= 0 && (at(i) == ' ' || at(i) == '\t') {
			i--
		}
		msg, col = "Missing semicolon.", i+1
	case strings.HasPrefix(msg, "Unexpected token") || msg == "Unexpected end of input":
		msg = "Unexpected token"
	}
	return codeFrame(msg, src, line, col)
}

// codeFrame is msg at line (from 1) and col (from 0) of src as Babel
// reports it: "msg (line:col)", then the lines around it with the
// position marked.
func codeFrame(msg, src string, line, col int) string {
	lines := strings.Split(src, "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%d:%d)\n", msg, line, col)
	first, last := max(1, line-2), min(len(lines), line+3)
	width := len(strconv.Itoa(last))
	for n := first; n <= last; n++ {
		mark := "  "
		if n == line {
			mark = "> "
		}
		code := lines[n-1]
		if code == "" {
			fmt.Fprintf(&b, "\n%s%*d |", mark, width, n)
		} else {
			fmt.Fprintf(&b, "\n%s%*d | %s", mark, width, n, code)
		}
		if n == line {
			fmt.Fprintf(&b, "\n  %*s | %s^", width, "", strings.Repeat(" ", col))
		}
	}
	return b.String()
}

// ScriptError is an exception a script did not catch.
type ScriptError struct {
	// Name is the error's class: "MongoServerError", "TypeError", ...
	Name string
	// Message is the error's message.
	Message string
	// Code and CodeName are set for errors the database returned.
	Code     int32
	CodeName string
	// Where is "file:line:column" of the throw when known.
	Where string
	// value is the Error object thrown, if it was one (--json prints
	// its own keys).
	value goja.Value
}

// Error renders the error as mongosh prints one that ends --eval code
// or a script file: "Name: message" ("MongoServerError: E11000 ...",
// "TypeError: ..."; mongosh does not say where, Where does).
func (e *ScriptError) Error() string {
	return fmt.Sprintf("%s: %s", e.Name, e.Message)
}

// Interactive renders the error as mongosh's shell prints one at its
// prompt: a database error's code name follows its class
// ("MongoServerError[CommandNotFound]: no such command: ..."); a write
// error has none.
func (e *ScriptError) Interactive() string {
	if e.CodeName != "" {
		return fmt.Sprintf("%s[%s]: %s", e.Name, e.CodeName, e.Message)
	}
	return e.Error()
}

func (s *Shell) scriptError(v goja.Value, ex *goja.Exception) *ScriptError {
	se := &ScriptError{Name: "Error"}
	var top jsFrame // the first frame, if not a built-in's
	if ex != nil {
		if st := ex.Stack(); len(st) > 0 {
			p := st[0].Position()
			top = jsFrame{file: p.Filename, line: p.Line, col: p.Column, topLevel: len(st) == 1}
			for _, fr := range st {
				p := fr.Position()
				if p.Line > 0 && p.Filename != "" { // not the preludes
					se.Where = fmt.Sprintf("%s:%d:%d", p.Filename, p.Line, p.Column)
					break
				}
			}
		}
	}
	o, ok := v.(*goja.Object)
	if !ok || o.ClassName() != "Error" {
		// A thrown value that is not an Error: mongosh says "Error: "
		// and the value as print shows it ("Error: str", "Error: { a: 1 }").
		se.Message = s.inspectTop(v)
		return se
	}
	se.value = o
	if n := o.Get("name"); n != nil && !goja.IsUndefined(n) {
		se.Name = n.String()
	}
	if m := o.Get("message"); m != nil && !goja.IsUndefined(m) {
		se.Message = m.String()
	}
	if c := o.Get("code"); c != nil && !goja.IsUndefined(c) {
		se.Code = int32(c.ToInteger())
	}
	if c := o.Get("codeName"); c != nil && !goja.IsUndefined(c) {
		se.CodeName = c.String()
	}
	if se.Name == "TypeError" {
		// goja's words in V8's (jserrors.go): db.c.hideIndx() names the
		// collection "c.hideIndx", and calling it is "db.c.hideIndx is
		// not a function", as mongosh says.
		se.Message = s.v8Message(se.Message, top)
		if se.Message == "Dynamic object is not callable" {
			se.Message = "a collection or database is not a function"
		}
	}
	return se
}

// calleeAt returns the expression called at the "(" at line:column of
// src ("db.c.hideIndx" for "db.c.hideIndx(...)"), or "" if src has no
// "(" there or the callee is not a plain chain of names, calls and
// subscripts on that line.
func calleeAt(src string, line, column int) string {
	lines := strings.Split(src, "\n")
	if line < 1 || line > len(lines) {
		return ""
	}
	l := lines[line-1]
	i := column - 1
	if i < 1 || i >= len(l) || l[i] != '(' {
		return ""
	}
	j, depth := i-1, 0
	for ; j >= 0; j-- {
		c := l[j]
		switch {
		case depth > 0 && (c == '(' || c == '['):
			depth--
		case c == ')' || c == ']':
			depth++
		case depth > 0, c == '.', c == '_', c == '$',
			'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		default:
			goto done
		}
	}
done:
	callee := l[j+1 : i]
	if depth != 0 || callee == "" || strings.HasPrefix(callee, ".") {
		return ""
	}
	return callee
}

// throw raises a JavaScript error of the given class (the name mongosh
// uses, e.g. "MongoshInvalidInputError" or "TypeError").
// invalidInput is mongosh's MongoshInvalidInputError for a bad
// argument: code COMMON-10001 (CommonErrors.InvalidArgument), the code
// in brackets before the message. The caller panics with it.
func (s *Shell) invalidInput(msg string) *goja.Object {
	e, err := s.rt.New(s.rt.Get("Error").(*goja.Object), s.rt.ToValue("[COMMON-10001] "+msg))
	if err != nil {
		panic(err)
	}
	s.mongoshKeys(e, "MongoshInvalidInputError", "COMMON-10001")
	return e
}

func (s *Shell) throw(name, format string, args ...any) {
	if strings.HasPrefix(name, "Mongo") && !strings.HasPrefix(name, "Mongosh") {
		panic(s.driverError(name, fmt.Sprintf(format, args...)))
	}
	ctor, native := s.rt.Get("Error"), false
	switch name {
	case "TypeError", "SyntaxError", "RangeError", "ReferenceError":
		ctor, native = s.rt.Get(name), true // JavaScript's own class
	}
	e, err := s.rt.New(ctor, s.rt.ToValue(fmt.Sprintf(format, args...)))
	if err != nil {
		panic(err)
	}
	if !native {
		_ = e.Set("name", name)
	}
	panic(e)
}

// check throws err, if not nil, as an invalid-input error.
func (s *Shell) check(err error) {
	if err != nil {
		s.throw("MongoshInvalidInputError", "%v", err)
	}
}

// command runs cmd on database db and returns the reply; a failed
// command throws a MongoServerError carrying code, codeName and the
// reply's other fields.
func (s *Shell) command(db string, cmd bson.D) bson.D {
	s.checkOpen()
	s.sessionCommand(cmd)
	reply, err := s.run.RunCommand(s.ctx, db, cmd)
	if err == nil && document.ReplyOK(reply) {
		return reply
	}
	s.throwServer("MongoServerError", reply, err)
	return nil
}

// throwServer throws a database error built from a failed reply and/or
// the Go error that came with it.
func (s *Shell) throwServer(name string, reply bson.D, err error) {
	var msg, codeName string
	var code int32
	var de *document.Error
	if errors.As(err, &de) {
		msg, code, codeName = de.Message, int32(de.Code), de.Name()
	} else if err != nil {
		msg = err.Error()
	}
	if v, ok := document.Get(reply, "errmsg"); ok && msg == "" {
		msg, _ = v.(string)
	}
	if v, ok := document.Get(reply, "code"); ok && code == 0 {
		code = toInt32(v)
	}
	if v, ok := document.Get(reply, "codeName"); ok && codeName == "" {
		codeName, _ = v.(string)
	}
	if codeName == "" && code != 0 {
		codeName = document.Code(code).String()
	}
	if msg == "" {
		msg = "command failed"
	}
	s.throwCoded(name, msg, code, codeName, reply)
}

// throwCoded throws a database error, mongosh's MongoServerError (or
// the class name), for a failed command or write. response is the
// document the Node driver makes the error from: the reply, or a
// write's first write error. As the driver's, the error's own
// enumerable keys are errorLabelSet, errorResponse (response as it
// came) and response's fields but errmsg, in response's order; name and
// errmsg are there too, not enumerable, so that Object.keys(e) and
// JSON.stringify(e) are mongosh's. An empty codeName (a write error's,
// which has none) is left out.
func (s *Shell) throwCoded(name, msg string, code int32, codeName string, response bson.D) {
	if len(response) == 0 { // an error that came without a reply
		response = bson.D{{Key: "ok", Value: 0.0}, {Key: "errmsg", Value: msg}}
		if code != 0 {
			response = append(response, bson.E{Key: "code", Value: code}, bson.E{Key: "codeName", Value: codeName})
		}
	}
	e, jerr := s.rt.New(s.rt.Get("Error"), s.rt.ToValue(msg))
	if jerr != nil {
		panic(jerr)
	}
	_ = e.DefineDataProperty("name", s.rt.ToValue(name), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	_ = e.DefineDataProperty("errmsg", s.rt.ToValue(msg), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	labels, jerr := s.rt.New(s.rt.Get("Set"))
	if jerr != nil {
		panic(jerr)
	}
	_ = e.Set("errorLabelSet", labels)
	_ = e.Set("errorResponse", s.toJS(response))
	for _, f := range response {
		if f.Key != "errmsg" && f.Key != "errorLabels" {
			_ = e.Set(f.Key, s.toJS(f.Value))
		}
	}
	if code != 0 {
		if _, ok := document.Get(response, "code"); !ok {
			_ = e.Set("code", code)
		}
		if _, ok := document.Get(response, "codeName"); !ok && codeName != "" {
			_ = e.Set("codeName", codeName)
		}
	}
	panic(e)
}

func toInt32(v any) int32 {
	switch n := v.(type) {
	case int32:
		return n
	case int64:
		return int32(n)
	case float64:
		return int32(n)
	}
	return 0
}

// errInterrupted is the value a stopped script is interrupted with.
var errInterrupted = errors.New("execution was interrupted")

// Interrupt stops the running Eval, if any, at its next instruction and
// cancels the command it waits for; that Eval then returns a
// *ScriptError named "Interrupted". It does nothing when no Eval runs, so
// the next Eval is not affected. Safe to call from any goroutine.
func (s *Shell) Interrupt() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cancel != nil {
		s.cancel()
	}
}

// Incomplete reports whether src is the start of a longer statement: a
// bracket, string or template left open, or a parse that ends early.
// The interactive shell keeps reading lines while it is true.
func Incomplete(src string) bool {
	depth, quote, esc := 0, rune(0), false
	lineComment, blockComment := false, false
	prev := rune(0)
	for _, r := range src {
		switch {
		case lineComment:
			if r == '\n' {
				lineComment = false
			}
		case blockComment:
			if prev == '*' && r == '/' {
				blockComment = false
				r = 0
			}
		case quote != 0:
			switch {
			case esc:
				esc = false
			case r == '\\':
				esc = true
			case r == quote:
				quote = 0
			}
		case r == '/' && prev == '/':
			lineComment = true
			depth = max(depth, 0)
		case r == '*' && prev == '/':
			blockComment = true
		case r == '"' || r == '\'' || r == '`':
			quote = r
		case r == '(' || r == '[' || r == '{':
			depth++
		case r == ')' || r == ']' || r == '}':
			depth--
		}
		prev = r
	}
	if blockComment || quote == '`' || depth > 0 {
		return true
	}
	if depth < 0 || quote != 0 {
		return false
	}
	if _, _, ok := directCommand(src); ok {
		return false
	}
	_, err := goja.Compile("", src, false)
	return err != nil && strings.Contains(err.Error(), "end of input")
}

// SetInteractive says whether a person types the shell's input at a
// terminal (the interactive shell) or it runs a script: isInteractive()
// answers it, and cls() clears the screen only then.
func (s *Shell) SetInteractive(on bool) { s.interactive = on }
