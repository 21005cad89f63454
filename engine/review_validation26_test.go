package engine

import (
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// Review 26: collection validators and $jsonSchema against mongod 7.0,
// each difference fixed since.
// Each test asserts what mongod answers; the comment says where that was
// read. References are to the mongodb/mongo repository:
//   - json_schema_parser.cpp: src/mongo/db/matcher/schema/json_schema_parser.cpp
//   - doc_validation_error.cpp: src/mongo/db/matcher/doc_validation_error.cpp
//   - the error unit tests: src/mongo/db/matcher/doc_validation_error_test.cpp
//     and doc_validation_error_json_schema_test.cpp

// review26IDs runs a find and returns the _ids it gives, comma-separated.
func review26IDs(t *testing.T, db *DB, cmd string) string {
	t.Helper()
	r := mustRun(t, db, "test", cmd)
	var ids []string
	for _, d := range firstBatch(t, r) {
		ids = append(ids, fmtValue(d[0].Value))
	}
	return strings.Join(ids, ",")
}

// mongod builds a schema's match expression in a fixed keyword order
// (translateScalarKeywords, translateArrayKeywords, translateObjectKeywords
// with properties before required, then the logical keywords), and the
// error generator walks that tree: schemaRulesNotSatisfied lists
// "properties" before "required" whatever order the schema is written in.
// jstests/core/doc_validation/doc_validation_error.js ("Students
// collection", "Contacts 2"). ttlkv follows the schema's own order.
func TestReviewValidation26SchemaRulesInMongodOrder(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "validator": {"$jsonSchema": {"required": ["name"],
		"properties": {"year": {"bsonType": "int"}}}}}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "year": "x"}]}`)
	sameValue(t, "rule 0", field(r, "writeErrors.0.errInfo.details.schemaRulesNotSatisfied.0.operatorName"), `"properties"`)
	sameValue(t, "rule 1", field(r, "writeErrors.0.errInfo.details.schemaRulesNotSatisfied.1.operatorName"), `"required"`)
}

// translateRequired sorts the required names before building one
// $exists per name, and the error generator lists the missing ones in
// that order: missingProperties is sorted. json_schema_parser.cpp
// (translateRequired, "sortedProperties"); doc_validation_error.cpp
// (the "required" AND collects its '_propertyExists' children in order).
func TestReviewValidation26MissingPropertiesSorted(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "validator": {"$jsonSchema": {"required": ["z", "b", "m"]}}}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1}]}`)
	sameValue(t, "details", field(r, "writeErrors.0.errInfo.details"), `{"operatorName": "$jsonSchema",
		"schemaRulesNotSatisfied": [{"operatorName": "required", "specifiedAs": {"required": ["z", "b", "m"]},
			"missingProperties": ["b", "m", "z"]}]}`)
}

// The schema's title and description are carried into errInfo: the
// top-level title beside operatorName "$jsonSchema", and a property's
// description beside its propertyName. jstests/core/doc_validation/
// doc_validation_error.js ("Students collection": propertiesNotSatisfied
// entries with description; "component.json": title at the top).
// ttlkv leaves both out, in the manual's own example.
func TestReviewValidation26SchemaAnnotationsInErrInfo(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "validator": {"$jsonSchema": {"title": "People",
		"properties": {"name": {"bsonType": "string", "description": "must be a string"}}}}}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "name": 3}]}`)
	sameValue(t, "title", field(r, "writeErrors.0.errInfo.details.title"), `"People"`)
	sameValue(t, "description", field(r, "writeErrors.0.errInfo.details.schemaRulesNotSatisfied.0.propertiesNotSatisfied.0.description"), `"must be a string"`)
}

// Within one property the failing keywords come in mongod's translation
// order (multipleOf, maximum, minimum; pattern, maxLength, minLength; the
// type last), not the schema's: {minimum: 10, maximum: -10} on 5 lists
// maximum before minimum. doc_validation_error_json_schema_test.cpp
// (NestedPropertiesMultipleFailingClauses); json_schema_parser.cpp
// (translateScalarKeywords).
func TestReviewValidation26PropertyDetailsInMongodOrder(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "validator": {"$jsonSchema": {"properties": {"a": {"minimum": 10, "maximum": -10}}}}}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 5}]}`)
	sameValue(t, "details", field(r, "writeErrors.0.errInfo.details.schemaRulesNotSatisfied.0.propertiesNotSatisfied.0.details"), `[
		{"operatorName": "maximum", "specifiedAs": {"maximum": -10}, "reason": "comparison failed", "consideredValue": 5},
		{"operatorName": "minimum", "specifiedAs": {"minimum": 10}, "reason": "comparison failed", "consideredValue": 5}]`)
}

