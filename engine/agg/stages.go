package agg

import (
	"context"
	"errors"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/extsort"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// mapStage is a streaming stage that turns each document into zero or
// one document.
type mapStage struct {
	up iter
	o  *Options
	fn func(d bson.D, env *Env) (bson.D, bool, error)
}

func (m *mapStage) next(ctx context.Context) (bson.D, error) {
	for n := 1; ; n++ {
		if err := checkCtx(ctx, n); err != nil {
			return nil, err
		}
		d, err := m.up.next(ctx)
		if err != nil || d == nil {
			return nil, err
		}
		r, ok, err := m.fn(d, m.o.env(d))
		if err != nil {
			return nil, err
		}
		if ok {
			if m.o.TextScore {
				r = keepTextScore(d, r)
			}
			return r, nil
		}
	}
}

func mapSpec(name string, spec any, fn func(d bson.D, env *Env) (bson.D, bool, error)) stageSpec {
	return stageSpec{name: name, spec: spec, make: func(up iter, o *Options) iter { return &mapStage{up: up, o: o, fn: fn} }}
}

func parseMatch(arg any, sc pdepth) (stageSpec, error) {
	f, ok := arg.(bson.D)
	if !ok {
		return stageSpec{}, document.Errorf(document.Code(15959), "the match filter must be an expression in an object")
	}
	if pf, err := query.ParseFilterWith(f, time.Now(), filterVars{scope: sc}); err != nil {
		return stageSpec{}, err
	} else if pf.Near() != nil {
		return stageSpec{}, query.ErrNearNotAllowed
	}
	return stageSpec{name: "$match", spec: f, make: func(up iter, o *Options) iter {
		// Parsed again for the run: a $expr's $$NOW is the run's.
		flt, _ := query.ParseFilterOpts(f, query.ParseOptions{Now: o.Now.Time(), Vars: filterVars{scope: sc, vals: o.vars}, NoScripting: o.NoScripting})
		flt, _ = flt.Collate(o.Collator) // collating a parsed filter cannot fail
		// A $function in a $expr runs under the context of the
		// cursor's current batch.
		bound, boundCtx := flt, context.Context(nil)
		return &mapStage{up: up, o: o, fn: func(d bson.D, env *Env) (bson.D, bool, error) {
			if flt.RunsJavaScript() && env.ctx != boundCtx {
				bound, boundCtx = flt.WithContext(env.ctx), env.ctx
			}
			ok, err := bound.MatchErr(d)
			return d, ok, err
		}}
	}}, nil
}

// pathOp is one entry of a flattened $project or $addFields spec.
type pathOp struct {
	path    []string
	include bool // $project: 1/true
	exclude bool // $project: 0/false
	expr    Expr // computed value
	isOp    bool // expr is an operator object ({$add: ...}), not a literal or a path
}

// flattenSpec turns {a: {b: v}, "c.d": w} into paths a.b and c.d; leaf
// values are given to leaf. Objects whose first key is an operator are
// leaves.
func flattenSpec(prefix []string, spec bson.D, leaf func(path []string, v any) (pathOp, error), out []pathOp) ([]pathOp, error) {
	for _, el := range spec {
		if err := checkFieldPath(el.Key); err != nil {
			return nil, err
		}
		parts := strings.Split(el.Key, ".")
		path := append(slices.Clone(prefix), parts...)
		if sub, ok := el.Value.(bson.D); ok && len(sub) > 0 && !strings.HasPrefix(sub[0].Key, "$") {
			var err error
			if out, err = flattenSpec(path, sub, leaf, out); err != nil {
				return nil, err
			}
			continue
		}
		op, err := leaf(path, el.Value)
		if err != nil {
			return nil, err
		}
		out = append(out, op)
	}
	return out, nil
}

func parseProject(arg any, sc pdepth) (stageSpec, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return stageSpec{}, document.Errorf(document.Code(15969), "$project specification must be an object")
	}
	if len(spec) == 0 {
		return stageSpec{}, document.Errorf(document.Code(51272), "projection specification must have at least one field")
	}
	if positionalPath(spec) {
		return stageSpec{}, document.Errorf(document.Code(31324), "Cannot use positional projection in aggregation projection")
	}
	ops, err := flattenSpec(nil, spec, func(path []string, v any) (pathOp, error) {
		switch x := v.(type) {
		case bool:
			return pathOp{path: path, include: x, exclude: !x}, nil
		case bson.D:
			if len(x) == 0 {
				return pathOp{}, document.Errorf(document.Code(51270), "An empty sub-projection is not a valid value. Found empty object at path")
			}
		}
		if document.IsNumber(v) {
			z := document.Compare(v, int32(0)) == 0
			return pathOp{path: path, include: !z, exclude: z}, nil
		}
		e, err := parseExpr(v, sc)
		_, isOp := v.(bson.D)
		return pathOp{path: path, expr: e, isOp: isOp}, err
	}, nil)
	if err != nil {
		return stageSpec{}, err
	}
	if a, b, ok := conflictingPaths(ops); ok {
		if len(a) < len(b) {
			return stageSpec{}, document.Errorf(document.Code(31249), "Invalid $project :: caused by :: Path collision at %s remaining portion %s", strings.Join(b, "."), strings.Join(b[len(a):], "."))
		}
		return stageSpec{}, document.Errorf(document.Code(31250), "Invalid $project :: caused by :: Path collision at %s", strings.Join(b, "."))
	}
	// As mongod's parser: the first field other than the top-level _id
	// decides inclusion or exclusion, and a later field of the other
	// kind is refused with the code of its own kind; the top-level _id
	// may be included or excluded in either.
	const (
		undecided = iota
		including
		excluding
	)
	mode := undecided
	idExcluded, idIncluded := false, false
	for _, op := range ops {
		name := strings.Join(op.path, ".")
		if len(op.path) == 1 && op.path[0] == "_id" && op.expr == nil {
			idExcluded, idIncluded = op.exclude, op.include
			continue
		}
		switch {
		case op.exclude && mode == including:
			return stageSpec{}, document.Errorf(document.Code(31254), "Invalid $project :: caused by :: Cannot do exclusion on field %s in inclusion projection", name)
		case op.exclude:
			mode = excluding
		case op.include && mode == excluding:
			return stageSpec{}, document.Errorf(document.Code(31253), "Invalid $project :: caused by :: Cannot do inclusion on field %s in exclusion projection", name)
		case op.expr != nil && mode == excluding && op.isOp:
			return stageSpec{}, document.Errorf(document.Code(31252), "Invalid $project :: caused by :: Cannot use expression other than $meta in exclusion projection")
		case op.expr != nil && mode == excluding:
			return stageSpec{}, document.Errorf(document.Code(31310), "Invalid $project :: caused by :: Cannot use an expression other than $meta in exclusion projection")
		default:
			mode = including
		}
	}
	if mode == excluding || (mode == undecided && !idIncluded) {
		return mapSpec("$project", spec, func(d bson.D, _ *Env) (bson.D, bool, error) {
			for _, op := range ops {
				if op.exclude {
					d = removePath(d, op.path)
				}
			}
			return d, true, nil
		}), nil
	}
	var incl [][]string
	if !idExcluded {
		incl = append(incl, []string{"_id"})
	}
	var computed []pathOp
	var dotted [][]string // the paths of computed fields below the top level
	for _, op := range ops {
		switch {
		case op.include:
			incl = append(incl, op.path)
		case op.expr != nil:
			computed = append(computed, op)
			if len(op.path) > 1 {
				dotted = append(dotted, op.path)
			}
		}
	}
	return mapSpec("$project", spec, func(d bson.D, env *Env) (bson.D, bool, error) {
		out := includeComputing(d, incl, dotted)
		for _, op := range computed {
			v, err := op.expr.Eval(env)
			if err != nil {
				return nil, false, err
			}
			if !isMissing(v) {
				out = setPath(out, op.path, v)
			}
		}
		if dotted != nil {
			out = dropHoles(out)
		}
		return out, true, nil
	}), nil
}

