package engine

// Review (session 28) of change stream options and event shapes against
// mongod 7.0, beside review_cs_test.go. Each test names its evidence
// (files of github.com/mongodb/mongo) and expects mongod's exact answer.

import (
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// TestReviewCSOpt28OptionTypes: the $changeStream argument is parsed by
// its IDL struct (src/mongo/db/pipeline/document_source_change_stream.idl:
// resumeAfter and startAfter are resumeToken, an object;
// startAtOperationTime a timestamp; showExpandedEvents and
// allChangesForCluster bool), so a field of another type is 14
// TypeMismatch "BSON field '$changeStream.<f>' is the wrong type '<t>',
// expected type '<want>'" (src/mongo/idl/idl_parser.cpp).
func TestReviewCSOpt28OptionTypes(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	for _, c := range []struct{ opt, frag string }{
		{`"resumeAfter": 1`, "BSON field '$changeStream.resumeAfter' is the wrong type 'int', expected type 'object'"},
		{`"startAfter": "x"`, "BSON field '$changeStream.startAfter' is the wrong type 'string', expected type 'object'"},
		{`"startAtOperationTime": 1`, "BSON field '$changeStream.startAtOperationTime' is the wrong type 'int', expected type 'timestamp'"},
		{`"showExpandedEvents": 1`, "BSON field '$changeStream.showExpandedEvents' is the wrong type 'int', expected type 'bool'"},
		{`"allChangesForCluster": "yes"`, "BSON field '$changeStream.allChangesForCluster' is the wrong type 'string', expected type 'bool'"},
	} {
		csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {`+c.opt+`}}], "cursor": {}}`, 14, "TypeMismatch", c.frag)
	}
}

// TestReviewCSOpt28ResumeAfterInvalidate: resumeAfter an invalidate
// event's token is 260 InvalidResumeToken "Attempting to resume a change
// stream using 'resumeAfter' is not allowed from an invalidate
// notification." (document_source_change_stream.cpp,
// assertIsLegalSpecification; jstests/change_streams/
// whole_db_resumability.js and change_stream.js resume after an
// invalidate with startAfter only).
func TestReviewCSOpt28ResumeAfterInvalidate(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}]}`)
	id, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	mustRun(t, db, "d", `{"drop": "c"}`)
	g, err := csGetMore(t, db, "d", "c", id)
	if err != nil {
		t.Fatal(err)
	}
	evs := csBatch(t, g)
	if opsOf(evs) != "[drop invalidate]" {
		t.Fatalf("events %v", evs)
	}
	inv := field(evs[1], "_id._data").(string)
	csWant(t, db, "d", fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": %q}}}], "cursor": {}}`, inv),
		260, "InvalidResumeToken", "Attempting to resume a change stream using 'resumeAfter' is not allowed from an invalidate notification")
	// startAfter it: the next event is the new collection's insert.
	id, _ = csOpenCursor(t, db, "d", fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {"startAfter": {"_data": %q}}}], "cursor": {}}`, inv))
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 2}]}`)
	g, err = csGetMore(t, db, "d", "c", id)
	if err != nil {
		t.Fatal(err)
	}
	if evs := csBatch(t, g); opsOf(evs) != "[insert]" || csJSON(t, field(evs[0], "documentKey")) != `{"_id":2}` {
		t.Errorf("after startAfter the invalidate: %v", evs)
	}
}

// TestReviewCSOpt28RequiredImageMessages: the whole message of a missing
// required image names the event as a document of its operationType, ns
// and clusterTime (src/mongo/db/pipeline/
// document_source_change_stream_add_pre_image.cpp,
// makePreImageNotFoundErrorMsg, and ..._add_post_image.cpp), printed as
// mongod prints a Document: {operationType: "update", ns: {db: "d",
// coll: "c"}, clusterTime: Timestamp(s, i)}.
func TestReviewCSOpt28RequiredImageMessages(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}]}`)
	plain, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	post, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"fullDocument": "required"}}], "cursor": {}}`)
	pre, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"fullDocumentBeforeChange": "required"}}], "cursor": {}}`)
	mustRun(t, db, "d", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 1}}}]}`)
	g, err := csGetMore(t, db, "d", "c", plain)
	if err != nil {
		t.Fatal(err)
	}
	ct := field(csBatch(t, g)[0], "clusterTime").(bson.Timestamp)
	ev := fmt.Sprintf(`{operationType: "update", ns: {db: "d", coll: "c"}, clusterTime: Timestamp(%d, %d)}`, ct.T, ct.I)
	for _, c := range []struct {
		id   int64
		want string
	}{
		{post, "Change stream was configured to require a post-image for all update events, but the post-image was not found for event: " + ev},
		{pre, "Change stream was configured to require a pre-image for all update, delete and replace events, but the pre-image was not found for event: " + ev},
	} {
		r, err := csGetMore(t, db, "d", "c", c.id)
		csCheckErr(t, "getMore", r, err, 47, "NoMatchingDocument", c.want)
		if e, ok := err.(*Error); ok && e.Message != c.want {
			t.Errorf("message %q, want mongod's %q", e.Message, c.want)
		}
	}
}

