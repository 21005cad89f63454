package main

import (
	"fmt"
	"runtime"

	"github.com/spf13/pflag"
)

var versionCommand = &command{
	name:     "version",
	summary:  "print the ttlkv version",
	usage:    "ttlkv version",
	examples: []string{"ttlkv version"},
	run: func(e *env, _ *pflag.FlagSet, _ any, args []string) int {
		if len(args) > 0 {
			fmt.Fprintln(e.stderr, "ttlkv version: takes no arguments")
			return 2
		}
		fmt.Fprintf(e.stdout, "ttlkv %s (%s, %s/%s)\n", version, runtime.Version(), runtime.GOOS, runtime.GOARCH)
		return 0
	},
}

var helpCommand = &command{
	name:     "help",
	summary:  "show help for ttlkv or one command",
	usage:    "ttlkv help [COMMAND]",
	examples: []string{"ttlkv help", "ttlkv help import"},
}

// The help command's body is set in init: it looks commands up, and the
// command list includes it.
func init() { helpCommand.run = runHelp }

func runHelp(e *env, _ *pflag.FlagSet, _ any, args []string) int {
	if len(args) == 0 {
		e.usage(e.stdout)
		return 0
	}
	c := lookup(args[0])
	if c == nil {
		fmt.Fprintf(e.stderr, "ttlkv help: unknown command %q\n", args[0])
		return 2
	}
	return e.runCommand(c, []string{"--help"})
}
