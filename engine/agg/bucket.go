package agg

import (
	"context"
	"math"
	"math/big"
	"math/bits"
	"slices"
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// groupByArg reports whether v may be a $bucket or $bucketAuto groupBy:
// a $-prefixed path (more than the "$") or an operator expression.
func groupByArg(v any) bool {
	switch x := v.(type) {
	case string:
		return len(x) > 1 && x[0] == '$'
	case bson.D:
		return len(x) > 0 && strings.HasPrefix(x[0].Key, "$")
	}
	return false
}

// parseConstant parses v and returns its value if it is constant.
func parseConstant(v any, sc pdepth) (any, bool, error) {
	e, err := parseExpr(v, sc)
	if err != nil {
		return nil, false, err
	}
	return constantOf(v, e, sc)
}

// parseBucket parses $bucket as mongod does: into a $group whose _id is a
// $switch over the boundaries (lower inclusive, upper exclusive, the
// default for the rest), and a $sort on that _id.
func parseBucket(arg any, sc pdepth) (stageSpec, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return stageSpec{}, document.Errorf(document.Code(40201), "Argument to $bucket stage must be an object, but found type: %s.", document.TypeName(arg))
	}
	var (
		groupBy          any
		bounds           []any
		def              any
		hasDef, hasOut   bool
		output           bson.D
		haveGroup, haveB bool
	)
	for _, el := range spec {
		switch el.Key {
		case "groupBy":
			if !groupByArg(el.Value) {
				return stageSpec{}, document.Errorf(document.Code(40202), "The $bucket 'groupBy' field must be defined as a $-prefixed path or an expression, but found: %s.", document.Format(el.Value))
			}
			groupBy, haveGroup = el.Value, true
		case "boundaries":
			list, ok := el.Value.(bson.A)
			if !ok {
				return stageSpec{}, document.Errorf(document.Code(40200), "The $bucket 'boundaries' field must be an array, but found type: %s.", document.TypeName(el.Value))
			}
			bounds = bounds[:0]
			for _, b := range list {
				v, ok, err := parseConstant(b, sc)
				if err != nil {
					return stageSpec{}, err
				}
				if !ok {
					return stageSpec{}, document.Errorf(document.Code(40191), "The $bucket 'boundaries' field must be an array of constant values, but found value: %s.", document.Format(b))
				}
				bounds = append(bounds, v)
			}
			if len(bounds) < 2 {
				return stageSpec{}, document.Errorf(document.Code(40192), "The $bucket 'boundaries' field must have at least 2 values, but found %d value(s).", len(bounds))
			}
			for i := 1; i < len(bounds); i++ {
				lo, hi := bounds[i-1], bounds[i]
				if document.CanonicalType(lo) != document.CanonicalType(hi) {
					return stageSpec{}, document.Errorf(document.Code(40193), "All values in the the 'boundaries' option to $bucket must have the same type. Found conflicting types %s and %s.", document.TypeName(lo), document.TypeName(hi))
				}
			}
			haveB = true
		case "default":
			v, ok, err := parseConstant(el.Value, sc)
			if err != nil {
				return stageSpec{}, err
			}
			if !ok {
				return stageSpec{}, document.Errorf(document.Code(40195), "The $bucket 'default' field must be a constant expression, but found: %s.", document.Format(el.Value))
			}
			def, hasDef = v, true
		case "output":
			d, ok := el.Value.(bson.D)
			if !ok {
				return stageSpec{}, document.Errorf(document.Code(40196), "The $bucket 'output' field must be an object, but found type: %s.", document.TypeName(el.Value))
			}
			output, hasOut = d, true
		default:
			return stageSpec{}, document.Errorf(document.Code(40197), "Unrecognized option to $bucket: %s.", el.Key)
		}
	}
	if !haveGroup || !haveB {
		return stageSpec{}, document.Errorf(document.Code(40198), "$bucket requires 'groupBy' and 'boundaries' to be specified.")
	}
	// The boundaries' order and the default's place compare under the
	// run's collation, so a boundary that compares strings is checked
	// when the run starts (before any document is read); the others now.
	check := func(c *collation.Collator) error { return checkBucketOrder(c, bounds, def, hasDef) }
	collated := slices.ContainsFunc(bounds, holdsString) || (hasDef && holdsString(def))
	if !collated {
		if err := check(nil); err != nil {
			return stageSpec{}, err
		}
	}
	// The values go in as $literal so that a string boundary such as "$x"
	// stays a string (mongod would read it as a path).
	lit := func(v any) bson.D { return bson.D{{Key: "$literal", Value: v}} }
	branches := make(bson.A, 0, len(bounds)-1)
	for i := 1; i < len(bounds); i++ {
		branches = append(branches, bson.D{
			{Key: "case", Value: bson.D{{Key: "$and", Value: bson.A{
				bson.D{{Key: "$gte", Value: bson.A{groupBy, lit(bounds[i-1])}}},
				bson.D{{Key: "$lt", Value: bson.A{groupBy, lit(bounds[i])}}},
			}}}},
			{Key: "then", Value: lit(bounds[i-1])},
		})
	}
	sw := bson.D{{Key: "branches", Value: branches}}
	if hasDef {
		sw = append(sw, bson.E{Key: "default", Value: lit(def)})
	}
	group := bson.D{{Key: "_id", Value: bson.D{{Key: "$switch", Value: sw}}}}
	if hasOut {
		group = append(group, output...)
	} else {
		group = append(group, bson.E{Key: "count", Value: bson.D{{Key: "$sum", Value: int32(1)}}})
	}
	g, err := parseGroup(group, sc)
	if err != nil {
		return stageSpec{}, err
	}
	s, err := parseSort(bson.D{{Key: "_id", Value: int32(1)}})
	if err != nil {
		return stageSpec{}, err
	}
	if collated {
		mk := g.make
		g.make = func(up iter, o *Options) iter {
			return &checkedIter{check: func() error { return check(o.Collator) }, make: func() iter { return mk(up, o) }}
		}
	}
	return stageSpec{parts: []stageSpec{g, s}}, nil
}

