package query

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// MongoDB error codes the update language returns that doc does not
// define.
const (
	CodePathNotViable              = document.Code(28) // a path through a non-container
	CodeConflictingUpdateOperators = document.Code(40) // two modifiers on overlapping paths
	CodeEmptyFieldName             = document.Code(56) // an update path with an empty component
	CodeDollarPrefixedFieldName    = document.Code(52) // a replacement with a $-prefixed field
)

// UpdateOptions carry the context an update is applied in.
type UpdateOptions struct {
	// Now is the time $currentDate writes. The zero value means
	// time.Now().
	Now time.Time
	// IsUpsertInsert is true when the update builds the document an
	// upsert inserts; only then does $setOnInsert apply.
	IsUpsertInsert bool
	// MutableID makes _id an ordinary field that an update may change
	// or remove, as in a time-series collection's measurements.
	MutableID bool
	// Touched, when not nil, receives each place a modifier wrote or
	// removed, in the order they applied, its path as it applied to this
	// document (positional paths resolved): what mongod logs of an
	// update, which a change event's updateDescription shows.
	Touched *[]Touched
}

// Touched is one modifier's application: its operator, the path it
// wrote or removed, and for $rename the path it moved the value to.
type Touched struct {
	Op   string
	Path []string
	To   []string
	// Pattern is the path as the update wrote it when it holds $[] or
	// $[<id>] (Path is then one of its concrete paths); nil otherwise.
	// A Path shorter than Pattern is no application: it ends at the
	// array whose elements Matched lists, for a modifier whose deeper
	// array filters selected nothing.
	Pattern []string
	// Matched maps the position in Pattern of each $[] or $[<id>] to the
	// elements it selected (their indexes, ascending) in the array at
	// Path[:position] of the document before the update.
	Matched map[int][]int
	// Appended is, for a $push that only appended to a non-empty array
	// (no $sort, no $position within the array, no trimming $slice),
	// the number of elements it appended: mongod logs each at its index.
	// 0 for any other $push: mongod logs the whole array.
	Appended int
}

// Update is a parsed update document: either modifiers ($set, $inc...)
// or a replacement document. It is immutable and safe for concurrent use.
type Update struct {
	replacement bson.D
	isRepl      bool
	mods        []*modifier
	fn          func(bson.D, UpdateOptions, *collation.Collator) (bson.D, error) // NewFuncUpdate
	fnColl      *collation.Collator                                              // the collation fn runs under
	// check, if set, vets each result of Apply against the document it
	// came from (WithCheck).
	check func(old, nd bson.D) error
	// query is the statement's filter, which the positional $ reads
	// (WithQuery); nil: none.
	query *Filter
}

// WithCheck returns a copy of u whose Apply passes each result, with
// the document it was computed from, to check, and fails with check's
// error. An upsert's insert (IsUpsertInsert) is not checked: the insert
// path checks it. The engine uses it for collection validators
// (docs/validation.md).
func (u *Update) WithCheck(check func(old, nd bson.D) error) *Update {
	if u == nil {
		return nil
	}
	out := *u
	out.check = check
	return &out
}

// modifier is one field of one update operator.
type modifier struct {
	op    string
	path  string
	parts []string
	arg   any
	// $rename
	to      string
	toParts []string
	// $push / $addToSet
	each     bson.A
	slice    *int64
	position *int64
	sort     any // nil, int (±1) or []pushSortKey
	// $pull
	pull expr
	// coll compares values under a collation ($min, $max, $addToSet,
	// $pull, $pullAll, $push's $sort); nil: simple. Set by Update.Collate.
	coll *collation.Collator
	// $currentDate
	timestamp bool
	// $bit
	bits []bitOp
	// af are the update's array filters, by identifier ($[id]).
	af arrayFilters
	// positional is the index in parts of the positional $, -1 if none.
	positional int
	// filtered: parts hold a $[identifier] (expandFiltered).
	filtered bool
}

var modifierNames = map[string]bool{
	"$set": true, "$unset": true, "$inc": true, "$mul": true, "$min": true, "$max": true,
	"$rename": true, "$push": true, "$addToSet": true, "$pull": true, "$pullAll": true,
	"$pop": true, "$currentDate": true, "$setOnInsert": true, "$bit": true,
}

// ParseUpdate parses an update document. A document whose first field
// starts with '$' is the modifier form; any other document (including
// {}) is a replacement. Errors carry MongoDB's codes: 9 FailedToParse for
// an unknown modifier or a modifier whose operand is not a document, 2
// BadValue for malformed operands, 14 TypeMismatch for a non-numeric $inc
// or $mul operand, 56 EmptyFieldName, 40 ConflictingUpdateOperators for
// two modifiers on overlapping paths. The all-positional operator $[]
// updates every element of an array, $[<id>] those an array filter
// matches (ParseUpdateWith; here, with none, it is 2 BadValue); the
// positional $ is not supported (2 BadValue).
func ParseUpdate(u bson.D) (*Update, error) { return ParseUpdateWith(u, nil) }

// parseUpdate is ParseUpdate without the array filters' checks.

func parseUpdate(u bson.D) (*Update, error) {
	if len(u) == 0 || !strings.HasPrefix(u[0].Key, "$") {
		for _, e := range u {
			if strings.HasPrefix(e.Key, "$") {
				return nil, document.Errorf(CodeDollarPrefixedFieldName,
					"The dollar ($) prefixed field '%s' in '%s' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.", e.Key, e.Key)
			}
		}
		return &Update{replacement: u, isRepl: true}, nil
	}
	up := &Update{}
	for _, e := range u {
		if !modifierNames[e.Key] {
			return nil, document.Errorf(document.CodeFailedToParse,
				"Unknown modifier: %s. Expected a valid update modifier or pipeline-style update specified as an array", e.Key)
		}
		fields, ok := e.Value.(bson.D)
		if !ok {
			return nil, document.Errorf(document.CodeFailedToParse,
				"Modifiers operate on fields but we found type %s instead. For example: {$mod: {<field>: ...}} not {%s: %v}", typeName(e.Value), e.Key, e.Value)
		}
		for _, f := range fields {
			m, err := parseModifier(e.Key, f.Key, f.Value)
			if err != nil {
				return nil, err
			}
			up.mods = append(up.mods, m)
		}
	}
	if err := checkConflicts(up.mods); err != nil {
		return nil, err
	}
	// MongoDB applies modifiers in field-name order (numeric names in
	// numeric order), which fixes where new fields are appended; a
	// $rename applies where its destination sorts (mongod's update tree
	// holds only a placeholder at the source).
	slices.SortStableFunc(up.mods, func(a, b *modifier) int { return comparePaths(a.applyAt(), b.applyAt()) })
	return up, nil
}

func typeName(v any) string {
	if n := document.TypeName(v); n != "" {
		return n
	}
	return fmt.Sprintf("%T", v)
}

// applyAt is the path where m applies in mongod's order: its path, or a
// $rename's destination.
func (m *modifier) applyAt() []string {
	if m.op == "$rename" {
		return m.toParts
	}
	return m.parts
}

