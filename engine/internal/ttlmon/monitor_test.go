package ttlmon

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// fakeHost is a Host over fakeReapers, with a clock that moves only
// when a reaper's visit moves it.
type fakeHost struct {
	mu        sync.Mutex // logs
	targets   []Target
	scheduled bool
	writable  error
	sleep     time.Duration
	subPass   time.Duration
	now       time.Time
	logs      []string
	visits    []string // "name:deleted:more"
	writes    int64    // foreground writes (under mu)
}

func (h *fakeHost) Targets() []Target            { return slices.Clone(h.targets) }
func (h *fakeHost) Writable() error              { return h.writable }
func (h *fakeHost) Scheduled() bool              { return h.scheduled }
func (h *fakeHost) Sleep() time.Duration         { return h.sleep }
func (h *fakeHost) SubPassTarget() time.Duration { return h.subPass }
func (h *fakeHost) Now() time.Time               { return h.now }
func (h *fakeHost) advance(d time.Duration)      { h.now = h.now.Add(d) }
func (h *fakeHost) Logf(format string, args ...any) {
	h.mu.Lock()
	h.logs = append(h.logs, fmt.Sprintf(format, args...))
	h.mu.Unlock()
}
func (h *fakeHost) Visited(name string, deleted int64, more bool) {
	h.visits = append(h.visits, fmt.Sprintf("%s:%d:%v", name, deleted, more))
}
func (h *fakeHost) BeforeReclaim() {}
func (h *fakeHost) Writes() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.writes
}

// fakeReaper has left documents expired; each visit deletes up to per
// of them and takes took on the host's clock.
type fakeReaper struct {
	h    *fakeHost
	ns   string
	left int64
	per  int64
	took time.Duration
	err  error
}

func (r *fakeReaper) Visit(ctx context.Context) (int64, bool, error) {
	if r.err != nil {
		return 0, false, r.err
	}
	n := min(r.left, r.per)
	r.left -= n
	r.h.advance(r.took)
	return n, r.left > 0, nil
}

func (r *fakeReaper) Namespace() string { return r.ns }

// fakeStore counts reclamations.
type fakeStore struct {
	mu          sync.Mutex
	commits     uint64
	tables      int64
	full, bg    int
	reclaimHold chan struct{} // if set, a reclamation waits for it
}

