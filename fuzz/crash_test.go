package fuzz

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// flagCycles is how many crash cycles (kill, reopen, check) a round of
// TestCrashTorture runs at least; a round also goes on until every
// failpoint has fired (up to twice as many). `go test ./...` uses the
// default; CI runs a second round of 25 (.ci/run); `go test ./fuzz -run
// TestCrashTorture -cycles 1000` runs a long round.
var flagCycles = flag.Int("cycles", 8, "crash cycles (kill, reopen, check) of TestCrashTorture")

// Environment of the crash-torture child.
const (
	// envChild holds the child's JSON config; set, it selects child mode.
	envChild = "TTLKV_CRASH_CHILD"
	// envSeed replays one run of TestCrashTorture (all its lives).
	envSeed = "TTLKV_SEED"
)

// Database and collections of the crash workload. "c" has a TTL index
// on exp (expireAfterSeconds 0: each document expires at its own exp);
// "n" has no TTL index and a unique index on v, so its documents never
// expire. New kinds (capped, time-series) plug in as further
// collections: add them to crashColls, give the child an op for them
// and the model an expiry rule (see expirable).
const crashDB = "t"

var crashColls = []string{"c", "n"}

// failpoints the harness covers, in the order runs cycle through them.
var failpoints = []string{
	engine.FailpointReapBeforeCommit,
	engine.FailpointReapAfterCommit,
	engine.FailpointIndexBuildMid,
	engine.FailpointReclaim,
	engine.FailpointCappedAfterAppend,
	engine.FailpointCappedEvict,
}

// reclaimBulk is how many documents a reclamation life inserts to expire
// together; the child's engine starts reclamation after one fewer
// deletes (engine.SetReclaimAfterForTesting) instead of 10,000.
const reclaimBulk = 500

// childCfg is one life of a child: a process that opens the directory,
// runs the workload and is killed.
type childCfg struct {
	Dir       string
	Seed      uint64
	Life      int   // 1-based; ids and versions are unique per life
	ClockMS   int64 // the injected clock starts here (never goes back)
	Workers   int
	Reaper    bool // a goroutine runs TTL passes back to back, besides the 1 s monitor
	Bulk      int  // insert this many documents that all expire at once (reclamation)
	IndexAt   int  // worker 0 builds an index after this many of its ops (0: never)
	Failpoint string
}

// TestCrashChild is the child side of TestCrashTorture; it does nothing
// unless TTLKV_CRASH_CHILD is set.
func TestCrashChild(t *testing.T) {
	cfgJSON := os.Getenv(envChild)
	if cfgJSON == "" {
		t.Skip("child of TestCrashTorture")
	}
	var cfg childCfg
	if err := json.Unmarshal([]byte(cfgJSON), &cfg); err != nil {
		fmt.Fprintln(os.Stderr, "bad child config:", err)
		os.Exit(2)
	}
	runChild(cfg) // never returns
}

// acker writes ack lines to the parent on fd 3, one write per line, so
// a line is in the pipe before the next operation starts.
type acker struct {
	mu sync.Mutex
	f  *os.File
}

func (a *acker) line(format string, args ...any) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if _, err := fmt.Fprintf(a.f, format+"\n", args...); err != nil {
		os.Exit(3) // the parent is gone
	}
}

// childClock is the injected clock. Every advance is reported ("T ms")
// before it takes effect, so the parent always holds an upper bound of
// the time the engine may have used to judge expiry.
type childClock struct {
	mu  sync.Mutex
	now time.Time
	ack *acker
}

func (c *childClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *childClock) advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.now.Add(d)
	c.ack.line("T %d", n.UnixMilli())
	c.now = n
}

func fatalChild(ack *acker, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	ack.line("X %s", strings.ReplaceAll(msg, "\n", " "))
	os.Exit(2)
}

// expTok is how the protocol and the model spell a document's exp
// field: "-" absent, "s" a string (never expires), else the date in ms.
func expTok(v any, ok bool) string {
	if !ok {
		return "-"
	}
	switch x := v.(type) {
	case bson.DateTime:
		return strconv.FormatInt(int64(x), 10)
	case string:
		return "s"
	}
	return fmt.Sprintf("?%v", v)
}

func expVal(tok string) (any, bool) {
	switch tok {
	case "-":
		return nil, false
	case "s":
		return "soon", true
	}
	ms, _ := strconv.ParseInt(tok, 10, 64)
	return bson.DateTime(ms), true
}

