package agg

import (
	"context"
	"math"
	"math/big"
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/extsort"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// accumulator folds the values of one output field of a group.
type accumulator interface {
	add(v any) error
	result() any
}

// sized is an accumulator that reports what it holds, in bytes, for the
// $group's memory bound.
type sized interface{ size() int64 }

type accSpec struct {
	field string
	op    string
	// arg evaluates the accumulator's argument for one document ($top
	// and the others take the document's sort key with it).
	arg func(e *Env) (any, error)
	// n is the n-family's n, evaluated once for each group (nil: not one
	// of them); nReads is set when it reads more than constants (the
	// group key), which $bucketAuto refuses; make makes a group's
	// accumulator.
	n      Expr
	nReads bool
	make   func(n int64, c *collation.Collator) accumulator
	// startEnv, when set, makes a group's accumulator from the group's
	// env instead of make ($accumulator: init runs then).
	startEnv func(env *Env) (accumulator, error)
}

type groupSpec struct {
	id   Expr
	accs []accSpec
}

func parseGroup(arg any, sc pdepth) (stageSpec, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return stageSpec{}, document.Errorf(document.Code(15947), "a group's fields must be specified in an object")
	}
	g := &groupSpec{}
	for _, el := range spec {
		if el.Key == "_id" {
			if g.id != nil {
				return stageSpec{}, document.Errorf(document.Code(15948), "a group's _id may only be specified once")
			}
			e, err := parseExpr(el.Value, sc)
			if err != nil {
				return stageSpec{}, err
			}
			g.id = e
			continue
		}
		a, err := parseAccField(el, sc)
		if err != nil {
			return stageSpec{}, err
		}
		g.accs = append(g.accs, a)
	}
	if g.id == nil {
		return stageSpec{}, document.Errorf(document.Code(15955), "a group specification must include an _id")
	}
	return stageSpec{name: "$group", spec: spec, make: func(up iter, o *Options) iter {
		return &groupStage{up: up, o: o, g: g, groups: map[string]*group{}}
	}}, nil
}

// parseAccField parses one output field of a $group (or $bucketAuto):
// {name: {accumulator: expression}}.
func parseAccField(el bson.E, sc pdepth) (accSpec, error) {
	if strings.Contains(el.Key, ".") {
		return accSpec{}, document.Errorf(document.Code(40235), "The field name '%s' cannot contain '.'", el.Key)
	}
	if strings.HasPrefix(el.Key, "$") {
		return accSpec{}, document.Errorf(document.Code(40236), "The field name '%s' cannot be an operator name", el.Key)
	}
	ad, ok := el.Value.(bson.D)
	if !ok || len(ad) != 1 {
		return accSpec{}, document.Errorf(document.Code(40234), "The field '%s' must be an accumulator object", el.Key)
	}
	op := ad[0].Key
	argV := ad[0].Value
	if _, ok := nOps[op]; ok {
		a, err := parseNArgs(op, argV, sc)
		if err != nil {
			return accSpec{}, err
		}
		nReads := false
		if a.nRaw != nil {
			_, isConst, _ := constantOf(a.nRaw, a.n, sc)
			nReads = !isConst
		}
		return accSpec{field: el.Key, op: op, n: a.n, nReads: nReads, arg: a.arg, make: func(n int64, c *collation.Collator) accumulator {
			return newKeepN(op, n, a.sort, c)
		}}, nil
	}
	if op == "$accumulator" {
		return parseJSAccumulator(el.Key, argV, sc)
	}
	if op == "$percentile" || op == "$median" {
		a, err := parsePctArgs(op, argV, true, sc)
		if err != nil {
			return accSpec{}, err
		}
		return accSpec{field: el.Key, op: op, arg: a.input.Eval, make: func(int64, *collation.Collator) accumulator { return newPctAcc(a) }}, nil
	}
	if newAcc(op, nil) == nil {
		return accSpec{}, document.Errorf(document.Code(15952), "unknown group operator '%s'", op)
	}
	if op == "$count" {
		if d, ok := argV.(bson.D); !ok || len(d) != 0 {
			return accSpec{}, document.Errorf(document.CodeTypeMismatch, "$count takes no arguments, i.e. $count:{}")
		}
		argV = int32(1)
	} else if _, isArr := argV.(bson.A); isArr {
		return accSpec{}, document.Errorf(document.Code(40237), "The %s accumulator is a unary operator", op)
	}
	e, err := parseExpr(argV, sc)
	if err != nil {
		return accSpec{}, err
	}
	return plainAcc(el.Key, op, e), nil
}

