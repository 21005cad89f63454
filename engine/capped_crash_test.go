package engine

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cappedCrashEnv names the data directory of TestCappedCrashChild.
const cappedCrashEnv = "TTLKV_CAPPED_CRASH_DIR"

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
	}
	next := int64(0)
	if d, err := c.FindOne(ctx, nil, FindOptions{Sort: bson.D{{Key: "$natural", Value: -1}}}); err == nil {
		next = field(d, "i").(int64) + 1
	}
	out := bufio.NewWriter(os.Stdout)
	for i := next; ; i++ {
		pad := strings.Repeat("p", int(i%97))
		// Some inserts are batches, so a kill can land inside one.
		var err error
		if i%5 == 0 {
			_, err = c.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: i}, {Key: "i", Value: i}, {Key: "pad", Value: pad}},
				bson.D{{Key: "_id", Value: i + 1}, {Key: "i", Value: i + 1}}}, true)
			i++
		} else {
			_, err = c.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "i", Value: i}, {Key: "pad", Value: pad}})
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
	if testing.Short() {
		t.Skip("spawns processes")
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	dir := t.TempDir()
	lastAck := int64(-1)
	for round := 0; round < 3; round++ {
		cmd := exec.Command(os.Args[0], "-test.run=^TestCappedCrashChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), cappedCrashEnv+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		killAfter := 50 + rng.IntN(400)
		sc := bufio.NewScanner(stdout)
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
		err = cmd.Wait()
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
		if !consecutive(got, got[0], hi) || hi < lastAck || hi > lastAck+2 {
			t.Fatalf("round %d: documents %d..%d (%d, consecutive %v) after last ack %d", round, got[0], hi, len(got), consecutive(got, got[0], hi), lastAck)
		}
		for _, id := range []int64{got[0], hi, lastAck} {
			if n := len(findAll(t, db, "test", "c", bson.D{{Key: "_id", Value: id}})); n != 1 {
				t.Fatalf("round %d: _id %d found %d times through the index", round, id, n)
			}
		}
		lastAck = hi // an unacknowledged insert that survived is kept
		if err := db.Close(); err != nil {
			t.Fatal(err)
		}
	}
}