// childWorker owns the ids it created (and those of its residue class
// found at start), so per-document order is its op order.
type childWorker struct {
	w    int
	rng  *rand.Rand
	ids  map[string][]int64 // by collection
	exp  map[string]string  // "coll/id" -> exp token
	ops  int
	next int64 // id and version counter
	base int64
	// capNext is the next capped id (worker 0, the only capped writer).
	capNext int64
}

func runChild(cfg childCfg) {
	ack := &acker{f: os.NewFile(3, "ack")}
	clk := &childClock{now: time.UnixMilli(cfg.ClockMS).UTC(), ack: ack}
	ack.line("T %d", cfg.ClockMS)
	opts := engine.Options{
		Clock:      clk.Now,
		SyncWrites: true,
		Params:     map[string]any{"ttlMonitorSleepSecs": 1},
	}
	if cfg.Failpoint != "" {
		engine.SetFailpointForTesting(&opts, func(name string) {
			if name == cfg.Failpoint {
				killSelf()
			}
		})
	}
	engine.SetReclaimAfterForTesting(&opts, reclaimBulk-1)
	db, err := engine.Open(cfg.Dir, opts)
	if err != nil {
		fatalChild(ack, "open: %v", err)
	}
	ctx := context.Background()
	d := db.Database(crashDB)
	workers := make([]*childWorker, cfg.Workers)
	for i := range workers {
		workers[i] = &childWorker{w: i, rng: rand.New(rand.NewPCG(cfg.Seed, uint64(i))),
			ids: map[string][]int64{}, exp: map[string]string{},
			base: int64(cfg.Life)*1_000_000_000 + int64(i)*10_000_000}
	}
	// Documents surviving earlier lives go to the worker of their id.
	for _, cn := range crashColls {
		cur, err := d.Collection(cn).Find(ctx, bson.D{})
		if err != nil {
			fatalChild(ack, "scan: %v", err)
		}
		docs, err := cur.All(ctx)
		if err != nil {
			fatalChild(ack, "scan: %v", err)
		}
		for _, dd := range docs {
			id, _ := lookup(dd, "_id").(int64)
			w := workers[int(id%int64(cfg.Workers))]
			w.ids[cn] = append(w.ids[cn], id)
			e, ok := lookupOK(dd, "exp")
			w.exp[cn+"/"+strconv.FormatInt(id, 10)] = expTok(e, ok)
		}
	}
	if workers[0].capNext, err = cappedNextID(ctx, d); err != nil {
		fatalChild(ack, "capped scan: %v", err)
	}
	ack.line("R")
	go tailer(ctx, d, ack)

	kick := make(chan struct{}, 1)
	if cfg.Reaper {
		go func() {
			for range kick {
				if _, err := db.RunTTLPass(ctx); err != nil {
					fatalChild(ack, "ttl pass: %v", err)
				}
			}
		}()
	}
	var wg sync.WaitGroup
	if cfg.Bulk > 0 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			bulkInsert(ctx, d, clk, ack, cfg)
		}()
	}
	for _, w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				w.step(ctx, d, clk, ack, cfg)
				select {
				case kick <- struct{}{}:
				default:
				}
			}
		}()
	}
	wg.Wait()
	select {} // killed by the parent
}

// bulkInsert inserts cfg.Bulk documents that expire together once the
// clock passes them, so that one TTL pass deletes them all and starts
// space reclamation.
func bulkInsert(ctx context.Context, d *engine.Database, clk *childClock, ack *acker, cfg childCfg) {
	w := cfg.Workers // its own worker number in the protocol
	first := int64(cfg.Life)*1_000_000_000 + 900_000_000
	exp := bson.NewDateTimeFromTime(clk.Now().Add(100_000 * time.Second))
	docs := make([]any, cfg.Bulk)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: first + int64(i)}, {Key: "v", Value: first + int64(i)}, {Key: "exp", Value: exp}}
	}
	ack.line("B %d N c %d %d %d-%d", w, first, int64(exp), first, first+int64(cfg.Bulk)-1)
	res, err := d.Collection("c").InsertMany(ctx, docs, true)
	if err != nil {
		fatalChild(ack, "bulk insert: %v", err)
	}
	ack.line("A %d %d", w, len(res.InsertedIDs))
	clk.advance(200_000 * time.Second)
}

