package fuzz

// The capped and time-series parts of TestCrashTorture.
//
// Capped: worker 0 is the only writer of capped collection "cap" (4096
// bytes, max 12, so it wraps every few operations, evicting for size or
// for max): it inserts documents {_id: n, v: n, pad} with consecutive
// ids n, carried over from one life to the next, announced as
// "B 0 K cap 0 - id,id" and acknowledged with their count. A tailer
// goroutine follows the collection with tailable awaitData cursors
// through the Go API and reports every document it sees ("S sess id");
// after 136 CappedPositionLost (it fell behind the evictions) it opens a
// new session after the last id it saw. The parent checks:
//   - within a session the tailer sees consecutive ids (it never skips a
//     document: it fails with 136 instead), and only announced ones;
//   - after a reopen the collection holds consecutive ids a..b in
//     natural order (no acknowledged insert missing unless older than
//     every survivor, i.e. overwritten), b is at least the newest
//     acknowledged id and at most the newest announced one, a never
//     goes back (evicted documents do not return), every document the
//     tailer saw is there or was evicted, and count <= max (validate
//     checks the bytes, the ring and the index).
//
// Time-series: any worker inserts 1-4 measurements {t, meta, k: id, x}
// into "m" (expireAfterSeconds 30, buckets spanning 60 s), announced as
// "B w P m 0 - id@t,id@t". A bucket holding a measurement of time t has
// min in (t-60 s, t], so it expires at min+60 s+30 s > t+30 s: a
// measurement may be missing after a reopen only if the clock bound
// passed t+30 s; missing earlier means a bucket was deleted before its
// expiry. A measurement found missing never comes back.

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The special collections of the crash workload.
const (
	cappedColl   = "cap"
	cappedSize   = int32(4096)
	cappedMax    = 12
	tsColl       = "m"
	tsExpireSecs = 30
	tsSpanSecs   = int32(60)
)

// specialColl reports whether name is checked by the capped or
// time-series model rather than the document model.
func specialColl(name string) bool {
	return name == cappedColl || name == tsColl || strings.HasPrefix(name, "system.buckets.")
}

// createSpecial creates the capped and time-series collections (setup).
func createSpecial(ctx context.Context, d *engine.Database) error {
	if err := d.CreateCollection(ctx, cappedColl, bson.D{{Key: "capped", Value: true},
		{Key: "size", Value: cappedSize}, {Key: "max", Value: int32(cappedMax)}}); err != nil {
		return fmt.Errorf("create %s: %w", cappedColl, err)
	}
	if err := d.CreateCollection(ctx, tsColl, bson.D{
		{Key: "timeseries", Value: bson.D{{Key: "timeField", Value: "t"}, {Key: "metaField", Value: "meta"},
			{Key: "bucketMaxSpanSeconds", Value: tsSpanSecs}, {Key: "bucketRoundingSeconds", Value: tsSpanSecs}}},
		{Key: "expireAfterSeconds", Value: int32(tsExpireSecs)}}); err != nil {
		return fmt.Errorf("create %s: %w", tsColl, err)
	}
	return nil
}

// ---- child side ----

// cappedNextID returns the id after the newest document of the capped
// collection (1 when it is empty).
func cappedNextID(ctx context.Context, d *engine.Database) (int64, error) {
	cur, err := d.Collection(cappedColl).Find(ctx, bson.D{})
	if err != nil {
		return 0, err
	}
	docs, err := cur.All(ctx)
	if err != nil {
		return 0, err
	}
	next := int64(1)
	for _, dd := range docs {
		if id, _ := lookup(dd, "_id").(int64); id >= next {
			next = id + 1
		}
	}
	return next, nil
}

// tailer follows the capped collection forever, reporting what it sees.
func tailer(ctx context.Context, d *engine.Database, ack *acker) {
	coll := d.Collection(cappedColl)
	var last int64
	for sess := 1; ; sess++ {
		cur, err := coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gt", Value: last}}}},
			engine.FindOptions{Tailable: true, AwaitData: true})
		if err != nil {
			fatalChild(ack, "tail: %v", err)
		}
		for cur.Next(ctx) {
			id, ok := lookup(cur.Current, "_id").(int64)
			if !ok {
				fatalChild(ack, "tail: document without an int64 _id: %v", cur.Current)
			}
			ack.line("S %d %d", sess, id)
			last = id
		}
		if err := cur.Err(); err != nil && document.CodeOf(err) != document.CodeCappedPositionLost {
			fatalChild(ack, "tail: %v", err)
		}
		// Fell behind (136) or started on an empty ring (a dead cursor):
		// a new session. Pace the retry on an empty ring.
		time.Sleep(time.Millisecond)
	}
}