// hole stands, during an inclusion $project, for a value on the way of
// a computed dotted path that the inclusion dropped (a scalar): as in
// mongod's projection tree, setting the computed field there turns it
// into a document, and a hole nothing was set in is dropped at the end.
type hole struct{}

// includePaths keeps the fields of d on paths, in d's order, descending
// into documents and arrays of documents.
func includePaths(d bson.D, paths [][]string) bson.D { return includeComputing(d, paths, nil) }

// includeComputing is includePaths that also keeps, as holes, the
// values on the way of the computed paths that inclusion drops.
func includeComputing(d bson.D, paths, computed [][]string) bson.D {
	out := bson.D{}
	for _, el := range d {
		var sub, csub [][]string
		whole := false
		for _, p := range paths {
			if p[0] != el.Key {
				continue
			}
			if len(p) == 1 {
				whole = true
			} else {
				sub = append(sub, p[1:])
			}
		}
		for _, p := range computed {
			if p[0] == el.Key && len(p) > 1 {
				csub = append(csub, p[1:])
			}
		}
		switch {
		case whole:
			out = append(out, el)
		case sub != nil || csub != nil:
			if v, ok := includeIn(el.Value, sub, csub); ok {
				out = append(out, bson.E{Key: el.Key, Value: v})
			}
		}
	}
	return out
}

