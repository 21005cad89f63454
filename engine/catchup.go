package engine

import (
	"time"

	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Catching up. Beside active writers the TTL reaper is gentle
// (runPipelined): small sub-batches and a pause as long as each
// contended one took, so a writer keeps most of its throughput. A
// writer that never lets up and inserts documents that expire soon
// would then outrun it, and the expired documents would pile up
// without bound. So each TTL index's reaper watches its lag: how long
// ago the oldest expired document it has yet to delete expired, taken
// at the start of each visit. A lag that keeps growing means expiry is
// outpacing the reaper; it then climbs a catch-up level, at which its
// sub-batches are twice as large and its pauses half as long as at the
// level below. Once it has caught up it is gentle again.
//
// A one-off backlog (an old batch of documents expiring together, or a
// database reopened after downtime) does not climb: the reaper works
// through it oldest first, so its lag shrinks as it goes.
const (
	// maxCatchUp is the highest level: 128-document sub-batches and
	// pauses a sixteenth as long as the sub-batch (about 94% of the
	// time reaping while writers are active, against 50% at level 0).
	maxCatchUp = 4
	// catchUpWindow is how much clock time a lag is compared over.
	catchUpWindow = 5 * time.Second
	// catchUpGrowth: a lag that grew by more than this share of the
	// window's time is losing ground (the reaper deletes less than
	// about 90% of what expires meanwhile).
	catchUpGrowth = 10
)

// catchUp is a TTL index's catch-up state (in lowWater, under mo.mu).
type catchUp struct {
	level  int
	refLag time.Duration // the lag the next comparison is made against
	refAt  bson.DateTime // clock time of refLag
	hasRef bool
}

// catchUpFloor is the lag below which a reaper counts as caught up:
// twice the monitor's interval, since a reaper that keeps up still
// leaves up to one interval of expired documents between passes.
func (db *DB) catchUpFloor() time.Duration {
	return 2 * time.Duration(db.params.int("ttlMonitorSleepSecs")) * time.Second
}

// step moves the state with lag, observed at clock time now, and
// returns the new level.
func (cu *catchUp) step(lag time.Duration, now bson.DateTime, floor time.Duration) int {
	switch {
	case lag <= floor:
		cu.level, cu.refLag, cu.refAt, cu.hasRef = 0, lag, now, true
	case !cu.hasRef || now < cu.refAt:
		cu.refLag, cu.refAt, cu.hasRef = lag, now, true
	case time.Duration(now-cu.refAt)*time.Millisecond >= catchUpWindow:
		elapsed := time.Duration(now-cu.refAt) * time.Millisecond
		if lag-cu.refLag > elapsed/catchUpGrowth && cu.level < maxCatchUp {
			cu.level++
		}
		cu.refLag, cu.refAt = lag, now
	}
	return cu.level
}

// oldestLag returns how long before cutoff the oldest date in the TTL
// index range [lo, hi) lies (0 if the range is empty): its first key,
// or for a descending index its last.
func oldestLag(txn *lsm.Txn, lo, hi []byte, prefixLen int, desc bool, cutoff bson.DateTime) time.Duration {
	it := txn.NewIter(lsm.IterOptions{Lower: lo, Upper: hi, KeysOnly: true, Reverse: desc})
	defer it.Close()
	if !it.Next() || len(it.Key()) < prefixLen {
		return 0
	}
	v, _, err := lsm.DecodeKey(it.Key()[prefixLen:], desc)
	if err != nil {
		return 0
	}
	d, ok := v.(bson.DateTime)
	if !ok || d > cutoff {
		return 0
	}
	return time.Duration(cutoff-d) * time.Millisecond
}

// noteLag steps the catch-up state of lw with the lag a visit found and
// returns the level the visit reaps at, logging a change.
func (db *DB) noteLag(lw *lowWater, lag time.Duration, now bson.DateTime, ns, index string) int {
	mo := db.mon
	mo.mu.Lock()
	was := lw.catchUp.level
	level := lw.catchUp.step(lag, now, db.catchUpFloor())
	mo.mu.Unlock()
	switch {
	case level > was:
		db.logf("ttl: %s index %s is %v behind and losing ground: reaping less gently (catch-up level %d)",
			ns, index, lag.Round(time.Millisecond), level)
	case level < was:
		db.logf("ttl: %s index %s has caught up", ns, index)
	}
	return level
}

// ttlBehind returns how many TTL indexes are at a catch-up level above
// 0 (of those that still exist).
func (db *DB) ttlBehind() int64 {
	var n int64
	for _, t := range db.ttlTargets() {
		if t.index == 0 {
			continue
		}
		db.mon.mu.Lock()
		if lw := db.mon.low[ttlKey{t.c.m().ID, t.index}]; lw != nil && lw.catchUp.level > 0 {
			n++
		}
		db.mon.mu.Unlock()
	}
	return n
}