// start makes the accumulator of a new group; env is what an
// n-accumulator's n is evaluated against.
func (a accSpec) start(env *Env) (accumulator, error) {
	if a.startEnv != nil {
		return a.startEnv(env)
	}
	var n int64
	if a.n != nil {
		nv, err := a.n.Eval(env)
		if err != nil {
			return nil, err
		}
		if n, err = validateN(nv); err != nil {
			return nil, err
		}
	}
	return a.make(n, env.coll), nil
}

// plainAcc is the accSpec of an accumulator that is not of the n-family:
// op over expr.
func plainAcc(field, op string, expr Expr) accSpec {
	return accSpec{field: field, op: op, arg: expr.Eval, make: func(_ int64, c *collation.Collator) accumulator { return newAcc(op, c) }}
}

// newAcc is a new accumulator op comparing values under c (nil:
// simple): $min, $max, $addToSet and $setUnion compare.
func newAcc(op string, c *collation.Collator) accumulator {
	switch op {
	case "$sum", "$count":
		return &sumAcc{}
	case "$avg":
		return &avgAcc{}
	case "$min":
		return &minMaxAcc{max: false, coll: c}
	case "$max":
		return &minMaxAcc{max: true, coll: c}
	case "$first":
		return &firstAcc{}
	case "$last":
		return &lastAcc{}
	case "$push":
		return &pushAcc{list: bson.A{}}
	case "$addToSet":
		return &setAcc{seen: map[string]bool{}, list: bson.A{}, coll: c}
	case "$stdDevPop":
		return &stdDevAcc{}
	case "$stdDevSamp":
		return &stdDevAcc{sample: true}
	case "$mergeObjects":
		return &mergeAcc{}
	case "$concatArrays", "$setUnion":
		return newArrayAcc(op, c) // mongod 8.1's accumulators (window_arrays.go)
	}
	return nil
}

type group struct {
	key  string // collKey of id under the run's collation
	id   any
	accs []accumulator
}

// groupStage reads every document on its first next and then returns
// the groups in the order their keys first appeared; past its memory
// limit it spills them to disk (group_spill.go) and returns them in the
// order of their keys.
type groupStage struct {
	up     iter
	read   bool
	o      *Options
	g      *groupSpec
	groups map[string]*group
	order  []*group
	mem    int64
	// runs holds the spilled groups (nil: none); merged reads them back
	// merged, pending is the first state of the next key.
	runs    *extsort.Sorter
	merged  *extsort.Iter
	pending bson.D
}

func (s *groupStage) next(ctx context.Context) (bson.D, error) {
	if !s.read {
		s.read = true
		if err := drain(ctx, s.up, s.add); err != nil {
			if s.runs != nil {
				s.runs.Close()
			}
			return nil, err
		}
		if s.runs != nil {
			if err := s.mergeRuns(); err != nil {
				return nil, err
			}
		}
	}
	if s.merged != nil {
		return s.nextMerged(ctx)
	}
	if len(s.order) == 0 {
		return nil, nil
	}
	gr := s.order[0]
	s.order = s.order[1:]
	d := make(bson.D, 0, 1+len(gr.accs))
	d = append(d, bson.E{Key: "_id", Value: gr.id})
	for i, a := range s.g.accs {
		v, err := accResult(gr.accs[i])
		if err != nil {
			return nil, err
		}
		d = append(d, bson.E{Key: a.field, Value: v})
	}
	return d, nil
}

