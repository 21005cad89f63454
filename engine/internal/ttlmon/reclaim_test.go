package ttlmon

import (
	"context"
	"testing"
	"time"
)

// The trigger's decisions, step by step on an injected clock: a due
// reclamation waits while the foreground writes, runs when a pass finds
// it quiet (in full when nothing at all was committed), and runs beside
// the writers once it waited reclaimMaxDefer; the crash harness's eager
// seam runs it at once.
func TestReclaimDecide(t *testing.T) {
	t.Parallel()
	t0 := time.Unix(1_700_000_000, 0)
	type step struct {
		at              time.Duration // since t0
		deleted, bytes  int64
		tables          int64
		busy, committed bool
		want            reclaimAction
		owed            bool // owed after the step
	}
	names := map[reclaimAction]string{reclaimNone: "none", reclaimBackground: "background", reclaimFull: "full"}
	cases := []struct {
		name  string
		eager bool
		steps []step
	}{
		{"quiet at once", false, []step{
			{at: 0, deleted: 600, bytes: 600, tables: 1000, committed: true, want: reclaimBackground},
		}},
		{"under the share", false, []step{
			{at: 0, deleted: 600, bytes: 499, tables: 1000, committed: true, want: reclaimNone},
		}},
		{"under the count", false, []step{
			{at: 0, deleted: 5, bytes: 900, tables: 1000, committed: true, want: reclaimNone},
		}},
		{"waits for the writers, then background", false, []step{
			{at: 0, deleted: 600, bytes: 600, tables: 1000, busy: true, committed: true, want: reclaimNone, owed: true},
			{at: time.Minute, deleted: 10, bytes: 10, tables: 1500, busy: true, committed: true, want: reclaimNone, owed: true},
			{at: 2 * time.Minute, deleted: 10, bytes: 10, tables: 1500, committed: true, want: reclaimBackground},
		}},
		{"waits for the writers, then full on a quiet store", false, []step{
			{at: 0, deleted: 600, bytes: 600, tables: 1000, busy: true, committed: true, want: reclaimNone, owed: true},
			{at: time.Minute, tables: 1000, want: reclaimFull},
			{at: 2 * time.Minute, tables: 1000, want: reclaimNone},
		}},
		{"never-quiet writers: after reclaimMaxDefer", false, []step{
			{at: 0, deleted: 600, bytes: 600, tables: 1000, busy: true, committed: true, want: reclaimNone, owed: true},
			{at: reclaimMaxDefer - time.Second, deleted: 600, bytes: 600, tables: 1900, busy: true, committed: true, want: reclaimNone, owed: true},
			{at: reclaimMaxDefer, deleted: 600, bytes: 600, tables: 1900, busy: true, committed: true, want: reclaimBackground},
			// The next is due only reclaimMinGap after this one started.
			{at: reclaimMaxDefer + time.Second, deleted: 600, bytes: 600, tables: 1000, committed: true, want: reclaimNone},
			{at: reclaimMaxDefer + reclaimMinGap, deleted: 0, tables: 1000, committed: true, want: reclaimBackground},
		}},
		{"never-quiet writers filling the store: the tables' growth does not start it", false, []step{
			{at: 0, deleted: 600, bytes: 600, tables: 1000, busy: true, committed: true, want: reclaimNone, owed: true},
			{at: time.Minute, deleted: 10, tables: 5000, busy: true, committed: true, want: reclaimNone, owed: true},
		}},
		{"a background one owes a flush to a quiet pass", false, []step{
			{at: 0, deleted: 600, bytes: 600, tables: 1000, committed: true, want: reclaimBackground},
			{at: time.Second, tables: 1000, committed: true, want: reclaimNone},
			{at: 2 * time.Second, tables: 1000, busy: true, committed: true, want: reclaimNone},
			{at: 3 * time.Second, tables: 1000, want: reclaimFull},
			{at: 4 * time.Second, tables: 1000, want: reclaimNone},
		}},
		{"eager: beside writers at once", true, []step{
			{at: 0, deleted: 600, bytes: 1, tables: 1000, busy: true, committed: true, want: reclaimBackground},
		}},
	}
	for _, c := range cases {
		r := &reclaimState{after: 500, share: 2, eager: c.eager}
		if c.eager {
			r.share = 0
		}
		for i, s := range c.steps {
			got := r.decide(passFacts{now: t0.Add(s.at), deleted: s.deleted, deletedBytes: s.bytes,
				tables: s.tables, busy: s.busy, committed: s.committed})
			if got != s.want || r.owed != s.owed {
				t.Errorf("%s, step %d: %s (owed %v), want %s (owed %v)", c.name, i, names[got], r.owed, names[s.want], s.owed)
			}
		}
	}
}

