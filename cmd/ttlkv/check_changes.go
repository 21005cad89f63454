package main

import (
	"fmt"

	"github.com/ttlkv/ttlkv/engine"
)

// checkChangeLog is check --change-log: it rebuilds the collections from
// the change log (engine.DB.CheckChangeLog) and prints each disagreement;
// 1 if there is any. A log that lost its oldest events cannot be
// checked, which is not a failure.
func (e *env) checkChangeLog(db *engine.DB) int {
	r, err := db.CheckChangeLog(e.ctx)
	if err != nil {
		return e.fail("check", err)
	}
	for _, ns := range r.Checked {
		fmt.Fprintf(e.stdout, "ok       change log of %s\n", ns)
	}
	for _, s := range r.Skipped {
		fmt.Fprintf(e.stdout, "skip     change log of %s\n", s)
	}
	for _, p := range r.Problems {
		fmt.Fprintf(e.stdout, "INVALID  change log: %s\n", p)
	}
	if len(r.Problems) > 0 {
		fmt.Fprintf(e.stdout, "the change log (%d events) and the collections disagree in %d place(s)\n", r.Events, len(r.Problems))
		return 1
	}
	fmt.Fprintf(e.stdout, "the change log (%d events) agrees with %d collection(s)\n", r.Events, len(r.Checked))
	return 0
}