// $expr's expressionResult is the value the expression evaluated to, not
// always false: {$expr: 0} reports expressionResult 0.
// doc_validation_error.cpp (ExprMatchExpression: expressionResult
// .addToBsonObj); doc_validation_error_test.cpp
// (ExprExpressionResultNumeric).
func TestReviewValidation26ExprResultInErrInfo(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "validator": {"$expr": "$a"}}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "a": 0}]}`)
	sameValue(t, "details", field(r, "writeErrors.0.errInfo.details"), `{"operatorName": "$expr",
		"specifiedAs": {"$expr": "$a"}, "reason": "expression did not match", "expressionResult": 0}`)
}

// A validator that throws while matching is a failed validation, not an
// error of the write: under validationAction warn the write goes
// through. CollectionImpl::checkValidation (src/mongo/db/catalog/
// collection_impl.cpp: matchesBSON in try/catch, then the warn branch);
// jstests/core/doc_validation/doc_validation_options.js ("validator
// expressions which throw accept writes when in 'warn' mode").
func TestReviewValidation26ThrowingValidatorWarnAccepts(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "validator": {"$expr": {"$divide": [10, 0]}}, "validationAction": "warn"}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "foo": "1"}]}`)
	if field(r, "writeErrors") != nil {
		t.Errorf("warn-mode insert under a throwing validator: writeErrors %s, want none", fmtValue(field(r, "writeErrors")))
	}
	sameValue(t, "n", field(r, "n"), `1`)
}

