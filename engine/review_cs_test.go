package engine

// Review of change streams against mongod 7.0 (wire version 21): each
// test sends the same input mongod would get and expects mongod's answer.
// A failing test is a difference. The evidence for each expectation is
// named in the test's comment (files of github.com/mongodb/mongo).
// Documented ttlkv extensions (expiration events, ttlkvFromOldest, no
// collectionUUID) are not tested here.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// csOpen opens an in-memory store with change streams on.
func csOpen(t *testing.T) *DB {
	t.Helper()
	db, _, _ := openTestWith(t, func(o *Options) { o.InMemory = true; o.ChangeStreams = true })
	return db
}

// csBatch returns the documents of a cursor reply's firstBatch or
// nextBatch.
func csBatch(t *testing.T, r bson.D) []bson.D {
	t.Helper()
	v := field(r, "cursor.firstBatch")
	if v == nil {
		v = field(r, "cursor.nextBatch")
	}
	a, ok := v.(bson.A)
	if !ok {
		t.Fatalf("no batch in reply %v", r)
	}
	out := make([]bson.D, len(a))
	for i, e := range a {
		out[i] = e.(bson.D)
	}
	return out
}

// csOpenCursor runs an aggregate that must succeed and returns its
// cursor id and reply.
func csOpenCursor(t *testing.T, db *DB, dbName, cmd string) (int64, bson.D) {
	t.Helper()
	r := mustRun(t, db, dbName, cmd)
	id, _ := field(r, "cursor.id").(int64)
	return id, r
}

// csGetMore runs getMore on a change stream cursor without waiting.
func csGetMore(t *testing.T, db *DB, dbName, coll string, id int64) (bson.D, error) {
	t.Helper()
	return run(t, db, dbName, fmt.Sprintf(`{"getMore": {"$numberLong": "%d"}, "collection": %q, "maxTimeMS": 1}`, id, coll))
}

// csCheckErr checks that err (and its reply r, when not nil) carry
// mongod's code and code name, and that the message holds frag.
func csCheckErr(t *testing.T, what string, r bson.D, err error, code int32, codeName, frag string) {
	t.Helper()
	var e *Error
	if !errors.As(err, &e) {
		t.Errorf("%s: err = %v (reply %v), want mongod's %d %s", what, err, r, code, codeName)
		return
	}
	if int32(e.Code) != code || (codeName != "" && e.Name() != codeName) {
		t.Errorf("%s: got %d %s %q, want mongod's %d %s", what, e.Code, e.Name(), e.Message, code, codeName)
		return
	}
	if frag != "" && !strings.Contains(e.Message, frag) {
		t.Errorf("%s: message %q, want mongod's, which contains %q", what, e.Message, frag)
	}
	if r != nil {
		if c, _ := get(r, "code"); c != code {
			t.Errorf("%s: reply code %v, want %d", what, c, code)
		}
		if n, _ := get(r, "codeName"); codeName != "" && n != codeName {
			t.Errorf("%s: reply codeName %v, want %s", what, n, codeName)
		}
	}
}

// csWant runs cmd, which must fail with mongod's code, code name (""
// skips it) and a message holding frag.
func csWant(t *testing.T, db *DB, dbName, cmd string, code int32, codeName, frag string) {
	t.Helper()
	r, err := run(t, db, dbName, cmd)
	csCheckErr(t, cmd, r, err, code, codeName, frag)
}

