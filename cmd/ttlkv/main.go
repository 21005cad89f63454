// Command ttlkv is the command line of the ttlkv storage engine: a
// mongosh-compatible shell and script runner, single commands given as
// Extended JSON, import and export in mongoimport's and mongoexport's
// formats, statistics, a consistency check, the TTL reaper and a demo.
//
// Every subcommand opens the data directory (--dir, else $TTLKV_DIR, else
// ./ttlkv-data), works through engine.DB.RunCommand, and closes it; shell,
// eval, run, import, export, tail and stats can instead send the same
// commands to a server with --uri (see conn.go). There is no storage
// logic here.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"runtime/debug"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/spf13/pflag"

	"github.com/ttlkv/ttlkv/engine"
)

// version is the ttlkv release this binary reports; set with -ldflags
// "-X main.version=..." at release time.
var version = "0.1.0-dev"

// defaultDir is the data directory used when neither --dir nor
// $TTLKV_DIR is given.
const defaultDir = "ttlkv-data"

// memoryLimit is the Go soft memory limit ttlkv sets for itself unless
// GOMEMLIMIT is set: the engine's default memory budget plus 64 MiB for
// the rest of the heap, so that the garbage collector, not the heap's
// doubling, decides the peak (README, "Memory").
const memoryLimit = engine.DefaultMemoryBudget + 64<<20

func main() {
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(memoryLimit)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e := &env{
		ctx:    ctx,
		stdin:  os.Stdin,
		stdout: os.Stdout,
		stderr: os.Stderr,
		getenv: os.Getenv,
		isTerm: isTerminal,
	}
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	go e.handleSignals(sigs, cancel) // see signals.go
	os.Exit(e.main(os.Args[1:]))
}

// env is what a subcommand may touch: its streams, the environment, the
// global flags and a context cancelled by SIGINT. Tests build one with
// buffers.
type env struct {
	ctx    context.Context
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	// isTerm reports whether a stream is an interactive terminal.
	isTerm func(any) bool

	// wd is the directory relative paths are resolved against: the data
	// directory, the files commands read and write, the Unix socket.
	// Empty means the process's working directory (tests give each run
	// its own, so they need not change the process's).
	wd string

	dir string // --dir
	db  string // --db
	// dbGiven is whether --db was given before the subcommand.
	dbGiven bool
	uri     string // --uri: a server to work against instead of a data directory
	// changeStreams is --change-streams: open with the change log on.
	changeStreams bool
	// openOpts, if set (tests), adjusts the engine options.
	openOpts func(*engine.Options)
	// opened, if set (tests), sees every database a subcommand opens.
	opened func(*engine.DB)
	// tailHook, if set (tests), is called by tail after each batch with
	// the number of documents printed so far and the batch's length.
	tailHook func(printed int64, batch int)
	// progressEvery is the interval of import's and export's progress
	// lines on a non-terminal (default one second).
	progressEvery time.Duration
	// onInterrupt, if set, handles SIGINT instead of cancelling ctx when
	// it returns true (the shell: stop the running statement only).
	onInterrupt atomic.Pointer[func() bool]
}

// command is one subcommand: its name, a one-line summary, its usage and
// examples for --help (every example is run by a test), and its body.
type command struct {
	name     string
	summary  string
	usage    string
	notes    string // optional paragraph shown by --help after the summary
	examples []string
	flags    func(fs *pflag.FlagSet) any
	// remote: the command takes --uri and works through a conn.
	remote bool
	// usageExit is the exit code for a flag that cannot be parsed: 2
	// when zero; import and export say 1, as mongoimport and mongoexport
	// exit for every option error.
	usageExit int
	// codeArgs: an argument that starts with '-' but is none of the
	// command's flags is an argument, not an unknown flag (eval's
	// JavaScript: 'ttlkv eval -0', as mongosh's --eval takes -0).
	codeArgs bool
	run      func(e *env, fs *pflag.FlagSet, cfg any, args []string) int
}

// commands lists the subcommands in the order help shows them.
func commands() []*command {
	return []*command{
		demoCommand, shellCommand, evalCommand, runCommand, importCommand, exportCommand,
		tailCommand, watchCommand, statsCommand, checkCommand, reapCommand, serveCommand, versionCommand, helpCommand,
	}
}

func lookup(name string) *command {
	for _, c := range commands() {
		if c.name == name {
			return c
		}
	}
	return nil
}

// addGlobal registers --dir, --db and --change-streams on a flag set.
func (e *env) addGlobal(fs *pflag.FlagSet) {
	fs.BoolVar(&e.changeStreams, "change-streams", e.changeStreams, "keep the change log while open, so that watch() and $changeStream work (docs/change-streams.md)")
	fs.StringVar(&e.dir, "dir", e.dir, "data directory (default $TTLKV_DIR, else ./"+defaultDir+")")
	fs.StringVarP(&e.db, "db", "d", e.db, "database name")
}

