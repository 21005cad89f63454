package query

import (
	"context"
	"errors"
	"math"
	"regexp"
	"regexp/syntax"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	script "github.com/ttlkv/ttlkv/engine/internal/js"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Filter is a parsed MongoDB query filter. It is immutable after
// ParseFilter and safe for concurrent use by several goroutines.
type Filter struct {
	root    andExpr
	hasExpr bool                // some branch is a $expr or a $where, whose evaluation can fail
	js      bool                // some branch runs JavaScript ($where, $function in a $expr)
	where   bool                // some branch is a $where
	text    *TextSearch         // the $text, nil if none
	textOr  bool                // the $text is a branch of the top-level $or
	near    *GeoNear            // the $near or $nearSphere, nil if none
	coll    *collation.Collator // strings compare under it (Collate); nil: simple
}

// expr is a node of a parsed filter. root is the value the node is
// evaluated against: a whole document at the top level, an array element
// inside $elemMatch.
type expr interface {
	match(root any) bool
}

type andExpr []expr

func (a andExpr) match(root any) bool {
	for _, e := range a {
		if !e.match(root) {
			return false
		}
	}
	return true
}

type orExpr []expr

func (o orExpr) match(root any) bool {
	for _, e := range o {
		if e.match(root) {
			return true
		}
	}
	return false
}

type norExpr []expr

func (o norExpr) match(root any) bool { return !orExpr(o).match(root) }

type notExpr struct{ e expr }

func (n notExpr) match(root any) bool { return !n.e.match(root) }

// falseExpr matches nothing ($all: []).
type falseExpr struct{}

func (falseExpr) match(any) bool { return false }

// opKind names the leaf predicates that Bounds understands.
type opKind int

const (
	opOther opKind = iota // a predicate bounds cannot express
	opEq
	opGt
	opGte
	opLt
	opLte
	opIn
)

// pathExpr applies a predicate to every value a path reaches; it matches
// when any value satisfies it.
type pathExpr struct {
	path   string
	parts  []string
	expand bool // yield the elements of an array at the end of the path
	pred   func(it item) bool
	kind   opKind
	arg    any   // opEq..opLte: the operand
	args   []any // opIn: the operands
	hasRe  bool  // opIn: some operand is a regex
	// $elemMatch: the sub-filter its pred runs, and whether it is the
	// value form; kept so that Collate can rebuild pred.
	sub       expr
	valueForm bool
	// leaf names the operator of a predicate bounds cannot express, for
	// Implies ($exists: true, $type, a regular expression, $mod, $size);
	// types is $type's operand.
	leaf  leafKind
	types *typeSet
}

// leafKind names the operators Implies tells apart among those whose
// kind is opOther.
type leafKind int

const (
	leafOther  leafKind = iota // none of those below
	leafExists                 // $exists: true
	leafType                   // $type
	leafRegex                  // a regular expression
	leafMod                    // $mod
	leafSize                   // $size
)

func (p *pathExpr) match(root any) bool {
	var buf [8]item
	// parts is nil inside an $elemMatch value form: the predicate sees
	// each array element itself, without expanding nested arrays.
	expand := p.expand && p.parts != nil
	for _, it := range collect(root, p.parts, expand, buf[:0]) {
		if p.pred(it) {
			return true
		}
	}
	return false
}

// ParseFilter parses a MongoDB query filter. It returns a *document.Error with
// MongoDB's code for a malformed filter: 2 BadValue for unknown
// operators, malformed operands and unsupported features ($where,
// $text, geospatial and bitwise operators; $jsonSchema's keywords
// are in jsonschema.go), 51108 for an
// invalid regex flag. $expr is accepted at the top level once an
// expression compiler is registered (RegisterExprCompiler); its $$NOW is
// the wall clock (ParseFilterAt sets it).
func ParseFilter(f bson.D) (*Filter, error) { return ParseFilterAt(f, time.Now()) }

// ParseFilterAt is ParseFilter with $$NOW in $expr fixed at now, as
// MongoDB fixes it for the whole of one operation.
func ParseFilterAt(f bson.D, now time.Time) (*Filter, error) { return ParseFilterWith(f, now, nil) }

// ParseFilterWith is ParseFilterAt with the user variables a $expr in
// the filter may use (an aggregation's, handed to the registered
// expression compiler as they are).
func ParseFilterWith(f bson.D, now time.Time, vars any) (*Filter, error) {
	return ParseFilterOpts(f, ParseOptions{Now: now, Vars: vars})
}

// ParseOptions are what ParseFilterOpts takes besides the filter.
type ParseOptions struct {
	// Now is $$NOW in a $expr (the zero time: the wall clock).
	Now time.Time
	// Vars are the user variables of a $expr, as ParseFilterWith takes
	// them.
	Vars any
	// Where accepts the $where operator, as the filter of a find, a
	// count, a distinct, an update, a delete or a findAndModify does;
	// elsewhere (an aggregation's $match, a validator, a partial index)
	// it is 2 "$where is not allowed in this context".
	Where bool
	// NoScripting refuses JavaScript as mongod --noscripting does: a
	// $where with 6108304 when parsed, a $function in a $expr with 31264
	// when it runs.
	NoScripting bool
}

// ParseFilterOpts is ParseFilter with options. A $where's function, and
// a $function in a $expr, run under context.Background until
// WithContext binds the operation's context.
func ParseFilterOpts(f bson.D, o ParseOptions) (*Filter, error) {
	if o.Now.IsZero() {
		o.Now = time.Now()
	}
	top := &topCtx{now: bson.NewDateTimeFromTime(o.Now), vars: o.Vars, where: o.Where, noScripting: o.NoScripting}
	e, err := parseDocAt(f, 0, top)
	if err != nil {
		return nil, err
	}
	near, nears := findNear(e)
	switch {
	case nears > 1:
		return nil, badValue("Too many geoNear expressions")
	case nears == 1 && near == nil:
		return nil, badValue("geoNear must be top-level expr")
	case near != nil && top.text != nil:
		return nil, badValue("text and geoNear not allowed in same query")
	}
	return &Filter{root: flattenAnd(e), hasExpr: top.hasExpr, js: top.js, where: top.hasWhere, text: top.text, textOr: top.text != nil && top.text.underOr, near: near}, nil
}

// flattenAnd returns a with the conditions of each $and it holds in
// its place, at any depth, as mongod's canonical form has them (so an
// $or inside a top-level $and is an $or of the top level).
func flattenAnd(a andExpr) andExpr {
	nested := false
	for _, x := range a {
		if _, ok := x.(andExpr); ok {
			nested = true
			break
		}
	}
	if !nested {
		return a
	}
	out := make(andExpr, 0, len(a))
	for _, x := range a {
		if sub, ok := x.(andExpr); ok {
			out = append(out, flattenAnd(sub)...)
			continue
		}
		out = append(out, x)
	}
	return out
}

// WithContext returns the filter with the JavaScript it runs ($where, a
// $function in a $expr) interrupted when ctx ends: an operation binds
// its context (maxTimeMS, a client gone) before it matches documents,
// batch by batch for a cursor. A filter that runs no JavaScript is
// returned as it is.
func (f *Filter) WithContext(ctx context.Context) *Filter {
	if f == nil || !f.js {
		return f
	}
	if f.where {
		// mongod refuses a $function run by an operation with a $where.
		ctx = script.WithWhere(ctx)
	}
	out := *f
	out.root = bindContext(f.root, ctx).(andExpr)
	return &out
}

// RunsJavaScript reports whether matching runs JavaScript: a $where, a
// $function in a $expr.
func (f *Filter) RunsJavaScript() bool { return f != nil && f.js }

// HasWhere reports whether the filter has a $where.
func (f *Filter) HasWhere() bool { return f != nil && f.where }

func bindContext(e expr, ctx context.Context) expr {
	return mapLogical(e, func(x expr) expr {
		switch t := x.(type) {
		case exprNode:
			t.ctx = ctx
			return t
		case whereNode:
			t.ctx = ctx
			return t
		}
		return x
	})
}

// mapLogical rebuilds a filter tree with leaf applied to every node
// below its logical operators ($and, $or, $nor, $not): how Collate and
// WithContext give the leaves what they need without touching the
// parsed filter.
func mapLogical(e expr, leaf func(expr) expr) expr {
	each := func(xs []expr) []expr {
		out := make([]expr, len(xs))
		for i, x := range xs {
			out[i] = mapLogical(x, leaf)
		}
		return out
	}
	switch t := e.(type) {
	case andExpr:
		return andExpr(each(t))
	case orExpr:
		return orExpr(each(t))
	case norExpr:
		return norExpr(each(t))
	case notExpr:
		return notExpr{mapLogical(t.e, leaf)}
	}
	return leaf(e)
}

// MustParseFilter is ParseFilter for filters written in code; it panics
// on error and is meant for tests and package-level variables only.
func MustParseFilter(f bson.D) *Filter {
	p, err := ParseFilter(f)
	if err != nil {
		panic(err)
	}
	return p
}

// Match reports whether document d satisfies the filter. A $expr that
// fails to evaluate for d (a $divide by zero) does not match; callers
// that answer a user's query use MatchErr, which reports the failure.
func (f *Filter) Match(d bson.D) bool {
	ok, _ := f.MatchErr(d)
	return ok
}

// MatchErr reports whether document d satisfies the filter, or the error
// of a $expr that failed to evaluate for d (a *document.Error with MongoDB's
// code), which fails the whole query in MongoDB.
func (f *Filter) MatchErr(d bson.D) (ok bool, err error) {
	if f == nil {
		return true, nil
	}
	if !f.hasExpr && f.text == nil {
		return f.root.match(d), nil
	}
	defer func() {
		if r := recover(); r != nil {
			fail, isFail := r.(exprFailure)
			if !isFail {
				panic(r)
			}
			ok, err = false, fail.err
		}
	}()
	return f.root.match(d), nil
}

// IsEmpty reports whether the filter has no predicates (it matches every
// document).
func (f *Filter) IsEmpty() bool { return f == nil || len(f.root) == 0 }

// maxDepth bounds filter nesting so hostile input cannot exhaust the stack.
const maxDepth = 100

const codeBadRegexFlag = document.Code(51108)

func badValue(format string, args ...any) error {
	return document.Errorf(document.CodeBadValue, format, args...)
}

func parseDoc(f bson.D, depth int) (andExpr, error) { return parseDocAt(f, depth, nil) }

// topCtx is what the query's own document and its $and/$or/$nor
// branches, where $expr may appear, share while they are parsed.
type topCtx struct {
	now         bson.DateTime // $$NOW
	vars        any           // the user variables of a $expr (ParseFilterWith)
	hasExpr     bool          // a $expr or a $where was parsed
	js          bool          // ... one that runs JavaScript
	hasWhere    bool          // a $where was parsed
	where       bool          // $where is accepted (ParseOptions.Where)
	noScripting bool          // JavaScript is refused (ParseOptions.NoScripting)
	text        *TextSearch   // the $text parsed, nil if none
	inOr        bool          // parsing an $or's branches
	topOr       bool          // ... the branches of an $or of the filter's top level
	inNor       bool          // parsing a $nor's branches
	soleOr      bool          // ... a branch of the top level's $or that is an $or alone
}

// parseDocAt parses a filter document; top is non-nil for the query's
// own document and its $and/$or/$nor branches, where $expr may appear.
func parseDocAt(f bson.D, depth int, top *topCtx) (andExpr, error) {
	if depth > maxDepth {
		return nil, badValue("exceeded depth limit of %d when parsing the filter", maxDepth)
	}
	out := andExpr{}
	for _, e := range f {
		if strings.HasPrefix(e.Key, "$") && !isDBRefField(e.Key) {
			x, err := parseTopOp(e.Key, e.Value, depth, top)
			if err != nil {
				return nil, err
			}
			if x != nil {
				out = append(out, x)
			}
			continue
		}
		xs, err := parsePath(e.Key, e.Value, depth)
		if err != nil {
			return nil, err
		}
		out = append(out, xs...)
	}
	return out, nil
}

func parseTopOp(op string, v any, depth int, top *topCtx) (expr, error) {
	switch op {
	case "$and", "$or", "$nor":
		arr, ok := v.(bson.A)
		if !ok {
			return nil, badValue("%s must be an array", op)
		}
		if len(arr) == 0 {
			return nil, badValue("$and/$or/$nor must be a nonempty array")
		}
		subs := make([]expr, 0, len(arr))
		if top != nil && op != "$and" {
			saveOr, saveTop, saveNor := top.inOr, top.topOr, top.inNor
			// Only $ands above, or the $or is all of a branch of the
			// top level's: it is one of the top level's once mongod
			// flattens them.
			top.topOr = op == "$or" && !top.inNor && (!top.inOr || top.soleOr)
			top.soleOr = false
			top.inOr, top.inNor = top.inOr || op == "$or", top.inNor || op == "$nor"
			defer func() { top.inOr, top.topOr, top.inNor = saveOr, saveTop, saveNor }()
		}
		for _, s := range arr {
			sd, ok := s.(bson.D)
			if !ok {
				return nil, badValue("$or/$and/$nor entries need to be full objects")
			}
			if top != nil {
				top.soleOr = op == "$or" && top.topOr && len(sd) == 1 && sd[0].Key == "$or"
			}
			x, err := parseDocAt(sd, depth+1, top)
			if err != nil {
				return nil, err
			}
			subs = append(subs, x)
		}
		switch op {
		case "$and":
			return andExpr(subs), nil
		case "$or":
			return orExpr(subs), nil
		}
		return norExpr(subs), nil
	case "$comment":
		return nil, nil
	case "$expr":
		if top == nil {
			return nil, badValue("$expr can only be applied to the top-level document")
		}
		if exprCompiler == nil {
			return nil, badValue("$expr is not supported by this build of ttlkv")
		}
		fn, usesJS, err := exprCompiler(v, ExprOptions{Now: top.now, Vars: top.vars, NoScripting: top.noScripting})
		if err != nil {
			return nil, err
		}
		top.hasExpr = true
		top.js = top.js || usesJS
		return exprNode{pred: fn}, nil
	case "$where":
		return parseWhere(v, top)
	case "$jsonSchema":
		if top == nil {
			return nil, badValue("$jsonSchema can only be applied to the top-level document")
		}
		s, raw, err := parseJSONSchema(v)
		if err != nil {
			return nil, err
		}
		return schemaNode{s: s, raw: raw}, nil
	case "$text":
		return parseText(v, top)
	case "$alwaysTrue", "$alwaysFalse":
		return parseAlwaysBoolean(op, v)
	case "$sampleRate":
		if top == nil {
			return nil, badValue("$sampleRate can only be applied to the top-level document")
		}
		return parseSampleRate(v)
	case "$atomic", "$isolated":
		return nil, badValue("%s is not supported by ttlkv", op)
	}
	return nil, badValue("unknown top level operator: %s. If you have a field name that starts with a '$' symbol, consider using $getField or $setField.", op)
}

// isOperatorDoc reports whether v is an operator document ({$gt: 1}):
// MongoDB decides on the first field's name.
func isOperatorDoc(v any) (bson.D, bool) {
	d, ok := v.(bson.D)
	if !ok || len(d) == 0 {
		return nil, false
	}
	return d, strings.HasPrefix(d[0].Key, "$") && !isDBRefField(d[0].Key)
}

// isDBRefField reports whether a $-name is one of a DBRef's fields
// ($ref, $id, $db), which mongod reads as a field name, not an
// operator.
func isDBRefField(k string) bool { return k == "$ref" || k == "$id" || k == "$db" }

func parsePath(path string, v any, depth int) ([]expr, error) {
	parts, ok := splitPath(path)
	if !ok && path != "" {
		return nil, badValue("invalid path in filter: %q", path)
	}
	if path == "" {
		parts = []string{""}
	}
	if ops, ok := isOperatorDoc(v); ok {
		return parseOps(path, parts, ops, depth)
	}
	if re, ok := v.(bson.Regex); ok {
		x, err := regexExpr(path, parts, re.Pattern, re.Options)
		if err != nil {
			return nil, err
		}
		return []expr{x}, nil
	}
	if _, ok := v.(bson.Undefined); ok {
		return nil, errCompareUndefined()
	}
	return []expr{eqExpr(path, parts, v)}, nil
}

// errCompareUndefined is mongod's 2 for an equality or a comparison with
// undefined (ComparisonMatchExpression).
func errCompareUndefined() error { return badValue("cannot compare to undefined") }

// parseOps parses the operator document ops applied to path. parts is
// nil inside an $elemMatch value form, where the operators apply to each
// element itself.
func parseOps(path string, parts []string, ops bson.D, depth int) ([]expr, error) {
	if depth > maxDepth {
		return nil, badValue("exceeded depth limit of %d when parsing the filter", maxDepth)
	}
	var out []expr
	// $regex and $options pair up wherever they appear in ops.
	var rePattern, reOptions string
	hasRegex, hasOptions := false, false
	for _, e := range ops {
		switch e.Key {
		case "$regex":
			switch r := e.Value.(type) {
			case string:
				rePattern = r
			case bson.Regex:
				rePattern = r.Pattern
				if r.Options != "" {
					if reOptions != "" {
						return nil, document.Errorf(document.Code(51074), "options set in both $regex and $options")
					}
					reOptions, hasOptions = r.Options, true
				}
			default:
				return nil, badValue("$regex has to be a string")
			}
			hasRegex = true
		case "$options":
			s, ok := e.Value.(string)
			if !ok {
				return nil, badValue("$options has to be a string")
			}
			if reOptions != "" {
				return nil, document.Errorf(document.Code(51075), "options set in both $regex and $options")
			}
			reOptions, hasOptions = s, true
		}
	}
	if hasOptions && !hasRegex {
		return nil, badValue("$options needs a $regex")
	}
	if isNearOps(ops) {
		if parts == nil {
			return nil, badValue("geoNear must be top-level expr")
		}
		n, err := parseNear(path, parts, ops)
		if err != nil {
			return nil, err
		}
		return []expr{n}, nil
	}
	for _, e := range ops {
		if len(ops) > 1 && (e.Key == "$geoWithin" || e.Key == "$within" || e.Key == "$geoIntersects") {
			for _, o := range ops {
				if o.Key != e.Key {
					return nil, badValue("can't parse extra field: %s", js(bson.D{o}))
				}
			}
		}
	}
	if hasRegex {
		x, err := regexExpr(path, parts, rePattern, reOptions)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	for _, e := range ops {
		if e.Key == "$regex" || e.Key == "$options" {
			continue
		}
		x, err := parseOp(path, parts, e.Key, e.Value, depth)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return out, nil
}

func parseOp(path string, parts []string, op string, v any, depth int) (expr, error) {
	if _, ok := v.(bson.Undefined); ok {
		switch op {
		case "$eq", "$ne", "$gt", "$gte", "$lt", "$lte":
			return nil, errCompareUndefined()
		}
	}
	switch op {
	case "$eq":
		return eqExpr(path, parts, v), nil
	case "$ne":
		if _, ok := v.(bson.Regex); ok {
			return nil, badValue("Can't have regex as arg to $ne.")
		}
		return notExpr{eqExpr(path, parts, v)}, nil
	case "$gt", "$gte", "$lt", "$lte":
		if _, ok := v.(bson.Regex); ok {
			return nil, badValue("Can't have RegEx as arg to predicate over field '%s'.", path)
		}
		return cmpExpr(path, parts, op, v), nil
	case "$in", "$nin":
		x, err := inExpr(path, parts, op, v)
		if err != nil {
			return nil, err
		}
		if op == "$nin" {
			return notExpr{x}, nil
		}
		return x, nil
	case "$exists":
		want := truthy(v)
		x := &pathExpr{path: path, parts: parts, leaf: leafExists, pred: func(it item) bool { return it.present }}
		if want {
			return x, nil
		}
		return notExpr{x}, nil
	case "$type":
		return typeExpr(path, parts, v)
	case "$size":
		n, ok := wholeNumber(v)
		if !ok {
			return nil, badValue("$size needs a number")
		}
		if n < 0 {
			return nil, badValue("$size may not be negative")
		}
		return &pathExpr{path: path, parts: parts, leaf: leafSize, pred: func(it item) bool {
			a, ok := it.v.(bson.A)
			return it.present && ok && int64(len(a)) == n
		}}, nil
	case "$mod":
		return modExpr(path, parts, v)
	case "$not":
		switch t := v.(type) {
		case bson.Regex:
			x, err := regexExpr(path, parts, t.Pattern, t.Options)
			if err != nil {
				return nil, err
			}
			return notExpr{x}, nil
		case bson.D:
			if len(t) == 0 {
				return nil, badValue("$not cannot be empty")
			}
			if !strings.HasPrefix(t[0].Key, "$") {
				return nil, badValue("unknown operator: %s", t[0].Key)
			}
			xs, err := parseOps(path, parts, t, depth+1)
			if err != nil {
				return nil, err
			}
			return notExpr{andExpr(xs)}, nil
		}
		return nil, badValue("$not needs a regex or a document")
	case "$elemMatch":
		return elemMatchExpr(path, parts, v, depth)
	case "$all":
		return allExpr(path, parts, v, depth)
	case "$comment":
		return andExpr{}, nil
	case "$geoWithin", "$within":
		return parseGeoWithin(path, parts, v)
	case "$geoIntersects":
		return parseGeoIntersects(path, parts, v)
	case "$bitsAllSet", "$bitsAllClear", "$bitsAnySet", "$bitsAnyClear":
		return bitsExpr(op, path, parts, v)
	case "$where":
		return nil, badValue("unknown operator: %s", op)
	case "$expr", "$text", "$jsonSchema":
		return nil, badValue("%s is not supported by ttlkv", op)
	}
	return nil, badValue("unknown operator: %s", op)
}

// truthy is MongoDB's boolean reading of an operand such as $exists's.
func truthy(v any) bool {
	switch t := v.(type) {
	case bool:
		return t
	case nil, bson.Undefined, bson.Null:
		return false
	case int32:
		return t != 0
	case int64:
		return t != 0
	case float64:
		return t != 0
	case bson.Decimal128:
		return !t.IsZero()
	}
	return true
}

// wholeNumber converts a number with no fractional part to int64.
func wholeNumber(v any) (int64, bool) {
	switch t := v.(type) {
	case int32:
		return int64(t), true
	case int64:
		return t, true
	case float64:
		if t != math.Trunc(t) || math.IsInf(t, 0) || math.IsNaN(t) || math.Abs(t) > 1<<62 {
			return 0, false
		}
		return int64(t), true
	case bson.Decimal128:
		f, ok := decimalToFloat(t)
		if !ok {
			return 0, false
		}
		return wholeNumber(f)
	}
	return 0, false
}

func isNaN(v any) bool {
	switch t := v.(type) {
	case float64:
		return math.IsNaN(t)
	case bson.Decimal128:
		return t.IsNaN()
	}
	return false
}

// equalValues is the equality of $eq: same type class and equal under
// BSON comparison (so int32(1) equals 1.0, null does not equal undefined).
func equalValues(a, b any) bool {
	if document.CanonicalType(a) != document.CanonicalType(b) {
		return false
	}
	return document.Compare(a, b) == 0
}

// eqMatch is $eq against one yielded item; a missing field equals null,
// and so does undefined, as in mongod before 8.0.
func eqMatch(it item, target any) bool {
	if !it.present {
		return isNull(target)
	}
	if _, undef := it.v.(bson.Undefined); undef && isNull(target) {
		return true
	}
	return equalValues(it.v, target)
}

func isNull(v any) bool {
	switch v.(type) {
	case nil, bson.Null:
		return true
	}
	return false
}

func eqExpr(path string, parts []string, v any) expr {
	return &pathExpr{path: path, parts: parts, expand: true, kind: opEq, arg: v,
		pred: func(it item) bool { return eqMatch(it, v) }}
}

// cmpMatch applies a range operator to one item: values of another type
// class never match (except MinKey/MaxKey operands), a missing field and
// undefined compare as null (mongod 7.0's matcher treats undefined and
// null as equal for $gte and $lte), NaN equals only NaN and is neither
// above nor below any number.
func cmpMatch(op string, it item, target any) bool {
	v := it.v
	if _, undef := v.(bson.Undefined); !it.present || (undef && isNull(target)) {
		v = nil
	}
	ct, cv := document.CanonicalType(target), document.CanonicalType(v)
	if ct != cv {
		switch ct {
		case document.ClassMaxKey:
			return op == "$lt" || op == "$lte"
		case document.ClassMinKey:
			return op == "$gt" || op == "$gte"
		}
		return false
	}
	if ct == document.ClassNumber && (isNaN(v) || isNaN(target)) {
		if isNaN(v) && isNaN(target) {
			return op == "$gte" || op == "$lte"
		}
		return false
	}
	c := document.Compare(v, target)
	switch op {
	case "$gt":
		return c > 0
	case "$gte":
		return c >= 0
	case "$lt":
		return c < 0
	}
	return c <= 0
}

func cmpExpr(path string, parts []string, op string, v any) expr {
	kinds := map[string]opKind{"$gt": opGt, "$gte": opGte, "$lt": opLt, "$lte": opLte}
	return &pathExpr{path: path, parts: parts, expand: true, kind: kinds[op], arg: v,
		pred: func(it item) bool { return cmpMatch(op, it, v) }}
}

func inExpr(path string, parts []string, op string, v any) (expr, error) {
	arr, ok := v.(bson.A)
	if !ok {
		return nil, badValue("%s needs an array", op)
	}
	type matcher func(item) bool
	ms := make([]matcher, 0, len(arr))
	hasRe := false
	for _, e := range arr {
		switch t := e.(type) {
		case bson.Regex:
			re, err := compileRegex(t.Pattern, t.Options)
			if err != nil {
				return nil, err
			}
			hasRe = true
			ms = append(ms, func(it item) bool { return regexMatch(it, re, t) })
		case bson.D:
			if len(t) > 0 && strings.HasPrefix(t[0].Key, "$") {
				return nil, badValue("cannot nest $ under $in")
			}
			ms = append(ms, func(it item) bool { return eqMatch(it, t) })
		case bson.Undefined:
			return nil, badValue("InMatchExpression equality cannot be undefined")
		default:
			ms = append(ms, func(it item) bool { return eqMatch(it, e) })
		}
	}
	return &pathExpr{path: path, parts: parts, expand: true, kind: opIn, args: arr, hasRe: hasRe,
		pred: func(it item) bool {
			for _, m := range ms {
				if m(it) {
					return true
				}
			}
			return false
		}}, nil
}

func regexMatch(it item, re *regexp.Regexp, lit bson.Regex) bool {
	if !it.present {
		return false
	}
	switch s := it.v.(type) {
	case string:
		return re.MatchString(s)
	case bson.Symbol:
		return re.MatchString(string(s))
	case bson.Regex:
		return s.Pattern == lit.Pattern && s.Options == lit.Options
	}
	return false
}

func regexExpr(path string, parts []string, pattern, options string) (expr, error) {
	re, err := compileRegex(pattern, options)
	if err != nil {
		return nil, err
	}
	lit := bson.Regex{Pattern: pattern, Options: options}
	return &pathExpr{path: path, parts: parts, expand: true, leaf: leafRegex,
		pred: func(it item) bool { return regexMatch(it, re, lit) }}, nil
}

// compileRegex translates a PCRE pattern with MongoDB options (i, m, s,
// x, u) into a Go regexp, with find's refusals: an embedded NUL or
// syntax RE2 lacks (backreferences, lookaround) is a BadValue error, an
// unknown option 51108.
func compileRegex(pattern, options string) (*regexp.Regexp, error) {
	if strings.IndexByte(pattern, 0) >= 0 {
		return nil, badValue("Regular expression cannot contain an embedded null byte")
	}
	re, badFlag, err := TranslateRegex(pattern, options)
	if badFlag != 0 {
		return nil, document.Errorf(codeBadRegexFlag, "invalid flag in regex options: %c", badFlag)
	}
	if err != nil {
		var se *syntax.Error
		if errors.As(err, &se) {
			if why, ok := pcreInvalid[se.Code]; ok {
				return nil, document.Errorf(codeBadRegex, "Regular expression is invalid: %s", why)
			}
		}
		return nil, badValue("Regular expression is invalid or not supported: %v", err)
	}
	return re, nil
}

// codeBadRegex is mongod's code for a pattern its regex library refuses.
const codeBadRegex = document.Code(51091)

// pcreInvalid are the syntax errors of Go's regexp that PCRE2 (mongod's
// regex library) reports too, with PCRE2's words: such a pattern is
// invalid in mongod as well (51091). Other refusals are syntax PCRE
// accepts and RE2 lacks, which stay 2 BadValue.
var pcreInvalid = map[syntax.ErrorCode]string{
	syntax.ErrMissingParen:          "missing closing parenthesis",
	syntax.ErrUnexpectedParen:       "unmatched closing parenthesis",
	syntax.ErrMissingBracket:        "missing terminating ] for character class",
	syntax.ErrMissingRepeatArgument: "quantifier does not follow a repeatable item",
	syntax.ErrInvalidCharRange:      "range out of order in character class",
	syntax.ErrTrailingBackslash:     "\\ at end of pattern",
}

// TranslateRegex is the Go regexp (RE2) for a MongoDB regular
// expression: a PCRE pattern and MongoDB's options i, m and s (Go's
// flags of the same names), x (whitespace and #-comments outside
// character classes removed, as PCRE's extended mode does) and u
// (accepted, as mongod does; Go's matching is always Unicode). find,
// $regex and the aggregation operators $regexMatch, $regexFind and
// $regexFindAll all translate through it, so they accept and refuse the
// same patterns; each caller reports a refusal under its own code.
// badFlag is the first option that is none of these (0 when all are;
// re and err are then nil); err is Go's reason for refusing a pattern,
// such as PCRE syntax RE2 lacks (backreferences, lookaround, (*VERB)s).
// An embedded NUL byte is the caller's to refuse.
func TranslateRegex(pattern, options string) (re *regexp.Regexp, badFlag rune, err error) {
	flags := ""
	extended := false
	for _, c := range options {
		switch c {
		case 'i', 'm', 's':
			if !strings.ContainsRune(flags, c) {
				flags += string(c)
			}
		case 'x':
			extended = true
		case 'u':
		default:
			return nil, c, nil
		}
	}
	pattern, ucp, newline := pcreStart(pattern)
	if extended {
		pattern = stripExtended(pattern)
	}
	if strings.ContainsRune(flags, 's') {
		newline = "" // '.' matches every character
	}
	pattern = pcreClasses(pattern, ucp, newline)
	if flags != "" {
		pattern = "(?" + flags + ")" + pattern
	}
	re, err = regexp.Compile(pattern)
	return re, 0, err
}

// pcreSets are PCRE's character types whose members differ from RE2's
// (or that RE2 lacks), as the members to put in a class: \s holds the
// vertical tab too, \v is vertical white space, \h horizontal.
var pcreSets = map[byte]string{
	's': `\t\n\x0B\f\r `,
	'v': `\n\x0B\f\r\x{85}\x{2028}\x{2029}`,
	'h': `\t \x{A0}\x{1680}\x{180E}\x{2000}-\x{200A}\x{202F}\x{205F}\x{3000}`,
}

// pcreClasses rewrites \s, \S, \v, \V, \h and \H to the classes PCRE
// (mongod's regex library) gives them; escapes inside \Q...\E are left.
// Inside a class the negated forms stay RE2's. With ucp ((*UCP) at the
// pattern's start) \d, \w, \s and the POSIX classes take their Unicode
// members, as PCRE's do: \d is \p{Nd}, [:alpha:] \p{L}. With a
// newline convention (newline, the line ends as members of a class) each
// '.' outside a class refuses those line ends instead of '\n'.
func pcreClasses(p string, ucp bool, newline string) string {
	if !strings.Contains(p, "\\") && (!ucp || !strings.Contains(p, "[:")) && (newline == "" || !strings.Contains(p, ".")) {
		return p
	}
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			n := p[i+1]
			if n == 'Q' {
				end := strings.Index(p[i+2:], `\E`)
				if end < 0 {
					b.WriteString(p[i:])
					return b.String()
				}
				b.WriteString(p[i : i+2+end+2])
				i += 1 + end + 2
				continue
			}
			lower := n | 0x20
			set, ok := pcreSets[lower]
			if u, isU := ucpSets[lower]; ucp && isU {
				switch {
				case inClass && n == lower:
					b.WriteString(u)
				case !inClass && n == lower:
					b.WriteString("[" + u + "]")
				case !inClass:
					b.WriteString("[^" + u + "]")
				default:
					b.WriteByte(c)
					b.WriteByte(n)
				}
				i++
				continue
			}
			switch {
			case ok && inClass && n == lower:
				b.WriteString(set)
			case ok && !inClass && n == lower:
				b.WriteString("[" + set + "]")
			case ok && !inClass:
				b.WriteString("[^" + set + "]")
			default:
				b.WriteByte(c)
				b.WriteByte(n)
			}
			i++
		case c == '[' && !inClass:
			inClass = true
			b.WriteByte(c)
			// A ']' right after '[' or '[^' is a member, not the end.
			if i+1 < len(p) && p[i+1] == '^' {
				b.WriteByte('^')
				i++
			}
			if i+1 < len(p) && p[i+1] == ']' {
				b.WriteByte(']')
				i++
			}
		case c == '[' && inClass && ucp && strings.HasPrefix(p[i:], "[:"):
			end := strings.Index(p[i:], ":]")
			name := ""
			if end > 0 {
				name = p[i+2 : i+end]
			}
			neg := strings.HasPrefix(name, "^")
			u, known := ucpPosix[strings.TrimPrefix(name, "^")]
			if !known || (neg && strings.ContainsRune(u, '_')) {
				b.WriteByte(c)
				continue
			}
			if neg {
				u = strings.ReplaceAll(u, `\p`, `\P`)
			}
			b.WriteString(u)
			i += end + 1
		case c == ']' && inClass:
			inClass = false
			b.WriteByte(c)
		case c == '.' && !inClass && newline != "":
			b.WriteString(`[^` + newline + `]`)
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// stripExtended removes unescaped whitespace and #-comments outside
// character classes, as PCRE's extended mode does.
func stripExtended(p string) string {
	var b strings.Builder
	inClass := false
	for i := 0; i < len(p); i++ {
		c := p[i]
		switch {
		case c == '\\' && i+1 < len(p):
			b.WriteByte(c)
			b.WriteByte(p[i+1])
			i++
		case inClass:
			if c == ']' {
				inClass = false
			}
			b.WriteByte(c)
		case c == '[':
			inClass = true
			b.WriteByte(c)
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		case c == '#':
			for i < len(p) && p[i] != '\n' {
				i++
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

var typeAliases = map[string]int{
	"double": 1, "string": 2, "object": 3, "array": 4, "binData": 5, "undefined": 6,
	"objectId": 7, "bool": 8, "date": 9, "null": 10, "regex": 11, "dbPointer": 12,
	"javascript": 13, "symbol": 14, "javascriptWithScope": 15, "int": 16,
	"timestamp": 17, "long": 18, "decimal": 19, "minKey": -1, "maxKey": 127,
}

// TypeAlias returns the BSON type number MongoDB's type name name stands
// for ("double" 1, ..., "minKey" -1, "maxKey" 127), as $type and
// $convert read it.
func TypeAlias(name string) (int, bool) {
	n, ok := typeAliases[name]
	return n, ok
}

// TypeAliasName returns the type name of BSON type number n.
func TypeAliasName(n int) (string, bool) {
	for name, v := range typeAliases {
		if v == n {
			return name, true
		}
	}
	return "", false
}

// typeSet is the parsed operand of $type.
type typeSet struct {
	nums   map[int]bool
	number bool
}

func parseTypeOperand(v any, set *typeSet) error {
	switch t := v.(type) {
	case string:
		if t == "number" {
			set.number = true
			return nil
		}
		n, ok := typeAliases[t]
		if !ok {
			return badValue("Unknown type name alias: %s", t)
		}
		set.nums[n] = true
		return nil
	case int32, int64, float64, bson.Decimal128:
		n, ok := wholeNumber(t)
		if !ok {
			return badValue("Invalid numerical type code: %v", t)
		}
		valid := n == -1 || n == 127 || (n >= 1 && n <= 19)
		if !valid {
			return badValue("Invalid numerical type code: %d", n)
		}
		set.nums[int(n)] = true
		return nil
	}
	return document.Errorf(document.CodeTypeMismatch, "type must be represented as a number or a string")
}

func typeExpr(path string, parts []string, v any) (expr, error) {
	set := typeSet{nums: map[int]bool{}}
	if arr, ok := v.(bson.A); ok {
		if len(arr) == 0 {
			return nil, document.Errorf(document.CodeFailedToParse, "%s must match at least one type", path)
		}
		for _, e := range arr {
			if err := parseTypeOperand(e, &set); err != nil {
				return nil, err
			}
		}
	} else if err := parseTypeOperand(v, &set); err != nil {
		return nil, err
	}
	return &pathExpr{path: path, parts: parts, expand: true, leaf: leafType, types: &set, pred: func(it item) bool {
		if !it.present {
			return false
		}
		if set.number && document.IsNumber(it.v) {
			return true
		}
		return set.nums[document.TypeNumber(it.v)]
	}}, nil
}

func modExpr(path string, parts []string, v any) (expr, error) {
	arr, ok := v.(bson.A)
	if !ok {
		return nil, badValue("malformed mod, needs to be an array")
	}
	// mongod's order: each operand is checked for a number as it is
	// reached, then the count, then each is coerced to a 64-bit integer.
	if len(arr) < 1 {
		return nil, badValue("malformed mod, not enough elements")
	}
	if !document.IsNumber(arr[0]) {
		return nil, badValue("malformed mod, divisor not a number")
	}
	if len(arr) < 2 {
		return nil, badValue("malformed mod, not enough elements")
	}
	if !document.IsNumber(arr[1]) {
		return nil, badValue("malformed mod, remainder not a number")
	}
	if len(arr) > 2 {
		return nil, badValue("malformed mod, too many elements")
	}
	div, why := coerceInt64(arr[0])
	if why != "" {
		return nil, badValue("malformed mod, divisor value is invalid :: caused by :: %s", why)
	}
	rem, why := coerceInt64(arr[1])
	if why != "" {
		return nil, badValue("malformed mod, remainder value is invalid :: caused by :: %s", why)
	}
	if div == 0 {
		return nil, badValue("divisor cannot be 0")
	}
	return &pathExpr{path: path, parts: parts, expand: true, leaf: leafMod, pred: func(it item) bool {
		if !it.present {
			return false
		}
		n, why := coerceInt64(it.v)
		if why != "" {
			return false
		}
		if div == -1 {
			return rem == 0 // n % -1 is 0, and MinInt64 % -1 must not trap
		}
		return n%div == rem
	}}, nil
}

// coerceInt64 truncates a number toward zero to an int64, as mongod's
// BSONElement::tryCoerce does; why is its reason for refusing NaN, an
// infinity, a value outside int64's range or a non-number ("" when n is
// good).
func coerceInt64(v any) (n int64, why string) {
	var f float64
	switch t := v.(type) {
	case int32:
		return int64(t), ""
	case int64:
		return t, ""
	case float64:
		f = t
	case bson.Decimal128:
		if t.IsNaN() || t.IsInf() != 0 {
			return 0, "Unable to coerce NaN/Inf to integral type"
		}
		x, ok := decimalToFloat(t)
		if !ok || math.IsInf(x, 0) {
			return 0, "Out of bounds coercing to integral value"
		}
		f = x
	default:
		return 0, "not a number"
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return 0, "Unable to coerce NaN/Inf to integral type"
	}
	f = math.Trunc(f)
	if f < -(1<<63) || f >= 1<<63 {
		return 0, "Out of bounds coercing to integral value"
	}
	return int64(f), ""
}

// logicalOps are the $-keys that make an $elemMatch operand the object
// form rather than the value form.
var logicalOps = map[string]bool{"$and": true, "$or": true, "$nor": true, "$where": true, "$expr": true, "$text": true, "$comment": true, "$jsonSchema": true}

func elemMatchExpr(path string, parts []string, v any, depth int) (expr, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, badValue("$elemMatch needs an Object")
	}
	if len(d) > 0 && strings.HasPrefix(d[0].Key, "$") && !logicalOps[d[0].Key] && !isDBRefField(d[0].Key) {
		xs, err := parseOps("", nil, d, depth+1)
		if err != nil {
			return nil, err
		}
		sub := andExpr(xs)
		return &pathExpr{path: path, parts: parts, sub: sub, valueForm: true, pred: elemMatchValuePred(sub)}, nil
	}
	x, err := parseDoc(d, depth+1)
	if err != nil {
		return nil, err
	}
	return &pathExpr{path: path, parts: parts, sub: x, pred: elemMatchObjectPred(x)}, nil
}

// elemMatchValuePred is $elemMatch's value form: some element satisfies
// the operators of sub.
func elemMatchValuePred(sub expr) func(it item) bool {
	return func(it item) bool {
		a, ok := it.v.(bson.A)
		if !it.present || !ok {
			return false
		}
		for _, e := range a {
			if sub.match(e) {
				return true
			}
		}
		return false
	}
}

// elemMatchObjectPred is $elemMatch's object form: some document (or
// array) element satisfies the filter sub.
func elemMatchObjectPred(sub expr) func(it item) bool {
	return func(it item) bool {
		a, ok := it.v.(bson.A)
		if !it.present || !ok {
			return false
		}
		for _, e := range a {
			switch t := e.(type) {
			case bson.D:
				if sub.match(t) {
					return true
				}
			case bson.A:
				if sub.match(arrayAsDoc(t)) {
					return true
				}
			}
		}
		return false
	}
}

func allExpr(path string, parts []string, v any, depth int) (expr, error) {
	arr, ok := v.(bson.A)
	if !ok {
		return nil, badValue("$all needs an array")
	}
	if len(arr) == 0 {
		return falseExpr{}, nil
	}
	out := andExpr{}
	elem := 0
	// The first element decides: an $elemMatch makes every element one,
	// otherwise an $-operator anywhere is refused.
	firstD, _ := arr[0].(bson.D)
	elemForm := len(firstD) > 0 && firstD[0].Key == "$elemMatch"
	for _, e := range arr {
		if d, ok := e.(bson.D); ok && len(d) > 0 && d[0].Key == "$elemMatch" && elemForm {
			if len(d) != 1 {
				return nil, badValue("$elemMatch in $all must be the only field")
			}
			x, err := elemMatchExpr(path, parts, d[0].Value, depth)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
			elem++
			continue
		}
		if d, ok := e.(bson.D); ok && len(d) > 0 && strings.HasPrefix(d[0].Key, "$") {
			return nil, badValue("no $ expressions in $all")
		}
		if re, ok := e.(bson.Regex); ok {
			x, err := regexExpr(path, parts, re.Pattern, re.Options)
			if err != nil {
				return nil, err
			}
			out = append(out, x)
			continue
		}
		out = append(out, eqExpr(path, parts, e))
	}
	if elem > 0 && elem != len(arr) {
		return nil, badValue("$all/$elemMatch has to be consistent")
	}
	return out, nil
}

// TopFields returns the names of the top-level fields the filter reads,
// each once: matching a document cut down to those fields (in document
// order, duplicates kept, as document.UnmarshalFields gives them) has
// the same result as matching the whole document. ok is false when the
// filter may read the whole document (a $expr), so no field can be left
// out. An empty filter reads no field.
func (f *Filter) TopFields() (names []string, ok bool) {
	if f == nil {
		return nil, true
	}
	if f.hasExpr {
		return nil, false
	}
	return topFields(f.root, nil)
}

func topFields(e expr, names []string) ([]string, bool) {
	var ok bool
	switch x := e.(type) {
	case andExpr:
		for _, s := range x {
			if names, ok = topFields(s, names); !ok {
				return nil, false
			}
		}
	case orExpr:
		for _, s := range x {
			if names, ok = topFields(s, names); !ok {
				return nil, false
			}
		}
	case norExpr:
		for _, s := range x {
			if names, ok = topFields(s, names); !ok {
				return nil, false
			}
		}
	case notExpr:
		return topFields(x.e, names)
	case falseExpr:
	case *pathExpr:
		if len(x.parts) == 0 {
			return nil, false
		}
		for _, n := range names {
			if n == x.parts[0] {
				return names, true
			}
		}
		names = append(names, x.parts[0])
	default:
		return nil, false
	}
	return names, true
}
