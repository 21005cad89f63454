package engine

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cappedCrashEnv names the data directory of TestCappedCrashChild;
// cappedCrashSecEnv, when set, makes the child index the collection on
// {i: 1} (unique) and {tag: 1}, update tags in place as it goes, and
// grow some documents beyond their records (kept outside the ring).
// cappedCrashDelEnv, when set, makes it also delete the documents whose
// i is a multiple of 11 once four newer ones are in (i <= ack-4).
const (
	cappedCrashEnv    = "TTLKV_CAPPED_CRASH_DIR"
	cappedCrashSecEnv = "TTLKV_CAPPED_CRASH_SECONDARY"
	cappedCrashDelEnv = "TTLKV_CAPPED_CRASH_DELETE"
)

// TestCappedCrashChild is the process TestCappedKilledWhileWrapping
// kills: it inserts into a small capped collection forever, numbering
// documents on from the newest one there, and prints "ack N" after each
// insert returns.
func TestCappedCrashChild(t *testing.T) {
	dir := os.Getenv(cappedCrashEnv)
	if dir == "" {
		t.Skip("run by TestCappedKilledWhileWrapping")
	}
	db, err := Open(dir, Options{DisableTTLMonitor: true})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(2)
	}
	ctx := context.Background()
	c := db.Database("test").Collection("c")
	if !c.IsCapped() {
		if err := db.Database("test").CreateCollection(ctx, "c", bson.D{{Key: "capped", Value: true}, {Key: "size", Value: int64(16384)}}); err != nil {
			fmt.Println("error", err)
			os.Exit(2)
		}
		if os.Getenv(cappedCrashSecEnv) != "" {
			_, err := c.CreateIndexes(ctx, []bson.D{
				{{Key: "key", Value: bson.D{{Key: "i", Value: int32(1)}}}, {Key: "name", Value: "i_1"}, {Key: "unique", Value: true}},
				{{Key: "key", Value: bson.D{{Key: "tag", Value: int32(1)}}}, {Key: "name", Value: "tag_1"}},
			})
			if err != nil {
				fmt.Println("error", err)
				os.Exit(2)
			}
		}
	}
	secondary := os.Getenv(cappedCrashSecEnv) != ""
	deletes := os.Getenv(cappedCrashDelEnv) != ""
	delNext := int64(0) // the next multiple of 11 to delete (again after a restart: a no-op)
	next := int64(0)
	if d, err := c.FindOne(ctx, nil, FindOptions{Sort: bson.D{{Key: "$natural", Value: -1}}}); err == nil {
		next = field(d, "i").(int64) + 1
	}
	out := bufio.NewWriter(os.Stdout)
	for i := next; ; i++ {
		pad := strings.Repeat("p", int(i%97))
		tag := func(i int64) string { return fmt.Sprintf("t%02d", i%50) }
		// Some inserts are batches, so a kill can land inside one.
		var err error
		if i%5 == 0 {
			_, err = c.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: i}, {Key: "i", Value: i}, {Key: "tag", Value: tag(i)}, {Key: "pad", Value: pad}},
				bson.D{{Key: "_id", Value: i + 1}, {Key: "i", Value: i + 1}, {Key: "tag", Value: tag(i + 1)}}}, true)
			i++
		} else {
			_, err = c.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "i", Value: i}, {Key: "tag", Value: tag(i)}, {Key: "pad", Value: pad}})
		}
		if err == nil && secondary && i%7 == 0 {
			// Same size, new tag key: the entries move before the ring
			// record is rewritten; a kill may land in between.
			_, err = c.UpdateOne(ctx, bson.D{{Key: "_id", Value: i - 3}}, bson.D{{Key: "$set", Value: bson.D{{Key: "tag", Value: "u" + tag(i)[1:]}}}}, false)
		}
		if err == nil && secondary && i%13 == 0 {
			// Beyond the record's space: the document goes outside the
			// ring, its record points at it; a kill may land between the
			// copy's write and the record's rewrite, or before an evicted
			// or deleted record's copy is removed.
			_, err = c.UpdateOne(ctx, bson.D{{Key: "_id", Value: i - 5}}, bson.D{{Key: "$set", Value: bson.D{{Key: "grown", Value: strings.Repeat("g", 100+int(i%150))}}}}, false)
		}
		for ; err == nil && deletes && delNext <= i-4; delNext += 11 {
			_, err = c.DeleteOne(ctx, bson.D{{Key: "_id", Value: delNext}})
		}
		if err != nil {
			fmt.Fprintln(out, "error", err)
			out.Flush()
			os.Exit(2)
		}
		fmt.Fprintln(out, "ack", i)
		out.Flush()
	}
}

// After SIGKILL during inserts into a wrapping capped collection, every
// acknowledged insert not yet overwritten is there, in order, the _id
// index matches the ring, and inserting continues.
func TestCappedKilledWhileWrapping(t *testing.T) {
	t.Parallel()
	cappedKilledWhileWrapping(t, false)
}