// csJSON is a value as canonical-free relaxed Extended JSON, for messages
// and comparisons.
func csJSON(t *testing.T, v any) string {
	t.Helper()
	d, ok := v.(bson.D)
	if !ok {
		d = bson.D{{Key: "v", Value: v}}
	}
	b, err := document.MarshalExtJSON(d, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// csKeys is the field names of d, in order.
func csKeys(d bson.D) string {
	var k []string
	for _, e := range d {
		k = append(k, e.Key)
	}
	return strings.Join(k, ",")
}

// TestReviewCSStagesAfterChangeStream: mongod lets $match, $project,
// $addFields, $set, $replaceRoot, $replaceWith, $redact (and $unset)
// follow $changeStream (jstests/change_streams/allowlist.js, every stage
// of its allowlist alone and all together: commandWorked). ttlkv refuses
// all but $match, $project and $unset with 20.
func TestReviewCSStagesAfterChangeStream(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	for _, st := range []string{
		`{"$addFields": {"newField": 1}}`,
		`{"$set": {"newField": 1}}`,
		`{"$replaceRoot": {"newRoot": {"_id": "$_id"}}}`,
		`{"$replaceWith": {"_id": "$_id"}}`,
		`{"$redact": "$$DESCEND"}`,
	} {
		cmd := `{"aggregate": "c", "pipeline": [{"$changeStream": {}}, ` + st + `], "cursor": {}}`
		if _, err := run(t, db, "d", cmd); err != nil {
			t.Errorf("%s: %v; mongod accepts the stage", st, err)
		}
	}
	// And it applies them: an $addFields stage adds its field to each event.
	r, err := run(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}, {"$addFields": {"newField": 1}}], "cursor": {}}`)
	if err != nil {
		t.Fatalf("$addFields: %v", err)
	}
	id := field(r, "cursor.id").(int64)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}]}`)
	g, err := csGetMore(t, db, "d", "c", id)
	if err != nil {
		t.Fatal(err)
	}
	if evs := csBatch(t, g); len(evs) != 1 || field(evs[0], "newField") != int32(1) {
		t.Errorf("$addFields events %v", evs)
	}
}

// TestReviewCSRequiredImagesMissing: fullDocument "required" on an update
// without a post-image, and fullDocumentBeforeChange "required" on a
// delete without a pre-image, fail with 47 NoMatchingDocument
// ("Change stream was configured to require a post-image for all update
// events, but the post-image was not found for event: ...";
// src/mongo/db/pipeline/document_source_change_stream_add_post_image.cpp
// and ..._add_pre_image.cpp). ttlkv answers 280 ChangeStreamFatalError
// (docs/change-streams.md says 280 too, without noting it differs).
func TestReviewCSRequiredImagesMissing(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}, {"_id": 2}]}`)
	post, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"fullDocument": "required"}}], "cursor": {}}`)
	pre, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"fullDocumentBeforeChange": "required"}}, {"$match": {"operationType": "delete"}}], "cursor": {}}`)
	mustRun(t, db, "d", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 1}}}]}`)
	mustRun(t, db, "d", `{"delete": "c", "deletes": [{"q": {"_id": 2}, "limit": 1}]}`)
	r, err := csGetMore(t, db, "d", "c", post)
	csCheckErr(t, "fullDocument required", r, err, 47, "NoMatchingDocument", "Change stream was configured to require a post-image for all update events, but the post-image was not found for event")
	r, err = csGetMore(t, db, "d", "c", pre)
	csCheckErr(t, "fullDocumentBeforeChange required", r, err, 47, "NoMatchingDocument", "Change stream was configured to require a pre-image for all update, delete and replace events, but the pre-image was not found for event")
}

// TestReviewCSBatchSizeZero: aggregate with cursor {batchSize: 0} opens
// the stream and returns an empty firstBatch, whatever events are
// available; they come with the first getMore. The jstests rely on it:
// jstests/change_streams/change_stream.js opens resumed streams with
// {cursor: {batchSize: 0}} and reads the resumed events with getMore, and
// tests that resume from a token that must fail open with batchSize: 0
// ("Ensure same behavior for replica sets and sharded clusters") and see
// the error at hasNext (getMore). ttlkv treats 0 as "the default" and
// returns the events in the firstBatch.
func TestReviewCSBatchSizeZero(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	_, r := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	start := field(r, "cursor.postBatchResumeToken._data").(string)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}, {"_id": 2}]}`)
	id, r := csOpenCursor(t, db, "d", fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": %q}}}], "cursor": {"batchSize": 0}}`, start))
	if n := len(csBatch(t, r)); n != 0 || id == 0 {
		t.Errorf("batchSize 0: firstBatch of %d events, cursor %d; mongod returns an empty firstBatch and an open cursor", n, id)
	}
}