// step runs one operation: announce it ("B"), run it, acknowledge it
// ("A") with its count.
func (w *childWorker) step(ctx context.Context, d *engine.Database, clk *childClock, ack *acker, cfg childCfg) {
	w.ops++
	r := w.rng
	if r.IntN(100) < 30 {
		clk.advance(time.Duration(r.IntN(3000)) * time.Millisecond)
	}
	now := clk.Now()
	if cfg.IndexAt > 0 && w.w == 0 && w.ops == cfg.IndexAt {
		name := fmt.Sprintf("aux%d", cfg.Life)
		ack.line("B %d C c 0 - %s", w.w, name)
		if _, err := d.Collection("c").CreateIndex(ctx, engine.IndexModel{
			Keys:    bson.D{{Key: fmt.Sprintf("x%d", cfg.Life), Value: 1}, {Key: "v", Value: 1}},
			Options: bson.D{{Key: "name", Value: name}}}); err != nil {
			fatalChild(ack, "create index: %v", err)
		}
		ack.line("A %d 1", w.w)
		return
	}
	switch p := r.IntN(100); {
	case w.w == 0 && p < 20:
		w.cappedStep(ctx, d, ack)
		return
	case p >= 88:
		w.tsStep(ctx, d, clk, ack)
		return
	}
	cn := "c"
	if r.IntN(4) == 0 {
		cn = "n"
	}
	coll := d.Collection(cn)
	ids := w.ids[cn]
	w.next++
	v := w.base + w.next
	randExp := func() string {
		switch x := r.IntN(100); {
		case x < 12:
			return "-"
		case x < 17:
			return "s"
		case x < 27:
			return strconv.FormatInt(now.Add(1_000_000*time.Second).UnixMilli(), 10)
		default:
			return strconv.FormatInt(now.Add(time.Duration(r.IntN(35_000)-5_000)*time.Millisecond).UnixMilli(), 10)
		}
	}
	key := func(id int64) string { return cn + "/" + strconv.FormatInt(id, 10) }
	remove := func(i int) {
		delete(w.exp, key(ids[i]))
		ids[i] = ids[len(ids)-1]
		w.ids[cn] = ids[:len(ids)-1]
		ids = w.ids[cn]
	}
	switch p := r.IntN(100); {
	case p < 35 || len(ids) == 0:
		id := v
		e := randExp()
		dd := bson.D{{Key: "_id", Value: id}, {Key: "v", Value: v}}
		if ev, ok := expVal(e); ok {
			dd = append(dd, bson.E{Key: "exp", Value: ev})
		}
		dd = append(dd, bson.E{Key: "pad", Value: strings.Repeat("p", r.IntN(200))})
		ack.line("B %d I %s %d %s %d", w.w, cn, v, e, id)
		if _, err := coll.InsertOne(ctx, dd); err != nil {
			fatalChild(ack, "insert: %v", err)
		}
		ack.line("A %d 1", w.w)
		w.ids[cn] = append(w.ids[cn], id)
		w.exp[key(id)] = e
	case p < 75:
		// Prefer documents that have expired but may not be reaped yet,
		// and push their expiry far out: a reap batch that read the old
		// version must re-check before it deletes.
		i := r.IntN(len(ids))
		if r.IntN(2) == 0 {
			for j := 0; j < 8; j++ {
				k := r.IntN(len(ids))
				if ms, err := strconv.ParseInt(w.exp[key(ids[k])], 10, 64); err == nil && ms <= now.UnixMilli() {
					i = k
					break
				}
			}
		}
		id := ids[i]
		e := randExp()
		if ms, err := strconv.ParseInt(w.exp[key(id)], 10, 64); err == nil && ms <= now.UnixMilli() && r.IntN(2) == 0 {
			e = strconv.FormatInt(now.Add(1_000_000*time.Second).UnixMilli(), 10)
		}
		set := bson.D{{Key: "v", Value: v}}
		upd := bson.D{}
		if ev, ok := expVal(e); ok {
			set = append(set, bson.E{Key: "exp", Value: ev})
		} else {
			upd = append(upd, bson.E{Key: "$unset", Value: bson.D{{Key: "exp", Value: ""}}})
		}
		upd = append(bson.D{{Key: "$set", Value: set}}, upd...)
		ack.line("B %d U %s %d %s %d", w.w, cn, v, e, id)
		res, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, upd, false)
		if err != nil {
			fatalChild(ack, "update: %v", err)
		}
		ack.line("A %d %d", w.w, res.MatchedCount)
		if res.MatchedCount == 0 {
			remove(i)
		} else {
			w.exp[key(id)] = e
		}
	case p < 88:
		i := r.IntN(len(ids))
		id := ids[i]
		ack.line("B %d D %s 0 - %d", w.w, cn, id)
		res, err := coll.DeleteOne(ctx, bson.D{{Key: "_id", Value: id}})
		if err != nil {
			fatalChild(ack, "delete: %v", err)
		}
		ack.line("A %d %d", w.w, res.DeletedCount)
		remove(i)
	default:
		n := 1 + r.IntN(min(len(ids), 5))
		pick := map[int64]bool{}
		for len(pick) < n {
			pick[ids[r.IntN(len(ids))]] = true
		}
		var list []string
		in := bson.A{}
		for id := range pick {
			list = append(list, strconv.FormatInt(id, 10))
			in = append(in, id)
		}
		ack.line("B %d M %s 0 - %s", w.w, cn, strings.Join(list, ","))
		res, err := coll.DeleteMany(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$in", Value: in}}}})
		if err != nil {
			fatalChild(ack, "delete many: %v", err)
		}
		ack.line("A %d %d", w.w, res.DeletedCount)
		for i := len(ids) - 1; i >= 0; i-- {
			if pick[ids[i]] {
				remove(i)
			}
		}
	}
}

