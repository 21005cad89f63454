package benchmarks

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/ttlkv/ttlkv/engine"
	"github.com/ttlkv/ttlkv/wire"
)

// The wire benchmarks compare, in the same iteration, three ways to
// the same engine: the embedded Go API, the official Go driver through
// the in-process dialer, and the driver over loopback TCP. Each way gets
// a fresh data directory; the order of the three alternates between
// runs. With TTLKV_BENCH_WIRE_UNIX=1 the driver over a Unix socket
// joins them. With TTLKV_BENCH_WIRE_PROC=1 another way joins them: the
// driver over loopback TCP to `ttlkv serve` in a child process, whose
// CPU time (from /proc) separates the server's work from the client's.
//
// Besides wall-time rates, each way reports the CPU time of the process
// during its turns (cpu-µs per document or per operation): unlike wall
// time it hardly moves when other processes load the machine, and for
// the in-process and TCP ways it is client and server together.

func wireEnvInt(name string, def int) int {
	if n, err := strconv.Atoi(os.Getenv(name)); err == nil && n > 0 {
		return n
	}
	return def
}

// wireTarget is one way in: ins and find run a batch insert and a full
// read (ins may be called from several goroutines at once, so it
// returns its error instead of failing the benchmark); insOne inserts the single document {_id: id, s: "x"} and
// findOne finds it by _id (the two halves of the round trip).
type wireTarget struct {
	name    string
	close   func()
	ins     func(docs []any) error
	find    func() int
	insOne  func(id int)
	findOne func(id int)
	// serverCPU is the CPU time the child server process has used so
	// far ("proc" only).
	serverCPU func() time.Duration
	// conns is how many connections the in-process server has accepted
	// so far (the driver's pool and its monitors; nil for "embedded" and
	// "proc").
	conns func() int64
}

func openWireTarget(b *testing.B, kind string) *wireTarget {
	b.Helper()
	db, err := engine.Open(b.TempDir(), engine.Options{DisableTTLMonitor: true})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	t := &wireTarget{name: kind}
	switch kind {
	case "embedded", "inproc", "tcp", "unix", "proc":
	default:
		db.Close()
		b.Fatalf("unknown way %q (TTLKV_BENCH_WIRE_WAYS takes embedded, inproc, tcp, unix, proc)", kind)
	}
	if kind == "embedded" {
		c := db.Database("bench").Collection("docs")
		t.ins = func(docs []any) error {
			_, err := c.InsertMany(ctx, docs, true)
			return err
		}
		t.find = func() int {
			cur, err := c.Find(ctx, bson.D{})
			if err != nil {
				b.Fatal(err)
			}
			all, err := cur.All(ctx)
			if err != nil {
				b.Fatal(err)
			}
			return len(all)
		}
		t.insOne = func(id int) {
			if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "s", Value: "x"}}); err != nil {
				b.Fatal(err)
			}
		}
		t.findOne = func(id int) {
			if _, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
				b.Fatal(err)
			}
		}
		t.close = func() { db.Close() }
		return t
	}
	if kind == "proc" {
		db.Close()
		return openProcTarget(b, t)
	}
	srv := wire.NewServer(db, wire.Options{})
	o := options.Client()
	switch kind {
	case "inproc":
		o.ApplyURI("mongodb://ttlkv.local").SetDialer(srv.Dialer())
	case "unix":
		path := filepath.Join(b.TempDir(), "w.sock")
		l, err := net.Listen("unix", path)
		if err != nil {
			b.Fatal(err)
		}
		go srv.Serve(l)
		o.ApplyURI("mongodb://" + url.PathEscape(path))
	default:
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			b.Fatal(err)
		}
		go srv.Serve(l)
		o.ApplyURI("mongodb://" + l.Addr().String())
	}
	client, err := mongo.Connect(o)
	if err != nil {
		b.Fatal(err)
	}
	driverTarget(b, t, client)
	t.conns = func() int64 { return srv.Stats().TotalCreated }
	close := t.close
	t.close = func() {
		close()
		srv.Close()
		db.Close()
	}
	return t
}