func includeIn(v any, paths, computed [][]string) (any, bool) {
	switch x := v.(type) {
	case bson.D:
		return includeComputing(x, paths, computed), true
	case bson.A:
		out := bson.A{}
		for _, el := range x {
			if r, ok := includeIn(el, paths, computed); ok {
				out = append(out, r)
			}
		}
		return out, true
	}
	if computed != nil {
		return hole{}, true
	}
	return nil, false
}

// dropHoles returns d without the holes includeComputing left.
func dropHoles(d bson.D) bson.D {
	out := make(bson.D, 0, len(d))
	for _, el := range d {
		if v, ok := dropHolesIn(el.Value); ok {
			out = append(out, bson.E{Key: el.Key, Value: v})
		}
	}
	return out
}

func dropHolesIn(v any) (any, bool) {
	switch x := v.(type) {
	case hole:
		return nil, false
	case bson.D:
		return dropHoles(x), true
	case bson.A:
		out := make(bson.A, 0, len(x))
		for _, el := range x {
			if r, ok := dropHolesIn(el); ok {
				out = append(out, r)
			}
		}
		return out, true
	}
	return v, true
}

// removePath returns d without the field at path (through documents and
// arrays of documents).
func removePath(d bson.D, path []string) bson.D {
	out := make(bson.D, 0, len(d))
	for _, el := range d {
		if el.Key != path[0] {
			out = append(out, el)
			continue
		}
		if len(path) == 1 {
			continue
		}
		out = append(out, bson.E{Key: el.Key, Value: removeIn(el.Value, path[1:])})
	}
	return out
}

func removeIn(v any, path []string) any {
	switch x := v.(type) {
	case bson.D:
		return removePath(x, path)
	case bson.A:
		out := make(bson.A, len(x))
		for i, el := range x {
			out[i] = removeIn(el, path)
		}
		return out
	}
	return v
}

// setPath returns d with v at path: an existing field keeps its place,
// a new one is appended, documents on the way are created, and an array
// on the way has v set in each of its elements, a scalar element
// becoming a document ($addFields' rule).
func setPath(d bson.D, path []string, v any) bson.D { return setPathBy(d, path, v, setIn) }

// setNested is setPath with $lookup's rule for what is on the way: a
// field that is not a document is replaced by one.
func setNested(d bson.D, path []string, v any) bson.D {
	return setPathBy(d, path, v, func(cur any, path []string, v any) any {
		sub, _ := cur.(bson.D)
		return setNested(sub, path, v)
	})
}

// setPathBy sets v at path in d; below the first field, down sets the
// rest of the path in what the field holds.
func setPathBy(d bson.D, path []string, v any, down func(cur any, path []string, v any) any) bson.D {
	out := slices.Clone(d)
	for i, el := range out {
		if el.Key != path[0] {
			continue
		}
		if len(path) == 1 {
			out[i].Value = v
		} else {
			out[i].Value = down(el.Value, path[1:], v)
		}
		return out
	}
	if len(path) == 1 {
		return append(out, bson.E{Key: path[0], Value: v})
	}
	return append(out, bson.E{Key: path[0], Value: setPathBy(bson.D{}, path[1:], v, down)})
}