func comparePaths(a, b []string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		ia, okA := arrayIndex(a[i])
		ib, okB := arrayIndex(b[i])
		var c int
		if okA && okB {
			c = ia - ib
		} else {
			c = strings.Compare(a[i], b[i])
		}
		if c != 0 {
			return c
		}
	}
	return len(a) - len(b)
}

func parseUpdatePath(op, path string) ([]string, error) {
	if path == "" {
		return nil, document.Errorf(CodeEmptyFieldName, "An empty update path is not valid.")
	}
	parts := strings.Split(path, ".")
	for _, p := range parts {
		if p == "" {
			return nil, document.Errorf(CodeEmptyFieldName, "The update path '%s' contains an empty field name, which is not allowed.", path)
		}
	}
	switch n := countPositional(parts); {
	case n > 1:
		return nil, badValue("Too many positional (i.e. '$') elements found in path '%s'", path)
	case n == 1 && parts[0] == "$":
		return nil, badValue("Cannot have positional (i.e. '$') element in the first position in path '%s'", path)
	}
	return parts, nil
}

func parseModifier(op, path string, v any) (*modifier, error) {
	parts, err := parseUpdatePath(op, path)
	if err != nil {
		return nil, err
	}
	m := &modifier{op: op, path: path, parts: parts, arg: v, positional: slices.Index(parts, "$")}
	switch op {
	case "$bit":
		if err := parseBit(m, v); err != nil {
			return nil, err
		}
	case "$inc", "$mul":
		if !document.IsNumber(v) {
			verb := "increment"
			if op == "$mul" {
				verb = "multiply"
			}
			return nil, document.Errorf(document.CodeTypeMismatch, "Cannot %s with non-numeric argument: {%s: %s}", verb, path, document.Format(v))
		}
	case "$rename":
		to, ok := v.(string)
		if !ok {
			return nil, badValue("The 'to' field for $rename must be a string: %s: %v", path, v)
		}
		toParts, err := parseUpdatePath(op, to)
		if err != nil {
			return nil, err
		}
		if slices.ContainsFunc(parts, isDynamic) {
			return nil, badValue("The source field for $rename may not be dynamic: %s", path)
		}
		if slices.ContainsFunc(toParts, isDynamic) {
			return nil, badValue("The destination field for $rename may not be dynamic: %s", to)
		}
		if to == path {
			return nil, badValue("The source and target field for $rename must differ: %s: %q", path, to)
		}
		if isPrefix(parts, toParts) || isPrefix(toParts, parts) {
			return nil, badValue("The source and target field for $rename must not be on the same path: %s: %q", path, to)
		}
		m.to, m.toParts = to, toParts
	case "$push", "$addToSet":
		if err := parsePush(m, v); err != nil {
			return nil, err
		}
	case "$pull":
		x, err := parsePullCond(v)
		if err != nil {
			return nil, err
		}
		m.pull = x
	case "$pullAll":
		if _, ok := v.(bson.A); !ok {
			return nil, badValue("$pullAll requires an array argument but was given a %s", typeName(v))
		}
	case "$pop":
		// mongod reads an integer first (parseIntegerElementToLong).
		n, ok := wholeNumber(v)
		switch {
		case !document.IsNumber(v):
			return nil, document.Errorf(document.CodeFailedToParse, "Expected a number in: %s: %s", path, document.Format(v))
		case !ok:
			return nil, document.Errorf(document.CodeFailedToParse, "Expected an integer: %s: %s", path, document.Format(v))
		case n != 1 && n != -1:
			return nil, document.Errorf(document.CodeFailedToParse, "$pop expects 1 or -1, found: %d", n)
		}
	case "$currentDate":
		switch t := v.(type) {
		case bool:
		case bson.D:
			// mongod: each field must be $type; the last valid $type
			// wins; none valid is an error.
			found := false
			for _, e := range t {
				if e.Key != "$type" {
					return nil, badValue("Unrecognized $currentDate option: %s", e.Key)
				}
				switch e.Value {
				case "date":
					found, m.timestamp = true, false
				case "timestamp":
					found, m.timestamp = true, true
				}
			}
			if !found {
				return nil, badValue("The '$type' string field is required to be 'date' or 'timestamp': {$currentDate: {field : {$type: 'date'}}}")
			}
		default:
			return nil, badValue("%s is not valid type for $currentDate. Please use a boolean ('true') or a $type expression ({$type: 'timestamp/date'}).", typeName(v))
		}
	}
	return m, nil
}

func parsePush(m *modifier, v any) error {
	d, ok := v.(bson.D)
	if !ok || len(d) == 0 || d[0].Key != "$each" && !(m.op == "$push" && hasKey(d, "$each")) {
		m.each = bson.A{v}
		return nil
	}
	if !hasKey(d, "$each") {
		m.each = bson.A{v}
		return nil
	}
	if m.op == "$addToSet" {
		// {$each: [...]} and nothing else (addtoset_node.cpp).
		arr, ok := d[0].Value.(bson.A)
		if !ok {
			return document.Errorf(document.CodeTypeMismatch, "The argument to $each in $addToSet must be an array but it was of type %s", typeName(d[0].Value))
		}
		if len(d) > 1 {
			return badValue("Found unexpected fields after $each in $addToSet: %s", document.Format(d))
		}
		m.each = arr
		return nil
	}
	for _, e := range d {
		switch e.Key {
		case "$each":
			arr, ok := e.Value.(bson.A)
			if !ok {
				return badValue("The argument to $each in %s must be an array but it was of type: %s", m.op, typeName(e.Value))
			}
			m.each = arr
		case "$slice", "$position":
			if m.op != "$push" {
				return badValue("Found unexpected fields after $each in $addToSet: %s", e.Key)
			}
			n, ok := wholeNumber(e.Value)
			if !ok {
				if e.Key == "$position" {
					return badValue("The value for $position must be an integer value, not of type: %s", typeName(e.Value))
				}
				return badValue("The value for $slice must be an integer value but was given type: %s", typeName(e.Value))
			}
			if e.Key == "$slice" {
				m.slice = &n
			} else {
				m.position = &n
			}
		case "$sort":
			if m.op != "$push" {
				return badValue("Found unexpected fields after $each in $addToSet: %s", e.Key)
			}
			srt, err := parsePushSort(e.Value)
			if err != nil {
				return err
			}
			m.sort = srt
		default:
			if m.op == "$addToSet" {
				return badValue("Found unexpected fields after $each in $addToSet: %s", e.Key)
			}
			return badValue("Unrecognized clause in $push: %s", e.Key)
		}
	}
	return nil
}

func hasKey(d bson.D, k string) bool { return fieldIndex(d, k) >= 0 }

// pushSortKey is one field of $push's $sort pattern.
type pushSortKey struct {
	parts []string
	desc  bool
}

