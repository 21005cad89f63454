package agg

import (
	"math"
	"slices"
	"strconv"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $percentile and $median: {input, p, method} ({input, method} for
// $median) as $group accumulators, as expressions over an array or a
// number, and as window functions, one pctAcc computing all of them.
// Non-numeric values and NaN are ignored; results are doubles; no
// numeric input gives null ($median) or an array of nulls.
//
// mongod's "approximate" method is a t-digest (k2 scale, compression
// internalQueryTdigestDelta). While a group holds at most delta finite
// numbers, each of its centroids holds one of them and its answer is
// exactly the "discrete" one, which is what mongod's jstests assert on
// small data sets (its $percentile expression computes "approximate" as
// "discrete" outright). ttlkv computes "approximate" as "discrete" at
// every size: past delta numbers mongod's centroids merge values and its
// answer is an estimate between the neighbouring ranks, where ttlkv's
// stays the exact value at rank ceil(n·p)-1.

// pctMethod is how a percentile is computed.
type pctMethod int

const (
	pctApproximate pctMethod = iota // mongod's t-digest; ttlkv: as pctDiscrete
	pctDiscrete                     // the value of rank ceil(n·p)-1, 0-based
	pctContinuous                   // linear interpolation at rank p·(n-1)
)

// maxPctBytes is what one percentile accumulator may hold, mongod's
// internalQueryMaxPercentileAccumulatorBytes: past it mongod spills (or
// refuses, without allowDiskUse), ttlkv refuses with 146.
const maxPctBytes = 100 << 20

// pctArgs are a parsed $percentile or $median.
type pctArgs struct {
	op     string // "$percentile" or "$median"
	input  Expr
	ps     []float64
	method pctMethod
}

// pctNotObject is the code refusing a spec that is not an object, by
// where the operator is: as an accumulator (and window function) or as
// an expression.
var pctNotObject = map[bool]map[string]int{
	true:  {"$percentile": 7429703, "$median": 7436100},
	false: {"$percentile": 7436200, "$median": 7436201},
}

// parsePctArgs parses {input, p, method} as mongod's IDL spec does, in
// the spec's field order: an unknown field 40415, a repeated one 40413,
// a method that is not a string 14 or not one of the three 2; then a
// missing field 40414, then p (parsePs).
func parsePctArgs(op string, arg any, acc bool, depth pdepth) (pctArgs, error) {
	known := []string{"input", "p", "method"}
	if op == "$median" {
		known = []string{"input", "method"}
	}
	spec, ok := arg.(bson.D)
	if !ok {
		return pctArgs{}, document.Errorf(document.Code(pctNotObject[acc][op]), "specification must be an object; found %s: %s", op, document.Format(arg))
	}
	r := pctArgs{op: op, ps: []float64{0.5}}
	a := map[string]any{}
	for _, el := range spec {
		if !slices.Contains(known, el.Key) {
			return pctArgs{}, document.Errorf(codeUnknownField, "BSON field '%s.%s' is an unknown field.", op, el.Key)
		}
		if _, dup := a[el.Key]; dup {
			return pctArgs{}, document.Errorf(document.Code(40413), "BSON field '%s.%s' is a duplicate field", op, el.Key)
		}
		a[el.Key] = el.Value
		if el.Key != "method" {
			continue
		}
		m, ok := el.Value.(string)
		if !ok {
			return pctArgs{}, document.Errorf(document.CodeTypeMismatch, "BSON field '%s.method' is the wrong type '%s', expected type 'string'", op, document.TypeName(el.Value))
		}
		switch m {
		case "approximate":
			r.method = pctApproximate
		case "discrete":
			r.method = pctDiscrete
		case "continuous":
			r.method = pctContinuous
		default:
			return pctArgs{}, document.Errorf(document.CodeBadValue, "Currently only 'approximate', 'discrete', and 'continuous' can be used as percentile 'method'.")
		}
	}
	for _, f := range known {
		if _, ok := a[f]; !ok {
			return pctArgs{}, document.Errorf(codeMissingField, "BSON field '%s.%s' is missing but a required field", op, f)
		}
	}
	var err error
	if r.input, err = parseExpr(a["input"], depth.deeper()); err != nil {
		return pctArgs{}, err
	}
	if op == "$percentile" {
		if r.ps, err = parsePs(a["p"], depth); err != nil {
			return pctArgs{}, err
		}
	}
	return r, nil
}

// parsePs reads p: an expression that reads no document and no variable,
// giving a non-empty array of numbers in [0, 1], as mongod's parseP
// requires of the optimized expression.
func parsePs(raw any, depth pdepth) ([]float64, error) {
	e, err := parseExpr(raw, depth.deeper())
	if err != nil {
		return nil, err
	}
	v, ok, err := constantOf(raw, e, depth)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, document.Errorf(document.Code(7750300), "The $percentile 'p' field must be an array of constant values, but found value: %s.", document.Format(raw))
	}
	const msg = "The $percentile 'p' field must be an array of numbers from [0.0, 1.0], but found: "
	arr, ok := v.(bson.A)
	if !ok || len(arr) == 0 {
		return nil, document.Errorf(document.Code(7750301), "%s%s", msg, formatMaybeMissing(v))
	}
	ps := make([]float64, len(arr))
	for i, pv := range arr {
		if !document.IsNumber(pv) {
			return nil, document.Errorf(document.Code(7750302), "%s%s", msg, formatMaybeMissing(pv))
		}
		p := query.ToFloat(pv)
		if !(p >= 0 && p <= 1) { // NaN too
			return nil, document.Errorf(document.Code(7750303), "%s%s", msg, strconv.FormatFloat(p, 'g', -1, 64))
		}
		ps[i] = p
	}
	return ps, nil
}

// pctAcc holds a group's numbers: the finite ones, sorted up to sorted,
// and the infinities counted apart, as mongod's accurate percentiles do.
type pctAcc struct {
	args           pctArgs
	vals           []float64
	sorted         int // vals[:sorted] is in order
	negInf, posInf int
	limit          int64 // bytes it may hold: maxPctBytes
}

func newPctAcc(a pctArgs) *pctAcc { return &pctAcc{args: a, limit: maxPctBytes} }

// pctNumber reads v as mongod's accurate percentiles do: false for
// what they ignore, non-numbers and NaN.
func pctNumber(v any) (float64, bool) {
	if !document.IsNumber(v) {
		return 0, false
	}
	f := query.ToFloat(v)
	return f, !math.IsNaN(f)
}

// infCount is the counter of f's infinity, nil for a finite f.
func (a *pctAcc) infCount(f float64) *int {
	switch {
	case math.IsInf(f, -1):
		return &a.negInf
	case math.IsInf(f, 1):
		return &a.posInf
	}
	return nil
}

func (a *pctAcc) add(v any) error {
	f, ok := pctNumber(v)
	if !ok {
		return nil
	}
	if c := a.infCount(f); c != nil {
		*c++
		return nil
	}
	a.vals = append(a.vals, f)
	if used := a.size(); used > a.limit {
		return document.Errorf(document.CodeExceededMemoryLimit, "%s used too much memory and cannot spill to disk. Used: %d bytes. Memory limit: %d bytes", a.args.op, used, a.limit)
	}
	return nil
}

// remove takes back a value that left a sliding window: a window
// function's accumulator keeps its values sorted, as mongod's removable
// percentile window does, so a slide costs a search and a copy.
func (a *pctAcc) remove(v any) bool {
	f, ok := pctNumber(v)
	if !ok {
		return true
	}
	if c := a.infCount(f); c != nil {
		*c--
		return true
	}
	a.sort()
	i, found := slices.BinarySearch(a.vals, f)
	if !found {
		return false
	}
	a.vals = slices.Delete(a.vals, i, i+1)
	a.sorted--
	return true
}

func (a *pctAcc) size() int64 { return 8 * int64(len(a.vals)+len(a.args.ps)) }

// sort puts vals in order: a short unsorted tail (a window growing by a
// document) is inserted, a long one sorts the lot.
func (a *pctAcc) sort() {
	if len(a.vals)-a.sorted > 16 {
		slices.Sort(a.vals)
		a.sorted = len(a.vals)
	}
	for i := a.sorted; i < len(a.vals); i++ {
		v := a.vals[i]
		j, _ := slices.BinarySearch(a.vals[:i], v)
		copy(a.vals[j+1:i+1], a.vals[j:i])
		a.vals[j] = v
	}
	a.sorted = len(a.vals)
}

// percentile is the p-th percentile of what a holds, which is not
// empty. Ranks are over the infinities too; one that lands on an
// infinity gives it.
func (a *pctAcc) percentile(p float64) float64 {
	n := len(a.vals)
	total := float64(n + a.negInf + a.posInf)
	if a.args.method == pctContinuous {
		rank := p * (total - 1)
		switch {
		case a.negInf > 0 && rank < float64(a.negInf):
			return math.Inf(-1)
		case a.posInf > 0 && rank > float64(n+a.negInf-1):
			return math.Inf(1)
		}
		rank -= float64(a.negInf)
		lo, hi := math.Floor(rank), math.Ceil(rank)
		if lo == hi {
			return a.vals[int(lo)]
		}
		// The conversions keep the products apart (no fused multiply-add),
		// so the double is the one mongod computes.
		return float64((hi-rank)*a.vals[int(lo)]) + float64((rank-lo)*a.vals[int(hi)])
	}
	rank := int(total) - 1
	if p < 1 {
		rank = max(0, int(math.Ceil(total*p))-1)
	}
	switch {
	case a.negInf > 0 && rank < a.negInf:
		return math.Inf(-1)
	case a.posInf > 0 && rank >= n+a.negInf:
		return math.Inf(1)
	}
	return a.vals[rank-a.negInf]
}

// result is $median's double (null for no numbers) or $percentile's
// array of doubles (of nulls).
func (a *pctAcc) result() any {
	empty := len(a.vals)+a.negInf+a.posInf == 0
	if !empty {
		a.sort()
	}
	out := make(bson.A, len(a.args.ps))
	for i, p := range a.args.ps {
		if !empty {
			out[i] = a.percentile(p)
		}
	}
	if a.args.op == "$median" {
		return out[0]
	}
	return out
}

// pctExpr is $percentile or $median as an expression: over a number,
// each percentile is that number (a NaN too, as in mongod); over an
// array, the percentiles of its numbers; over anything else, nulls.
type pctExpr struct{ args pctArgs }

func (x pctExpr) Eval(e *Env) (any, error) {
	in, err := x.args.input.Eval(e)
	if err != nil {
		return nil, err
	}
	if document.IsNumber(in) {
		f := query.ToFloat(in)
		if x.args.op == "$median" {
			return f, nil
		}
		out := make(bson.A, len(x.args.ps))
		for i := range out {
			out[i] = f
		}
		return out, nil
	}
	acc := newPctAcc(x.args)
	if arr, ok := in.(bson.A); ok {
		for _, v := range arr {
			if err := acc.add(v); err != nil {
				return nil, err
			}
		}
	}
	return acc.result(), nil
}

// parseWindowPct is $percentile or $median as a window function, parsed
// as the accumulator: a window that grows takes the new values, one
// whose start moves gives back those that left it.
func parseWindowPct(_ string, fd bson.D, w *windowSpec, sc pdepth) (windowFunc, error) {
	name, arg, b, err := functionArgs(fd, w)
	if err != nil {
		return nil, err
	}
	a, err := parsePctArgs(name, arg, true, sc)
	if err != nil {
		return nil, err
	}
	return &accWindow{mk: func(*collation.Collator) accumulator { return newPctAcc(a) }, input: a.input, bounds: b}, nil
}