func lookupOK(d bson.D, k string) (any, bool) {
	for _, e := range d {
		if e.Key == k {
			return e.Value, true
		}
	}
	return nil, false
}

func lookup(d bson.D, k string) any { v, _ := lookupOK(d, k); return v }

// ---- parent side ----

// docState is what the model knows of one document: present with a
// version and expiry, or absent.
type docState struct {
	exists bool
	v      int64
	exp    string
	known  bool // it existed at some point (absent then means deleted)
}

// intent is an announced, not yet acknowledged operation.
type intent struct {
	op    string // I insert, U update, D delete one, M delete many, N bulk insert, C create index, K capped insert, P measurements
	coll  string
	v     int64
	exp   string
	ids   []int64
	times []int64 // P: each measurement's time (ms)
	name  string  // C
}

// apply returns the state a document would have after op ran on s
// (for an update: only if the document was there).
// A bulk insert's documents have their id as version.
func (in *intent) apply(s docState, id int64) docState {
	switch in.op {
	case "I":
		return docState{exists: true, v: in.v, exp: in.exp, known: true}
	case "N":
		return docState{exists: true, v: id, exp: in.exp, known: true}
	case "U":
		if s.exists {
			return docState{exists: true, v: in.v, exp: in.exp, known: true}
		}
		return s
	case "D", "M":
		return docState{known: s.known}
	}
	return s
}

// model is the parent's record of every acknowledged operation.
type model struct {
	mu       sync.Mutex
	docs     map[string]docState // "coll/id"
	pending  map[int]*intent     // by worker
	indexes  map[string]bool     // acknowledged "coll/name"
	clockMax int64               // upper bound of the child's clock
	ready    bool
	acks     int
	failures []string // lost or inconsistent findings, with reasons
	lost     int
	incons   int
	childErr string
	sp       specialModel // capped and time-series collections
}

func newModel(clock int64) *model {
	return &model{docs: map[string]docState{}, pending: map[int]*intent{}, indexes: map[string]bool{}, clockMax: clock, sp: newSpecialModel()}
}

func dkey(coll string, id int64) string { return coll + "/" + strconv.FormatInt(id, 10) }

// expirable reports whether the TTL monitor may have deleted s by the
// time bound clock. Only "c" has a TTL index (expireAfterSeconds 0).
func expirable(coll string, s docState, clock int64) bool {
	if coll != "c" || !s.exists {
		return false
	}
	ms, err := strconv.ParseInt(s.exp, 10, 64)
	return err == nil && ms <= clock
}

func (m *model) fail(lost bool, format string, args ...any) {
	if lost {
		m.lost++
	} else {
		m.incons++
	}
	if len(m.failures) < 50 {
		m.failures = append(m.failures, fmt.Sprintf(format, args...))
	}
}

// line applies one protocol line; it returns false on a malformed one.
func (m *model) line(s string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	f := strings.Fields(s)
	if len(f) == 0 {
		return fmt.Errorf("empty line")
	}
	switch f[0] {
	case "T":
		ms, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil || ms < m.clockMax {
			return fmt.Errorf("bad clock line %q (bound %d)", s, m.clockMax)
		}
		m.clockMax = ms
	case "R":
		m.ready = true
	case "X":
		m.childErr = s
	case "S":
		return m.tailLine(f)
	case "B":
		if len(f) != 7 {
			return fmt.Errorf("bad intent %q", s)
		}
		w, _ := strconv.Atoi(f[1])
		in := &intent{op: f[2], coll: f[3], exp: f[5]}
		in.v, _ = strconv.ParseInt(f[4], 10, 64)
		switch in.op {
		case "C":
			in.name = f[6]
		case "P":
			if err := parseSpecialIntent(in, f[6]); err != nil {
				return fmt.Errorf("bad intent %q: %v", s, err)
			}
		case "N":
			a, b, _ := strings.Cut(f[6], "-")
			lo, _ := strconv.ParseInt(a, 10, 64)
			hi, _ := strconv.ParseInt(b, 10, 64)
			for id := lo; id <= hi; id++ {
				in.ids = append(in.ids, id)
			}
		default:
			for _, x := range strings.Split(f[6], ",") {
				id, err := strconv.ParseInt(x, 10, 64)
				if err != nil {
					return fmt.Errorf("bad intent %q", s)
				}
				in.ids = append(in.ids, id)
			}
		}
		m.pending[w] = in
		m.announceSpecial(in)
	case "A":
		w, _ := strconv.Atoi(f[1])
		n, _ := strconv.ParseInt(f[2], 10, 64)
		in := m.pending[w]
		if in == nil {
			return fmt.Errorf("ack without intent %q", s)
		}
		delete(m.pending, w)
		m.acks++
		m.ack(in, n)
	default:
		return fmt.Errorf("unknown line %q", s)
	}
	return nil
}

