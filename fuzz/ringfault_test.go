package fuzz

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"testing"

	"github.com/ttlkv/ttlkv/capped"
)

const ringPath = "d/ring"

// ringAck is an acknowledged record of the reference workload.
type ringAck struct {
	off  int64
	data []byte
}

// ringRun is what the reference workload got acknowledged.
type ringRun struct {
	acked   map[uint64]ringAck
	order   []uint64 // acknowledged sequences, oldest first
	durable uint64   // every acked record up to this sequence was synced
	created bool     // Create succeeded (the file exists durably)
	// firstSeq is the ring's FirstSeq after the last acknowledged
	// append: recovery may not drop records older than a few past it.
	firstSeq uint64
	// fragile is the record an in-place Overwrite was rewriting when
	// the fault hit: it may keep either version or fail its checksum
	// and be cut off (see capped's doc.go, "Overwrite").
	fragile uint64
	// refusals counts write-path failures after which a further
	// Append correctly failed with ErrFailed.
	refusals int
}

func ringPayload(i, n int) []byte {
	b := make([]byte, n)
	for j := range b {
		b[j] = byte(i*131 + j*7)
	}
	return b
}

var ringLimits = capped.Limits{MaxRecords: 20}

// ringWorkload is the reference workload: create a ring, append 60
// records that wrap it under a 20-record limit, overwrite one in place,
// sync, close, reopen, append 10 more, close. It stops at the first
// error, after checking that a failed write path refuses the next
// write with ErrFailed. It never panics on an injected fault.
func ringWorkload(t *testing.T, m *memFS, sync bool) (*ringRun, error) {
	run := &ringRun{acked: map[uint64]ringAck{}}
	opts := capped.Options{FS: m, SyncEveryAppend: sync}
	r, err := capped.Create(ringPath, capped.MinCapacity, opts)
	if err != nil {
		return run, err
	}
	run.created = true
	var ack func(seq uint64, off int64, data []byte)
	ack = func(seq uint64, off int64, data []byte) {
		run.acked[seq] = ringAck{off, data}
		run.order = append(run.order, seq)
		run.firstSeq = r.FirstSeq()
		if sync {
			run.durable = seq
		}
	}
	// failed checks the fsync-failure rule: after a write-path error,
	// the ring refuses writes until it is reopened.
	failed := func(r *capped.Ring, err error) error {
		if errors.Is(err, capped.ErrFailed) {
			if _, _, err2 := r.Append([]byte("x"), ringLimits, nil); !errors.Is(err2, capped.ErrFailed) {
				t.Errorf("after %v, Append = %v, want ErrFailed", err, err2)
			} else {
				run.refusals++
			}
		}
		r.Close()
		return err
	}
	for i := 0; i < 60; i++ {
		d := ringPayload(i, 1+(i*37)%300)
		seq, off, err := r.Append(d, ringLimits, nil)
		if err != nil {
			return run, failed(r, err)
		}
		ack(seq, off, d)
		if i == 30 {
			nd := ringPayload(i+1000, len(d))
			if err := r.Overwrite(seq, off, nd); err != nil {
				run.fragile = seq
				return run, failed(r, err)
			}
			run.acked[seq] = ringAck{off, nd}
			if err := r.Sync(); err != nil {
				return run, failed(r, err)
			}
			run.durable = seq
		}
	}
	if err := r.Close(); err != nil {
		return run, err
	}
	run.durable = run.order[len(run.order)-1]
	r, err = capped.Open(ringPath, opts)
	if err != nil {
		return run, err
	}
	for i := 60; i < 70; i++ {
		d := ringPayload(i, 1+(i*53)%400)
		seq, off, err := r.Append(d, ringLimits, nil)
		if err != nil {
			return run, failed(r, err)
		}
		ack(seq, off, d)
	}
	if err := r.Close(); err != nil {
		return run, err
	}
	run.durable = run.order[len(run.order)-1]
	return run, nil
}