func (s *groupStage) add(d bson.D) error {
	env := s.o.env(d)
	id, err := s.g.id.Eval(env)
	if err != nil {
		return err
	}
	if isMissing(id) {
		id = nil
	}
	k := collKey(s.o.Collator, id)
	gr := s.groups[k]
	if gr == nil {
		gr = &group{key: k, id: id, accs: make([]accumulator, len(s.g.accs))}
		// An n-accumulator's n is evaluated against the group's key
		// when the key is a document, else against an empty one.
		keyDoc, _ := id.(bson.D)
		keyEnv := s.o.env(keyDoc)
		for i, a := range s.g.accs {
			acc, err := a.start(keyEnv)
			if err != nil {
				return err
			}
			gr.accs[i] = acc
		}
		s.groups[k] = gr
		s.order = append(s.order, gr)
		s.mem += int64(len(k)) + approxSize(id) + 64*int64(len(gr.accs))
	}
	for i, a := range s.g.accs {
		v, err := a.arg(env)
		if err != nil {
			return err
		}
		if (a.op == "$push" || a.op == "$addToSet") && !isMissing(v) {
			s.mem += approxSize(v)
		}
		acc := gr.accs[i]
		sz, isSized := acc.(sized)
		if isSized {
			s.mem -= sz.size()
		}
		if err := acc.add(v); err != nil {
			return err
		}
		if isSized {
			s.mem += sz.size()
		}
	}
	if s.mem > s.o.groupBytes() {
		if s.o.Spill && s.canSpill() {
			return s.spill()
		}
		return memoryErr("$group", s.o)
	}
	return nil
}

// GroupKey returns a string equal for values that are equal under BSON
// comparison (1, NumberLong(1) and 1.0 alike), for grouping and sets.
func GroupKey(v any) string {
	var b strings.Builder
	groupKey(&b, v, 0)
	return b.String()
}

func groupKey(b *strings.Builder, v any, depth int) {
	if depth > maxExprDepth {
		b.WriteString("…")
		return
	}
	switch x := v.(type) {
	case nil, bson.Null, bson.Undefined, Missing:
		b.WriteString("n;")
	case bson.D:
		b.WriteString("{")
		for _, el := range x {
			b.WriteString(strconv.Quote(el.Key))
			b.WriteString(":")
			groupKey(b, el.Value, depth+1)
		}
		b.WriteString("}")
	case bson.A:
		b.WriteString("[")
		for _, el := range x {
			groupKey(b, el, depth+1)
		}
		b.WriteString("]")
	case string:
		b.WriteString("s")
		b.WriteString(strconv.Quote(x))
	default:
		if document.IsNumber(v) {
			b.WriteString("#")
			b.WriteString(numberKey(v))
			b.WriteString(";")
			return
		}
		b.WriteString(strconv.Itoa(document.TypeNumber(v)))
		b.WriteString(":")
		b.WriteString(document.Format(v))
		b.WriteString(";")
	}
}

// numberKey renders a number so that equal values of any numeric type
// render alike: the exact rational value (doubles and decimals convert
// exactly), or nan, inf and -inf.
func numberKey(v any) string {
	var r big.Rat
	switch x := v.(type) {
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		switch {
		case math.IsNaN(x):
			return "nan"
		case math.IsInf(x, 1):
			return "inf"
		case math.IsInf(x, -1):
			return "-inf"
		}
		r.SetFloat64(x)
	case bson.Decimal128:
		bi, exp, err := x.BigInt()
		if err != nil {
			switch s := x.String(); s {
			case "Infinity":
				return "inf"
			case "-Infinity":
				return "-inf"
			default:
				return "nan"
			}
		}
		r.SetInt(bi)
		scale := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil))
		if exp >= 0 {
			r.Mul(&r, scale)
		} else {
			r.Quo(&r, scale)
		}
	default:
		return document.Format(v)
	}
	return r.RatString()
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// sumAcc is $sum: mongod's summation (summer.go).
type sumAcc struct{ s summer }

func (a *sumAcc) add(v any) error {
	a.s.add(v)
	return nil
}
func (a *sumAcc) result() any { return a.s.result() }

// avgAcc is $avg: the sum as $sum makes it, over the count of numbers;
// a double, or a decimal once one was seen.
type avgAcc struct {
	s summer
	n int64
}

func (a *avgAcc) add(v any) error {
	if !document.IsNumber(v) {
		return nil
	}
	a.s.add(v)
	a.n++
	return nil
}

func (a *avgAcc) result() any {
	if a.n == 0 {
		return nil
	}
	if a.s.rank == 4 {
		return query.DecimalDiv(a.s.decimal(), a.n)
	}
	return a.s.double() / float64(a.n)
}

type minMaxAcc struct {
	max  bool
	v    any
	set  bool
	coll *collation.Collator
}