// Through the monitor: a pass beside a foreground writer leaves the
// reclamation owed (ReclaimOwed) and starts nothing; the first pass
// after which nothing was written starts it.
func TestReclaimWaitsForQuietWriters(t *testing.T) {
	t.Parallel()
	r, h, m, st := newReclaimFake()
	pass := func(expired, bytes, writes int64) {
		t.Helper()
		reclaimPass(t, r, h, m, st, expired, bytes, writes)
	}
	pass(0, 0, 5)
	pass(600, 600, 3) // due, beside a writer
	if full, bg := st.counts(); full+bg != 0 || !m.ReclaimOwed() {
		t.Fatalf("beside a writer: reclamations (full %d, background %d), owed %v; want none, owed", full, bg, m.ReclaimOwed())
	}
	pass(5, 5, 1)
	if full, bg := st.counts(); full+bg != 0 || !m.ReclaimOwed() {
		t.Fatalf("writer still busy: reclamations (full %d, background %d), owed %v; want none, owed", full, bg, m.ReclaimOwed())
	}
	pass(0, 0, 0) // quiet, nothing committed since the last pass: in full
	if full, bg := st.counts(); full != 1 || bg != 0 || m.ReclaimOwed() || m.Reclaims() != 1 {
		t.Fatalf("writer gone: reclamations (full %d, background %d, done %d), owed %v; want one full", full, bg, m.Reclaims(), m.ReclaimOwed())
	}
	pass(0, 0, 0)
	if full, bg := st.counts(); full != 1 || bg != 0 {
		t.Fatalf("a second quiet pass: reclamations (full %d, background %d), want the one full", full, bg)
	}
	// Due again beside a writer; the next pass finds the writer gone
	// but deletes again: a background one.
	h.advance(reclaimMinGap)
	pass(600, 600, 2)
	pass(1, 1, 0)
	if full, bg := st.counts(); full != 1 || bg != 1 {
		t.Fatalf("quiet writer, reaper committing: reclamations (full %d, background %d), want (1, 1)", full, bg)
	}
}

// The reclamation account (what the engine keeps across Close and
// Open): deletes counted below the threshold carry over, so that a
// monitor given them comes due with the rest; a reclamation owed beside
// a writer carries over, is reported owed, and runs at the new
// monitor's first quiet pass with no deletes of its own; one that Stop
// cancelled is owed again.
func TestReclaimAccountCarriesOver(t *testing.T) {
	t.Parallel()
	pass := func(t *testing.T, r *fakeReaper, h *fakeHost, m *Monitor, st *fakeStore, expired, writes int64) {
		t.Helper()
		reclaimPass(t, r, h, m, st, expired, expired*100, writes)
	}
	t.Run("deletes", func(t *testing.T) {
		t.Parallel()
		r, h, m, st := newReclaimFake()
		pass(t, r, h, m, st, 6, 1)
		m.Stop()
		a := m.ReclaimAccount()
		if a != (ReclaimAccount{Deletes: 6, Bytes: 600}) {
			t.Fatalf("account %+v, want 6 deletes of 600 bytes", a)
		}
		r2, h2, m2, st2 := newReclaimFake()
		m2.RestoreReclaimAccount(a)
		pass(t, r2, h2, m2, st2, 4, 0) // 10 with the 6 before: due, quiet
		if full, bg := st2.counts(); full+bg != 1 {
			t.Fatalf("reclamations (full %d, background %d) after 6 + 4 deletes, want one", full, bg)
		}
		if a := m2.ReclaimAccount(); a != (ReclaimAccount{}) {
			t.Fatalf("account after the reclamation %+v, want empty", a)
		}
	})
	t.Run("owed", func(t *testing.T) {
		t.Parallel()
		r, h, m, st := newReclaimFake()
		pass(t, r, h, m, st, 0, 0)
		pass(t, r, h, m, st, 20, 3) // due, beside a writer
		m.Stop()
		a := m.ReclaimAccount()
		if !a.Owed || a.Deletes != 0 {
			t.Fatalf("account %+v, want owed with no deletes since", a)
		}
		r2, h2, m2, st2 := newReclaimFake()
		m2.RestoreReclaimAccount(a)
		if !m2.ReclaimOwed() {
			t.Fatal("the restored monitor does not report the reclamation owed")
		}
		pass(t, r2, h2, m2, st2, 0, 0)
		if full, bg := st2.counts(); full+bg != 1 || m2.ReclaimOwed() {
			t.Fatalf("first quiet pass: reclamations (full %d, background %d), owed %v; want one, not owed", full, bg, m2.ReclaimOwed())
		}
	})
	t.Run("stopped", func(t *testing.T) {
		t.Parallel()
		r, _, m, st := newReclaimFake()
		st.reclaimHold = make(chan struct{}) // never released: Stop cancels it
		r.left = 20
		m.DeletedBytes().Add(2000)
		st.commits++
		if _, err := m.Pass(context.Background()); err != nil { // due, quiet, the reaper committed: background
			t.Fatal(err)
		}
		if !m.Reclaiming() {
			t.Fatal("no background reclamation started")
		}
		m.Stop()
		if a := m.ReclaimAccount(); !a.Owed {
			t.Fatalf("account %+v after Stop cancelled the reclamation, want owed", a)
		}
	})
}

// reclaimPass runs one pass of m, a newReclaimFake's monitor, in which
// the reaper finds expired documents of bytes encoded bytes and the
// foreground wrote writes times between the last pass and this one's
// end; it waits for a reclamation the pass started and moves the clock
// a second on.
func reclaimPass(t *testing.T, r *fakeReaper, h *fakeHost, m *Monitor, st *fakeStore, expired, bytes, writes int64) {
	t.Helper()
	r.left = expired
	m.DeletedBytes().Add(bytes)
	h.mu.Lock()
	h.writes += writes
	h.mu.Unlock()
	if expired > 0 {
		st.commits++
	}
	if _, err := m.Pass(context.Background()); err != nil {
		t.Fatal(err)
	}
	m.WaitReclaim()
	h.advance(time.Second)
}
