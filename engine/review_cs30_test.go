package engine

// Session 30's review of change streams against mongod 7.0: large events
// ($changeStreamSplitLargeEvent, 10334 without it), batch bytes and the
// first postBatchResumeToken of a resumed stream. The evidence is named
// in each test (files of github.com/mongodb/mongo).

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// TestReviewCS30SplitStagePlacement: $changeStreamSplitLargeEvent may
// only end a change stream's pipeline, once, with {} as its spec
// (jstests/change_streams/split_large_event.js;
// document_source_change_stream_split_large_event.cpp: 7182800,
// 7182802; pipeline.cpp's validateTopLevelPipeline: 20 outside a change
// stream, 280 for a fragment's token without the stage).
func TestReviewCS30SplitStagePlacement(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	mustRun(t, db, "d", `{"create": "c"}`)
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStreamSplitLargeEvent": {}}], "cursor": {}}`,
		20, "IllegalOperation", "$changeStreamSplitLargeEvent can only be used in a $changeStream pipeline")
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}, {"$changeStreamSplitLargeEvent": {}}, {"$changeStreamSplitLargeEvent": {}}], "cursor": {}}`,
		7182802, "", "$changeStreamSplitLargeEvent must be the last stage in the pipeline")
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}, {"$changeStreamSplitLargeEvent": {}}, {"$project": {"fullDocument": 0}}], "cursor": {}}`,
		7182802, "", "$changeStreamSplitLargeEvent must be the last stage in the pipeline")
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}, {"$changeStreamSplitLargeEvent": {"a": 1}}], "cursor": {}}`,
		7182800, "", "$changeStreamSplitLargeEvent spec should be an empty object")
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}, {"$changeStreamSplitLargeEvent": 1}], "cursor": {}}`,
		7182800, "", "$changeStreamSplitLargeEvent spec should be an empty object")
	// A stage mongod does not allow after $changeStream is refused before
	// the split stage's position is checked.
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}, {"$changeStreamSplitLargeEvent": {}}, {"$limit": 1}], "cursor": {}}`,
		20, "IllegalOperation", "$limit is not permitted in a $changeStream pipeline")
	id, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}, {"$match": {"operationType": "insert"}}, {"$changeStreamSplitLargeEvent": {}}], "cursor": {}}`)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}]}`)
	r, err := csGetMore(t, db, "d", "c", id)
	if err != nil {
		t.Fatal(err)
	}
	if b := csBatch(t, r); len(b) != 1 || csKeys(b[0]) != "_id,operationType,clusterTime,wallTime,fullDocument,ns,documentKey" {
		t.Errorf("a small event through the split stage: %v, want it whole", b)
	}
}

// csOpenDisk opens a store on disk with change streams on: the
// in-memory one refuses values of megabytes.
func csOpenDisk(t *testing.T) *DB {
	t.Helper()
	db, _, _ := openTestWith(t, func(o *Options) { o.ChangeStreams = true })
	return db
}

// csWrite runs a write command that must succeed without write errors,
// naming it by what, not by its (large) documents.
func csWrite(t *testing.T, db *DB, what string, cmd bson.D) {
	t.Helper()
	r, err := db.RunCommand(context.Background(), "d", cmd)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if we, has := get(r, "writeErrors"); has {
		t.Fatalf("%s: %v", what, we)
	}
}

// csLargeString is the length of a string that makes {_id: "aaa", a:
// <string>} exactly 16 MiB, as split_large_event.js's kLargeStringSize.
const csLargeString = 16*1024*1024 - 27 + 1

// TestReviewCS30LargeEvents follows jstests/change_streams/
// split_large_event.js: an update of a 16 MiB document with pre- and
// post-images makes an event of about 48 MiB. Without
// $changeStreamSplitLargeEvent the stream fails with 10334
// BSONObjectTooLarge when it reaches the event (plan_executor_pipeline
// serialising it); with it, the event comes in 3 fragments, each with its
// own resume token and splitEvent {fragment, of}, one per batch (a batch
// holds 16 MiB). Resuming from a fragment's token returns the fragments
// after it; from the last one with a pipeline that splits the event
// differently, or without images (too small to split), is 280; from a
// fragment's token without the stage, 280 at once.
func TestReviewCS30LargeEvents(t *testing.T) {
	t.Parallel()
	db := csOpenDisk(t)
	mustRun(t, db, "d", `{"create": "c", "changeStreamPreAndPostImages": {"enabled": true}}`)
	csWrite(t, db, "insert a 16 MiB document", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{
		bson.D{{Key: "_id", Value: "aaa"}, {Key: "a", Value: strings.Repeat("x", csLargeString)}}}}})
	_, r := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	start := field(r, "cursor.postBatchResumeToken._data").(string)
	csWrite(t, db, "update it to another 16 MiB", bson.D{{Key: "update", Value: "c"}, {Key: "updates", Value: bson.A{bson.D{
		{Key: "q", Value: bson.D{{Key: "_id", Value: "aaa"}}},
		{Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: strings.Repeat("y", csLargeString)}}}}}}}}})
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": "after"}]}`)

	open := func(pipeline, opts string) (int64, error) {
		r, err := run(t, db, "d", fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {%s}}%s], "cursor": {"batchSize": 0}}`, opts, pipeline))
		if err != nil {
			return 0, err
		}
		return field(r, "cursor.id").(int64), nil
	}
	images := fmt.Sprintf(`"fullDocument": "required", "fullDocumentBeforeChange": "required", "resumeAfter": {"_data": %q}`, start)

	// Without the stage: 10334, with mongod's message.
	id, err := open("", images)
	if err != nil {
		t.Fatal(err)
	}
	r, err = csGetMore(t, db, "d", "c", id)
	csCheckErr(t, "a 48 MiB event without $changeStreamSplitLargeEvent", r, err, 10334, "BSONObjectTooLarge", "is invalid. Size must be between 0 and 16793600(16MB) First element: _id: { _data: ")
	// The event alone (no images) is 16 MiB and some: under mongod's
	// 16 MiB + 16 KiB, it comes whole.
	id, _ = open("", fmt.Sprintf(`"resumeAfter": {"_data": %q}`, start))
	r, err = csGetMore(t, db, "d", "c", id)
	if err != nil || len(csBatch(t, r)) != 1 {
		t.Fatalf("the update event without images: %v", err)
	}

	// With it: three fragments, one per batch.
	id, err = open(`, {"$changeStreamSplitLargeEvent": {}}`, images)
	if err != nil {
		t.Fatal(err)
	}
	var tokens []bson.D
	whole := bson.D{}
	for i := 1; i <= 3; i++ {
		r, err := csGetMore(t, db, "d", "c", id)
		if err != nil {
			t.Fatalf("fragment %d: %v", i, err)
		}
		b := csBatch(t, r)
		if len(b) != 1 {
			t.Fatalf("batch %d holds %d events, want one fragment (16 MiB a batch)", i, len(b))
		}
		f := b[0]
		if got := csJSON(t, field(f, "splitEvent")); got != fmt.Sprintf(`{"fragment":%d,"of":3}`, i) {
			t.Errorf("fragment %d: splitEvent %s", i, got)
		}
		if f[0].Key != "_id" || f[1].Key != "splitEvent" {
			t.Errorf("fragment %d begins with %s, want _id,splitEvent", i, csKeys(f[:2]))
		}
		if pbrt := field(r, "cursor.postBatchResumeToken"); document.Compare(pbrt, f[0].Value) != 0 {
			t.Errorf("fragment %d: postBatchResumeToken %v, want the fragment's _id %v", i, pbrt, f[0].Value)
		}
		tokens = append(tokens, f[0].Value.(bson.D))
		whole = append(whole, f[2:]...)
	}
	if got := csKeys(whole); !strings.Contains(got, "fullDocument") || !strings.Contains(got, "fullDocumentBeforeChange") || !strings.Contains(got, "updateDescription") || !strings.Contains(got, "operationType") {
		t.Errorf("the fragments hold %s, want every field of the event", got)
	}
	for _, p := range []string{"fullDocument.a", "fullDocumentBeforeChange.a", "updateDescription.updatedFields.a"} {
		if s, _ := field(whole, p).(string); len(s) != csLargeString {
			t.Errorf("%s: %d bytes in the fragments, want %d", p, len(s), csLargeString)
		}
	}
	r, err = csGetMore(t, db, "d", "c", id)
	if b := csBatch(t, r); err != nil || len(b) != 1 || field(b[0], "documentKey._id") != "after" {
		t.Errorf("after the fragments: %v %v, want the next insert", b, err)
	}

	// Resumed from the second-last fragment: the last one.
	resume := func(tok bson.D) string { return fmt.Sprintf(`"resumeAfter": %s`, csJSON(t, tok)) }
	id, err = open(`, {"$changeStreamSplitLargeEvent": {}}`, `"fullDocument": "required", "fullDocumentBeforeChange": "required", `+resume(tokens[1]))
	if err != nil {
		t.Fatal(err)
	}
	r, err = csGetMore(t, db, "d", "c", id)
	if b := csBatch(t, r); err != nil || len(b) != 1 || csJSON(t, field(b[0], "splitEvent")) != `{"fragment":3,"of":3}` {
		t.Errorf("resumed after fragment 2: %v, want fragment 3 of 3", err)
	}
	// From the last one: what follows the event.
	id, _ = open(`, {"$changeStreamSplitLargeEvent": {}}`, `"fullDocument": "required", "fullDocumentBeforeChange": "required", `+resume(tokens[2]))
	r, err = csGetMore(t, db, "d", "c", id)
	if b := csBatch(t, r); err != nil || len(b) != 1 || field(b[0], "documentKey._id") != "after" {
		t.Errorf("resumed after the last fragment: %v, want the next insert", err)
	}
	// A pipeline that splits differently: 280.
	id, _ = open(`, {"$project": {"fullDocument.a": 0}}, {"$changeStreamSplitLargeEvent": {}}`, `"fullDocument": "required", "fullDocumentBeforeChange": "required", `+resume(tokens[2]))
	r, err = csGetMore(t, db, "d", "c", id)
	csCheckErr(t, "resumed with another split", r, err, 280, "ChangeStreamFatalError", "Attempted to resume from a split event, but the resumed stream produced a different split. Ensure that the pipeline used to resume is the same as the original")
	// Without images the event is not split: 280.
	id, _ = open(`, {"$changeStreamSplitLargeEvent": {}}`, resume(tokens[2]))
	r, err = csGetMore(t, db, "d", "c", id)
	csCheckErr(t, "resumed without images", r, err, 280, "ChangeStreamFatalError", "Attempted to resume from a split event fragment, but the event in the resumed stream was not large enough to be split")
	// Without the stage: 280 at once.
	_, err = open("", resume(tokens[1]))
	csCheckErr(t, "a fragment's token without the stage", nil, err, 280, "ChangeStreamFatalError", "To resume from a split event, the $changeStream pipeline must include a $changeStreamSplitLargeEvent stage")

	// serverStatus counts them as mongod's metrics.changeStreams does:
	// one event refused, three split (the first stream and the two
	// resumed ones that returned fragments; a failed resume counts none).
	st := mustRun(t, db, "admin", `{"serverStatus": 1}`)
	if got := csJSON(t, field(st, "metrics.changeStreams")); got != `{"largeEventsFailed":1,"largeEventsSplit":3,"showExpandedEvents":0}` {
		t.Errorf("metrics.changeStreams %s", got)
	}
}

// TestReviewCS30BatchBytes: a change stream batch holds at most 16 MiB
// of events (always one), as mongod's getMore fills a batch while the
// next document fits (FindCommon::haveSpaceForNext); the next event
// starts the next batch. Three 6 MiB inserts come two, then one.
func TestReviewCS30BatchBytes(t *testing.T) {
	t.Parallel()
	db := csOpenDisk(t)
	id, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	big := strings.Repeat("z", 6<<20)
	for i := 0; i < 3; i++ {
		csWrite(t, db, "insert 6 MiB", bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: bson.A{bson.D{{Key: "_id", Value: int32(i)}, {Key: "s", Value: big}}}}})
	}
	for i, want := range []int{2, 1} {
		r, err := csGetMore(t, db, "d", "c", id)
		if err != nil {
			t.Fatal(err)
		}
		if n := len(csBatch(t, r)); n != want {
			t.Errorf("batch %d: %d events, want mongod's %d (16 MiB a batch)", i, n, want)
		}
	}
}

// TestReviewCS30ResumedPostBatchResumeToken: a stream resumed with
// resumeAfter or startAfter answers, until it reads past that point, with
// the very token it was given as postBatchResumeToken (mongod sets the
// initial one from the resume token: change_stream_helpers'
// resolveResumeTokenFromSpec, then PlanExecutorPipeline keeps it while
// the oplog has not moved). A driver reports it as ResumeToken().
func TestReviewCS30ResumedPostBatchResumeToken(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}]}`)
	_, r := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"ttlkvFromOldest": true}}], "cursor": {}}`)
	tok := field(csBatch(t, r)[0], "_id").(bson.D)
	for _, opt := range []string{"resumeAfter", "startAfter"} {
		id, r := csOpenCursor(t, db, "d", fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {%q: %s}}], "cursor": {}}`, opt, csJSON(t, tok)))
		if got := field(r, "cursor.postBatchResumeToken"); document.Compare(got, tok) != 0 {
			t.Errorf("%s: first postBatchResumeToken %v, want the token given, %v", opt, got, tok)
		}
		r, _ = csGetMore(t, db, "d", "c", id)
		if got := field(r, "cursor.postBatchResumeToken"); document.Compare(got, tok) != 0 {
			t.Errorf("%s: empty getMore's postBatchResumeToken %v, want the token given, %v", opt, got, tok)
		}
	}
}