// driverTarget fills t's operations with the official driver's calls
// through client.
func driverTarget(b *testing.B, t *wireTarget, client *mongo.Client) {
	ctx := context.Background()
	c := client.Database("bench").Collection("docs")
	t.ins = func(docs []any) error {
		_, err := c.InsertMany(ctx, docs)
		return err
	}
	t.find = func() int {
		cur, err := c.Find(ctx, bson.D{})
		if err != nil {
			b.Fatal(err)
		}
		var all []bson.D
		if err := cur.All(ctx, &all); err != nil {
			b.Fatal(err)
		}
		return len(all)
	}
	t.insOne = func(id int) {
		if _, err := c.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "s", Value: "x"}}); err != nil {
			b.Fatal(err)
		}
	}
	t.findOne = func(id int) {
		if err := c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Err(); err != nil {
			b.Fatal(err)
		}
	}
	t.close = func() { client.Disconnect(ctx) }
}

// openProcTarget starts `ttlkv serve` on a free loopback port in a
// child process with a fresh data directory and connects the driver.
func openProcTarget(b *testing.B, t *wireTarget) *wireTarget {
	b.Helper()
	cmd := exec.Command(ttlkvBinary(b), "serve", "--dir", b.TempDir(), "--port", "0")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if _, a, ok := strings.Cut(sc.Text(), "waiting for connections on "); ok {
				select {
				case addr <- a:
				default:
				}
			}
		}
	}()
	var a string
	select {
	case a = <-addr:
	case <-time.After(30 * time.Second):
		cmd.Process.Kill()
		b.Fatal("ttlkv serve did not report its address within 30 s")
	}
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + a))
	if err != nil {
		cmd.Process.Kill()
		b.Fatal(err)
	}
	driverTarget(b, t, client)
	disconnect := t.close
	t.close = func() {
		disconnect()
		cmd.Process.Signal(syscall.SIGTERM)
		cmd.Wait()
	}
	pid := cmd.Process.Pid
	t.serverCPU = func() time.Duration { return procCPU(pid) }
	return t
}

// procCPU is the user+system CPU time process pid has used, from
// /proc/pid/stat (clock ticks of 10 ms).
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')') // the command name may hold spaces
	if i < 0 {
		return 0
	}
	f := strings.Fields(s[i+1:])
	if len(f) < 13 {
		return 0
	}
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// wireKinds are the ways in that take turns: the three always, the
// driver over a Unix socket to the same process's server ("unix") when
// TTLKV_BENCH_WIRE_UNIX=1, and the child-process server when
// TTLKV_BENCH_WIRE_PROC=1. TTLKV_BENCH_WIRE_WAYS (a comma-separated
// list, say "embedded,tcp") names others instead, to see what taking
// turns costs each way; a ratio or overhead whose ways are not all
// there is not reported.
func wireKinds() []string {
	if w := os.Getenv("TTLKV_BENCH_WIRE_WAYS"); w != "" {
		return strings.Split(w, ",")
	}
	k := []string{"embedded", "inproc", "tcp"}
	if os.Getenv("TTLKV_BENCH_WIRE_UNIX") == "1" {
		k = append(k, "unix")
	}
	if os.Getenv("TTLKV_BENCH_WIRE_PROC") == "1" {
		k = append(k, "proc")
	}
	return k
}

// wireRotate is the order of the ways for step i: each goes first,
// second, third... equally often, so load that comes and goes on the
// machine hits all alike.
func wireRotate(kinds []string, i int) []string {
	out := make([]string, len(kinds))
	for j := range kinds {
		out[j] = kinds[(i+j)%len(kinds)]
	}
	return out
}