// checkRing reopens the ring on a healthy file system and checks it:
// Open succeeds (unless Create never did), Check passes, and every
// record that must have survived is there with its data: with
// powerCut, the durable ones; without, every acknowledged one that
// the limits (20 records, the ring's space) keep live.
func checkRing(m *memFS, run *ringRun, powerCut bool, what string) (err error) {
	m.heal()
	r, err := capped.Open(ringPath, capped.Options{FS: m})
	if err != nil {
		// A Create that failed and could not remove its file leaves
		// a partial file, which Open must reject as corrupt.
		if !run.created && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, capped.ErrCorrupt)) {
			return nil
		}
		return fmt.Errorf("%s: reopen: %v", what, err)
	}
	defer r.Close()
	if err := r.Check(); err != nil {
		return fmt.Errorf("%s: check: %v", what, err)
	}
	// must: every acked sequence up to it survives (but fragile).
	must := uint64(0)
	if powerCut {
		must = run.durable
	} else if len(run.order) > 0 {
		must = run.order[len(run.order)-1]
	}
	newest := uint64(0)
	for _, seq := range run.order {
		if seq <= must && seq != run.fragile {
			newest = seq
		}
	}
	if r.LastSeq() < newest {
		return fmt.Errorf("%s: last sequence %d, but %d was acknowledged durable", what, r.LastSeq(), newest)
	}
	// A failed append may have evicted records to make room for itself
	// (and wrapped) before it failed: at most two maximal records' worth.
	var evicted int64
	for _, seq := range run.order {
		if seq >= run.firstSeq && seq < r.FirstSeq() && seq <= must {
			evicted += (capped.RecordOverhead + int64(len(run.acked[seq].data)) + 7) &^ 7
		}
	}
	if limit := int64(2 * (capped.RecordOverhead + 400 + 8)); evicted > limit {
		return fmt.Errorf("%s: recovery starts at %d, %d before the fault: %d bytes of acknowledged records gone", what, r.FirstSeq(), run.firstSeq, evicted)
	}
	for _, seq := range run.order {
		if seq > must || seq < r.FirstSeq() || seq == run.fragile {
			continue
		}
		a := run.acked[seq]
		got, err := r.Read(seq, a.off)
		if err != nil {
			return fmt.Errorf("%s: record %d: %v (first %d last %d)", what, seq, err, r.FirstSeq(), r.LastSeq())
		}
		if !bytes.Equal(got, a.data) {
			return fmt.Errorf("%s: record %d has other data", what, seq)
		}
	}
	// The ring must still take writes after recovery.
	if _, _, err := r.Append([]byte("after"), ringLimits, nil); err != nil {
		return fmt.Errorf("%s: append after recovery: %v", what, err)
	}
	return nil
}

// TestRingFaults loops N over every file operation of the reference
// workload, for each of: the N-th operation fails once, it fails and
// every later one too, and the power goes at the N-th (unsynced writes
// dropped, the last one torn inside a sector). Every run ends in
// success or an error; a reopen on a healthy disk validates and keeps
// every acknowledged (durable, for power loss) record.
func TestRingFaults(t *testing.T) {
	t.Parallel()
	for _, sync := range []bool{false, true} {
		for _, mode := range []string{"once", "forever", "power"} {
			t.Run(fmt.Sprintf("%s/sync=%v", mode, sync), func(t *testing.T) {
				refusals := 0
				var failures []string
				for n := 1; ; n++ {
					m := newMemFS(uint64(n))
					switch mode {
					case "once":
						m.failAt = n
					case "forever":
						m.failAt, m.forever = n, true
					case "power":
						m.cutAt = n
					}
					run, err := ringWorkload(t, m, sync)
					if !m.faulted {
						if err != nil {
							t.Fatalf("workload failed without a fault: %v", err)
						}
						if n < 50 {
							t.Fatalf("workload ran clean after %d operations", n-1)
						}
						t.Logf("%d fault points, %d write refusals checked, %d failures", n-1, refusals, len(failures))
						for i, f := range failures {
							if i == 5 {
								t.Errorf("... and %d more", len(failures)-5)
								break
							}
							t.Error(f)
						}
						return
					}
					refusals += run.refusals
					what := fmt.Sprintf("%s fault at op %d (err %v)", mode, n, err)
					if mode == "power" {
						m.powerLoss()
					}
					if err := checkRing(m, run, mode == "power", what); err != nil {
						failures = append(failures, err.Error())
					}
				}
			})
		}
	}
}
