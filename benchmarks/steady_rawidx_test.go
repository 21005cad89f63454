package benchmarks

import (
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	badger "github.com/dgraph-io/badger/v4"
	"github.com/ttlkv/ttlkv/lsm"
)

// rawIdxSide is the steady state's second floor (TTLKV_BENCH_STEADY_SIDES
// must name it; it is not in the default sides): raw Badger keeping the
// documents as an ordinary ttlkv collection with one TTL index keeps
// them, with none of ttlkv's code. Each document is three keys (its
// record, its _id entry and its date entry; rawKeys), written in one
// transaction a batch; a hand-made reaper, once a second in real time
// (as the TTL monitor at ttlMonitorSleepSecs 1) and once a tick in
// compressed time, scans the date entries from where it stopped up to
// now - TTL, keys only, and deletes each with its record and _id entry
// (rawReapRange), reading no document. It is what the data model costs
// on Badger: ordinary x rawidx is ttlkv's own share, and rawidx x
// SQLite what the layout of three entries a document costs against a
// B-tree doing the same work.
//
// rawidx2 is the same with two keys a document (the record and its date
// entry; no _id entry), what a clustered collection with a TTL index
// keeps: clustered x rawidx2.
const (
	rawIdxSide  = "rawidx"
	rawIdx2Side = "rawidx2"
)

// rawIdxSteady is the rawidx side.
type rawIdxSteady struct {
	db     *badger.DB
	cfg    steadyConfig
	clock  int
	withID bool // three keys a document (rawidx), else two (rawidx2)

	inserted atomic.Int64
	deleted  atomic.Int64
	// from is where the reaper's next scan starts (the cutoff of the last
	// one; owned by whoever reaps: tick, or the real-time goroutine).
	from time.Time
	err  atomic.Value // the real-time reaper's first error

	stop chan struct{}
	wg   sync.WaitGroup
}

func newRawIdxSteady(t *testing.T, dir string, cfg steadyConfig, withID bool) *rawIdxSteady {
	r := &rawIdxSteady{db: openBadger(t, dir), cfg: cfg, clock: clockIDFor(cfg), withID: withID, from: baseTime.Add(-time.Hour)}
	if cfg.Mode == modeReal {
		r.from = time.Now().Add(-time.Hour)
		r.stop = make(chan struct{})
		r.wg.Add(1)
		go r.reapEverySecond()
	}
	return r
}

func (r *rawIdxSteady) clockID() int { return r.clock }

func (r *rawIdxSteady) insert(from, n int, created time.Time) error {
	txn := r.db.NewTransaction(true)
	defer txn.Discard()
	for i := from; i < from+n; i++ {
		kv, err := rawKeys(makeDoc(i, created), uint64(i+1), "exp")
		if err != nil {
			return err
		}
		if err := txn.Set(kv.rec, kv.val); err != nil {
			return err
		}
		if r.withID {
			if err := txn.Set(kv.id, nil); err != nil {
				return err
			}
		}
		if err := txn.Set(kv.ix, nil); err != nil {
			return err
		}
	}
	if err := txn.Commit(); err != nil {
		return err
	}
	r.inserted.Add(int64(n))
	return nil
}

// reap deletes what expired by now (date <= now - TTL) since the last
// reap.
func (r *rawIdxSteady) reap(now time.Time) error {
	cut := now.Add(-time.Duration(r.cfg.TTL) * time.Second)
	n, err := rawReapRange(r.db, r.from, cut, r.withID)
	r.deleted.Add(int64(n))
	if err != nil {
		return err
	}
	r.from = cut
	return nil
}

func (r *rawIdxSteady) tick(now time.Time) error {
	if r.cfg.Mode != modeCompressed {
		return nil
	}
	return r.reap(now)
}

// reapEverySecond is the real-time reaper: a pass, then a second's
// sleep, as the TTL monitor does.
func (r *rawIdxSteady) reapEverySecond() {
	defer r.wg.Done()
	t := time.NewTimer(time.Second)
	defer t.Stop()
	for {
		select {
		case <-r.stop:
			return
		case <-t.C:
		}
		if err := r.reap(time.Now()); err != nil && r.err.Load() == nil {
			r.err.Store(err)
		}
		t.Reset(time.Second)
	}
}

func (r *rawIdxSteady) live(time.Time) (int64, int64) {
	d := r.deleted.Load()
	return r.inserted.Load() - d, d
}

func (r *rawIdxSteady) close() {
	if r.stop != nil {
		close(r.stop)
		r.wg.Wait()
	}
	_ = r.db.Close()
}

// failed is the real-time reaper's first error, if any.
func (r *rawIdxSteady) failed() error {
	if e, ok := r.err.Load().(error); ok {
		return e
	}
	return nil
}

// TestRawIdxSteadyReaps checks the rawidx floors do what they stand
// for: after batches created a second apart and a tick, the documents
// dated more than TTL before the tick are gone with all their keys
// (three, or two for rawidx2), the rest are there with all of theirs,
// and live counts them.
func TestRawIdxSteadyReaps(t *testing.T) {
	t.Parallel()
	for _, withID := range []bool{true, false} {
		t.Run(fmt.Sprintf("withID=%v", withID), func(t *testing.T) {
			t.Parallel()
			testRawIdxSteadyReaps(t, withID)
		})
	}
}

func testRawIdxSteadyReaps(t *testing.T, withID bool) {
	cfg := steadyConfig{Mode: modeCompressed, Rate: 500, TTL: 3, Window: 1, Windows: 1}
	r := newRawIdxSteady(t, t.TempDir(), cfg, withID)
	defer r.close()
	for s := 0; s < 6; s++ {
		mustNoErr(t, r.insert(s*cfg.Rate, cfg.Rate, baseTime.Add(time.Duration(s)*time.Second)), "insert")
	}
	// At second 5, batches 0..2 (dated <= 5 - 3 s) have expired.
	mustNoErr(t, r.tick(baseTime.Add(5*time.Second)), "tick")
	mustNoErr(t, r.tick(baseTime.Add(5*time.Second)), "tick again") // nothing more
	want := 3 * cfg.Rate
	if live, exp := r.live(time.Time{}); live != int64(want) || exp != int64(want) {
		t.Fatalf("live %d, expired %d; want %d and %d", live, exp, want, want)
	}
	wantID := want
	if !withID {
		wantID = 0
	}
	for p, w := range map[string]int{string(lsm.RecordPrefixV1(rawColl)): want, string(lsm.IndexPrefixV1(rawColl, rawIDIx)): wantID,
		string(lsm.IndexPrefixV1(rawColl, rawSecIx)): want} {
		n, err := countKeys(r.db, []byte(p))
		mustNoErr(t, err, "count")
		if n != w {
			t.Errorf("prefix %x: %d keys, want %d", p, n, w)
		}
	}
}
