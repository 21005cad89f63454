package engine

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Collection validators (docs/validation.md): a collection's validator
// is a query filter kept in its options; every insert and update of a
// collection that has one is checked against it, as validationLevel and
// validationAction say, unless the command asked to bypass the check.

// codeNearNotAllowed is mongod's code for $near, $nearSphere and
// $geoNear where no sort by distance can happen (a validator).
const codeNearNotAllowed = document.Code(5626500)

// validationLevels and validationActions are the values mongod 7.0
// accepts for validationLevel and validationAction.
var (
	validationLevels  = []string{"off", "strict", "moderate"}
	validationActions = []string{"error", "warn"}
)

type bypassValidationKey struct{}

// WithBypassDocumentValidation returns a context under which the
// inserts and updates of a collection with a validator are not checked
// against it, as MongoDB's bypassDocumentValidation: true.
func WithBypassDocumentValidation(ctx context.Context) context.Context {
	return context.WithValue(ctx, bypassValidationKey{}, true)
}

// bypassCommands are the commands whose parsers read
// bypassDocumentValidation (mongod's IDL types it safeBool for each).
var bypassCommands = map[string]bool{"insert": true, "update": true, "delete": true, "findAndModify": true, "findandmodify": true, "aggregate": true, "bulkWrite": true}

// validationCtx is ctx marked to bypass document validation when cmd
// asks for it (bypassDocumentValidation: true on insert, update,
// findAndModify and the others that take it). On those commands the
// value must be a boolean or a number (its truth is the value's, as
// mongod's safeBool); null and undefined count as absent, and any
// other type is refused with 14 TypeMismatch, before anything is
// written (docs/validation.md).
func validationCtx(ctx context.Context, cmd bson.D) (context.Context, error) {
	v, ok := get(cmd, "bypassDocumentValidation")
	if !ok {
		return ctx, nil
	}
	b, isBool := asBool(v)
	if _, undef := v.(bson.Undefined); undef {
		b, isBool = false, true
	}
	if !isBool && bypassCommands[cmd[0].Key] {
		return ctx, document.Errorf(document.CodeTypeMismatch, "BSON field '%s.bypassDocumentValidation' is the wrong type '%s', expected types '[bool, long, int, decimal, double]'", cmd[0].Key, typeName(v))
	}
	if b {
		return WithBypassDocumentValidation(ctx), nil
	}
	return ctx, nil
}

func bypassValidation(ctx context.Context) bool {
	b, _ := ctx.Value(bypassValidationKey{}).(bool)
	return b
}

