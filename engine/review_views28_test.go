package engine

import (
	"fmt"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Review of views, create and collMod against mongod 7.0 (session 28).
// Each case is what mongod answers, from its jstests
// (jstests/core/views/*.js, collmod*.js, create_collection*.js) and
// source (src/mongo/db/views/view_graph.cpp, query_request_helper.cpp,
// catalog/create_collection.cpp, coll_mod.cpp, rename_collection.cpp).

// TestReviewViews28Creation: views_creation.js's refusals.
func TestReviewViews28Creation(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "vc", `{"create": "collection"}`)
	cases := []struct {
		cmd  string
		code document.Code
		frag string
	}{
		{`{"create": "system.foo", "viewOn": "collection"}`, document.CodeInvalidNamespace, ""},
		{`{"create": "system.views", "viewOn": "collection"}`, document.CodeInvalidNamespace, ""},
		{`{"create": "dollar$", "viewOn": "collection", "pipeline": []}`, document.CodeInvalidNamespace, ""},
		{`{"create": "w", "viewOn": "collection", "pipeline": [{"$out": "x"}]}`, document.CodeOptionNotSupportedOnView,
			"Invalid pipeline for view vc.w :: caused by :: The aggregation stage $out in location 0 of the pipeline cannot be used in the view definition of vc.w because it writes to disk"},
		{`{"create": "w", "viewOn": "collection", "pipeline": [{"$match": {}}, {"$merge": {"into": "x"}}]}`, document.CodeOptionNotSupportedOnView,
			"Invalid pipeline for view vc.w :: caused by :: The aggregation stage $merge in location 1 of the pipeline cannot be used in the view definition of vc.w because it writes to disk"},
		{`{"create": "w", "viewOn": "collection", "pipeline": [{"$documents": [{"a": 1}]}]}`, document.CodeInvalidNamespace, "cannot be used in a view definition"},
		{`{"create": "w", "viewOn": "collection", "pipeline": [{"$lookup": {"from": "o", "pipeline": [{"$out": "x"}], "as": "r"}}]}`, document.Code(51047), ""},
		{`{"create": "w", "viewOn": "collection", "pipeline": [{"$facet": {"o": [{"$out": "x"}]}}]}`, document.Code(40600), ""},
		{`{"create": "w", "viewOn": "collection", "pipeline": [{"$changeStream": {}}]}`, document.CodeOptionNotSupportedOnView,
			"Invalid pipeline for view vc.w :: caused by :: $changeStream cannot be used in a view definition"},
		{`{"create": "w", "viewOn": 1}`, document.CodeTypeMismatch, "BSON field 'create.viewOn' is the wrong type 'int', expected type 'string'"},
		{`{"create": "w", "viewOn": ""}`, document.CodeBadValue, "'viewOn' cannot be empty"},
		{`{"create": "w", "viewOn": "collection", "pipeline": {}}`, document.CodeTypeMismatch, ""},
		{`{"create": "w", "viewOn": "collection", "pipeline": [{"$bogus": 1}]}`, document.Code(40324), "Unrecognized pipeline stage name: '$bogus'"},
		{`{"create": "w", "pipeline": []}`, document.CodeInvalidOptions, "'pipeline' requires 'viewOn' to also be specified"},
		{`{"create": "w", "viewOn": "collection", "capped": true, "size": 100}`, document.CodeInvalidOptions, ""},
		{`{"create": "collection", "viewOn": "x"}`, document.CodeNamespaceExists, ""},
	}
	for _, tc := range cases {
		wantCode(t, db, "vc", tc.cmd, tc.code, tc.frag)
	}
	// timeseries_create_invalid_view.js (mongod 6.1 and later).
	mustRun(t, db, "vc", `{"create": "ts", "timeseries": {"timeField": "t"}}`)
	wantCode(t, db, "vc", `{"create": "w", "viewOn": "system.buckets.ts"}`, document.CodeInvalidNamespace,
		"Cannot create view on a system.buckets namespace except by creating a time-series collection")
	mustRun(t, db, "vc", `{"create": "view", "viewOn": "collection", "pipeline": [{"$match": {}}]}`)
	wantCode(t, db, "vc", `{"collMod": "view", "viewOn": "system.buckets.ts"}`, document.CodeInvalidNamespace,
		"Invalid view: cannot define a view over a system.buckets namespace except by creating a time-series collection")
	mustRun(t, db, "vc", `{"create": "viewOnNonexistent", "viewOn": "nonexistent", "pipeline": [{"$match": {}}]}`)
	mustRun(t, db, "vc", `{"create": "viewWithDefaultPipeline", "viewOn": "collection"}`)
	mustRun(t, db, "vc", `{"create": "viewOnView", "viewOn": "view", "pipeline": [{"$match": {}}]}`)
	r := mustRun(t, db, "vc", `{"listCollections": 1, "filter": {"name": "view"}}`)
	got := fmt.Sprint(firstBatch(t, r))
	want := fmt.Sprint([]bson.D{{{Key: "name", Value: "view"}, {Key: "type", Value: "view"},
		{Key: "options", Value: bson.D{{Key: "viewOn", Value: "collection"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{}}}}}}},
		{Key: "info", Value: bson.D{{Key: "readOnly", Value: true}}}}})
	if got != want {
		t.Errorf("listCollections view = %s, want %s", got, want)
	}
}

