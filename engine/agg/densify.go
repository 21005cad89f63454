package agg

import (
	"context"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $densify: fill the gaps of a numeric or date field with new documents,
// one a step, over the whole input, each partition or an explicit range
// (docs/aggregation.md, "$densify"). As mongod does, the stage parses
// into a $sort and a streaming $_internalDensify that relies on that
// order.

// DefaultMaxDensifyDocs is how many documents one $densify may generate,
// mongod's internalQueryMaxAllowedDensifyDocs.
const DefaultMaxDensifyDocs = 500_000

// The three kinds of $densify bounds.
const (
	densifyFull      = iota // "full": from the smallest value to the largest
	densifyPartition        // "partition": each partition its own
	densifyExplicit         // [lo, hi): a range given in the stage
)

// densifySpec is a parsed $densify.
type densifySpec struct {
	field      []string
	fieldName  string
	partitions [][]string
	partExpr   *partNode // the partition expression of partitions
	partNames  []string
	step       any    // a positive number
	unit       string // "" for numbers, else a date unit
	stepN      int64  // step as a whole number, with a unit
	bounds     int
	lo, hi     any // explicit bounds
}

// idlField names a field of the $densify spec in the IDL parser's
// messages.
func idlField(path string) string { return idlFieldIn("$densify", path) }

// idlFieldIn names the field at path of the IDL struct parsed as root.
func idlFieldIn(root, path string) string { return "BSON field '" + root + "." + path + "'" }

func idlWrongType(path string, v any, want string) error {
	return idlWrongTypeIn("$densify", path, v, want)
}

// idlWrongTypeIn is the IDL parser's refusal (14) of a field of the
// wrong type.
func idlWrongTypeIn(root, path string, v any, want string) error {
	return document.Errorf(document.CodeTypeMismatch, "%s is the wrong type '%s', expected type '%s'", idlFieldIn(root, path), document.TypeName(v), want)
}

// parseDensify parses $densify as mongod's IDL and RangeStatement do and
// returns the $sort and $_internalDensify it stands for.
func parseDensify(arg any) (stageSpec, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return stageSpec{}, document.Errorf(document.CodeFailedToParse, "The $densify stage specification must be an object, found %s", document.TypeName(arg))
	}
	var (
		field     *string
		partition bson.A
		rng       bson.D
		seen      = map[string]bool{}
	)
	for _, el := range spec {
		if seen[el.Key] {
			return stageSpec{}, document.Errorf(document.Code(40413), "%s is a duplicate field", idlField(el.Key))
		}
		seen[el.Key] = true
		switch el.Key {
		case "field":
			s, ok := el.Value.(string)
			if !ok {
				return stageSpec{}, idlWrongType("field", el.Value, "string")
			}
			field = &s
		case "partitionByFields":
			a, ok := el.Value.(bson.A)
			if !ok {
				return stageSpec{}, idlWrongType("partitionByFields", el.Value, "array")
			}
			for i, v := range a {
				if _, ok := v.(string); !ok {
					return stageSpec{}, idlWrongType("partitionByFields."+strconv.Itoa(i), v, "string")
				}
			}
			partition = a
		case "range":
			d, ok := el.Value.(bson.D)
			if !ok {
				return stageSpec{}, idlWrongType("range", el.Value, "object")
			}
			if err := checkDensifyRange(d); err != nil {
				return stageSpec{}, err
			}
			rng = d
		default:
			return stageSpec{}, document.Errorf(document.CodeIDLUnknownField, "%s is an unknown field.", idlField(el.Key))
		}
	}
	for _, f := range []string{"field", "range"} {
		if !seen[f] {
			return stageSpec{}, document.Errorf(document.Code(40414), "%s is missing but a required field", idlField(f))
		}
	}
	s := &densifySpec{fieldName: *field}
	if err := s.parseRange(rng); err != nil {
		return stageSpec{}, err
	}
	for _, v := range partition {
		name := v.(string)
		parts, err := lookupPath(name)
		if err != nil {
			return stageSpec{}, err
		}
		s.partitions = append(s.partitions, parts)
		s.partNames = append(s.partNames, name)
	}
	parts, err := lookupPath(s.fieldName)
	if err != nil {
		return stageSpec{}, err
	}
	s.field = parts
	s.partExpr = partitionExpr(s.partitions)
	if s.bounds == densifyPartition && len(s.partitions) == 0 {
		return stageSpec{}, document.Errorf(document.Code(5733408), "One cannot specify the bounds as 'partition' without specifying a non-empty array of partitionByFields. You may have meant to specify 'full' bounds.")
	}
	for _, p := range s.partNames {
		if p == s.fieldName || strings.HasPrefix(p, s.fieldName+".") {
			return stageSpec{}, document.Errorf(document.Code(8993000), "%s contains the field that is being densified", idlField("partitionByFields"))
		}
		if strings.HasPrefix(s.fieldName, p+".") {
			return stageSpec{}, document.Errorf(document.Code(9554500), "The field that is being densified contains the %s", idlField("partitionByFields"))
		}
	}

	// The $sort: the partitions (unless the bounds are "full"), then the
	// field.
	var sortSpec bson.D
	if s.bounds != densifyFull {
		for _, p := range s.partNames {
			if !slices.ContainsFunc(sortSpec, func(e bson.E) bool { return e.Key == p }) {
				sortSpec = append(sortSpec, bson.E{Key: p, Value: int32(1)})
			}
		}
	}
	sortSpec = append(sortSpec, bson.E{Key: s.fieldName, Value: int32(1)})
	srt, err := parseSort(sortSpec)
	if err != nil {
		return stageSpec{}, err
	}
	internal := stageSpec{name: "$_internalDensify", spec: s.explain(), make: func(up iter, o *Options) iter {
		return &densifyIter{densifySpec: s, up: up, o: o, table: map[string]*densifyPart{}}
	}}
	return stageSpec{parts: []stageSpec{srt, internal}}, nil
}