// cappedStep inserts 1-3 documents into the capped collection (worker 0).
func (w *childWorker) cappedStep(ctx context.Context, d *engine.Database, ack *acker) {
	r := w.rng
	n := 1 + r.IntN(3)
	docs := make([]any, n)
	ids := make([]string, n)
	for i := range docs {
		id := w.capNext + int64(i)
		docs[i] = bson.D{{Key: "_id", Value: id}, {Key: "v", Value: id}, {Key: "pad", Value: strings.Repeat("c", 20+r.IntN(330))}}
		ids[i] = strconv.FormatInt(id, 10)
	}
	ack.line("B %d K %s 0 - %s", w.w, cappedColl, strings.Join(ids, ","))
	res, err := d.Collection(cappedColl).InsertMany(ctx, docs, true)
	if err != nil {
		fatalChild(ack, "capped insert: %v", err)
	}
	ack.line("A %d %d", w.w, len(res.InsertedIDs))
	w.capNext += int64(n)
}

// tsStep inserts 1-4 measurements, up to 40 s old, into "m".
func (w *childWorker) tsStep(ctx context.Context, d *engine.Database, clk *childClock, ack *acker) {
	r := w.rng
	now := clk.Now()
	n := 1 + r.IntN(4)
	docs := make([]any, n)
	list := make([]string, n)
	for i := range docs {
		w.next++
		id := w.base + w.next
		t := now.Add(-time.Duration(r.IntN(40_000)) * time.Millisecond)
		docs[i] = bson.D{{Key: "t", Value: bson.NewDateTimeFromTime(t)}, {Key: "meta", Value: fmt.Sprintf("s%d", r.IntN(3))},
			{Key: "k", Value: id}, {Key: "x", Value: r.Float64()}}
		list[i] = fmt.Sprintf("%d@%d", id, t.UnixMilli())
	}
	ack.line("B %d P %s 0 - %s", w.w, tsColl, strings.Join(list, ","))
	res, err := d.Collection(tsColl).InsertMany(ctx, docs, r.IntN(2) == 0)
	if err != nil {
		fatalChild(ack, "time-series insert: %v", err)
	}
	ack.line("A %d %d", w.w, len(res.InsertedIDs))
}

// ---- parent side ----

// specialModel is what the parent knows of the capped and time-series
// collections.
type specialModel struct {
	capAcked     int64           // newest acknowledged capped id (0: none)
	capAnnounced int64           // newest announced capped id
	capFirst     int64           // oldest id found at the last check (0: none)
	tailLast     map[int]int64   // last id per tailer session, this life
	tailMax      int64           // newest id any tailer saw
	tailSeen     int             // documents the tailers saw, all lives
	tsDocs       map[int64]tsDoc // measurements by k
	capChecked   int             // capped documents checked present, all lives
	tsChecked    int             // measurements checked, all lives
	tsExpired    int             // measurements found expired, all lives
}

type tsDoc struct {
	t      int64 // time, ms
	exists bool
}

func newSpecialModel() specialModel {
	return specialModel{tailLast: map[int]int64{}, tsDocs: map[int64]tsDoc{}}
}

// parseSpecialIntent parses the id list of a P intent ("id@ms,...").
func parseSpecialIntent(in *intent, list string) error {
	for _, x := range strings.Split(list, ",") {
		a, b, ok := strings.Cut(x, "@")
		id, err1 := strconv.ParseInt(a, 10, 64)
		t, err2 := strconv.ParseInt(b, 10, 64)
		if !ok || err1 != nil || err2 != nil {
			return fmt.Errorf("bad measurement %q", x)
		}
		in.ids = append(in.ids, id)
		in.times = append(in.times, t)
	}
	return nil
}

// tailLine applies "S sess id". The caller holds m.mu.
func (m *model) tailLine(f []string) error {
	if len(f) != 3 {
		return fmt.Errorf("bad tail line %v", f)
	}
	sess, err1 := strconv.Atoi(f[1])
	id, err2 := strconv.ParseInt(f[2], 10, 64)
	if err1 != nil || err2 != nil {
		return fmt.Errorf("bad tail line %v", f)
	}
	sp := &m.sp
	if last, ok := sp.tailLast[sess]; ok && id != last+1 {
		m.fail(true, "tailer session %d saw capped id %d after %d: it skipped documents (it must fail with 136 instead)", sess, id, last)
	}
	if id > sp.capAnnounced {
		m.fail(false, "tailer saw capped id %d, never announced (newest %d)", id, sp.capAnnounced)
	}
	sp.tailLast[sess] = id
	sp.tailMax = max(sp.tailMax, id)
	sp.tailSeen++
	return nil
}

// ackSpecial records an acknowledged K or P intent. The caller holds m.mu.
func (m *model) ackSpecial(in *intent, n int64) {
	sp := &m.sp
	if n != int64(len(in.ids)) {
		m.fail(false, "%s insert of %d documents acknowledged %d", in.coll, len(in.ids), n)
	}
	switch in.op {
	case "K":
		sp.capAcked = max(sp.capAcked, in.ids[len(in.ids)-1])
	case "P":
		for i, id := range in.ids {
			sp.tsDocs[id] = tsDoc{t: in.times[i], exists: true}
		}
	}
}