// TestReviewCSResumeTokenOfAnotherCollection: a collection stream resumed
// with the token of an event of another collection never sees that
// event, so at the first event it does see, mongod fails with 280
// ChangeStreamFatalError "cannot resume stream; the resume token was not
// found." (src/mongo/db/pipeline/
// document_source_change_stream_ensure_resume_token_present.cpp, after
// document_source_change_stream_check_resumability.cpp finds the event's
// clusterTime past the token's). ttlkv resumes from the token's position
// whatever collection it came from.
func TestReviewCSResumeTokenOfAnotherCollection(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	id, _ := csOpenCursor(t, db, "d", `{"aggregate": "a", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	mustRun(t, db, "d", `{"insert": "a", "documents": [{"_id": 1}]}`)
	g, err := csGetMore(t, db, "d", "a", id)
	if err != nil {
		t.Fatal(err)
	}
	evs := csBatch(t, g)
	if len(evs) != 1 {
		t.Fatalf("events of a: %v", evs)
	}
	tok := field(evs[0], "_id._data").(string)
	mustRun(t, db, "d", `{"insert": "b", "documents": [{"_id": 2}]}`)
	csWant(t, db, "d", fmt.Sprintf(`{"aggregate": "b", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": %q}}}], "cursor": {}}`, tok),
		280, "ChangeStreamFatalError", "cannot resume stream; the resume token was not found")
}

// TestReviewCSRenameToWatchedCollection: a rename whose target is the
// watched collection is an event of that collection's stream, which it
// then invalidates: mongod's collection stream filter matches
// {"o.renameCollection": {$exists: true}, "o.to": <watched ns>} both as
// an event ("Relevant collection was overwritten") and as an
// invalidation (src/mongo/db/pipeline/change_stream_filter_helpers.cpp,
// buildOperationFilter and buildInvalidationFilter;
// jstests/change_streams/change_stream_rename_target.js: renaming to the
// watched collection invalidates its stream). ttlkv's stream on the
// target sees nothing and stays open.
func TestReviewCSRenameToWatchedCollection(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	mustRun(t, db, "d", `{"insert": "a", "documents": [{"_id": 1}]}`)
	id, _ := csOpenCursor(t, db, "d", `{"aggregate": "b", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	mustRun(t, db, "admin", `{"renameCollection": "d.a", "to": "d.b"}`)
	g, err := csGetMore(t, db, "d", "b", id)
	if err != nil {
		t.Fatal(err)
	}
	evs := csBatch(t, g)
	if got := opsOf(evs); got != "[rename invalidate]" || field(g, "cursor.id") != int64(0) {
		t.Fatalf("stream on the rename's target: %s, cursor %v; mongod gives [rename invalidate] and closes the cursor", got, field(g, "cursor.id"))
	}
	if ns, to := csJSON(t, field(evs[0], "ns")), csJSON(t, field(evs[0], "to")); ns != `{"db":"d","coll":"a"}` || to != `{"db":"d","coll":"b"}` {
		t.Errorf("rename event ns %s to %s", ns, to)
	}
}

// TestReviewCSMalformedResumeToken: mongod parses resumeAfter and
// startAfter as ResumeToken (src/mongo/db/pipeline/resume_token.cpp): a
// token without a string _data is 40647 "Bad resume token: _data of
// missing or of wrong type. Expected string, got ..."; a _data that is not
// hex is 9 FailedToParse "resume token string was not a valid hex
// string" (checked when the stage is parsed: assertIsLegalSpecification
// in document_source_change_stream.cpp resolves the token). ttlkv answers
// 2 BadValue and 260 InvalidResumeToken.
func TestReviewCSMalformedResumeToken(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {}}}], "cursor": {}}`,
		40647, "Location40647", "Bad resume token: _data of missing or of wrong type")
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"startAfter": {"_data": 1}}}], "cursor": {}}`,
		40647, "Location40647", "Bad resume token: _data of missing or of wrong type")
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": "zz"}}}], "cursor": {}}`,
		9, "FailedToParse", "resume token string was not a valid hex string")
}