// addURI registers --uri on a flag set.
func (e *env) addURI(fs *pflag.FlagSet) {
	fs.StringVar(&e.uri, "uri", e.uri, "work against the server at this mongodb:// URI ('ttlkv serve' or MongoDB) instead of opening a data directory")
}

// main parses the global flags and runs a subcommand; it returns the
// process exit code.
func (e *env) main(args []string) int {
	if e.db == "" {
		e.db = "test"
	}
	fs := pflag.NewFlagSet("ttlkv", pflag.ContinueOnError)
	fs.SetInterspersed(false)
	fs.SetOutput(io.Discard)
	e.addGlobal(fs)
	e.addURI(fs)
	showVersion := fs.BoolP("version", "v", false, "print the version")
	help := fs.BoolP("help", "h", false, "show help")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(e.stderr, "ttlkv: %v\n", err)
		e.usage(e.stderr)
		return 2
	}
	e.dbGiven = fs.Changed("db")
	switch {
	case *showVersion:
		return e.runCommand(versionCommand, nil)
	case *help || fs.NArg() == 0:
		e.usage(e.stdout)
		return 0
	}
	name, rest := fs.Arg(0), fs.Args()[1:]
	c := lookup(name)
	if c == nil {
		fmt.Fprintf(e.stderr, "ttlkv: unknown command %q\n", name)
		e.usage(e.stderr)
		return 2
	}
	return e.runCommand(c, rest)
}

// runCommand parses a subcommand's flags and runs it.
func (e *env) runCommand(c *command, args []string) int {
	fs := pflag.NewFlagSet("ttlkv "+c.name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.SortFlags = false
	e.addGlobal(fs)
	if c.remote {
		e.addURI(fs)
	}
	var cfg any
	if c.flags != nil {
		cfg = c.flags(fs)
	}
	help := fs.BoolP("help", "h", false, "show help for "+c.name)
	if c.codeArgs {
		args = flagsFirst(fs, args)
	}
	if err := fs.Parse(args); err != nil {
		fmt.Fprintf(e.stderr, "ttlkv %s: %v\n", c.name, err)
		fmt.Fprintf(e.stderr, "Run 'ttlkv %s --help' for usage.\n", c.name)
		if c.usageExit != 0 {
			return c.usageExit
		}
		return 2
	}
	if *help {
		e.commandHelp(e.stdout, c, fs)
		return 0
	}
	if e.uri != "" && !c.remote {
		fmt.Fprintf(e.stderr, "ttlkv %s: --uri is not available: %s works on a data directory (--dir)\n", c.name, c.name)
		return 2
	}
	if e.uri != "" && e.dir != "" {
		fmt.Fprintf(e.stderr, "ttlkv %s: give --uri or --dir, not both\n", c.name)
		return 2
	}
	if e.uri != "" {
		if err := e.uriDatabase(e.dbGiven || fs.Changed("db")); err != nil {
			fmt.Fprintf(e.stderr, "ttlkv %s: %v\n", c.name, err)
			return 2
		}
	}
	return c.run(e, fs, cfg, fs.Args())
}

// flagsFirst reorders args so that fs.Parse reads as arguments those
// that start with '-' but are none of fs's flags: the flags (with their
// values) first, then "--", then the arguments in their order. A flag
// is a known --name (--name=value, or --name value when it takes one),
// or a run of known shorthands (-f FILE, -fFILE, -f=FILE); what follows
// "--" is arguments, as pflag has it.
func flagsFirst(fs *pflag.FlagSet, args []string) []string {
	var flags, rest []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			rest = append(rest, args[i+1:]...)
			i = len(args)
		case strings.HasPrefix(a, "--"):
			name, _, hasValue := strings.Cut(a[2:], "=")
			f := fs.Lookup(name)
			if f == nil {
				rest = append(rest, a)
				continue
			}
			flags = append(flags, a)
			if !hasValue && f.NoOptDefVal == "" && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		case len(a) > 1 && a[0] == '-':
			n, known := shorthands(fs, a)
			if !known {
				rest = append(rest, a)
				continue
			}
			flags = append(flags, a)
			if n && i+1 < len(args) {
				i++
				flags = append(flags, args[i])
			}
		default:
			rest = append(rest, a)
		}
	}
	return append(append(flags, "--"), rest...)
}