// TestReviewCSOpt28InternalNamespacesNotReported: a whole-cluster stream
// reports no event of the admin, config or local databases, and no
// stream reports writes to a system.* collection (mongod's namespace
// filter, src/mongo/db/pipeline/change_stream_filter_helpers.cpp and
// document_source_change_stream.cpp getNsRegexForChangeStream: the
// cluster regex excludes admin, config and local, every regex excludes
// "system." collections; jstests/change_streams/whole_cluster.js and
// whole_db.js: "Test that the change stream ... does not see ... system
// collections").
func TestReviewCSOpt28InternalNamespacesNotReported(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	all, _ := csOpenCursor(t, db, "admin", `{"aggregate": 1, "pipeline": [{"$changeStream": {"allChangesForCluster": true}}], "cursor": {}}`)
	one, _ := csOpenCursor(t, db, "d", `{"aggregate": 1, "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	mustRun(t, db, "admin", `{"insert": "a", "documents": [{"_id": 1}]}`)
	mustRun(t, db, "d", `{"insert": "system.js", "documents": [{"_id": "f", "value": 1}]}`)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 2}]}`)
	for _, c := range []struct {
		dbName string
		id     int64
	}{{"admin", all}, {"d", one}} {
		g, err := run(t, db, c.dbName, fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "$cmd.aggregate", "maxTimeMS": 1}`, c.id))
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range csBatch(t, g) {
			got = append(got, csJSON(t, field(e, "ns")))
		}
		if fmt.Sprint(got) != `[{"db":"d","coll":"c"}]` {
			t.Errorf("%s stream: events of %v, want mongod's [d.c] only", c.dbName, got)
		}
	}
}

// TestReviewCSOpt28StartAtOperationTime: startAtOperationTime includes
// the events at that clusterTime (jstests/change_streams/
// start_at_cluster_time.js), and it is exclusive with startAfter too
// (40674, assertIsLegalSpecification).
func TestReviewCSOpt28StartAtOperationTime(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	id, r := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	tok := field(r, "cursor.postBatchResumeToken._data").(string)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}]}`)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 2}]}`)
	g, err := csGetMore(t, db, "d", "c", id)
	if err != nil {
		t.Fatal(err)
	}
	evs := csBatch(t, g)
	ct := field(evs[1], "clusterTime").(bson.Timestamp)
	_, r = csOpenCursor(t, db, "d", fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {"startAtOperationTime": {"$timestamp": {"t": %d, "i": %d}}}}], "cursor": {}}`, ct.T, ct.I))
	if b := csBatch(t, r); len(b) != 1 || csJSON(t, field(b[0], "documentKey")) != `{"_id":2}` {
		t.Errorf("startAtOperationTime of the second insert: %v", b)
	}
	csWant(t, db, "d", fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {"startAfter": {"_data": %q}, "startAtOperationTime": {"$timestamp": {"t": 1, "i": 0}}}}], "cursor": {}}`, tok),
		40674, "Location40674", "Only one type of resume option is allowed, but multiple were found")
}

// TestReviewCSOpt28RenameOverTarget: a rename with dropTarget over an
// existing collection is one event, the rename: mongod drops the target
// within the rename, whose oplog entry names it (operationDescription's
// dropTarget, jstests/change_streams/show_expanded_events.js, "'rename'
// operation with 'dropTarget: true' when target collection exists"), and
// logs no drop. A stream on the target sees the rename, then invalidate.
func TestReviewCSOpt28RenameOverTarget(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	mustRun(t, db, "d", `{"insert": "a", "documents": [{"_id": 1}]}`)
	mustRun(t, db, "d", `{"insert": "b", "documents": [{"_id": 2}]}`)
	whole, _ := csOpenCursor(t, db, "d", `{"aggregate": 1, "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	onB, _ := csOpenCursor(t, db, "d", `{"aggregate": "b", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	mustRun(t, db, "admin", `{"renameCollection": "d.a", "to": "d.b", "dropTarget": true}`)
	g, err := run(t, db, "d", fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": "$cmd.aggregate", "maxTimeMS": 1}`, whole))
	if err != nil {
		t.Fatal(err)
	}
	if got := opsOf(csBatch(t, g)); got != "[rename]" {
		t.Errorf("database stream: %s, want mongod's [rename]", got)
	}
	g, err = csGetMore(t, db, "d", "b", onB)
	if err != nil {
		t.Fatal(err)
	}
	if got := opsOf(csBatch(t, g)); got != "[rename invalidate]" {
		t.Errorf("stream on the target: %s, want mongod's [rename invalidate]", got)
	}
	if got := mustRun(t, db, "d", `{"find": "b"}`); csJSON(t, field(got, "cursor.firstBatch")) != `{"v":[{"_id":1}]}` {
		t.Errorf("d.b after the rename: %v", got)
	}
	// $out over an existing collection renames its temporary collection
	// onto it: the target's stream sees that rename, then invalidate
	// (jstests/change_streams/metadata_notifications.js).
	onB, _ = csOpenCursor(t, db, "d", `{"aggregate": "b", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	mustRun(t, db, "d", `{"aggregate": "b", "pipeline": [{"$out": "b"}], "cursor": {}}`)
	g, err = csGetMore(t, db, "d", "b", onB)
	if err != nil {
		t.Fatal(err)
	}
	if evs := csBatch(t, g); opsOf(evs) != "[rename invalidate]" || csJSON(t, field(evs[0], "to")) != `{"db":"d","coll":"b"}` {
		t.Errorf("stream on $out's target: %v, want mongod's rename (to d.b), invalidate", evs)
	}
	res, err := db.CheckChangeLog(context.Background())
	if err != nil || len(res.Problems) != 0 {
		t.Errorf("CheckChangeLog: %v %v", err, res)
	}
}

// TestReviewCSOpt28BannedFromSubPipelines: $changeStream may not be used
// in a $lookup's sub-pipeline, at any depth (51047,
// jstests/change_streams/change_stream_ban_from_lookup.js), nor in a
// $unionWith's (31441) or a $facet (40600), whose stage constraints
// refuse it as they refuse $out.
func TestReviewCSOpt28BannedFromSubPipelines(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}]}`)
	for _, c := range []struct {
		pipe string
		code int32
		frag string
	}{
		{`[{"$lookup": {"from": "c", "as": "as", "pipeline": [{"$changeStream": {}}]}}]`, 51047, " is not allowed within a $lookup's sub-pipeline"},
		{`[{"$lookup": {"from": "c", "as": "as", "pipeline": [{"$match": {"_id": 1}}, {"$lookup": {"from": "c", "as": "subas", "pipeline": [{"$changeStream": {}}]}}]}}]`, 51047, " is not allowed within a $lookup's sub-pipeline"},
		{`[{"$unionWith": {"coll": "c", "pipeline": [{"$changeStream": {}}]}}]`, 31441, " is not allowed within a $unionWith's sub-pipeline"},
		{`[{"$facet": {"x": [{"$changeStream": {}}]}}]`, 40600, " is not allowed to be used within a $facet stage"},
	} {
		csWant(t, db, "d", `{"aggregate": "c", "pipeline": `+c.pipe+`, "cursor": {}}`, c.code, "", c.frag)
	}
}

// TestReviewCSOpt28ResumeFromHiddenEvent: a stream resumed from the
// token of an event it does not show (a create, seen only with
// showExpandedEvents) never finds that event: mongod's oplog filter
// leaves DDL entries out without the option, and the first event past
// the token fails the stream with 280 "cannot resume stream; the resume
// token was not found" (document_source_change_stream_check_resumability.cpp,
// ..._ensure_resume_token_present.cpp).
func TestReviewCSOpt28ResumeFromHiddenEvent(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	id, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"showExpandedEvents": true}}], "cursor": {}}`)
	mustRun(t, db, "d", `{"create": "c"}`)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}]}`)
	g, err := csGetMore(t, db, "d", "c", id)
	if err != nil {
		t.Fatal(err)
	}
	evs := csBatch(t, g)
	if opsOf(evs) != "[create insert]" {
		t.Fatalf("events %v", evs)
	}
	tok := field(evs[0], "_id._data").(string)
	csWant(t, db, "d", fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": %q}}}], "cursor": {}}`, tok),
		280, "ChangeStreamFatalError", "cannot resume stream; the resume token was not found")
	_, r := csOpenCursor(t, db, "d", fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": %q}, "showExpandedEvents": true}}], "cursor": {}}`, tok))
	if got := opsOf(csBatch(t, r)); got != "[insert]" {
		t.Errorf("resumed with showExpandedEvents: %s", got)
	}
}

