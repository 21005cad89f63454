package ttlmon

import "time"

// Duty paces a reaper working through a one-off backlog at the top
// level while foreground writers are active (docs/batched-deletes.md
// §4.6). Such a reaper does not yield between its batches (full
// batches, pipelined), but it works in slices of about DutySlice of
// working time; after a slice during which writers wrote, it drains its
// commits and pauses. The pause is sized by what the writers achieved:
// their write rate while the reaper worked against their rate while it
// paused. The reaper pauses just long enough that the writers keep
// DutyWriterShare of the rate they reach while it pauses: not at all
// when they are not slowed (a paced writer that keeps its pace), about
// 2.6 times its working time when they write a tenth as fast beside
// it (a writer of one document a transaction, each of whose
// transactions waits in Badger for the reaper's commit in flight). With
// no writer around it never pauses: a backlog alone is reaped at full
// speed.
//
// A zero Duty is ready to use; it is not safe for concurrent use (one
// visit's run owns it).
type Duty struct {
	worked time.Duration // working time of the current slice
	writes int64         // writes during the current slice's work
	seen   bool          // writers were seen during the current slice
	// The working and pausing times of past slices and the writes
	// counted during them, each decayed by dutyDecay per slice.
	workT, pauseT float64 // seconds
	workN, pauseN float64
}

const (
	// DutySlice is the working time after which a reaper beside writers
	// pauses: a few full batches, so that the pipeline's overlap is
	// kept within a slice and a writer waits at most about this long
	// between two pauses.
	DutySlice = 20 * time.Millisecond
	// DutyWriterShare is the share of their rate while the reaper
	// pauses that the writers keep over a slice and its pause.
	DutyWriterShare = 0.75
	// dutyDecay weighs the slices before the last in the rates.
	dutyDecay = 0.75
)

// Worked notes work, the working time of a batch (or of a run of
// pipelined batches), during which the foreground wrote writes
// documents, and contended, whether a writer was seen waiting for the
// reaper (or the reaper for it). It returns how long the reaper must
// pause now (0: go on); the caller then calls Paused.
//
// The first slice beside writers pauses as long as it worked, to
// measure the writers' rate without the reaper; later ones pause
// work x (DutyWriterShare - x) / (1 - DutyWriterShare), where x is the
// writers' rate while the reaper works over their rate while it pauses,
// so at most 3 x work: the reaper keeps at least a quarter of the time
// however much it slows the writers, and a backlog is always reaped. A
// slice with no writer seen is forgotten.
func (d *Duty) Worked(work time.Duration, writes int64, contended bool) time.Duration {
	d.worked += max(work, 0)
	d.writes += max(writes, 0)
	d.seen = d.seen || writes > 0 || contended
	if d.worked < DutySlice {
		return 0
	}
	worked, n, seen := d.worked, d.writes, d.seen
	d.worked, d.writes, d.seen = 0, 0, false
	if !seen {
		return 0
	}
	d.workT = d.workT*dutyDecay + worked.Seconds()
	d.workN = d.workN*dutyDecay + float64(n)
	if d.pauseT == 0 {
		return worked // the first: measure the writers alone
	}
	return dutyPause(worked, d.workN/d.workT, d.pauseN/d.pauseT)
}

// Paused notes a pause of pause during which the foreground wrote
// writes documents.
func (d *Duty) Paused(pause time.Duration, writes int64) {
	if pause <= 0 {
		return
	}
	d.pauseT = d.pauseT*dutyDecay + pause.Seconds()
	d.pauseN = d.pauseN*dutyDecay + float64(max(writes, 0))
}

// dutyPause is the pause after work when the writers write rateWork
// documents a second while the reaper works and ratePause while it
// pauses: long enough that over work and the pause they average
// DutyWriterShare of ratePause.
func dutyPause(work time.Duration, rateWork, ratePause float64) time.Duration {
	if ratePause <= 0 {
		// No write while the reaper paused: nothing shows that it
		// slows them.
		return 0
	}
	x := rateWork / ratePause
	if x >= DutyWriterShare {
		return 0
	}
	return time.Duration(float64(work) * (DutyWriterShare - max(x, 0)) / (1 - DutyWriterShare))
}