// checkDensifyRange checks range's fields as mongod's IDL does: step a
// number, unit a string, bounds anything; step and bounds required.
func checkDensifyRange(d bson.D) error {
	seen := map[string]bool{}
	for _, el := range d {
		path := "range." + el.Key
		if seen[el.Key] {
			return document.Errorf(document.Code(40413), "%s is a duplicate field", idlField(path))
		}
		seen[el.Key] = true
		switch el.Key {
		case "step":
			if !document.IsNumber(el.Value) {
				return document.Errorf(document.CodeTypeMismatch, "%s is the wrong type '%s', expected types '[long, int, decimal, double]'", idlField(path), document.TypeName(el.Value))
			}
		case "unit":
			if _, ok := el.Value.(string); !ok {
				return idlWrongType(path, el.Value, "string")
			}
		case "bounds":
		default:
			return document.Errorf(document.CodeIDLUnknownField, "%s is an unknown field.", idlField(path))
		}
	}
	for _, f := range []string{"step", "bounds"} {
		if !seen[f] {
			return document.Errorf(document.Code(40414), "%s is missing but a required field", idlField("range."+f))
		}
	}
	return nil
}

// parseRange reads a checked range as mongod's RangeStatement does.
func (s *densifySpec) parseRange(d bson.D) error {
	var bounds any
	for _, el := range d {
		switch el.Key {
		case "step":
			s.step = el.Value
		case "unit":
			s.unit = el.Value.(string)
		case "bounds":
			bounds = el.Value
		}
	}
	if document.Compare(s.step, int32(0)) <= 0 {
		return document.Errorf(document.Code(5733401), "The step parameter in a range statement must be a strictly positive numeric value")
	}
	if s.unit != "" {
		n, ok := int64Value(s.step)
		if !ok {
			return document.Errorf(document.Code(6586400), "The step parameter in a range statement must be a whole number when densifying a date range")
		}
		switch s.unit {
		case "year", "quarter", "month", "week", "day", "hour", "minute", "second", "millisecond":
		default:
			return document.Errorf(document.CodeFailedToParse, "unknown time unit value: %s", s.unit)
		}
		s.stepN = n
	}
	switch b := bounds.(type) {
	case bson.A:
		if len(b) != 2 {
			return document.Errorf(document.Code(5733403), "A bounding array in a range statement must have exactly two elements")
		}
		lo, hi := b[0], b[1]
		if document.Compare(lo, hi) > 0 {
			return document.Errorf(document.Code(5733402), "A bounding array must be an ascending array of either two dates or two numbers")
		}
		switch {
		case document.IsNumber(lo):
			if s.unit != "" {
				return document.Errorf(document.Code(5733409), "Numeric bounds may not have unit parameter")
			}
			if !document.IsNumber(hi) {
				return document.Errorf(document.Code(5733406), "A bounding array must contain either both dates or both numeric types")
			}
			if document.TypeNumber(lo) != document.TypeNumber(hi) || document.TypeNumber(lo) != document.TypeNumber(s.step) {
				return document.Errorf(document.Code(5876900), "Upper bound, lower bound, and step must all have the same type")
			}
		case isDate(lo):
			if !isDate(hi) {
				return document.Errorf(document.Code(5733405), "A bounding array must contain either both dates or both numeric types")
			}
			if s.unit == "" {
				return document.Errorf(document.Code(5733410), "A bounding array of dates must specify a unit")
			}
		default:
			return document.Errorf(document.Code(5946800), "Explicit bounds must be numeric or dates")
		}
		s.bounds, s.lo, s.hi = densifyExplicit, lo, hi
	case string:
		switch b {
		case "full":
			s.bounds = densifyFull
		case "partition":
			s.bounds = densifyPartition
		default:
			return document.Errorf(document.Code(5946802), "Bounds string must either be 'full' or 'partition'")
		}
	default:
		return document.Errorf(document.Code(5733404), "The bounds in a range statement must be the string 'full', 'partition', or an ascending array of two numbers or two dates")
	}
	return nil
}

