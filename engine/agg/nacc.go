package agg

import (
	"cmp"
	"container/heap"
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The n-family: $firstN, $lastN, $minN and $maxN (as $group accumulators
// and as expressions over an array), $top, $bottom, $topN and $bottomN
// (accumulators), and the $mergeObjects accumulator. One keepN holds
// what each of them keeps, as mongod's AccumulatorN does.

// maxNBytes is what one n-accumulator may hold, mongod's
// internalQueryTopNAccumulatorBytes (100 MiB): past it, 146.
const maxNBytes = 100 << 20

// nKind is which values an n-accumulator keeps.
type nKind int

const (
	keepFirst  nKind = iota // $firstN: the first n, missing as null
	keepLast                // $lastN: the last n, missing as null
	keepMin                 // $minN: the n smallest, null and missing skipped, ascending
	keepMax                 // $maxN: the n largest, null and missing skipped, descending
	keepTop                 // $topN, $top: the first n in sortBy order
	keepBottom              // $bottomN, $bottom: the last n in sortBy order
)

// nOps are the n-family's accumulators: which values each keeps, and
// whether it gives one value ($top, $bottom) rather than an array.
var nOps = map[string]struct {
	kind   nKind
	single bool
}{
	"$firstN": {keepFirst, false}, "$lastN": {keepLast, false},
	"$minN": {keepMin, false}, "$maxN": {keepMax, false},
	"$topN": {keepTop, false}, "$bottomN": {keepBottom, false},
	"$top": {keepTop, true}, "$bottom": {keepBottom, true},
}

// ranked is one value an n-accumulator keeps: key orders it (the value
// itself, or its sort key document), seq is its arrival, so that of
// equal keys the earlier one ranks first, as in mongod's multiset.
type ranked struct {
	key, out any
	seq      int64
	bytes    int64
}

// keepN is an n-accumulator's state. For $minN, $maxN, $topN and
// $bottomN items is a heap with the first value to drop at its root.
type keepN struct {
	op     string
	kind   nKind
	single bool
	n      int64
	sort   *query.Sort // $top and $bottom's sortBy
	coll   *collation.Collator
	items  []ranked
	seq    int64
	bytes  int64
	// sliding is set over a $setWindowFields window whose start moves,
	// where mongod's removable window functions keep every value of the
	// window: a missing value holds its place in $firstN and $lastN and
	// is left out of the result, and of values that tie $maxN and
	// $bottomN keep the latest rather than the earliest.
	sliding bool
}

// newKeepN is op's state keeping n values, ranked by sort ($top and
// $bottom) or by value under c ($minN and $maxN).
func newKeepN(op string, n int64, sort *query.Sort, c *collation.Collator) *keepN {
	spec := nOps[op]
	return &keepN{op: op, kind: spec.kind, single: spec.single, n: n, sort: sort.Collate(c), coll: c}
}

// keyCmp compares the keys of a and b.
func (k *keepN) keyCmp(a, b ranked) int {
	if k.sort != nil {
		return k.sort.Compare(a.key.(bson.D), b.key.(bson.D))
	}
	return k.coll.CompareValues(a.key, b.key)
}

// order ranks a before b (<0) or after (>0) by key, then by arrival.
func (k *keepN) order(a, b ranked) int {
	if c := k.keyCmp(a, b); c != 0 {
		return c
	}
	return cmp.Compare(a.seq, b.seq)
}

// keepsLow reports whether the accumulator keeps the lowest ranked
// values (so drops the highest first).
func (k *keepN) keepsLow() bool { return k.kind == keepMin || k.kind == keepTop }

func (k *keepN) Len() int { return len(k.items) }
func (k *keepN) Less(i, j int) bool {
	c := k.order(k.items[i], k.items[j])
	if k.keepsLow() {
		return c > 0
	}
	return c < 0
}
func (k *keepN) Swap(i, j int) { k.items[i], k.items[j] = k.items[j], k.items[i] }
func (k *keepN) Push(x any)    { k.items = append(k.items, x.(ranked)) }
func (k *keepN) Pop() any {
	last := k.items[len(k.items)-1]
	k.items = k.items[:len(k.items)-1]
	return last
}

// add takes one value: for $top and the others the topBottomValue that
// nArgs.arg made of a document.
func (k *keepN) add(v any) error {
	r := ranked{key: v, out: v, seq: k.seq}
	switch k.kind {
	case keepFirst, keepLast:
		if isMissing(v) && !k.sliding {
			r.key, r.out = nil, nil
		}
	case keepMin, keepMax:
		if nullish(v) {
			return nil
		}
	case keepTop, keepBottom:
		tb := v.(topBottomValue)
		r.key, r.out = tb.key, tb.out
	}
	k.seq++
	r.bytes = approxSize(r.out) + 16
	if k.sort != nil {
		r.bytes += approxSize(r.key)
	}
	switch {
	case k.kind == keepFirst:
		if int64(len(k.items)) == k.n {
			return nil
		}
		k.items = append(k.items, r)
	case k.kind == keepLast:
		if int64(len(k.items)) == k.n {
			// Drop the oldest by reslicing: append copies the n kept
			// when it grows the array, so each value costs O(1).
			k.bytes -= k.items[0].bytes
			k.items[0] = ranked{}
			k.items = k.items[1:]
		}
		k.items = append(k.items, r)
	case int64(len(k.items)) < k.n:
		heap.Push(k, r)
	default:
		// Full: the new value replaces the first to drop if it ranks
		// better; a tie keeps the earlier one, or over a sliding window
		// the later one where mongod keeps the latest (the root is then
		// the earliest of the lowest).
		c := k.keyCmp(k.items[0], r)
		late := k.sliding && !k.keepsLow()
		if (k.keepsLow() && c <= 0) || (!k.keepsLow() && (c > 0 || (c == 0 && !late))) {
			return nil
		}
		k.bytes -= k.items[0].bytes
		k.items[0] = r
		heap.Fix(k, 0)
	}
	if k.bytes += r.bytes; k.bytes > maxNBytes {
		return document.Errorf(document.CodeExceededMemoryLimit, "%s used too much memory and cannot spill to disk. Memory limit: %d bytes", k.op, maxNBytes)
	}
	return nil
}

func (k *keepN) size() int64 { return k.bytes }

// result is the values kept, in their order: arrival for $firstN and
// $lastN, ascending for $minN, descending for $maxN, sortBy order for
// the others; $top and $bottom give the one value (null if none).
func (k *keepN) result() any {
	items := slices.Clone(k.items)
	if k.kind != keepFirst && k.kind != keepLast {
		slices.SortFunc(items, k.order)
	}
	if k.kind == keepMax {
		slices.Reverse(items)
	}
	if k.single {
		if len(items) == 0 {
			return nil
		}
		return items[0].out
	}
	out := make(bson.A, 0, len(items))
	for _, r := range items {
		if !isMissing(r.out) { // only a sliding $firstN or $lastN keeps one
			out = append(out, r.out)
		}
	}
	return out
}

// validateN reads an n-accumulator's n: a whole number above 0, as
// mongod's AccumulatorN::validateN does.
func validateN(v any) (int64, error) {
	if !document.IsNumber(v) {
		return 0, document.Errorf(document.Code(5787902), "Value for 'n' must be of integral type, but found %s", formatMaybeMissing(v))
	}
	n, ok := int64Value(v)
	if !ok {
		return 0, document.Errorf(document.Code(5787903), "Value for 'n' must be of integral type, but found %s", fmtNumber(v))
	}
	if n <= 0 {
		return 0, document.Errorf(document.Code(5787908), "'n' must be greater than 0, found %d", n)
	}
	return n, nil
}

// nArgs are the parsed arguments of an n-accumulator: {input, n} for
// $firstN, $lastN, $minN and $maxN; {output, sortBy, n} for $topN and
// $bottomN ({output, sortBy} for $top and $bottom, n being 1).
type nArgs struct {
	n, input Expr
	nRaw     any // n as written (nil for $top and $bottom)
	sort     *query.Sort
	paths    [][]string // sortBy's fields, for the sort keys
}

func parseNArgs(op string, arg any, depth pdepth) (nArgs, error) {
	if nOps[op].kind >= keepTop {
		return parseTopBottomArgs(op, arg, depth)
	}
	code := 5787801
	if op == "$minN" || op == "$maxN" {
		code = 5787900
	}
	a, err := parseBinding(arg, bindingErrs{
		notObject: func(arg any) error {
			return document.Errorf(document.Code(code), "specification must be an object; found %s: %s", op, document.Format(arg))
		},
		unknown: func(name string) error {
			return document.Errorf(document.Code(5787901), "Unknown argument for 'n' operator: %s", name)
		},
	}, "input", "n")
	if err != nil {
		return nArgs{}, err
	}
	if _, ok := a["n"]; !ok {
		return nArgs{}, document.Errorf(document.Code(5787906), "Missing value for 'n'")
	}
	if _, ok := a["input"]; !ok {
		return nArgs{}, document.Errorf(document.Code(5787907), "Missing value for 'input'")
	}
	r := nArgs{nRaw: a["n"]}
	if r.n, err = parseExpr(a["n"], depth.deeper()); err != nil {
		return nArgs{}, err
	}
	if r.input, err = parseExpr(a["input"], depth.deeper()); err != nil {
		return nArgs{}, err
	}
	return r, nil
}

func parseTopBottomArgs(op string, arg any, depth pdepth) (nArgs, error) {
	known := []string{"n", "output", "sortBy"}
	if nOps[op].single {
		known = known[1:]
	}
	a, err := parseBinding(arg, bindingErrs{
		notObject: func(arg any) error {
			return document.Errorf(document.Code(5788001), "specification must be an object; found %s: %s", op, document.Format(arg))
		},
		unknown: func(name string) error {
			return document.Errorf(document.Code(5788002), "Unknown argument to %s '%s'", op, name)
		},
	}, known...)
	if err != nil {
		return nArgs{}, err
	}
	var r nArgs
	if nOps[op].single {
		r.n = literal{int32(1)}
	} else if _, ok := a["n"]; !ok {
		return nArgs{}, document.Errorf(document.Code(5788003), "Missing value for 'n'")
	}
	if _, ok := a["output"]; !ok {
		return nArgs{}, document.Errorf(document.Code(5788004), "Missing value for 'output'")
	}
	sortBy, ok := a["sortBy"]
	if !ok {
		return nArgs{}, document.Errorf(document.Code(5788005), "Missing value for 'sortBy'")
	}
	sd, ok := sortBy.(bson.D)
	if !ok {
		return nArgs{}, document.Errorf(document.Code(10065), "invalid parameter: expected an object (sortBy)")
	}
	if len(sd) == 0 {
		return nArgs{}, document.Errorf(document.Code(9657900), "%s requires a non-empty 'sortBy'", op)
	}
	if r.sort, err = query.ParseSort(sd); err != nil {
		return nArgs{}, err
	}
	for _, k := range r.sort.Keys() {
		r.paths = append(r.paths, strings.Split(k.Path, "."))
	}
	if r.n == nil {
		r.nRaw = a["n"]
		if r.n, err = parseExpr(a["n"], depth.deeper()); err != nil {
			return nArgs{}, err
		}
	}
	if r.input, err = parseExpr(a["output"], depth.deeper()); err != nil {
		return nArgs{}, err
	}
	return r, nil
}

// topBottomValue is what $top and the others take from a document: the
// output, and the document's fields that sortBy names.
type topBottomValue struct {
	out any
	key bson.D
}

// arg evaluates the accumulator's argument for one document.
func (a nArgs) arg(e *Env) (any, error) {
	v, err := a.input.Eval(e)
	if err != nil || a.sort == nil {
		return v, err
	}
	if isMissing(v) {
		v = nil
	}
	return topBottomValue{out: v, key: includePaths(e.Root, a.paths)}, nil
}

// nExpr is $firstN, $lastN, $minN or $maxN as an expression: {n, input}
// over an array.
type nExpr struct {
	op   string
	args nArgs
}

func (x nExpr) Eval(e *Env) (any, error) {
	nv, err := x.args.n.Eval(e)
	if err != nil {
		return nil, err
	}
	n, err := validateN(nv)
	if err != nil {
		return nil, err
	}
	in, err := x.args.input.Eval(e)
	if err != nil {
		return nil, err
	}
	arr, ok := in.(bson.A)
	if !ok {
		return nil, document.Errorf(document.Code(5788200), "Input must be an array")
	}
	acc := newKeepN(x.op, n, nil, e.coll)
	for _, v := range arr {
		if err := acc.add(v); err != nil {
			return nil, err
		}
	}
	return acc.result(), nil
}

// mergeAcc is the $mergeObjects accumulator: the group's documents
// merged in order; null and missing skipped.
type mergeAcc struct {
	out   bson.D
	bytes int64
}

func (m *mergeAcc) add(v any) error {
	if nullish(v) {
		return nil
	}
	d, _ := v.(bson.D)
	for _, el := range d {
		if old, ok := docGet(m.out, el.Key); ok {
			m.bytes += approxSize(el.Value) - approxSize(old)
		} else {
			m.bytes += int64(len(el.Key)) + 16 + approxSize(el.Value)
		}
	}
	out, err := mergeObject(m.out, v)
	if err != nil {
		return err
	}
	m.out = out
	return nil
}

func (m *mergeAcc) size() int64 { return m.bytes }

func (m *mergeAcc) result() any {
	if m.out == nil {
		return bson.D{}
	}
	return m.out
}
