package wire

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/ttlkv/ttlkv/engine"
)

// TestDriverWatchLargeEvents: through the official driver, as
// jstests/change_streams/split_large_event.js does through the shell. An
// update of a 16 MiB document with both images is an event of about 48
// MiB: a stream without $changeStreamSplitLargeEvent fails with 10334
// BSONObjectTooLarge, which the driver does not resume from (mongod
// labels it neither way); with the stage the driver reads three
// fragments, each with splitEvent {fragment, of} and its own resume token
// (the driver's ResumeToken() after it), and a stream resumed after the
// second fragment reads the third.
func TestDriverWatchLargeEvents(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, Options{}, engine.Options{ChangeStreams: true})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	db := e.client(t, true).Database("big")
	if err := db.CreateCollection(ctx, "c", options.CreateCollection().
		SetChangeStreamPreAndPostImages(bson.D{{Key: "enabled", Value: true}})); err != nil {
		t.Fatal(err)
	}
	coll := db.Collection("c")
	n := 16*1024*1024 - 27 + 1 // {_id: "aaa", a: <n bytes>} is 16 MiB
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: "aaa"}, {Key: "a", Value: strings.Repeat("x", n)}}); err != nil {
		t.Fatal(err)
	}
	start, err := coll.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	token := start.ResumeToken()
	start.Close(ctx)
	if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: "aaa"}}, bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: strings.Repeat("y", n)}}}}); err != nil {
		t.Fatal(err)
	}
	images := func() *options.ChangeStreamOptionsBuilder {
		return options.ChangeStream().SetFullDocument(options.Required).
			SetFullDocumentBeforeChange(options.Required).SetMaxAwaitTime(50 * time.Millisecond)
	}

	cs, err := coll.Watch(ctx, mongo.Pipeline{}, images().SetResumeAfter(token))
	if err == nil {
		if cs.Next(ctx) {
			t.Fatalf("a 48 MiB event without the split stage came whole")
		}
		err = cs.Err()
		cs.Close(ctx)
	}
	var se mongo.ServerError
	if !errors.As(err, &se) || !se.HasErrorCode(10334) {
		t.Fatalf("without the split stage: %v, want mongod's 10334 BSONObjectTooLarge", err)
	}

	split := mongo.Pipeline{{{Key: "$changeStreamSplitLargeEvent", Value: bson.D{}}}}
	cs, err = coll.Watch(ctx, split, images().SetResumeAfter(token))
	if err != nil {
		t.Fatal(err)
	}
	var tokens []bson.Raw
	for i := int32(1); i <= 3; i++ {
		ev := nextEvent(t, ctx, cs)
		if f, of := ev.Lookup("splitEvent", "fragment").Int32(), ev.Lookup("splitEvent", "of").Int32(); f != i || of != 3 {
			t.Fatalf("fragment %d: splitEvent {fragment: %d, of: %d}", i, f, of)
		}
		id := ev.Lookup("_id").Document()
		if got := cs.ResumeToken(); !bytesEqual(got, id) {
			t.Errorf("fragment %d: ResumeToken() %v, want the fragment's _id %v", i, got, id)
		}
		tokens = append(tokens, bson.Raw(id))
	}
	cs.Close(ctx)

	cs, err = coll.Watch(ctx, split, images().SetResumeAfter(tokens[1]))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	if ev := nextEvent(t, ctx, cs); ev.Lookup("splitEvent", "fragment").Int32() != 3 {
		t.Errorf("resumed after fragment 2: %v, want fragment 3", ev.Lookup("splitEvent"))
	}
}