// BenchmarkWireInsertMany inserts TTLKV_BENCH_WIRE_BATCHES (default 20)
// batches of 1000 documents of about 150 bytes, built as bson.D, then
// reads them all back, through each way in; the ways take turns.
// Reported: docs/s of each, the driver's ratios to the embedded API
// (tcp-x-embedded is issue 16's >= 0.7x), and the process's CPU time
// per document during each way's turns (tcp-cpu-x-embedded: the
// embedded API's CPU a document over TCP's); with the child-process
// server, its own CPU per document beside the client's. The driver
// marshals each bson.D and decodes it again for its _id (its
// ensureID); the embedded API encodes the same bson.D once.
//
// TTLKV_BENCH_WIRE_CALLERS=N (default 1: one sequential caller, which
// measures a batch's latency more than a store's throughput) runs N
// goroutines inserting at once on every way: the embedded API's callers
// share one engine.DB, the driver's share one mongo.Client (its pool
// opens a connection per caller in flight, as an application's would).
// In each turn a way inserts N x TTLKV_BENCH_WIRE_TURN (default 1)
// batches, its callers taking the next batch as they finish one; the
// total is rounded up to whole turns, the same on every way. k-conns is
// how many connections the server accepted from the driver's pool and
// monitors (about N plus two when each caller had its own).
// TTLKV_BENCH_WIRE_INS_PROFILE=file writes a CPU profile of the inserts
// alone (the reads after them left out).
func BenchmarkWireInsertMany(b *testing.B) { benchWireInsertMany(b, false) }

// BenchmarkWireInsertManyRaw is BenchmarkWireInsertMany with documents
// that are already BSON (bson.Raw, encoded before the clock starts) on
// every way: the driver sends them as they are (its ensureID still
// decodes each for its _id) and the embedded API stores them from their
// bytes, so the ratio tells the wire's cost apart from the cost of
// encoding Go values. Same metrics and knobs. With
// TTLKV_BENCH_WIRE_NOID=1 (both variants) the documents carry no _id,
// so that the driver prepends the ObjectId it generates instead of
// decoding each document for its _id.
func BenchmarkWireInsertManyRaw(b *testing.B) { benchWireInsertMany(b, true) }