// ack records an acknowledged operation and checks what its count says.
func (m *model) ack(in *intent, n int64) {
	switch in.op {
	case "K", "P":
		m.ackSpecial(in, n)
	case "C":
		m.indexes[in.coll+"/"+in.name] = true
	case "I", "N":
		if n != int64(len(in.ids)) {
			m.fail(false, "insert of %d documents acknowledged %d", len(in.ids), n)
		}
		for _, id := range in.ids {
			m.docs[dkey(in.coll, id)] = in.apply(docState{}, id)
		}
	case "U", "D":
		k := dkey(in.coll, in.ids[0])
		s := m.docs[k]
		if n == 0 && s.exists && !expirable(in.coll, s, m.clockMax) {
			m.fail(true, "%s of %s found it gone, but it was acknowledged with exp %s (clock bound %d): deleted before its expiry", in.op, k, s.exp, m.clockMax)
		}
		if n == 1 && !s.exists {
			m.fail(false, "%s of %s matched a document the model has as deleted: deleted document back", in.op, k)
		}
		if n == 0 {
			m.docs[k] = docState{known: s.known}
		} else {
			m.docs[k] = in.apply(s, in.ids[0])
		}
	case "M":
		var present, excusable int64
		for _, id := range in.ids {
			s := m.docs[dkey(in.coll, id)]
			if s.exists {
				present++
				if expirable(in.coll, s, m.clockMax) {
					excusable++
				}
			}
			m.docs[dkey(in.coll, id)] = docState{known: s.known}
		}
		if n > present {
			m.fail(false, "deleteMany of %v deleted %d, but only %d were present: deleted document back", in.ids, n, present)
		}
		if present-n > excusable {
			m.fail(true, "deleteMany of %v deleted %d of %d present, only %d of which may have expired: deleted before expiry", in.ids, n, present, excusable)
		}
	}
}

// found is a document read back after the crash.
type found struct {
	v   int64
	exp string
}