// TestReviewCS30ResumeOptionErrors: mongod 7.0's
// assertIsLegalSpecification reads the resume token before it compares
// the resume options, so a malformed token with startAtOperationTime is
// the token's error (40647), not 40674; its 40674 and 260 messages end
// without a period.
func TestReviewCS30ResumeOptionErrors(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}]}`)
	_, r := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"ttlkvFromOldest": true}}], "cursor": {}}`)
	tok := field(csBatch(t, r)[0], "_id._data").(string)
	exact := func(cmd string, code int32, msg string) {
		t.Helper()
		r, err := run(t, db, "d", cmd)
		csCheckErr(t, cmd, r, err, code, "", msg)
		if e, _ := get(r, "errmsg"); e != msg {
			t.Errorf("%s: errmsg %q, want mongod's %q", cmd, e, msg)
		}
	}
	exact(`{"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {"x": 1}, "startAtOperationTime": {"$timestamp": {"t": 1, "i": 0}}}}], "cursor": {}}`,
		40647, "Bad resume token: _data of missing or of wrong type. Expected string, got missing")
	exact(fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": %q}, "startAtOperationTime": {"$timestamp": {"t": 1, "i": 0}}}}], "cursor": {}}`, tok),
		40674, "Only one type of resume option is allowed, but multiple were found")
	mustRun(t, db, "d", `{"drop": "c"}`)
	_, r = csOpenCursor(t, db, "d", fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": %q}}}], "cursor": {}}`, tok))
	var inv string
	for _, ev := range csBatch(t, r) {
		if field(ev, "operationType") == "invalidate" {
			inv = field(ev, "_id._data").(string)
		}
	}
	exact(fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": %q}}}], "cursor": {}}`, inv),
		260, "Attempting to resume a change stream using 'resumeAfter' is not allowed from an invalidate notification")
}

