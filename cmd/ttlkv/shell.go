package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/chzyer/readline"
	"github.com/spf13/pflag"

	"github.com/ttlkv/ttlkv/cmd/ttlkv/internal/mongosh"
	"github.com/ttlkv/ttlkv/cmd/ttlkv/internal/remote"
	"github.com/ttlkv/ttlkv/engine"
)

type shellFlags struct {
	history string
	json    string
}

// shellHelp is what 'ttlkv shell --help' adds: the shell's own help
// command prints mongosh's table, as mongosh does.
const shellHelp = `Shell commands:
  use <db>            switch the current database
  show dbs            list databases
  show collections    list collections of the current database
  it                  show the next documents of the last printed cursor
  help                mongosh's list of the shell's commands and functions
                      (db.help(), db.coll.help(), cursor.help(): their methods)
  exit, quit()        leave the shell (or press Ctrl-D)

Anything else is mongosh JavaScript, e.g.:
  db.events.insertOne({ at: new Date(), kind: "login" })
  db.events.createIndex({ at: 1 }, { expireAfterSeconds: 3600 })
  db.events.find({ kind: "login" }).sort({ at: -1 }).limit(5)
  db.adminCommand({ setParameter: 1, ttlMonitorSleepSecs: 1 })
  db.createCollection("log", { capped: true, size: 1048576, max: 1000 })
  db.log.find().sort({ $natural: -1 }).limit(10)
  db.createCollection("weather", { timeseries: { timeField: "ts", metaField: "sensor" }, expireAfterSeconds: 86400 })
A line ending inside an open bracket or string continues on the next line.
Ctrl-C stops a running statement (the session goes on), clears the current
input, and pressed twice at an empty prompt leaves the shell.`

var shellCommand = &command{
	remote:  true,
	name:    "shell",
	summary: "an interactive mongosh-compatible shell (line editing, history, multi-line input)",
	usage:   "ttlkv shell [--db NAME] [--history FILE]",
	notes:   shellHelp,
	examples: []string{
		`ttlkv shell`,
		`ttlkv shell --db logs --history ''`,
	},
	flags: func(fs *pflag.FlagSet) any {
		f := &shellFlags{history: "~/.ttlkv_shell_history"}
		fs.StringVar(&f.history, "history", f.history, "history file ('' keeps no history)")
		addJSONFlag(fs, &f.json)
		return f
	},
	run: func(e *env, _ *pflag.FlagSet, cfg any, args []string) int {
		f := cfg.(*shellFlags)
		if len(args) > 0 {
			fmt.Fprintln(e.stderr, "ttlkv shell: takes no arguments (use 'ttlkv eval' to run code)")
			return 2
		}
		db, code, ok := e.connectShell("shell")
		if !ok {
			return code
		}
		code = e.shell(db, f)
		return e.closeSession("shell", db, code)
	},
}

// lineReader is where the shell's input comes from: readline on a
// terminal, plain lines otherwise.
type lineReader interface {
	// readLine returns the next line without its newline; io.EOF at the
	// end of input, readline.ErrInterrupt on Ctrl-C.
	readLine(prompt string) (string, error)
	close()
}

type plainReader struct{ sc *bufio.Scanner }

func (p *plainReader) readLine(string) (string, error) {
	if p.sc.Scan() {
		return p.sc.Text(), nil
	}
	if err := p.sc.Err(); err != nil {
		return "", err
	}
	return "", io.EOF
}
func (p *plainReader) close() {}

type rlReader struct{ rl *readline.Instance }

func (r *rlReader) readLine(prompt string) (string, error) {
	r.rl.SetPrompt(prompt)
	return r.rl.Readline()
}
func (r *rlReader) close() { r.rl.Close() }

// expandHome replaces a leading ~ with the home directory.
func expandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, p[1:])
		}
	}
	return p
}

// newLineReader picks readline for a terminal and plain lines otherwise.
func (e *env) newLineReader(history string) (lineReader, bool, error) {
	if !e.isTerm(e.stdin) {
		sc := bufio.NewScanner(e.stdin)
		sc.Buffer(make([]byte, 64<<10), 16<<20)
		return &plainReader{sc: sc}, false, nil
	}
	cfg := &readline.Config{
		HistoryFile:       e.path(expandHome(history)),
		HistorySearchFold: true,
		InterruptPrompt:   "^C",
		EOFPrompt:         "exit",
	}
	if in, ok := e.stdin.(*os.File); ok {
		cfg.Stdin = in
		cfg.FuncIsTerminal = func() bool { return true }
		fd := int(in.Fd())
		var state *readline.State
		cfg.FuncMakeRaw = func() error {
			var err error
			state, err = readline.MakeRaw(fd)
			return err
		}
		cfg.FuncExitRaw = func() error {
			if state == nil {
				return nil
			}
			return readline.Restore(fd, state)
		}
		cfg.FuncGetWidth = func() int {
			w, _, err := readline.GetSize(fd)
			if err != nil || w <= 0 {
				return 80
			}
			return w
		}
	}
	if out, ok := e.stdout.(io.Writer); ok {
		cfg.Stdout = out
		cfg.Stderr = e.stderr
	}
	rl, err := readline.NewEx(cfg)
	if err != nil {
		return nil, false, err
	}
	return &rlReader{rl: rl}, true, nil
}

