package agg

import (
	"math"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The window functions of $setWindowFields that are not $group's
// accumulators: the time-series ones ($derivative, $integral,
// $expMovingAvg), the fills ($locf, $linearFill) and covariance.

// covAcc is $covariancePop / $covarianceSamp over [x, y] pairs of
// numbers (anything else is skipped), by Welford's co-moment. A NaN or
// an infinity among the pairs makes the result NaN or an infinity, as
// mongod's sum of them does.
type covAcc struct {
	samp               bool
	n                  int64
	meanX, meanY, cXY  float64
	nonFinite          float64 // the sum of the non-finite pairs' values
	haveNonFinite, dec bool
}

func (a *covAcc) add(v any) error {
	a.addValue(v)
	return nil
}

func (a *covAcc) addValue(v any) {
	pair, ok := v.(bson.A)
	if !ok || len(pair) != 2 || !document.IsNumber(pair[0]) || !document.IsNumber(pair[1]) {
		return
	}
	if query.NumRank(pair[0]) == 4 || query.NumRank(pair[1]) == 4 {
		a.dec = true
	}
	x, y := query.ToFloat(pair[0]), query.ToFloat(pair[1])
	if math.IsNaN(x) || math.IsNaN(y) || math.IsInf(x, 0) || math.IsInf(y, 0) {
		switch {
		case math.IsNaN(x) || math.IsNaN(y) || (math.IsInf(x, 0) && math.IsInf(y, 0) && math.Signbit(x) != math.Signbit(y)):
			a.nonFinite += math.NaN()
		case math.IsInf(x, -1) || math.IsInf(y, -1):
			a.nonFinite += math.Inf(-1)
		default:
			a.nonFinite += math.Inf(1)
		}
		a.haveNonFinite = true
		return
	}
	a.n++
	dx := x - a.meanX
	a.meanX += dx / float64(a.n)
	a.meanY += (y - a.meanY) / float64(a.n)
	a.cXY += dx * (y - a.meanY)
}

func (a *covAcc) result() any {
	if a.n == 1 && !a.samp {
		return 0.0
	}
	n := a.n
	if a.samp {
		n--
	}
	if n <= 0 {
		return nil
	}
	c := a.cXY
	if a.haveNonFinite {
		c += a.nonFinite
	}
	r := c / float64(n)
	if a.dec {
		return query.ToDecimal(r)
	}
	return r
}

// unitMillis are the units $derivative and $integral take, in
// milliseconds.
var unitMillis = map[string]int64{"week": 604_800_000, "day": 86_400_000, "hour": 3_600_000, "minute": 60_000, "second": 1000, "millisecond": 1}

// withUnit reads the {input, unit} argument of $derivative or
// $integral, after checking the sortBy they need.
func withUnit(name string, fd bson.D, w *windowSpec, sc pdepth) (input Expr, unit int64, b windowBounds, haveWindow bool, err error) {
	switch {
	case w.sortBy == nil:
		return nil, 0, b, false, errParse("%s requires a sortBy", name)
	case len(w.sortBy.Keys()) != 1:
		return nil, 0, b, false, errParse("%s requires a non-compound sortBy", name)
	}
	var args any
	for _, el := range fd {
		switch el.Key {
		case "window":
			if name == "$integral" && haveWindow {
				return nil, 0, b, false, errParse("There can be only one 'window' field for $integral")
			}
			if b, err = parseWindowBounds(el.Value, w); err != nil {
				return nil, 0, b, false, err
			}
			haveWindow = true
		case name:
			args = el.Value
		default:
			return nil, 0, b, false, errParse("%s got unexpected argument: %s", name, el.Key)
		}
	}
	ad, ok := args.(bson.D)
	if !ok {
		return nil, 0, b, false, errParse("%s expects an object, but got a %s: %s: %s", name, document.TypeName(args), name, document.Format(args))
	}
	for _, el := range ad {
		switch el.Key {
		case "input":
			if input, err = parseExpr(el.Value, sc); err != nil {
				return nil, 0, b, false, err
			}
		case "unit":
			u, ok := el.Value.(string)
			if !ok {
				return nil, 0, b, false, errParse("unit' must be a string, but got %s", document.TypeName(el.Value))
			}
			switch u {
			case "year", "quarter", "month":
				return nil, 0, b, false, document.Errorf(document.Code(5490710), "unit must be 'week' or smaller")
			}
			if unit = unitMillis[u]; unit == 0 {
				return nil, 0, b, false, errParse("unknown time unit value: %s", u)
			}
		default:
			return nil, 0, b, false, errParse("%s got unexpected argument: %s", name, el.Key)
		}
	}
	if input == nil {
		return nil, 0, b, false, errParse("%s requires an 'input' expression", name)
	}
	return input, unit, b, haveWindow, nil
}

// derivativeWindow is $derivative: the rise of input over the run of the
// sortBy value between the window's first and last documents, per unit
// for dates.
type derivativeWindow struct {
	input  Expr
	unit   int64
	bounds windowBounds
}

func parseWindowDerivative(name string, fd bson.D, w *windowSpec, sc pdepth) (windowFunc, error) {
	input, unit, b, haveWindow, err := withUnit(name, fd, w, sc)
	if err != nil {
		return nil, err
	}
	if !haveWindow {
		return nil, errParse("$derivative requires explicit window bounds")
	}
	return &derivativeWindow{input: input, unit: unit, bounds: b}, nil
}

func (f *derivativeWindow) start(p *partition) windowState {
	var hint windowHint
	return stateFunc(func(i int) (any, error) {
		lo, hi, ok, err := f.bounds.endpoints(p, i, &hint)
		if err != nil || !ok {
			return nil, err
		}
		vs := p.sortValues()
		x0, x1 := vs[lo], vs[hi]
		_, d0 := x0.(bson.DateTime)
		_, d1 := x1.(bson.DateTime)
		switch {
		case f.unit != 0 && (!d0 || !d1):
			return nil, document.Errorf(document.Code(5624900), "$derivative with 'unit' expects the sortBy field to be a Date")
		case f.unit == 0 && (d0 || d1):
			return nil, document.Errorf(document.Code(5624901), "$derivative where the sortBy is a Date requires an 'unit'")
		case f.unit == 0 && (!document.IsNumber(x0) || !document.IsNumber(x1)):
			return nil, document.Errorf(document.Code(5624902), "$derivative (with no 'unit') expects the sortBy field to be numeric")
		}
		run, err := opSubtract([]any{x1, x0})
		if err != nil {
			return nil, err
		}
		y0, err := p.eval(f.input, lo)
		if err != nil {
			return nil, err
		}
		y1, err := p.eval(f.input, hi)
		if err != nil {
			return nil, err
		}
		rise, err := opSubtract([]any{y1, y0})
		if err != nil {
			return nil, err
		}
		if nullish(rise) {
			return nil, document.Errorf(document.Code(5624903), "$derivative input must not be null or missing")
		}
		r, err := opDivide([]any{rise, run})
		if document.CodeOf(err) == document.CodeBadValue {
			return nil, nil // a run of zero: one document, or one instant
		}
		if err != nil || f.unit == 0 {
			return r, err
		}
		return opMultiply([]any{r, f.unit})
	})
}

func parseWindowIntegral(name string, fd bson.D, w *windowSpec, sc pdepth) (windowFunc, error) {
	input, unit, b, _, err := withUnit(name, fd, w, sc)
	if err != nil {
		return nil, err
	}
	a := &accWindow{
		mk:     func(*collation.Collator) accumulator { return &integralAcc{unit: unit} },
		input:  arrayExpr{fieldPath{parts: w.sortPath}, input},
		bounds: b,
	}
	a.check = func(v any) error {
		pair := v.(bson.A)
		_, date := pair[0].(bson.DateTime)
		switch {
		case !document.IsNumber(pair[1]) || (!date && !document.IsNumber(pair[0])):
			return document.Errorf(document.Code(5423900), "The input value of $integral window function must be a vector of 2 value, the first value must be numeric or date type and the second must be numeric.")
		case unit != 0 && !date:
			return document.Errorf(document.Code(5423901), "$integral with 'unit' expects the sortBy field to be a Date")
		case unit == 0 && date:
			return document.Errorf(document.Code(5423902), "$integral (with no 'unit') expects the sortBy field to be numeric")
		}
		return nil
	}
	return a, nil
}

// integralAcc is $integral by the trapezoidal rule over [x, y] points
// (checked beforehand): a NaN among them makes the result NaN.
type integralAcc struct {
	unit   int64
	prev   bson.A
	sum    any
	n, nan int
}

func (a *integralAcc) add(v any) error {
	a.addValue(v)
	return nil
}

func (a *integralAcc) addValue(v any) {
	pt := v.(bson.A)
	a.n++
	if isNaN(pt[0]) || isNaN(pt[1]) {
		a.nan++
	}
	if a.sum == nil {
		a.sum = int32(0)
	}
	if a.prev != nil && !isNaN(a.prev[0]) && !isNaN(a.prev[1]) && !isNaN(pt[0]) && !isNaN(pt[1]) {
		dx, _ := opSubtract([]any{pt[0], a.prev[0]})
		sy := query.AddNumbers(pt[1], a.prev[1])
		area, _ := opMultiply([]any{sy, dx})
		half, _ := opDivide([]any{area, 2.0})
		a.sum = query.AddNumbers(a.sum, half)
	}
	a.prev = pt
}

func (a *integralAcc) result() any {
	switch {
	case a.n == 0:
		return nil
	case a.nan > 0:
		return math.NaN()
	case a.unit != 0:
		r, _ := opDivide([]any{a.sum, a.unit})
		return r
	}
	return a.sum
}

func isNaN(v any) bool {
	switch x := v.(type) {
	case float64:
		return math.IsNaN(x)
	case bson.Decimal128:
		return x.IsNaN()
	}
	return false
}

// expMovingAvgWindow is $expMovingAvg: {input, N} or {input, alpha}; each
// number moves the average by alpha of the way to it (alpha is 2/(N+1)).
type expMovingAvgWindow struct {
	input Expr
	// decAlpha is alpha as a decimal: 2/(N+1) to 34 digits for N, or
	// alpha's double as a decimal.
	decAlpha any
}

func parseWindowExpMovingAvg(_ string, fd bson.D, w *windowSpec, sc pdepth) (windowFunc, error) {
	sub, ok := fd[0].Value.(bson.D)
	if len(fd) != 1 || fd[0].Key != "$expMovingAvg" || !ok {
		return nil, errParse("$expMovingAvg must have exactly one argument that is an object")
	}
	in, haveIn := docGet(sub, "input")
	if len(sub) != 2 || !haveIn {
		return nil, errParse("$expMovingAvg sub object must have exactly two fields: An 'input' field, and either an 'N' field or an 'alpha' field")
	}
	if w.sortBy == nil {
		return nil, errParse("$expMovingAvg requires an explicit 'sortBy'")
	}
	e, err := parseExpr(in, sc)
	if err != nil {
		return nil, err
	}
	f := &expMovingAvgWindow{input: e}
	if n, ok := docGet(sub, "N"); ok {
		if !document.IsNumber(n) {
			return nil, errParse("'N' field must be an integer, but found type %s", document.TypeName(n))
		}
		nf := query.ToFloat(n)
		if nf != math.Floor(nf) {
			return nil, errParse("'N' field must be an integer, but found  N: %s. To use a non-integer, use the 'alpha' argument instead", fmtNumber(n))
		}
		if nf <= 0 || math.IsNaN(nf) {
			return nil, errParse("'N' must be greater than zero. Got %s", fmtNumber(n))
		}
		f.decAlpha = query.DecimalDiv(int32(2), nf+1)
		return f, nil
	}
	if a, ok := docGet(sub, "alpha"); ok {
		if !document.IsNumber(a) {
			return nil, errParse("'alpha' must be a number")
		}
		af := query.ToFloat(a)
		if !(af > 0 && af < 1) {
			return nil, errParse("'alpha' must be between 0 and 1 (exclusive), found alpha: %s", fmtNumber(a))
		}
		f.decAlpha = query.ToDecimal(af)
		return f, nil
	}
	return nil, errParse("Got unrecognized field in $expMovingAvg$expMovingAvg sub object must have exactly two fields: An 'input' field, and either an 'N' field or an 'alpha' field")
}

// start runs the average in decimal, as mongod does
// (accumulator_exp_moving_avg.cpp): each number is taken as a decimal
// (a double to 15 digits), each step x*alpha + avg*(1-alpha) is
// rounded to 34 digits, and the result is that decimal once a decimal
// was seen, else the double nearest to it.
func (f *expMovingAvgWindow) start(p *partition) windowState {
	var avg any // the decimal average (nil: no number yet)
	isDec := false
	return stateFunc(func(i int) (any, error) {
		v, err := p.eval(f.input, i)
		if err != nil {
			return nil, err
		}
		if document.IsNumber(v) {
			if query.NumRank(v) == 4 {
				isDec = true
			}
			if avg == nil {
				avg = query.ToDecimal(v)
			} else {
				avg = query.DecimalEMA(v, avg, f.decAlpha)
			}
		}
		switch {
		case avg == nil:
			return nil, nil
		case isDec:
			return avg, nil
		}
		return query.ToFloat(avg), nil
	})
}

// leftUnbounded reads {$fn: input} for $locf and $linearFill, which take
// no window.
func leftUnbounded(fd bson.D, sc pdepth) (string, Expr, error) {
	name, arg := "", any(nil)
	windowed := false
	for _, el := range fd {
		switch {
		case el.Key == "window":
			windowed = true
		case windowParsers[el.Key] != nil:
			if name != "" {
				return "", nil, errParse("Cannot specify two functions in window function spec")
			}
			name, arg = el.Key, el.Value
		default:
			return "", nil, errParse("Window function found an unknown argument: %s", el.Key)
		}
	}
	if windowed {
		return "", nil, errParse("'window' field is not allowed in %s", name)
	}
	e, err := parseExpr(arg, sc)
	return name, e, err
}

// locfWindow is $locf: the input, or where it is null or missing the
// last value before it that was not.
type locfWindow struct{ input Expr }

func parseWindowLocf(_ string, fd bson.D, _ *windowSpec, sc pdepth) (windowFunc, error) {
	_, e, err := leftUnbounded(fd, sc)
	if err != nil {
		return nil, err
	}
	return locfWindow{input: e}, nil
}

func (f locfWindow) start(p *partition) windowState {
	var last any
	return stateFunc(func(i int) (any, error) {
		v, err := p.eval(f.input, i)
		if err != nil {
			return nil, err
		}
		if !nullish(v) {
			last = v
		}
		return last, nil
	})
}

// linearFillWindow is $linearFill: a null or missing input is filled on
// the line between the numbers before and after it, by the sortBy value.
type linearFillWindow struct{ input Expr }

func parseWindowLinearFill(_ string, fd bson.D, w *windowSpec, sc pdepth) (windowFunc, error) {
	name, e, err := leftUnbounded(fd, sc)
	if err != nil {
		return nil, err
	}
	if w.sortBy == nil || len(w.sortBy.Keys()) != 1 {
		return nil, document.Errorf(document.Code(605001), "%s must be specified with a top level sortBy expression with exactly one element", name)
	}
	return linearFillWindow{input: e}, nil
}

func (f linearFillWindow) start(p *partition) windowState {
	var in []any
	var x1, y1 any // the last known point
	have1 := false
	next := -1 // the next known point after a run of nulls
	var last any
	seen := false
	return stateFunc(func(i int) (any, error) {
		if in == nil {
			var err error
			if in, err = p.input(f.input); err != nil {
				return nil, err
			}
		}
		vs := p.sortValues()
		y, x := in[i], vs[i]
		if !document.IsNumber(y) && !nullish(y) {
			return nil, document.Errorf(document.CodeTypeMismatch, "Value to be filled must be numeric or nullish, but found %s", document.TypeName(y))
		}
		if !document.IsNumber(x) && !dateLike(x) {
			return nil, document.Errorf(document.CodeTypeMismatch, "Value of the sortBy field must be numeric or a date, but found %s", typeOrMissing(x))
		}
		if seen {
			if document.Compare(x, last) == 0 {
				return nil, document.Errorf(document.Code(6050106), "There can be no repeated values in the sort field")
			}
			if dateLike(x) != dateLike(last) {
				return nil, document.Errorf(document.CodeTypeMismatch, "Conflicting sort value types, previously received type %s, but found %s", document.TypeName(last), document.TypeName(x))
			}
		}
		last, seen = x, true
		if !nullish(y) {
			x1, y1, have1 = x, y, true
			return y, nil
		}
		if !have1 {
			return nil, nil
		}
		if next <= i {
			for next = i + 1; next < len(in) && (nullish(in[next]) || vs[next] == nil); next++ {
			}
		}
		if next >= len(in) {
			return nil, nil
		}
		return interpolate(x1, y1, vs[next], in[next], x)
	})
}

func dateLike(v any) bool {
	switch v.(type) {
	case bson.DateTime, bson.Timestamp, bson.ObjectID:
		return true
	}
	return false
}

// interpolate is y1 + (x - x1) * ((y2 - y1) / (x2 - x1)) with the
// operators' arithmetic (dates subtract to milliseconds).
func interpolate(x1, y1, x2, y2, x any) (any, error) {
	dy, err := opSubtract([]any{y2, y1})
	if err != nil {
		return nil, err
	}
	dx, err := opSubtract([]any{x2, x1})
	if err != nil {
		return nil, err
	}
	slope, err := opDivide([]any{dy, dx})
	if err != nil {
		return nil, err
	}
	off, err := opSubtract([]any{x, x1})
	if err != nil {
		return nil, err
	}
	step, err := opMultiply([]any{off, slope})
	if err != nil {
		return nil, err
	}
	return opAdd([]any{y1, step})
}