func isDate(v any) bool { _, ok := v.(bson.DateTime); return ok }

// explain is the $_internalDensify spec explain shows.
func (s *densifySpec) explain() bson.D {
	parts := bson.A{}
	for _, p := range s.partNames {
		parts = append(parts, p)
	}
	var b any
	switch s.bounds {
	case densifyFull:
		b = "full"
	case densifyPartition:
		b = "partition"
	default:
		b = bson.A{s.lo, s.hi}
	}
	r := bson.D{{Key: "step", Value: s.step}, {Key: "bounds", Value: b}}
	if s.unit != "" {
		r = append(r, bson.E{Key: "unit", Value: s.unit})
	}
	return bson.D{{Key: "field", Value: s.fieldName}, {Key: "partitionByFields", Value: parts}, {Key: "range", Value: r}}
}

// inc is v plus one step: $add's arithmetic for numbers, calendar
// arithmetic in UTC for dates.
func (s *densifySpec) inc(v any) (any, error) { return s.add(v, 1) }

// dec is v less one step.
func (s *densifySpec) dec(v any) (any, error) { return s.add(v, -1) }

func (s *densifySpec) add(v any, sign int32) (any, error) {
	if d, ok := v.(bson.DateTime); ok {
		t, ok := dateAdd(d.Time(), s.unit, int64(sign)*s.stepN, time.UTC)
		if !ok {
			return nil, document.Errorf(document.Code(5166406), "dateAdd overflowed")
		}
		return bson.NewDateTimeFromTime(t), nil
	}
	if sign < 0 {
		return opSubtract([]any{v, s.step})
	}
	return opAdd([]any{v, s.step})
}

