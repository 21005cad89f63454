package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"
)

// tsMeas is one measurement of collection w as Extended JSON.
func tsMeas(at time.Time, meta string, v int) string {
	return fmt.Sprintf(`{"t": %s, "m": %q, "v": %d}`, tsDate(at), meta, v)
}

// tsReapSetup creates w (expiry 5 s) and inserts one measurement three
// hours old, which opens a bucket that is due for expiry and that the
// collection's writer keeps open.
func tsReapSetup(t *testing.T) (*DB, time.Time) {
	t.Helper()
	db, clk, _ := openTest(t)
	mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}, "expireAfterSeconds": 5}`)
	old := clk.Now().Add(-3 * time.Hour)
	mustInsertTS(t, db, "w", tsMeas(old, "a", 1))
	return db, old
}

// Issue 6: the TTL reaper removes a bucket the writer still holds open,
// and an insert runs after the removal committed but before the reaper
// told the writer. The measurement must go to a live bucket: before the
// fix it went to a delta of the removed record (lost, and validate
// found an orphaned delta), and a later fold brought the removed bucket
// back without its index entries.
func TestTimeseriesReapOpenBucketThenInsert(t *testing.T) {
	t.Parallel()
	db, old := tsReapSetup(t)
	reached, release := make(chan struct{}), make(chan struct{})
	var once sync.Once
	db.opts.seams.tsReapedHook = func() { once.Do(func() { close(reached); <-release }) }
	done := make(chan error, 1)
	go func() {
		res, err := db.RunTTLPass(context.Background())
		if err == nil && res.Deleted != 1 {
			err = fmt.Errorf("pass deleted %d buckets, want 1", res.Deleted)
		}
		done <- err
	}()
	<-reached
	// The bucket's record is gone; the reaper has not told the writer.
	mustInsertTS(t, db, "w", tsMeas(old.Add(time.Second), "a", 2))
	close(release)
	if err := <-done; err != nil {
		t.Fatalf("ttl pass: %v", err)
	}
	if n := count(t, db, "test", "w"); n != 1 {
		t.Fatalf("count = %d after the insert, want 1 (the new measurement)", n)
	}
	mustValidate(t, db, "test", "w")
	// A measurement that closes the old bucket (a fold of a bucket with
	// deltas) must not bring the removed one back.
	mustInsertTS(t, db, "w", tsMeas(old.Add(2*time.Hour), "a", 3))
	if n := count(t, db, "test", "w"); n != 2 {
		t.Fatalf("count = %d, want 2", n)
	}
	mustValidate(t, db, "test", "w")
	// The new measurement's bucket is itself due: the next pass removes it.
	if res := ttlPass(t, db); res.Deleted != 1 {
		t.Fatalf("second pass deleted %d, want 1", res.Deleted)
	}
	if n := count(t, db, "test", "w"); n != 1 {
		t.Fatalf("count = %d after the second pass, want 1", n)
	}
	mustValidate(t, db, "test", "w")
}

// Issue 6, the reported error "time-series bucket ... has no record id":
// the reaper used to drop its removed buckets from the writer's open set
// after its commit without the buckets collection's wmu, so it could do
// so while an insert that had just put a measurement in one of them was
// planning its writes. The insert now finds the bucket gone in its own
// transaction, and the reaper forgets under the wmu.
func TestTimeseriesReapForgetDuringInsert(t *testing.T) {
	t.Parallel()
	db, old := tsReapSetup(t)
	reached, release := make(chan struct{}), make(chan struct{})
	forgetting, passDone := make(chan struct{}), make(chan struct{})
	var once, onceB, onceF sync.Once
	db.opts.seams.tsReapedHook = func() { once.Do(func() { close(reached); <-release }) }
	db.opts.seams.tsReapForgetHook = func() { onceF.Do(func() { close(forgetting) }) }
	var passErr error
	go func() {
		defer close(passDone)
		_, passErr = db.RunTTLPass(context.Background())
	}()
	<-reached
	// The insert bucketises into the removed bucket, then lets the
	// reaper finish (or reach the wmu) before it plans its writes.
	db.opts.seams.tsBucketedHook = func() {
		onceB.Do(func() {
			close(release)
			select {
			case <-passDone:
			case <-forgetting:
			}
		})
	}
	if _, err := run(t, db, "test", `{"insert": "w", "documents": [`+tsMeas(old.Add(time.Second), "a", 2)+`]}`); err != nil {
		t.Fatalf("insert: %v", err)
	}
	<-passDone
	if passErr != nil {
		t.Fatalf("ttl pass: %v", passErr)
	}
	if n := count(t, db, "test", "w"); n != 1 {
		t.Fatalf("count = %d, want 1", n)
	}
	mustValidate(t, db, "test", "w")
}

// Issue 6: an insert extends an open bucket after the reaper staged its
// removal and before the reaper commits (it stages without the wmu).
// The removal must take what the insert added with it: a delta the
// reaper did not see makes its commit conflict and the retry removes it
// too (it was an orphaned delta before); a fold rewrote the record the
// reaper read, which conflicted already. The added measurement is
// itself expired (it lies in the bucket's span, and the bucket is due).
func TestTimeseriesReapStagedThenInsert(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		base int // measurements in the bucket's base: >1 makes the insert a delta, 1 a fold
	}{{"delta", 3}, {"fold", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			db, clk := openMem(t)
			mustRun(t, db, "test", `{"create": "w", "timeseries": {"timeField": "t", "metaField": "m"}, "expireAfterSeconds": 5}`)
			old := clk.Now().Add(-3 * time.Hour)
			var ms []string
			for i := 0; i < tc.base; i++ {
				ms = append(ms, tsMeas(old.Add(time.Duration(i)*time.Second), "a", i))
			}
			mustInsertTS(t, db, "w", ms...)
			var once sync.Once
			var insErr error
			db.opts.seams.tsReapBeforeCommitHook = func() {
				once.Do(func() {
					_, insErr = run(t, db, "test", `{"insert": "w", "documents": [`+tsMeas(old.Add(time.Minute), "a", 99)+`]}`)
				})
			}
			res := ttlPass(t, db)
			if insErr != nil {
				t.Fatalf("insert: %v", insErr)
			}
			if res.Deleted != 1 {
				t.Fatalf("pass deleted %d buckets, want 1", res.Deleted)
			}
			if n := count(t, db, "test", "w"); n != 0 {
				t.Fatalf("count = %d, want 0", n)
			}
			mustValidate(t, db, "test", "w")
			deltas, _ := tsDeltaCounts(t, db, "w")
			if len(deltas) != 0 {
				t.Fatalf("deltas left: %v", deltas)
			}
		})
	}
}
