package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/pflag"

	"github.com/ttlkv/ttlkv/cmd/ttlkv/internal/mongosh"
)

type evalFlags struct {
	files []string
	json  string
}

// addJSONFlag registers mongosh's --json[=relaxed|canonical]. A bare
// --json is canonical, as in mongosh 2.12.0 (its --json alone is true,
// which its writer takes as not relaxed).
func addJSONFlag(fs *pflag.FlagSet, p *string) {
	fs.StringVar(p, "json", "", "print results as Extended JSON: canonical (the default when given) or relaxed")
	fs.Lookup("json").NoOptDefVal = "canonical"
}

var evalCommand = &command{
	remote:   true,
	codeArgs: true,
	name:     "eval",
	summary:  "run mongosh JavaScript given as an argument, in files, or on stdin",
	usage:    "ttlkv eval [--db NAME] [--json[=relaxed|canonical]] ['CODE' | -f FILE... | < FILE]",
	examples: []string{
		`ttlkv eval 'db.eventlog.createIndex({ "lastModifiedDate": 1 }, { expireAfterSeconds: 3600 })'`,
		`ttlkv eval 'db.eventlog.insertOne({ lastModifiedDate: new Date(), msg: "hello" }); db.eventlog.countDocuments()'`,
		`ttlkv eval --json=relaxed 'db.eventlog.findOne({}, { _id: 0, msg: 1 })'`,
		`ttlkv eval -f script.js`,
	},
	flags: func(fs *pflag.FlagSet) any {
		f := &evalFlags{}
		fs.StringArrayVarP(&f.files, "file", "f", nil, "run the JavaScript file (repeatable)")
		addJSONFlag(fs, &f.json)
		return f
	},
	run: func(e *env, _ *pflag.FlagSet, cfg any, args []string) int {
		f := cfg.(*evalFlags)
		switch { // mongosh's refusals of --json, in its words and status
		case f.json != "" && f.json != "relaxed" && f.json != "canonical":
			fmt.Fprintln(e.stderr, "MongoshUnimplementedError: [COMMON-10001] --json can only have the values relaxed, canonical")
			return 1
		case f.json != "" && (len(args) == 0 || len(f.files) > 0):
			fmt.Fprintln(e.stderr, "MongoshRuntimeError: Cannot use --json without --eval or with --shell or with extra files")
			return 1
		}
		// As mongosh: the code given runs first and its last value is
		// printed; then the files, whose last values are not.
		type script struct {
			name, src string
			file      bool
			code      bool // the code argument: its last value prints in full
		}
		var scripts []script
		if len(args) == 1 {
			scripts = append(scripts, script{name: "<eval>", src: args[0], code: true})
		}
		for _, name := range f.files {
			b, err := os.ReadFile(e.path(name))
			if err != nil {
				return e.fail("eval", err)
			}
			scripts = append(scripts, script{name: name, src: string(b), file: true})
		}
		switch {
		case len(args) > 1:
			fmt.Fprintln(e.stderr, "ttlkv eval: give the code as one argument (quote it)")
			return 2
		case len(args) == 1:
		case len(scripts) == 0:
			if e.isTerm(e.stdin) {
				fmt.Fprintln(e.stderr, "ttlkv eval: no code given; pass 'CODE', -f FILE, or pipe a script on stdin (or use 'ttlkv shell')")
				return 2
			}
			b, err := io.ReadAll(e.stdin)
			if err != nil {
				return e.fail("eval", err)
			}
			scripts = append(scripts, script{name: "<stdin>", src: string(b)})
		}
		db, code, ok := e.connectShell("eval")
		if !ok {
			return code
		}
		sh, err := mongosh.New(db, e.shellOptions(db, f.json))
		if err != nil {
			return e.closeSession("eval", db, e.fail("eval", err))
		}
		defer sh.Close()
		for _, s := range scripts {
			run := sh.Eval
			switch {
			case s.file:
				run = sh.RunFile
			case s.code:
				run = sh.EvalCode
			}
			if err := run(s.name, s.src); err != nil {
				code := scriptExit(e, err)
				if e.ctx.Err() != nil && code == 1 {
					code = interruptedExit // stopped by SIGINT or SIGTERM
				}
				return e.closeSession("eval", db, code)
			}
		}
		return e.closeSession("eval", db, 0)
	},
}

// scriptExit reports a script's uncaught error as mongosh does and
// returns the exit code: the script's own for quit(n), else 1.
func scriptExit(e *env, err error) int {
	var ee *mongosh.ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	fmt.Fprintln(e.stderr, strings.TrimRight(err.Error(), "\n"))
	return 1
}
