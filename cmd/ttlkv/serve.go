package main

import (
	"fmt"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/ttlkv/ttlkv/engine"
)

type serveFlags struct{ sleepSecs int }

var serveCommand = &command{
	name:    "serve",
	summary: "keep the data directory open with the TTL monitor running, logging, until Ctrl-C",
	usage:   "ttlkv serve [--ttlMonitorSleepSecs N]",
	examples: []string{
		"ttlkv serve",
		"ttlkv serve --ttlMonitorSleepSecs 5",
		"ttlkv serve --change-streams",
	},
	flags: func(fs *pflag.FlagSet) any {
		f := &serveFlags{}
		fs.IntVar(&f.sleepSecs, "ttlMonitorSleepSecs", 0, "seconds between TTL passes (default MongoDB's 60)")
		return f
	},
	run: func(e *env, fs *pflag.FlagSet, cfg any, args []string) int {
		f := cfg.(*serveFlags)
		if len(args) > 0 {
			fmt.Fprintln(e.stderr, "ttlkv serve: takes no arguments")
			return 2
		}
		var mu sync.Mutex
		logf := func(format string, a ...any) {
			mu.Lock()
			defer mu.Unlock()
			fmt.Fprintf(e.stderr, "%s "+format+"\n", append([]any{time.Now().UTC().Format(time.RFC3339)}, a...)...)
		}
		opts := engine.Options{Logf: logf}
		if fs.Changed("ttlMonitorSleepSecs") {
			if f.sleepSecs < 1 {
				fmt.Fprintf(e.stderr, "ttlkv serve: --ttlMonitorSleepSecs must be at least 1, got %d\n", f.sleepSecs)
				return 2
			}
			opts.Params = map[string]any{"ttlMonitorSleepSecs": int64(f.sleepSecs)}
		}
		db, err := e.open(opts)
		if err != nil {
			return e.fail("serve", err)
		}
		logf("serving %s; the TTL monitor is running; press Ctrl-C to stop", db.Dir())
		<-e.ctx.Done()
		logf("stopping")
		return e.closeDB("serve", db, 0)
	},
}