// TestReviewViews28Graph: view_graph.cpp's cycle and depth refusals,
// with its messages (the cycle's first namespace shown twice, as
// mongod prints it).
func TestReviewViews28Graph(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "vg", `{"create": "c"}`)
	mustRun(t, db, "vg", `{"create": "v1", "viewOn": "c"}`)
	mustRun(t, db, "vg", `{"create": "v2", "viewOn": "v1"}`)
	wantCode(t, db, "vg", `{"collMod": "v1", "viewOn": "v2"}`, document.CodeGraphContainsCycle, "View cycle detected: vg.v1 => vg.v1 => vg.v2 => vg.v1")
	wantCode(t, db, "vg", `{"collMod": "v1", "viewOn": "v1"}`, document.CodeGraphContainsCycle, "View cycle detected: vg.v1 => vg.v1 => vg.v1")
	// A chain of 20 views is allowed, a 21st is not.
	prev := "c"
	for i := 1; i <= 20; i++ {
		name := fmt.Sprintf("d%d", i)
		mustRun(t, db, "vg", fmt.Sprintf(`{"create": %q, "viewOn": %q}`, name, prev))
		prev = name
	}
	wantCode(t, db, "vg", `{"create": "d21", "viewOn": "d20"}`, document.CodeViewDepthLimitExceeded, "View depth limit exceeded; maximum depth is 20")
	// The diameter counts the views standing on the one modified too.
	mustRun(t, db, "vg", `{"create": "e1", "viewOn": "c"}`)
	wantCode(t, db, "vg", `{"collMod": "d1", "viewOn": "e1"}`, document.CodeViewDepthLimitExceeded, "View depth limit exceeded; maximum depth is 20")
}

// TestReviewViews28Find: the find options a view refuses, as
// query_request_helper::asAggregationCommand does (168).
func TestReviewViews28Find(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "vf", `{"insert": "coll", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": 2}]}`)
	mustRun(t, db, "vf", `{"create": "v", "viewOn": "coll", "pipeline": [{"$match": {}}]}`)
	cases := []struct {
		opts string
		frag string
	}{
		{`"min": {"_id": 1}`, "Option min not supported in aggregation."},
		{`"max": {"_id": 1}`, "Option max not supported in aggregation."},
		{`"returnKey": true`, "Option returnKey not supported in aggregation."},
		{`"showRecordId": true`, "Option showRecordId not supported in aggregation."},
		{`"tailable": true`, "Tailable cursors are not supported in aggregation."},
		{`"noCursorTimeout": true`, "Option noCursorTimeout not supported in aggregation."},
		{`"allowPartialResults": true`, "Option allowPartialResults not supported in aggregation."},
		{`"sort": {"$natural": 1}`, "Sort option $natural not supported in aggregation."},
		{`"singleBatch": true`, "Option singleBatch not supported in aggregation."},
		{`"readOnce": true`, "Option readOnce not supported in aggregation."},
	}
	for _, tc := range cases {
		wantCode(t, db, "vf", `{"find": "v", `+tc.opts+`}`, document.CodeInvalidPipelineOperator, tc.frag)
	}
	r := mustRun(t, db, "vf", `{"find": "v", "filter": {"a": 2}, "singleBatch": true, "limit": 1}`)
	if got := fmt.Sprint(firstBatch(t, r)); got != fmt.Sprint([]bson.D{{{Key: "_id", Value: int32(2)}, {Key: "a", Value: int32(2)}}}) {
		t.Errorf("findOne on a view = %s", got)
	}
}