// TestReviewCS30HistoryLostMessage: a resume point the log no longer
// holds is 286 ChangeStreamHistoryLost in mongod's exact words
// (document_source_change_stream_check_resumability.cpp), which tools
// match ("the resume point may no longer be in the oplog"), with the
// NonResumableChangeStreamError label.
func TestReviewCS30HistoryLostMessage(t *testing.T) {
	t.Parallel()
	db, _, _ := openTestWith(t, func(o *Options) { o.InMemory, o.ChangeStreams, o.ChangeStreamMaxEvents = true, true, 50 })
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": -1}]}`)
	_, r := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"ttlkvFromOldest": true}}], "cursor": {}}`)
	tok := field(csBatch(t, r)[0], "_id._data").(string)
	for i := 0; i < 200; i++ {
		mustRun(t, db, "d", fmt.Sprintf(`{"insert": "c", "documents": [{"_id": %d}]}`, i))
	}
	if err := db.store.TrimChanges(); err != nil {
		t.Fatal(err)
	}
	r, err := run(t, db, "d", fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": %q}}}], "cursor": {}}`, tok))
	const msg = "Resume of change stream was not possible, as the resume point may no longer be in the oplog."
	csCheckErr(t, "resumeAfter a trimmed event", r, err, 286, "ChangeStreamHistoryLost", msg)
	if e, _ := get(r, "errmsg"); e != msg {
		t.Errorf("errmsg %q, want mongod's %q", e, msg)
	}
	if l := csJSON(t, field(r, "errorLabels")); l != `{"v":["NonResumableChangeStreamError"]}` {
		t.Errorf("errorLabels %s", l)
	}
}