// check compares the reopened directory with the model, counting lost
// and inconsistent findings, then makes the model the observed state
// (resolving the operations that were in flight at the kill).
func (m *model) check(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	clock := m.clockMax
	db, err := engine.Open(dir, engine.Options{SyncWrites: true, DisableTTLMonitor: true,
		Clock: func() time.Time { return time.UnixMilli(clock) }})
	if err != nil {
		return fmt.Errorf("reopen: %w", err)
	}
	defer db.Close()
	ctx := context.Background()
	d := db.Database(crashDB)
	names, err := d.ListCollectionNames(ctx)
	if err != nil {
		return err
	}
	for _, cn := range names {
		r, err := db.Validate(ctx, crashDB, cn)
		if err != nil {
			return fmt.Errorf("validate %s: %w", cn, err)
		}
		for _, e := range r.Errors {
			m.fail(false, "validate %s: %s", cn, e)
		}
		for _, e := range r.MissingIndexEntries {
			m.fail(false, "validate %s: missing entry %v", cn, e.Doc())
		}
		for _, e := range r.ExtraIndexEntries {
			m.fail(false, "validate %s: extra entry %v", cn, e.Doc())
		}
	}
	pendingIdx := map[string]bool{}
	type pend struct {
		in *intent
		id int64
	}
	pendingOf := map[string][]pend{}
	for _, in := range m.pending {
		if in.op == "C" {
			pendingIdx[in.coll+"/"+in.name] = true
		}
		for _, id := range in.ids {
			pendingOf[dkey(in.coll, id)] = append(pendingOf[dkey(in.coll, id)], pend{in, id})
		}
	}
	seen := map[string]found{}
	present := map[string]bool{}
	for _, cn := range names {
		if specialColl(cn) {
			continue
		}
		specs, err := d.Collection(cn).ListIndexes(ctx)
		if err != nil {
			return err
		}
		for _, s := range specs {
			name, _ := lookup(s, "name").(string)
			present[cn+"/"+name] = true
			if k := cn + "/" + name; name != "_id_" && !m.indexes[k] && !pendingIdx[k] {
				m.fail(false, "index %s exists but was never acknowledged or begun", k)
			}
		}
		cur, err := d.Collection(cn).Find(ctx, bson.D{})
		if err != nil {
			return err
		}
		docs, err := cur.All(ctx)
		if err != nil {
			return err
		}
		for _, dd := range docs {
			id, _ := lookup(dd, "_id").(int64)
			v, _ := lookup(dd, "v").(int64)
			e, ok := lookupOK(dd, "exp")
			seen[dkey(cn, id)] = found{v: v, exp: expTok(e, ok)}
		}
	}
	for k := range m.indexes {
		if !present[k] {
			m.fail(true, "acknowledged index %s is missing", k)
		}
	}
	keys := map[string]bool{}
	for k := range m.docs {
		keys[k] = true
	}
	for k := range seen {
		keys[k] = true
	}
	sorted := make([]string, 0, len(keys))
	for k := range keys {
		sorted = append(sorted, k)
	}
	sort.Strings(sorted)
	for _, k := range sorted {
		coll, _, _ := strings.Cut(k, "/")
		s := m.docs[k]
		cands := []docState{s}
		for _, p := range pendingOf[k] {
			cands = append(cands, p.in.apply(s, p.id))
		}
		f, ok := seen[k]
		if ok {
			match, anyExists := false, false
			for _, c := range cands {
				anyExists = anyExists || c.exists
				match = match || (c.exists && c.v == f.v && c.exp == f.exp)
			}
			switch {
			case match:
			case !anyExists && s.known:
				m.fail(false, "%s is back after it was deleted (found v %d exp %s)", k, f.v, f.exp)
			case !anyExists:
				m.fail(false, "%s was never written but exists (v %d exp %s)", k, f.v, f.exp)
			default:
				m.fail(true, "%s has v %d exp %s; acknowledged v %d exp %s (in flight: %d ops)", k, f.v, f.exp, s.v, s.exp, len(pendingOf[k]))
			}
			m.docs[k] = docState{exists: true, v: f.v, exp: f.exp, known: true}
			continue
		}
		okAbsent := false
		for _, c := range cands {
			okAbsent = okAbsent || !c.exists || expirable(coll, c, clock)
		}
		if !okAbsent {
			m.fail(true, "%s is missing: acknowledged v %d exp %s, clock bound %d", k, s.v, s.exp, clock)
		}
		m.docs[k] = docState{known: s.known || len(pendingOf[k]) > 0}
	}
	for k := range pendingIdx {
		if present[k] {
			m.indexes[k] = true
		}
	}
	if err := m.checkSpecial(ctx, d, clock); err != nil {
		return err
	}
	m.pending = map[int]*intent{}
	return nil
}

// crashRun is one seeded run: a fresh directory, one or more child lives
// each killed and checked.
type crashRun struct {
	seed      uint64
	lives     int
	cycles    int
	fpReached map[string]int
}

