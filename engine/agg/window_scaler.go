package agg

import (
	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $minMaxScaler (mongod 8.1): {$minMaxScaler: {input, min, max}, window}
// scales each document's input to where it lies between the smallest
// and largest input of its window, mapped onto [min, max] ([0, 1] by
// default): (x - lo) / (hi - lo) * (max - min) + min, with the
// operators' arithmetic; min itself where lo and hi are equal.

// scalerWindow is a parsed $minMaxScaler.
type scalerWindow struct {
	input    Expr
	min, max any
	bounds   windowBounds
}

// scalerIDL is the IDL struct name mongod parses the function as.
const scalerIDL = "root"

func parseWindowScaler(_ string, fd bson.D, w *windowSpec, sc pdepth) (windowFunc, error) {
	var args, window any
	haveWindow := false
	seen := map[string]bool{}
	for _, el := range fd {
		if seen[el.Key] {
			return nil, document.Errorf(document.Code(40413), "%s is a duplicate field", idlFieldIn(scalerIDL, el.Key))
		}
		seen[el.Key] = true
		switch el.Key {
		case "$minMaxScaler":
			d, ok := el.Value.(bson.D)
			if !ok {
				return nil, idlWrongTypeIn(scalerIDL, el.Key, el.Value, "object")
			}
			if err := checkScalerArgs(d); err != nil {
				return nil, err
			}
			args = d
		case "window":
			if _, ok := el.Value.(bson.D); !ok {
				return nil, idlWrongTypeIn(scalerIDL, el.Key, el.Value, "object")
			}
			window, haveWindow = el.Value, true
		default:
			return nil, document.Errorf(document.CodeIDLUnknownField, "%s is an unknown field.", idlFieldIn(scalerIDL, el.Key))
		}
	}
	f := &scalerWindow{}
	if haveWindow {
		b, err := parseWindowBounds(window, w)
		if err != nil {
			return nil, err
		}
		if err := scalerBoundsHoldCurrent(b); err != nil {
			return nil, err
		}
		f.bounds = b
	}
	if err := f.parseArgs(args.(bson.D), sc); err != nil {
		return nil, err
	}
	return f, nil
}

// checkScalerArgs is the IDL's check of {input, min, max}: no field
// twice, none other, input present.
func checkScalerArgs(d bson.D) error {
	seen := map[string]bool{}
	for _, el := range d {
		path := "$minMaxScaler." + el.Key
		switch {
		case seen[el.Key]:
			return document.Errorf(document.Code(40413), "%s is a duplicate field", idlFieldIn(scalerIDL, path))
		case el.Key != "input" && el.Key != "min" && el.Key != "max":
			return document.Errorf(document.CodeIDLUnknownField, "%s is an unknown field.", idlFieldIn(scalerIDL, path))
		}
		seen[el.Key] = true
	}
	if !seen["input"] {
		return document.Errorf(document.CodeIDLFailedToParse, "%s is missing but a required field", idlFieldIn(scalerIDL, "$minMaxScaler.input"))
	}
	return nil
}

// scalerBoundsHoldCurrent refuses a window that can leave out the
// current document: a numeric lower bound above 0 or upper bound below
// 0, in documents or in range.
func scalerBoundsHoldCurrent(b windowBounds) error {
	num := func(x bound) (float64, bool) {
		if x.kind != boundOffset {
			return 0, false
		}
		return query.ToFloat(x.n), true
	}
	const why = "as $minMaxScaler must ensure that the current document being processed is always within the configured window."
	if lo, ok := num(b.lo); ok && lo > 0 {
		return errParse("Lower specified bound cannot be greater than 0 (the current doc), %s Lower specified bound = %f", why, lo)
	}
	if hi, ok := num(b.hi); ok && hi < 0 {
		return errParse("Upper specified bound cannot be less than 0 (the current doc), %s Upper specified bound = %f", why, hi)
	}
	return nil
}

// parseArgs reads input, and min and max: both or neither, constant
// numbers, min below max.
func (f *scalerWindow) parseArgs(d bson.D, sc pdepth) error {
	minV, haveMin := docGet(d, "min")
	maxV, haveMax := docGet(d, "max")
	in, _ := docGet(d, "input")
	var err error
	if f.input, err = parseExpr(in, sc); err != nil {
		return err
	}
	if haveMin != haveMax {
		return errParse("Only one of 'min' and 'max' were specified as an argument to $minMaxScaler. Neither or both must be specified")
	}
	f.min, f.max = int32(0), int32(1)
	if !haveMin {
		return nil
	}
	constant := func(name string, raw any) (any, error) {
		e, err := parseExpr(raw, sc)
		if err != nil {
			return nil, err
		}
		c, ok, err := constantOf(raw, e, sc)
		switch {
		case err != nil:
			return nil, err
		case !ok:
			return nil, errParse("'%s' argument to $minMaxScaler must be a constant", name)
		case !document.IsNumber(c):
			return nil, errParse("'%s' argument to $minMaxScaler must be a numeric type", name)
		}
		return c, nil
	}
	if f.min, err = constant("min", minV); err != nil {
		return err
	}
	if f.max, err = constant("max", maxV); err != nil {
		return err
	}
	if document.Compare(f.min, f.max) >= 0 {
		return errParse("the 'max' must be strictly greater than 'min', as arguments to $minMaxScaler")
	}
	return nil
}

// scalerRange is the smallest and largest input of a window, kept as
// $min and $max over a window whose start moves keep them.
type scalerRange struct {
	lo, hi slidingMinMax
}

func (a *scalerRange) add(v any) error {
	a.lo.addValue(v)
	a.hi.addValue(v)
	return nil
}

func (a *scalerRange) remove(v any) bool {
	a.lo.remove(v)
	a.hi.remove(v)
	return true
}

func (a *scalerRange) result() any { return bson.A{a.lo.result(), a.hi.result()} }

// start folds each window's smallest and largest input, taking back what
// leaves a sliding window. A window that grows from the partition's
// start takes only numbers (10487001, mongod's check as a value enters
// it); one whose start moves needs the current input to be a number
// (10487000), and its extremes (9522905, an assertion in mongod).
func (f *scalerWindow) start(p *partition) windowState {
	growing := f.bounds.lo.kind == boundUnbounded
	acc := &accWindow{input: f.input, bounds: f.bounds, mk: func(*collation.Collator) accumulator {
		return &scalerRange{lo: slidingMinMax{}, hi: slidingMinMax{max: true}}
	}}
	if growing {
		acc.check = func(v any) error {
			if !document.IsNumber(v) {
				return document.Errorf(document.Code(10487001), "'input' argument to $minMaxScaler must evaluate to a numeric type, got: %s", typeOrMissing(v))
			}
			return nil
		}
	}
	st := &accState{accWindow: acc, p: p}
	return stateFunc(func(i int) (any, error) {
		r, err := st.value(i)
		if err != nil {
			return nil, err
		}
		x := st.in[i]
		if !document.IsNumber(x) {
			return nil, document.Errorf(document.Code(10487000), "'input' argument to $minMaxScaler must evaluate to a numeric type, got: %s", typeOrMissing(x))
		}
		ext := r.(bson.A)
		lo, hi := ext[0], ext[1]
		if !document.IsNumber(lo) || !document.IsNumber(hi) {
			return nil, document.Errorf(document.Code(9522905), "All provided arguments to min_max_scaler::computeResult must be numeric Value types.")
		}
		return f.scale(x, lo, hi)
	})
}

// scale maps x from [lo, hi] onto [f.min, f.max].
func (f *scalerWindow) scale(x, lo, hi any) (any, error) {
	if document.Compare(lo, hi) == 0 {
		return f.min, nil
	}
	num, err := opSubtract([]any{x, lo})
	if err != nil {
		return nil, err
	}
	den, err := opSubtract([]any{hi, lo})
	if err != nil {
		return nil, err
	}
	unit, err := opDivide([]any{num, den})
	if err != nil {
		return nil, err
	}
	span, err := opSubtract([]any{f.max, f.min})
	if err != nil {
		return nil, err
	}
	scaled, err := opMultiply([]any{unit, span})
	if err != nil {
		return nil, err
	}
	return opAdd([]any{scaled, f.min})
}