// TestReviewCS30ModifiedIDMessage: a pipeline that changes an event's
// _id stops the stream with 280, and mongod's message ends with what it
// expected and what it found (plan_executor_pipeline.cpp's
// _validateChangeStreamsResumeToken: "Expected: { _id: <token> } but
// found: { _id: <value> }", "{}" when _id is gone).
func TestReviewCS30ModifiedIDMessage(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	for _, c := range []struct{ stage, found string }{
		{`{"$project": {"_id": 0}}`, "{}"},
		{`{"$set": {"_id": 1}}`, "{ _id: 1 }"},
	} {
		id, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}, `+c.stage+`], "cursor": {}}`)
		mustRun(t, db, "d", `{"insert": "c", "documents": [{}]}`)
		r, err := csGetMore(t, db, "d", "c", id)
		csCheckErr(t, c.stage, r, err, 280, "ChangeStreamFatalError", "Only transformations that retain the unmodified _id field are allowed. Expected: { _id: { _data: \"82")
		if e, _ := get(r, "errmsg"); !strings.HasSuffix(fmt.Sprint(e), "\" } } but found: "+c.found) {
			t.Errorf("%s: errmsg %q, want it to end as mongod's with \" } } but found: %s\"", c.stage, e, c.found)
		}
	}
}

// TestReviewCS30GetMoreAwait pins how long a change stream's getMore
// waits: its maxTimeMS, 0 included (no wait), and a second without one,
// as mongod's awaitData getMore (getmore_cmd.cpp:
// cmd.getMaxTimeMS().value_or(1000)).
func TestReviewCS30GetMoreAwait(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		cmd  string
		want time.Duration
	}{
		{`{"getMore": {"$numberLong": "1"}, "collection": "c"}`, time.Second},
		{`{"getMore": {"$numberLong": "1"}, "collection": "c", "maxTimeMS": 0}`, 0},
		{`{"getMore": {"$numberLong": "1"}, "collection": "c", "maxTimeMS": 250}`, 250 * time.Millisecond},
	} {
		cmd, err := document.ParseExtJSON([]byte(c.cmd))
		if err != nil {
			t.Fatal(err)
		}
		if got := changeStreamAwait(cmd); got != c.want {
			t.Errorf("%s: waits %v, want %v", c.cmd, got, c.want)
		}
	}
}

// TestReviewCS30FutureStartPostBatchResumeToken: a stream that starts at
// an operation time in the future returns no event and keeps its first
// postBatchResumeToken while writes happen before that time
// (jstests/change_streams/report_post_batch_resume_token.js, with
// Timestamp(4102444800, 1)).
func TestReviewCS30FutureStartPostBatchResumeToken(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	id, r := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"startAtOperationTime": {"$timestamp": {"t": 4102444800, "i": 1}}}}], "cursor": {}}`)
	first := field(r, "cursor.postBatchResumeToken")
	for i := 0; i < 3; i++ {
		mustRun(t, db, "d", fmt.Sprintf(`{"insert": "c", "documents": [{"_id": %d}]}`, i))
		r, err := csGetMore(t, db, "d", "c", id)
		if err != nil {
			t.Fatal(err)
		}
		if b := csBatch(t, r); len(b) != 0 {
			t.Fatalf("events before the start time: %v", b)
		}
		if got := field(r, "cursor.postBatchResumeToken"); document.Compare(got, first) != 0 {
			t.Errorf("postBatchResumeToken %v after a write before the start time, want it unchanged, %v", got, first)
		}
	}
}