// checkValidationOptions checks the validator, validationLevel and
// validationAction that opts, the options of cmdName (create or
// collMod) on dbName.collName, set: mongod's codes and messages, at the
// time they are set, not at the first write. uuid is the collection's
// (zero when it has none), which mongod's refusals name.
func checkValidationOptions(cmdName, dbName, collName string, uuid catalog.UUID, opts bson.D, now time.Time) error {
	for _, e := range opts {
		switch e.Key {
		case "validator":
			d, ok := e.Value.(bson.D)
			if !ok {
				return document.Errorf(document.CodeTypeMismatch, "BSON field '%s.validator' is the wrong type '%s', expected type 'object'", cmdName, typeName(e.Value))
			}
			if len(d) == 0 {
				continue
			}
			ns := dbName + "." + collName
			withUUID := ""
			if !uuid.IsZero() {
				withUUID = " with UUID " + uuid.String()
			}
			if strings.HasPrefix(collName, "system.") {
				return document.Errorf(document.CodeInvalidOptions, "Document validators not allowed on system collection %s%s", ns, withUUID)
			}
			switch dbName {
			case "admin", "local", "config":
				return document.Errorf(document.CodeInvalidOptions, "Document validators are not allowed on collection %s%s in the %s internal database", ns, withUUID, dbName)
			}
			if err := bannedInValidator(d, 0); err != nil {
				return err
			}
			if _, err := query.ParseFilterAt(d, now); err != nil {
				return err
			}
		case "validationLevel":
			if err := checkEnum(cmdName, e.Key, e.Value, validationLevels); err != nil {
				return err
			}
		case "validationAction":
			if err := checkEnum(cmdName, e.Key, e.Value, validationActions); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkEnum checks that v is one of the strings allowed, as mongod's
// IDL parser checks an enumeration.
func checkEnum(cmdName, field string, v any, allowed []string) error {
	s, ok := v.(string)
	if !ok {
		return document.Errorf(document.CodeTypeMismatch, "BSON field '%s.%s' is the wrong type '%s', expected type 'string'", cmdName, field, typeName(v))
	}
	for _, a := range allowed {
		if s == a {
			return nil
		}
	}
	return document.Errorf(document.CodeBadValue, "Enumeration value '%s' for field '%s.%s' is not a valid value.", s, cmdName, field)
}

// bannedInValidator finds the operators a validator may not use
// anywhere ($where, $text, $near, $nearSphere, $geoNear; $function and
// $_internalJsEmit in $expr), with mongod's
// codes; the query parser reports the rest (unknown operators).
func bannedInValidator(v any, depth int) error {
	if depth > 100 {
		return nil // the query parser reports the depth
	}
	switch x := v.(type) {
	case bson.D:
		for _, e := range x {
			switch e.Key {
			case "$where", "$text":
				return document.Errorf(document.CodeBadValue, "%s is not allowed in this context", e.Key)
			case "$near", "$nearSphere", "$geoNear":
				return document.Errorf(codeNearNotAllowed, "$geoNear, $near, and $nearSphere are not allowed in this context, as these operators require sorting geospatial data. If you do not need sort, consider using $geoWithin instead. Check out https://dochub.mongodb.org/core/near-sort-operation and https://dochub.mongodb.org/core/nearSphere-sort-operationfor more details.")
			case "$expr":
				if mentionsRand(e.Value, 0) {
					return errRandInValidator()
				}
				if mentionsKey(e.Value, "$function", 0) {
					return document.Errorf(document.Code(4660800), "$function cannot be used inside a validator.")
				}
				if mentionsKey(e.Value, "$_internalJsEmit", 0) {
					// mapReduce's internal expression, refused as $function is.
					return document.Errorf(document.Code(4660801), "$_internalJsEmit cannot be used inside a validator.")
				}
				continue // not a filter: its keywords are checked by the parser
			case "$jsonSchema":
				continue // not a filter: its keywords are checked by the parser
			case "$sampleRate":
				// mongod reads a rate strictly between 0 and 1 as a $expr
				// with $rand; 0 and 1 are constants.
				if r, ok := e.Value.(float64); ok && r > 0 && r < 1 {
					return errRandInValidator()
				}
			}
			if err := bannedInValidator(e.Value, depth+1); err != nil {
				return err
			}
		}
	case bson.A:
		for _, e := range x {
			if err := bannedInValidator(e, depth+1); err != nil {
				return err
			}
		}
	}
	return nil
}

// mentionsKey reports whether an expression, as written, holds the
// operator key at any depth.
func mentionsKey(v any, key string, depth int) bool {
	if depth > 200 {
		return false
	}
	switch x := v.(type) {
	case bson.D:
		for _, e := range x {
			if e.Key == key || mentionsKey(e.Value, key, depth+1) {
				return true
			}
		}
	case bson.A:
		for _, e := range x {
			if mentionsKey(e, key, depth+1) {
				return true
			}
		}
	}
	return false
}

// errRandInValidator is mongod's refusal of a random draw in a
// validator ($rand, or $sampleRate, which draws one).
func errRandInValidator() error {
	return document.Errorf(document.Code(3040500), "$rand not allowed inside collection validators")
}

// mentionsRand reports whether an expression holds a $rand anywhere.
func mentionsRand(v any, depth int) bool {
	if depth > 100 {
		return false
	}
	switch x := v.(type) {
	case bson.D:
		for _, e := range x {
			if e.Key == "$rand" || mentionsRand(e.Value, depth+1) {
				return true
			}
		}
	case bson.A:
		for _, e := range x {
			if mentionsRand(e, depth+1) {
				return true
			}
		}
	}
	return false
}

// withValidationDefaults adds validationLevel "strict" and
// validationAction "error" to opts, a collection's listed options, when
// it has a non-empty validator and does not say them, as mongod lists
// them.
func withValidationDefaults(opts bson.D) bson.D {
	v, ok := get(opts, "validator")
	if d, isDoc := v.(bson.D); !ok || !isDoc || len(d) == 0 {
		return opts
	}
	if _, ok := get(opts, "validationLevel"); !ok {
		opts = append(opts, bson.E{Key: "validationLevel", Value: "strict"})
	}
	if _, ok := get(opts, "validationAction"); !ok {
		opts = append(opts, bson.E{Key: "validationAction", Value: "error"})
	}
	return opts
}

// collModValidation applies the validator, validationLevel and
// validationAction of a collMod (opts) to nm, the new catalog entry
// being built. The values were checked by checkValidationOptions.
func collModValidation(nm *catalog.Coll, opts bson.D) {
	out := append(bson.D(nil), nm.Options...)
	for _, e := range opts {
		out = set(out, e.Key, e.Value)
	}
	// As mongod's collMod: the level and action are stored whatever was
	// given (their defaults when unset), and an empty validator is not
	// listed.
	if v, ok := get(out, "validator"); ok {
		if d, isDoc := v.(bson.D); isDoc && len(d) == 0 {
			out = unset(out, "validator")
		}
	}
	if _, ok := get(out, "validationLevel"); !ok {
		out = append(out, bson.E{Key: "validationLevel", Value: "strict"})
	}
	if _, ok := get(out, "validationAction"); !ok {
		out = append(out, bson.E{Key: "validationAction", Value: "error"})
	}
	nm.Options = out
}

// splitValidationOptions returns the validation options of opts and the
// others.
func splitValidationOptions(opts bson.D) (val, rest bson.D) {
	for _, e := range opts {
		switch e.Key {
		case "validator", "validationLevel", "validationAction":
			val = append(val, e)
		default:
			rest = append(rest, e)
		}
	}
	return val, rest
}

// docValidator is a collection's validator ready to check documents
// for one operation.
type docValidator struct {
	db     *DB
	ns     string
	rules  bson.D
	f      *query.Filter
	now    time.Time
	coll   *collation.Collator // the collection's default collation, or nil
	level  string              // strict or moderate
	action string              // error or warn
}

// validatorFor returns the validator the writes of ctx to the
// collection with catalog entry m are checked against, or nil when
// nothing is checked (no validator, validationLevel off, or bypass).
func (db *DB) validatorFor(ctx context.Context, m *catalog.Coll) (*docValidator, error) {
	v, ok := get(m.Options, "validator")
	rules, isDoc := v.(bson.D)
	if !ok || !isDoc || len(rules) == 0 || bypassValidation(ctx) {
		return nil, nil
	}
	level := optString(m.Options, "validationLevel")
	if level == "off" {
		return nil, nil
	}
	dv := &docValidator{db: db, ns: m.NS(), rules: rules, now: db.opts.Clock(), coll: m.DefaultCollator(),
		level: level, action: optString(m.Options, "validationAction")}
	f, err := dv.parse(rules)
	if err != nil {
		return nil, err
	}
	dv.f = f
	return dv, nil
}

// parse parses the filter d (the validator or one of its clauses) as
// the validator is evaluated: in the collection's default collation, as
// MongoDB evaluates validators (docs/validation.md).
func (v *docValidator) parse(d bson.D) (*query.Filter, error) {
	f, err := query.ParseFilterAt(d, v.now)
	if err != nil || v.coll == nil {
		return f, err
	}
	return f.Collate(v.coll)
}

// check returns nil when d passes the validator, or when it fails and
// the action is warn (the warning is logged); otherwise 121
// DocumentValidationFailure with its errInfo.
func (v *docValidator) check(d bson.D) error {
	ok, err := v.f.MatchErr(d)
	if err == nil && ok {
		return nil
	}
	// A validator that fails to evaluate (a $divide by zero) is a
	// failed validation, as in mongod: warn lets the write through,
	// error refuses it with 121 and the failure in its details.
	id, _ := get(d, "_id")
	if v.action == "warn" {
		v.db.logf("ttlkv: document failed validation in %s (validationAction warn): _id %s", v.ns, fmtValue(id))
		return nil
	}
	return &Error{Code: document.CodeDocumentValidationFailure, Message: "Document failed validation",
		Info: map[string]any{"errInfo": bson.D{{Key: "failingDocumentId", Value: id}, {Key: "details", Value: v.details(d)}}}}
}

// details describes why d failed the validator (docs/validation.md,
// "errInfo"): the top-level clauses d does not satisfy.
func (v *docValidator) details(d bson.D) bson.D {
	clauses := splitClauses(v.rules)
	var failing bson.A
	for i, e := range clauses {
		det, fails := v.clauseDetails(e, d)
		if !fails {
			continue
		}
		if len(clauses) == 1 {
			return det
		}
		failing = append(failing, bson.D{{Key: "index", Value: int32(i)}, {Key: "details", Value: det}})
	}
	return bson.D{{Key: "operatorName", Value: "$and"}, {Key: "clausesNotSatisfied", Value: failing}}
}

// splitClauses returns the clauses of the filter rules as mongod's
// parser makes them: a field with several operators ({a: {$gt: 0, $lt:
// 10}}) gives one clause per operator, each numbered in the filter's
// implicit $and, except that $options stays with its $regex.
func splitClauses(rules bson.D) bson.D {
	out := make(bson.D, 0, len(rules))
	for _, e := range rules {
		ops, ok := e.Value.(bson.D)
		if strings.HasPrefix(e.Key, "$") || !ok || len(ops) < 2 || !strings.HasPrefix(ops[0].Key, "$") {
			out = append(out, e)
			continue
		}
		var regex bson.D
		at := -1
		for _, op := range ops {
			switch op.Key {
			case "$regex", "$options":
				regex = append(regex, op)
				if at < 0 {
					at = len(out)
					out = append(out, bson.E{})
				}
			default:
				out = append(out, bson.E{Key: e.Key, Value: bson.D{op}})
			}
		}
		if at >= 0 {
			out[at] = bson.E{Key: e.Key, Value: regex}
		}
	}
	return out
}

// clauseDetails describes one top-level clause of the validator, and
// reports whether d fails it.
func (v *docValidator) clauseDetails(e bson.E, d bson.D) (bson.D, bool) {
	clause := bson.D{e}
	f, err := v.parse(clause)
	if err != nil {
		return nil, false
	}
	if ok, err := f.MatchErr(d); ok && err == nil {
		return nil, false
	}
	switch e.Key {
	case "$jsonSchema":
		sd, _ := e.Value.(bson.D)
		if !schemaAllowsObject(sd) {
			// A top-level type that is not object matches no document:
			// mongod reports the schema as always false.
			return bson.D{{Key: "operatorName", Value: "$jsonSchema"}, {Key: "specifiedAs", Value: clause},
				{Key: "reason", Value: "expression always evaluates to false"}}, true
		}
		det := bson.D{{Key: "operatorName", Value: "$jsonSchema"}}
		if title, ok := get(sd, "title"); ok {
			det = append(det, bson.E{Key: "title", Value: title})
		}
		return append(det, bson.E{Key: "schemaRulesNotSatisfied", Value: query.SchemaRulesNotSatisfied(sd, d)}), true
	case "$expr":
		det := bson.D{{Key: "operatorName", Value: "$expr"}, {Key: "specifiedAs", Value: clause}}
		res, err := evalValidatorExpr(e.Value, d, v.now)
		if err != nil {
			// mongod gives the error it met as the details.
			var ee *Error
			code, name, msg := document.CodeBadValue, "BadValue", err.Error()
			if errors.As(err, &ee) {
				code, name, msg = ee.Code, ee.Name(), ee.Message
			}
			return append(det, bson.E{Key: "reason", Value: "failed to evaluate aggregation expression"},
				bson.E{Key: "details", Value: bson.D{{Key: "code", Value: int32(code)}, {Key: "codeName", Value: name}, {Key: "errmsg", Value: msg}}}), true
		}
		if res == nil {
			res = bson.Null{}
		}
		return append(det, bson.E{Key: "reason", Value: "expression did not match"}, bson.E{Key: "expressionResult", Value: res}), true
	case "$and", "$or", "$nor":
		det := bson.D{{Key: "operatorName", Value: e.Key}}
		if arr, ok := e.Value.(bson.A); ok && e.Key != "$nor" {
			var subs bson.A
			for i, s := range arr {
				sd, _ := s.(bson.D)
				sub := &docValidator{db: v.db, ns: v.ns, rules: sd, now: v.now, coll: v.coll}
				if sf, err := sub.parse(sd); err == nil && !sf.Match(d) {
					subs = append(subs, bson.D{{Key: "index", Value: int32(i)}, {Key: "details", Value: sub.details(d)}})
				}
			}
			det = append(det, bson.E{Key: "clausesNotSatisfied", Value: subs})
		} else {
			det = append(det, bson.E{Key: "specifiedAs", Value: clause})
		}
		return det, true
	}
	op := "$eq"
	if ops, ok := e.Value.(bson.D); ok && len(ops) > 0 && strings.HasPrefix(ops[0].Key, "$") {
		op = ops[0].Key
		if op == "$options" {
			op = "$regex" // splitClauses keeps the pair together
		}
	}
	det := bson.D{{Key: "operatorName", Value: op}, {Key: "specifiedAs", Value: clause}}
	val, present := lookupPath(d, e.Key)
	switch {
	case !present && op != "$exists":
		det = append(det, bson.E{Key: "reason", Value: "field was missing"})
	case present && isComparison(op):
		det = append(det, bson.E{Key: "reason", Value: "comparison failed"}, bson.E{Key: "consideredValue", Value: val})
	case present && op == "$regex":
		// As mongod's RegexMatchExpression explains itself
		// (doc_validation_error_test.cpp, BasicRegex, RegexNonString);
		// an array's elements are not listed (consideredValues).
		switch val.(type) {
		case string, bson.Symbol:
			det = append(det, bson.E{Key: "reason", Value: "regular expression did not match"}, bson.E{Key: "consideredValue", Value: val})
		case bson.A:
		default:
			det = append(det, bson.E{Key: "reason", Value: "type did not match"}, bson.E{Key: "consideredType", Value: typeName(val)},
				bson.E{Key: "expectedTypes", Value: bson.A{"regex", "string", "symbol"}}, bson.E{Key: "consideredValue", Value: val})
		}
	case present && op == "$type":
		det = append(det, bson.E{Key: "reason", Value: "type did not match"}, bson.E{Key: "consideredValue", Value: val},
			bson.E{Key: "consideredType", Value: typeName(val)})
	}
	return det, true
}

// optString is the string option key of opts, or "".
func optString(opts bson.D, key string) string {
	v, _ := get(opts, key)
	s, _ := v.(string)
	return s
}

func isComparison(op string) bool {
	switch op {
	case "$eq", "$ne", "$gt", "$gte", "$lt", "$lte", "$in", "$nin":
		return true
	}
	return false
}

// lookupPath returns the value at a dotted path of d through embedded
// documents only (arrays are not expanded: docs/validation.md says so).
func lookupPath(d bson.D, path string) (any, bool) {
	var cur any = d
	for _, p := range strings.Split(path, ".") {
		doc, ok := cur.(bson.D)
		if !ok {
			return nil, false
		}
		if cur, ok = get(doc, p); !ok {
			return nil, false
		}
	}
	return cur, true
}

// insertValidated inserts docs into c through its kind k after checking
// each against c's validator: a document that fails is a write error
// (121) and is not written; an ordered insert writes the documents
// before it and stops there, an unordered one writes every other.
func (db *DB) insertValidated(ctx context.Context, c *coll, k kind, docs []any, ordered bool) ([]any, []WriteError, error) {
	v, err := db.validatorFor(ctx, c.m())
	if err != nil {
		return nil, nil, err
	}
	if v == nil {
		return k.insert(ctx, db, c, docs, ordered)
	}
	keep := make([]any, 0, len(docs))
	at := make([]int, 0, len(docs))
	var failed []WriteError
	for i, x := range docs {
		if d, perr := docToCheck(x); perr == nil {
			if e := v.check(d); e != nil {
				ue, ok := asUserError(e)
				if !ok {
					return nil, nil, e
				}
				failed = append(failed, WriteError{Index: i, Err: ue})
				if ordered {
					break
				}
				continue
			}
			if r, raw := x.(*rawInsert); !raw || bson.Raw(r.bson).Lookup("_id").IsZero() {
				x = d // the _id generated here is the one stored
			} // else the raw document goes on as it came, as without a validator
		} // else the kind's own preparation reports the error
		keep = append(keep, x)
		at = append(at, i)
	}
	kids, kerrs, err := k.insert(ctx, db, c, keep, ordered)
	ids := make([]any, len(docs))
	for j, id := range kids {
		ids[at[j]] = id
	}
	for j := range kerrs {
		kerrs[j].Index = at[kerrs[j].Index]
	}
	if err != nil || (ordered && len(kerrs) > 0) {
		return ids, kerrs, err
	}
	return ids, finishWriteErrors(append(kerrs, failed...), ordered), nil
}

// docToCheck returns the document an insert would store for x, with
// its _id, for the validator to check.
func docToCheck(x any) (bson.D, error) {
	if r, ok := x.(*rawInsert); ok {
		x = bson.Raw(r.bson)
	}
	return prepareInsert(x)
}

// checkedUpdate returns u checking each updated document against c's
// validator, or u itself when c's writes under ctx are not checked.
func (db *DB) checkedUpdate(ctx context.Context, c *coll, u *query.Update) (*query.Update, error) {
	v, err := db.validatorFor(ctx, c.m())
	if err != nil || v == nil {
		return u, err
	}
	return u.WithCheck(v.checkUpdate), nil
}

// checkUpdate checks nd, the result of an update of old. An update that
// changes nothing writes nothing and is not checked; under
// validationLevel moderate, neither is the update of a document that
// did not pass the validator before.
func (v *docValidator) checkUpdate(old, nd bson.D) error {
	a, errA := document.Marshal(old)
	b, errB := document.Marshal(nd)
	if errA == nil && errB == nil && bytes.Equal(a, b) {
		return nil
	}
	if v.level == "moderate" {
		if ok, err := v.f.MatchErr(old); err != nil || !ok {
			return nil
		}
	}
	return v.check(nd)
}

// evalValidatorExpr evaluates a validator's $expr operand for d, for its
// errInfo: the value it gave (0, null, false...), or its error.
func evalValidatorExpr(v any, d bson.D, now time.Time) (any, error) {
	e, err := agg.ParseExpr(v)
	if err != nil {
		return nil, err
	}
	r, err := e.Eval(&agg.Env{Root: d, Now: bson.NewDateTimeFromTime(now)})
	if _, missing := r.(agg.Missing); missing {
		r = nil
	}
	return r, err
}

// schemaAllowsObject reports whether a $jsonSchema's top-level type or
// bsonType (if any) admits a document.
func schemaAllowsObject(sd bson.D) bool {
	for _, kw := range []string{"bsonType", "type"} {
		v, ok := get(sd, kw)
		if !ok {
			continue
		}
		switch x := v.(type) {
		case string:
			return x == "object"
		case bson.A:
			for _, n := range x {
				if n == "object" {
					return true
				}
			}
			return false
		}
	}
	return true
}