// parsePushSort reads $push's $sort: 1 or -1 (the elements themselves),
// or a pattern of fields each 1 or -1, with mongod's messages
// (push_node.cpp).
func parsePushSort(v any) (any, error) {
	const badOrder = "The $sort element value must be either 1 or -1"
	d, isDoc := v.(bson.D)
	if !isDoc {
		if !document.IsNumber(v) {
			return nil, badValue("The $sort is invalid: use 1/-1 to sort the whole element, or {field:1/-1} to sort embedded fields")
		}
		dir, ok := plusMinusOne(v)
		if !ok {
			return nil, badValue(badOrder)
		}
		return dir, nil
	}
	if len(d) == 0 {
		return nil, badValue("The $sort pattern is empty when it should be a set of fields.")
	}
	keys := make([]pushSortKey, 0, len(d))
	for _, e := range d {
		dir, ok := plusMinusOne(e.Value)
		if !ok {
			return nil, badValue(badOrder)
		}
		if e.Key == "" {
			return nil, badValue("The $sort field cannot be empty")
		}
		parts := strings.Split(e.Key, ".")
		if slices.Contains(parts, "") {
			return nil, badValue("The $sort field is a dotted field but has an empty part: %s", e.Key)
		}
		keys = append(keys, pushSortKey{parts: parts, desc: dir < 0})
	}
	return keys, nil
}

// pushSortValue is the value $push's $sort pattern reads at parts of
// the element e: the field of a document, through documents and array
// indexes without expanding arrays; null when missing or when e is not
// a document (mongod's extractElementsBasedOnTemplate).
func pushSortValue(e any, parts []string) any {
	d, ok := e.(bson.D)
	if !ok {
		return nil
	}
	return valueAtPath(d, parts)
}

// parsePullCond parses $pull's operand: an operator document applies to
// each element, any other document is a filter on document elements, a
// regex matches strings, anything else is equality.
func parsePullCond(v any) (expr, error) {
	switch t := v.(type) {
	case bson.D:
		if len(t) > 0 && strings.HasPrefix(t[0].Key, "$") && !logicalOps[t[0].Key] {
			xs, err := parseOps("", nil, t, 1)
			if err != nil {
				return nil, err
			}
			return andExpr(xs), nil
		}
		x, err := parseDoc(t, 1)
		if err != nil {
			return nil, err
		}
		return docOnly{x}, nil
	case bson.Regex:
		return regexExpr("", nil, t.Pattern, t.Options)
	}
	return eqExpr("", nil, v), nil
}

// docOnly matches only document roots against a filter.
type docOnly struct{ e expr }

func (d docOnly) match(root any) bool {
	if _, ok := root.(bson.D); !ok {
		return false
	}
	return d.e.match(root)
}

func isPrefix(p, of []string) bool {
	if len(p) > len(of) {
		return false
	}
	for i := range p {
		if p[i] != of[i] {
			return false
		}
	}
	return true
}

func checkConflicts(mods []*modifier) error {
	type target struct {
		path  string
		parts []string
	}
	var ts []target
	for _, m := range mods {
		ts = append(ts, target{m.path, m.parts})
		if m.op == "$rename" {
			ts = append(ts, target{m.to, m.toParts})
		}
	}
	for i := range ts {
		for j := i + 1; j < len(ts); j++ {
			if k, ok := positionalClash(ts[i].parts, ts[j].parts); ok {
				b := ts[j].path
				if isArrayUpdate(ts[j].parts[k]) {
					b = ts[i].path
				}
				return document.Errorf(CodeConflictingUpdateOperators, "Updating the path '%s' would create a conflict at '%s'", b, strings.Join(ts[i].parts[:k], "."))
			}
			if isPrefix(ts[i].parts, ts[j].parts) || isPrefix(ts[j].parts, ts[i].parts) {
				a, b := ts[i].path, ts[j].path
				if len(b) < len(a) {
					a, b = b, a
				}
				return document.Errorf(CodeConflictingUpdateOperators, "Updating the path '%s' would create a conflict at '%s'", b, a)
			}
		}
	}
	return nil
}

// IsReplacement reports whether the update is a replacement document.
func (u *Update) IsReplacement() bool { return u.isRepl }

// IsPipeline reports whether the update computes the new document
// (NewFuncUpdate: an aggregation pipeline) rather than applying
// modifiers.
func (u *Update) IsPipeline() bool { return u.fn != nil }

// Apply returns the document that results from applying the update to d.
// d is never modified; the result shares no documents or arrays with d.
// Existing fields keep their position, new fields are appended to their
// parent; a replacement keeps d's _id as its first field. Errors: 66
// ImmutableField when _id would change or disappear, 14 TypeMismatch for
// $inc/$mul on a non-number and $pop on a non-array, 2 BadValue for
// $push/$addToSet/$pull/$pullAll on a non-array, 28 PathNotViable for a
// path through a scalar. With o.MutableID, _id may change (a
// replacement's own _id then comes first).
func (u *Update) Apply(d bson.D, o UpdateOptions) (bson.D, error) {
	if u.check == nil || o.IsUpsertInsert {
		return u.apply(d, o)
	}
	nd, err := u.apply(d, o)
	if err != nil {
		return nil, err
	}
	if err := u.check(d, nd); err != nil {
		return nil, err
	}
	return nd, nil
}

func (u *Update) apply(d bson.D, o UpdateOptions) (bson.D, error) {
	if u.isRepl {
		return replace(d, u.replacement, o.MutableID)
	}
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	oldID, hadID := getField(d, "_id")
	out := cloneDoc(d)
	if out == nil {
		out = bson.D{}
	}
	if u.fn != nil {
		// A pipeline's result replaces the document, as in MongoDB: a
		// result without _id keeps the old one.
		r, err := u.fn(out, o, u.fnColl)
		if err != nil {
			return nil, err
		}
		return replace(d, r, o.MutableID)
	}
	expanded, err := u.expandAll(d)
	if err != nil {
		return nil, err
	}
	for mi, m := range u.mods {
		if m.filtered {
			// $[id]: the elements the array filters match in the
			// document as it was, whatever the modifiers before this
			// one wrote (mongod evaluates every filter first).
			if len(expanded[mi]) == 0 {
				o.touchSelection(m, d)
			}
			for _, parts := range expanded[mi] {
				pm := *m
				pm.parts, pm.filtered = parts, false
				if out, err = pm.apply(out, d, o); err != nil {
					return nil, err
				}
				o.touchAt(m, parts, d)
			}
			continue
		}
		if m.positional >= 0 {
			// $: the element of the array before it that the query
			// matched, in this document.
			pm, err := u.resolvePositional(m, d, o)
			if err != nil {
				return nil, err
			}
			m = pm
		}
		var err error
		out, err = m.apply(out, d, o)
		if err != nil {
			return nil, err
		}
		if o.Touched != nil && slices.Contains(m.parts, allPositional) {
			// $[]: each element's path, as mongod's log sees it.
			paths, err := expandFiltered(m, d)
			if err != nil {
				return nil, err
			}
			for _, parts := range paths {
				o.touchAt(m, parts, d)
			}
			continue
		}
		o.touchAt(m, m.parts, d)
	}
	if err := u.checkTopLevelDollar(out); err != nil {
		return nil, err
	}
	if hadID && !o.MutableID {
		newID, ok := getField(out, "_id")
		if !ok || !sameValue(oldID, newID) {
			return nil, u.immutableIDBy()
		}
	}
	return out, nil
}