// checkBucketOrder refuses $bucket boundaries not in ascending order
// under c (40194) and a default between the lowest and the highest
// boundary (40199), as mongod does with the pipeline's collation.
func checkBucketOrder(c *collation.Collator, bounds []any, def any, hasDef bool) error {
	for i := 1; i < len(bounds); i++ {
		lo, hi := bounds[i-1], bounds[i]
		if c.CompareValues(lo, hi) >= 0 {
			return document.Errorf(document.Code(40194), "The 'boundaries' option to $bucket must be sorted, but elements %d and %d are not in ascending order (%s is not less than %s).", i-1, i, document.Format(lo), document.Format(hi))
		}
	}
	lo, hi := bounds[0], bounds[len(bounds)-1]
	if hasDef && document.CanonicalType(def) == document.CanonicalType(lo) &&
		c.CompareValues(def, lo) >= 0 && c.CompareValues(def, hi) < 0 {
		return document.Errorf(document.Code(40199), "The $bucket 'default' field must be less than the lowest boundary or greater than or equal to the highest boundary.")
	}
	return nil
}

// holdsString reports whether v is or holds a string or a symbol, whose
// order a collation changes.
func holdsString(v any) bool {
	switch x := v.(type) {
	case string, bson.Symbol:
		return true
	case bson.D:
		return slices.ContainsFunc(x, func(e bson.E) bool { return holdsString(e.Value) })
	case bson.A:
		return slices.ContainsFunc(x, holdsString)
	}
	return false
}

// checkedIter runs check when first read, before making (and reading)
// the iterator make gives; check's error fails the run.
type checkedIter struct {
	check func() error
	make  func() iter
	it    iter
}

func (c *checkedIter) next(ctx context.Context) (bson.D, error) {
	if c.it == nil {
		if err := c.check(); err != nil {
			return nil, err
		}
		c.it = c.make()
	}
	return c.it.next(ctx)
}

// bucketAutoSpec is a parsed $bucketAuto.
type bucketAutoSpec struct {
	groupBy Expr
	n       int
	accs    []accSpec
	round   rounder // nil: no granularity
}