// maxStepWalk bounds the steps onStep takes through a calendar: past
// it, the value is not on the step. The values it compares are a step
// apart except for a document above an explicit range, where the answer
// changes nothing that is output.
const maxStepWalk = 4800

// onStep reports whether v is a whole number of steps above base, as
// mongod's isOnStepRelativeTo: modulo arithmetic for numbers and
// fixed-length units; for months, quarters and years, stepping from
// base until v is reached or passed (a month's end moves the day).
func (s *densifySpec) onStep(v, base any) (bool, error) {
	d, ok := v.(bson.DateTime)
	if !ok {
		diff, err := opSubtract([]any{v, base})
		if err != nil {
			return false, err
		}
		rem, err := opMod([]any{diff, s.step})
		if err != nil {
			return false, err
		}
		return document.Compare(rem, int32(0)) == 0, nil
	}
	b := base.(bson.DateTime)
	switch s.unit {
	case "month", "quarter", "year":
		cur := b.Time()
		for i := 0; cur.Before(d.Time()); i++ {
			if i == maxStepWalk {
				return false, nil
			}
			next, ok := dateAdd(cur, s.unit, s.stepN, time.UTC)
			if !ok {
				return false, document.Errorf(document.Code(5166406), "dateAdd overflowed")
			}
			cur = next
		}
		return cur.Equal(d.Time()), nil
	}
	one, ok := dateAdd(time.UnixMilli(0), s.unit, s.stepN, time.UTC)
	if !ok || one.UnixMilli() == 0 {
		return false, document.Errorf(document.Code(5166406), "dateAdd overflowed")
	}
	return (int64(d)-int64(b))%one.UnixMilli() == 0, nil
}

// States of a $_internalDensify run, mongod's.
const (
	dsStart     = iota // no document yet, or the last one below the range
	dsNeedGen          // reading the next document
	dsHaveGen          // returning generated documents
	dsFinishing        // the input is over; filling the partitions
	dsDone             // nothing more to generate
)

// densifyPart is what a run knows of one partition: its partition
// fields (the fields of a generated document) and its last value.
type densifyPart struct {
	fields bson.D
	val    any
	size   int64
}

// densifyIter is one run of $_internalDensify over input sorted by its
// $sort. It follows mongod's state machine, so that what it generates,
// and in what order, is mongod's.
type densifyIter struct {
	*densifySpec
	up    iter
	o     *Options
	state int
	eof   bool

	cur       any // the last value seen or generated on the step (nil: none)
	globalMin any
	globalMax any

	partitioned bool // a document with a value has been seen, with partitionByFields
	table       map[string]*densifyPart
	order       []string // the table's keys, first seen first (for the end)
	held        int64

	gen       *densifyGen
	generated int64
}

// densifyGen generates the documents from min (inclusive) to hi
// (exclusive; min itself always) a step apart, then returns final.
type densifyGen struct {
	min, hi any
	fields  bson.D
	final   bson.D
	state   int // 0 generating, 1 returning final, 2 done
}

func (s *densifyIter) maxDocs() int64 {
	if s.o.MaxDensifyDocs > 0 {
		return s.o.MaxDensifyDocs
	}
	return DefaultMaxDensifyDocs
}

func (s *densifyIter) next(ctx context.Context) (bson.D, error) {
	if s.generated > s.maxDocs() {
		return nil, document.Errorf(document.Code(5897900), "Generated %d documents in $densify, which is over the limit of %d. Increase the 'internalQueryMaxAllowedDensifyDocs' parameter to allow more generated documents", s.generated, s.maxDocs())
	}
	switch s.state {
	case dsStart, dsNeedGen:
		d, v, err := s.read(ctx)
		if err != nil || d == nil {
			if err == nil && s.eof {
				return s.exhausted()
			}
			return nil, err
		}
		if v == nil {
			return d, nil // no value: passes through
		}
		if s.state == dsStart {
			return s.first(d, v)
		}
		return s.needGen(d, v)
	case dsHaveGen:
		return s.fromGen()
	case dsFinishing:
		return s.finishPartitions()
	}
	if s.eof {
		return nil, nil
	}
	return s.up.next(ctx)
}