func setIn(cur any, path []string, v any) any {
	switch x := cur.(type) {
	case bson.D:
		return setPath(x, path, v)
	case bson.A:
		// As mongod: the path goes into every element, documents and
		// nested arrays alike, and a scalar is replaced by a document
		// holding the rest of the path.
		out := make(bson.A, len(x))
		for i, el := range x {
			switch el.(type) {
			case bson.D, bson.A:
				out[i] = setIn(el, path, v)
			default:
				out[i] = setPath(bson.D{}, path, v)
			}
		}
		return out
	}
	return setPath(bson.D{}, path, v)
}

func parseAddFields(name string, arg any, sc pdepth) (stageSpec, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return stageSpec{}, document.Errorf(document.Code(40272), "%s specification stage must be an object, got %s", name, document.TypeName(arg))
	}
	if err := dottedInSubObject(spec, false); err != nil {
		return stageSpec{}, err
	}
	ops, err := flattenSpec(nil, spec, func(path []string, v any) (pathOp, error) {
		e, err := parseExpr(v, sc)
		return pathOp{path: path, expr: e}, err
	}, nil)
	if err != nil {
		return stageSpec{}, err
	}
	if a, b, ok := conflictingPaths(ops); ok {
		return stageSpec{}, document.Errorf(document.Code(40176), "Invalid %s :: caused by :: specification contains two conflicting paths. Cannot specify both '%s' and '%s': %s", name, strings.Join(b, "."), strings.Join(a, "."), document.Format(spec))
	}
	return mapSpec(name, spec, func(d bson.D, env *Env) (bson.D, bool, error) {
		out := d
		for _, op := range ops {
			v, err := op.expr.Eval(env)
			if err != nil {
				return nil, false, err
			}
			if isMissing(v) {
				out = removePath(out, op.path)
				continue
			}
			out = setPath(out, op.path, v)
		}
		return out, true, nil
	}), nil
}

func parseUnset(arg any) (stageSpec, error) {
	var names []string
	switch x := arg.(type) {
	case string:
		names = []string{x}
	case bson.A:
		for _, el := range x {
			s, ok := el.(string)
			if !ok {
				return stageSpec{}, document.Errorf(document.Code(31120), "$unset specification must be a string or an array containing only string values")
			}
			names = append(names, s)
		}
	default:
		return stageSpec{}, document.Errorf(document.Code(31002), "$unset specification must be a string or an array")
	}
	if len(names) == 0 {
		return stageSpec{}, document.Errorf(document.Code(31119), "$unset specification must be a string or an array with at least one field")
	}
	var paths [][]string
	var ops []pathOp
	for _, n := range names {
		if err := checkFieldPath(n); err != nil {
			return stageSpec{}, err
		}
		parts := strings.Split(n, ".")
		paths = append(paths, parts)
		ops = append(ops, pathOp{path: parts, exclude: true})
	}
	// mongod parses $unset as an exclusion $project, which refuses a
	// path given twice or under another.
	if a, b, ok := conflictingPaths(ops); ok {
		if len(a) < len(b) {
			return stageSpec{}, document.Errorf(document.Code(31249), "Invalid $unset :: caused by :: Path collision at %s remaining portion %s", strings.Join(b, "."), strings.Join(b[len(a):], "."))
		}
		return stageSpec{}, document.Errorf(document.Code(31250), "Invalid $unset :: caused by :: Path collision at %s", strings.Join(b, "."))
	}
	return mapSpec("$unset", arg, func(d bson.D, _ *Env) (bson.D, bool, error) {
		for _, p := range paths {
			d = removePath(d, p)
		}
		return d, true, nil
	}), nil
}

