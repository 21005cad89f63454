package engine

import (
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $jsonSchema in find filters: each keyword keeps exactly the documents
// it should, a type-specific keyword passes values of other types, and a
// missing property fails only required.
func TestJSONSchemaInFind(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [
		{"_id": 1, "name": "ann", "age": 30, "tags": ["a", "b"]},
		{"_id": 2, "name": "bo", "age": 17.5, "tags": []},
		{"_id": 3, "name": 5, "age": {"$numberLong": "70"}},
		{"_id": 4, "age": "old", "extra": true},
		{"_id": 5, "name": "élodie", "tags": ["a", 1]}]}`)
	for _, tc := range []struct{ schema, want string }{
		{`{"required": ["name"]}`, "1,2,3,5"},
		{`{"required": ["name", "age"]}`, "1,2,3"},
		{`{"properties": {"name": {"bsonType": "string"}}}`, "1,2,4,5"},
		{`{"properties": {"name": {"type": "string"}}, "required": ["name"]}`, "1,2,5"},
		{`{"properties": {"age": {"bsonType": ["int", "long"]}}}`, "1,3,5"},
		{`{"properties": {"age": {"bsonType": "number"}}}`, "1,2,3,5"},
		{`{"properties": {"age": {"type": "number"}}}`, "1,2,3,5"},
		{`{"properties": {"age": {"minimum": 18}}}`, "1,3,4,5"},
		{`{"properties": {"age": {"minimum": 30, "exclusiveMinimum": true}}}`, "3,4,5"},
		{`{"properties": {"age": {"maximum": 30}}}`, "1,2,4,5"},
		{`{"properties": {"age": {"maximum": 30, "exclusiveMaximum": true}}}`, "2,4,5"},
		{`{"properties": {"name": {"minLength": 3}}}`, "1,3,4,5"},
		{`{"properties": {"name": {"maxLength": 3}}}`, "1,2,3,4"},
		{`{"properties": {"name": {"pattern": "^[a-b]"}}}`, "1,2,3,4"},
		{`{"properties": {"name": {"enum": ["ann", 5]}}}`, "1,3,4"},
		{`{"properties": {"age": {"enum": [70]}}}`, "3,5"},
		{`{"properties": {"tags": {"items": {"bsonType": "string"}}}}`, "1,2,3,4"},
		{`{"properties": {"tags": {"minItems": 1}}}`, "1,3,4,5"},
		{`{"properties": {"tags": {"maxItems": 0}}}`, "2,3,4"},
		{`{"properties": {"_id": {}, "name": {}, "age": {}, "tags": {}}, "additionalProperties": false}`, "1,2,3,5"},
		{`{"additionalProperties": {"bsonType": ["int", "string", "array"]}}`, "1,5"},
		{`{"description": "people", "title": "p", "bsonType": "object"}`, "1,2,3,4,5"},
		{`{"anyOf": [{"required": ["extra"]}, {"properties": {"age": {"bsonType": "long"}}, "required": ["age"]}]}`, "3,4"},
		{`{"not": {"required": ["tags"]}}`, "3,4"},
		{`{"oneOf": [{"required": ["tags"]}, {"required": ["age"]}]}`, "3,4,5"},
		{`{"allOf": [{"required": ["tags"]}, {"required": ["age"]}]}`, "1,2"},
		{`{"properties": {"age": {"multipleOf": 10}}}`, "1,3,4,5"},
		{`{"properties": {"tags": {"items": [{"bsonType": "string"}], "additionalItems": false}}}`, "2,3,4"},
		{`{"properties": {"tags": {"items": [{"bsonType": "string"}], "additionalItems": {"bsonType": "int"}}}}`, "2,3,4,5"},
		{`{"patternProperties": {"^na": {"bsonType": "string"}}}`, "1,2,4,5"},
		{`{"patternProperties": {"^(_id|name|age|tags)$": {}}, "additionalProperties": false}`, "1,2,3,5"},
		{`{"dependencies": {"extra": ["name"]}}`, "1,2,3,5"},
		{`{"dependencies": {"tags": {"required": ["age"]}}}`, "1,2,3,4"},
	} {
		r := mustRun(t, db, "test", `{"find": "c", "filter": {"$jsonSchema": `+tc.schema+`}}`)
		var got []string
		for _, d := range field(r, "cursor.firstBatch").(bson.A) {
			got = append(got, fmtValue(d.(bson.D)[0].Value))
		}
		if g := strings.Join(got, ","); g != tc.want {
			t.Errorf("$jsonSchema %s: _ids %s, want %s", tc.schema, g, tc.want)
		}
	}
	mustRun(t, db, "test", `{"insert": "u", "documents": [{"_id": 1, "t": [1, 1.0]}, {"_id": 2, "t": [1, 2]}, {"_id": 3, "t": [{"a": 1}, {"a": 1}]}]}`)
	r := mustRun(t, db, "test", `{"find": "u", "filter": {"$jsonSchema": {"properties": {"t": {"uniqueItems": true}}}}}`)
	sameValue(t, "uniqueItems", field(r, "cursor.firstBatch"), `[{"_id": 2, "t": [1, 2]}]`)
	// Beside other operators, and under $or.
	r = mustRun(t, db, "test", `{"find": "c", "filter": {"$or": [{"$jsonSchema": {"required": ["extra"]}}, {"_id": 1}]}}`)
	if n := len(field(r, "cursor.firstBatch").(bson.A)); n != 2 {
		t.Errorf("$jsonSchema under $or: %d documents, want 2", n)
	}
}

// multipleOf judges as mongod does, in decimal: a double keeps 15
// significant digits, so 0.3 is a multiple of 0.1 and 19.99 of 0.01
// although their doubles' remainders are not zero; longs and decimals
// are exact (2^63-1 is 7 x 1317624576693539401, 1e300 is 10^300), and
// infinities and NaN are multiples of nothing.
func TestJSONSchemaMultipleOfDecimal(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "m", "documents": [
		{"_id": 1, "p": 0.3},
		{"_id": 2, "p": 0.35},
		{"_id": 3, "p": {"$numberDecimal": "0.30"}},
		{"_id": 4, "p": 19.99},
		{"_id": 5, "p": 1e300},
		{"_id": 6, "p": {"$numberDouble": "Infinity"}},
		{"_id": 7, "p": {"$numberLong": "9223372036854775807"}},
		{"_id": 8, "p": {"$numberDecimal": "1E+6000"}},
		{"_id": 9, "p": {"$numberDouble": "NaN"}},
		{"_id": 10, "p": 7}]}`)
	for _, tc := range []struct{ schema, want string }{
		{`{"properties": {"p": {"multipleOf": 0.1}}}`, "1,3,5,7,8,10"},
		{`{"properties": {"p": {"multipleOf": 0.01}}}`, "1,2,3,4,5,7,8,10"},
		{`{"properties": {"p": {"multipleOf": {"$numberDecimal": "0.05"}}}}`, "1,2,3,5,7,8,10"},
		{`{"properties": {"p": {"multipleOf": 7}}}`, "7,10"},
		{`{"properties": {"p": {"multipleOf": {"$numberLong": "2"}}}}`, "5,8"},
		// Decimal divisors beyond a double's range are divisors all the same.
		{`{"properties": {"p": {"multipleOf": {"$numberDecimal": "1E+400"}}}}`, "8"},
		{`{"properties": {"p": {"multipleOf": {"$numberDecimal": "1E-400"}}}}`, "1,2,3,4,5,7,8,10"},
	} {
		r := mustRun(t, db, "test", `{"find": "m", "filter": {"$jsonSchema": `+tc.schema+`}, "sort": {"_id": 1}}`)
		var got []string
		for _, d := range field(r, "cursor.firstBatch").(bson.A) {
			got = append(got, fmtValue(d.(bson.D)[0].Value))
		}
		if g := strings.Join(got, ","); g != tc.want {
			t.Errorf("$jsonSchema %s: _ids %s, want %s", tc.schema, g, tc.want)
		}
	}
}