// read returns the next input document and its value (nil when the
// field is missing or null); at the end of the input it sets eof.
func (s *densifyIter) read(ctx context.Context) (bson.D, any, error) {
	if s.eof {
		return nil, nil, nil
	}
	d, err := s.up.next(ctx)
	if err != nil {
		return nil, nil, err
	}
	if d == nil {
		s.eof = true
		return nil, nil, nil
	}
	raw, ok := plainGet(d, s.field)
	if !ok || nullish(raw) {
		return d, nil, nil
	}
	v, err := s.value(raw)
	return d, v, err
}

// value checks a document's value as mongod's getDensifyValue does.
func (s *densifyIter) value(v any) (any, error) {
	num, date := document.IsNumber(v), isDate(v)
	if !num && !date {
		return nil, document.Errorf(document.Code(5733201), "Densify field type must be numeric or a date")
	}
	if num && s.unit != "" {
		return nil, document.Errorf(document.Code(6053600), "Encountered numeric densify value in collection when step has a date unit.")
	}
	if date && s.unit == "" {
		return nil, document.Errorf(document.Code(6053600), "Encountered date densify value in collection when step does not have a date unit.")
	}
	return v, nil
}

// docValue is the value of a document the stage returns, which has one.
func (s *densifyIter) docValue(d bson.D) (any, error) {
	v, _ := plainGet(d, s.field)
	return s.value(v)
}

// first handles the first document with a value (or the first after
// ones below an explicit range).
func (s *densifyIter) first(d bson.D, v any) (bson.D, error) {
	if len(s.partitions) > 0 && !s.partitioned {
		s.partitioned = true
		if err := s.setPartition(d); err != nil {
			return nil, err
		}
	}
	switch s.bounds {
	case densifyFull:
		s.cur, s.globalMin, s.globalMax = v, v, v
		s.state = dsNeedGen
		return d, nil
	case densifyPartition:
		s.state = dsNeedGen
		return d, nil
	}
	return s.firstExplicit(d, v)
}

// needGen handles a document with a value after the first: it takes
// its partition's last value (a new partition starts below the smallest
// value for "full", is only recorded for "partition", starts below the
// range for explicit bounds), then fills the gap up to it.
func (s *densifyIter) needGen(d bson.D, v any) (bson.D, error) {
	switch s.bounds {
	case densifyFull:
		if s.partitioned {
			s.globalMax = v
			p, ok := s.table[s.partKey(d)]
			if !ok {
				// A new partition starts at the smallest value seen.
				cur, err := s.dec(s.globalMin)
				if err != nil {
					return nil, err
				}
				s.cur = cur
				if err := s.setPartition(d); err != nil {
					return nil, err
				}
				return s.gap(d, v)
			}
			s.cur = p.val
		}
		return s.gap(d, v)
	case densifyPartition:
		p, ok := s.table[s.partKey(d)]
		if !ok {
			return d, s.setPartition(d)
		}
		s.cur = p.val
		return s.gap(d, v)
	}
	if s.partitioned {
		p, ok := s.table[s.partKey(d)]
		if !ok {
			if err := s.setPartition(d); err != nil {
				return nil, err
			}
			s.cur = nil
			return s.firstExplicit(d, v)
		}
		s.cur = p.val
	}
	return s.needGenExplicit(d, v)
}

