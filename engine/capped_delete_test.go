package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/capped"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// popcount returns the set's tombstones by counting its bits, to check
// the running count against.
func (t *cappedTombs) popcount() int64 {
	t.mu.Lock()
	defer t.mu.Unlock()
	var c int64
	for i := 0; i < t.nw; i++ {
		for w := *t.word(i); w != 0; w &= w - 1 {
			c++
		}
	}
	return c
}

// tombsMemBound is the most memory the set may hold when its tombstones
// span span sequences: at most span/64+2 words in use (the two ends'
// words partly), in a buffer at most four times that, of 8 bytes a word.
func tombsMemBound(span int64) int64 { return 32 * (span/64 + 2) }

// cappedTombs against a model, as the ring drives it: deletes anywhere
// in a sliding window of live records, in any order and repeated (a
// repeat is ignored), and evictions of the oldest records, each handed
// to Evict with its length whether deleted or not. The running count
// and bytes, Has on and around the window, and the memory bound hold
// after every round. A failure names the seed.
func TestCappedTombs(t *testing.T) {
	t.Parallel()
	for seed := uint64(1); seed <= 4; seed++ {
		rng := rand.New(rand.NewPCG(seed, 30))
		var tb cappedTombs
		model := map[uint64]int64{}
		length := func(seq uint64) int64 { return int64(seq%13 + 1) }
		first, next := uint64(1), uint64(1) // the live window [first, next)
		for round := 0; round < 300; round++ {
			next += uint64(rng.IntN(300))
			for j := rng.IntN(200); j > 0 && next > first; j-- {
				seq := first + uint64(rng.Int64N(int64(next-first)))
				if _, ok := model[seq]; !ok {
					model[seq] = length(seq)
				}
				tb.add(seq, int(length(seq)))
			}
			for evict := min(uint64(rng.IntN(250)), next-first); evict > 0; evict-- {
				tb.Evict(first, length(first))
				delete(model, first)
				first++
			}
			var wantB int64
			for _, b := range model {
				wantB += b
			}
			if n, b := tb.Live(); n != int64(len(model)) || b != wantB || tb.popcount() != n {
				t.Fatalf("seed %d round %d: Live %d tombstones of %d bytes (%d bits), want %d of %d", seed, round, n, b, tb.popcount(), len(model), wantB)
			}
			for s := first - min(first, 70); s < next+70; s++ {
				if _, ok := model[s]; tb.Has(s) != ok {
					t.Fatalf("seed %d round %d: Has(%d) = %v", seed, round, s, !ok)
				}
			}
			if m, bound := tb.memBytes(), tombsMemBound(int64(next-first)); m > bound {
				t.Fatalf("seed %d round %d: %d bytes for a window of %d records, want at most %d", seed, round, m, next-first, bound)
			}
		}
	}
}

// A ring used as a stack deletes from its newest end: tombstones come
// newest first. Each add prepends at most one word to the set's
// circular buffer, so 200,000 of them backwards cost O(1) each, as
// forwards do (a sorted slice shifted its whole tail at each add).
func TestCappedTombsBackwards(t *testing.T) {
	t.Parallel()
	const n = 200_000
	var tb cappedTombs
	for seq := uint64(n); seq >= 1; seq-- {
		tb.add(seq, 10)
	}
	if c, b := tb.Live(); c != n || b != 10*n {
		t.Fatalf("live %d of %d bytes, want %d of %d", c, b, n, 10*n)
	}
	if !tb.Has(1) || !tb.Has(n) || tb.Has(n+1) || tb.Has(0) {
		t.Fatal("Has at the ends")
	}
	for seq := uint64(1); seq <= n/2; seq++ {
		tb.Evict(seq, 10)
	}
	if c, b := tb.Live(); c != n/2 || b != 10*n/2 {
		t.Fatalf("after evicting the older half: %d of %d bytes", c, b)
	}
	if tb.Has(n/2) || !tb.Has(n/2+1) {
		t.Fatal("Has around the evicted half")
	}
	for seq := uint64(n/2 + 1); seq <= n; seq++ {
		tb.Evict(seq, 10)
	}
	if c, b := tb.Live(); c != 0 || b != 0 || tb.memBytes() != 0 {
		t.Fatalf("after evicting all: %d of %d bytes, %d bytes of memory", c, b, tb.memBytes())
	}
}