// parseBucketAuto parses $bucketAuto's {groupBy, buckets, output,
// granularity} with mongod's checks.
func parseBucketAuto(arg any, sc pdepth) (stageSpec, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return stageSpec{}, document.Errorf(document.Code(40240), "The argument to $bucketAuto must be an object, but found type: %s", document.TypeName(arg))
	}
	b := &bucketAutoSpec{}
	haveN := false
	for _, el := range spec {
		switch el.Key {
		case "groupBy":
			if !groupByArg(el.Value) {
				return stageSpec{}, document.Errorf(document.Code(40239), "The $bucketAuto 'groupBy' field must be defined as a $-prefixed path or an expression object, but found: %s", document.Format(el.Value))
			}
			e, err := parseExpr(el.Value, sc)
			if err != nil {
				return stageSpec{}, err
			}
			b.groupBy = e
		case "buckets":
			if !document.IsNumber(el.Value) {
				return stageSpec{}, document.Errorf(document.Code(40241), "The $bucketAuto 'buckets' field must be a numeric value, but found type: %s", document.TypeName(el.Value))
			}
			n, ok := int32Value(el.Value)
			if !ok {
				return stageSpec{}, document.Errorf(document.Code(40242), "The $bucketAuto 'buckets' field must be representable as a 32-bit integer, but found %s", fmtDouble(query.ToFloat(el.Value)))
			}
			b.n, haveN = int(n), true
		case "output":
			out, ok := el.Value.(bson.D)
			if !ok {
				return stageSpec{}, document.Errorf(document.Code(40244), "The $bucketAuto 'output' field must be an object, but found type: %s", document.TypeName(el.Value))
			}
			b.accs = b.accs[:0]
			for _, f := range out {
				a, err := parseAccField(f, sc)
				if err != nil {
					return stageSpec{}, err
				}
				if a.nReads {
					// A bucket has no key for n to read.
					return stageSpec{}, document.Errorf(document.Code(4544714), "Can't refer to the group key in $bucketAuto")
				}
				b.accs = append(b.accs, a)
			}
		case "granularity":
			name, ok := el.Value.(string)
			if !ok {
				return stageSpec{}, document.Errorf(document.Code(40261), "The $bucketAuto 'granularity' field must be a string, but found type: %s", document.TypeName(el.Value))
			}
			r := granularity(name)
			if r == nil {
				return stageSpec{}, document.Errorf(document.Code(40257), "Unknown rounding granularity '%s'", name)
			}
			b.round = r
		default:
			return stageSpec{}, document.Errorf(document.Code(40245), "Unrecognized option to $bucketAuto: %s", el.Key)
		}
	}
	if b.groupBy == nil || !haveN {
		return stageSpec{}, document.Errorf(document.Code(40246), "$bucketAuto requires 'groupBy' and 'buckets' to be specified")
	}
	if b.n <= 0 {
		return stageSpec{}, document.Errorf(document.Code(40243), "The $bucketAuto 'buckets' field must be greater than 0, but found: %d", b.n)
	}
	if len(b.accs) == 0 {
		b.accs = []accSpec{plainAcc("count", "$sum", literal{int32(1)})}
	}
	return stageSpec{name: "$bucketAuto", spec: spec, make: func(up iter, o *Options) iter {
		return &bucketAutoStage{up: up, o: o, b: b}
	}}, nil
}

// bucketAutoStage reads its whole input, sorts it by the groupBy value
// and returns the buckets one at a time.
type bucketAutoStage struct {
	up   iter
	o    *Options
	b    *bucketAutoSpec
	read bool
	out  []bson.D
}

// autoEntry is one input document with its groupBy value and its position
// in the input.
type autoEntry struct {
	key any
	pos int
	doc bson.D
}

func (s *bucketAutoStage) next(ctx context.Context) (bson.D, error) {
	if !s.read {
		s.read = true
		if err := s.run(ctx); err != nil {
			return nil, err
		}
	}
	if len(s.out) == 0 {
		return nil, nil
	}
	d := s.out[0]
	s.out = s.out[1:]
	return d, nil
}