// Malformed and unsupported schemas are refused with mongod's codes, in
// find and when set as a validator.
func TestJSONSchemaRefusals(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, tc := range []struct {
		schema string
		code   document.Code
		frag   string
	}{
		{`{"$ref": "#/definitions/a"}`, document.CodeFailedToParse, "$jsonSchema keyword '$ref' is not currently supported"},
		{`{"format": "email"}`, document.CodeFailedToParse, "$jsonSchema keyword 'format' is not currently supported"},
		{`{"default": 1}`, document.CodeFailedToParse, "$jsonSchema keyword 'default' is not currently supported"},
		{`{"definitions": {}}`, document.CodeFailedToParse, "$jsonSchema keyword 'definitions' is not currently supported"},
		{`{"$schema": "x"}`, document.CodeFailedToParse, "$jsonSchema keyword '$schema' is not currently supported"},
		{`{"bogus": 1}`, document.CodeFailedToParse, "Unknown $jsonSchema keyword: bogus"},
		{`{"required": []}`, document.CodeFailedToParse, "$jsonSchema keyword 'required' cannot be an empty array"},
		{`{"bsonType": 1}`, document.CodeTypeMismatch, "$jsonSchema keyword 'bsonType' must be either a string or an array of strings"},
		{`{"bsonType": "strin"}`, document.CodeBadValue, "Unknown type name alias: strin"},
		{`{"type": "integer"}`, document.CodeFailedToParse, "$jsonSchema type 'integer' is not currently supported."},
		{`{"type": "string", "bsonType": "string"}`, document.CodeFailedToParse, "Cannot specify both $jsonSchema keywords 'type' and 'bsonType'"},
		{`{"properties": {"a": {"exclusiveMinimum": true}}}`, document.CodeFailedToParse, "'minimum' must be a present if exclusiveMinimum is present"},
		{`{"properties": {"a": {"minLength": -1}}}`, document.CodeFailedToParse, "must be a non-negative integral number"},
		{`{"encrypt": {}}`, document.CodeBadValue, "$jsonSchema keyword 'encrypt' is not supported by ttlkv"},
		{`{"properties": {"a": {"multipleOf": 0}}}`, document.CodeFailedToParse, "$jsonSchema keyword 'multipleOf' must have a positive value"},
		{`{"properties": {"a": {"multipleOf": {"$numberDouble": "-Infinity"}}}}`, document.CodeFailedToParse, "$jsonSchema keyword 'multipleOf' must have a positive value"},
		{`{"properties": {"a": {"multipleOf": {"$numberDouble": "Infinity"}}}}`, document.CodeBadValue, "divisor cannot be infinite"},
		{`{"properties": {"a": {"multipleOf": {"$numberDecimal": "NaN"}}}}`, document.CodeBadValue, "divisor cannot be NaN"},
		{`{"properties": {"a": {"multipleOf": {"$numberDecimal": "-1E-400"}}}}`, document.CodeFailedToParse, "$jsonSchema keyword 'multipleOf' must have a positive value"},
		{`{"properties": {"a": {"multipleOf": {"$numberDecimal": "-0"}}}}`, document.CodeFailedToParse, "$jsonSchema keyword 'multipleOf' must have a positive value"},
		{`{"dependencies": {"a": []}}`, document.CodeFailedToParse, "property 'a' in $jsonSchema keyword 'dependencies' cannot be an empty array"},
		{`{"patternProperties": {"(": {}}}`, document.CodeBadValue, "Regular expression is invalid"},
		{`{"properties": 1}`, document.CodeTypeMismatch, "$jsonSchema keyword 'properties' must be an object"},
		{`{"properties": {"a": 1}}`, document.CodeTypeMismatch, "Nested schema for $jsonSchema property 'a' must be an object"},
		{`{"properties": {"a": {"bogus": 1}}}`, document.CodeFailedToParse, "Unknown $jsonSchema keyword: bogus"},
		{`{"patternProperties": []}`, document.CodeTypeMismatch, "$jsonSchema keyword 'patternProperties' must be an object"},
		{`{"patternProperties": {"^a": 1}}`, document.CodeTypeMismatch, "$jsonSchema keyword 'patternProperties' has property '^a' which is not an object"},
		{`{"patternProperties": {"(": {"bogus": 1}}}`, document.CodeBadValue, "Regular expression is invalid"},
		{`{"patternProperties": {"^a": {"bogus": 1}}}`, document.CodeFailedToParse, "Unknown $jsonSchema keyword: bogus"},
		{`{"additionalProperties": 1}`, document.CodeTypeMismatch, "$jsonSchema keyword 'additionalProperties' must be either an object or a boolean"},
		{`{"additionalItems": "x"}`, document.CodeTypeMismatch, "$jsonSchema keyword 'additionalItems' must be either an object or a boolean"},
		{`{"additionalProperties": {"bogus": 1}}`, document.CodeFailedToParse, "Unknown $jsonSchema keyword: bogus"},
		{`5`, document.CodeTypeMismatch, "$jsonSchema must be an object"},
	} {
		wantCode(t, db, "test", `{"find": "c", "filter": {"$jsonSchema": `+tc.schema+`}}`, tc.code, tc.frag)
		wantCode(t, db, "test", `{"create": "v", "validator": {"$jsonSchema": `+tc.schema+`}}`, tc.code, tc.frag)
	}
}