// TestReviewCSResumeAfterAndStartAfter: both resumeAfter and startAfter
// is 50865 "Do not specify both 'resumeAfter' and 'startAfter' in a
// $changeStream stage" (document_source_change_stream.cpp,
// assertIsLegalSpecification, checked before 40674, which is for
// startAtOperationTime with a token). ttlkv answers 40674.
func TestReviewCSResumeAfterAndStartAfter(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	_, r := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	tok := field(r, "cursor.postBatchResumeToken._data").(string)
	csWant(t, db, "d", fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": %q}, "startAfter": {"_data": %q}}}], "cursor": {}}`, tok, tok),
		50865, "Location50865", "Do not specify both 'resumeAfter' and 'startAfter' in a $changeStream stage")
}

// TestReviewCSNamespaces: where a stream may be opened
// (document_source_change_stream.cpp, assertIsLegalSpecification;
// jstests/change_streams/invalid_namespaces.js): the admin database only
// with allChangesForCluster ({aggregate: 1}), and never a collection of
// it; never the config or local database; never a system.* collection;
// all are 73 InvalidNamespace ("$changeStream may not be opened on the
// internal admin database", "... on the internal test.system.profile
// collection"). allChangesForCluster elsewhere is 72 InvalidOptions "A
// $changeStream with 'allChangesForCluster:true' may only be opened on the
// 'admin' database, and with no collection name; found d.c". ttlkv
// answers 72 for {aggregate: 1} on admin and opens the others.
func TestReviewCSNamespaces(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	csWant(t, db, "admin", `{"aggregate": 1, "pipeline": [{"$changeStream": {}}], "cursor": {}}`,
		73, "InvalidNamespace", "$changeStream may not be opened on the internal admin database")
	csWant(t, db, "admin", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}}`,
		73, "InvalidNamespace", "$changeStream may not be opened on the internal admin database")
	csWant(t, db, "config", `{"aggregate": 1, "pipeline": [{"$changeStream": {}}], "cursor": {}}`,
		73, "InvalidNamespace", "$changeStream may not be opened on the internal config database")
	csWant(t, db, "local", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}}`,
		73, "InvalidNamespace", "$changeStream may not be opened on the internal local database")
	csWant(t, db, "test", `{"aggregate": "system.profile", "pipeline": [{"$changeStream": {}}], "cursor": {}}`,
		73, "InvalidNamespace", "$changeStream may not be opened on the internal test.system.profile collection")
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"allChangesForCluster": true}}], "cursor": {}}`,
		72, "InvalidOptions", "A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name; found d.c")
}

// TestReviewCSStageSpecErrors: the $changeStream argument's validation
// (document_source_change_stream.cpp createFromBson; its IDL parser,
// src/mongo/idl/idl_parser.cpp): a non-object is 50808 "$changeStream
// stage expects a document as argument"; a field of the wrong type is 14
// "BSON field '$changeStream.fullDocument' is the wrong type 'int',
// expected type 'string'"; an unknown enum value is 2 "Enumeration value
// 'bogus' for field '$changeStream.fullDocument' is not a valid value.".
// ttlkv answers 14 for the first and its own messages for the others.
func TestReviewCSStageSpecErrors(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": 1}], "cursor": {}}`,
		50808, "Location50808", "$changeStream stage expects a document as argument")
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"fullDocument": 1}}], "cursor": {}}`,
		14, "TypeMismatch", "BSON field '$changeStream.fullDocument' is the wrong type 'int', expected type 'string'")
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"fullDocument": "bogus"}}], "cursor": {}}`,
		2, "BadValue", "Enumeration value 'bogus' for field '$changeStream.fullDocument' is not a valid value.")
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"fullDocumentBeforeChange": "on"}}], "cursor": {}}`,
		2, "BadValue", "Enumeration value 'on' for field '$changeStream.fullDocumentBeforeChange' is not a valid value.")
}

// TestReviewCSExpandedUpdateDisambiguatedPaths: with showExpandedEvents,
// an update event's updateDescription also has disambiguatedPaths, {}
// when no path is ambiguous
// (jstests/change_streams/expanded_update_description.js;
// src/mongo/db/pipeline/change_stream_event_transform.cpp adds the field
// when showExpandedEvents is set). ttlkv has no such field.
func TestReviewCSExpandedUpdateDisambiguatedPaths(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1, "a": 1}]}`)
	id, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"showExpandedEvents": true}}], "cursor": {}}`)
	mustRun(t, db, "d", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 2}}}]}`)
	g, err := csGetMore(t, db, "d", "c", id)
	if err != nil {
		t.Fatal(err)
	}
	evs := csBatch(t, g)
	if len(evs) != 1 {
		t.Fatalf("events %v", evs)
	}
	want := `{"updatedFields":{"a":2},"removedFields":[],"truncatedArrays":[],"disambiguatedPaths":{}}`
	if got := csJSON(t, field(evs[0], "updateDescription")); got != want {
		t.Errorf("updateDescription %s, want mongod's %s", got, want)
	}
}