// TestReviewCSOpt28ResumeAfterInvalidatingEvent: a collection stream
// resumed after its collection's drop (the drop event's token, not the
// invalidate's) ends at once with the invalidate that followed the drop:
// mongod's check-invalidate stage makes the invalidate from the drop
// before the resume-token check swallows the drop itself
// (document_source_change_stream_check_invalidate.cpp; jstests/
// change_streams/metadata_notifications.js resumes "from the collection
// drop" and reads one more event).
func TestReviewCSOpt28ResumeAfterInvalidatingEvent(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}]}`)
	id, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	mustRun(t, db, "d", `{"drop": "c"}`)
	g, err := csGetMore(t, db, "d", "c", id)
	if err != nil {
		t.Fatal(err)
	}
	evs := csBatch(t, g)
	if opsOf(evs) != "[drop invalidate]" {
		t.Fatalf("events %v", evs)
	}
	drop := field(evs[0], "_id._data").(string)
	id, r := csOpenCursor(t, db, "d", fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": %q}}}], "cursor": {}}`, drop))
	b := csBatch(t, r)
	if opsOf(b) != "[invalidate]" || id != 0 {
		t.Fatalf("resumed after the drop: %v, cursor %d; mongod gives the invalidate and closes the cursor", b, id)
	}
	if csJSON(t, b[0]) != csJSON(t, evs[1]) {
		t.Errorf("invalidate %s, want the same as the first stream's %s", csJSON(t, b[0]), csJSON(t, evs[1]))
	}
}

