package query

import "testing"

// TestUpdatePathRules checks every update operator's path rules against
// MongoDB's: a written top-level field may not start with '$' (52
// DollarPrefixedFieldName, jstests/core/query/update/update_dollar_fields.js)
// while nested $-names and '$' inside a name are fine; an empty path or
// path component is 56 EmptyFieldName; two modifiers on overlapping paths
// are 40 ConflictingUpdateOperators (jstests/core/query/update/
// update_set_unset.js and verify_update_mods.js).
func TestUpdatePathRules(t *testing.T) {
	t.Parallel()
	const doc = `{"_id": 0, "n": 0, "arr": [1, 2]}`
	ops := []struct{ op, arg string }{
		{"$set", `1`}, {"$setOnInsert", `1`}, {"$inc", `1`}, {"$mul", `2`}, {"$min", `1`}, {"$max", `1`},
		{"$push", `1`}, {"$addToSet", `1`}, {"$currentDate", `true`},
	}
	var cases []updateCase
	for _, o := range ops {
		// Top-level $-prefixed names are refused by every writing operator
		// ($setOnInsert only writes on an upsert's insert: see below).
		code := 52
		if o.op == "$setOnInsert" {
			code = 0
		}
		for _, p := range []string{"$z", "$$$", "$secret.agent.x", "$reffoo", "$idbar"} {
			c := updateCase{doc: doc, update: `{"` + o.op + `": {"` + p + `": ` + o.arg + `}}`, code: code}
			if code == 0 {
				c.want = doc
			}
			cases = append(cases, c)
		}
		// Empty field names.
		for _, p := range []string{"", "a..b", ".a", "a."} {
			cases = append(cases, updateCase{doc: doc, update: `{"` + o.op + `": {"` + p + `": ` + o.arg + `}}`, code: 56})
		}
		// Conflicting paths within and across operators.
		cases = append(cases,
			updateCase{doc: doc, update: `{"` + o.op + `": {"a": ` + o.arg + `, "a.b": ` + o.arg + `}}`, code: 40},
			updateCase{doc: doc, update: `{"` + o.op + `": {"a.b": ` + o.arg + `}, "$unset": {"a": 1}}`, code: 40},
		)
	}
	// Removing operators may name a $-prefixed field: $unset removes it.
	cases = append(cases,
		updateCase{doc: `{"_id": 0, "$z": 1}`, update: `{"$unset": {"$z": 1}}`, want: `{"_id": 0}`},
		updateCase{doc: doc, update: `{"$pull": {"$z": 1}}`, want: doc},
		updateCase{doc: doc, update: `{"$pop": {"$z": 1}}`, want: doc},
		updateCase{doc: doc, update: `{"$pullAll": {"$z": [1]}}`, want: doc},
		// $rename into a top-level $-name is refused; out of one is fine.
		updateCase{doc: doc, update: `{"$rename": {"n": "$n"}}`, code: 52},
		updateCase{doc: `{"_id": 0, "$n": 1}`, update: `{"$rename": {"$n": "n"}}`, want: `{"_id": 0, "n": 1}`},
		updateCase{doc: doc, update: `{"$rename": {"n": ""}}`, code: 56},
		updateCase{doc: doc, update: `{"$rename": {"n": "arr"}, "$set": {"arr.0": 1}}`, code: 40},
		// Nested $-names and '$' inside a name are allowed.
		updateCase{doc: doc, update: `{"$set": {"sneaky.$x": 1}}`, want: `{"_id": 0, "n": 0, "arr": [1, 2], "sneaky": {"$x": 1}}`},
		updateCase{doc: doc, update: `{"$set": {"a": {"$z": 1}}}`, want: `{"_id": 0, "n": 0, "arr": [1, 2], "a": {"$z": 1}}`},
		updateCase{doc: doc, update: `{"$set": {"ke$sha": 1}}`, want: `{"_id": 0, "n": 0, "arr": [1, 2], "ke$sha": 1}`},
		updateCase{doc: doc, update: `{"$set": {"x": {"$ref": "1", "$id": 1, "$db": "1"}}}`, want: `{"_id": 0, "n": 0, "arr": [1, 2], "x": {"$ref": "1", "$id": 1, "$db": "1"}}`},
	)
	runUpdateCases(t, cases)

	// $setOnInsert writes only on an upsert's insert, and then the rule holds.
	u, err := ParseUpdate(D(t, `{"$setOnInsert": {"$z": 1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := u.Apply(D(t, `{"_id": 1}`), UpdateOptions{Now: testNow, IsUpsertInsert: true}); codeOf(err) != 52 {
		t.Errorf("$setOnInsert of $z on insert: %v, want 52", err)
	}
}