// TestDriverResumeTokenOfQuietResumedStream: a stream resumed with
// resumeAfter that has nothing new reports, as its driver's
// ResumeToken(), the very token it was resumed from: mongod's first
// postBatchResumeToken (the driver takes it from the aggregate's empty
// batch).
func TestDriverResumeTokenOfQuietResumedStream(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, Options{}, engine.Options{ChangeStreams: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	coll := e.client(t, true).Database("q").Collection("c")
	cs, err := coll.Watch(ctx, mongo.Pipeline{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, ctx, cs)
	cs.Close(ctx)
	tok := bson.Raw(ev.Lookup("_id").Document())
	for name, o := range map[string]*options.ChangeStreamOptionsBuilder{
		"resumeAfter": options.ChangeStream().SetResumeAfter(tok),
		"startAfter":  options.ChangeStream().SetStartAfter(tok),
	} {
		cs, err := coll.Watch(ctx, mongo.Pipeline{}, o.SetMaxAwaitTime(10*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		if got := cs.ResumeToken(); !bytesEqual(got, tok) {
			t.Errorf("%s: ResumeToken() %v, want the token resumed from %v", name, got, tok)
		}
		if cs.TryNext(ctx) {
			t.Fatalf("%s: an event %v", name, cs.Current)
		}
		if got := cs.ResumeToken(); !bytesEqual(got, tok) {
			t.Errorf("%s: ResumeToken() after an empty getMore %v, want %v", name, got, tok)
		}
		cs.Close(ctx)
	}
}

func bytesEqual(a, b []byte) bool { return string(a) == string(b) }

// TestDriverResumesAfterCursorNotFound: a change stream whose server
// cursor is gone (killed, or timed out while idle) answers getMore with
// 43 CursorNotFound, on which the driver resumes from its last
// postBatchResumeToken, as with mongod: no event is lost or repeated.
func TestDriverResumesAfterCursorNotFound(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, Options{}, engine.Options{ChangeStreams: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := e.client(t, true).Database("r")
	coll := db.Collection("c")
	cs, err := coll.Watch(ctx, mongo.Pipeline{}, options.ChangeStream().SetMaxAwaitTime(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close(ctx)
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, ctx, cs); ev.Lookup("documentKey", "_id").Int32() != 1 {
		t.Fatalf("first event %v", ev)
	}
	first := cs.ID()
	if err := db.RunCommand(ctx, bson.D{{Key: "killCursors", Value: "c"}, {Key: "cursors", Value: bson.A{first}}}).Err(); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 2}}); err != nil {
		t.Fatal(err)
	}
	if ev := nextEvent(t, ctx, cs); ev.Lookup("documentKey", "_id").Int32() != 2 {
		t.Fatalf("after the resume: %v, want the insert of 2", ev)
	}
	if cs.ID() == first || cs.ID() == 0 {
		t.Errorf("cursor %d after the resume, want a new one (was %d)", cs.ID(), first)
	}
}

// TestDriverWatchClusterAndDatabase: the driver's Client.Watch (aggregate
// 1 on admin with allChangesForCluster) sees every database and survives
// a dropDatabase (drop, dropDatabase, no invalidate); Database.Watch ends
// with invalidate after its database's drop, and the driver's stream then
// ends without an error, its cursor closed, as with mongod.
func TestDriverWatchClusterAndDatabase(t *testing.T) {
	t.Parallel()
	e := newEnvWith(t, Options{}, engine.Options{ChangeStreams: true})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client := e.client(t, true)
	opts := options.ChangeStream().SetMaxAwaitTime(10 * time.Millisecond)
	all, err := client.Watch(ctx, mongo.Pipeline{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer all.Close(ctx)
	one, err := client.Database("a").Watch(ctx, mongo.Pipeline{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	defer one.Close(ctx)
	for _, name := range []string{"a", "b"} {
		if _, err := client.Database(name).Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: name}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := client.Database("a").Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := client.Database("b").Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: "after"}}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for i := 0; i < 5; i++ {
		ev := nextEvent(t, ctx, all)
		got = append(got, str(ev, "operationType")+" "+str(ev, "ns", "db"))
	}
	if s := strings.Join(got, ", "); s != "insert a, insert b, drop a, dropDatabase a, insert b" {
		t.Errorf("cluster stream: %s", s)
	}
	got = nil
	for one.Next(ctx) {
		got = append(got, str(one.Current, "operationType"))
	}
	if s := strings.Join(got, ", "); s != "insert, drop, dropDatabase, invalidate" || one.Err() != nil || one.ID() != 0 {
		t.Errorf("database stream: %s, err %v, cursor %d; want mongod's insert, drop, dropDatabase, invalidate, then the end", s, one.Err(), one.ID())
	}
}