// TestReviewViews28Writes: writes and catalog operations a view
// refuses (166), with mongod's messages.
func TestReviewViews28Writes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "vw", `{"create": "coll"}`)
	mustRun(t, db, "vw", `{"create": "v", "viewOn": "coll"}`)
	wantCode(t, db, "vw", `{"insert": "v", "documents": [{"_id": 1}]}`, document.CodeCommandNotSupportedOnView, "Namespace vw.v is a view, not a collection")
	wantCode(t, db, "vw", `{"createIndexes": "v", "indexes": [{"key": {"a": 1}, "name": "a"}]}`, document.CodeCommandNotSupportedOnView, "Cannot create indexes on a view")
	wantCode(t, db, "admin", `{"renameCollection": "vw.v", "to": "vw.v2"}`, document.CodeCommandNotSupportedOnView, "cannot rename view: vw.v")
	// _dropView's reply names the view, without nIndexesWas.
	r := mustRun(t, db, "vw", `{"drop": "v"}`)
	if got, want := fmt.Sprint(r), fmt.Sprint(bson.D{{Key: "ns", Value: "vw.v"}, {Key: "ok", Value: 1.0}}); got != want {
		t.Errorf("drop of a view = %s, want %s", got, want)
	}
	r = mustRun(t, db, "vw", `{"listCollections": 1, "nameOnly": true}`)
	// system.views stays, empty, as mongod's.
	if n := len(firstBatch(t, r)); n != 2 {
		t.Errorf("after dropping the view, %d collections, want 2 (coll, system.views)", n)
	}
}

// TestReviewViews28CreateOptions: create's option rules, in the order
// and words of mongod's CmdCreate::typedRun.
func TestReviewViews28CreateOptions(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	cases := []struct {
		cmd  string
		code document.Code
		frag string
	}{
		{`{"create": "c", "capped": true}`, document.CodeInvalidOptions, "the 'size' field is required when 'capped' is true"},
		{`{"create": "c", "size": 100}`, document.CodeInvalidOptions, "the 'capped' field needs to be true when either the 'size' or 'max' fields are present"},
		{`{"create": "c", "max": 10}`, document.CodeInvalidOptions, "the 'capped' field needs to be true when either the 'size' or 'max' fields are present"},
		{`{"create": "c", "bogus": 1}`, document.CodeIDLUnknownField, "BSON field 'create.bogus' is an unknown field."},
		{`{"create": "c", "expireAfterSeconds": 10}`, document.CodeInvalidOptions,
			"'expireAfterSeconds' is only supported on time-series collections or when the 'clusteredIndex' option is specified"},
		{`{"create": "v", "viewOn": "c", "idIndex": {"key": {"_id": 1}, "name": "_id_"}}`, document.CodeInvalidOptions, "'idIndex' is not allowed with 'viewOn': { key: { _id: 1 }, name: \"_id_\" }"},
		{`{"create": "v", "viewOn": "c", "changeStreamPreAndPostImages": {"enabled": true}}`, document.CodeInvalidOptions, "option not supported on a view: changeStreamPreAndPostImages"},
		{`{"create": "c", "validationLevel": "bogus"}`, document.CodeBadValue, "Enumeration value 'bogus' for field 'create.validationLevel' is not a valid value."},
		{`{"create": "c", "validationAction": "bogus"}`, document.CodeBadValue, "Enumeration value 'bogus' for field 'create.validationAction' is not a valid value."},
	}
	for _, tc := range cases {
		wantCode(t, db, "co", tc.cmd, tc.code, tc.frag)
	}
	// Pre- and post-images off are no option a view refuses.
	mustRun(t, db, "co", `{"create": "v2", "viewOn": "c", "changeStreamPreAndPostImages": {"enabled": false}}`)
}