// gap returns d, or the first of the documents between the last value
// and d's ("full" and "partition" bounds).
func (s *densifyIter) gap(d bson.D, v any) (bson.D, error) {
	next, err := s.inc(s.cur)
	if err != nil {
		return nil, err
	}
	c := document.Compare(v, next)
	if c == 0 {
		if err := s.setPartition(d); err != nil {
			return nil, err
		}
		s.cur = v
	}
	if c <= 0 {
		return d, nil
	}
	out, err := s.generate(next, v, s.genFields(d), d, dsNeedGen)
	if err != nil {
		return nil, err
	}
	if s.cur, err = s.docValue(out); err != nil {
		return nil, err
	}
	return out, s.setPartition(out)
}

// Where a value falls against explicit bounds.
const (
	rangeBelow = iota
	rangeMin
	rangeInside
	rangeAbove
)

func (s *densifyIter) where(v any) int {
	switch c := document.Compare(v, s.lo); {
	case c < 0:
		return rangeBelow
	case c == 0:
		return rangeMin
	case document.Compare(v, s.hi) < 0:
		return rangeInside
	}
	return rangeAbove
}

func (s *densifyIter) firstExplicit(d bson.D, v any) (bson.D, error) {
	if s.cur == nil {
		cur, err := s.dec(s.lo)
		if err != nil {
			return nil, err
		}
		s.cur = cur
	}
	switch s.where(v) {
	case rangeMin:
		// Remembered as its partition's last value, so that the
		// partition's next gap starts there (mongod's doc_on_bound.js:
		// the stage of the source we read forgot to, and generated the
		// lower bound twice).
		s.state, s.cur = dsNeedGen, v
		return d, s.setPartition(d)
	case rangeBelow:
		s.state = dsStart
		return d, nil
	}
	return s.aboveMin(d, v)
}

// aboveMin returns d or the first document generated between the last
// value and d's (or the upper bound).
func (s *densifyIter) aboveMin(d bson.D, v any) (bson.D, error) {
	lower, err := s.inc(s.cur)
	if err != nil {
		return nil, err
	}
	if document.Compare(v, lower) == 0 {
		if err := s.setPartition(d); err != nil {
			return nil, err
		}
		s.cur = lower
		return d, nil
	}
	upper := s.hi
	if document.Compare(v, s.hi) < 0 {
		upper = v
	}
	out, err := s.generate(lower, upper, s.genFields(d), d, dsNeedGen)
	if err != nil {
		return nil, err
	}
	if s.cur, err = s.docValue(out); err != nil {
		return nil, err
	}
	return out, s.setPartition(out)
}

func (s *densifyIter) needGenExplicit(d bson.D, v any) (bson.D, error) {
	switch s.where(v) {
	case rangeInside:
		next, err := s.inc(s.cur)
		if err != nil {
			return nil, err
		}
		switch c := document.Compare(v, next); {
		case c == 0:
			s.cur = v
			return d, s.setPartition(d)
		case c < 0:
			return d, nil
		}
		return s.aboveMin(d, v)
	case rangeAbove:
		next, err := s.inc(s.cur)
		if err != nil {
			return nil, err
		}
		if document.Compare(next, s.hi) >= 0 {
			s.cur = next
			if !s.partitioned {
				s.state = dsDone
			}
			return d, s.setPartition(d)
		}
		return s.aboveMin(d, v)
	case rangeMin:
		s.cur = v
		return d, s.setPartition(d)
	}
	s.state = dsStart
	return d, s.setPartition(d)
}

// resetGen leaves dsHaveGen once the generator is done.
func (s *densifyIter) resetGen() {
	if s.gen.state != 2 {
		return
	}
	switch {
	case document.Compare(s.cur, s.hi) >= 0 && !s.partitioned:
		s.state = dsDone
	case s.partitioned && s.eof:
		s.state = dsFinishing
	default:
		s.state = dsNeedGen
	}
	s.gen = nil
}