// The set's memory is bounded by the ring's record count, not by the
// deletes, by its own accounting: a ring of a million records all
// deleted (in one order or the other) takes about an eighth of a byte a
// record, where a map and a heap took about 30 bytes a tombstone (30 MB
// here; 160 MB for 1 GiB of 200-byte documents, against issue 17's
// 32 MiB). A ring turning over with every record deleted, or one in a
// thousand, stays within the bound over ten laps, and an emptied set
// holds nothing.
func TestCappedTombsMemory(t *testing.T) {
	t.Parallel()
	const records = 1_000_000
	for _, backwards := range []bool{false, true} {
		var tb cappedTombs
		for i := uint64(0); i < records; i++ {
			seq := 1 + i
			if backwards {
				seq = records - i
			}
			tb.add(seq, 200)
		}
		m := tb.memBytes()
		t.Logf("backwards=%v: %d tombstones in %d bytes (%.3f a record)", backwards, records, m, float64(m)/records)
		if bound := int64(records/4 + 64); m > bound {
			t.Errorf("backwards=%v: %d bytes for %d tombstones, want at most %d", backwards, m, records, bound)
		}
	}
	for _, every := range []uint64{1, 1000} {
		const window = 100_000
		var tb cappedTombs
		bound := tombsMemBound(window)
		var peak int64
		for seq := uint64(1); seq <= 10*window; seq++ {
			if seq > window { // the ring evicts its oldest record to append seq
				tb.Evict(seq-window, 200)
			}
			if seq%every == 0 {
				tb.add(seq, 200)
			}
			peak = max(peak, tb.memBytes())
		}
		if n, _ := tb.Live(); n != int64(window/every) {
			t.Fatalf("every %d: %d tombstones live, want %d", every, n, window/every)
		}
		t.Logf("every %d deleted: peak %d bytes for %d records", every, peak, window)
		if peak > bound {
			t.Errorf("every %d deleted: peak %d bytes for a ring of %d records, want at most %d", every, peak, window, bound)
		}
		for seq := uint64(9*window + 1); seq <= 10*window; seq++ {
			tb.Evict(seq, 200)
		}
		if tb.memBytes() != 0 {
			t.Fatalf("every %d: emptied set holds %d bytes", every, tb.memBytes())
		}
	}
}

// A capped collection whose every document is deleted: the tombstones'
// set is bounded by the ring's records, the counts are those of the
// live documents before and after a reopen (which finds the tombstones
// again), and inserts that wrap the ring evict the tombstones from the
// set, down to an empty set holding no memory.
func TestCappedDeleteAllMemory(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	db, clk, dir := openTest(t)
	c := createCapped(t, db, "c", 256<<10, 0)
	insert := func(from, to int) {
		t.Helper()
		batch := make([]any, 0, to-from)
		for i := from; i < to; i++ {
			batch = append(batch, bson.D{{Key: "_id", Value: int32(i)}, {Key: "pad", Value: fmt.Sprintf("%0180d", i)}})
		}
		if _, err := c.InsertMany(ctx, batch, true); err != nil {
			t.Fatal(err)
		}
	}
	insert(0, 2000) // wraps: about 1100 fit
	st, err := cappedOf(db.lookup("test", "c"))
	if err != nil {
		t.Fatal(err)
	}
	records := st.ring.Count()
	// Delete newest first, one at a time, as a stack is popped.
	all := findAll(t, db, "test", "c", nil)
	for i := len(all) - 1; i >= 0; i-- {
		mustRun(t, db, "test", fmt.Sprintf(`{"delete": "c", "deletes": [{"q": {"_id": %d}, "limit": 1}]}`, int32IDs(t, all[i:i+1])[0]))
	}
	// Every document's payload has the same length.
	per := st.ring.DataBytes() / records
	checkTombs := func(label string, wantTombs int64) {
		t.Helper()
		st, err := cappedOf(db.lookup("test", "c"))
		if err != nil {
			t.Fatal(err)
		}
		n, b := st.tombs.Live()
		if n != wantTombs || st.tombs.popcount() != n || b != wantTombs*per {
			t.Fatalf("%s: %d tombstones (%d bits) of %d bytes, want %d of %d", label, n, st.tombs.popcount(), b, wantTombs, wantTombs*per)
		}
		if m := st.tombs.memBytes(); m > tombsMemBound(st.ring.Count()) {
			t.Fatalf("%s: %d bytes of memory for a ring of %d records, want at most %d", label, m, st.ring.Count(), tombsMemBound(st.ring.Count()))
		}
	}
	if st.ring.DataBytes() != records*per {
		t.Fatalf("%d bytes in %d records: payloads differ in length", st.ring.DataBytes(), records)
	}
	checkTombs("all deleted", records)
	checkCappedCounts(t, db, 0)
	db = reopen(t, db, dir, clk)
	c = db.Database("test").Collection("c")
	checkTombs("reopened", records)
	checkCappedCounts(t, db, 0)
	insert(2000, 2100)
	st, _ = cappedOf(db.lookup("test", "c"))
	checkTombs("100 inserted", st.ring.Count()-100)
	checkCappedCounts(t, db, 100)
	insert(2100, 4000)
	checkTombs("wrapped past every tombstone", 0)
	checkCappedCounts(t, db, st.ring.Count())
	if m := st.tombs.memBytes(); m != 0 {
		t.Fatalf("no tombstone left: %d bytes of memory", m)
	}
	mustValidate(t, db, "test", "c")
}

