package main

import (
	"context"
	"fmt"
	"os"
	"syscall"
)

// Signals. A command runs under env.ctx, which the first SIGINT or SIGTERM
// cancels: commands stop at their next check and close the data directory
// cleanly, and a running script is interrupted (goja stops between
// instructions, so even while(true){} ends). A second signal while the
// first is still being handled exits at once with 128+signal; nothing
// acknowledged is lost, the engine recovers as after a crash.
//
// The interactive shell sets env.onInterrupt: there SIGINT (Ctrl-C while a
// statement runs) stops that statement only and the session goes on, as
// in mongosh. At the prompt Ctrl-C is read as a key, not a signal.

// handleSignals cancels e's context on the first signal from sigs (unless
// onInterrupt takes a SIGINT) and exits on the second.
func (e *env) handleSignals(sigs <-chan os.Signal, cancel context.CancelFunc) {
	cancelled := false
	for sig := range sigs {
		if sig == os.Interrupt {
			if h := e.onInterrupt.Load(); h != nil && (*h)() {
				continue
			}
		}
		if cancelled {
			fmt.Fprintf(e.stderr, "ttlkv: %v again: exiting now\n", sig)
			os.Exit(128 + signalNumber(sig))
		}
		cancelled = true
		cancel()
	}
}

// signalNumber returns sig's number (2 for SIGINT, 15 for SIGTERM).
func signalNumber(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return int(s)
	}
	return 2
}

// interruptedExit is the exit code of a command stopped by a signal:
// 130, as a shell reports a process ended by SIGINT.
const interruptedExit = 130