func (s *fakeStore) Commits() uint64   { return s.commits }
func (s *fakeStore) TableBytes() int64 { return s.tables }
func (s *fakeStore) Reclaim(ctx context.Context) error {
	s.mu.Lock()
	s.full++
	s.mu.Unlock()
	return nil
}
func (s *fakeStore) ReclaimBackground(ctx context.Context) error {
	if s.reclaimHold != nil {
		select {
		case <-s.reclaimHold:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	s.mu.Lock()
	s.bg++
	s.mu.Unlock()
	return nil
}
func (s *fakeStore) counts() (full, bg int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.full, s.bg
}

func newFake(subPass time.Duration, reapers ...*fakeReaper) (*fakeHost, *Monitor) {
	h := &fakeHost{scheduled: true, sleep: time.Second, subPass: subPass, now: time.Unix(1_700_000_000, 0)}
	for i, r := range reapers {
		r.h = h
		h.targets = append(h.targets, Target{Key: Key{Coll: uint64(i + 1), Index: 2}, Name: fmt.Sprintf("ix%d", i+1), Reaper: r})
	}
	return h, New(h, &fakeStore{}, 0)
}

// newReclaimFake is newFake with one reaper deleting up to 1000
// documents a visit, over a store of 1000 table bytes, with
// reclamation due after 10 TTL deletes: the reclamation tests' setup.
func newReclaimFake() (*fakeReaper, *fakeHost, *Monitor, *fakeStore) {
	r := &fakeReaper{ns: "test.c", per: 1000}
	h, m := newFake(0, r)
	st := &fakeStore{tables: 1000}
	m.store = st
	m.SetReclaimAfter(10)
	return r, h, m, st
}

// A pass visits every target in turn; a target stopped by its budget
// goes to the back of the queue, so a target with one expired document
// waits one visit of the large one at most (docs/ttl-monitor.md §3.2).
// Results list the targets in the order they first deleted.
func TestPassRoundRobin(t *testing.T) {
	t.Parallel()
	big := &fakeReaper{ns: "test.big", left: 25, per: 10}
	small := &fakeReaper{ns: "test.small", left: 1, per: 10}
	h, m := newFake(time.Hour, big, small)
	res, err := m.Pass(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"ix1:10:true", "ix2:1:false", "ix1:10:true", "ix1:5:false"}; !slices.Equal(h.visits, want) {
		t.Fatalf("visits %v, want %v", h.visits, want)
	}
	want := PassResult{Deleted: 26, SubPasses: 1, Indexes: []IndexResult{{"test.big", "ix1", 25}, {"test.small", "ix2", 1}}}
	if fmt.Sprint(*res) != fmt.Sprint(want) {
		t.Fatalf("pass %+v, want %+v", *res, want)
	}
	if m.Passes() != 1 || m.SubPasses() != 1 {
		t.Fatalf("passes %d, sub-passes %d; want 1 and 1", m.Passes(), m.SubPasses())
	}
}

// A sub-pass ends at its time target once every target of its list was
// visited, and the pass goes on with a new sub-pass; with no sub-pass
// target each target is visited once per sub-pass.
func TestSubPassTargets(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name      string
		subPass   time.Duration
		subPasses int
	}{
		{"time target", 15 * time.Second, 2}, // the 2nd visit of ix1 ends the first sub-pass at 20s
		{"no time target", 0, 3},             // ix1 takes three sub-passes of one visit
	} {
		big := &fakeReaper{ns: "test.big", left: 25, per: 10, took: 10 * time.Second}
		small := &fakeReaper{ns: "test.small", left: 1, per: 10}
		_, m := newFake(tc.subPass, big, small)
		res, err := m.Pass(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		if res.Deleted != 26 || res.SubPasses != tc.subPasses {
			t.Errorf("%s: deleted %d in %d sub-passes, want 26 in %d", tc.name, res.Deleted, res.SubPasses, tc.subPasses)
		}
	}
}

// A pass that fails reports what it deleted, counts it toward
// reclamation and counts no pass; a timed pass is skipped, and not
// counted, while the host does not schedule one; a database that cannot
// be written runs none.
func TestPassStopsAndSkips(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	ok := &fakeReaper{ns: "test.a", left: 3, per: 10}
	bad := &fakeReaper{ns: "test.b", err: boom}
	h, m := newFake(0, ok, bad)
	res, err := m.Pass(context.Background())
	if !errors.Is(err, boom) || res.Deleted != 3 || len(res.Indexes) != 1 {
		t.Fatalf("failed pass = %+v, %v; want 3 deleted and boom", res, err)
	}
	if m.Passes() != 0 || m.SinceReclaim() != 3 {
		t.Fatalf("failed pass: %d passes, %d toward reclamation; want 0 and 3", m.Passes(), m.SinceReclaim())
	}
	h.targets = h.targets[:1]
	h.scheduled = false
	if res, err := m.ScheduledPass(context.Background()); res != nil || err != nil || m.SubPasses() != 0 {
		t.Fatalf("unscheduled pass = %+v, %v, %d sub-passes; want skipped", res, err, m.SubPasses())
	}
	h.writable = errors.New("read-only")
	if _, err := m.Pass(context.Background()); err != h.writable {
		t.Fatalf("pass on a read-only database: %v", err)
	}
}

// Reclamation starts after reclaimAfter deletes counted across passes
// whose documents make up a share of the store, at most once a
// reclaimMinGap; a later pass that finds the store quiet (no delete, no
// commit since the last pass) flushes what the background one left.
func TestReclaimTrigger(t *testing.T) {
	t.Parallel()
	r, _, m, st := newReclaimFake()
	pass := func(expired, bytes int64) {
		t.Helper()
		r.left = expired
		m.DeletedBytes().Add(bytes)
		if _, err := m.Pass(context.Background()); err != nil {
			t.Fatal(err)
		}
		m.WaitReclaim()
	}
	pass(6, 400)
	pass(6, 99) // 12 deletes, 499 bytes: under half the store
	if full, bg := st.counts(); full+bg != 0 {
		t.Fatalf("reclaimed (%d, %d) under the store share", full, bg)
	}
	st.commits++ // the deletes' commits
	pass(0, 1)   // 500 bytes: due, and no foreground write: at once
	if full, bg := st.counts(); full != 0 || bg != 1 || m.Reclaims() != 1 {
		t.Fatalf("reclamations (full %d, background %d, done %d), want one background", full, bg, m.Reclaims())
	}
	st.commits++ // a writer committed since
	pass(0, 0)
	if full, _ := st.counts(); full != 0 {
		t.Fatal("a full reclamation while writers commit")
	}
	pass(0, 0) // quiet: the owed flush
	if full, _ := st.counts(); full != 1 {
		t.Fatalf("quiet store: %d full reclamations, want 1", full)
	}
	pass(20, 2000) // due again, but within reclaimMinGap of the last
	if _, bg := st.counts(); bg != 1 {
		t.Fatalf("%d background reclamations within a minute, want 1", bg)
	}
}

// A visit resumes at the index's low-water mark, or below it at the
// least key a writer noted since the last visit began; keys are noted
// only once a visit has set a mark; dropping forgets the state.
func TestLowWater(t *testing.T) {
	t.Parallel()
	_, m := newFake(0)
	k := Key{Coll: 1, Index: 2}
	m.NoteKey(k, []byte("b")) // no mark yet: not noted
	ix, resume := m.StartVisit(k, []byte("a"))
	if resume != nil {
		t.Fatalf("first visit resumes at %q, want nil", resume)
	}
	m.Advance(ix, []byte("m"))
	m.NoteKey(k, []byte("q")) // above the mark
	if _, resume = m.StartVisit(k, []byte("a")); string(resume) != "m" {
		t.Fatalf("resume %q, want the mark m", resume)
	}
	m.NoteKey(k, []byte("f"))
	m.NoteKey(k, []byte("d"))
	m.NoteKey(k, []byte("g"))
	if _, resume = m.StartVisit(k, []byte("a")); string(resume) != "d" {
		t.Fatalf("resume %q, want the least noted key d", resume)
	}
	if _, resume = m.StartVisit(k, []byte("a")); string(resume) != "m" {
		t.Fatalf("resume %q after the note was taken, want m", resume)
	}
	m.StartVisit(Key{Coll: 1, Index: 3}, nil)
	m.StartVisit(Key{Coll: 2, Index: 2}, nil)
	m.ResetLowWater(1, 3)
	m.ForgetColl(1)
	if _, ok := m.State(k); ok || m.Tracked() != 1 {
		t.Fatalf("after the drops %d indexes tracked, want 1", m.Tracked())
	}
}

// A visit's budget sizes its chunks by the document target and stops it
// at the document or time target, and between two delete batches only
// once it deleted something.
func TestBudget(t *testing.T) {
	t.Parallel()
	h, m := newFake(0)
	b := m.Budget(50, time.Second)
	if b.Chunk(4096) != 50 || b.Want(50, 30) != 20 || b.Met(49) || !b.Met(50) {
		t.Fatalf("document target 50: chunk %d, want %d after 30, met at 49 %v", b.Chunk(4096), b.Want(50, 30), b.Met(49))
	}
	stop := b.StopFunc(0)
	h.advance(2 * time.Second)
	if stop(0) || b.Stopped() {
		t.Fatal("stopped before deleting anything")
	}
	if !stop(1) || !b.Stopped() || !b.Met(1) {
		t.Fatal("not stopped past the time target")
	}
	if none := m.Budget(0, 0); none.Chunk(4096) != 4096 || none.Want(4096, 1e6) != 4096 || none.Met(1e9) || none.StopFunc(0) != nil {
		t.Fatal("a budget with no targets limits the visit")
	}
}

// NoteLag logs a climb, the top level and catching up, and reaps at
// least at the backlog's level.
func TestNoteLagLogs(t *testing.T) {
	t.Parallel()
	h, m := newFake(0)
	ix, _ := m.StartVisit(Key{Coll: 1, Index: 2}, nil)
	const sec = 1000
	if l, backlog := m.NoteLag(ix, time.Hour, 0, "test.c", "t_1"); l != MaxCatchUp || !backlog {
		t.Fatalf("an hour behind (floor 2s): level %d (backlog %v), want %d from the backlog", l, backlog, MaxCatchUp)
	}
	m.NoteLag(ix, 10*time.Second, 10*sec, "test.c", "t_1")
	m.NoteLag(ix, 20*time.Second, 13*sec, "test.c", "t_1") // +10s in 3s: two levels
	m.NoteLag(ix, 40*time.Second, 16*sec, "test.c", "t_1")
	// Losing ground climbed the catch-up level to the top: not a
	// one-off backlog, whatever the lag (Duty does not pace it).
	if l, backlog := m.NoteLag(ix, 80*time.Second, 19*sec, "test.c", "t_1"); l != MaxCatchUp || backlog {
		t.Fatalf("losing ground 40 floors behind: level %d (backlog %v), want %d from catching up", l, backlog, MaxCatchUp)
	}
	for i := range MaxCatchUp {
		m.NoteLag(ix, 0, bson.DateTime((22+3*i)*sec), "test.c", "t_1")
	}
	all := strings.Join(h.logs, "\n")
	for _, want := range []string{"reaping less gently", "reaping without yielding to writers", "has caught up"} {
		if !strings.Contains(all, want) {
			t.Fatalf("log lacks %q:\n%s", want, all)
		}
	}
	if st, _ := m.State(Key{Coll: 1, Index: 2}); st.Level != 0 {
		t.Fatalf("level %d after catching up, want 0", st.Level)
	}
}

// blockingReaper's visit tells started it began and returns when its
// context is cancelled.
type blockingReaper struct {
	started chan struct{}
	once    sync.Once
	visits  atomic.Int64
}

func (r *blockingReaper) Visit(ctx context.Context) (int64, bool, error) {
	r.visits.Add(1)
	r.once.Do(func() { close(r.started) })
	<-ctx.Done()
	return 0, false, ctx.Err()
}

func (r *blockingReaper) Namespace() string { return "test.c" }

// The loop runs a pass when its timer fires, and Stop cancels a pass
// it runs and waits for the loop to end; a second Stop does nothing.
func TestStopCancelsTheLoopsPass(t *testing.T) {
	t.Parallel()
	h := &fakeHost{scheduled: true, sleep: time.Millisecond}
	r := &blockingReaper{started: make(chan struct{})}
	h.targets = []Target{{Key: Key{Coll: 1, Index: 2}, Name: "t_1", Reaper: r}}
	m := New(h, &fakeStore{}, 0)
	m.Start()
	<-r.started
	m.Stop()
	m.Stop()
	h.mu.Lock()
	logs := strings.Join(h.logs, "\n")
	h.mu.Unlock()
	if !strings.Contains(logs, "ttl: pass failed: context canceled") {
		t.Fatalf("log %q, want the cancelled pass", logs)
	}
	if m.Passes() != 0 {
		t.Fatalf("%d passes counted, want 0", m.Passes())
	}
	// The pass Stop cancelled leaves the loop's next timer due at once;
	// no pass starts after Stop all the same.
	if n := r.visits.Load(); n != 1 {
		t.Fatalf("%d visits, want the one Stop cancelled", n)
	}
}