func parseReplaceRoot(name string, arg any, sc pdepth) (stageSpec, error) {
	rootV := arg
	if name == "$replaceRoot" {
		spec, ok := arg.(bson.D)
		if !ok {
			return stageSpec{}, document.Errorf(document.Code(40229), "expected an object as specification for $replaceRoot stage, got %s", document.TypeName(arg))
		}
		// mongod reads the object with its IDL parser.
		for _, el := range spec {
			if el.Key != "newRoot" {
				return stageSpec{}, document.Errorf(document.CodeIDLUnknownField, "BSON field '$replaceRoot.%s' is an unknown field.", el.Key)
			}
		}
		v, ok := docGet(spec, "newRoot")
		if !ok {
			return stageSpec{}, document.Errorf(document.CodeIDLFailedToParse, "BSON field '$replaceRoot.newRoot' is missing but a required field")
		}
		rootV = v
	}
	// The words mongod puts before "must evaluate to an object".
	context := "'newRoot' expression "
	if name == "$replaceWith" {
		context = "'replacement document' "
	}
	e, err := parseExpr(rootV, sc)
	if err != nil {
		return stageSpec{}, err
	}
	return mapSpec(name, arg, func(d bson.D, env *Env) (bson.D, bool, error) {
		v, err := e.Eval(env)
		if err != nil {
			return nil, false, err
		}
		nd, ok := v.(bson.D)
		if !ok {
			return nil, false, document.Errorf(document.Code(40228), "%s must evaluate to an object, but resulting value was: %s. Type of resulting value: '%s'. Input document: %s",
				context, valueString(v), typeOrMissing(v), valueString(d))
		}
		return nd, true, nil
	}), nil
}

func formatMaybeMissing(v any) string {
	if isMissing(v) {
		return "MISSING"
	}
	return document.Format(v)
}

func docGet(d bson.D, k string) (any, bool) {
	for _, el := range d {
		if el.Key == k {
			return el.Value, true
		}
	}
	return nil, false
}

// unwindStage emits one document per element of the array at path.
type unwindStage struct {
	path     []string
	index    []string // includeArrayIndex path, nil: none
	preserve bool
}

func parseUnwind(arg any) (stageSpec, error) {
	u := &unwindStage{}
	var pathS string
	switch x := arg.(type) {
	case string:
		pathS = x
	case bson.D:
		have := false
		for _, el := range x {
			switch el.Key {
			case "path":
				s, ok := el.Value.(string)
				if !ok {
					return stageSpec{}, document.Errorf(document.Code(28808), "expected a string as the path for $unwind stage, got %s", document.TypeName(el.Value))
				}
				pathS, have = s, true
			case "includeArrayIndex":
				s, ok := el.Value.(string)
				if !ok || s == "" {
					return stageSpec{}, document.Errorf(document.Code(28810), "expected a non-empty string for the includeArrayIndex option to $unwind stage")
				}
				if strings.HasPrefix(s, "$") {
					return stageSpec{}, document.Errorf(document.Code(28822), "includeArrayIndex option to $unwind stage should not be prefixed with a '$': %s", s)
				}
				u.index = strings.Split(s, ".")
			case "preserveNullAndEmptyArrays":
				b, ok := el.Value.(bool)
				if !ok {
					return stageSpec{}, document.Errorf(document.Code(28809), "expected a boolean for the preserveNullAndEmptyArrays option to $unwind stage, got %s", document.TypeName(el.Value))
				}
				u.preserve = b
			default:
				return stageSpec{}, document.Errorf(document.Code(28811), "unrecognized option to $unwind stage: %s", el.Key)
			}
		}
		if !have {
			return stageSpec{}, document.Errorf(document.Code(28812), "no path specified to $unwind stage")
		}
	default:
		return stageSpec{}, document.Errorf(document.Code(15981), "expected either a string or an object as specification for $unwind stage, got %s", document.TypeName(arg))
	}
	if pathS == "" {
		return stageSpec{}, document.Errorf(document.Code(28812), "no path specified to $unwind stage")
	}
	if !strings.HasPrefix(pathS, "$") || len(pathS) == 1 {
		return stageSpec{}, document.Errorf(document.Code(28818), "path option to $unwind stage should be prefixed with a '$': %s", pathS)
	}
	if err := checkFieldPath(pathS[1:]); err != nil {
		return stageSpec{}, err
	}
	u.path = strings.Split(pathS[1:], ".")
	return stageSpec{name: "$unwind", spec: arg, make: func(up iter, _ *Options) iter { return &unwindIter{unwindStage: u, up: up} }}, nil
}