func (s *bucketAutoStage) run(ctx context.Context) error {
	var docs []autoEntry
	var held int64
	err := drain(ctx, s.up, func(d bson.D) error {
		k, err := s.b.groupBy.Eval(s.o.env(d))
		if err != nil {
			return err
		}
		if s.b.round != nil {
			if !document.IsNumber(k) {
				return document.Errorf(document.Code(40258), "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a value with type: %s", document.TypeName(k))
			}
			f := query.ToFloat(k)
			if math.IsNaN(f) {
				return document.Errorf(document.Code(40259), "$bucketAuto can specify a 'granularity' with numeric boundaries only, but found a NaN")
			}
			if f < 0 {
				return document.Errorf(document.Code(40260), "$bucketAuto can specify a 'granularity' with non-negative numbers only, but found a negative number")
			}
			if math.IsInf(f, 1) {
				// mongod 7.0's rounders never finish scaling an infinity;
				// mongod 8.3 refuses it with this code.
				return document.Errorf(codeBucketAutoInfinity, "$bucketAuto can specify a 'granularity' with finite numbers only, but found an infinity")
			}
		}
		if isMissing(k) {
			k = nil
		}
		if held += approxSize(d) + approxSize(k); held > s.o.MaxMemoryBytes {
			return memoryErr("$bucketAuto", s.o)
		}
		docs = append(docs, autoEntry{key: k, pos: len(docs), doc: d})
		return nil
	})
	if err != nil {
		return err
	}
	slices.SortStableFunc(docs, func(a, b autoEntry) int { return s.o.Collator.CompareValues(a.key, b.key) })
	return s.buckets(docs)
}

// buckets splits docs (sorted by key) into at most n buckets of about
// len/n documents, as mongod does: documents with equal keys share a
// bucket, a bucket's max is the next bucket's min (the last one's is its
// largest key), and with a granularity the bounds are rounded outwards
// to the series.
func (s *bucketAutoStage) buckets(docs []autoEntry) error {
	n := s.b.n
	size := int(math.Round(float64(len(docs)) / float64(n)))
	size = max(size, 1)
	i := 0
	var prevMax any
	havePrev := false
	for num := 1; num <= n && i < len(docs); num++ {
		start := i
		lo, hi := docs[i].key, docs[i].key
		i++
		if s.b.round != nil {
			if havePrev {
				lo = prevMax
			} else {
				v, err := s.b.round.down(lo)
				if err != nil {
					return err
				}
				lo = v
			}
		}
		for k := 1; i < len(docs) && (k < size || num == n); k++ {
			hi = docs[i].key
			i++
		}
		if s.b.round != nil {
			up, err := s.b.round.up(hi)
			if err != nil {
				return err
			}
			for i < len(docs) && (document.Compare(up, docs[i].key) > 0 || document.Compare(hi, docs[i].key) == 0) {
				hi = docs[i].key
				i++
			}
			hi = up
			if query.ToFloat(up) == 0 && i < len(docs) {
				if hi, err = s.b.round.down(docs[i].key); err != nil {
					return err
				}
			}
		} else {
			for i < len(docs) && s.o.Collator.CompareValues(hi, docs[i].key) == 0 {
				i++
			}
			if i < len(docs) {
				hi = docs[i].key
			}
		}
		prevMax, havePrev = hi, true
		d, err := s.bucket(docs[start:i], lo, hi)
		if err != nil {
			return err
		}
		s.out = append(s.out, d)
	}
	return nil
}

// bucket computes one bucket's document. $first and $last see the
// bucket's documents in input order, as in mongod; the other
// accumulators see them in key order.
func (s *bucketAutoStage) bucket(docs []autoEntry, lo, hi any) (bson.D, error) {
	byPos := slices.Clone(docs)
	slices.SortFunc(byPos, func(a, b autoEntry) int { return a.pos - b.pos })
	out := bson.D{{Key: "_id", Value: bson.D{{Key: "min", Value: lo}, {Key: "max", Value: hi}}}}
	for _, a := range s.b.accs {
		// An n-accumulator's n cannot see a key here: it is evaluated
		// against an empty document.
		acc, err := a.start(s.o.env(nil))
		if err != nil {
			return nil, err
		}
		in := docs
		if a.op == "$first" || a.op == "$last" || a.op == "$firstN" || a.op == "$lastN" {
			in = byPos
		}
		for _, k := range in {
			v, err := a.arg(s.o.env(k.doc))
			if err != nil {
				return nil, err
			}
			if err := acc.add(v); err != nil {
				return nil, err
			}
		}
		v, err := accResult(acc)
		if err != nil {
			return nil, err
		}
		if isMissing(v) {
			v = nil
		}
		out = append(out, bson.E{Key: a.field, Value: v})
	}
	return out, nil
}

