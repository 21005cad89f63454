package agg

import "testing"

// Session 27: the aggregation finding of review 26 that did not land
// then. The test asserts what mongod 7.0 answers and says where that was
// read in mongodb/mongo.

// TestReviewStages26ProjectComputedDottedPathThroughArrays: in an
// inclusion $project a computed dotted path through an array likewise
// turns each scalar element into a document holding the computed field,
// while the included sub-field drops scalars
// (jstests/aggregation/sources/addFields/add_fields_adds_to_missing_fields.js,
// queryProjectWithExpression: {$project: {_id: 0, "array.m1": 1,
// "array.m2": "what?"}} on [1, 2, {m1: "str"}] gives [{m2}, {m2}, {m1,
// m2}]). A nested array is descended into and a scalar becomes a
// document holding the computed field, in its place
// (projection_node.cpp: applyProjectionsToValue leaves a missing value
// for it, applyExpressionsToValue replaces that by the computed fields).
// ttlkv answered [{m1, m2}], and replaced a nested array by one document.
func TestReviewStages26ProjectComputedDottedPathThroughArrays(t *testing.T) {
	t.Parallel()
	stages26Same(t, `[{"_id": 0, "array": [1, 2, {"m1": "str"}]}]`,
		`[{"$project": {"_id": 0, "array.m1": 1, "array.m2": "what?"}}]`,
		`[{"array": [{"m2": "what?"}, {"m2": "what?"}, {"m1": "str", "m2": "what?"}]}]`)
	stages26Same(t, `[{"_id": 0, "a": [1, [2], {"c": 1}]}]`, `[{"$project": {"_id": 0, "a.b": {"$literal": 5}}}]`,
		`[{"a": [{"b": 5}, [{"b": 5}], {"b": 5}]}]`)
	stages26Same(t, `[{"_id": 0, "a": 1, "c": 2}]`, `[{"$project": {"c": 1, "a.b": {"$literal": 5}}}]`,
		`[{"_id": 0, "a": {"b": 5}, "c": 2}]`)
}