// TestCrashTorture is the crash-torture harness (see the package doc).
func TestCrashTorture(t *testing.T) {
	t.Parallel()
	if os.Getenv(envChild) != "" {
		t.Skip("in child")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	var seeds []uint64
	if s := os.Getenv(envSeed); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("%s=%q: %v", envSeed, s, err)
		}
		seeds = []uint64{v}
	}
	// Seeds are base+12i+2k, whose first life fires failpoint k (see
	// runCrash), while a failpoint has not fired yet, then base+12i+1,
	// whose lives pick failpoints at random; so a short round covers
	// every failpoint in about len(failpoints) runs.
	base := uint64(time.Now().UnixNano()) % 1_000_000_000 / 12 * 12
	start := time.Now()
	cycles, lost, incons := 0, 0, 0
	var capChecked, tailSeen, tsChecked, tsExpired, seedsRun, seedsDesc int
	fps := map[string]int{}
	for i := 0; ; i++ {
		var seed uint64
		if seeds != nil {
			if i == len(seeds) {
				break
			}
			seed = seeds[i]
		} else {
			// A round runs its cycles and goes on (up to twice as many)
			// until every failpoint has fired at least once.
			if cycles >= *flagCycles && (allReached(fps) || cycles >= 2**flagCycles) {
				break
			}
			seed = base + 12*uint64(i) + 1
			if k := firstUnreached(fps); k >= 0 {
				seed = base + 12*uint64(i) + 2*uint64(k)
			}
		}
		seedsRun++
		if descTTL(seed) {
			seedsDesc++
		}
		r := runCrash(t, exe, seed, fps)
		if r.cycles == 0 && r.err != nil {
			t.Fatalf("seed %d: no cycle ran: %v", seed, r.err)
		}
		cycles += r.cycles
		lost += r.lost
		incons += r.incons
		capChecked += r.capChecked
		tailSeen += r.tailSeen
		tsChecked += r.tsChecked
		tsExpired += r.tsExpired
		if r.lost+r.incons > 0 || r.err != nil {
			t.Errorf("seed %d (replay: %s=%d go test ./fuzz -run 'TestCrashTorture$' -v): lost %d, inconsistent %d, err %v\n  %s",
				seed, envSeed, seed, r.lost, r.incons, r.err, strings.Join(r.failures, "\n  "))
		}
	}
	var fpList []string
	for _, fp := range failpoints {
		fpList = append(fpList, fmt.Sprintf("%s=%d", fp, fps[fp]))
	}
	t.Logf("failpoints reached: %s; %v", strings.Join(fpList, " "), time.Since(start).Round(time.Millisecond))
	t.Logf("capped documents checked after reopen: %d, seen by tailers: %d; measurements checked: %d, of which expired: %d",
		capChecked, tailSeen, tsChecked, tsExpired)
	t.Logf("seeds: %d, of which with a descending TTL index: %d", seedsRun, seedsDesc)
	t.Logf("crash cycles: %d, lost: %d, inconsistent: %d", cycles, lost, incons)
	if seeds == nil {
		for _, fp := range failpoints {
			if fps[fp] == 0 {
				t.Errorf("failpoint %s was never reached", fp)
			}
		}
	}
}

// allReached reports whether every failpoint fired in the round.
func allReached(fps map[string]int) bool {
	return firstUnreached(fps) < 0
}

// firstUnreached is the index in failpoints of the first one that has
// not fired in the round, or -1.
func firstUnreached(fps map[string]int) int {
	for k, fp := range failpoints {
		if fps[fp] == 0 {
			return k
		}
	}
	return -1
}

// descTTL reports whether seed's TTL index on c.exp is descending: a
// quarter of the seeds index exp descending, so that the TTL visit's
// high-water mark (docs/ttl-monitor.md) meets the crashes as the
// ascending low-water mark does. It is a hash of the seed, drawing
// nothing from runCrash's rng, so a seed's other choices stay as they
// were.
func descTTL(seed uint64) bool { return (seed*0x9E3779B97F4A7C15)>>62 == 0 }

type runResult struct {
	cycles, lost, incons int
	failures             []string
	err                  error
	// figures of the capped and time-series checks
	capChecked, tailSeen, tsChecked, tsExpired int
}

// runCrash runs seed's lives. The seed decides everything the parent
// chooses: lives, workers, reaper, failpoints, kill points.
func runCrash(t *testing.T, exe string, seed uint64, fps map[string]int) runResult {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x7a11))
	dir := t.TempDir()
	lives := 1 + rng.IntN(3)
	m := newModel(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC).UnixMilli())
	var res runResult
	if err := crashSetup(dir, m, descTTL(seed)); err != nil {
		res.err = err
		return res
	}
	for life := 1; life <= lives; life++ {
		cfg := childCfg{Dir: dir, Seed: seed*16 + uint64(life), Life: life, ClockMS: m.clockMax,
			Workers: 1 + rng.IntN(3), Reaper: rng.IntN(2) == 0, IndexAt: 1 + rng.IntN(40)}
		if rng.IntN(3) == 0 {
			cfg.IndexAt = 0
		}
		// An even seed's first life fires failpoint (seed/2) mod
		// len(failpoints); TestCrashTorture picks seeds with this so
		// that every short round covers each of them.
		killAt := 1 + rng.IntN(250)
		if life == 1 && seed%2 == 0 {
			cfg.Failpoint = failpoints[(seed/2)%uint64(len(failpoints))]
		} else if rng.IntN(6) == 0 {
			cfg.Failpoint = failpoints[rng.IntN(len(failpoints))]
		}
		switch cfg.Failpoint {
		case engine.FailpointReclaim:
			cfg.Bulk = reclaimBulk
		case engine.FailpointIndexBuildMid:
			cfg.IndexAt = 1 + rng.IntN(10)
		}
		acks0, t0 := m.acks, time.Now()
		reached, err := runLife(cfg, m, killAt)
		if testing.Verbose() {
			t.Logf("seed %d life %d: workers %d reaper %v failpoint %q reached %v, kill at %d acks: %d acks, %d docs, %v",
				seed, life, cfg.Workers, cfg.Reaper, cfg.Failpoint, reached, killAt, m.acks-acks0, len(m.docs), time.Since(t0).Round(time.Millisecond))
		}
		if err != nil {
			res.err = fmt.Errorf("life %d: %w", life, err)
			break
		}
		if reached {
			fps[cfg.Failpoint]++
		}
		res.cycles++
		if err := m.check(dir); err != nil {
			res.err = fmt.Errorf("life %d: check: %w", life, err)
			break
		}
	}
	res.lost, res.incons, res.failures = m.lost, m.incons, m.failures
	res.capChecked, res.tailSeen, res.tsChecked, res.tsExpired = m.sp.capChecked, m.sp.tailSeen, m.sp.tsChecked, m.sp.tsExpired
	return res
}

