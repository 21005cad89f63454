package wire

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// TestLoad64Clients runs 64 driver clients (half over TCP, half over the
// in-process dialer) mixing inserts, finds, a tailing cursor and TTL
// passes for a bounded time, then checks: no error, every acknowledged
// insert present, no connection, cursor or goroutine left behind.
func TestLoad64Clients(t *testing.T) {
	if testing.Short() {
		t.Skip("load test")
	}
	e := newEnv(t, Options{})
	ctx := context.Background()
	before := runtime.NumGoroutine()
	setup := e.client(t, true).Database("load")
	if err := setup.CreateCollection(ctx, "feed", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<22)); err != nil {
		t.Fatal(err)
	}
	// A tailable cursor on an empty capped collection is dead at once,
	// as in MongoDB: give the tailer a first document.
	if _, err := setup.Collection("feed").InsertOne(ctx, bson.D{{Key: "id", Value: "first"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := setup.Collection("ttl").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}},
		Options: options.Index().SetExpireAfterSeconds(1)}); err != nil {
		t.Fatal(err)
	}

	const clients = 64
	// 20 operations a client (five rounds of the four kinds) keep all
	// 64 clients' requests interleaved with the tailer and the TTL
	// passes; at 40 the finds' collection scans (of every client's
	// inserts so far) made the load test the package's slowest, about
	// 8 s quiet under -race, hitting the 20 s bound on a busy machine.
	perClient := 20
	if raceOn {
		// Under the race detector: two rounds of the four kinds, with
		// the same 64 clients, tailer and TTL passes interleaved.
		perClient = 8
	}
	deadline := time.Now().Add(20 * time.Second) // bound: stop early if the machine is slow
	var acked sync.Map
	var failures atomic.Int64
	var firstErr atomic.Value
	fail := func(err error) {
		failures.Add(1)
		firstErr.CompareAndSwap(nil, err)
	}
	var wg sync.WaitGroup
	var cls []*mongo.Client
	for i := range clients {
		cls = append(cls, e.client(t, i%2 == 1, func(o *options.ClientOptions) { o.SetMaxPoolSize(2) }))
	}
	// One tailer follows the capped feed.
	tailCtx, stopTail := context.WithCancel(ctx)
	var tailed atomic.Int64
	tailDone := make(chan struct{})
	go func() {
		defer close(tailDone)
		cur, err := cls[0].Database("load").Collection("feed").Find(tailCtx, bson.D{},
			options.Find().SetCursorType(options.TailableAwait).SetMaxAwaitTime(200*time.Millisecond))
		if err != nil {
			fail(err)
			return
		}
		defer cur.Close(context.Background())
		for cur.Next(tailCtx) {
			tailed.Add(1)
		}
	}()
	for i, cl := range cls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := cl.Database("load")
			for j := 0; j < perClient && time.Now().Before(deadline); j++ {
				id := fmt.Sprintf("c%d-%d", i, j)
				switch j % 4 {
				case 0, 1:
					if _, err := db.Collection("docs").InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "c", Value: i}}); err != nil {
						fail(err)
						continue
					}
					acked.Store(id, true)
				case 2:
					if _, err := db.Collection("feed").InsertOne(ctx, bson.D{{Key: "id", Value: id}}); err != nil {
						fail(err)
					}
					if _, err := db.Collection("ttl").InsertOne(ctx, bson.D{{Key: "at", Value: e.clock.Now()}}); err != nil {
						fail(err)
					}
				case 3:
					cur, err := db.Collection("docs").Find(ctx, bson.D{{Key: "c", Value: i}}, options.Find().SetBatchSize(5))
					if err != nil {
						fail(err)
						continue
					}
					var all []bson.M
					if err := cur.All(ctx, &all); err != nil {
						fail(err)
					}
					if i%16 == 0 {
						e.clock.Advance(time.Second)
						if err := cl.Database("admin").RunCommand(ctx, bson.D{{Key: "runTTLPass", Value: 1}}).Err(); err != nil {
							fail(err)
						}
					}
				}
			}
		}()
	}
	wg.Wait()
	stopTail()
	<-tailDone
	if n := failures.Load(); n > 0 {
		t.Fatalf("%d operations failed; first: %v", n, firstErr.Load())
	}
	count := 0
	acked.Range(func(k, _ any) bool {
		count++
		if err := setup.Collection("docs").FindOne(ctx, bson.D{{Key: "_id", Value: k}}).Err(); err != nil {
			t.Errorf("acknowledged insert %v missing: %v", k, err)
		}
		return true
	})
	if count == 0 || tailed.Load() == 0 {
		t.Fatalf("acked %d, tailed %d: the load did not run", count, tailed.Load())
	}
	for _, cl := range cls {
		cl.Disconnect(ctx)
	}
	// Bounded wait for connections and goroutines to wind down.
	for i := 0; i < 1000 && (e.srv.Stats().Current > 2 || runtime.NumGoroutine() > before+40); i++ {
		time.Sleep(5 * time.Millisecond)
	}
	st := e.srv.Stats()
	if st.Current > 2 || st.OpenCursors > 0 {
		t.Fatalf("left behind: %d connections, %d cursors", st.Current, st.OpenCursors)
	}
	if g := runtime.NumGoroutine(); g > before+40 {
		t.Fatalf("%d goroutines, %d before the load", g, before)
	}
	t.Logf("%d acknowledged inserts, %d tailed, %d requests", count, tailed.Load(), st.NumRequests)
}