// Under validationAction error the same write fails with 121
// DocumentValidationFailure, its details saying the expression failed
// to evaluate. collection_impl.cpp (checkValidation);
// doc_validation_error.cpp (ExprMatchExpression: reason "failed to
// evaluate aggregation expression" and the exception as details);
// doc_validation_error_test.cpp (ExprWhichThrowsGeneratesError).
// ttlkv answers the expression's own error (2 BadValue).
func TestReviewValidation26ThrowingValidatorErrorIs121(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "validator": {"$expr": {"$divide": [10, 0]}}}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "foo": "1"}]}`)
	sameValue(t, "code", field(r, "writeErrors.0.code"), `121`)
	sameValue(t, "operatorName", field(r, "writeErrors.0.errInfo.details.operatorName"), `"$expr"`)
	sameValue(t, "reason", field(r, "writeErrors.0.errInfo.details.reason"), `"failed to evaluate aggregation expression"`)
}

// A top-level schema whose type excludes "object" parses to an
// always-false expression annotated "$jsonSchema": details are
// {operatorName: "$jsonSchema", specifiedAs: {$jsonSchema: ...}, reason:
// "expression always evaluates to false"}, with no schemaRulesNotSatisfied.
// json_schema_parser.cpp (_parse, "matches nothing");
// doc_validation_error_json_schema_test.cpp
// (NoTopLevelObjectTypeRejectsAllDocuments).
func TestReviewValidation26TopLevelNonObjectTypeErrInfo(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c", "validator": {"$jsonSchema": {"bsonType": "string"}}}`)
	r := mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1}]}`)
	sameValue(t, "details", field(r, "writeErrors.0.errInfo.details"), `{"operatorName": "$jsonSchema",
		"specifiedAs": {"$jsonSchema": {"bsonType": "string"}}, "reason": "expression always evaluates to false"}`)
}

// mongod refuses duplicate values in the keyword arrays that name
// things: bsonType/type ("has duplicate value"), required ("array cannot
// contain duplicate values"), enum (compared as values, objects without
// regard to field order: "array cannot contain duplicate values."), a
// property dependency ("contains duplicate element"), all 9
// FailedToParse. json_schema_parser.cpp (parseTypeSet, parseRequired,
// parseEnum, translatePropertyDependency). ttlkv accepts them.
func TestReviewValidation26DuplicateValuesRefused(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, schema := range []string{
		`{"bsonType": ["int", "int"]}`,
		`{"properties": {"a": {"type": ["string", "string"]}}}`,
		`{"required": ["a", "a"]}`,
		`{"properties": {"a": {"enum": [1, 1.0]}}}`,
		`{"properties": {"a": {"enum": [{"x": 1, "y": 2}, {"y": 2, "x": 1}]}}}`,
		`{"dependencies": {"a": ["b", "b"]}}`,
	} {
		t.Run(schema, func(t *testing.T) {
			wantCode(t, db, "test", `{"find": "c", "filter": {"$jsonSchema": `+schema+`}}`, document.CodeFailedToParse, "duplicate")
		})
	}
	wantCode(t, db, "test", `{"create": "v", "validator": {"$jsonSchema": {"required": ["a", "a"]}}}`, document.CodeFailedToParse, "duplicate")
}

// A keyword given twice in one schema is refused: 9 FailedToParse,
// "Duplicate $jsonSchema keyword: required". json_schema_parser.cpp
// (_parse, the keywordMap loop). ttlkv merges or overwrites them.
func TestReviewValidation26DuplicateKeywordRefused(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	t.Run("find", func(t *testing.T) {
		wantCode(t, db, "test", `{"find": "c", "filter": {"$jsonSchema": {"required": ["a"], "required": ["b"]}}}`,
			document.CodeFailedToParse, "Duplicate $jsonSchema keyword: required")
	})
	t.Run("create", func(t *testing.T) {
		wantCode(t, db, "test", `{"create": "v", "validator": {"$jsonSchema": {"properties": {"a": {"minimum": 1, "minimum": 2}}}}}`,
			document.CodeFailedToParse, "Duplicate $jsonSchema keyword: minimum")
	})
}

// bsonType "integer" is refused as the JSON type is: parseTypeSet checks
// for "integer" whichever keyword it parses, 9 FailedToParse "$jsonSchema
// type 'integer' is not currently supported.". json_schema_parser.cpp
// (JSONSchemaParser::parseTypeSet). ttlkv: 2 "Unknown type name alias".
func TestReviewValidation26BsonTypeIntegerCode(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	wantCode(t, db, "test", `{"find": "c", "filter": {"$jsonSchema": {"properties": {"a": {"bsonType": "integer"}}}}}`,
		document.CodeFailedToParse, "$jsonSchema type 'integer' is not currently supported.")
}

// An empty allOf/anyOf/oneOf is 2 BadValue ("must be a non-empty
// array"), not 9. json_schema_parser.cpp (parseLogicalKeyword).
func TestReviewValidation26EmptyLogicalArrayCode(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, kw := range []string{"allOf", "anyOf", "oneOf"} {
		t.Run(kw, func(t *testing.T) {
			wantCode(t, db, "test", `{"find": "c", "filter": {"$jsonSchema": {"`+kw+`": []}}}`,
				document.CodeBadValue, "$jsonSchema keyword '"+kw+"' must be a non-empty array")
		})
	}
}

// The count keywords (minLength, maxLength, minItems, maxItems,
// minProperties, maxProperties) are read by
// BSONElement::parseIntegerElementToNonNegativeLong, whose every refusal
// is 9 FailedToParse: "Expected a number in: ..." for a string,
// "Expected an integer: ..." for 1.5, "Expected an integer, but found NaN
// in: ..." for NaN. json_schema_parser.cpp (parseLength,
// parseNumProperties); src/mongo/bson/bsonelement.cpp. ttlkv answers 14
// TypeMismatch.
func TestReviewValidation26CountKeywordCodes(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for _, schema := range []string{
		`{"properties": {"a": {"minLength": "1"}}}`,
		`{"properties": {"a": {"maxLength": 1.5}}}`,
		`{"properties": {"a": {"minItems": {"$numberDouble": "NaN"}}}}`,
		`{"properties": {"a": {"maxItems": 2.5}}}`,
		`{"minProperties": "1"}`,
		`{"maxProperties": 0.5}`,
	} {
		t.Run(schema, func(t *testing.T) {
			wantCode(t, db, "test", `{"find": "c", "filter": {"$jsonSchema": `+schema+`}}`, document.CodeFailedToParse, "Expected a")
		})
	}
}

// items given as an array starts additionalItems at its length, so
// items: [] with additionalItems: false refuses every non-empty array.
// json_schema_parser.cpp (parseItems: startIndexForAdditionalItems =
// index, 0 for an empty list; parseAdditionalItems). ttlkv ignores
// additionalItems when the items list is empty.
func TestReviewValidation26EmptyItemsListAdditionalItems(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "t": []}, {"_id": 2, "t": [1]}]}`)
	if got := review26IDs(t, db, `{"find": "c", "filter": {"$jsonSchema": {"properties": {"t": {"items": [], "additionalItems": false}}}}}`); got != "1" {
		t.Errorf("items [] + additionalItems false: _ids %q, want 1", got)
	}
	if got := review26IDs(t, db, `{"find": "c", "filter": {"$jsonSchema": {"properties": {"t": {"items": [], "additionalItems": {"bsonType": "string"}}}}}}`); got != "1" {
		t.Errorf("items [] + additionalItems schema: _ids %q, want 1", got)
	}
}