// plainGet follows path through documents only, as $unwind does.
func plainGet(d bson.D, path []string) (any, bool) {
	var cur any = d
	for _, p := range path {
		sd, ok := cur.(bson.D)
		if !ok {
			return nil, false
		}
		if cur, ok = docGet(sd, p); !ok {
			return nil, false
		}
	}
	return cur, true
}

// unwindIter is one run of an $unwind stage.
type unwindIter struct {
	*unwindStage
	up      iter
	pending []bson.D
}

func (u *unwindIter) next(ctx context.Context) (bson.D, error) {
	for len(u.pending) == 0 {
		d, err := u.up.next(ctx)
		if err != nil || d == nil {
			return nil, err
		}
		u.pending = u.unwind(d, u.pending[:0])
	}
	d := u.pending[0]
	u.pending = u.pending[1:]
	return d, nil
}

// unwind appends the documents d unwinds to.
func (u *unwindStage) unwind(d bson.D, out []bson.D) []bson.D {
	v, found := plainGet(d, u.path)
	arr, isArr := v.(bson.A)
	switch {
	case isArr && len(arr) > 0:
		for i, el := range arr {
			nd := setPath(d, u.path, el)
			if u.index != nil {
				nd = setPath(nd, u.index, int64(i))
			}
			out = append(out, nd)
		}
		return out
	case (isArr || !found || nullish(v)) && !u.preserve:
		return out
	}
	// A non-array value unwinds to itself; preserved null and missing
	// stay as they are, and a preserved empty array is removed, as mongod
	// does (unwind_preserve_null_and_empty_arrays.js: {x: []} comes out
	// as {_id: 0}).
	if isArr {
		d = removePath(d, u.path)
	}
	if u.index != nil {
		d = setPath(d, u.index, nil)
	}
	return append(out, d)
}

// skipLimit is $skip (skip > 0) or $limit.
type skipLimit struct {
	up          iter
	skip, limit int64
	n           int64
}

// parseSkipLimit reads $skip's and $limit's argument as mongod 5.0 and
// later do: any non-negative 64-bit integer, as an int, a long, or a
// whole double or decimal in range; anything else is 5107200 ($skip)
// or 5107201 ($limit), and $limit 0 is 15958.
func parseSkipLimit(name string, arg any) (stageSpec, error) {
	n, ok := int64(0), false
	switch x := arg.(type) {
	case int32:
		n, ok = int64(x), true
	case int64:
		n, ok = x, true
	case float64:
		if x == math.Trunc(x) && x >= -(1<<63) && x < 1<<63 {
			n, ok = int64(x), true
		}
	case bson.Decimal128:
		n, ok = query.DecimalTruncInt64(x)
		ok = ok && document.Compare(x, n) == 0 // whole
	}
	if !ok || n < 0 {
		code := document.Code(5107200)
		if name == "$limit" {
			code = 5107201
		}
		return stageSpec{}, document.Errorf(code, "invalid argument to %s stage: Expected a non-negative integer that fits a 64-bit number, got %s", name, document.Format(arg))
	}
	if name == "$skip" {
		return stageSpec{name: name, spec: n, make: func(up iter, _ *Options) iter { return &skipLimit{up: up, skip: n} }}, nil
	}
	if n <= 0 {
		return stageSpec{}, document.Errorf(document.Code(15958), "the limit must be positive")
	}
	return stageSpec{name: name, spec: n, make: func(up iter, _ *Options) iter { return &skipLimit{up: up, limit: n} }}, nil
}

func (s *skipLimit) next(ctx context.Context) (bson.D, error) {
	if s.limit > 0 {
		if s.n >= s.limit {
			return nil, nil // reads nothing more from upstream
		}
		s.n++
		return s.up.next(ctx)
	}
	for ; s.n < s.skip; s.n++ {
		d, err := s.up.next(ctx)
		if err != nil || d == nil {
			return nil, err
		}
	}
	return s.up.next(ctx)
}