// immutableIDBy is 66 for an update that changed or removed _id, naming
// the first modifier on _id as mongod does.
func (u *Update) immutableIDBy() error {
	for _, m := range u.mods {
		switch {
		case m.op == "$rename" && m.parts[0] == "_id":
			return document.Errorf(document.CodeImmutableField,
				"Unsetting the path '%s' using $rename would modify the immutable field '_id'", m.path)
		case m.op == "$rename" && m.toParts[0] == "_id":
			return document.Errorf(document.CodeImmutableField,
				"Performing an update on the path '%s' would modify the immutable field '_id'", m.to)
		case m.parts[0] == "_id":
			return document.Errorf(document.CodeImmutableField,
				"Performing an update on the path '%s' would modify the immutable field '_id'", m.path)
		}
	}
	return immutableID()
}

// creatingOps are the modifiers that write a value at their path; the
// others ($unset, $pull, $pullAll, $pop) only remove.
var creatingOps = map[string]bool{
	"$set": true, "$setOnInsert": true, "$inc": true, "$mul": true, "$min": true, "$max": true,
	"$push": true, "$addToSet": true, "$currentDate": true, "$rename": true, "$bit": true,
}

// checkTopLevelDollar refuses a written top-level field whose name starts
// with '$', as MongoDB's storage validation does after an update (52
// DollarPrefixedFieldName; jstests/core/query/update/update_dollar_fields.js).
// $-prefixed names below the top level are allowed, and $unset may remove
// such a field.
func (u *Update) checkTopLevelDollar(out bson.D) error {
	for _, m := range u.mods {
		if !creatingOps[m.op] {
			continue
		}
		name, path := m.parts[0], m.path
		if m.op == "$rename" {
			name, path = m.toParts[0], m.to
		}
		if !strings.HasPrefix(name, "$") {
			continue
		}
		if i := fieldIndex(out, name); i >= 0 {
			if err := validDollarField(out, i, path); err != nil {
				return err
			}
		}
	}
	return nil
}

// validDollarField is mongod's check of the top-level $-prefixed field
// out[i] (storage_validation.cpp): $ref, $id and $db are allowed as a
// DBRef, in that order ($ref a string followed by $id, $db a string
// after $id), and otherwise are 55 InvalidDBRef; any other $-name is 52,
// with the message mongod 5.0 and later give.
func validDollarField(out bson.D, i int, path string) error {
	name := out[i].Key
	if name == "$db" {
		if _, ok := out[i].Value.(string); !ok {
			return document.Errorf(document.CodeInvalidDBRef, "The DBRef $db field must be a String, not a %s", typeName(out[i].Value))
		}
		if i == 0 || out[i-1].Key != "$id" {
			return document.Errorf(document.CodeInvalidDBRef, "Found $db field without a $id before it, which is invalid.")
		}
		i, name = i-1, "$id"
	}
	if name == "$id" {
		if i == 0 || out[i-1].Key != "$ref" {
			return document.Errorf(document.CodeInvalidDBRef, "Found $id field without a $ref before it, which is invalid.")
		}
		i, name = i-1, "$ref"
	}
	if name == "$ref" {
		if _, ok := out[i].Value.(string); !ok {
			return document.Errorf(document.CodeInvalidDBRef, "The DBRef $ref field must be a String, not a %s", typeName(out[i].Value))
		}
		if i+1 >= len(out) || out[i+1].Key != "$id" {
			return document.Errorf(document.CodeInvalidDBRef, "The DBRef $ref field must be followed by a $id field")
		}
		return nil
	}
	return document.Errorf(CodeDollarPrefixedFieldName,
		"The dollar ($) prefixed field '%s' in '%s' is not allowed in the context of an update's replacement document. Consider using an aggregation pipeline with $replaceWith.", name, path)
}

// replace returns repl as the replacement of d: d's _id first (repl
// may repeat it, not change it unless mutableID, when repl's _id wins),
// then repl's other fields.
func replace(d, repl bson.D, mutableID bool) (bson.D, error) {
	oldID, hadID := getField(d, "_id")
	out := make(bson.D, 0, len(repl)+1)
	newID, hasID := getField(repl, "_id")
	if hadID && !(mutableID && hasID) {
		if hasID && !sameValue(oldID, newID) {
			return nil, document.Errorf(document.CodeImmutableField,
				"After applying the update, the (immutable) field '_id' was found to have been altered to _id: %s", document.Format(newID))
		}
		out = append(out, bson.E{Key: "_id", Value: cloneValue(oldID)})
	} else if hasID {
		out = append(out, bson.E{Key: "_id", Value: cloneValue(newID)})
	}
	for _, e := range repl {
		if e.Key == "_id" {
			continue
		}
		out = append(out, bson.E{Key: e.Key, Value: cloneValue(e.Value)})
	}
	return out, nil
}

func immutableID() error {
	return document.Errorf(document.CodeImmutableField, "Performing an update on the path '_id' would modify the immutable field '_id'")
}

// sameValue is strict identity of values: equal under BSON comparison
// and of the same BSON type, recursively for documents and arrays.
func sameValue(a, b any) bool {
	if document.TypeNumber(a) != document.TypeNumber(b) {
		return false
	}
	switch x := a.(type) {
	case bson.D:
		y := b.(bson.D)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if x[i].Key != y[i].Key || !sameValue(x[i].Value, y[i].Value) {
				return false
			}
		}
		return true
	case bson.A:
		y := b.(bson.A)
		if len(x) != len(y) {
			return false
		}
		for i := range x {
			if !sameValue(x[i], y[i]) {
				return false
			}
		}
		return true
	}
	return document.Compare(a, b) == 0
}

// Upsert returns the document an upsert inserts when filter matched
// nothing. As mongod, it seeds the document with the filter's
// equalities (upsertEqualities), each set at its path in path order
// (dotted paths become embedded documents), then applies the update
// with IsUpsertInsert set. A replacement takes only _id from the filter,
// and keeps its own _id if the filter has none. _id, when known, is the
// first field.
func (u *Update) Upsert(filter bson.D, o UpdateOptions) (bson.D, error) {
	eqs, err := upsertEqualities(filter, u.isRepl)
	if err != nil {
		return nil, err
	}
	base := bson.D{}
	for _, e := range eqs {
		nb, err := setPath(base, e.parts, cloneValue(e.v), e.path)
		if err != nil {
			return nil, err
		}
		base = nb.(bson.D)
	}
	o.IsUpsertInsert = true
	var out bson.D
	if u.isRepl {
		out = cloneDoc(u.replacement)
		if out == nil {
			out = bson.D{}
		}
		if id, ok := getField(base, "_id"); ok {
			if rid, has := getField(out, "_id"); has && !sameValue(id, rid) {
				return nil, document.Errorf(document.CodeImmutableField,
					"After applying the update, the (immutable) field '_id' was found to have been altered to _id: %s", document.Format(rid))
			} else if !has {
				out = append(out, bson.E{Key: "_id", Value: cloneValue(id)})
			}
		}
	} else {
		// A filter that fixes _id makes it immutable, as for updates.
		var err error
		out, err = u.Apply(base, o)
		if err != nil {
			return nil, err
		}
	}
	return idFirst(out), nil
}

