package engine

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// orderCase is one update whose change event's updateDescription must be
// exactly mongod 7.0's: its fields, their order and their types.
type orderCase struct {
	name string
	doc  string // the document before the update (extended JSON)
	// stmt is the update statement: q, u and arrayFilters (JSON).
	stmt string
	want bson.D // updateDescription, with showExpandedEvents
}

// ud builds an expected updateDescription.
func ud(updated bson.D, removed bson.A, disambiguated bson.D) bson.D {
	if removed == nil {
		removed = bson.A{}
	}
	if disambiguated == nil {
		disambiguated = bson.D{}
	}
	return bson.D{
		{Key: "updatedFields", Value: updated},
		{Key: "removedFields", Value: removed},
		{Key: "truncatedArrays", Value: bson.A{}},
		{Key: "disambiguatedPaths", Value: disambiguated},
	}
}

// TestChangeUpdateDescriptionOrder: an update with operators is described
// in mongod's order. The expectations come from mongod's source:
// the update tree applies modifiers in field-name order
// (src/mongo/db/update/update_object_node.cpp, children ordered by
// pathsupport::cmpPathsAndArrayIndexes), each modifier logs an update of
// an existing path, a creation or a deletion
// (src/mongo/db/update/modifier_node.cpp, unset_node.cpp, push_node.cpp,
// rename_node.cpp, update_array_node.cpp), the log builder gathers them
// per document into updates, creations, deletions and sub-diffs in the
// order logged, array elements by index
// (src/mongo/db/update/v2_log_builder.cpp), and the change stream reads
// each document's updates and creations into updatedFields, its
// deletions into removedFields, then its sub-diffs in turn
// (src/mongo/db/pipeline/change_stream_document_diff_parser.cpp). Cases
// taken from jstests or unit tests name them.
func TestChangeUpdateDescriptionOrder(t *testing.T) {
	t.Parallel()
	i32 := func(v int32) int32 { return v }
	cases := []orderCase{
		{
			// jstests/change_streams/expanded_update_description.js, first
			// update: the existing field replaced, then the created one,
			// then the path below.
			name: "set existing, new and nested (expanded_update_description.js)",
			doc:  `{"_id": 1, "topLevelArray": [{"subArray": [0, [0, [{"bottomArray": [1, 2, "x"]}]], 2]}], "arrayForReplacement": [0, 1, 2, 3]}`,
			stmt: `{"q": {"_id": 1}, "u": {"$set": {"a": 2, "topLevelArray.0.subArray.1.1.0.bottomArray.2": 3, "arrayForReplacement": [0]}}}`,
			want: ud(bson.D{
				{Key: "arrayForReplacement", Value: bson.A{i32(0)}},
				{Key: "a", Value: i32(2)},
				{Key: "topLevelArray.0.subArray.1.1.0.bottomArray.2", Value: i32(3)},
			}, nil, nil),
		},
		{
			// v2_log_builder.cpp: z and b.d exist (updates), b.e, n and y
			// are created; n.m is logged as the created document n. The
			// root's updates (z), then its creations in the order applied
			// (n, y), then the sub-diff b: its update, then its creation.
			name: "set existing, new and nested in one update",
			doc:  `{"_id": 1, "a": 1, "b": {"c": 1, "d": 1}, "z": 1}`,
			stmt: `{"q": {"_id": 1}, "u": {"$set": {"z": 2, "b.d": 2, "b.e": 3, "y": 1, "n.m": 1}}}`,
			want: ud(bson.D{
				{Key: "z", Value: i32(2)},
				{Key: "n", Value: bson.D{{Key: "m", Value: i32(1)}}},
				{Key: "y", Value: i32(1)},
				{Key: "b.d", Value: i32(2)},
				{Key: "b.e", Value: i32(3)},
			}, nil, nil),
		},
		{
			// Two fields created under one missing parent are one created
			// document (v2_log_builder.cpp: the second descends into the
			// DocumentInsertionNode the first made).
			name: "two fields under one new parent",
			doc:  `{"_id": 1}`,
			stmt: `{"q": {"_id": 1}, "u": {"$set": {"n.x": 1, "n.y": 2}}}`,
			want: ud(bson.D{{Key: "n", Value: bson.D{{Key: "x", Value: i32(1)}, {Key: "y", Value: i32(2)}}}}, nil, nil),
		},
		{
			// unset_node.cpp: a field is deleted, an array element set to
			// null and logged as an update; a missing field logs nothing.
			// The root's deletions (a, e) come before the sub-diffs' (b.c).
			name: "unset",
			doc:  `{"_id": 1, "a": 1, "b": {"c": 1, "d": 1}, "e": 1, "arr": [1, 2, 3]}`,
			stmt: `{"q": {"_id": 1}, "u": {"$unset": {"e": "", "b.c": "", "a": "", "arr.1": "", "missing": ""}, "$set": {"x": 1}}}`,
			want: ud(bson.D{
				{Key: "x", Value: i32(1)},
				{Key: "arr.1", Value: nil},
			}, bson.A{"a", "e", "b.c"}, nil),
		},
		{
			// push_node.cpp: only an append to a non-empty array without
			// $sort or $position logs each new element (as created, at its
			// index); a push to an empty array, at $position 2 of a
			// two-element array or with $sort logs the whole array as an
			// update; a push to a missing field creates it.
			name: "push",
			doc:  `{"_id": 1, "a": [1], "e": [], "s": [3, 1], "p": [1, 2]}`,
			stmt: `{"q": {"_id": 1}, "u": {"$push": {"a": {"$each": [2, 3]}, "e": 1, "s": {"$each": [2], "$sort": 1}, "p": {"$each": [9], "$position": 2}, "n": 5}}}`,
			want: ud(bson.D{
				{Key: "e", Value: bson.A{i32(1)}},
				{Key: "p", Value: bson.A{i32(1), i32(2), i32(9)}},
				{Key: "s", Value: bson.A{i32(1), i32(2), i32(3)}},
				{Key: "n", Value: bson.A{i32(5)}},
				{Key: "a.1", Value: i32(2)},
				{Key: "a.2", Value: i32(3)},
			}, nil, nil),
		},
		{
			// arithmetic_node.cpp: an $inc that leaves the value identical
			// is a no-op and logs nothing; q.r is created as q.
			name: "inc on nested fields",
			doc:  `{"_id": 1, "a": {"b": {"c": 1}, "x": 1}, "k": 1}`,
			stmt: `{"q": {"_id": 1}, "u": {"$inc": {"a.b.c": 1, "a.b.new": 1, "a.x": 0, "k": 2, "q.r": 1}}}`,
			want: ud(bson.D{
				{Key: "k", Value: i32(3)},
				{Key: "q", Value: bson.D{{Key: "r", Value: i32(1)}}},
				{Key: "a.b.c", Value: i32(2)},
				{Key: "a.b.new", Value: i32(1)},
			}, nil, nil),
		},
		{
			// rename_node.cpp: a $rename applies where its destination
			// sorts (its source holds a placeholder), setting the
			// destination (created y, updated z) and then deleting the
			// source.
			name: "rename",
			doc:  `{"_id": 1, "a": 1, "b": {"c": 2}, "m": 1, "z": 0}`,
			stmt: `{"q": {"_id": 1}, "u": {"$rename": {"a": "y", "b.c": "z"}, "$set": {"m": 2}}}`,
			want: ud(bson.D{
				{Key: "m", Value: i32(2)},
				{Key: "z", Value: i32(2)},
				{Key: "y", Value: i32(1)},
			}, bson.A{"a", "b.c"}, nil),
		},
		{
			// update_array_node_test.cpp,
			// ApplyMultipleUpdatesToArrayElementsUsingMergedChildrenCache:
			// more than one element changed, the whole array is logged.
			name: "arrayFilters, two elements changed",
			doc:  `{"_id": 1, "a": [{"b": 0, "c": 0}, {"b": 0, "c": 0}]}`,
			stmt: `{"q": {"_id": 1}, "u": {"$set": {"a.$[i].b": 1, "a.$[j].c": 1}}, "arrayFilters": [{"i.b": 0}, {"j.c": 0}]}`,
			want: ud(bson.D{{Key: "a", Value: bson.A{
				bson.D{{Key: "b", Value: i32(1)}, {Key: "c", Value: i32(1)}},
				bson.D{{Key: "b", Value: i32(1)}, {Key: "c", Value: i32(1)}},
			}}}, nil, nil),
		},
		{
			// update_array_node_test.cpp,
			// WhenOneElementIsMatchedLogElementUpdateDirectly: one element
			// selected, it logs its own change.
			name: "arrayFilters, one element selected",
			doc:  `{"_id": 1, "a": [{"c": 1}, {"c": 0}, {"c": 1}]}`,
			stmt: `{"q": {"_id": 1}, "u": {"$set": {"a.$[i].b": 0}}, "arrayFilters": [{"i.c": 0}]}`,
			want: ud(bson.D{{Key: "a.1.b", Value: i32(0)}}, nil, nil),
		},
		{
			// update_array_node_test.cpp, WhenOneElementIsModifiedLogElement:
			// two elements selected, one changed: that element, whole.
			name: "arrayFilters, one of two selected elements changed",
			doc:  `{"_id": 1, "a": [{"c": 0, "b": 0}, {"c": 0}, {"c": 1}]}`,
			stmt: `{"q": {"_id": 1}, "u": {"$set": {"a.$[i].b": 0}}, "arrayFilters": [{"i.c": 0}]}`,
			want: ud(bson.D{{Key: "a.1", Value: bson.D{{Key: "c", Value: i32(0)}, {Key: "b", Value: i32(0)}}}}, nil, nil),
		},
		{
			// update_array_node_test.cpp, NoArrayElementAffectsIndexes.
			name: "arrayFilters, every element gains a field",
			doc:  `{"_id": 1, "a": [{"c": 0}, {"c": 0}, {"c": 0}]}`,
			stmt: `{"q": {"_id": 1}, "u": {"$set": {"a.$[i].b": 0}}, "arrayFilters": [{"i.c": 0}]}`,
			want: ud(bson.D{{Key: "a", Value: bson.A{
				bson.D{{Key: "c", Value: i32(0)}, {Key: "b", Value: i32(0)}},
				bson.D{{Key: "c", Value: i32(0)}, {Key: "b", Value: i32(0)}},
				bson.D{{Key: "c", Value: i32(0)}, {Key: "b", Value: i32(0)}},
			}}}, nil, nil),
		},
		{
			// update_array_node_test.cpp,
			// UpdateForEmptyIdentifierIsAppliedToAllArrayElements.
			name: "all positional over several elements",
			doc:  `{"_id": 1, "a": [0, 0, 0]}`,
			stmt: `{"q": {"_id": 1}, "u": {"$set": {"a.$[]": 1}}}`,
			want: ud(bson.D{{Key: "a", Value: bson.A{i32(1), i32(1), i32(1)}}}, nil, nil),
		},
		{
			// update_array_node_test.cpp,
			// ApplyMultipleUpdatesToArrayElementWithEmptyIdentifiers: one
			// element, its fields logged one by one.
			name: "all positional over one element",
			doc:  `{"_id": 1, "a": [{"b": 0, "c": 0}]}`,
			stmt: `{"q": {"_id": 1}, "u": {"$set": {"a.$[].b": 1, "a.$[].c": 1}}}`,
			want: ud(bson.D{{Key: "a.0.b", Value: i32(1)}, {Key: "a.0.c", Value: i32(1)}}, nil, nil),
		},
		{
			// update_array_node_test.cpp, ApplyNestedArrayUpdates.
			name: "nested arrayFilters",
			doc:  `{"_id": 1, "a": [{"x": 0, "b": [{"c": 0, "d": 0}]}]}`,
			stmt: `{"q": {"_id": 1}, "u": {"$set": {"a.$[i].b.$[j].c": 1, "a.$[k].b.$[l].d": 1}}, "arrayFilters": [{"i.x": 0}, {"j.c": 0}, {"k.x": 0}, {"l.d": 0}]}`,
			want: ud(bson.D{{Key: "a.0.b.0.c", Value: i32(1)}, {Key: "a.0.b.0.d", Value: i32(1)}}, nil, nil),
		},
		{
			// update_array_node.cpp: the elements an array node selects are
			// those any of its modifiers selects, even one whose inner
			// filter then matches nothing (j): two selected, one changed,
			// that element is logged whole.
			name: "nested arrayFilters, inner selection empty",
			doc:  `{"_id": 1, "a": [{"x": 0, "b": [1], "c": 0, "y": 1}, {"x": 0, "b": [2]}]}`,
			stmt: `{"q": {"_id": 1}, "u": {"$set": {"a.$[i].b.$[j]": 1, "a.$[k].c": 1}}, "arrayFilters": [{"i.x": 0}, {"j": 99}, {"k.y": 1}]}`,
			want: ud(bson.D{{Key: "a.0", Value: bson.D{
				{Key: "x", Value: i32(0)}, {Key: "b", Value: bson.A{i32(1)}}, {Key: "c", Value: i32(1)}, {Key: "y", Value: i32(1)},
			}}}, nil, nil),
		},
		{
			// v2_log_builder.cpp: elements of an array of sub-documents by
			// index, each element's updates, creations and deletions.
			name: "array of subdocuments by index",
			doc:  `{"_id": 1, "g": [{"v": 1}, {"v": 2, "w": 1}]}`,
			stmt: `{"q": {"_id": 1}, "u": {"$set": {"g.1.v": 3, "g.0.n": 1}, "$unset": {"g.1.w": ""}}}`,
			want: ud(bson.D{{Key: "g.0.n", Value: i32(1)}, {Key: "g.1.v", Value: i32(3)}}, bson.A{"g.1.w"}, nil),
		},
		{
			// The positional $ resolved to the matched element: its
			// existing field updated, then its new one created.
			name: "positional",
			doc:  `{"_id": 1, "arr": [{"x": 1}, {"x": 2}]}`,
			stmt: `{"q": {"_id": 1, "arr.x": 2}, "u": {"$set": {"arr.$.y": 1, "arr.$.x": 5}}}`,
			want: ud(bson.D{{Key: "arr.1.x", Value: i32(5)}, {Key: "arr.1.y", Value: i32(1)}}, nil, nil),
		},
		{
			// modifier_node.cpp: an element created past the end of an
			// array is logged at its index.
			name: "element past the end",
			doc:  `{"_id": 1, "arr": [1]}`,
			stmt: `{"q": {"_id": 1}, "u": {"$set": {"arr.3": 5}}}`,
			want: ud(bson.D{{Key: "arr.3", Value: i32(5)}}, nil, nil),
		},
		{
			// array_culling_node.cpp and addtoset_node.cpp: $pop, $pull and
			// $addToSet log the whole array.
			name: "pop pull addToSet",
			doc:  `{"_id": 1, "p": [1, 2, 3], "q": [1, 2], "s": [1]}`,
			stmt: `{"q": {"_id": 1}, "u": {"$pop": {"p": 1}, "$pull": {"q": 1}, "$addToSet": {"s": 2}}}`,
			want: ud(bson.D{
				{Key: "p", Value: bson.A{i32(1), i32(2)}},
				{Key: "q", Value: bson.A{i32(2)}},
				{Key: "s", Value: bson.A{i32(1), i32(2)}},
			}, nil, nil),
		},
		{
			// change_stream_document_diff_parser.cpp: a numeric name at the
			// top level is not ambiguous, nor one with a leading zero; one
			// below the top level is.
			name: "disambiguated numeric names",
			doc:  `{"_id": 1, "o": {}}`,
			stmt: `{"q": {"_id": 1}, "u": {"$set": {"1": 1, "o.01": 1, "o.2": 1}}}`,
			want: ud(bson.D{
				{Key: "1", Value: i32(1)},
				{Key: "o.01", Value: i32(1)},
				{Key: "o.2", Value: i32(1)},
			}, nil, bson.D{{Key: "o.2", Value: bson.A{"o", "2"}}}),
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := csOpen(t)
			mustRun(t, db, "d", `{"insert": "c", "documents": [`+tc.doc+`]}`)
			id, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"showExpandedEvents": true}}], "cursor": {}}`)
			mustRun(t, db, "d", `{"update": "c", "updates": [`+tc.stmt+`]}`)
			r, err := csGetMore(t, db, "d", "c", id)
			if err != nil {
				t.Fatal(err)
			}
			evs := csBatch(t, r)
			if len(evs) != 1 {
				t.Fatalf("events %v, want one update", evs)
			}
			if got, want := csJSON(t, field(evs[0], "updateDescription")), csJSON(t, tc.want); got != want {
				t.Errorf("updateDescription\n got %s\nwant %s", got, want)
			}
		})
	}
}

// TestChangeUpdateDescriptionCapped: an update of a capped collection's
// document is described as mongod logs its modifiers too (a $set of an
// array is that array, not its changed elements), not as the difference
// of the documents.
func TestChangeUpdateDescriptionCapped(t *testing.T) {
	t.Parallel()
	db := csOpen(t)
	mustRun(t, db, "d", `{"create": "c", "capped": true, "size": 4096}`)
	mustRun(t, db, "d", `{"insert": "c", "documents": [{"_id": 1, "b": 1, "a": [1, 2]}]}`)
	id, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {}}], "cursor": {}}`)
	mustRun(t, db, "d", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"b": 2, "a": [3, 4]}}}]}`)
	r, err := csGetMore(t, db, "d", "c", id)
	if err != nil {
		t.Fatal(err)
	}
	evs := csBatch(t, r)
	if len(evs) != 1 {
		t.Fatalf("events %v, want one update", evs)
	}
	want := bson.D{
		{Key: "updatedFields", Value: bson.D{{Key: "a", Value: bson.A{int32(3), int32(4)}}, {Key: "b", Value: int32(2)}}},
		{Key: "removedFields", Value: bson.A{}},
		{Key: "truncatedArrays", Value: bson.A{}},
	}
	if got, w := csJSON(t, field(evs[0], "updateDescription")), csJSON(t, want); got != w {
		t.Errorf("updateDescription\n got %s\nwant %s", got, w)
	}
}

// TestChangePipelineUpdateDescription: an update made by a pipeline is
// described as mongod's document diff (document_diff_calculator.cpp) read
// by its change stream: per document the changed fields, the new ones,
// the removed ones (a field that moved is removed and inserted: only the
// insert shows), then the sub-documents; a sub-document or array compared
// within unless its difference is larger than its new value; and a diff
// not smaller than the document makes mongod log the whole document
// (pipeline_executor.cpp), a replace event.
func TestChangePipelineUpdateDescription(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("*", 512)
	cases := []struct {
		name, doc, pipeline string
		op                  string
		want                bson.D // updateDescription, or fullDocument for a replace
	}{
		{
			// jstests/change_streams/pipeline_style_updates.js
			name: "set (pipeline_style_updates.js)", op: "update",
			doc:      `{"_id": 100, "a": 1, "b": 2, "obj": {"a": 1, "b": 2, "str": "` + big + `"}}`,
			pipeline: `[{"$set": {"a": 2}}]`,
			want:     ud(bson.D{{Key: "a", Value: int32(2)}}, nil, nil),
		},
		{
			name: "unset (pipeline_style_updates.js)", op: "update",
			doc:      `{"_id": 100, "a": 1, "b": 2, "obj": {"a": 1, "b": 2, "str": "` + big + `"}}`,
			pipeline: `[{"$unset": ["a"]}]`,
			want:     ud(bson.D{}, bson.A{"a"}, nil),
		},
		{
			// The document as the jstest's $unset left it.
			name: "replaceRoot (pipeline_style_updates.js)", op: "update",
			doc:      `{"_id": 100, "b": 2, "obj": {"a": 1, "b": 2, "str": "` + big + `"}}`,
			pipeline: `[{"$replaceRoot": {"newRoot": {"_id": 100, "b": 2, "obj": {"a": 2, "b": 2, "str": "` + big + `"}}}}]`,
			want:     ud(bson.D{{Key: "obj.a", Value: int32(2)}}, nil, nil),
		},
		{
			// expanded_update_description.js: a shorter array is truncated.
			name: "truncated array", op: "update",
			doc:      `{"_id": 1, "arrayForResize": ["` + big + `", 1]}`,
			pipeline: `[{"$set": {"arrayForResize": ["` + big + `"]}}]`,
			want: bson.D{
				{Key: "updatedFields", Value: bson.D{}},
				{Key: "removedFields", Value: bson.A{}},
				{Key: "truncatedArrays", Value: bson.A{bson.D{{Key: "field", Value: "arrayForResize"}, {Key: "newSize", Value: int32(1)}}}},
				{Key: "disambiguatedPaths", Value: bson.D{}},
			},
		},
		{
			name: "changed, new, removed, then below", op: "update",
			doc:      `{"_id": 1, "big": "` + big + `", "a": 1, "b": {"x": 1, "y": "` + big + `"}, "c": 1, "d": 1}`,
			pipeline: `[{"$unset": ["c"]}, {"$set": {"a": 2, "e": 1, "b.x": 2}}]`,
			want:     ud(bson.D{{Key: "a", Value: int32(2)}, {Key: "e", Value: int32(1)}, {Key: "b.x", Value: int32(2)}}, bson.A{"c"}, nil),
		},
		{
			name: "small sub-document whole", op: "update",
			doc:      `{"_id": 1, "big": "` + big + `", "s": {"x": 1}}`,
			pipeline: `[{"$set": {"s.x": 2}}]`,
			want:     ud(bson.D{{Key: "s", Value: bson.D{{Key: "x", Value: int32(2)}}}}, nil, nil),
		},
		{
			name: "moved field", op: "update",
			doc:      `{"_id": 1, "a": 1, "b": "` + big + `"}`,
			pipeline: `[{"$replaceWith": {"_id": "$_id", "b": "$b", "a": "$a"}}]`,
			want:     ud(bson.D{{Key: "a", Value: int32(1)}}, nil, nil),
		},
		{
			// pipeline_executor.cpp: the diff of a small document is not
			// smaller than it, the document is logged whole.
			name: "replace", op: "replace",
			doc:      `{"_id": 1, "a": 1}`,
			pipeline: `[{"$set": {"a": 2}}]`,
			want:     bson.D{{Key: "_id", Value: int32(1)}, {Key: "a", Value: int32(2)}},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			db := csOpen(t)
			mustRun(t, db, "d", `{"insert": "c", "documents": [`+tc.doc+`]}`)
			id, _ := csOpenCursor(t, db, "d", `{"aggregate": "c", "pipeline": [{"$changeStream": {"showExpandedEvents": true}}], "cursor": {}}`)
			mustRun(t, db, "d", `{"update": "c", "updates": [{"q": {}, "u": `+tc.pipeline+`}]}`)
			r, err := csGetMore(t, db, "d", "c", id)
			if err != nil {
				t.Fatal(err)
			}
			evs := csBatch(t, r)
			if len(evs) != 1 || field(evs[0], "operationType") != tc.op {
				t.Fatalf("events %v, want one %s", evs, tc.op)
			}
			got := field(evs[0], "updateDescription")
			if tc.op == "replace" {
				got = field(evs[0], "fullDocument")
			}
			if g, w := csJSON(t, got), csJSON(t, tc.want); g != w {
				t.Errorf("got\n %s\nwant %s", g, w)
			}
		})
	}
}
