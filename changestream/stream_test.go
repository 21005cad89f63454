package changestream

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
)

func openStore(t *testing.T, max int64) *lsm.Store {
	t.Helper()
	s, err := lsm.Open("", lsm.Options{InMemory: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	if err := s.EnableChanges(lsm.ChangeLogOptions{MaxEvents: max, Now: func() time.Time { return time.Unix(1700000000, 0) }}); err != nil {
		t.Fatal(err)
	}
	return s
}

func write(t *testing.T, s *lsm.Store, cs ...Change) {
	t.Helper()
	err := s.Update(func(tx *lsm.Txn) error {
		for i := range cs {
			if cs[i].WallTime.IsZero() {
				cs[i].WallTime = time.Unix(1700000000, 0)
			}
			b, err := cs[i].Encode()
			if err != nil {
				return err
			}
			if err := tx.AddChange(b); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func key(id any) bson.D { return bson.D{{Key: "_id", Value: id}} }

func drain(t *testing.T, st *Stream) []bson.D {
	t.Helper()
	var out []bson.D
	for st.TryNext(context.Background()) {
		out = append(out, st.Current())
	}
	if err := st.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

func field(d bson.D, k string) any {
	for _, e := range d {
		if e.Key == k {
			return e.Value
		}
	}
	return nil
}

func ops(evs []bson.D) string {
	var s []any
	for _, e := range evs {
		s = append(s, field(e, "operationType"))
	}
	return fmt.Sprint(s)
}

func TestEventShapes(t *testing.T) {
	t.Parallel()
	s := openStore(t, 0)
	st, err := New(s, Scope{DB: "d", Coll: "c"}, nil, Options{FullDocumentBeforeChange: "whenAvailable", FullDocument: "whenAvailable"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	doc1 := bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: "x"}}
	doc2 := bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: "y"}, {Key: "b", Value: bson.A{int32(1)}}}
	write(t, s,
		Change{Op: Insert, DB: "d", Coll: "c", DocumentKey: key(int32(1)), FullDocument: doc1},
		Change{Op: Insert, DB: "d", Coll: "other", DocumentKey: key(int32(1)), FullDocument: doc1})
	write(t, s, Change{Op: Update, DB: "d", Coll: "c", DocumentKey: key(int32(1)), Before: doc1, FullDocument: doc2, UpdateDescription: Describe(doc1, doc2)})
	write(t, s, Change{Op: Replace, DB: "d", Coll: "c", DocumentKey: key(int32(1)), FullDocument: doc1})
	write(t, s, Change{Op: Delete, DB: "d", Coll: "c", DocumentKey: key(int32(1)), Before: doc1, Expiry: &Expiry{Index: "t_1"}})
	write(t, s, Change{Op: Drop, DB: "d", Coll: "c"})
	write(t, s, Change{Op: Insert, DB: "d", Coll: "c", DocumentKey: key(int32(2)), FullDocument: doc1})
	evs := drain(t, st)
	if got := ops(evs); got != "[insert update replace delete drop invalidate]" {
		t.Fatalf("operations %s", got)
	}
	if !st.Ended() {
		t.Fatal("not ended after invalidate")
	}
	ins := evs[0]
	want := bson.D{
		{Key: "_id", Value: Token{Pos: lsm.ChangePos{Seq: 1700000000 << 32}}.Doc()},
		{Key: "operationType", Value: "insert"},
		{Key: "clusterTime", Value: bson.Timestamp{T: 1700000000, I: 0}},
		{Key: "wallTime", Value: bson.NewDateTimeFromTime(time.Unix(1700000000, 0))},
		{Key: "fullDocument", Value: doc1},
		{Key: "ns", Value: bson.D{{Key: "db", Value: "d"}, {Key: "coll", Value: "c"}}},
		{Key: "documentKey", Value: key(int32(1))},
	}
	if document.Compare(ins, want) != 0 {
		t.Fatalf("insert event\n got %v\nwant %v", ins, want)
	}
	ud := field(evs[1], "updateDescription").(bson.D)
	wantUD := bson.D{
		{Key: "updatedFields", Value: bson.D{{Key: "a", Value: "y"}, {Key: "b", Value: bson.A{int32(1)}}}},
		{Key: "removedFields", Value: bson.A{}},
		{Key: "truncatedArrays", Value: bson.A{}},
	}
	if document.Compare(ud, wantUD) != 0 {
		t.Fatalf("updateDescription %v", ud)
	}
	if document.Compare(field(evs[1], "fullDocument"), doc2) != 0 || document.Compare(field(evs[1], "fullDocumentBeforeChange"), doc1) != 0 {
		t.Fatalf("update images %v", evs[1])
	}
	if v := field(evs[2], "fullDocumentBeforeChange"); v != nil {
		t.Fatalf("replace without a pre-image: %v", v)
	}
	if x := field(evs[3], "ttlkv"); document.Compare(x, bson.D{{Key: "expired", Value: true}, {Key: "index", Value: "t_1"}}) != 0 {
		t.Fatalf("expiry field %v", x)
	}
	inv := evs[5]
	tok, err := ParseToken(field(inv, "_id"))
	if err != nil || !tok.Invalidate {
		t.Fatalf("invalidate token %v %v", tok, err)
	}
	// resumeAfter an invalidate is refused; startAfter starts past it.
	if _, err := New(s, Scope{DB: "d", Coll: "c"}, nil, Options{ResumeAfter: tok.Doc()}, nil); document.CodeOf(err) != document.CodeInvalidResumeToken {
		t.Fatalf("resumeAfter invalidate: %v", err)
	}
	st2, err := New(s, Scope{DB: "d", Coll: "c"}, nil, Options{StartAfter: tok.Doc()}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := ops(drain(t, st2)); got != "[insert]" {
		t.Fatalf("after startAfter: %s", got)
	}
}

func TestResumeMatchProjectAndScope(t *testing.T) {
	t.Parallel()
	s := openStore(t, 0)
	for i := 0; i < 10; i++ {
		c := Change{Op: Insert, DB: "d", Coll: "c", DocumentKey: key(int32(i)), FullDocument: key(int32(i))}
		if i%2 == 1 {
			c = Change{Op: Delete, DB: "d", Coll: "c", DocumentKey: key(int32(i)), Expiry: &Expiry{Index: "t"}}
		}
		write(t, s, c)
	}
	// The whole log from the start of time, filtered on the expiry field.
	st, err := New(s, Scope{}, []bson.D{
		{{Key: "$match", Value: bson.D{{Key: "operationType", Value: "delete"}, {Key: "ttlkv.expired", Value: true}}}},
		{{Key: "$project", Value: bson.D{{Key: "documentKey", Value: int32(1)}}}},
	}, Options{StartAtOperationTime: &bson.Timestamp{T: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	evs := drain(t, st)
	if len(evs) != 5 || len(evs[0]) != 2 {
		t.Fatalf("events %v", evs)
	}
	// Resume after the second: the rest, exactly once.
	st2, err := New(s, Scope{DB: "d"}, []bson.D{{{Key: "$match", Value: bson.D{{Key: "operationType", Value: "delete"}}}}}, Options{ResumeAfter: field(evs[1], "_id").(bson.D)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	rest := drain(t, st2)
	if len(rest) != 3 || document.Compare(field(rest[0], "documentKey"), key(int32(5))) != 0 {
		t.Fatalf("resumed %v", rest)
	}
	// The resume token after filtered-out events is the high-water mark.
	hw, _ := ParseToken(st2.ResumeToken())
	_, last, _ := s.ChangeBounds()
	if hw.Pos != last {
		t.Fatalf("resume token %v, last %v", hw.Pos, last)
	}
	// Another scope sees nothing.
	st3, err := New(s, Scope{DB: "x"}, nil, Options{StartAtOperationTime: &bson.Timestamp{T: 1}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if evs := drain(t, st3); len(evs) != 0 {
		t.Fatalf("other db: %v", evs)
	}
	// A pipeline that changes _id stops the stream with 280.
	st4, err := New(s, Scope{}, []bson.D{{{Key: "$project", Value: bson.D{{Key: "_id", Value: int32(0)}}}}}, Options{StartAtOperationTime: &bson.Timestamp{T: 1}}, nil)
	if err != nil && document.CodeOf(err) != document.CodeChangeStreamFatalError {
		t.Fatal(err)
	}
	if err == nil {
		if st4.TryNext(context.Background()) || document.CodeOf(st4.Err()) != document.CodeChangeStreamFatalError {
			t.Fatalf("projected _id away: %v", st4.Err())
		}
	}
}

func TestHistoryLost(t *testing.T) {
	t.Parallel()
	s := openStore(t, 20)
	st, err := New(s, Scope{}, nil, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 40; i++ {
		write(t, s, Change{Op: Insert, DB: "d", Coll: "c", DocumentKey: key(int32(i)), FullDocument: key(int32(i))})
	}
	if err := s.TrimChanges(); err != nil {
		t.Fatal(err)
	}
	if st.TryNext(context.Background()) || document.CodeOf(st.Err()) != document.CodeChangeStreamHistoryLost {
		t.Fatalf("slow reader: %v", st.Err())
	}
	_, err = New(s, Scope{}, nil, Options{StartAtOperationTime: &bson.Timestamp{T: 1}}, nil)
	if document.CodeOf(err) != document.CodeChangeStreamHistoryLost {
		t.Fatalf("start before the log: %v", err)
	}
	var de *document.Error
	if !errors.As(err, &de) || de.Name() != "ChangeStreamHistoryLost" {
		t.Fatalf("code name: %v", err)
	}
}

func TestNextWaitsForCommit(t *testing.T) {
	t.Parallel()
	s := openStore(t, 0)
	st, err := New(s, Scope{DB: "d", Coll: "c"}, nil, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan bson.D)
	go func() {
		if st.Next(context.Background()) {
			done <- st.Current()
		}
		close(done)
	}()
	write(t, s, Change{Op: Insert, DB: "d", Coll: "c", DocumentKey: key(int32(1)), FullDocument: key(int32(1))})
	select {
	case ev := <-done:
		if field(ev, "operationType") != "insert" {
			t.Fatalf("%v", ev)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Next did not wake")
	}
	// A cancelled context ends Next.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if st.Next(ctx) || !errors.Is(st.Err(), context.Canceled) {
		t.Fatalf("cancelled: %v", st.Err())
	}
}

func TestParseStageAndTokens(t *testing.T) {
	t.Parallel()
	o, all, err := ParseStage(bson.D{{Key: "fullDocument", Value: "updateLookup"}, {Key: "allChangesForCluster", Value: true}})
	if err != nil || o.FullDocument != "updateLookup" || !all {
		t.Fatal(o, all, err)
	}
	for _, bad := range []bson.D{
		{{Key: "fullDocument", Value: "nope"}},
		{{Key: "fullDocumentBeforeChange", Value: "nope"}},
		{{Key: "bogus", Value: 1}},
		{{Key: "resumeAfter", Value: Token{}.Doc()}, {Key: "startAtOperationTime", Value: bson.Timestamp{T: 1}}},
	} {
		if _, _, err := ParseStage(bad); err == nil {
			t.Errorf("ParseStage(%v) accepted", bad)
		}
	}
	for _, bad := range []any{int32(1), bson.D{}, bson.D{{Key: "_data", Value: "zz"}}, bson.D{{Key: "_data", Value: "82XX00000000000000000000000000"}}} {
		if _, err := ParseToken(bad); err == nil {
			t.Errorf("ParseToken(%v) accepted", bad)
		}
	}
	tk := Token{Pos: lsm.ChangePos{Seq: 0x0102030405060708, Index: 9}}
	back, err := ParseToken(tk.Doc())
	if err != nil || back != tk {
		t.Fatalf("round trip %v %v", back, err)
	}
	if _, err := New(openStore(t, 0), Scope{}, []bson.D{{{Key: "$changeStream", Value: bson.D{}}}}, Options{}, nil); document.CodeOf(err) != 40602 {
		t.Fatalf("$changeStream in the pipeline: %v", err)
	}
}

func TestDescribe(t *testing.T) {
	t.Parallel()
	old := bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.D{{Key: "x", Value: 1}, {Key: "y", Value: 2}}}, {Key: "arr", Value: bson.A{1, 2, 3}}, {Key: "gone", Value: true}}
	new := bson.D{{Key: "_id", Value: 1}, {Key: "a", Value: bson.D{{Key: "x", Value: 5}}}, {Key: "arr", Value: bson.A{1, 9}}, {Key: "n", Value: "new"}}
	u := Describe(old, new)
	// mongod's order (document_diff_calculator.cpp, then
	// change_stream_document_diff_parser.cpp): the top level's inserted
	// field and removed one, then the sub-diffs a and arr in turn.
	wantUF := bson.D{{Key: "n", Value: "new"}, {Key: "a.x", Value: 5}, {Key: "arr.1", Value: 9}}
	wantTA := bson.D{{Key: "field", Value: "arr"}, {Key: "newSize", Value: int32(2)}}
	if fmt.Sprint(u.UpdatedFields) != fmt.Sprint(wantUF) || fmt.Sprint(u.RemovedFields) != "[gone a.y]" || len(u.TruncatedArrays) != 1 || document.Compare(u.TruncatedArrays[0], wantTA) != 0 {
		t.Fatalf("%+v", u)
	}
}

func TestModelReplaysDescriptions(t *testing.T) {
	t.Parallel()
	old := bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: bson.D{{Key: "x", Value: int32(1)}, {Key: "y", Value: int32(2)}}}, {Key: "arr", Value: bson.A{int32(1), int32(2), int32(3)}}, {Key: "gone", Value: true}}
	new := bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: bson.D{{Key: "x", Value: int32(5)}}}, {Key: "arr", Value: bson.A{int32(1), int32(9)}}, {Key: "n", Value: bson.D{{Key: "deep", Value: "new"}}}}
	s := openStore(t, 0)
	write(t, s, Change{Op: Insert, DB: "d", Coll: "c", DocumentKey: key(int32(1)), FullDocument: old})
	write(t, s, Change{Op: Update, DB: "d", Coll: "c", DocumentKey: key(int64(1)), UpdateDescription: Describe(old, new)})
	write(t, s, Change{Op: Insert, DB: "d", Coll: "c", DocumentKey: key(int32(2)), FullDocument: key(int32(2))})
	write(t, s, Change{Op: Delete, DB: "d", Coll: "c", DocumentKey: key(int32(2))})
	write(t, s, Change{Op: Insert, DB: "d", Coll: "x", DocumentKey: key(int32(3)), FullDocument: key(int32(3))})
	write(t, s, Change{Op: Rename, DB: "d", Coll: "x", ToDB: "d", ToColl: "y"})
	st, err := New(s, Scope{}, nil, Options{FromOldest: true, FullDocument: "whenAvailable"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	m := NewModel()
	for _, ev := range drain(t, st) {
		if err := m.Apply(ev); err != nil {
			t.Fatal(err)
		}
	}
	if fmt.Sprint(m.Namespaces()) != "[d.c d.y]" {
		t.Fatalf("namespaces %v", m.Namespaces())
	}
	docs := m.Docs("d.c")
	if len(docs) != 1 {
		t.Fatalf("docs %v", docs)
	}
	got := docs[IDKey(int32(1))]
	// Field order after a replay may differ from the stored one only where
	// fields were added; these were appended in both.
	if document.Compare(got, new) != 0 {
		t.Fatalf("replayed\n %v\nwant\n %v", got, new)
	}
	if err := m.Apply(bson.D{{Key: "operationType", Value: "update"}, {Key: "ns", Value: bson.D{{Key: "db", Value: "d"}, {Key: "coll", Value: "c"}}}, {Key: "documentKey", Value: key(int32(7))}}); err == nil {
		t.Fatal("an update of an unknown document applied")
	}
}

// TestCollectionUUIDShown: a change's CollectionUUID is stored with it
// and shown as collectionUUID (binary subtype 4, after clusterTime) only
// to a stream with ShowExpandedEvents, as mongod's; a Rename's
// DropTarget is its operationDescription's dropTarget; an invalidate has
// none.
func TestCollectionUUIDShown(t *testing.T) {
	t.Parallel()
	s := openStore(t, 0)
	u := []byte("0123456789abcdef")
	dt := []byte("fedcba9876543210")
	exp, err := New(s, Scope{DB: "d", Coll: "c"}, nil, Options{ShowExpandedEvents: true}, nil)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := New(s, Scope{DB: "d", Coll: "c"}, nil, Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	write(t, s, Change{Op: Insert, DB: "d", Coll: "c", CollectionUUID: u, DocumentKey: key(int32(1)), FullDocument: key(int32(1))})
	write(t, s, Change{Op: Rename, DB: "d", Coll: "c", ToDB: "d", ToColl: "x", CollectionUUID: u, DropTarget: dt})
	evs := drain(t, exp)
	if got := ops(evs); got != "[insert rename invalidate]" {
		t.Fatalf("operations %s", got)
	}
	uuid := bson.Binary{Subtype: bson.TypeBinaryUUID, Data: u}
	if evs[0][3].Key != "collectionUUID" || document.Compare(evs[0][3].Value, uuid) != 0 || evs[0][4].Key != "wallTime" {
		t.Errorf("insert %v", evs[0])
	}
	desc := bson.D{{Key: "to", Value: bson.D{{Key: "db", Value: "d"}, {Key: "coll", Value: "x"}}},
		{Key: "dropTarget", Value: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: dt}}}
	if document.Compare(field(evs[1], "collectionUUID"), uuid) != 0 || document.Compare(field(evs[1], "operationDescription"), desc) != 0 {
		t.Errorf("rename %v", evs[1])
	}
	if v := field(evs[2], "collectionUUID"); v != nil {
		t.Errorf("invalidate has collectionUUID %v", v)
	}
	for _, e := range drain(t, plain) {
		if v := field(e, "collectionUUID"); v != nil {
			t.Errorf("%v without showExpandedEvents: collectionUUID %v", field(e, "operationType"), v)
		}
	}
}