// codeBucketAutoInfinity is mongod 8.3's code for an infinite $bucketAuto
// key under a granularity.
const codeBucketAutoInfinity = document.Code(11785400)

// rounder rounds a non-negative number to a $bucketAuto granularity:
// up to the next value of the series above it, down to the one below.
type rounder interface {
	up(v any) (any, error)
	down(v any) (any, error)
}

// granularity returns the rounder of a granularity name, nil if none.
func granularity(name string) rounder {
	if name == "POWERSOF2" {
		return powersOfTwo{}
	}
	if s, ok := preferredSeries[name]; ok {
		return preferred(s)
	}
	return nil
}

// preferredSeries are the preferred-number series mongod rounds to:
// Renard, 1-2-5 and E series, one decade each.
var preferredSeries = map[string][]float64{
	"R5":    {10, 16, 25, 40, 63},
	"R10":   {100, 125, 160, 200, 250, 315, 400, 500, 630, 800},
	"R20":   {100, 112, 125, 140, 160, 180, 200, 224, 250, 280, 315, 355, 400, 450, 500, 560, 630, 710, 800, 900},
	"R40":   {100, 106, 112, 118, 125, 132, 140, 150, 160, 170, 180, 190, 200, 212, 224, 236, 250, 265, 280, 300, 315, 355, 375, 400, 425, 450, 475, 500, 530, 560, 600, 630, 670, 710, 750, 800, 850, 900, 950},
	"R80":   {103, 109, 115, 122, 128, 136, 145, 155, 165, 175, 185, 195, 206, 218, 230, 243, 258, 272, 290, 307, 325, 345, 365, 387, 412, 437, 462, 487, 515, 545, 575, 615, 650, 690, 730, 775, 825, 875, 925, 975},
	"1-2-5": {10, 20, 50},
	"E6":    {10, 15, 22, 33, 47, 68},
	"E12":   {10, 12, 15, 18, 22, 27, 33, 39, 47, 56, 68, 82},
	"E24":   {10, 11, 12, 13, 15, 16, 18, 20, 22, 24, 27, 30, 33, 36, 39, 43, 47, 51, 56, 62, 68, 75, 82, 91},
	"E48":   {100, 105, 110, 115, 121, 127, 133, 140, 147, 154, 162, 169, 178, 187, 196, 205, 215, 226, 237, 249, 261, 274, 287, 301, 316, 332, 348, 365, 383, 402, 422, 442, 464, 487, 511, 536, 562, 590, 619, 649, 681, 715, 750, 787, 825, 866, 909, 953},
	"E96":   {100, 102, 105, 107, 110, 113, 115, 118, 121, 124, 127, 130, 133, 137, 140, 143, 147, 150, 154, 158, 162, 165, 169, 174, 178, 182, 187, 191, 196, 200, 205, 210, 215, 221, 226, 232, 237, 243, 249, 255, 261, 267, 274, 280, 287, 294, 301, 309, 316, 324, 332, 340, 348, 357, 365, 374, 383, 392, 402, 412, 422, 432, 442, 453, 464, 475, 487, 499, 511, 523, 536, 549, 562, 576, 590, 604, 619, 634, 649, 665, 681, 698, 715, 732, 750, 768, 787, 806, 825, 845, 866, 887, 909, 931, 953, 976},
	"E192":  {100, 101, 102, 104, 105, 106, 107, 109, 110, 111, 113, 114, 115, 117, 118, 120, 121, 123, 124, 126, 127, 129, 130, 132, 133, 135, 137, 138, 140, 142, 143, 145, 147, 149, 150, 152, 154, 156, 158, 160, 162, 164, 165, 167, 169, 172, 174, 176, 178, 180, 182, 184, 187, 189, 191, 193, 196, 198, 200, 203, 205, 208, 210, 213, 215, 218, 221, 223, 226, 229, 232, 234, 237, 240, 243, 246, 249, 252, 255, 258, 261, 264, 267, 271, 274, 277, 280, 284, 287, 291, 294, 298, 301, 305, 309, 312, 316, 320, 324, 328, 332, 336, 340, 344, 348, 352, 357, 361, 365, 370, 374, 379, 383, 388, 392, 397, 402, 407, 412, 417, 422, 427, 432, 437, 442, 448, 453, 459, 464, 470, 475, 481, 487, 493, 499, 505, 511, 517, 523, 530, 536, 542, 549, 556, 562, 569, 576, 583, 590, 597, 604, 612, 619, 626, 634, 642, 649, 657, 665, 673, 681, 690, 698, 706, 715, 723, 732, 741, 750, 759, 768, 777, 787, 796, 806, 816, 825, 835, 845, 856, 866, 876, 887, 898, 909, 920, 931, 942, 953, 965, 976, 988},
}