// sortStage reads every document on its first next and returns them
// sorted, spilling sorted runs to disk past the memory limit when the
// run allows it (Options.Spill).
type sortStage struct {
	up   iter
	o    *Options
	s    *query.Sort
	it   *extsort.Iter
	read bool
}

func parseSort(arg any) (stageSpec, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return stageSpec{}, document.Errorf(document.Code(15973), "the $sort key specification must be an object")
	}
	if len(spec) == 0 {
		return stageSpec{}, document.Errorf(document.Code(15976), "$sort stage must have at least one sort key")
	}
	s, err := query.ParseSort(spec)
	if err != nil {
		return stageSpec{}, err
	}
	return stageSpec{name: "$sort", spec: spec, make: func(up iter, o *Options) iter {
		return &sortStage{up: up, o: o, s: s.Collate(o.Collator)}
	}}, nil
}

func (s *sortStage) next(ctx context.Context) (bson.D, error) {
	if !s.read {
		s.read = true
		srt := &extsort.Sorter{Compare: s.s.Compare, SortBuf: s.s.SortDocs, Size: ApproxSize, MaxBytes: s.o.sortBytes(), Dir: s.o.SpillDir, NoSpill: !s.o.Spill}
		err := drain(ctx, s.up, func(d bson.D) error {
			if err := s.s.CheckParallelArrays(d); err != nil {
				return err
			}
			if err := srt.Add(d); err != nil {
				if errors.Is(err, extsort.ErrMemory) {
					return sortMemoryErr(s.o)
				}
				return err
			}
			return nil
		})
		if err != nil {
			srt.Close()
			return nil, err
		}
		if s.it, err = srt.Sort(); err != nil {
			return nil, err
		}
	}
	return s.it.Next()
}

// sortMemoryErr is mongod's refusal of a sort past its memory limit
// that may not spill (allowDiskUse: false).
func sortMemoryErr(o *Options) error {
	return document.Errorf(codeMemoryLimit, "Sort exceeded memory limit of %d bytes, but did not opt in to external sorting.", o.sortBytes())
}

// sortBytes is $sort's memory limit.
func (o *Options) sortBytes() int64 {
	if o.MaxSortBytes > 0 {
		return o.MaxSortBytes
	}
	return o.MaxMemoryBytes
}

// holder collects the documents a stage holds ($facet's input, the
// foreign documents of $lookup's pipeline form and of $unionWith),
// within the pipeline's memory limit: 292 past it.
type holder struct {
	stage string
	o     *Options
	docs  []bson.D
	held  int64
}

func (h *holder) add(d bson.D) error {
	if h.held += approxSize(d); h.held > h.o.MaxMemoryBytes {
		return memoryErr(h.stage, h.o)
	}
	h.docs = append(h.docs, d)
	return nil
}

func memoryErr(stage string, o *Options) error {
	return document.Errorf(codeMemoryLimit, "Exceeded memory limit for %s, but didn't allow external spilling; ttlkv holds %s in memory and allows %d bytes", stage, stage, o.MaxMemoryBytes)
}

// ApproxSize is a cheap estimate of a document's memory footprint, as
// the blocking stages count it against their limit.
func ApproxSize(d bson.D) int64 { return approxSize(d) }

// approxSize is a cheap estimate of a value's memory footprint.
func approxSize(v any) int64 {
	switch x := v.(type) {
	case bson.D:
		n := int64(24)
		for _, el := range x {
			n += int64(len(el.Key)) + 16 + approxSize(el.Value)
		}
		return n
	case bson.A:
		n := int64(24)
		for _, el := range x {
			n += 16 + approxSize(el)
		}
		return n
	case string:
		return int64(len(x)) + 16
	case bson.Binary:
		return int64(len(x.Data)) + 32
	case topBottomValue:
		return approxSize(x.out) + approxSize(x.key)
	}
	return 16
}

// countStage is $count: one document {name: n} when n > 0.
type countStage struct {
	up   iter
	name string
	done bool
}