// TestReviewCSFilteredInvalidateToken: when the pipeline filters out the
// invalidate event, the stream still closes and its resume token (the
// last postBatchResumeToken) is the invalidate's token, so startAfter
// it works and resumeAfter it is refused
// (jstests/change_streams/start_after_invalidation_exception.js:
// "Retrieve the final resume token in the stream, which should be the
// invalidate token"). ttlkv closes the stream but reports the drop's
// position, without the invalidate mark.
func TestReviewCSFilteredInvalidateToken(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1}]}`)
	filtered, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}, {"$match": {"operationType": "insert"}}], "cursor": {}}`)
	plain, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	mustRun(t, db, "d", `{"drop": "c"}`)
	gp, err := csGetMore(t, db, "d", "c", plain)
	if err != nil {
		t.Fatal(err)
	}
	evs := csBatch(t, gp)
	if opsOf(evs) != "[drop invalidate]" {
		t.Fatalf("unfiltered stream: %s", opsOf(evs))
	}
	inv := field(evs[1], "_id._data")
	gf, err := csGetMore(t, db, "d", "c", filtered)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(csBatch(t, gf)); n != 0 || field(gf, "cursor.id") != int64(0) {
		t.Fatalf("filtered stream: %d events, cursor %v", n, field(gf, "cursor.id"))
	}
	if got := field(gf, "cursor.postBatchResumeToken._data"); got != inv {
		t.Errorf("filtered stream's last postBatchResumeToken %v, want the invalidate's token %v", got, inv)
	}
}

