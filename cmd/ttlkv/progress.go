package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// progress reports how far an import or export is. On a terminal it
// redraws one line ("\r") at most every 200 ms and shows a rate only
// once a second has passed, so the first frame never shows a rate
// computed over nothing. Elsewhere (a pipe, a log file) it prints a
// plain line every interval, as mongoimport does:
//
//	2026-11-26T14:00:01Z	test.events	12.3 MiB/40.0 MiB (30.8%)	250000 document(s)
type progress struct {
	w        io.Writer
	tty      bool
	ns, verb string
	total    int64 // bytes (import) or documents (export); -1: unknown
	bytes    bool  // total and done count bytes
	every    time.Duration
	now      func() time.Time

	mu          sync.Mutex // add is called by the reader and the inserters
	start, last time.Time
	done, docs  int64
	drawn       bool
}

// newProgress returns a reporter writing to w; every is the interval of
// the plain lines (default one second).
func newProgress(w io.Writer, tty bool, ns string, total int64, countsBytes bool, every time.Duration) *progress {
	if every <= 0 {
		every = time.Second
	}
	p := &progress{w: w, tty: tty, ns: ns, total: total, bytes: countsBytes, every: every, now: time.Now}
	p.start = p.now()
	p.last = p.start
	return p
}

// add counts done units (bytes or documents) and docs documents, and
// prints when it is time.
func (p *progress) add(done, docs int64) {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.done += done
	p.docs += docs
	now := p.now()
	interval := p.every
	if p.tty {
		interval = p.every / 5 // 200 ms by default
	}
	if now.Sub(p.last) < interval {
		return
	}
	p.last = now
	p.print(now)
}

func (p *progress) amount() string {
	unit := func(n int64) string {
		if p.bytes {
			return humanBytes(n)
		}
		return fmt.Sprint(n)
	}
	s := unit(p.done)
	if p.total >= 0 {
		pct := 100.0
		if p.total > 0 {
			pct = min(100, 100*float64(p.done)/float64(p.total))
		}
		s = fmt.Sprintf("%s/%s (%.1f%%)", s, unit(p.total), pct)
	}
	return s
}

func (p *progress) print(now time.Time) {
	if !p.tty {
		fmt.Fprintf(p.w, "%s\t%s\t%s\t%d document(s)\n", now.UTC().Format(time.RFC3339), p.ns, p.amount(), p.docs)
		return
	}
	line := fmt.Sprintf("%s  %s  %d docs", p.ns, p.amount(), p.docs)
	if el := now.Sub(p.start); el >= time.Second {
		line += fmt.Sprintf("  %.0f docs/s", float64(p.docs)/el.Seconds())
	}
	fmt.Fprintf(p.w, "\r%-78s", line)
	p.drawn = true
}

// finish clears the terminal line, if one was drawn.
func (p *progress) finish() {
	if p == nil {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.tty && p.drawn {
		fmt.Fprintf(p.w, "\r%78s\r", "")
	}
}