func parseCount(arg any) (stageSpec, error) {
	s, ok := arg.(string)
	switch {
	case !ok:
		return stageSpec{}, document.Errorf(document.Code(40156), "the count field must be a non-empty string")
	case s == "":
		return stageSpec{}, document.Errorf(document.Code(40157), "the count field must be a non-empty string")
	case strings.HasPrefix(s, "$"):
		return stageSpec{}, document.Errorf(document.Code(40158), "the count field cannot be a $-prefixed path")
	case strings.Contains(s, "\x00"):
		return stageSpec{}, document.Errorf(document.Code(40159), "the count field cannot contain a null byte")
	case strings.Contains(s, "."):
		return stageSpec{}, document.Errorf(document.Code(40160), "the count field cannot contain '.'")
	case s == "_id":
		// mongod makes $count a $group {_id: null, <name>: {$sum: 1}},
		// which names _id twice.
		return stageSpec{}, document.Errorf(document.Code(15948), "a group's _id may only be specified once")
	}
	return stageSpec{name: "$count", spec: s, make: func(up iter, _ *Options) iter { return &countStage{up: up, name: s} }}, nil
}

func (c *countStage) next(ctx context.Context) (bson.D, error) {
	if c.done {
		return nil, nil
	}
	c.done = true
	var n int64
	if err := drain(ctx, c.up, func(bson.D) error { n++; return nil }); err != nil {
		return nil, err
	}
	if n == 0 {
		return nil, nil
	}
	var v any = n
	if n <= 1<<31-1 {
		v = int32(n)
	}
	return bson.D{{Key: c.name, Value: v}}, nil
}

// drain reads every document of up into fn, checking ctx as it goes so
// that a stage reading its whole input stops when the operation is
// cancelled.
func drain(ctx context.Context, up iter, fn func(bson.D) error) error {
	for n := 1; ; n++ {
		if err := checkCtx(ctx, n); err != nil {
			return err
		}
		d, err := up.next(ctx)
		if err != nil || d == nil {
			return err
		}
		if err := fn(d); err != nil {
			return err
		}
	}
}

// checkCtx returns ctx's error every 1024th call.
func checkCtx(ctx context.Context, n int) error {
	if n%1024 == 0 {
		return ctx.Err()
	}
	return nil
}

// positionalPath reports whether a projection names a path ending in
// the positional "$" (a.$), at any depth of its sub-projections: find's
// positional projection, which aggregation refuses (31324).
func positionalPath(spec bson.D) bool {
	for _, el := range spec {
		if strings.HasSuffix(el.Key, ".$") {
			return true
		}
		if sub, ok := el.Value.(bson.D); ok && len(sub) > 0 && !strings.HasPrefix(sub[0].Key, "$") && positionalPath(sub) {
			return true
		}
	}
	return false
}

// conflictingPaths finds two paths of a flattened specification one of
// which is a prefix of the other (p and p.q), in the order given: the
// first and the later. mongod refuses such a $set or $addFields (40176)
// and such a $project (31249, 31250).
func conflictingPaths(ops []pathOp) (first, later []string, found bool) {
	for j := range ops {
		for i := range j {
			a, b := ops[i].path, ops[j].path
			n := min(len(a), len(b))
			if slices.Equal(a[:n], b[:n]) {
				return a, b, true
			}
		}
	}
	return nil, nil, false
}

// dottedInSubObject refuses, as mongod's $set and $addFields do (40183),
// a dotted field name inside a sub-object of the specification ({p:
// {"q.r": 1}}); inSub is whether spec is one.
func dottedInSubObject(spec bson.D, inSub bool) error {
	for _, el := range spec {
		if inSub && strings.Contains(el.Key, ".") {
			return document.Errorf(document.Code(40183), "cannot use dotted field name '%s' in a sub object: %s", el.Key, document.Format(spec))
		}
		if sub, ok := el.Value.(bson.D); ok && len(sub) > 0 && !strings.HasPrefix(sub[0].Key, "$") {
			if err := dottedInSubObject(sub, true); err != nil {
				return err
			}
		}
	}
	return nil
}