// preferred rounds to a preferred-number series scaled by powers of ten.
// A decimal is rounded in exact decimal arithmetic and stays a decimal;
// any other number is rounded as a double, as mongod does.
type preferred []float64

// checkRound refuses what no rounder takes; codes are the preferred
// series' (powers of two use 40265-40267).
func checkRound(v any, codes [3]int) (float64, error) {
	if !document.IsNumber(v) {
		return 0, document.Errorf(document.Code(codes[0]), "A granularity rounder can only round numeric values, but found type: %s", document.TypeName(v))
	}
	f := query.ToFloat(v)
	if math.IsNaN(f) {
		return 0, document.Errorf(document.Code(codes[1]), "A granularity rounder cannot round NaN")
	}
	if f < 0 {
		return 0, document.Errorf(document.Code(codes[2]), "A granularity rounder can only round non-negative numbers")
	}
	return f, nil
}

var preferredCodes = [3]int{40262, 40263, 40268}

func (p preferred) up(v any) (any, error) {
	f, err := checkRound(v, preferredCodes)
	if err != nil || f == 0 {
		return v, err
	}
	if d, ok := v.(bson.Decimal128); ok {
		return p.decimal(d, true)
	}
	first, last := p[0], p[len(p)-1]
	m := 1.0
	for f >= last*m {
		m *= 10
	}
	for f < first*m {
		prev := first * m
		m /= 10
		if f >= last*m {
			return prev, nil
		}
	}
	for _, s := range p {
		if f < s*m {
			return s * m, nil
		}
	}
	return last * m, nil // not reached: f < last*m
}

func (p preferred) down(v any) (any, error) {
	f, err := checkRound(v, preferredCodes)
	if err != nil || f == 0 {
		return v, err
	}
	if d, ok := v.(bson.Decimal128); ok {
		return p.decimal(d, false)
	}
	first, last := p[0], p[len(p)-1]
	m := 1.0
	for f <= first*m {
		m /= 10
	}
	if m == 0 {
		// f is a subnormal below every scaled series value: it rounds
		// down to 0, as mongod does since SERVER-57091
		// (granularity_near_zero.js).
		return 0.0, nil
	}
	for f > last*m {
		prev := last * m
		m *= 10
		if f <= first*m {
			return prev, nil
		}
	}
	for i, s := range p {
		if !(s*m < f) {
			return p[i-1] * m, nil
		}
	}
	return last * m, nil // not reached: f <= last*m
}

