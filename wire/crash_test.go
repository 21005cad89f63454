package wire

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/ttlkv/ttlkv/engine"
)

// TestHelperServe is the child of TestKill9JournaledWrites: it serves
// TTLKV_CRASH_DIR on a free loopback port, writes the address to a file
// and serves until killed.
func TestHelperServe(t *testing.T) {
	dir := os.Getenv("TTLKV_CRASH_DIR")
	if dir == "" {
		t.Skip("child process of TestKill9JournaledWrites")
	}
	db, err := engine.Open(dir, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := NewServer(db, Options{})
	if err := os.WriteFile(filepath.Join(dir, "addr.tmp"), []byte(l.Addr().String()), 0o600); err != nil {
		t.Fatal(err)
	}
	os.Rename(filepath.Join(dir, "addr.tmp"), filepath.Join(dir, "addr"))
	srv.Serve(l) // until SIGKILL
}

// TestKill9JournaledWrites kills the server with SIGKILL while 8
// clients insert with {j: true}, reopens the directory and checks that
// every acknowledged insert is there.
func TestKill9JournaledWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test")
	}
	t.Parallel()
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperServe$")
	cmd.Env = append(os.Environ(), "TTLKV_CRASH_DIR="+dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	var addr []byte
	for i := 0; i < 3000; i++ {
		if b, err := os.ReadFile(filepath.Join(dir, "addr")); err == nil {
			addr = b
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	if addr == nil {
		t.Fatal("the child server did not start")
	}
	ctx := context.Background()
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + string(addr)).SetTimeout(5 * time.Second).SetRetryWrites(false))
	if err != nil {
		t.Fatal(err)
	}
	defer client.Disconnect(ctx)
	coll := client.Database("app").Collection("j", options.Collection().SetWriteConcern(writeconcern.Journaled()))
	var mu sync.Mutex
	var acked []string
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 100000; i++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("w%d-%d", w, i)
				if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "pad", Value: strings.Repeat("x", 200)}}); err != nil {
					return // the server died
				}
				mu.Lock()
				acked = append(acked, id)
				mu.Unlock()
			}
		}()
	}
	// Kill once a few hundred writes are acknowledged (bounded wait).
	for i := 0; i < 2000; i++ {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 300 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	close(stop)
	wg.Wait()
	db, err := engine.Open(dir, engine.Options{DisableTTLMonitor: true})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	c := db.Database("app").Collection("j")
	for _, id := range acked {
		if _, err := c.FindOne(ctx, bson.D{{Key: "_id", Value: id}}); err != nil {
			t.Errorf("acknowledged {j: true} insert %s lost: %v", id, err)
		}
	}
	if len(acked) == 0 {
		t.Fatal("no write was acknowledged before the kill")
	}
	t.Logf("%d acknowledged {j: true} inserts survived SIGKILL", len(acked))
}