// TestReviewCSOpt28HighWaterMarkAndCollation: a postBatchResumeToken
// taken before the collection exists resumes (resumeAfter and
// startAfter) and sees every event since; a stream's $match compares
// with the simple collation, whatever the collection's, unless the
// aggregate names a collation, which it then adopts
// (jstests/change_streams/resume_from_high_water_mark_token.js).
func TestReviewCSOpt28HighWaterMarkAndCollation(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	_, r := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	hwm := field(r, "cursor.postBatchResumeToken._data").(string)
	mustRun(t, db, "d", `{"create": "c", "collation": {"locale": "en_US", "strength": 2}}`)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": "insert_one"}, {"_id": "INSERT_TWO"}]}`)
	match := `{"$match": {"$or": [{"fullDocument._id": "INSERT_ONE"}, {"fullDocument._id": "INSERT_TWO"}]}}`
	for _, c := range []struct{ opt, coll, want string }{
		{"resumeAfter", "", `["INSERT_TWO"]`},
		{"startAfter", "", `["INSERT_TWO"]`},
		{"resumeAfter", `, "collation": {"locale": "en_US", "strength": 2}`, `["insert_one","INSERT_TWO"]`},
	} {
		_, r := csOpenCursor(t, db, "d", fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {%q: {"_data": %q}}}, %s], "cursor": {}%s}`, c.opt, hwm, match, c.coll))
		var ids bson.A
		for _, e := range csBatch(t, r) {
			ids = append(ids, field(e, "fullDocument._id"))
		}
		if got := csJSON(t, ids); got != `{"v":`+c.want+`}` {
			t.Errorf("%s%s: %s, want mongod's %s", c.opt, c.coll, got, c.want)
		}
	}
}