// TestReviewViews28CollMod: collMod on a view and the view options on
// a collection, as coll_mod.cpp's parseCollModRequest checks them (in
// its order, not the command's).
func TestReviewViews28CollMod(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "cm", `{"insert": "c", "documents": [{"_id": 1, "a": 1}, {"_id": 2, "a": 2}]}`)
	mustRun(t, db, "cm", `{"create": "v", "viewOn": "c"}`)
	cases := []struct {
		cmd  string
		code document.Code
		frag string
	}{
		{`{"collMod": "v", "validationLevel": "off", "index": {"name": "a_1", "hidden": true}}`, document.CodeInvalidOptions, "option not supported on a view: index"},
		{`{"collMod": "v", "validationAction": "warn", "validator": {"a": 1}}`, document.CodeInvalidOptions, "option not supported on a view: validator"},
		{`{"collMod": "v", "changeStreamPreAndPostImages": {"enabled": true}, "validationAction": "warn"}`, document.CodeInvalidOptions, "option not supported on a view: validationAction"},
		{`{"collMod": "v", "expireAfterSeconds": 5, "changeStreamPreAndPostImages": {"enabled": true}}`, document.CodeInvalidOptions, "option not supported on a view: changeStreamPreAndPostImages"},
		{`{"collMod": "v", "viewOn": 1}`, document.CodeTypeMismatch, "BSON field 'collMod.viewOn' is the wrong type 'int', expected type 'string'"},
		{`{"collMod": "v", "pipeline": {}}`, document.CodeTypeMismatch, "BSON field 'collMod.pipeline' is the wrong type 'object', expected type 'array'"},
		{`{"collMod": "v", "pipeline": [{"$out": "x"}]}`, document.CodeOptionNotSupportedOnView,
			"Invalid pipeline for view cm.v :: caused by :: The aggregation stage $out in location 0 of the pipeline cannot be used in the view definition of cm.v because it writes to disk"},
		{`{"collMod": "c", "viewOn": "x", "pipeline": []}`, document.CodeInvalidOptions, "option only supported on a view: pipeline"},
		{`{"collMod": "c", "viewOn": "x"}`, document.CodeInvalidOptions, "option only supported on a view: viewOn"},
		{`{"collMod": "c", "bogus": 1}`, document.CodeIDLUnknownField, "BSON field 'collMod.bogus' is an unknown field."},
		{`{"collMod": "c", "validationLevel": "bogus"}`, document.CodeBadValue, "Enumeration value 'bogus' for field 'collMod.validationLevel' is not a valid value."},
		{`{"collMod": "c", "expireAfterSeconds": 5}`, document.CodeInvalidOptions, "'expireAfterSeconds' option is only supported on collections clustered by _id"},
		{`{"collMod": "c", "index": {"name": "_id_", "hidden": true}}`, document.CodeBadValue, "can't hide _id index"},
		{`{"collMod": "c", "index": {"name": "_id_", "expireAfterSeconds": 5}}`, document.CodeInvalidOptions, "the _id field does not support TTL indexes"},
	}
	for _, tc := range cases {
		wantCode(t, db, "cm", tc.cmd, tc.code, tc.frag)
	}
	// A view's new definition is read at once, and keeps nothing of the
	// old one.
	mustRun(t, db, "cm", `{"collMod": "v", "pipeline": [{"$match": {"a": 2}}]}`)
	r := mustRun(t, db, "cm", `{"find": "v"}`)
	if got := fmt.Sprint(firstBatch(t, r)); got != fmt.Sprint([]bson.D{{{Key: "_id", Value: int32(2)}, {Key: "a", Value: int32(2)}}}) {
		t.Errorf("find on the modified view = %s", got)
	}
	r = mustRun(t, db, "cm", `{"listCollections": 1, "filter": {"name": "v"}}`)
	if got, want := fmt.Sprint(firstBatch(t, r)[0]), fmt.Sprint(bson.D{{Key: "name", Value: "v"}, {Key: "type", Value: "view"},
		{Key: "options", Value: bson.D{{Key: "viewOn", Value: "c"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "a", Value: int32(2)}}}}}}}},
		{Key: "info", Value: bson.D{{Key: "readOnly", Value: true}}}}); got != want {
		t.Errorf("listCollections = %s, want %s", got, want)
	}
}