// The same with secondary indexes ({i: 1} unique, {tag: 1}) and in-place
// updates of indexed tags: after each kill, validate finds every index
// matching the ring and lookups through both indexes find the live
// documents.
func TestCappedKilledWhileWrappingSecondary(t *testing.T) {
	t.Parallel()
	cappedKilledWhileWrapping(t, true)
}

// The same with deletes beside the updates: after each kill, every
// acknowledged delete is gone, every other acknowledged insert not yet
// overwritten is there, and validate and the indexes agree.
func TestCappedKilledWhileWrappingDeletes(t *testing.T) {
	t.Parallel()
	cappedKilledWhileWrapping(t, true, true)
}

func cappedKilledWhileWrapping(t *testing.T, secondary bool, deletes ...bool) {
	del := len(deletes) > 0 && deletes[0]
	if testing.Short() {
		t.Skip("spawns processes")
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	dir := t.TempDir()
	lastAck := int64(-1)
	killSpread := 400
	if raceOn {
		killSpread = 150
	}
	for round := 0; round < 3; round++ {
		env := []string{cappedCrashEnv + "=" + dir}
		if secondary {
			env = append(env, cappedCrashSecEnv+"=1")
		}
		if del {
			env = append(env, cappedCrashDelEnv+"=1")
		}
		cmd, sc := startCrashChild(t, "TestCappedCrashChild", env...)
		// Under the race detector the child (the same binary) writes
		// 5-20x slower: a kill after 50 to 199 acknowledged writes
		// instead of 50 to 449; three rounds of them still wrap the
		// ring of about a hundred records.
		killAfter := 50 + rng.IntN(killSpread)
		acks := 0
		for sc.Scan() {
			line := sc.Text()
			if n, ok := strings.CutPrefix(line, "ack "); ok {
				v, err := strconv.ParseInt(n, 10, 64)
				if err != nil {
					t.Fatalf("child said %q", line)
				}
				if v <= lastAck {
					t.Fatalf("round %d: child acknowledged %d after %d", round, v, lastAck)
				}
				lastAck = v
				acks++
				if acks == killAfter {
					cmd.Process.Signal(syscall.SIGKILL)
				}
			} else if strings.HasPrefix(line, "error") {
				t.Fatalf("round %d: child: %s", round, line)
			}
		}
		err := cmd.Wait()
		ws, _ := cmd.ProcessState.Sys().(syscall.WaitStatus)
		if err == nil || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
			t.Fatalf("round %d: child ended with %v after %d acks, not by SIGKILL", round, err, acks)
		}

		db, err := Open(dir, Options{DisableTTLMonitor: true})
		if err != nil {
			t.Fatalf("round %d: reopen: %v", round, err)
		}
		mustValidate(t, db, "test", "c")
		got := ints(t, findAll(t, db, "test", "c", nil))
		if len(got) == 0 {
			t.Fatalf("round %d: nothing survived (last ack %d)", round, lastAck)
		}
		hi := got[len(got)-1]
		kept := got
		if del {
			// Multiples of 11 up to lastAck-4 were deleted; newer ones
			// may or may not have been when the kill came.
			kept = nil
			for _, v := range got {
				if v%11 == 0 && v <= lastAck-4 {
					t.Fatalf("round %d: %d is there, its delete was acknowledged (last ack %d)", round, v, lastAck)
				}
				if v%11 != 0 {
					kept = append(kept, v)
				}
			}
			var want []int64
			for v := got[0]; v <= hi; v++ {
				if v%11 != 0 {
					want = append(want, v)
				}
			}
			if !equalInts(kept, want) {
				t.Fatalf("round %d: documents %v, want all but multiples of 11 in %d..%d", round, got, got[0], hi)
			}
		}
		if (!del && !consecutive(got, got[0], hi)) || hi < lastAck || hi > lastAck+2 {
			t.Fatalf("round %d: documents %d..%d (%d, consecutive %v) after last ack %d", round, got[0], hi, len(got), consecutive(got, got[0], hi), lastAck)
		}
		for _, id := range []int64{got[0], hi, lastAck} {
			if n := len(findAll(t, db, "test", "c", bson.D{{Key: "_id", Value: id}})); n != 1 {
				t.Fatalf("round %d: _id %d found %d times through the index", round, id, n)
			}
		}
		if secondary {
			for _, id := range []int64{got[0], hi, lastAck} {
				o := FindOptions{Hint: "i_1"}
				if n := len(findOpts(t, db.Database("test").Collection("c"), bson.D{{Key: "i", Value: id}}, o)); n != 1 {
					t.Fatalf("round %d: i %d found %d times through i_1", round, id, n)
				}
			}
			var byTag int
			for k := int64(0); k < 50; k++ {
				for _, p := range []string{"t", "u"} {
					f := bson.D{{Key: "tag", Value: fmt.Sprintf("%s%02d", p, k)}}
					byTag += len(findOpts(t, db.Database("test").Collection("c"), f, FindOptions{Hint: "tag_1"}))
				}
			}
			if byTag != len(got) {
				t.Fatalf("round %d: tag_1 finds %d documents, the ring holds %d", round, byTag, len(got))
			}
		}
		lastAck = hi // an unacknowledged insert that survived is kept
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