// TestReviewCSRenameEventFieldOrder: mongod's rename event has its
// top-level "to" before _id: the transformation adds it while reading the
// oplog entry, before it adds the common fields
// (src/mongo/db/pipeline/change_stream_event_transform.cpp,
// ChangeStreamDefaultEventTransformation::applyTransformation, "The 'to'
// field predates the 'operationDescription' field ... We keep the
// top-level 'to' field for backwards-compatibility"). ttlkv puts it
// after ns.
func TestReviewCSRenameEventFieldOrder(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	mustRun(t, db, "d", `{"insert": "a", "documents": [{"_id": 1}]}`)
	id, _ := csOpenCursor(t, db, "d", `{"aggregate": "a", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	mustRun(t, db, "admin", `{"renameCollection": "d.a", "to": "d.a2"}`)
	g, err := csGetMore(t, db, "d", "a", id)
	if err != nil {
		t.Fatal(err)
	}
	evs := csBatch(t, g)
	if len(evs) == 0 || field(evs[0], "operationType") != "rename" {
		t.Fatalf("events %v", evs)
	}
	if got, want := csKeys(evs[0]), "to,_id,operationType,clusterTime,wallTime,ns"; got != want {
		t.Errorf("rename event fields %s, want mongod's %s", got, want)
	}
}

// TestReviewCSInternalStageOptions: the $changeStream IDL has fields
// beyond the public ones, which mongod accepts with their default values
// (document_source_change_stream.idl; document_source_change_stream.cpp
// reads showMigrationEvents and allowToRunOnConfigDB). ttlkv refuses them
// as unknown (40415).
func TestReviewCSInternalStageOptions(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	for _, opt := range []string{`"showMigrationEvents": false`, `"allowToRunOnConfigDB": false`} {
		cmd := `{"aggregate": "c", "pipeline": [{"$changeStream": {` + opt + `}}], "cursor": {}}`
		if _, err := run(t, db, "d", cmd); err != nil {
			t.Errorf("%s: %v; mongod accepts it", opt, err)
		}
	}
}

// TestReviewCSNonResumableErrorLabel: a change stream error of the
// NonResumableChangeStreamError category (280 ChangeStreamFatalError, 286
// ChangeStreamHistoryLost: src/mongo/base/error_codes.yml) carries the
// errorLabel "NonResumableChangeStreamError" in mongod's reply
// (src/mongo/db/error_labels.cpp, ErrorLabelBuilder::build;
// jstests/change_streams/error_label.js: a getMore failing with 280
// after {$project: {_id: 0}} has errorLabels containing it). ttlkv's
// replies have no errorLabels.
func TestReviewCSNonResumableErrorLabel(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	id, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}, {"$project": {"_id": 0}}], "cursor": {"batchSize": 1}}`)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"a": 1}]}`)
	r, err := csGetMore(t, db, "d", "c", id)
	csCheckErr(t, "getMore", r, err, 280, "ChangeStreamFatalError", "")
	labels, _ := field(r, "errorLabels").(bson.A)
	found := false
	for _, l := range labels {
		found = found || l == "NonResumableChangeStreamError"
	}
	if !found {
		t.Errorf("getMore reply %v: errorLabels %v, want mongod's [NonResumableChangeStreamError]", r, labels)
	}
}

// TestReviewCSMatches pins what already answers as mongod does.
func TestReviewCSMatches(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	ctx := context.Background()
	// Placement, unknown options, denied stages, views, resume options
	// (document_source_change_stream.cpp; allowlist.js; ban_from_views.js).
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$match": {}}, {"$changeStream": {}}], "cursor": {}}`, 40602, "Location40602", "$changeStream is only valid as the first stage in a pipeline")
	csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"bogus": 1}}], "cursor": {}}`, 40415, "", "BSON field '$changeStream.bogus' is an unknown field.")
	for _, st := range []string{`{"$group": {"_id": "$_id"}}`, `{"$sort": {"_id": 1}}`, `{"$limit": 1}`, `{"$unwind": "$_id"}`} {
		csWant(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}, `+st+`], "cursor": {}}`, 20, "IllegalOperation", "is not permitted in a $changeStream pipeline")
	}
	mustRun(t, db, "d", `{"create": "v", "viewOn": "c", "pipeline": []}`)
	csWant(t, db, "d", `{"aggregate": "v", "pipeline": [{"$changeStream": {}}], "cursor": {}}`, 166, "CommandNotSupportedOnView", "")
	_, r := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	tok := field(r, "cursor.postBatchResumeToken._data").(string)
	if ks := csKeys(field(r, "cursor").(bson.D)); ks != "firstBatch,postBatchResumeToken,id,ns" {
		t.Errorf("cursor fields %s", ks)
	}
	csWant(t, db, "d", fmt.Sprintf(`{"aggregate": "c", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": %q}, "startAtOperationTime": {"$timestamp": {"t": 1, "i": 0}}}}], "cursor": {}}`, tok), 40674, "Location40674", "Only one type of resume option is allowed, but multiple were found")

	// Event shapes and field order (change_stream_event_transform.cpp):
	// _id, operationType, clusterTime, wallTime, fullDocument, ns,
	// documentKey, updateDescription, then fullDocumentBeforeChange.
	mustRun(t, db, "d", `{"create": "p", "changeStreamPreAndPostImages": {"enabled": true}}`)
	id, _ := csOpenCursor(t, db, "d", `{"aggregate": "p", "pipeline": [{"$changeStream": {"fullDocument": "updateLookup", "fullDocumentBeforeChange": "whenAvailable"}}], "cursor": {}}`)
	mustRun(t, db, "d", `{"insert": "p", "documents": [{"_id": 1, "a": 1}]}`)
	mustRun(t, db, "d", `{"update": "p", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 1}}}]}`) // a no-op: no event
	mustRun(t, db, "d", `{"update": "p", "updates": [{"q": {"_id": 1}, "u": {"$set": {"a": 2}, "$unset": {"zz": ""}}}]}`)
	mustRun(t, db, "d", `{"update": "p", "updates": [{"q": {"_id": 1}, "u": {"b": 1}}]}`)
	mustRun(t, db, "d", `{"update": "p", "updates": [{"q": {"_id": 2}, "u": {"$set": {"c": 1}}, "upsert": true}]}`)
	mustRun(t, db, "d", `{"delete": "p", "deletes": [{"q": {"_id": 1}, "limit": 1}]}`)
	mustRun(t, db, "d", `{"drop": "p"}`)
	g, err := csGetMore(t, db, "d", "p", id)
	if err != nil {
		t.Fatal(err)
	}
	evs := csBatch(t, g)
	if got := opsOf(evs); got != "[insert update replace insert delete drop invalidate]" {
		t.Fatalf("operations %s", got)
	}
	wantKeys := []string{
		"_id,operationType,clusterTime,wallTime,fullDocument,ns,documentKey",
		"_id,operationType,clusterTime,wallTime,fullDocument,ns,documentKey,updateDescription,fullDocumentBeforeChange",
		"_id,operationType,clusterTime,wallTime,fullDocument,ns,documentKey,fullDocumentBeforeChange",
		"_id,operationType,clusterTime,wallTime,fullDocument,ns,documentKey",
		"_id,operationType,clusterTime,wallTime,ns,documentKey,fullDocumentBeforeChange",
		"_id,operationType,clusterTime,wallTime,ns",
		"_id,operationType,clusterTime,wallTime",
	}
	for i, e := range evs {
		if got := csKeys(e); got != wantKeys[i] {
			t.Errorf("%s fields %s, want %s", field(e, "operationType"), got, wantKeys[i])
		}
		if _, ok := field(e, "clusterTime").(bson.Timestamp); !ok {
			t.Errorf("clusterTime %T", field(e, "clusterTime"))
		}
		if _, ok := field(e, "wallTime").(bson.DateTime); !ok {
			t.Errorf("wallTime %T", field(e, "wallTime"))
		}
	}
	// An invalidate token: resumeAfter refuses it (260), startAfter
	// accepts it.
	inv := field(evs[6], "_id._data").(string)
	csWant(t, db, "d", fmt.Sprintf(`{"aggregate": "p", "pipeline": [{"$changeStream": {"resumeAfter": {"_data": %q}}}], "cursor": {}}`, inv), 260, "InvalidResumeToken", "")
	mustRun(t, db, "d", fmt.Sprintf(`{"aggregate": "p", "pipeline": [{"$changeStream": {"startAfter": {"_data": %q}}}], "cursor": {}}`, inv))
	// A stage that drops _id stops the stream with 280.
	id, _ = csOpenCursor(t, db, "d", `{"aggregate": "q", "pipeline": [{"$changeStream": {}}, {"$project": {"_id": 0}}], "cursor": {}}`)
	if _, err := db.Database("d").Collection("q").InsertOne(ctx, bson.D{{Key: "_id", Value: int32(1)}}); err != nil {
		t.Fatal(err)
	}
	r, err = csGetMore(t, db, "d", "q", id)
	csCheckErr(t, "$project _id: 0", r, err, 280, "ChangeStreamFatalError", "Encountered an event whose _id field, which contains the resume token, was modified by the pipeline")
}