// idFirst moves the _id field to the front.
func idFirst(d bson.D) bson.D {
	i := fieldIndex(d, "_id")
	if i <= 0 {
		return d
	}
	e := d[i]
	copy(d[1:i+1], d[:i])
	d[0] = e
	return d
}

// CheckUpsertFilter returns 224 QueryFeatureNotAllowed when filter has
// a $expr (at its top level or in an $and, $or or $nor branch, the places
// a $expr may be), and nil otherwise: mongod refuses such a filter for an
// upsert when it parses it, whether or not a document matches.
func CheckUpsertFilter(filter bson.D) error {
	var has func(d bson.D) bool
	has = func(d bson.D) bool {
		for _, e := range d {
			switch e.Key {
			case "$expr":
				return true
			case "$and", "$or", "$nor":
				arr, _ := e.Value.(bson.A)
				for _, x := range arr {
					if sd, ok := x.(bson.D); ok && has(sd) {
						return true
					}
				}
			}
		}
		return false
	}
	if has(filter) {
		return document.Errorf(document.Code(224), "$expr is not allowed in the query predicate for an upsert")
	}
	return nil
}

// equality is a path an upsert's filter fixes, and its value.
type equality struct {
	path  string
	parts []string
	v     any
}

// upsertEqualities returns the equalities of filter an upsert seeds its
// document with, in path order, as mongod reads them from the
// simplified query (update_driver.cpp, path_support.cpp): a field's
// value, $eq (a regex or an array included), a $in or $all of one value;
// through $and and an $or of one branch. Other operators, $or of more
// branches and $nor fix nothing. Two equalities at one path, or at a
// path and its prefix, are 54 NotSingleValueField. For a replacement
// (onlyID) only equalities on _id count, and one below it ("_id.x") is
// 111 NotExactValueField.
func upsertEqualities(filter bson.D, onlyID bool) ([]equality, error) {
	var eqs []equality
	collectEqualities(filter, &eqs)
	if onlyID {
		kept := eqs[:0]
		for _, e := range eqs {
			switch {
			case e.parts[0] != "_id":
				continue
			case len(e.parts) > 1:
				return nil, document.Errorf(document.CodeNotExactValueField,
					"field at '_id' must be exactly specified, field at sub-path '%s'found", e.path)
			}
			kept = append(kept, e)
		}
		eqs = kept
	}
	slices.SortStableFunc(eqs, func(a, b equality) int { return strings.Compare(a.path, b.path) })
	for i, e := range eqs {
		for _, p := range eqs[:i] {
			switch {
			case p.path == e.path:
				return nil, document.Errorf(document.CodeNotSingleValueField,
					"cannot infer query fields to set, path '%s' is matched twice", e.path)
			case isPrefix(p.parts, e.parts):
				return nil, document.Errorf(document.CodeNotSingleValueField,
					"cannot infer query fields to set, both paths '%s' and '%s' are matched", e.path, p.path)
			}
		}
	}
	return eqs, nil
}

// collectEqualities appends the equalities of the conjunction filter
// to eqs.
func collectEqualities(filter bson.D, eqs *[]equality) {
	for _, e := range filter {
		switch e.Key {
		case "$and", "$or":
			arr, ok := e.Value.(bson.A)
			if !ok || (e.Key == "$or" && len(arr) != 1) {
				continue
			}
			for _, s := range arr {
				if sd, ok := s.(bson.D); ok {
					collectEqualities(sd, eqs)
				}
			}
			continue
		}
		if strings.HasPrefix(e.Key, "$") {
			continue
		}
		parts, ok := splitPath(e.Key)
		if !ok {
			continue
		}
		add := func(v any) { *eqs = append(*eqs, equality{e.Key, parts, v}) }
		ops, isOps := isOperatorDoc(e.Value)
		if !isOps {
			if _, re := e.Value.(bson.Regex); !re {
				add(e.Value)
			}
			continue
		}
		for _, op := range ops {
			switch op.Key {
			case "$eq":
				add(op.Value)
			case "$in":
				// A one-value $in is that equality (a regex in it is
				// a regex match, which fixes nothing).
				if arr, ok := op.Value.(bson.A); ok && len(arr) == 1 {
					if _, re := arr[0].(bson.Regex); !re {
						add(arr[0])
					}
				}
			case "$all":
				// $all is an equality per value.
				arr, _ := op.Value.(bson.A)
				for _, v := range arr {
					if _, re := v.(bson.Regex); re {
						continue
					}
					if d, ok := isOperatorDoc(v); ok && d[0].Key == "$elemMatch" {
						continue
					}
					add(v)
				}
			}
		}
	}
}

// setPath stores val at parts inside container c (a document or array),
// creating missing documents on the way and padding arrays with nulls.
func setPath(c any, parts []string, val any, full string) (any, error) {
	return modifyPath(c, parts, full, pathCreate, nil, func(cur any, exists bool) (any, action, error) {
		return val, actSet, nil
	})
}

// maxBackfill is how many nulls an update may add to reach an array
// index, as in MongoDB.
const maxBackfill = 1500000

func errBackfill() error {
	return document.Errorf(document.CodeCannotBackfillArray, "can't backfill more than %d elements", maxBackfill)
}

type action int

const (
	actKeep action = iota
	actSet
	actRemove
)

// leafFunc decides what happens at the end of an update path given the
// current value there.
type leafFunc func(cur any, exists bool) (any, action, error)

// pathMode says what modifyPath does with the parts of a path that are
// missing or cannot be walked.
type pathMode int

const (
	// pathSkip: a missing part, or a scalar in the way, makes the update
	// a no-op ($unset).
	pathSkip pathMode = iota
	// pathCreate: missing documents are created on the way and arrays
	// padded with nulls; a scalar in the way is 28 PathNotViable.
	pathCreate
	// pathExisting: a missing part makes the update a no-op, a scalar in
	// the way is 28 PathNotViable ($pop, $pull, $pullAll: mongod's
	// viability check for a path it will not create).
	pathExisting
)

// errCannotTraverse is mongod's 28 for a path that will not be created
// but goes through the scalar (or array, by name) v at key.
func errCannotTraverse(part, full, key string, v any) error {
	return document.Errorf(CodePathNotViable, "Cannot use the part (%s) of (%s) to traverse the element ({%s: %s})",
		part, full, key, document.Format(v))
}