// decimal rounds a positive decimal in exact arithmetic. The series
// value is a decimal of 15 significant digits (mongod converts the
// series' doubles so) times a power of ten.
func (p preferred) decimal(d bson.Decimal128, up bool) (any, error) {
	x, ok := new(big.Rat).SetString(d.String())
	if !ok {
		return nil, document.Errorf(document.CodeBadValue, "cannot round %s", d.String())
	}
	scaled := func(s float64, k int) *big.Rat {
		r := new(big.Rat).SetInt64(int64(s))
		t := new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(k))), nil))
		if k < 0 {
			return r.Quo(r, t)
		}
		return r.Mul(r, t)
	}
	first, last := p[0], p[len(p)-1]
	k := 0
	if up {
		for x.Cmp(scaled(last, k)) >= 0 {
			k++
		}
		for x.Cmp(scaled(first, k)) < 0 {
			k--
			if x.Cmp(scaled(last, k)) >= 0 {
				return decimalOf(first, k+1)
			}
		}
		for _, s := range p {
			if x.Cmp(scaled(s, k)) < 0 {
				return decimalOf(s, k)
			}
		}
		return decimalOf(last, k)
	}
	for x.Cmp(scaled(first, k)) <= 0 {
		k--
	}
	for x.Cmp(scaled(last, k)) > 0 {
		k++
		if x.Cmp(scaled(first, k)) <= 0 {
			return decimalOf(last, k-1)
		}
	}
	for i, s := range p {
		if scaled(s, k).Cmp(x) >= 0 {
			return decimalOf(p[i-1], k)
		}
	}
	return decimalOf(last, k)
}

// decimalOf is s x 10^k as mongod's Decimal128 product writes it: s with
// 15 significant digits, the power of ten as trailing zeros when k > 0.
func decimalOf(s float64, k int) (any, error) {
	digits := big.NewInt(int64(s)).String()
	coef := digits + strings.Repeat("0", 15-len(digits))
	exp := -(15 - len(digits))
	if k > 0 {
		coef += strings.Repeat("0", k)
	} else {
		exp += k
	}
	for len(coef) > 34 && strings.HasSuffix(coef, "0") {
		coef, exp = coef[:len(coef)-1], exp+1
	}
	d, err := bson.ParseDecimal128(coef + "E" + big.NewInt(int64(exp)).String())
	if err != nil {
		return nil, document.Errorf(document.CodeBadValue, "cannot round to %sE%d", coef, exp)
	}
	return d, nil
}

// powersOfTwo rounds to powers of two, keeping an int or long whole.
type powersOfTwo struct{}

var powersCodes = [3]int{40265, 40266, 40267}

func (powersOfTwo) up(v any) (any, error) {
	f, err := checkRound(v, powersCodes)
	if err != nil || f == 0 {
		return v, err
	}
	if n, ok := wholeInt(v); ok {
		return pow2(64 - bits.LeadingZeros64(uint64(n)))
	}
	return pow2Like(v, int(math.Floor(math.Log2(f))+1))
}

func (powersOfTwo) down(v any) (any, error) {
	f, err := checkRound(v, powersCodes)
	if err != nil || f == 0 {
		return v, err
	}
	if n, ok := wholeInt(v); ok {
		e := 63 - bits.LeadingZeros64(uint64(n))
		if n&(n-1) == 0 {
			e-- // a power of two rounds down to the one below
		}
		return pow2(e)
	}
	return pow2Like(v, int(math.Ceil(math.Log2(f))-1))
}

// pow2 is 2^e as $pow gives it for two whole numbers: an int while it
// fits, then a long, then a double.
func pow2(e int) (any, error) {
	switch {
	case e < 0:
		return math.Ldexp(1, e), nil
	case e < 31:
		return int32(1) << e, nil
	case e < 63:
		return int64(1) << e, nil
	}
	return math.Ldexp(1, e), nil
}

// pow2Like is 2^e for a double, whose exponent mongod takes as an int
// (so the power is $pow's of two ints), or for a decimal (a decimal,
// here through a double: mongod computes it in decimal).
func pow2Like(v any, e int) (any, error) {
	if _, ok := v.(bson.Decimal128); ok {
		d, err := bson.ParseDecimal128(strconv.FormatFloat(math.Ldexp(1, e), 'g', -1, 64))
		if err != nil {
			return nil, document.Errorf(document.CodeBadValue, "cannot round to 2^%d", e)
		}
		return d, nil
	}
	return pow2(e)
}