// checkTombsMatchRing checks the tombstone set of capped collection
// name against its ring: a record is in the set exactly when it is a
// tombstone, the running count and bytes are theirs, and the set's
// memory is within the bound for the ring's records.
func checkTombsMatchRing(t *testing.T, db *DB, name, label string) {
	t.Helper()
	st, err := cappedOf(db.lookup("test", name))
	if err != nil {
		t.Fatal(err)
	}
	var n, b int64
	err = st.ring.ReadRun(0, func(rec capped.Record) bool {
		dead := cappedDeleted(rec.Data)
		if dead {
			n++
			b += int64(len(rec.Data))
		}
		if st.tombs.Has(rec.Seq) != dead {
			t.Fatalf("%s: record %d tombstone %v, in the set %v", label, rec.Seq, dead, !dead)
		}
		return true
	})
	if err != nil {
		t.Fatal(err)
	}
	if gn, gb := st.tombs.Live(); gn != n || gb != b || st.tombs.popcount() != n {
		t.Fatalf("%s: set holds %d tombstones of %d bytes (%d bits), the ring %d of %d", label, gn, gb, st.tombs.popcount(), n, b)
	}
	if m, bound := st.tombs.memBytes(), tombsMemBound(st.ring.Count()); m > bound {
		t.Fatalf("%s: %d bytes of memory for a ring of %d records, want at most %d", label, m, st.ring.Count(), bound)
	}
}

// Random inserts of varying sizes and deletes of random live documents
// (oldest, newest or anywhere, one at a time or many) in a collection
// that wraps, with a reopen halfway: after every step the tombstone
// set is exactly the ring's tombstones, and count is the live
// documents. A failure names the seed.
func TestCappedTombsRandom(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for seed := uint64(1); seed <= 2; seed++ {
		rng := rand.New(rand.NewPCG(seed, 17))
		db, clk, dir := openTest(t)
		c := createCapped(t, db, "r", 64<<10, 0)
		next := 0
		var maxTombs int64
		var wrapped bool
		for step := 0; step < 120; step++ {
			label := fmt.Sprintf("seed %d step %d", seed, step)
			if step == 60 {
				db = reopen(t, db, dir, clk)
				c = db.Database("test").Collection("r")
				checkTombsMatchRing(t, db, "r", label+" reopened")
			}
			switch rng.IntN(3) {
			case 0:
				k := 1 + rng.IntN(40)
				batch := make([]any, k)
				for i := range batch {
					batch[i] = bson.D{{Key: "_id", Value: int32(next)}, {Key: "pad", Value: strings.Repeat("p", 20+rng.IntN(300))}}
					next++
				}
				if _, err := c.InsertMany(ctx, batch, true); err != nil {
					t.Fatal(err)
				}
			default:
				ids := int32IDs(t, findAll(t, db, "test", "r", nil))
				if len(ids) == 0 {
					continue
				}
				var id int32
				switch rng.IntN(3) {
				case 0:
					id = ids[0]
				case 1:
					id = ids[len(ids)-1]
				default:
					id = ids[rng.IntN(len(ids))]
				}
				if rng.IntN(4) == 0 { // many at once: every _id at or above id
					mustRun(t, db, "test", fmt.Sprintf(`{"delete": "r", "deletes": [{"q": {"_id": {"$gte": %d}}, "limit": 0}]}`, id))
				} else {
					mustRun(t, db, "test", fmt.Sprintf(`{"delete": "r", "deletes": [{"q": {"_id": %d}, "limit": 1}]}`, id))
				}
			}
			checkTombsMatchRing(t, db, "r", label)
			if st, _ := cappedOf(db.lookup("test", "r")); st != nil {
				n, _ := st.tombs.Live()
				maxTombs = max(maxTombs, n)
				wrapped = st.ring.FirstSeq() > 1
			}
			live := int64(len(findAll(t, db, "test", "r", nil)))
			if got := count(t, db, "test", "r"); got != live {
				t.Fatalf("%s: count %d, %d documents found", label, got, live)
			}
		}
		if !wrapped || maxTombs < 10 {
			t.Fatalf("seed %d: the ring wrapped %v, at most %d tombstones at once: the run tested little", seed, wrapped, maxTombs)
		}
		t.Logf("seed %d: up to %d tombstones at once", seed, maxTombs)
	}
}