// shorthands reports whether a ("-xyz") is a run of fs's shorthand
// flags, and whether its last one takes its value from the next
// argument (a shorthand that takes a value ends the run: what follows
// it in a is the value).
func shorthands(fs *pflag.FlagSet, a string) (valueNext, known bool) {
	for j := 1; j < len(a); j++ {
		f := fs.ShorthandLookup(a[j : j+1])
		if f == nil {
			return false, false
		}
		if f.NoOptDefVal == "" && f.Value.Type() != "bool" {
			return j == len(a)-1, true
		}
	}
	return false, true
}

// usage prints the list of subcommands.
func (e *env) usage(w io.Writer) {
	fmt.Fprintf(w, "ttlkv %s: an embedded document engine with MongoDB's TTL, capped and time-series collections\n\n", version)
	fmt.Fprintln(w, "Usage: ttlkv [--dir DIR | --uri URI] [--db NAME] COMMAND [flags] [args]")
	fmt.Fprintln(w, "\nCommands:")
	for _, c := range commands() {
		fmt.Fprintf(w, "  %-8s %s\n", c.name, c.summary)
	}
	fmt.Fprintln(w, "\nGlobal flags:")
	fmt.Fprintf(w, "  --dir DIR   data directory (default $TTLKV_DIR, else ./%s, created mode 0700)\n", defaultDir)
	fmt.Fprintln(w, "  --db NAME   database (default test; with --uri, the database the URI names, if any)")
	fmt.Fprintln(w, "  --uri URI   shell, eval, run, import, export, tail, stats: work against a running server")
	fmt.Fprintln(w, "              ('ttlkv serve' or MongoDB, mongodb://HOST:PORT/) instead of opening --dir")
	fmt.Fprintln(w, "\nRun 'ttlkv COMMAND --help' for a command's flags and examples.")
}

// commandHelp prints a subcommand's usage, flags and examples.
func (e *env) commandHelp(w io.Writer, c *command, fs *pflag.FlagSet) {
	fmt.Fprintf(w, "Usage: %s\n\n%s\n", c.usage, c.summary)
	if c.notes != "" {
		fmt.Fprintf(w, "\n%s\n", c.notes)
	}
	if c.remote {
		fmt.Fprintf(w, "\nWith --uri mongodb://HOST:PORT/ it sends the same commands to a running server, 'ttlkv serve'\n"+
			"or MongoDB itself, instead of opening a data directory; --uri and --dir exclude each other.\n")
	}
	fmt.Fprintf(w, "\nFlags:\n%s", fs.FlagUsages())
	if len(c.examples) > 0 {
		fmt.Fprintln(w, "\nExamples:")
		for _, ex := range c.examples {
			fmt.Fprintf(w, "  %s\n", ex)
		}
	}
}

// dataDir resolves the data directory: --dir, else $TTLKV_DIR, else
// ./ttlkv-data.
func (e *env) dataDir() string {
	switch {
	case e.dir != "":
		return e.path(e.dir)
	case e.getenv != nil && e.getenv("TTLKV_DIR") != "":
		return e.path(e.getenv("TTLKV_DIR"))
	}
	return e.path(defaultDir)
}

// path resolves a path a user gave: relative to e.wd when that is set,
// as given otherwise.
func (e *env) path(p string) string {
	if e.wd == "" || p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(e.wd, p)
}

// open creates the data directory if needed (mode 0700) and opens the
// engine on it. The error names the directory; a directory held by
// another process says so.
func (e *env) open(opts engine.Options) (*engine.DB, error) {
	dir := e.dataDir()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("cannot create data directory %s: %w", dir, err)
	}
	if e.changeStreams {
		opts.ChangeStreams = true
	}
	if e.openOpts != nil {
		e.openOpts(&opts)
	}
	db, err := engine.Open(dir, opts)
	if err != nil {
		return nil, openError(dir, err)
	}
	if e.opened != nil {
		e.opened(db)
	}
	return db, nil
}

// fail prints "ttlkv CMD: err" to stderr and returns exit code 1.
func (e *env) fail(cmd string, err error) int {
	fmt.Fprintf(e.stderr, "ttlkv %s: %v\n", cmd, err)
	return 1
}

// closeDB closes db, reporting a close error (which turns success into
// failure: data may not be durable).
func (e *env) closeDB(cmd string, db *engine.DB, code int) int {
	if err := db.Close(); err != nil && !errors.Is(err, engine.ErrClosed) {
		fmt.Fprintf(e.stderr, "ttlkv %s: closing %s: %v\n", cmd, db.Dir(), err)
		return 1
	}
	return code
}

// isTerminal reports whether v is an *os.File attached to a terminal.
func isTerminal(v any) bool {
	f, ok := v.(*os.File)
	if !ok {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// sortedKeys returns a map's keys in order (stable output).
func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