func benchWireInsertMany(b *testing.B, raw bool) {
	const batch = 1000
	callers := wireEnvInt("TTLKV_BENCH_WIRE_CALLERS", 1)
	perTurn := callers * wireEnvInt("TTLKV_BENCH_WIRE_TURN", 1) // batches a way inserts in a turn
	turns := (wireEnvInt("TTLKV_BENCH_WIRE_BATCHES", 20) + perTurn - 1) / perTurn
	batches := turns * perTurn
	pad := strings.Repeat("p", 100)
	kinds := wireKinds()
	noID := os.Getenv("TTLKV_BENCH_WIRE_NOID") == "1"
	makeBatch := func(k int) []any {
		docs := make([]any, batch)
		for i := range docs {
			n := k*batch + i
			d := bson.D{{Key: "_id", Value: n}, {Key: "n", Value: n}, {Key: "s", Value: pad}}
			if noID {
				d = d[1:]
			}
			if !raw {
				docs[i] = d
				continue
			}
			r, err := bson.Marshal(d)
			if err != nil {
				b.Fatal(err)
			}
			docs[i] = bson.Raw(r)
		}
		return docs
	}
	for it := 0; it < b.N; it++ {
		ts := map[string]*wireTarget{}
		for _, k := range kinds {
			ts[k] = openWireTarget(b, k)
		}
		ins, find := map[string]time.Duration{}, map[string]time.Duration{}
		insCPU, findCPU := map[string]time.Duration{}, map[string]time.Duration{}
		var srvIns, srvFind time.Duration
		turn := func(kind string, wall, cpu map[string]time.Duration, f func()) {
			start, c0 := time.Now(), cpuTime()
			f()
			wall[kind] += time.Since(start)
			cpu[kind] += cpuTime() - c0
		}
		srv0 := serverCPU(ts)
		stopProfile := profileEnv(b, "TTLKV_BENCH_WIRE_INS_PROFILE")
		for tn := range turns {
			work := make([][]any, perTurn) // built before the clock starts
			for j := range work {
				work[j] = makeBatch(tn*perTurn + j)
			}
			for _, kind := range wireRotate(kinds, tn) {
				var err error
				turn(kind, ins, insCPU, func() { err = insertConcurrently(ts[kind].ins, work, callers) })
				if err != nil {
					b.Fatalf("%s: %v", kind, err)
				}
			}
		}
		stopProfile()
		srv1 := serverCPU(ts)
		srvIns = srv1 - srv0
		for r := range len(kinds) {
			for _, kind := range wireRotate(kinds, r) {
				turn(kind, find, findCPU, func() {
					if got := ts[kind].find(); got != batches*batch {
						b.Fatalf("%s: read %d documents, want %d", kind, got, batches*batch)
					}
				})
			}
		}
		srvFind = serverCPU(ts) - srv1
		conns := map[string]int64{}
		for _, k := range kinds {
			if ts[k].conns != nil {
				conns[k] = ts[k].conns()
			}
			ts[k].close()
		}
		n := batches * batch
		reads := len(kinds) * n
		b.ReportMetric(float64(callers), "callers")
		for _, k := range kinds {
			b.ReportMetric(rate(n, ins[k]), k+"-ins-docs/s")
			b.ReportMetric(rate(reads, find[k]), k+"-find-docs/s")
			b.ReportMetric(perDocµs(insCPU[k], n), k+"-ins-cpu-µs/doc")
			b.ReportMetric(perDocµs(findCPU[k], reads), k+"-find-cpu-µs/doc")
			if n, ok := conns[k]; ok {
				b.ReportMetric(float64(n), k+"-conns")
			}
		}
		if ins["embedded"] > 0 && ins["tcp"] > 0 {
			b.ReportMetric(ins["embedded"].Seconds()/ins["tcp"].Seconds(), "tcp-x-embedded")
			b.ReportMetric(find["embedded"].Seconds()/find["tcp"].Seconds(), "find-tcp-x-embedded")
			if insCPU["tcp"] > 0 {
				b.ReportMetric(insCPU["embedded"].Seconds()/insCPU["tcp"].Seconds(), "tcp-cpu-x-embedded")
			}
		}
		if ins["embedded"] > 0 && ins["inproc"] > 0 {
			b.ReportMetric(ins["embedded"].Seconds()/ins["inproc"].Seconds(), "inproc-x-embedded")
		}
		if ins["embedded"] > 0 && ins["unix"] > 0 {
			b.ReportMetric(ins["embedded"].Seconds()/ins["unix"].Seconds(), "unix-x-embedded")
		}
		if ts["proc"] != nil {
			if ins["embedded"] > 0 {
				b.ReportMetric(ins["embedded"].Seconds()/ins["proc"].Seconds(), "proc-x-embedded")
				b.ReportMetric(find["embedded"].Seconds()/find["proc"].Seconds(), "find-proc-x-embedded")
			}
			b.ReportMetric(perDocµs(srvIns, n), "proc-ins-server-cpu-µs/doc")
			b.ReportMetric(perDocµs(srvFind, reads), "proc-find-server-cpu-µs/doc")
		}
	}
}

