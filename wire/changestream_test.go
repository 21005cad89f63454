package wire

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/ttlkv/ttlkv/engine"
)

// nextEvent waits for cs's next event.
func nextEvent(t *testing.T, ctx context.Context, cs *mongo.ChangeStream) bson.Raw {
	t.Helper()
	if !cs.Next(ctx) {
		t.Fatalf("change stream ended: %v", cs.Err())
	}
	return cs.Current
}

// str is the string at path in ev, "" when there is none.
func str(ev bson.Raw, path ...string) string {
	s, _ := ev.Lookup(path...).StringValueOK()
	return s
}

// TestDriverWatch: the official driver's Watch works through the server
// (aggregate with a leading $changeStream, then getMore), a TTL deletion
// arrives as a delete event marked as an expiration and carrying the
// expired document as its pre-image, and a stream resumes from a token
// exactly after the event it names (docs/change-streams.md).
func TestDriverWatch(t *testing.T) {
	t.Parallel()
	transports(t, func(t *testing.T, inproc bool) {
		e := newEnvWith(t, Options{}, engine.Options{ChangeStreams: true})
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		db := e.client(t, inproc).Database("app")
		if err := db.CreateCollection(ctx, "sessions", options.CreateCollection().
			SetChangeStreamPreAndPostImages(bson.D{{Key: "enabled", Value: true}})); err != nil {
			t.Fatal(err)
		}
		coll := db.Collection("sessions")
		if _, err := coll.Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "at", Value: 1}},
			Options: options.Index().SetExpireAfterSeconds(60)}); err != nil {
			t.Fatal(err)
		}
		cs, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().
			SetFullDocumentBeforeChange(options.WhenAvailable).SetMaxAwaitTime(100*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		defer cs.Close(ctx)
		now := e.clock.Now()
		if _, err := coll.InsertMany(ctx, []any{bson.D{{Key: "_id", Value: "old"}, {Key: "at", Value: now.Add(-2 * time.Minute)}},
			bson.D{{Key: "_id", Value: "new"}, {Key: "at", Value: now}}}); err != nil {
			t.Fatal(err)
		}
		if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "new"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "n", Value: 1}}}}); err != nil {
			t.Fatal(err)
		}
		if err := db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "runTTLPass", Value: 1}}).Err(); err != nil {
			t.Fatal(err)
		}
		first := nextEvent(t, ctx, cs)
		if str(first, "operationType") != "insert" || str(first, "documentKey", "_id") != "old" {
			t.Fatalf("first event %v, want the insert of old", first)
		}
		token := cs.ResumeToken()
		if ev := nextEvent(t, ctx, cs); str(ev, "operationType") != "insert" || str(ev, "documentKey", "_id") != "new" {
			t.Fatalf("second event %v, want the insert of new", ev)
		}
		if ev := nextEvent(t, ctx, cs); str(ev, "operationType") != "update" ||
			ev.Lookup("updateDescription", "updatedFields", "n").AsInt64() != 1 {
			t.Fatalf("third event %v, want the update setting n", ev)
		}
		exp := nextEvent(t, ctx, cs)
		if str(exp, "operationType") != "delete" || str(exp, "documentKey", "_id") != "old" {
			t.Fatalf("fourth event %v, want the expiry of old", exp)
		}
		if b, ok := exp.Lookup("ttlkv", "expired").BooleanOK(); !ok || !b {
			t.Fatalf("expiry event %v does not say it was an expiration", exp)
		}
		if str(exp, "fullDocumentBeforeChange", "_id") != "old" {
			t.Fatalf("expiry event %v carries no pre-image of old", exp)
		}
		// Resuming after the first event gives the second next.
		rs, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetResumeAfter(token))
		if err != nil {
			t.Fatal(err)
		}
		defer rs.Close(ctx)
		if ev := nextEvent(t, ctx, rs); str(ev, "operationType") != "insert" || str(ev, "documentKey", "_id") != "new" {
			t.Fatalf("resumed stream's first event %v, want the insert of new", ev)
		}
		// $match on the expiration field keeps only expirations.
		ms, err := coll.Watch(ctx, mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "ttlkv.expired", Value: true}}}}},
			options.ChangeStream().SetStartAfter(token))
		if err != nil {
			t.Fatal(err)
		}
		defer ms.Close(ctx)
		if ev := nextEvent(t, ctx, ms); str(ev, "operationType") != "delete" || str(ev, "documentKey", "_id") != "old" {
			t.Fatalf("matched stream's first event %v, want the expiry of old", ev)
		}
	})
}