// A $jsonSchema validator: inserts and updates are checked, and errInfo
// lists the schema rules not satisfied.
func TestJSONSchemaValidator(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "validator": {"$jsonSchema": {"bsonType": "object", "required": ["name", "year"],
		"properties": {"name": {"bsonType": "string", "description": "a name"}, "year": {"bsonType": "int", "minimum": 2017, "maximum": 3017}}}}}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "name": "a", "year": 2020}, {"_id": 2, "name": 3, "year": 2020}, {"_id": 3, "year": 1999}], "ordered": false}`)
	sameValue(t, "n", field(r, "n"), `1`)
	sameValue(t, "errInfo 0", field(r, "writeErrors.0.errInfo"), `{"failingDocumentId": 2, "details": {"operatorName": "$jsonSchema",
		"schemaRulesNotSatisfied": [{"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": "name", "description": "a name",
			"details": [{"operatorName": "bsonType", "specifiedAs": {"bsonType": "string"}, "reason": "type did not match",
				"consideredValue": 3, "consideredType": "int"}]}]}]}}`)
	// In mongod's order: properties before required.
	sameValue(t, "errInfo 1", field(r, "writeErrors.1.errInfo.details.schemaRulesNotSatisfied"), `[
		{"operatorName": "properties", "propertiesNotSatisfied": [{"propertyName": "year",
			"details": [{"operatorName": "minimum", "specifiedAs": {"minimum": 2017}, "reason": "comparison failed", "consideredValue": 1999}]}]},
		{"operatorName": "required", "specifiedAs": {"required": ["name", "year"]}, "missingProperties": ["name"]}]`)
	r = mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"year": 3018}}}]}`)
	sameValue(t, "update code", field(r, "writeErrors.0.code"), `121`)
	mustRun(t, db, "test", `{"update": "c", "updates": [{"q": {"_id": 1}, "u": {"$set": {"year": 3000}}}]}`)
	sameValue(t, "docs", findAll(t, db, "test", "c", bson.D{}), `[{"_id": 1, "name": "a", "year": 3000}]`)
}