// enum compares objects without regard to field order: nested values
// through InternalSchemaEqMatchExpression, the whole document (enum at
// the top level) through InternalSchemaRootDocEqMatchExpression, both
// with Unordered-fields comparators. expression_internal_schema_eq.h and
// expression_internal_schema_root_doc_eq.h ("comparisons between objects
// do not consider field order"). ttlkv compares in order.
func TestReviewValidation26EnumIgnoresFieldOrder(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "o": {"x": 1, "y": 2}}]}`)
	if got := review26IDs(t, db, `{"find": "c", "filter": {"$jsonSchema": {"properties": {"o": {"enum": [{"y": 2, "x": 1}]}}}}}`); got != "1" {
		t.Errorf("nested enum, fields reordered: _ids %q, want 1", got)
	}
	if got := review26IDs(t, db, `{"find": "c", "filter": {"$jsonSchema": {"enum": [{"o": {"x": 1, "y": 2}, "_id": 1}]}}}`); got != "1" {
		t.Errorf("top-level enum, fields reordered: _ids %q, want 1", got)
	}
}

// uniqueItems finds duplicates with an Unordered-fields comparator:
// [{x: 1, y: 2}, {y: 2, x: 1}] has a duplicate. expression_internal_
// schema_unique_items.h ("objects are compared in a field
// order-independent manner").
func TestReviewValidation26UniqueItemsIgnoresFieldOrder(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"insert": "c", "documents": [{"_id": 1, "t": [{"x": 1, "y": 2}, {"y": 2, "x": 1}]}, {"_id": 2, "t": [{"x": 1}, {"x": 2}]}]}`)
	if got := review26IDs(t, db, `{"find": "c", "filter": {"$jsonSchema": {"properties": {"t": {"uniqueItems": true}}}}}`); got != "2" {
		t.Errorf("uniqueItems: _ids %q, want 2", got)
	}
}

// pattern builds a RegexMatchExpression, whose constructor refuses a bad
// regex with 51091 "Regular expression is invalid: ...", which
// JSONSchemaParser::parse returns as the parse error; at the top level
// pattern is an always-true expression and the regex is never compiled,
// so the schema is accepted. json_schema_parser.cpp (parsePattern,
// JSONSchemaParser::parse's catch); expression_leaf.cpp
// (RegexMatchExpression, uassert 51091). ttlkv: 2 BadValue, and refuses
// the top-level one too.
func TestReviewValidation26PatternInvalidRegex(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	if _, err := run(t, db, "test", `{"find": "c", "filter": {"$jsonSchema": {"pattern": "("}}}`); err != nil {
		t.Errorf("top-level pattern \"(\": %v, want accepted", err)
	}
	wantCode(t, db, "test", `{"find": "c", "filter": {"$jsonSchema": {"properties": {"s": {"pattern": "("}}}}}`,
		document.Code(51091), "Regular expression is invalid")
}

// collMod with validator {} goes through Collection::setValidator, which
// also stores validationLevel and validationAction (their defaults when
// unset), and CollectionOptions::appendBSON lists the validator only when
// it is not empty: options {validationLevel: "strict", validationAction:
// "error"}. src/mongo/db/catalog/collection_impl.cpp (setValidator);
// src/mongo/db/catalog/collection_options.cpp (appendBSON). ttlkv lists
// validator: {} and no level or action.
func TestReviewValidation26CollModEmptyValidatorListing(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"create": "c"}`)
	mustRun(t, db, "test", `{"collMod": "c", "validator": {}}`)
	r := mustRun(t, db, "test", `{"listCollections": 1, "filter": {"name": "c"}}`)
	docs := firstBatch(t, r)
	if len(docs) != 1 {
		t.Fatalf("listCollections: %v", r)
	}
	sameValue(t, "options", field(docs[0], "options"), `{"validationLevel": "strict", "validationAction": "error"}`)
}
