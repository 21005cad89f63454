package agg

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $setWindowFields: {partitionBy, sortBy, output: {path: {$fn: arg,
// window: {documents | range [, unit]}}}}. The stage reads its whole
// input (mongod sorts it by partition key and sortBy first), orders it
// by partition key and then sortBy, and adds to each document the value
// of each output's window function over the document's window.

// windowSpec is a parsed $setWindowFields stage.
type windowSpec struct {
	partition Expr        // nil: one partition
	sortBy    *query.Sort // nil: no sortBy
	sortPath  []string    // the single sortBy field, for range windows and $derivative
	outputs   []windowOutput
	sc        pdepth // where the stage is parsed: a command let's constants for the bounds
}

type windowOutput struct {
	path []string
	fn   windowFunc
}

// windowFunc is a parsed window function; start returns its state over
// one partition.
type windowFunc interface {
	start(p *partition) windowState
}

// windowState computes a window function for the documents of one
// partition, asked for in order (0, 1, 2, ...).
type windowState interface {
	value(i int) (any, error)
}

// partition is one partition's documents in window order, with the
// values the functions read from them, computed once.
type partition struct {
	docs   []bson.D
	spec   *windowSpec
	o      *Options
	h      *holder
	held   int64 // what input has added to h.held
	sortVs []any
}

// input returns e over every document of the partition, counting what it
// computes against the stage's memory.
func (p *partition) input(e Expr) ([]any, error) {
	vs := make([]any, len(p.docs))
	for i := range p.docs {
		v, err := p.eval(e, i)
		if err != nil {
			return nil, err
		}
		sz := approxSize(v)
		p.held += sz
		if p.h.held += sz; p.h.held > p.o.MaxMemoryBytes {
			return nil, memoryErr(p.h.stage, p.o)
		}
		vs[i] = v
	}
	return vs, nil
}

// eval returns e over document j of the partition.
func (p *partition) eval(e Expr, j int) (any, error) {
	return e.Eval(p.o.env(p.docs[j]))
}

// sortValues returns the single sortBy field of every document.
func (p *partition) sortValues() []any {
	if p.sortVs == nil {
		p.sortVs = make([]any, len(p.docs))
		for i, d := range p.docs {
			if v := evalPath(d, p.spec.sortPath); !isMissing(v) {
				p.sortVs[i] = v
			}
		}
	}
	return p.sortVs
}

func parseSetWindowFields(arg any, sc pdepth) (stageSpec, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return stageSpec{}, document.Errorf(document.CodeFailedToParse, "the $setWindowFields stage specification must be an object, found %s", document.TypeName(arg))
	}
	w := &windowSpec{sc: sc}
	var output bson.D
	haveOutput := false
	for _, el := range spec {
		switch el.Key {
		case "partitionBy":
			e, err := parseExpr(el.Value, sc)
			if err != nil {
				return stageSpec{}, err
			}
			c, ok, err := constantOf(el.Value, e, sc)
			if err != nil {
				return stageSpec{}, err
			}
			if ok {
				if _, isArr := c.(bson.A); isArr {
					return stageSpec{}, document.Errorf(document.CodeTypeMismatch, "An expression used to partition cannot evaluate to value of type array")
				}
				continue // a constant partitions nothing
			}
			w.partition = e
		case "sortBy":
			sd, ok := el.Value.(bson.D)
			if !ok {
				return stageSpec{}, document.Errorf(document.CodeTypeMismatch, "BSON field '$setWindowFields.sortBy' is the wrong type '%s', expected type 'object'", document.TypeName(el.Value))
			}
			s, err := query.ParseSort(sd)
			if err != nil {
				return stageSpec{}, err
			}
			if _, natural := s.NaturalOrder(); natural {
				return stageSpec{}, document.Errorf(document.CodeBadValue, "$natural is not a valid sortBy for $setWindowFields")
			}
			w.sortBy = s
			if keys := s.Keys(); len(keys) == 1 {
				w.sortPath = strings.Split(keys[0].Path, ".")
			}
		case "output":
			od, ok := el.Value.(bson.D)
			if !ok {
				return stageSpec{}, document.Errorf(document.CodeTypeMismatch, "BSON field '$setWindowFields.output' is the wrong type '%s', expected type 'object'", document.TypeName(el.Value))
			}
			output, haveOutput = od, true
		default:
			return stageSpec{}, document.Errorf(document.CodeIDLUnknownField, "BSON field '$setWindowFields.%s' is an unknown field.", el.Key)
		}
	}
	if !haveOutput {
		return stageSpec{}, document.Errorf(document.CodeIDLFailedToParse, "BSON field '$setWindowFields.output' is missing but a required field")
	}
	var paths [][]string
	for _, el := range output {
		fp, err := parseFieldPath(el.Key)
		if err != nil {
			return stageSpec{}, err
		}
		path := fp.(fieldPath).parts
		for _, q := range paths {
			n := min(len(q), len(path))
			if slices.Equal(q[:n], path[:n]) {
				return stageSpec{}, document.Errorf(document.Code(6307900), "$setWindowFields 'output' specification contains two conflicting paths")
			}
		}
		paths = append(paths, path)
		fd, ok := el.Value.(bson.D)
		if !ok {
			return stageSpec{}, document.Errorf(document.CodeFailedToParse, "The field '%s' must be an object", el.Key)
		}
		fn, err := parseWindowFunc(fd, w, sc)
		if err != nil {
			return stageSpec{}, err
		}
		w.outputs = append(w.outputs, windowOutput{path: path, fn: fn})
	}
	return stageSpec{name: "$setWindowFields", spec: spec, make: func(up iter, o *Options) iter {
		if o.Collator != nil { // sortBy orders strings under the run's collation
			cw := *w
			cw.sortBy = w.sortBy.Collate(o.Collator)
			return &windowIter{w: &cw, up: up, o: o}
		}
		return &windowIter{w: w, up: up, o: o}
	}}, nil
}

// windowParsers are the window functions ttlkv runs, by name.
var windowParsers map[string]func(name string, spec bson.D, w *windowSpec, sc pdepth) (windowFunc, error)

func init() {
	windowParsers = map[string]func(string, bson.D, *windowSpec, pdepth) (windowFunc, error){
		"$count": parseWindowCount, "$first": parseWindowFirstLast, "$last": parseWindowFirstLast,
		"$rank": parseWindowRank, "$denseRank": parseWindowRank, "$documentNumber": parseWindowRank,
		"$shift": parseWindowShift, "$derivative": parseWindowDerivative, "$integral": parseWindowIntegral,
		"$expMovingAvg": parseWindowExpMovingAvg, "$locf": parseWindowLocf, "$linearFill": parseWindowLinearFill,
		"$percentile": parseWindowPct, "$median": parseWindowPct, "$minMaxScaler": parseWindowScaler,
	}
	for op := range nOps {
		windowParsers[op] = parseWindowN
	}
	for _, op := range []string{"$sum", "$avg", "$min", "$max", "$push", "$addToSet", "$stdDevPop", "$stdDevSamp", "$covariancePop", "$covarianceSamp", "$concatArrays", "$setUnion", "$mergeObjects"} {
		windowParsers[op] = parseWindowAcc
	}
}

func errParse(format string, args ...any) error {
	return document.Errorf(document.CodeFailedToParse, format, args...)
}

// parseWindowFunc finds the window function of an output field: the
// first $-prefixed field must name one.
func parseWindowFunc(fd bson.D, w *windowSpec, sc pdepth) (windowFunc, error) {
	for _, el := range fd {
		if !strings.HasPrefix(el.Key, "$") {
			continue
		}
		p, ok := windowParsers[el.Key]
		if !ok {
			return nil, errParse("Unrecognized window function, %s", el.Key)
		}
		return p(el.Key, fd, w, sc)
	}
	if len(fd) == 0 {
		return nil, errParse("Expected a $-prefixed window function")
	}
	return nil, errParse("Expected a $-prefixed window function, %s", fd[0].Key)
}

// functionArgs reads {$fn: arg, window: {...}} as the accumulator-like
// window functions do: the function's argument and the bounds (whole
// partition by default).
func functionArgs(fd bson.D, w *windowSpec) (name string, arg any, b windowBounds, err error) {
	for _, el := range fd {
		switch {
		case el.Key == "window":
			if b, err = parseWindowBounds(el.Value, w); err != nil {
				return "", nil, b, err
			}
		case windowParsers[el.Key] != nil:
			if name != "" {
				return "", nil, b, errParse("Cannot specify two functions in window function spec")
			}
			name, arg = el.Key, el.Value
		default:
			return "", nil, b, errParse("Window function found an unknown argument: %s", el.Key)
		}
	}
	if name == "" {
		return "", nil, b, errParse("Must specify a window function in output field")
	}
	return name, arg, b, nil
}

// accWindow is an accumulator over a window: one of $group's, or
// $covariancePop/$covarianceSamp, or $integral.
type accWindow struct {
	mk     func(c *collation.Collator) accumulator // a fresh accumulator comparing under c
	input  Expr
	bounds windowBounds
	check  func(v any) error                // refuses an input (nil: any will do)
	finish func(acc accumulator, r any) any // adjusts the result (nil: none)
}

// Where a window's start moves, mongod folds it with its removable
// functions, which differ from $group's in three results: a sum gives a
// long that fits an int as an int, $addToSet gives its values in BSON
// order, and $stdDevPop of one number is the int 0. From the partition's
// start it uses $group's.

// sumWindow is $sum (and $count) over b.
func sumWindow(input Expr, b windowBounds) *accWindow {
	a := &accWindow{mk: groupAcc("$sum"), input: input, bounds: b}
	if b.lo.kind != boundUnbounded {
		a.mk = newSlidingSum("$sum")
		a.finish = func(_ accumulator, r any) any {
			if n, ok := r.(int64); ok {
				return intOrLong(n)
			}
			return r
		}
	}
	return a
}

// bsonOrdered orders an $addToSet result, under its collation.
func bsonOrdered(acc accumulator, r any) any {
	a := r.(bson.A)
	slices.SortStableFunc(a, acc.(*setAcc).coll.CompareValues)
	return a
}

func groupAcc(op string) func(*collation.Collator) accumulator {
	return func(c *collation.Collator) accumulator { return newAcc(op, c) }
}

func parseWindowAcc(_ string, fd bson.D, w *windowSpec, sc pdepth) (windowFunc, error) {
	name, arg, b, err := functionArgs(fd, w)
	if err != nil {
		return nil, err
	}
	e, err := parseExpr(arg, sc)
	if err != nil {
		return nil, err
	}
	a := &accWindow{mk: groupAcc(name), input: e, bounds: b}
	switch name {
	case "$sum":
		a = sumWindow(e, b)
	case "$avg":
		if b.lo.kind != boundUnbounded {
			a.mk = newSlidingSum("$avg")
		}
	case "$min", "$max":
		if b.lo.kind != boundUnbounded {
			isMax := name == "$max"
			a.mk = func(c *collation.Collator) accumulator { return &slidingMinMax{max: isMax, coll: c} }
		}
	case "$addToSet":
		if b.lo.kind != boundUnbounded {
			a.finish = bsonOrdered
		}
	case "$stdDevPop":
		if b.lo.kind != boundUnbounded {
			a.finish = func(acc accumulator, r any) any {
				if f, ok := r.(float64); ok && f == 0 && acc.(*stdDevAcc).n == 1 {
					return int32(0) // not a NaN or an infinity
				}
				return r
			}
		}
	case "$covariancePop", "$covarianceSamp":
		samp := name == "$covarianceSamp"
		a.mk = func(*collation.Collator) accumulator { return &covAcc{samp: samp} }
	case "$concatArrays", "$setUnion":
		a.mk = func(c *collation.Collator) accumulator { return newArrayAcc(name, c) }
	}
	return a, nil
}

func parseWindowCount(_ string, fd bson.D, w *windowSpec, _ pdepth) (windowFunc, error) {
	for _, el := range fd {
		if el.Key == "$count" {
			if d, ok := el.Value.(bson.D); !ok || len(d) != 0 {
				return nil, errParse("$count only accepts an empty object as input")
			}
		}
	}
	_, _, b, err := functionArgs(fd, w)
	if err != nil {
		return nil, err
	}
	return sumWindow(literal{int32(1)}, b), nil
}

func (a *accWindow) start(p *partition) windowState {
	return &accState{accWindow: a, p: p}
}

// accState folds the window of the current document. While the window
// keeps its start and only grows at its end (a running total over
// [unbounded, current]), the accumulator carries on from the previous
// document; when the start moves forward too, an accumulator that can
// take values back (a remover: $count, $sum and $avg of whole numbers,
// $min, $max) drops those that left; any other move folds the window
// afresh, which costs its length.
type accState struct {
	*accWindow
	p      *partition
	in     []any
	acc    accumulator
	lo, hi int // acc holds in[lo:hi]
	hint   windowHint
}

func (s *accState) value(i int) (any, error) {
	if s.in == nil {
		in, err := s.p.input(s.input)
		if err != nil {
			return nil, err
		}
		if s.check != nil {
			for _, v := range in {
				if err := s.check(v); err != nil {
					return nil, err
				}
			}
		}
		s.in = in
	}
	lo, hi, ok, err := s.bounds.endpoints(s.p, i, &s.hint)
	if err != nil {
		return nil, err
	}
	if !ok {
		return s.mk(s.p.o.Collator).result(), nil // what the function gives for no input; [] and 0 need no finish
	}
	hi++ // half-open
	if !s.slide(lo, hi) {
		s.acc, s.lo, s.hi = s.mk(s.p.o.Collator), lo, lo
	}
	if err := s.fold(hi); err != nil {
		return nil, err
	}
	if st, ok := s.acc.(staler); ok && st.stale() {
		s.acc, s.hi = s.mk(s.p.o.Collator), lo
		if err := s.fold(hi); err != nil {
			return nil, err
		}
	}
	r := s.acc.result()
	switch x := r.(type) {
	case bson.A:
		r = slices.Clone(x) // the accumulator goes on appending
	case bson.D:
		r = slices.Clone(x) // $mergeObjects goes on setting fields in place
	}
	if s.finish != nil {
		r = s.finish(s.acc, r)
	}
	return r, nil
}

// fold adds the window's values up to hi (exclusive).
func (s *accState) fold(hi int) error {
	for ; s.hi < hi; s.hi++ {
		if err := s.acc.add(s.in[s.hi]); err != nil {
			return err
		}
	}
	return nil
}

// staler is an accumulator that took values back and then met one it
// cannot hold exactly: the window must be folded afresh.
type staler interface {
	stale() bool
}

// slide moves the accumulator's start to lo, when it can: the window
// has not moved back, and the accumulator takes back what leaves it.
func (s *accState) slide(lo, hi int) bool {
	if s.acc == nil || lo < s.lo || hi < s.hi || lo > s.hi {
		return false
	}
	if lo == s.lo {
		return true
	}
	r, ok := s.acc.(remover)
	if !ok {
		return false
	}
	for ; s.lo < lo; s.lo++ {
		if !r.remove(s.in[s.lo]) {
			return false
		}
	}
	return true
}

// remover is an accumulator that can take back the oldest value it
// holds, exactly; false means it cannot, and the window is folded
// afresh.
type remover interface {
	accumulator
	remove(v any) bool
}

// slidingSum is $sum, $count or $avg over a window whose start moves.
// While every number in it is an int or a long it keeps their exact sum
// and takes numbers back; a double or a decimal (whose sums depend on
// their order) or a sum past a long makes it refuse, or go stale if it
// has taken values back, and the window is folded afresh with $group's
// accumulator, which it wraps.
type slidingSum struct {
	avg     bool
	inner   accumulator // what $group's would give; wrong once a value is taken back
	sum     int64
	n       int64 // the numbers in the window
	exact   bool
	removed bool
}

func newSlidingSum(op string) func(*collation.Collator) accumulator {
	return func(*collation.Collator) accumulator {
		return &slidingSum{avg: op == "$avg", inner: newAcc(op, nil), exact: true}
	}
}

// add folds v in; the inner accumulator may refuse it.
func (a *slidingSum) add(v any) error {
	if err := a.inner.add(v); err != nil {
		return err
	}
	a.addValue(v)
	return nil
}

func (a *slidingSum) addValue(v any) {
	if !document.IsNumber(v) {
		return
	}
	a.n++
	x, ok := wholeInt(v)
	if !ok || (x > 0 && a.sum > math.MaxInt64-x) || (x < 0 && a.sum < math.MinInt64-x) {
		a.exact = false
		return
	}
	a.sum += x
}

func (a *slidingSum) remove(v any) bool {
	if !a.exact {
		return false
	}
	if x, ok := wholeInt(v); ok {
		a.sum -= x // within range: it was added to a sum that was
		a.n--
	}
	a.removed = true
	return true
}

func (a *slidingSum) stale() bool { return !a.exact && a.removed }

func (a *slidingSum) result() any {
	switch {
	case !a.exact:
		return a.inner.result()
	case !a.avg:
		return intOrLong(a.sum)
	case a.n == 0:
		return nil
	}
	return float64(a.sum) / float64(a.n)
}

// slidingMinMax is $min or $max over a window whose start moves: a queue
// of the values that can still become the extreme, the earliest of equal
// ones first, as $group's accumulator keeps the first it sees.
type slidingMinMax struct {
	max            bool
	q              []seqValue
	added, removed int64
	coll           *collation.Collator
}

type seqValue struct {
	v   any
	seq int64
}

func (a *slidingMinMax) add(v any) error {
	a.addValue(v)
	return nil
}

func (a *slidingMinMax) addValue(v any) {
	seq := a.added
	a.added++
	if nullish(v) {
		return
	}
	for len(a.q) > 0 {
		c := a.coll.CompareValues(v, a.q[len(a.q)-1].v)
		if (a.max && c <= 0) || (!a.max && c >= 0) {
			break
		}
		a.q = a.q[:len(a.q)-1]
	}
	a.q = append(a.q, seqValue{v: v, seq: seq})
}

func (a *slidingMinMax) remove(any) bool {
	if len(a.q) > 0 && a.q[0].seq == a.removed {
		a.q = a.q[1:]
	}
	a.removed++
	return true
}

func (a *slidingMinMax) result() any {
	if len(a.q) == 0 {
		return nil
	}
	return a.q[0].v
}

// firstLastWindow is $first or $last: the input at the window's first
// or last document (null for a missing field), null for an empty
// window.
type firstLastWindow struct {
	last   bool
	input  Expr
	bounds windowBounds
}

func parseWindowFirstLast(name string, fd bson.D, w *windowSpec, sc pdepth) (windowFunc, error) {
	f := &firstLastWindow{last: name == "$last"}
	var arg any
	for _, el := range fd {
		switch el.Key {
		case "window":
			b, err := parseWindowBounds(el.Value, w)
			if err != nil {
				return nil, err
			}
			f.bounds = b
		case name:
			arg = el.Value
		default:
			return nil, errParse("%s got unexpected argument: %s", name, el.Key)
		}
	}
	e, err := parseExpr(arg, sc)
	if err != nil {
		return nil, err
	}
	f.input = e
	return f, nil
}

func (f *firstLastWindow) start(p *partition) windowState {
	var hint windowHint
	return stateFunc(func(i int) (any, error) {
		lo, hi, ok, err := f.bounds.endpoints(p, i, &hint)
		if err != nil || !ok {
			return nil, err
		}
		if f.last {
			lo = hi
		}
		v, err := p.eval(f.input, lo)
		return orDefault(v, err, nil)
	})
}

// orDefault gives a function's value at a document, or def where that is
// missing: mongod's $first, $last and $shift give their default (null
// unless $shift names one) for a field the document lacks, as for a
// window with no document (jstests/aggregation/sources/setWindowFields/
// shift.js).
func orDefault(v any, err error, def any) (any, error) {
	if err == nil && isMissing(v) {
		return def, nil
	}
	return v, err
}

// stateFunc is a windowState written as a function.
type stateFunc func(i int) (any, error)

func (f stateFunc) value(i int) (any, error) { return f(i) }

// rankWindow is $rank, $denseRank or $documentNumber: the document's
// position in its partition by the single sortBy field.
type rankWindow struct{ name string }

func parseWindowRank(name string, fd bson.D, w *windowSpec, _ pdepth) (windowFunc, error) {
	if len(fd) != 1 {
		return nil, document.Errorf(document.Code(5371601), "Rank style window functions take no other arguments")
	}
	if d, ok := fd[0].Value.(bson.D); !ok || len(d) != 0 {
		return nil, document.Errorf(document.Code(5371603), "%s must be specified with '{}' as the value", name)
	}
	if w.sortBy == nil || len(w.sortBy.Keys()) != 1 {
		return nil, document.Errorf(document.Code(5371602), "%s must be specified with a top level sortBy expression with exactly one element", name)
	}
	return rankWindow{name: name}, nil
}

func (r rankWindow) start(p *partition) windowState {
	var rank, same int64
	return stateFunc(func(i int) (any, error) {
		// Documents tie when sortBy orders them together: null and
		// missing alike, arrays by their sort key.
		tie := i > 0 && p.spec.sortBy.Compare(p.docs[i-1], p.docs[i]) == 0
		switch {
		case r.name == "$documentNumber":
			rank++
		case r.name == "$denseRank":
			if !tie {
				rank++
			}
		case tie:
			same++
		default:
			rank += same + 1
			same = 0
		}
		return intOrLong(rank), nil
	})
}

// intOrLong is n as an int when it fits, else a long (mongod's
// Value::createIntOrLong).
func intOrLong(n int64) any {
	if n >= -1<<31 && n < 1<<31 {
		return int32(n)
	}
	return n
}

// shiftWindow is $shift: {output, by, default}: output at the document
// by places away in the partition, default (null) past its ends or where
// output is missing.
type shiftWindow struct {
	output Expr
	by     int
	def    any
	// defExpr is the default's expression and defVars the constants it
	// reads: a run under a collation evaluates it again under that.
	defExpr Expr
	defVars *binding
}

func parseWindowShift(_ string, fd bson.D, w *windowSpec, sc pdepth) (windowFunc, error) {
	var s *shiftWindow
	for _, el := range fd {
		switch {
		case el.Key == "window":
			return nil, errParse("$shift does not accept a 'window' field")
		case windowParsers[el.Key] != nil:
			if s != nil {
				return nil, errParse("Cannot specify multiple functions in window function spec")
			}
			args, ok := el.Value.(bson.D)
			if !ok {
				return nil, errParse("Argument to $shift must be an object")
			}
			var err error
			if s, err = parseShiftArgs(el.Key, args, sc); err != nil {
				return nil, err
			}
		default:
			return nil, errParse("Window function found an unknown argument: %s", el.Key)
		}
	}
	if w.sortBy == nil {
		return nil, errParse("'$shift' requires a sortBy")
	}
	return s, nil
}

func parseShiftArgs(name string, args bson.D, sc pdepth) (*shiftWindow, error) {
	s := &shiftWindow{}
	haveBy := false
	for _, el := range args {
		switch el.Key {
		case "output":
			e, err := parseExpr(el.Value, sc)
			if err != nil {
				return nil, err
			}
			s.output = e
		case "default":
			e, err := parseExpr(el.Value, sc)
			if err != nil {
				return nil, err
			}
			c, ok, err := constantOf(el.Value, e, sc)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, errParse("'$shift:default' expression must yield a constant value.")
			}
			s.def, s.defExpr, s.defVars = c, e, sc.consts
		case "by":
			n, ok := int32Value(el.Value)
			if !ok {
				return nil, errParse("'$shift:by' field must be an integer, but found  by: %s", document.Format(el.Value))
			}
			s.by, haveBy = int(n), true
		default:
			return nil, errParse("Unknown argument in %s", name)
		}
	}
	if s.output == nil {
		return nil, errParse("%s requires an 'output' expression.", name)
	}
	if !haveBy {
		return nil, errParse("%s requires 'by' as an integer value.", name)
	}
	return s, nil
}

func (s *shiftWindow) start(p *partition) windowState {
	def := s.def
	if p.o.Collator != nil && s.defExpr != nil {
		v, err := s.defExpr.Eval(&Env{vars: s.defVars, coll: p.o.Collator})
		if err != nil {
			return stateFunc(func(int) (any, error) { return nil, err })
		}
		def = v
	}
	return stateFunc(func(i int) (any, error) {
		j := i + s.by
		if j < 0 || j >= len(p.docs) {
			return def, nil
		}
		v, err := p.eval(s.output, j)
		return orDefault(v, err, def)
	})
}

// boundKind is what one end of a window is.
type boundKind int

const (
	boundUnbounded boundKind = iota // the partition's end
	boundCurrent                    // the current document
	boundOffset                     // n documents, or n of the sortBy's value (or unit), away
)

type bound struct {
	kind boundKind
	n    any // int for documents, a number for range
}

// windowBounds are a window: documents (the zero value is [unbounded,
// unbounded]) or range, with unit for dates.
type windowBounds struct {
	rng    bool
	unit   string
	lo, hi bound
}

// windowHint is where a range window's ends were for the previous
// document: they only move forward, so the next search starts there.
type windowHint struct{ lo, hi int }

func parseWindowBounds(v any, w *windowSpec) (windowBounds, error) {
	d, ok := v.(bson.D)
	if !ok {
		return windowBounds{}, errParse("'window' field must be an object")
	}
	docs, haveDocs := docGet(d, "documents")
	rng, haveRange := docGet(d, "range")
	unit, haveUnit := docGet(d, "unit")
	switch {
	case haveDocs && haveRange:
		return windowBounds{}, errParse("Window bounds can specify either 'documents' or 'unit', not both.")
	case !haveRange && haveUnit:
		return windowBounds{}, errParse("Window bounds can only specify 'unit' with range-based bounds.")
	case !haveRange && !haveDocs:
		if len(d) != 0 {
			return windowBounds{}, errParse("'window' field can only contain 'documents' as the only argument or 'range' with an optional 'unit' field")
		}
		return windowBounds{}, nil
	}
	pair := func(name string, v any) (bson.A, error) {
		a, ok := v.(bson.A)
		if !ok || len(a) != 2 {
			return nil, errParse("Window bounds must be a 2-element array: %s: %s", name, document.Format(v))
		}
		return a, nil
	}
	b := windowBounds{}
	if haveDocs {
		if len(d) != 1 {
			return b, errParse("'window' field that specifies documents cannot have other fields")
		}
		a, err := pair("documents", docs)
		if err != nil {
			return b, err
		}
		if b.lo, b.hi, err = parseBoundPair(a, w.sc, wholeBound("Numeric document-based bounds must be an integer")); err != nil {
			return b, err
		}
		if (b.lo.kind != boundUnbounded || b.hi.kind != boundUnbounded) && w.sortBy == nil {
			return b, document.Errorf(document.Code(5339901), "Document-based bounds require a sortBy")
		}
		return b, nil
	}
	b.rng = true
	a, err := pair("range", rng)
	if err != nil {
		return b, err
	}
	if haveUnit {
		if len(d) != 2 {
			return b, errParse("'window' field that specifies unit cannot have other fields besides 'range'")
		}
		u, ok := unit.(string)
		if !ok {
			return b, errParse("'unit' must be a string")
		}
		if b.lo, b.hi, err = parseBoundPair(a, w.sc, wholeBound("With 'unit', range-based bounds must be an integer")); err != nil {
			return b, err
		}
		switch u {
		case "year", "quarter", "month", "week", "day", "hour", "minute", "second", "millisecond":
			b.unit = u
		default:
			return b, errParse("unknown time unit value: %s", u)
		}
	} else {
		if len(d) != 1 {
			return b, errParse("'window' field that specifies range cannot have other fields besides 'unit'")
		}
		if b.lo, b.hi, err = parseBoundPair(a, w.sc, func(c any) (any, error) {
			if !document.IsNumber(c) {
				return nil, errParse("Range-based bounds expression must be a number")
			}
			return c, nil
		}); err != nil {
			return b, err
		}
	}
	if w.sortBy == nil || len(w.sortBy.Keys()) != 1 {
		return b, document.Errorf(document.Code(5339902), "Range-based bounds require sortBy a single field")
	}
	if w.sortBy.Keys()[0].Desc {
		return b, document.Errorf(document.Code(8947401), "Range-based bounds require an ascending sortBy")
	}
	return b, nil
}

// wholeBound reads a bound that must be a 32-bit whole number, as
// mongod's Value::integral; refused with msg.
func wholeBound(msg string) func(any) (any, error) {
	return func(c any) (any, error) {
		n, ok := int32Value(c)
		if !ok {
			return nil, errParse("%s", msg)
		}
		return n, nil
	}
}

// parseBoundPair reads [lower, upper]: "unbounded", "current", or a
// constant that number accepts; lower may not pass upper.
func parseBoundPair(a bson.A, sc pdepth, number func(any) (any, error)) (lo, hi bound, err error) {
	one := func(v any) (bound, error) {
		if s, ok := v.(string); ok {
			switch s {
			case "unbounded":
				return bound{kind: boundUnbounded}, nil
			case "current":
				return bound{kind: boundCurrent}, nil
			}
			return bound{}, errParse("Window bounds must be 'unbounded', 'current', or a number.")
		}
		e, err := parseExpr(v, sc)
		if err != nil {
			return bound{}, err
		}
		c, ok, err := constantOf(v, e, sc)
		if err != nil {
			return bound{}, err
		}
		if !ok {
			return bound{}, errParse("Window bounds expression must be a constant.")
		}
		n, err := number(c)
		return bound{kind: boundOffset, n: n}, err
	}
	if lo, err = one(a[0]); err != nil {
		return
	}
	if hi, err = one(a[1]); err != nil {
		return
	}
	num := func(b bound) (any, bool) {
		switch b.kind {
		case boundCurrent:
			return int32(0), true
		case boundOffset:
			return b.n, true
		}
		return nil, false
	}
	l, okL := num(lo)
	h, okH := num(hi)
	if okL && okH && document.Compare(l, h) > 0 {
		err = document.Errorf(document.Code(5339900), "Lower bound must not exceed upper bound: [%s, %s]", fmtNumber(l), fmtNumber(h))
	}
	return
}

// endpoints returns the window of document i as indexes [lo, hi] into
// the partition; ok is false for an empty window.
func (b *windowBounds) endpoints(p *partition, i int, h *windowHint) (lo, hi int, ok bool, err error) {
	n := len(p.docs)
	if !b.rng {
		lo, hi = 0, n-1
		if b.lo.kind != boundUnbounded {
			lo = i + docOffset(b.lo)
		}
		if b.hi.kind != boundUnbounded {
			hi = i + docOffset(b.hi)
		}
		if lo > n-1 || hi < 0 {
			return 0, 0, false, nil
		}
		return max(lo, 0), min(hi, n-1), true, nil
	}
	return b.rangeEndpoints(p, i, h)
}

func docOffset(b bound) int {
	if b.kind == boundCurrent {
		return 0
	}
	return int(b.n.(int32))
}

// rangeEndpoints finds a range window as mongod does: by the current
// document's sortBy value, which must be a number (a date with unit);
// "current" is the current document itself, and "unbounded" the first
// (last) document whose value has that type.
func (b *windowBounds) rangeEndpoints(p *partition, i int, h *windowHint) (lo, hi int, ok bool, err error) {
	vs := p.sortValues()
	base := vs[i]
	if b.unit != "" {
		if _, isDate := base.(bson.DateTime); !isDate {
			return 0, 0, false, document.Errorf(document.Code(5429513), "Invalid range: Expected the sortBy field to be a Date, but it was %s", typeOrMissing(base))
		}
	} else {
		if _, isDate := base.(bson.DateTime); isDate {
			return 0, 0, false, document.Errorf(document.Code(5429413), "Invalid range: For windows that involve date or time ranges, a unit must be provided.")
		}
		if !document.IsNumber(base) {
			return 0, 0, false, document.Errorf(document.Code(5429414), "Invalid range: Expected the sortBy field to be a number, but it was %s", typeOrMissing(base))
		}
	}
	expected := func(v any) bool {
		if b.unit != "" {
			_, isDate := v.(bson.DateTime)
			return isDate
		}
		return document.IsNumber(v)
	}
	n := len(vs)
	switch b.lo.kind {
	case boundCurrent:
		lo = i
	case boundUnbounded:
		for lo = max(h.lo, 0); lo < n && !expected(vs[lo]); lo++ {
		}
	default:
		t := b.threshold(base, b.lo.n)
		for lo = max(h.lo, 0); lo < n && document.Compare(vs[lo], t) < 0; lo++ {
		}
	}
	if lo >= n {
		return 0, 0, false, nil
	}
	h.lo = lo
	start := max(lo, h.hi)
	switch b.hi.kind {
	case boundCurrent:
		hi = i
	case boundUnbounded:
		start = max(start, i)
		for hi = start; hi+1 < n && expected(vs[hi+1]); hi++ {
		}
	default:
		t := b.threshold(base, b.hi.n)
		j := start
		for ; j < n && document.Compare(t, vs[j]) >= 0; j++ {
		}
		if j == start && j < n {
			return 0, 0, false, nil // nothing reaches up to the upper bound
		}
		hi = j - 1
	}
	h.hi = max(hi, 0)
	if hi < lo {
		return 0, 0, false, nil
	}
	return lo, hi, true, nil
}

// threshold is base moved by delta: numbers added, dates moved by delta
// units (in UTC, as mongod's dateAdd), held at the ends of the date
// range.
func (b *windowBounds) threshold(base, delta any) any {
	if b.unit == "" {
		return query.AddNumbers(base, delta)
	}
	amount := int64(delta.(int32))
	t, ok := dateAdd(base.(bson.DateTime).Time(), b.unit, amount, time.UTC)
	if !ok {
		if amount < 0 {
			return bson.DateTime(-maxDateMS)
		}
		return bson.DateTime(maxDateMS)
	}
	return bson.NewDateTimeFromTime(t)
}

// windowIter is one run of a $setWindowFields stage.
type windowIter struct {
	w    *windowSpec
	up   iter
	o    *Options
	read bool
	docs []bson.D
	// the partition being returned
	keys   []any // the partition keys of docs
	h      *holder
	part   *partition
	states []windowState
	at     int
}

// keyed is a document with its partition key.
type keyed struct {
	d   bson.D
	key any
}

func (it *windowIter) next(ctx context.Context) (bson.D, error) {
	if !it.read {
		it.read = true
		if err := it.load(ctx); err != nil {
			return nil, err
		}
	}
	if it.part == nil || it.at == len(it.part.docs) {
		if len(it.docs) == 0 {
			return nil, nil
		}
		it.startPartition()
	}
	// A window folded afresh for each document costs its length:
	// stop between documents when the operation is cancelled.
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	i := it.at
	it.at++
	d := it.part.docs[i]
	for k, out := range it.w.outputs {
		v, err := it.states[k].value(i)
		if err != nil {
			return nil, err
		}
		if isMissing(v) {
			d = removePath(d, out.path)
		} else {
			d = setPath(d, out.path, v)
		}
	}
	return d, nil
}

// load reads the input and orders it by partition key, then sortBy.
func (it *windowIter) load(ctx context.Context) error {
	h := &holder{stage: "$setWindowFields", o: it.o}
	var ks []keyed
	err := drain(ctx, it.up, func(d bson.D) error {
		if err := h.add(d); err != nil {
			return err
		}
		var key any
		if it.w.partition != nil {
			v, err := it.w.partition.Eval(it.o.env(d))
			if err != nil {
				return err
			}
			if _, isArr := v.(bson.A); isArr {
				return document.Errorf(document.CodeTypeMismatch, "Cannot 'partitionBy' an expression of type array")
			}
			if !isMissing(v) {
				key = it.o.Collator.KeyValue(v) // partitions are equal under the collation
			}
		}
		ks = append(ks, keyed{d: d, key: key})
		return nil
	})
	if err != nil {
		return err
	}
	// By sortBy first (each document's sort values found once), then,
	// stably, by partition key: the partitions in order, each sorted.
	if it.w.sortBy != nil {
		docs := make([]bson.D, len(ks))
		for i, k := range ks {
			docs[i] = k.d
		}
		byOrder := make([]keyed, len(ks))
		for i, j := range it.w.sortBy.Order(docs) {
			byOrder[i] = ks[j]
		}
		ks = byOrder
	}
	slices.SortStableFunc(ks, func(a, b keyed) int { return document.Compare(a.key, b.key) })
	it.docs = make([]bson.D, len(ks))
	it.keys = make([]any, len(ks))
	for i, k := range ks {
		it.docs[i], it.keys[i] = k.d, k.key
	}
	it.h = h
	return nil
}

// startPartition takes the next partition off the sorted input.
func (it *windowIter) startPartition() {
	if it.part != nil {
		it.h.held -= it.part.held // its inputs are no longer needed
		for _, d := range it.part.docs {
			it.h.held -= approxSize(d)
		}
	}
	n := 1
	for n < len(it.docs) && document.Compare(it.keys[0], it.keys[n]) == 0 {
		n++
	}
	it.part = &partition{docs: it.docs[:n], spec: it.w, o: it.o, h: it.h}
	it.docs, it.keys = it.docs[n:], it.keys[n:]
	it.at = 0
	it.states = make([]windowState, len(it.w.outputs))
	for k, out := range it.w.outputs {
		it.states[k] = out.fn.start(it.part)
	}
}