func (a *minMaxAcc) add(v any) error {
	if nullish(v) {
		return nil
	}
	c := 0
	if a.set {
		c = a.coll.CompareValues(v, a.v)
	}
	if !a.set || (a.max && c > 0) || (!a.max && c < 0) {
		a.v, a.set = v, true
	}
	return nil
}

func (a *minMaxAcc) result() any { return a.v }

type firstAcc struct {
	v   any
	set bool
}

func (a *firstAcc) add(v any) error {
	if !a.set {
		if isMissing(v) {
			v = nil
		}
		a.v, a.set = v, true
	}
	return nil
}
func (a *firstAcc) result() any { return a.v }

type lastAcc struct{ v any }

func (a *lastAcc) add(v any) error {
	if isMissing(v) {
		v = nil
	}
	a.v = v
	return nil
}
func (a *lastAcc) result() any { return a.v }

// maxAccBytes is how much one $push or $addToSet may hold, as mongod's
// internalQueryMaxPushBytes and internalQueryMaxAddToSetBytes (100 MiB):
// past it the group fails (146), whatever its own limit.
const maxAccBytes = 100 << 20

type pushAcc struct {
	list bson.A
	size int64
}

func (a *pushAcc) add(v any) error {
	if !isMissing(v) {
		if a.size += approxSize(v); a.size > maxAccBytes {
			return document.Errorf(document.CodeExceededMemoryLimit, "$push used too much memory and cannot spill to disk. Memory limit: %d bytes", maxAccBytes)
		}
		a.list = append(a.list, v)
	}
	return nil
}
func (a *pushAcc) result() any { return a.list }

type setAcc struct {
	seen map[string]bool
	list bson.A
	coll *collation.Collator
	size int64
}

func (a *setAcc) add(v any) error {
	if isMissing(v) {
		return nil
	}
	k := collKey(a.coll, v)
	if !a.seen[k] {
		if a.size += approxSize(v); a.size > maxAccBytes {
			return document.Errorf(document.CodeExceededMemoryLimit, "$addToSet used too much memory and cannot spill to disk. Memory limit: %d bytes", maxAccBytes)
		}
		a.seen[k] = true
		a.list = append(a.list, v)
	}
	return nil
}
func (a *setAcc) result() any { return a.list }

// stdDevAcc is Welford's running variance.
type stdDevAcc struct {
	sample   bool
	n        int64
	mean, m2 float64
}

func (a *stdDevAcc) add(v any) error {
	if !document.IsNumber(v) {
		return nil
	}
	x := query.ToFloat(v)
	a.n++
	d := x - a.mean
	a.mean += d / float64(a.n)
	a.m2 += d * (x - a.mean)
	return nil
}

func (a *stdDevAcc) result() any {
	switch {
	case a.n == 0, a.sample && a.n == 1:
		return nil
	case a.sample:
		return math.Sqrt(a.m2 / float64(a.n-1))
	}
	return math.Sqrt(a.m2 / float64(a.n))
}

func parseSortByCount(arg any, sc pdepth) (stageSpec, error) {
	switch x := arg.(type) {
	case string:
		// ("$" alone passes here and is refused as a field path, 16872,
		// as in mongod 7.0.)
		if !strings.HasPrefix(x, "$") {
			return stageSpec{}, document.Errorf(document.Code(40148), "the sortByCount field must be defined as a $-prefixed path or an expression inside an object")
		}
	case bson.D:
		// mongod looks at the first field only; the expression parser
		// refuses the rest.
		if len(x) == 0 || !strings.HasPrefix(x[0].Key, "$") {
			return stageSpec{}, document.Errorf(document.Code(40147), "the sortByCount field must be defined as a $-prefixed path or an expression inside an object")
		}
	default:
		return stageSpec{}, document.Errorf(document.Code(40149), "the sortByCount field must be specified as a string or as an object")
	}
	g, err := parseGroup(bson.D{{Key: "_id", Value: arg}, {Key: "count", Value: bson.D{{Key: "$sum", Value: int32(1)}}}}, sc)
	if err != nil {
		return stageSpec{}, err
	}
	s, err := parseSort(bson.D{{Key: "count", Value: int32(-1)}})
	if err != nil {
		return stageSpec{}, err
	}
	return stageSpec{name: "$sortByCount", spec: arg, make: func(up iter, o *Options) iter {
		return s.make(g.make(up, o), o)
	}}, nil
}