// modifyPath walks parts inside container c and calls fn at the end,
// handling missing parts and scalars in the way as mode says. It returns
// the possibly reallocated container.
func modifyPath(c any, parts []string, full string, mode pathMode, af arrayFilters, fn leafFunc) (any, error) {
	create := mode == pathCreate
	key := parts[0]
	last := len(parts) == 1
	if isArrayUpdate(key) {
		return modifyAll(c, parts, full, mode, af, fn)
	}
	switch t := c.(type) {
	case bson.D:
		i := fieldIndex(t, key)
		if last {
			var cur any
			if i >= 0 {
				cur = t[i].Value
			}
			nv, act, err := fn(cur, i >= 0)
			if err != nil {
				return nil, err
			}
			switch act {
			case actSet:
				if i >= 0 {
					t[i].Value = nv
				} else {
					t = append(t, bson.E{Key: key, Value: nv})
				}
			case actRemove:
				if i >= 0 {
					t = slices.Delete(t, i, i+1)
				}
			}
			return t, nil
		}
		if i < 0 {
			if isArrayUpdate(parts[1]) {
				// Every modifier needs the array an array update
				// names, as mongod.
				all := strings.Split(full, ".")
				return nil, badValue("The path '%s' must exist in the document in order to apply array updates.", strings.Join(all[:len(all)-len(parts)+1], "."))
			}
			if !create {
				return t, nil
			}
			child, err := modifyPath(bson.D{}, parts[1:], full, mode, af, fn)
			if err != nil {
				return nil, err
			}
			if cd, ok := child.(bson.D); ok && len(cd) == 0 {
				return t, nil // the leaf chose to do nothing
			}
			return append(t, bson.E{Key: key, Value: child}), nil
		}
		switch t[i].Value.(type) {
		case bson.D, bson.A:
		default:
			if mode == pathExisting {
				return nil, errCannotTraverse(parts[1], full, key, t[i].Value)
			}
			if !create {
				return t, nil
			}
			if isArrayUpdate(parts[1]) {
				return nil, badValue("Cannot apply array updates to non-array element %s: %s", key, document.Format(t[i].Value))
			}
			return nil, notViable(parts[1], key, t[i].Value)
		}
		child, err := modifyPath(t[i].Value, parts[1:], full, mode, af, fn)
		if err != nil {
			return nil, err
		}
		t[i].Value = child
		return t, nil
	case bson.A:
		idx, ok := arrayIndex(key)
		if !ok && create && len(key) > 9 && strings.Trim(key, "0123456789") == "" && key[0] != '0' {
			// An index too large for arrayIndex is far past the end.
			return nil, errBackfill()
		}
		if !ok {
			if mode == pathExisting {
				return nil, errCannotTraverse(key, full, parentName(full, parts), t)
			}
			if !create {
				return t, nil
			}
			return nil, document.Errorf(CodePathNotViable, "Cannot create field '%s' in element {%s: %s}", key, parentName(full, parts), document.Format(t))
		}
		if last {
			var cur any
			exists := idx < len(t)
			if exists {
				cur = t[idx]
			}
			nv, act, err := fn(cur, exists)
			if err != nil {
				return nil, err
			}
			switch act {
			case actSet:
				if idx-len(t) > maxBackfill {
					return nil, errBackfill()
				}
				for len(t) <= idx {
					t = append(t, nil)
				}
				t[idx] = nv
			case actRemove:
				if exists {
					t[idx] = nil // $unset of an element leaves null
				}
			}
			return t, nil
		}
		if idx >= len(t) {
			if !create {
				return t, nil
			}
			if idx-len(t) > maxBackfill {
				return nil, errBackfill()
			}
			child, err := modifyPath(bson.D{}, parts[1:], full, mode, af, fn)
			if err != nil {
				return nil, err
			}
			if cd, ok := child.(bson.D); ok && len(cd) == 0 {
				return t, nil
			}
			for len(t) < idx {
				t = append(t, nil)
			}
			return append(t, child), nil
		}
		switch t[idx].(type) {
		case bson.D, bson.A:
		default:
			if mode == pathExisting {
				return nil, errCannotTraverse(parts[1], full, key, t[idx])
			}
			if !create {
				return t, nil
			}
			if isArrayUpdate(parts[1]) {
				return nil, badValue("Cannot apply array updates to non-array element %s: %s", key, document.Format(t[idx]))
			}
			return nil, notViable(parts[1], key, t[idx])
		}
		child, err := modifyPath(t[idx], parts[1:], full, mode, af, fn)
		if err != nil {
			return nil, err
		}
		t[idx] = child
		return t, nil
	}
	return c, nil
}

// allPositional is the path component that applies an update to every
// element of an array.
const allPositional = "$[]"

// modifyAll applies the rest of the path to every element of the array
// c ($[]), or to every element its array filter matches ($[id]). c must
// be an array: anything else is 2 BadValue, as in MongoDB.
func modifyAll(c any, parts []string, full string, mode pathMode, af arrayFilters, fn leafFunc) (any, error) {
	create := mode == pathCreate
	t, ok := c.(bson.A)
	if !ok {
		if !create {
			if d, isDoc := c.(bson.D); isDoc && len(d) == 0 {
				return c, nil
			}
		}
		return nil, badValue("Cannot apply array updates to non-array element %s: %s", parentName(full, parts), document.Format(c))
	}
	var filter *Filter
	id := parts[0][2 : len(parts[0])-1]
	if id != "" {
		if filter = af[id]; filter == nil {
			return nil, badValue("No array filter found for identifier '%s' in path '%s'", id, full)
		}
	}
	for i := range t {
		if filter != nil {
			ok, err := filter.MatchErr(bson.D{{Key: id, Value: t[i]}})
			if err != nil {
				return nil, err
			}
			if !ok {
				continue
			}
		}
		if len(parts) == 1 {
			nv, act, err := fn(t[i], true)
			if err != nil {
				return nil, err
			}
			switch act {
			case actSet:
				t[i] = nv
			case actRemove:
				t[i] = nil
			}
			continue
		}
		switch t[i].(type) {
		case bson.D, bson.A:
		default:
			if mode == pathExisting {
				return nil, errCannotTraverse(parts[1], full, strconv.Itoa(i), t[i])
			}
			if !create {
				continue
			}
			return nil, notViable(parts[1], strconv.Itoa(i), t[i])
		}
		child, err := modifyPath(t[i], parts[1:], full, mode, af, fn)
		if err != nil {
			return nil, err
		}
		t[i] = child
	}
	return t, nil
}

func parentName(full string, parts []string) string {
	all := strings.Split(full, ".")
	n := len(all) - len(parts)
	if n <= 0 {
		return "root"
	}
	return all[n-1]
}

func notViable(field, key string, v any) error {
	return document.Errorf(CodePathNotViable, "Cannot create field '%s' in element {%s: %s}", field, key, document.Format(v))
}