// TestReviewCS30ShowExpandedEventsMetric: serverStatus'
// metrics.changeStreams.showExpandedEvents counts the streams opened
// with showExpandedEvents, as mongod 7.0's.
func TestReviewCS30ShowExpandedEventsMetric(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"showExpandedEvents": true}}], "cursor": {}}`)
	csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	st := mustRun(t, db, "admin", `{"serverStatus": 1}`)
	if got := csJSON(t, field(st, "metrics.changeStreams")); got != `{"largeEventsFailed":0,"largeEventsSplit":0,"showExpandedEvents":1}` {
		t.Errorf("metrics.changeStreams %s", got)
	}
}

// TestReviewCS30StartAfterInvalidateTwice follows jstests/change_streams/
// multiple_invalidate_events.js: a collection stream started after an
// invalidate sees the collection made again, and its next drop ends it
// with another invalidate, whose token starts the next stream; a
// database stream likewise after dropDatabase.
func TestReviewCS30StartAfterInvalidateTwice(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	ops := func(evs []bson.D) string {
		var s []string
		for _, ev := range evs {
			s = append(s, fmt.Sprint(field(ev, "operationType")))
		}
		return strings.Join(s, ",")
	}
	read := func(agg string) ([]bson.D, bson.D, int64) {
		t.Helper()
		id, r := csOpenCursor(t, db, "d", agg)
		evs := csBatch(t, r)
		tok, _ := field(r, "cursor.postBatchResumeToken").(bson.D)
		return evs, tok, id
	}
	for _, c := range []struct {
		name, target, drop, want string
	}{
		{"collection", `"c"`, `{"drop": "c"}`, "create,insert,drop,invalidate"},
		{"database", `1`, `{"dropDatabase": 1}`, "create,insert,drop,dropDatabase,invalidate"},
	} {
		mustRun(t, db, "d", `{"create": "c"}`)
		mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 0}]}`)
		_, start, _ := read(fmt.Sprintf(`{"aggregate": %s, "pipeline": [{"$changeStream": {"showExpandedEvents": true}}], "cursor": {}}`, c.target))
		mustRun(t, db, "d", c.drop)
		evs, tok, id := read(fmt.Sprintf(`{"aggregate": %s, "pipeline": [{"$changeStream": {"showExpandedEvents": true, "startAfter": %s}}], "cursor": {}}`, c.target, csJSON(t, start)))
		if got := ops(evs); !strings.HasSuffix(got, "invalidate") || id != 0 {
			t.Fatalf("%s: first stream %s (cursor %d), want it to end with invalidate and a closed cursor", c.name, got, id)
		}
		for round := 1; round <= 2; round++ {
			mustRun(t, db, "d", `{"create": "c"}`)
			mustRun(t, db, "d", fmt.Sprintf(`{"insert": "c", "documents": [{"_id": %d}]}`, round))
			mustRun(t, db, "d", c.drop)
			evs, tok, id = read(fmt.Sprintf(`{"aggregate": %s, "pipeline": [{"$changeStream": {"showExpandedEvents": true, "startAfter": %s}}], "cursor": {}}`, c.target, csJSON(t, tok)))
			if got := ops(evs); got != c.want || id != 0 {
				t.Errorf("%s, round %d: %s (cursor %d), want mongod's %s and a closed cursor", c.name, round, got, id, c.want)
			}
		}
	}
}