// TestReviewViews28CreateExisting: create of an existing view is a
// no-op with its options, else 48 naming what differs, as mongod's
// checkCollectionOptions does.
func TestReviewViews28CreateExisting(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "ce", `{"create": "c"}`)
	mustRun(t, db, "ce", `{"create": "v", "viewOn": "c", "pipeline": [{"$match": {}}]}`)
	mustRun(t, db, "ce", `{"create": "v", "viewOn": "c", "pipeline": [{"$match": {}}]}`)
	wantCode(t, db, "ce", `{"create": "v", "viewOn": "d", "pipeline": [{"$match": {}}]}`, document.CodeNamespaceExists,
		"namespace ce.v already exists, but is a view on ce.c rather than ce.d")
	wantCode(t, db, "ce", `{"create": "v", "viewOn": "c"}`, document.CodeNamespaceExists,
		"namespace ce.v already exists, but with pipeline { 0: { $match: {} } } rather than {}")
	wantCode(t, db, "ce", `{"create": "v", "viewOn": "c", "pipeline": [{"$match": {}}], "collation": {"locale": "fr"}}`, document.CodeNamespaceExists,
		"namespace ce.v already exists, but with collation: {} rather than ")
}

// TestReviewViews28Hint: a hint on a view applies to its source's scan
// (views_count.js, requires_fcv_63: "Count with hint works on a view").
func TestReviewViews28Hint(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "vh", `{"insert": "coll", "documents": [{"_id": 1, "x": 1}, {"_id": 2, "x": 5}, {"_id": 3, "x": 9}]}`)
	mustRun(t, db, "vh", `{"createIndexes": "coll", "indexes": [{"key": {"x": 1}, "name": "x_1"}]}`)
	mustRun(t, db, "vh", `{"create": "gt3", "viewOn": "coll", "pipeline": [{"$match": {"x": {"$gt": 3}}}]}`)
	mustRun(t, db, "vh", `{"create": "lt7", "viewOn": "gt3", "pipeline": [{"$match": {"x": {"$lt": 7}}}]}`)
	r := mustRun(t, db, "vh", `{"count": "gt3", "hint": "_id_"}`)
	if n, _ := get(r, "n"); n != int32(2) {
		t.Errorf("count with hint on a view: n = %v, want 2", n)
	}
	r = mustRun(t, db, "vh", `{"find": "lt7", "hint": {"x": 1}}`)
	if got := fmt.Sprint(firstBatch(t, r)); got != fmt.Sprint([]bson.D{{{Key: "_id", Value: int32(2)}, {Key: "x", Value: int32(5)}}}) {
		t.Errorf("find with hint on a view on a view = %s", got)
	}
	r = mustRun(t, db, "vh", `{"aggregate": "gt3", "pipeline": [{"$sort": {"x": -1}}], "hint": "x_1", "cursor": {}}`)
	if n := len(firstBatch(t, r)); n != 2 {
		t.Errorf("aggregate with hint on a view: %d documents, want 2", n)
	}
	wantCode(t, db, "vh", `{"find": "gt3", "hint": "nope"}`, document.CodeBadValue, "hint provided does not correspond to an existing index")
	wantCode(t, db, "vh", `{"count": "gt3", "collation": {"locale": "en_US"}}`, document.CodeOptionNotSupportedOnView, "")
}

// TestReviewViews28Timeseries: the time-series refusals of create and
// collMod, with mongod's words (CmdCreate names the namespace).
func TestReviewViews28Timeseries(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "tv", `{"create": "c"}`)
	mustRun(t, db, "tv", `{"create": "ts", "timeseries": {"timeField": "t"}}`)
	cases := []struct {
		cmd  string
		code document.Code
		frag string
	}{
		{`{"create": "d", "timeseries": {"timeField": "t"}, "viewOn": "c"}`, document.CodeInvalidOptions, "tv.d: 'timeseries' is not allowed with 'viewOn'"},
		{`{"create": "d", "timeseries": {"timeField": "t"}, "validator": {"a": 1}}`, document.CodeInvalidOptions, "tv.d: 'timeseries' is not allowed with 'validator'"},
		{`{"collMod": "ts", "changeStreamPreAndPostImages": {"enabled": true}}`, document.CodeInvalidOptions, "option not supported on a time-series collection: changeStreamPreAndPostImages"},
		{`{"collMod": "ts", "validationLevel": "off", "validator": {"a": 1}}`, document.CodeInvalidOptions, "option not supported on a time-series collection: validator"},
		{`{"collMod": "ts", "validationAction": "warn"}`, document.CodeInvalidOptions, "option not supported on a time-series collection: validationAction"},
	}
	for _, tc := range cases {
		wantCode(t, db, "tv", tc.cmd, tc.code, tc.frag)
	}
}