func (s *densifyIter) fromGen() (bson.D, error) {
	out, err := s.genNext()
	if err != nil {
		return nil, err
	}
	v, err := s.docValue(out)
	if err != nil {
		return nil, err
	}
	if s.bounds == densifyExplicit {
		on, err := s.onStep(v, s.cur)
		if err != nil {
			return nil, err
		}
		if on {
			s.cur = v
			if err := s.setPartition(out); err != nil {
				return nil, err
			}
		}
		s.resetGen()
		return out, nil
	}
	if s.gen.state == 2 {
		s.gen = nil
		if s.bounds == densifyFull && s.eof && s.partitioned {
			s.state = dsFinishing
		} else {
			s.state = dsNeedGen
		}
	}
	// The last document, the input's, may be off the step.
	next, err := s.inc(s.cur)
	if err != nil {
		return nil, err
	}
	if document.Compare(v, next) == 0 {
		s.cur = v
		if err := s.setPartition(out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// exhausted handles the end of the input.
func (s *densifyIter) exhausted() (bson.D, error) {
	switch {
	case s.bounds == densifyPartition || (s.bounds == densifyFull && !s.partitioned):
		s.state = dsDone
		return nil, nil
	case s.partitioned:
		return s.finishPartitions()
	}
	// An explicit range without partitions: fill it up to its end.
	lower := s.lo
	if s.cur != nil {
		next, err := s.inc(s.cur)
		if err != nil {
			return nil, err
		}
		if document.Compare(next, s.hi) >= 0 {
			s.state = dsDone
			return nil, nil
		}
		lower = next
	} else {
		s.cur = s.lo
	}
	return s.generate(lower, s.hi, nil, nil, dsDone)
}

// finishPartitions fills each partition up to the largest value seen
// ("full") or the end of the range.
func (s *densifyIter) finishPartitions() (bson.D, error) {
	if len(s.table) == 0 {
		s.state = dsDone
		return nil, nil
	}
	upTo, minOverride := s.hi, s.lo
	if s.bounds == densifyFull {
		minOverride = nil
		upTo = s.globalMax
		on, err := s.onStep(s.globalMax, s.cur)
		if err != nil {
			return nil, err
		}
		if on {
			if upTo, err = s.inc(s.globalMax); err != nil {
				return nil, err
			}
		}
	}
	for len(s.order) > 0 {
		k := s.order[0]
		s.order = s.order[1:]
		p, ok := s.table[k]
		if !ok {
			continue
		}
		s.drop(k)
		from, err := s.inc(p.val)
		if err != nil {
			return nil, err
		}
		if document.Compare(from, upTo) >= 0 {
			continue
		}
		if minOverride != nil && document.Compare(from, minOverride) < 0 {
			from = minOverride
		}
		return s.generate(from, upTo, p.fields, nil, dsFinishing)
	}
	s.state = dsDone
	return nil, nil
}

// partFields is d's partition: its partition fields, as mongod's
// partition expression {a: "$a", x: {y: "$x.y"}} evaluates them.
func (s *densifyIter) partFields(d bson.D) bson.D { return s.partExpr.eval(d) }

// partNode is a field of the partition expression: a path's value
// (leaf) or an object of fields.
type partNode struct {
	key  string
	leaf bool
	path []string
	kids []*partNode
}

// partitionExpr builds the partition expression of the partition
// paths as mongod sets them one by one in a document: a path below
// another one's field turns that field into an object, a path ending at
// an object's field replaces the object.
func partitionExpr(paths [][]string) *partNode {
	root := &partNode{}
	for _, p := range paths {
		n := root
		for i, k := range p {
			var child *partNode
			for _, c := range n.kids {
				if c.key == k {
					child = c
				}
			}
			if child == nil {
				child = &partNode{key: k}
				n.kids = append(n.kids, child)
			}
			if i == len(p)-1 {
				child.leaf, child.path, child.kids = true, p, nil
			} else if child.leaf {
				child.leaf, child.path = false, nil
			}
			n = child
		}
	}
	return root
}

// eval evaluates an object node over d: a path's value is left out
// when missing; an object is kept even when empty, as mongod's object
// expression does.
func (n *partNode) eval(d bson.D) bson.D {
	out := bson.D{}
	for _, c := range n.kids {
		if !c.leaf {
			out = append(out, bson.E{Key: c.key, Value: c.eval(d)})
		} else if v := evalPath(d, c.path); !isMissing(v) {
			out = append(out, bson.E{Key: c.key, Value: v})
		}
	}
	return out
}

func (s *densifyIter) partKey(d bson.D) string { return collKey(s.o.Collator, s.partFields(d)) }

// setPartition records d's value as its partition's last one, within the
// memory limit (mongod's 6007200 past it).
func (s *densifyIter) setPartition(d bson.D) error {
	if !s.partitioned {
		return nil
	}
	v, err := s.docValue(d)
	if err != nil {
		return err
	}
	fields := s.partFields(d)
	k := collKey(s.o.Collator, fields)
	p, ok := s.table[k]
	if !ok {
		p = &densifyPart{fields: fields, size: approxSize(fields) + int64(len(k))}
		s.table[k] = p
		s.order = append(s.order, k)
		s.held += p.size
	}
	s.held += approxSize(v) - approxSize(p.val)
	p.val = v
	if s.held > s.o.MaxMemoryBytes {
		return document.Errorf(document.Code(6007200), "$densify exceeded memory limit of %d", s.o.MaxMemoryBytes)
	}
	return nil
}

func (s *densifyIter) drop(k string) {
	if p, ok := s.table[k]; ok {
		s.held -= p.size + approxSize(p.val)
		delete(s.table, k)
	}
}

// genFields are the fields of the documents generated for d's gap: its
// partition's.
func (s *densifyIter) genFields(d bson.D) bson.D {
	if !s.partitioned {
		return nil
	}
	return s.partFields(d)
}

// generate starts generating from min to hi with fields (then final,
// when set) and returns the first document; state is then after if
// that was the only one (never with a final document).
//
// It first checks, as mongod does, that the field can be set below the
// partition fields: never inside an array (5733307) nor in place of a
// value that is not a document (5733308). Since partition fields may
// neither hold the field nor lie above it (8993000, 9554500), these
// checks do not fail in a pipeline; they stay as mongod's.
func (s *densifyIter) generate(min, hi any, fields, final bson.D, after int) (bson.D, error) {
	if err := canGenerate(fields, s.field); err != nil {
		return nil, err
	}
	s.gen = &densifyGen{min: min, hi: hi, fields: fields, final: final}
	s.state = dsHaveGen
	out, err := s.genNext()
	if err != nil {
		return nil, err
	}
	if s.gen.state == 2 {
		s.gen, s.state = nil, after
	}
	return out, nil
}

func canGenerate(fields bson.D, path []string) error {
	cur := fields
	for i, p := range path {
		v, ok := docGet(cur, p)
		if _, isArr := v.(bson.A); isArr {
			return document.Errorf(document.Code(5733307), "$densify cannot generate fields nested inside arrays")
		}
		sub, isDoc := v.(bson.D)
		if !isDoc {
			if ok && i < len(path)-1 {
				return document.Errorf(document.Code(5733308), "$densify cannot overwrite non-object values with objects")
			}
			return nil
		}
		cur = sub
	}
	return nil
}

// genNext returns the generator's next document and counts the
// generated ones.
func (s *densifyIter) genNext() (bson.D, error) {
	g := s.gen
	if g.state == 1 {
		g.state = 2
		return g.final, nil
	}
	v := g.min
	next, err := s.inc(v)
	if err != nil {
		return nil, err
	}
	if document.Compare(g.hi, next) <= 0 {
		g.state = 2
		if g.final != nil {
			g.state = 1
		}
	}
	g.min = next
	s.generated++
	return setNested(slices.Clone(g.fields), s.field, v), nil
}