// crashSetup creates the workload's collections and indexes in the
// parent, so that no child's failpoint fires during setup.
func crashSetup(dir string, m *model, desc bool) error {
	db, err := engine.Open(dir, engine.Options{SyncWrites: true, DisableTTLMonitor: true})
	if err != nil {
		return err
	}
	ctx := context.Background()
	d := db.Database(crashDB)
	dir1, ttlName := int32(1), "exp_1"
	if desc {
		dir1, ttlName = -1, "exp_-1"
	}
	if _, err := d.Collection("c").CreateIndex(ctx, engine.IndexModel{Keys: bson.D{{Key: "exp", Value: dir1}},
		Options: bson.D{{Key: "expireAfterSeconds", Value: 0}}}); err != nil {
		db.Close()
		return err
	}
	if _, err := d.Collection("n").CreateIndex(ctx, engine.IndexModel{Keys: bson.D{{Key: "v", Value: 1}},
		Options: bson.D{{Key: "unique", Value: true}}}); err != nil {
		db.Close()
		return err
	}
	m.indexes["c/"+ttlName], m.indexes["n/v_1"] = true, true
	if err := createSpecial(ctx, d); err != nil {
		db.Close()
		return err
	}
	return db.Close()
}

// runLife starts a child, feeds its lines to the model and kills it
// after killAt acknowledgements (or lets its failpoint kill it). It
// reports whether the failpoint fired.
func runLife(cfg childCfg, m *model, killAt int) (reached bool, err error) {
	cfgJSON, _ := json.Marshal(cfg)
	pr, pw, err := os.Pipe()
	if err != nil {
		return false, err
	}
	defer pr.Close()
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), envChild+"="+string(cfgJSON))
	cmd.ExtraFiles = []*os.File{pw}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.Stdout = &stderr
	if err := cmd.Start(); err != nil {
		pw.Close()
		return false, err
	}
	pw.Close()
	m.mu.Lock()
	startAcks := m.acks
	m.mu.Unlock()
	// A failpoint run may never reach its failpoint; it is killed after
	// a generous number of acknowledgements or a time limit.
	limit := killAt
	if cfg.Failpoint != "" {
		limit = 1 << 30
	}
	timer := time.AfterFunc(20*time.Second, func() { cmd.Process.Signal(syscall.SIGKILL) })
	defer timer.Stop()
	killed := false
	sc := bufio.NewScanner(pr)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var protoErr error
	for sc.Scan() {
		if err := m.line(sc.Text()); err != nil && protoErr == nil {
			protoErr = err
		}
		m.mu.Lock()
		n := m.acks - startAcks
		m.mu.Unlock()
		if !killed && n >= limit {
			cmd.Process.Signal(syscall.SIGKILL)
			killed = true
		}
	}
	werr := cmd.Wait()
	if protoErr != nil {
		return false, protoErr
	}
	if m.childErr != "" {
		return false, fmt.Errorf("child failed: %s\n%s", m.childErr, tail(stderr.String()))
	}
	var ee *exec.ExitError
	if !errors.As(werr, &ee) {
		return false, fmt.Errorf("child exited without being killed: %v\n%s", werr, tail(stderr.String()))
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	if !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		return false, fmt.Errorf("child ended with %v, not SIGKILL\n%s", werr, tail(stderr.String()))
	}
	if !m.ready {
		return false, nil
	}
	return cfg.Failpoint != "" && !killed && timer.Stop(), nil
}

func tail(s string) string {
	if len(s) > 2000 {
		return s[len(s)-2000:]
	}
	return s
}

// killSelf kills this process with SIGKILL (on Windows, TerminateProcess),
// as in a crash: no deferred function runs and nothing is flushed. It
// never returns.
func killSelf() {
	if p, err := os.FindProcess(os.Getpid()); err == nil {
		p.Kill()
	}
	select {} // the kill is on its way
}
