package ttlmon

import (
	"math/bits"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Catching up. Beside active writers the TTL reaper is gentle
// (the engine's batch deleter: small sub-batches and a pause as long as
// each contended one took), so a writer keeps most of its throughput. A
// writer that never lets up and inserts documents that expire soon
// would then outrun it, and the expired documents would pile up
// without bound. So each TTL index's reaper watches its lag: how long
// ago the oldest expired document it has yet to delete expired, taken
// at the start of each visit. A lag above the floor (catchUpFloor)
// that keeps growing means expiry is outpacing the reaper; it then
// climbs a catch-up level, at which its sub-batches are twice as large
// and its pauses half as long as at the level below, and at the top
// level it does not yield at all (as MongoDB's TTL monitor never
// does): the writers slow down until the reaper keeps up. A reaper
// that has caught up (its lag back under the floor, or its last visit
// finished its range) steps one level down per window, so the level
// settles where it just keeps pace.
//
// A one-off backlog (documents that expired long ago, a database
// reopened after downtime) does not climb as long as the reaper works
// through its dates faster than the clock moves: it deletes oldest
// first, so the lag shrinks. A backlog denser than that (more documents
// per second of dates than the reaper deletes per second) beside busy
// writers does climb, since its lag grows as surely as under a writer
// that outpaces the reaper.
const (
	// MaxCatchUp is the top level, at which the reaper does not yield
	// to writers. Level MaxCatchUp-1 has 128-document sub-batches and
	// pauses a sixteenth as long as the sub-batch (about 94% of the
	// time reaping while writers are active, against 50% at level 0).
	MaxCatchUp = 5
	// CatchUpWindow is the least clock time a lag is compared over.
	CatchUpWindow = 3 * time.Second
	// catchUpGrowth: a lag that grew by more than 1/catchUpGrowth of the
	// window's time is losing ground (the reaper deletes less than
	// about 90% of what expires meanwhile).
	catchUpGrowth = 10
)

// catchUp is a TTL index's catch-up state (in lowWater, under
// Monitor.mu).
type catchUp struct {
	level  int
	refLag time.Duration // the lag the next comparison is made against
	refAt  bson.DateTime // clock time of refLag
	hasRef bool
	// finished: the index's last visit deleted everything that had
	// expired by its start (it did not stop at a target).
	finished bool
}

// catchUpFloor is the lag at or below which a reaper counts as caught
// up: twice the monitor's interval, since a reaper that keeps up still
// leaves up to one interval of expired documents between passes.
func (m *Monitor) catchUpFloor() time.Duration {
	return 2 * m.host.Sleep()
}

// step moves the state with lag, observed at clock time now, and
// returns the new level: once at least CatchUpWindow has passed since
// the last comparison, one level down if the reaper has caught up (the
// lag is at or under floor, or the last visit deleted everything that
// had expired by its start), else one up if the lag grew by more than a
// tenth of the time, two if by more than half.
//
// A finished visit counts as caught up whatever the lag: documents
// inserted already long expired (dated in the past) keep the lag high
// while the reaper keeps up with them.
func (cu *catchUp) step(lag time.Duration, now bson.DateTime, floor time.Duration) int {
	if !cu.hasRef || now < cu.refAt {
		cu.refLag, cu.refAt, cu.hasRef = lag, now, true
		return cu.level
	}
	elapsed := time.Duration(now-cu.refAt) * time.Millisecond
	if elapsed < CatchUpWindow {
		return cu.level
	}
	switch {
	case lag <= floor || cu.finished:
		cu.level = max(cu.level-1, 0)
	case lag-cu.refLag > elapsed/2:
		// Expiry at more than twice the reaper's pace: two levels.
		cu.level = min(cu.level+2, MaxCatchUp)
	case lag-cu.refLag > elapsed/catchUpGrowth:
		cu.level = min(cu.level+1, MaxCatchUp)
	}
	cu.refLag, cu.refAt = lag, now
	return cu.level
}

// NoteLag steps the catch-up state of ix with the lag a visit found
// (how long before the expiry cut-off its oldest expired key lies),
// observed at now on the clock that judges expiry, and returns the
// level the visit reaps at, logging a change. backlog reports that the
// level is the backlog level alone, above the catch-up level: a
// one-off backlog, which at the top level is paced by Duty beside
// writers, rather than expiry outpacing the reaper, which is not. ns
// and index name the index in the log.
func (m *Monitor) NoteLag(ix *Index, lag time.Duration, now bson.DateTime, ns, index string) (level int, backlog bool) {
	floor := m.catchUpFloor()
	m.mu.Lock()
	was := ix.lw.catchUp.level
	level = ix.lw.catchUp.step(lag, now, floor)
	m.mu.Unlock()
	switch {
	case was == 0 && level > 0:
		m.host.Logf("ttl: %s index %s is %v behind and losing ground: reaping less gently",
			ns, index, lag.Round(time.Millisecond))
	case was < MaxCatchUp && level == MaxCatchUp:
		m.host.Logf("ttl: %s index %s is %v behind and still losing ground: reaping without yielding to writers",
			ns, index, lag.Round(time.Millisecond))
	case level == 0 && was > 0:
		m.host.Logf("ttl: %s index %s has caught up", ns, index)
	}
	bl := backlogLevel(lag, floor)
	return max(level, bl), bl > level
}

// backlogLevel is the least level a visit reaps at whose oldest expired
// document expired lag ago, with floor twice ttlMonitorSleepSecs. A
// reaper that keeps up starts each visit about one interval (floor/2)
// behind: what expired since the visit before. Up to a quarter interval
// more it reaps at 0 (gentle); past that the pass before left work
// undone, so it yields less: 1 from 1.25 intervals, 2 from 1.5 (the
// rate x (TTL + 2 x interval) that the live set of a steady state keeps
// to is met only while the lag stays under two intervals, and the
// catch-up level would climb only once it is over them, too late); from
// the floor on at least 2 and one more each time lag doubles, up to
// MaxCatchUp (full batches; beside writers paced by Duty when the
// catch-up level is lower) from 16 floors on. A reaper far behind expiry
// paces itself by how far behind it is, not by whether writers are
// active: a one-off backlog (documents that expired long before a pass,
// an index built on old dates, a DB reopened after downtime) beside a
// busy writer was reaped at a few thousand documents a second at level
// 0 and would not climb, since its lag shrinks as it goes
// (docs/batched-deletes.md §4.4; benchmarks/RESULTS.md, "busy17h"). As
// its lag comes down the visits become gentle again.
func backlogLevel(lag, floor time.Duration) int {
	interval := floor / 2
	switch {
	case floor <= 0 || lag < interval+interval/4:
		return 0
	case lag < interval+interval/2:
		return 1
	case lag < floor:
		return behindLevel
	}
	return max(behindLevel, min(bits.Len64(uint64(lag/floor)), MaxCatchUp))
}

// behindLevel is the least backlog level of a visit that starts half an
// interval or more behind a reaper that keeps up (backlogLevel): its
// gentle sub-batches hold four times the documents of level 0 and its
// pauses a quarter of their working time.
const behindLevel = 2

// Behind returns how many TTL indexes of the host's targets now are at
// a catch-up level above 0.
func (m *Monitor) Behind() int64 {
	var n int64
	for _, t := range m.host.Targets() {
		m.mu.Lock()
		if lw := m.low[t.Key]; lw != nil && lw.catchUp.level > 0 {
			n++
		}
		m.mu.Unlock()
	}
	return n
}