// js renders a value as relaxed Extended JSON for error messages.
func js(v any) string {
	d, ok := v.(bson.D)
	if !ok {
		d = bson.D{{Key: "v", Value: v}}
	}
	b, err := bson.MarshalExtJSON(d, false, false)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

func (m *modifier) apply(out, orig bson.D, o UpdateOptions) (bson.D, error) {
	var fn leafFunc
	mode := pathCreate
	switch m.op {
	case "$set":
		fn = func(any, bool) (any, action, error) { return cloneValue(m.arg), actSet, nil }
	case "$setOnInsert":
		if !o.IsUpsertInsert {
			return out, nil
		}
		fn = func(any, bool) (any, action, error) { return cloneValue(m.arg), actSet, nil }
	case "$unset":
		mode = pathSkip
		fn = func(_ any, exists bool) (any, action, error) {
			if !exists {
				return nil, actKeep, nil
			}
			return nil, actRemove, nil
		}
	case "$inc", "$mul":
		fn = func(cur any, exists bool) (any, action, error) {
			if !exists {
				if m.op == "$inc" {
					return m.arg, actSet, nil
				}
				// mongod multiplies the operand by int32 0: 0 of its
				// type, -0.0 for a negative double, 0.0 for 2.5 decimal.
				return mulNumbers(m.arg, int32(0)), actSet, nil
			}
			if !document.IsNumber(cur) {
				return nil, 0, document.Errorf(document.CodeTypeMismatch,
					"Cannot apply %s to a value of non-numeric type. {_id: %s} has the field '%s' of non-numeric type %s",
					m.op, idString(orig), m.parts[len(m.parts)-1], typeName(cur))
			}
			r, ok := updateArith(m.op == "$mul", cur, m.arg)
			if !ok {
				return nil, 0, badValue("Failed to apply %s operations to current value (%s) for document {%s}",
					m.op, safeNumString(cur), idField(orig))
			}
			return r, actSet, nil
		}
	case "$bit":
		fn = func(cur any, exists bool) (any, action, error) {
			return m.applyBit(cur, exists, orig)
		}
	case "$min", "$max":
		fn = func(cur any, exists bool) (any, action, error) {
			if !exists {
				return cloneValue(m.arg), actSet, nil
			}
			c := m.coll.CompareValues(m.arg, cur)
			if (m.op == "$min" && c < 0) || (m.op == "$max" && c > 0) {
				return cloneValue(m.arg), actSet, nil
			}
			return nil, actKeep, nil
		}
	case "$currentDate":
		fn = func(any, bool) (any, action, error) {
			if m.timestamp {
				return bson.Timestamp{T: uint32(o.Now.Unix()), I: 1}, actSet, nil
			}
			return bson.NewDateTimeFromTime(o.Now), actSet, nil
		}
	case "$rename":
		return m.applyRename(out)
	case "$push", "$addToSet":
		fn = func(cur any, exists bool) (any, action, error) {
			var arr bson.A
			if exists {
				a, ok := cur.(bson.A)
				if !ok {
					if m.op == "$addToSet" {
						return nil, 0, badValue("Cannot apply $addToSet to non-array field. Field named '%s' has non-array type %s", m.parts[len(m.parts)-1], typeName(cur))
					}
					return nil, 0, badValue("The field '%s' must be an array but is of type %s in document {%s}", m.path, typeName(cur), idField(orig))
				}
				arr = a
			}
			if arr == nil {
				arr = bson.A{}
			}
			if m.op == "$addToSet" {
				for _, e := range m.each {
					if !slices.ContainsFunc(arr, func(x any) bool { return m.coll.CompareValues(x, e) == 0 }) {
						arr = append(arr, cloneValue(e))
					}
				}
				return arr, actSet, nil
			}
			return m.push(arr), actSet, nil
		}
	case "$pull", "$pullAll":
		mode = pathExisting
		fn = func(cur any, exists bool) (any, action, error) {
			if !exists {
				return nil, actKeep, nil
			}
			arr, ok := cur.(bson.A)
			if !ok {
				// mongod's message names $pull for $pullAll too.
				return nil, 0, badValue("Cannot apply $pull to a non-array value")
			}
			kept := bson.A{}
			for _, e := range arr {
				if !m.pulls(e) {
					kept = append(kept, e)
				}
			}
			return kept, actSet, nil
		}
	case "$pop":
		mode = pathExisting
		fn = func(cur any, exists bool) (any, action, error) {
			if !exists {
				return nil, actKeep, nil
			}
			arr, ok := cur.(bson.A)
			if !ok {
				return nil, 0, document.Errorf(document.CodeTypeMismatch, "Path '%s' contains an element of non-array type '%s'", m.path, typeName(cur))
			}
			if len(arr) == 0 {
				return arr, actKeep, nil
			}
			if n, _ := wholeNumber(m.arg); n < 0 {
				return arr[1:], actSet, nil
			}
			return arr[:len(arr)-1], actSet, nil
		}
	default:
		return nil, document.Errorf(document.CodeInternalError, "modifier %s has no implementation", m.op)
	}
	r, err := modifyPath(out, m.parts, m.path, mode, m.af, fn)
	if err != nil {
		return nil, err
	}
	return r.(bson.D), nil
}

// updateArith is $inc's sum (mul false) or $mul's product of the
// numbers cur and arg, with mongod's arithmetic for updates (SafeNum):
// two int32 give an int32, or an int64 when the result does not fit; an
// int64 with an integer gives an int64, and false when the result
// overflows it; a double or a decimal gives one.
func updateArith(mul bool, cur, arg any) (any, bool) {
	if rc, ra := numRank(cur), numRank(arg); rc > 2 || ra > 2 || (rc < 2 && ra < 2) {
		if mul {
			return mulNumbers(cur, arg), true
		}
		return addNumbers(cur, arg), true
	}
	x, y := toInt64(cur), toInt64(arg)
	if mul {
		if x == 0 || y == 0 {
			return int64(0), true
		}
		p := x * y
		if p/y != x || (x == -1 && y == math.MinInt64) || (y == -1 && x == math.MinInt64) {
			return nil, false
		}
		return p, true
	}
	s := x + y
	if (s > x) != (y > 0) {
		return nil, false
	}
	return s, true
}

// safeNumString renders a number as mongod's SafeNum prints it in
// errors: "(NumberInt)42", "(NumberLong)9".
func safeNumString(v any) string {
	switch x := v.(type) {
	case int32:
		return fmt.Sprintf("(NumberInt)%d", x)
	case int64:
		return fmt.Sprintf("(NumberLong)%d", x)
	case float64:
		return fmt.Sprintf("(NumberDouble)%s", document.Format(x))
	}
	return "(NumberDecimal)" + document.Format(v)
}

// idField renders d's _id as mongod names it in errors: "_id: 1", or
// "no id".
func idField(d bson.D) string {
	id, ok := getField(d, "_id")
	if !ok {
		return "no id"
	}
	return "_id: " + document.Format(id)
}

func idString(d bson.D) string {
	id, ok := getField(d, "_id")
	if !ok {
		return "null"
	}
	return document.Format(id)
}

func (m *modifier) pulls(e any) bool {
	if m.op == "$pullAll" {
		for _, x := range m.arg.(bson.A) {
			if m.coll.CompareValues(x, e) == 0 {
				return true
			}
		}
		return false
	}
	return m.pull.match(e)
}

// push inserts m.each into arr at $position, then applies $sort and
// $slice.
func (m *modifier) push(arr bson.A) bson.A {
	vals := make(bson.A, len(m.each))
	for i, e := range m.each {
		vals[i] = cloneValue(e)
	}
	pos := int64(len(arr))
	if m.position != nil {
		pos = *m.position
		if pos < 0 {
			pos += int64(len(arr))
			if pos < 0 {
				pos = 0
			}
		}
		if pos > int64(len(arr)) {
			pos = int64(len(arr))
		}
	}
	res := make(bson.A, 0, len(arr)+len(vals))
	res = append(res, arr[:pos]...)
	res = append(res, vals...)
	res = append(res, arr[pos:]...)
	switch s := m.sort.(type) {
	case int:
		slices.SortStableFunc(res, func(a, b any) int { return s * m.coll.CompareValues(a, b) })
	case []pushSortKey:
		slices.SortStableFunc(res, func(a, b any) int {
			for _, k := range s {
				c := m.coll.CompareValues(pushSortValue(a, k.parts), pushSortValue(b, k.parts))
				if k.desc {
					c = -c
				}
				if c != 0 {
					return c
				}
			}
			return 0
		})
	}
	if m.slice != nil {
		n := *m.slice
		// A negative $slice keeps the last -n (the smallest int64, whose
		// negation overflows, keeps MaxInt64, as mongod).
		keep := n
		if n < 0 {
			keep = -(n + 1)
			if n != math.MinInt64 {
				keep++
			}
		}
		if keep < int64(len(res)) {
			if n >= 0 {
				res = res[:keep]
			} else {
				res = res[int64(len(res))-keep:]
			}
		}
	}
	return res
}

// applyRename moves the value at m.path to m.to, as mongod's
// rename_node: a source that is missing is a no-op; a source path
// through a scalar, or through an array by a field name, is 28; a source
// or a destination inside an array is 2.
func (m *modifier) applyRename(out bson.D) (bson.D, error) {
	var cur any = out
	arrayName := ""
	for i, p := range m.parts {
		switch t := cur.(type) {
		case bson.D:
			v, ok := getField(t, p)
			if !ok {
				return out, nil
			}
			cur = v
		case bson.A:
			idx, ok := arrayIndex(p)
			if !ok {
				return nil, errRenameTraverse(m, i, t)
			}
			if idx >= len(t) {
				return out, nil
			}
			arrayName = m.parts[i-1]
			cur = t[idx]
		default:
			return nil, errRenameTraverse(m, i, t)
		}
	}
	if arrayName != "" {
		return nil, badValue("The source field cannot be an array element, '%s' in doc with %s has an array field called '%s'", m.path, idField(out), arrayName)
	}
	var c any = out
	for i, p := range m.toParts[:len(m.toParts)-1] {
		var v any
		switch t := c.(type) {
		case bson.D:
			x, ok := getField(t, p)
			if !ok {
				break
			}
			v = x
		case bson.A:
			if idx, ok := arrayIndex(p); ok && idx < len(t) {
				v = t[idx]
			}
		}
		if v == nil {
			break
		}
		if _, isArr := v.(bson.A); isArr {
			arrayName = m.toParts[i]
		}
		c = v
	}
	if arrayName != "" {
		return nil, badValue("The destination field cannot be an array element, '%s' in doc with %s has an array field called '%s'", m.to, idField(out), arrayName)
	}
	r, err := modifyPath(out, m.parts, m.path, pathSkip, nil, func(any, bool) (any, action, error) { return nil, actRemove, nil })
	if err != nil {
		return nil, err
	}
	r, err = setPath(r, m.toParts, cur, m.to)
	if err != nil {
		return nil, err
	}
	return r.(bson.D), nil
}

// errRenameTraverse is mongod's 28 for a $rename source path whose part
// i cannot be walked in v, the value at part i-1.
func errRenameTraverse(m *modifier, i int, v any) error {
	return document.Errorf(CodePathNotViable, "cannot use the part (%s of %s) to traverse the element ({%s: %s})",
		m.parts[i], m.path, m.parts[i-1], document.Format(v))
}

// touchAt records m's application at the concrete path parts of d (the
// document before the update) in o.Touched, when asked.
func (o UpdateOptions) touchAt(m *modifier, parts []string, d bson.D) {
	if o.Touched == nil {
		return
	}
	t := Touched{Op: m.op, Path: slices.Clone(parts), To: slices.Clone(m.toParts)}
	for k, p := range m.parts {
		if !isArrayUpdate(p) || k >= len(parts) {
			continue
		}
		if t.Pattern == nil {
			t.Pattern, t.Matched = slices.Clone(m.parts), map[int][]int{}
		}
		t.Matched[k] = m.selected(d, parts[:k], p)
	}
	if m.op == "$push" {
		t.Appended = m.appends(d, parts)
	}
	*o.Touched = append(*o.Touched, t)
}

// touchSelection records, for a modifier whose array filters left it no
// path to apply to, the elements its first array component selected
// (mongod still counts them when it decides how the array is logged):
// a Touched whose Path stops at that array.
func (o UpdateOptions) touchSelection(m *modifier, d bson.D) {
	if o.Touched == nil {
		return
	}
	for k, p := range m.parts {
		if p == "$" {
			return
		}
		if !isArrayUpdate(p) {
			continue
		}
		if sel := m.selected(d, m.parts[:k], p); len(sel) > 0 {
			*o.Touched = append(*o.Touched, Touched{Op: m.op, Path: slices.Clone(m.parts[:k]),
				Pattern: slices.Clone(m.parts), Matched: map[int][]int{k: sel}})
		}
		return
	}
}

// selected is the indexes of the elements the array update component p
// ($[] or $[<id>]) selects in the array at path of d.
func (m *modifier) selected(d bson.D, path []string, p string) []int {
	arr, _ := valueAtPath(d, path).(bson.A)
	id := p[2 : len(p)-1]
	var out []int
	for i, el := range arr {
		if id != "" {
			if ok, err := m.af[id].MatchErr(bson.D{{Key: id, Value: el}}); err != nil || !ok {
				continue
			}
		}
		out = append(out, i)
	}
	return out
}

// appends is the number of elements the $push m appends to the array at
// path of d when mongod logs them one by one (its "array append"
// update), 0 when it logs the whole array: an empty or missing array, a
// $sort, a $position not past the end, or a $slice that trims.
func (m *modifier) appends(d bson.D, path []string) int {
	arr, ok := valueAtPath(d, path).(bson.A)
	n := int64(len(arr))
	switch {
	case !ok || n == 0 || len(m.each) == 0 || m.sort != nil:
		return 0
	case m.position != nil && *m.position <= n:
		return 0
	case m.slice != nil && n+int64(len(m.each)) > max(*m.slice, -*m.slice):
		return 0
	}
	return len(m.each)
}

// valueAtPath is the value at path in d (documents by field, arrays by
// index), nil if there is none.
func valueAtPath(d bson.D, path []string) any {
	var cur any = d
	for _, p := range path {
		switch t := cur.(type) {
		case bson.D:
			v, ok := getField(t, p)
			if !ok {
				return nil
			}
			cur = v
		case bson.A:
			i, ok := arrayIndex(p)
			if !ok || i >= len(t) {
				return nil
			}
			cur = t[i]
		default:
			return nil
		}
	}
	return cur
}