// announceSpecial notes an announced K intent. The caller holds m.mu.
func (m *model) announceSpecial(in *intent) {
	if in.op == "K" {
		m.sp.capAnnounced = max(m.sp.capAnnounced, in.ids[len(in.ids)-1])
	}
}

// checkSpecial compares the reopened capped and time-series collections
// with the model and resolves the in-flight operations. The caller holds
// m.mu.
func (m *model) checkSpecial(ctx context.Context, d *engine.Database, clock int64) error {
	sp := &m.sp
	// Capped.
	cur, err := d.Collection(cappedColl).Find(ctx, bson.D{})
	if err != nil {
		return err
	}
	docs, err := cur.All(ctx)
	if err != nil {
		return err
	}
	ids := make([]int64, 0, len(docs))
	for i, dd := range docs {
		id, _ := lookup(dd, "_id").(int64)
		if v, _ := lookup(dd, "v").(int64); v != id {
			m.fail(false, "capped document %d has v %d", id, v)
		}
		if i > 0 && id != ids[i-1]+1 {
			m.fail(true, "capped collection holds %d then %d: the documents between are missing but newer than surviving ones (natural order %v)", ids[i-1], id, capList(ids, id))
		}
		ids = append(ids, id)
	}
	if len(ids) > cappedMax {
		m.fail(false, "capped collection holds %d documents, more than max %d", len(ids), cappedMax)
	}
	if len(ids) == 0 {
		if sp.capAcked > 0 {
			m.fail(true, "capped collection is empty; acknowledged inserts up to id %d", sp.capAcked)
		}
	} else {
		a, b := ids[0], ids[len(ids)-1]
		if b < sp.capAcked {
			m.fail(true, "capped collection ends at id %d; acknowledged inserts up to id %d (the newest is never evicted)", b, sp.capAcked)
		}
		if b > sp.capAnnounced {
			m.fail(false, "capped collection holds id %d, never announced (newest %d)", b, sp.capAnnounced)
		}
		if a < sp.capFirst {
			m.fail(false, "capped collection starts at id %d, but %d was already the oldest: evicted documents are back", a, sp.capFirst)
		}
		if sp.tailMax > b {
			m.fail(true, "the tailer saw capped id %d, but the collection ends at %d after reopening: a write seen by a reader was lost", sp.tailMax, b)
		}
		sp.capFirst, sp.capAcked, sp.capAnnounced = a, b, b
		sp.capChecked += len(ids)
	}
	sp.tailLast = map[int]int64{}
	sp.tailMax = 0

	// Time-series.
	cur, err = d.Collection(tsColl).Find(ctx, bson.D{})
	if err != nil {
		return err
	}
	docs, err = cur.All(ctx)
	if err != nil {
		return err
	}
	pendingTS := map[int64]int64{}
	for _, in := range m.pending {
		if in.op == "P" {
			for i, id := range in.ids {
				pendingTS[id] = in.times[i]
			}
		}
	}
	found := map[int64]int64{}
	for _, dd := range docs {
		id, _ := lookup(dd, "k").(int64)
		t, _ := lookup(dd, "t").(bson.DateTime)
		if _, dup := found[id]; dup {
			m.fail(false, "measurement %d found twice", id)
		}
		found[id] = int64(t)
	}
	keys := make([]int64, 0, len(found)+len(sp.tsDocs))
	for id := range found {
		keys = append(keys, id)
	}
	for id := range sp.tsDocs {
		if _, ok := found[id]; !ok {
			keys = append(keys, id)
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, id := range keys {
		s, known := sp.tsDocs[id]
		t, ok := found[id]
		sp.tsChecked++
		switch {
		case ok && known && s.exists:
			if t != s.t {
				m.fail(false, "measurement %d has time %d, acknowledged %d", id, t, s.t)
			}
		case ok && known:
			m.fail(false, "measurement %d is back after its bucket was found expired", id)
		case ok:
			pt, pend := pendingTS[id]
			if !pend {
				m.fail(false, "measurement %d was never written but exists", id)
			} else if pt != t {
				m.fail(false, "measurement %d has time %d, announced %d", id, t, pt)
			}
		case known && s.exists:
			if clock <= s.t+tsExpireSecs*1000 {
				m.fail(true, "measurement %d (time %d) is missing, but its bucket expires after %d and the clock bound is %d: bucket deleted before its expiry",
					id, s.t, s.t+tsExpireSecs*1000, clock)
			}
			sp.tsExpired++
		}
		if ok {
			sp.tsDocs[id] = tsDoc{t: t, exists: true}
		} else {
			sp.tsDocs[id] = tsDoc{t: s.t}
		}
	}
	for id, t := range pendingTS {
		if _, ok := found[id]; !ok {
			sp.tsDocs[id] = tsDoc{t: t} // never acknowledged, not written: must not appear later
		}
	}
	return nil
}

func capList(ids []int64, next int64) string {
	if len(ids) > 20 {
		ids = ids[len(ids)-20:]
	}
	return fmt.Sprint(append(append([]int64(nil), ids...), next))
}
