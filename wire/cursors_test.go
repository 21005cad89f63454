package wire

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func seed(t *testing.T, coll *mongo.Collection, n int) {
	t.Helper()
	docs := make([]any, n)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}}
	}
	if _, err := coll.InsertMany(context.Background(), docs); err != nil {
		t.Fatal(err)
	}
}

// openCursor runs find with a small first batch and returns the id.
func openCursor(t *testing.T, db *mongo.Database, coll string) int64 {
	t.Helper()
	var r struct{ Cursor struct{ ID int64 } }
	err := db.RunCommand(context.Background(), bson.D{{Key: "find", Value: coll}, {Key: "batchSize", Value: 2}}).Decode(&r)
	if err != nil || r.Cursor.ID == 0 {
		t.Fatalf("find: id %d, %v", r.Cursor.ID, err)
	}
	return r.Cursor.ID
}

func getMore(db *mongo.Database, coll string, id int64) error {
	return db.RunCommand(context.Background(), bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: coll}, {Key: "batchSize", Value: 2}}).Err()
}

func TestCursorsAcrossConnections(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{OrphanCursorTimeout: time.Hour})
	// Clients without a timeout: with one the driver gives every
	// command, a raw getMore too, a maxTimeMS, which mongod (and ttlkv)
	// refuse on a getMore of a cursor that does not await data.
	a := e.client(t, false, noTimeout).Database("app")
	b := e.client(t, true, noTimeout).Database("app")
	seed(t, a.Collection("c"), 10)
	id := openCursor(t, a, "c")
	// Another client is another session, which mongod refuses (the
	// same session from another connection is served:
	// TestReviewWire26GetMoreChecksSession).
	if err := getMore(b, "c", id); cmdCode(t, err) != 50738 {
		t.Fatalf("getMore from another client's session: %v", err)
	}
	if err := getMore(a, "c", id); err != nil {
		t.Fatalf("getMore from the cursor's client: %v", err)
	}
	// killCursors from the first client; the cursor is gone for both.
	if err := a.RunCommand(context.Background(), bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{id}}}).Err(); err != nil {
		t.Fatal(err)
	}
	if err := getMore(b, "c", id); cmdCode(t, err) != 43 {
		t.Fatalf("getMore after killCursors: %v", err)
	}
	if n := e.srv.Stats().OpenCursors; n != 0 {
		t.Fatalf("%d cursors still tracked", n)
	}
}

func TestOrphanCursorsReaped(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{OrphanCursorTimeout: 20 * time.Millisecond})
	gone := e.client(t, false)
	other := e.client(t, false).Database("app")
	seed(t, other.Collection("c"), 10)
	id := openCursor(t, gone.Database("app"), "c")
	gone.Disconnect(context.Background())
	// The timer runs in real time; wait for it, bounded.
	for i := 0; i < 1000 && e.srv.Stats().OpenCursors > 0; i++ {
		time.Sleep(5 * time.Millisecond)
	}
	if err := getMore(other, "c", id); cmdCode(t, err) != 43 {
		t.Fatalf("getMore on an orphan cursor after the timeout: %v", err)
	}
	if !e.log.has("unused since its connection closed") {
		t.Fatal("no log line for the reaped cursor")
	}
}

func TestCurrentOpAndKillOp(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	ctx := context.Background()
	tailer := e.client(t, false).Database("app")
	admin := e.client(t, true).Database("admin")
	if err := tailer.CreateCollection(ctx, "log", options.CreateCollection().SetCapped(true).SetSizeInBytes(1<<16)); err != nil {
		t.Fatal(err)
	}
	tailer.Collection("log").InsertOne(ctx, bson.D{{Key: "i", Value: 0}})
	var r struct{ Cursor struct{ ID int64 } }
	if err := tailer.RunCommand(ctx, bson.D{{Key: "find", Value: "log"}, {Key: "tailable", Value: true}, {Key: "awaitData", Value: true}}).Decode(&r); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- tailer.RunCommand(ctx, bson.D{{Key: "getMore", Value: r.Cursor.ID}, {Key: "collection", Value: "log"}, {Key: "maxTimeMS", Value: 15000}}).Err()
	}()
	var opid int32
	for i := 0; i < 1000 && opid == 0; i++ {
		var cur struct {
			Inprog []struct {
				OpID int32 `bson:"opid"`
			}
		}
		admin.RunCommand(ctx, bson.D{{Key: "currentOp", Value: 1}, {Key: "command.getMore", Value: bson.D{{Key: "$exists", Value: true}}}}).Decode(&cur)
		if len(cur.Inprog) == 1 {
			opid = cur.Inprog[0].OpID
		} else {
			time.Sleep(5 * time.Millisecond)
		}
	}
	if opid == 0 {
		t.Fatal("the blocked getMore never showed in currentOp")
	}
	if err := admin.RunCommand(ctx, bson.D{{Key: "killOp", Value: 1}, {Key: "op", Value: opid}}).Err(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if cmdCode(t, err) != 11601 {
			t.Fatalf("killed getMore: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("killOp did not stop the getMore")
	}
	// The killed op's connection serves the next requests (its ops
	// share a context until one is killed).
	for i := 1; i <= 3; i++ {
		if _, err := tailer.Collection("log").InsertOne(ctx, bson.D{{Key: "i", Value: i}}); err != nil {
			t.Fatalf("insert after killOp: %v", err)
		}
	}
	if n, err := tailer.Collection("log").CountDocuments(ctx, bson.D{}); err != nil || n != 4 {
		t.Fatalf("count after killOp = %d, %v; want 4", n, err)
	}
}

// TestGetMoreWithoutBatchSize checks that a getMore naming no batchSize
// gets a reply near the target (16 MiB; 1 MiB here, with 64 KiB
// documents, to keep the test light).
func TestGetMoreWithoutBatchSize(t *testing.T) {
	t.Parallel()
	e := newEnv(t, Options{})
	e.srv.replyTarget = 1 << 20
	ctx := context.Background()
	db := e.client(t, true, noTimeout).Database("app")
	big := make([]byte, 64<<10)
	for i := range 40 {
		if _, err := db.Collection("big").InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "b", Value: big}}); err != nil {
			t.Fatal(err)
		}
	}
	id := openCursor(t, db, "big")
	var r struct {
		Cursor struct {
			ID        int64
			NextBatch []bson.Raw `bson:"nextBatch"`
		}
	}
	if err := db.RunCommand(ctx, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: "big"}}).Decode(&r); err != nil {
		t.Fatal(err)
	}
	if n := len(r.Cursor.NextBatch); n < 8 || n > 16 || r.Cursor.ID == 0 {
		t.Fatalf("getMore without batchSize returned %d documents of 64 KiB (cursor %d), want about 1 MiB", n, r.Cursor.ID)
	}
	// The driver reads the rest in further batches.
	cur, err := db.Collection("big").Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for cur.Next(ctx) {
		n++
	}
	if n != 40 || cur.Err() != nil {
		t.Fatalf("driver read %d documents: %v", n, cur.Err())
	}
}

// noTimeout takes the client's timeout off, so that the driver does not
// add maxTimeMS to the raw getMore commands a test sends.
func noTimeout(o *options.ClientOptions) { o.Timeout = nil }