// connectShell opens the session of the shell and eval (named cmd) as
// mongosh connects: --uri with mongosh's parameters (directConnection
// for one host, serverSelectionTimeoutMS=2000 on localhost), and a
// server that cannot be reached, or refuses the credentials, reported
// as mongosh reports it ("MongoNetworkError: connect ECONNREFUSED
// 127.0.0.1:1", exit status 1). ok is false when it failed; code is then
// the exit status.
func (e *env) connectShell(cmd string) (db *session, code int, ok bool) {
	if e.uri != "" {
		e.uri = mongosh.ConnectionURI(e.uri)
		if err := mongosh.Unreachable(e.ctx, e.uri); err != nil {
			fmt.Fprintln(e.stderr, mongosh.DialError(err, e.uri).Error())
			return nil, 1, false
		}
	}
	db, err := e.connect(engine.Options{})
	if err != nil {
		if se := mongosh.DialError(err, e.uri); e.uri != "" && se != nil {
			fmt.Fprintln(e.stderr, se.Error())
			return nil, 1, false
		}
		return nil, e.fail(cmd, err), false
	}
	return db, 0, true
}

// shellOptions are the options of the shell (ttlkv shell, ttlkv eval)
// on db: its connect() and Mongo() open connections with the client of
// --uri.
func (e *env) shellOptions(db *session, json string) mongosh.Options {
	uri := ""
	if db.remote != nil {
		uri = e.uri
	}
	return mongosh.Options{DB: e.db, Stdout: e.stdout, Stderr: e.stderr, JSON: json, Context: e.ctx,
		Connection: db.connection(), Dir: e.wd, URI: uri, Dial: shellDial, Environ: os.Environ()}
}

// shellDial opens a connection of the shell's connect() or Mongo().
// A host that refuses connections is reported at once, as the Node
// driver under mongosh reports it (mongosh.Unreachable).
func shellDial(ctx context.Context, uri string) (mongosh.Runner, error) {
	if err := mongosh.Unreachable(ctx, uri); err != nil {
		return nil, err
	}
	c, err := remote.Dial(ctx, uri, "ttlkv "+version)
	if err != nil {
		return nil, err
	}
	return c, nil
}

// shell runs the read-eval-print loop until exit or end of input.
func (e *env) shell(db *session, f *shellFlags) int {
	sh, err := mongosh.New(db, e.shellOptions(db, f.json))
	if err != nil {
		return e.fail("shell", err)
	}
	defer sh.Close()
	in, interactive, err := e.newLineReader(f.history)
	if err != nil {
		return e.fail("shell", err)
	}
	sh.SetInteractive(interactive)
	defer in.close()
	// SIGINT while a statement runs (Ctrl-C on a terminal outside
	// readline's raw mode) stops that statement only; see signals.go.
	onInt := func() bool {
		fmt.Fprintln(e.stderr, "Stopping execution...")
		sh.Interrupt()
		return true
	}
	e.onInterrupt.Store(&onInt)
	defer e.onInterrupt.Store(nil)
	// SIGTERM ends the session: unblock a pending read.
	stopClose := context.AfterFunc(e.ctx, in.close)
	defer stopClose()
	if interactive {
		fmt.Fprintf(e.stdout, "ttlkv %s shell on %s. Type \"help\" for help, \"exit\" to leave.\n", version, db.where())
	}
	var buf []string
	exitArmed := false // Ctrl-C at an empty prompt: a second one exits
	for {
		prompt := sh.DB() + "> "
		if len(buf) > 0 {
			prompt = "... "
		}
		line, err := in.readLine(prompt)
		if errors.Is(err, readline.ErrInterrupt) {
			if len(buf) == 0 && strings.TrimSpace(line) == "" {
				if exitArmed {
					return 0
				}
				fmt.Fprintln(e.stdout, "(To exit, press Ctrl+C again or Ctrl+D or type .exit)")
				exitArmed = true
			}
			buf = nil
			continue
		}
		exitArmed = false
		if err != nil && interactive && e.ctx.Err() != nil {
			return interruptedExit // SIGTERM closed the terminal reader
		}
		if err != nil {
			if len(buf) > 0 {
				e.evalShell(sh, strings.Join(buf, "\n"))
			}
			return 0
		}
		if len(buf) == 0 {
			switch strings.TrimSuffix(strings.TrimSpace(line), ";") {
			case "":
				continue
			case "exit", "quit", "quit()", "exit()", ".exit":
				return 0
			}
		}
		buf = append(buf, line)
		src := strings.Join(buf, "\n")
		if mongosh.Incomplete(src) {
			continue
		}
		buf = nil
		if code, exit := e.evalShell(sh, src); exit {
			return code
		}
	}
}

// evalShell runs one input and prints its error; it reports whether the
// input asked to leave the shell.
func (e *env) evalShell(sh *mongosh.Shell, src string) (int, bool) {
	err := sh.Eval("<shell>", src)
	var ee *mongosh.ExitError
	if errors.As(err, &ee) {
		return ee.Code, true
	}
	var se *mongosh.ScriptError
	if errors.As(err, &se) {
		fmt.Fprintln(e.stderr, se.Interactive())
	} else if err != nil {
		fmt.Fprintln(e.stderr, err)
	}
	return 0, false
}