// insertConcurrently inserts every batch of work with ins from callers
// goroutines, each taking the next batch when it has finished one, and
// returns the first error. One caller inserts them in order on the
// calling goroutine.
func insertConcurrently(ins func([]any) error, work [][]any, callers int) error {
	if callers <= 1 {
		for _, docs := range work {
			if err := ins(docs); err != nil {
				return err
			}
		}
		return nil
	}
	var next atomic.Int64
	errs := make([]error, callers)
	var wg sync.WaitGroup
	for c := range callers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				j := int(next.Add(1)) - 1
				if j >= len(work) {
					return
				}
				if err := ins(work[j]); err != nil {
					errs[c] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	return errors.Join(errs...)
}

// serverCPU is the child server's CPU time so far, 0 without one.
func serverCPU(ts map[string]*wireTarget) time.Duration {
	if t := ts["proc"]; t != nil {
		return t.serverCPU()
	}
	return 0
}

func perDocµs(d time.Duration, n int) float64 { return float64(d.Microseconds()) / float64(n) }

// BenchmarkWireRoundTrip runs TTLKV_BENCH_WIRE_OPS (default 2000)
// single-document round trips (insertOne, then find by _id) through
// each way in, taking turns op by op, and reports the median of each
// (k-p50-µs: the pair), the driver's p50 overhead over the embedded
// call in µs (tcp-overhead-p50-µs and the like: the pair's), and the
// process's CPU time per round trip of each way. Each half is also
// timed on its own: k-ins-p50-µs and k-find-p50-µs, and their p50
// overheads over the embedded call (tcp-ins-overhead-p50-µs,
// tcp-find-overhead-p50-µs, ...), since issue 16's <= 100 µs reads
// either as the pair or as each single-document operation.
func BenchmarkWireRoundTrip(b *testing.B) {
	ops := wireEnvInt("TTLKV_BENCH_WIRE_OPS", 2000)
	kinds := wireKinds()
	for it := 0; it < b.N; it++ {
		ts := map[string]*wireTarget{}
		lat := map[string][]time.Duration{}
		insLat := map[string][]time.Duration{}
		findLat := map[string][]time.Duration{}
		cpu := map[string]time.Duration{}
		for _, k := range kinds {
			ts[k] = openWireTarget(b, k)
			ts[k].insOne(-1) // connect and warm up
			ts[k].findOne(-1)
		}
		srv0 := serverCPU(ts)
		for i := range ops {
			for _, kind := range wireRotate(kinds, i) {
				t := ts[kind]
				start, c0 := time.Now(), cpuTime()
				t.insOne(i)
				mid := time.Now()
				t.findOne(i)
				end := time.Now()
				cpu[kind] += cpuTime() - c0
				lat[kind] = append(lat[kind], end.Sub(start))
				insLat[kind] = append(insLat[kind], mid.Sub(start))
				findLat[kind] = append(findLat[kind], end.Sub(mid))
			}
		}
		srv := serverCPU(ts) - srv0
		p50, insP50, findP50 := map[string]time.Duration{}, map[string]time.Duration{}, map[string]time.Duration{}
		for _, k := range kinds {
			ts[k].close()
			p50[k], insP50[k], findP50[k] = p50Of(lat[k]), p50Of(insLat[k]), p50Of(findLat[k])
			b.ReportMetric(float64(p50[k].Microseconds()), k+"-p50-µs")
			b.ReportMetric(float64(insP50[k].Microseconds()), k+"-ins-p50-µs")
			b.ReportMetric(float64(findP50[k].Microseconds()), k+"-find-p50-µs")
			b.ReportMetric(perDocµs(cpu[k], ops), k+"-cpu-µs/op")
		}
		if ts["embedded"] != nil {
			for _, k := range []string{"tcp", "inproc", "unix", "proc"} {
				if ts[k] == nil {
					continue
				}
				b.ReportMetric(float64((p50[k] - p50["embedded"]).Microseconds()), k+"-overhead-p50-µs")
				b.ReportMetric(float64((insP50[k] - insP50["embedded"]).Microseconds()), k+"-ins-overhead-p50-µs")
				b.ReportMetric(float64((findP50[k] - findP50["embedded"]).Microseconds()), k+"-find-overhead-p50-µs")
			}
		}
		if ts["proc"] != nil {
			b.ReportMetric(perDocµs(srv, ops), "proc-server-cpu-µs/op")
		}
	}
}

// p50Of sorts l and returns its median.
func p50Of(l []time.Duration) time.Duration {
	sort.Slice(l, func(i, j int) bool { return l[i] < l[j] })
	return l[len(l)/2]
}
