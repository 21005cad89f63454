package query

import (
	"math"
	"slices"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	script "github.com/ttlkv/ttlkv/engine/internal/js"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// MongoDB error codes of projection parsing.
const (
	CodeProjectionPathCollision = document.Code(31249) // "a" and then "a.b" in one projection
	CodePathCollisionAt         = document.Code(31250) // a path twice, or "a.b" and then "a"
	CodeInclusionInExclusion    = document.Code(31253) // an inclusion in an exclusion projection
	CodeExclusionInInclusion    = document.Code(31254) // an exclusion in an inclusion projection
)

// Projection is a parsed find projection: inclusion ({a: 1}) or exclusion
// ({a: 0}), with _id included unless {_id: 0}, dotted and nested paths,
// $slice and $elemMatch. It is immutable and safe for concurrent use.
type Projection struct {
	inclusion bool
	excludeID bool
	root      *projNode
	empty     bool
	// compute projects a document when the projection computes fields
	// (RegisterProjectionCompiler); the fields above are then unused.
	compute func(bson.D, *collation.Collator) (bson.D, error)
	// js is set when a computed field holds a $function.
	js bool
	// coll is the collation computed fields compare under (Collate).
	coll *collation.Collator
	// textScore are the paths given {$meta: "textScore"}, set after the
	// rest of the projection from the document's TextScoreField.
	textScore []string
	// geoDist and geoPoint are the paths given {$meta: "geoNearDistance"}
	// and {$meta: "geoNearPoint"}, which a $near's executor sets
	// (SetGeoMeta).
	geoDist, geoPoint []string
	// positional is the array path of a positional projection (a.$),
	// "" if none; query is the filter that places its element
	// (WithQuery).
	positional string
	query      *Filter
}

type projNode struct {
	children  map[string]*projNode
	leaf      bool // the whole field is included (inclusion) or excluded (exclusion)
	slice     *[2]int64
	hasSkip   bool
	elemMatch expr
	elemValue bool // elemMatch is $elemMatch's value form, run on each element itself
}

func newProjNode() *projNode { return &projNode{children: map[string]*projNode{}} }

// ParseProjection parses a projection document. Mixing inclusion and
// exclusion (other than of _id) is 31254 or 31253; overlapping paths are
// 31249; the positional "a.$" and $meta are 2 BadValue (not supported).
// Computed fields (expressions, literals, "$path") make it a $project,
// as in MongoDB 4.4 (RegisterProjectionCompiler); beside $slice,
// $elemMatch or a positional path they are 2 BadValue.
func ParseProjection(p bson.D) (*Projection, error) { return ParseProjectionAt(p, time.Now()) }

// ParseProjectionAt is ParseProjection with $$NOW at now for computed
// fields.
func ParseProjectionAt(p bson.D, now time.Time) (*Projection, error) {
	return ParseProjectionWith(p, now, nil)
}

// ParseProjectionWith is ParseProjectionAt with the user variables (a
// command's let) that computed fields may read, as ParseFilterWith takes
// them for a $expr.
func ParseProjectionWith(p bson.D, now time.Time, vars any) (*Projection, error) {
	var textScore, geoDist, geoPoint []string
	if hasMeta(p) {
		rest := bson.D{}
		for _, e := range p {
			name, isMeta, err := metaArg(e.Value)
			if err != nil {
				return nil, err
			}
			if !isMeta {
				rest = append(rest, e)
				continue
			}
			if strings.HasSuffix(e.Key, ".$") || e.Key == "$" {
				return nil, badValue("positional projection cannot be used with $meta")
			}
			switch name {
			case "geoNearDistance":
				geoDist = append(geoDist, e.Key)
			case "geoNearPoint":
				geoPoint = append(geoPoint, e.Key)
			default:
				textScore = append(textScore, e.Key)
			}
		}
		pr, err := ParseProjectionWith(rest, now, vars)
		if err != nil {
			return nil, err
		}
		pr.textScore, pr.geoDist, pr.geoPoint = textScore, geoDist, geoPoint
		return pr, nil
	}
	pr := &Projection{root: newProjNode()}
	if len(p) == 0 {
		pr.empty = true
		return pr, nil
	}
	if err := positionalValueErr(p); err != nil {
		return nil, err
	}
	if computesFields(p) {
		if usesFindOperators(p) || projectionCompiler == nil {
			return nil, badValue("ttlkv does not support computed fields beside $slice, $elemMatch, $meta or a positional projection")
		}
		fn, err := projectionCompiler(p, bson.NewDateTimeFromTime(now), vars)
		if err != nil {
			return nil, err
		}
		pr.compute, pr.js = fn, hasFieldNamed(p, "$function")
		return pr, nil
	}
	mode := 0 // 1 inclusion, -1 exclusion, 0 not yet known
	hasElemMatch, hasSlice := false, false
	var paths []string
	var add func(prefix string, d bson.D) error
	add = func(prefix string, d bson.D) error {
		for _, e := range d {
			path := e.Key
			if prefix != "" {
				path = prefix + "." + e.Key
			}
			// mongod's parseElement: a positional operator in the
			// middle of a path, then what a positional path may be given.
			if strings.Contains(e.Key, ".$.") {
				return document.Errorf(document.Code(31394), "As of 4.4, it's illegal to specify positional operator in the middle of a path."+
					"Positional projection may only be used at the end, for example: a.b.$. If the query previously used a form like a.b.$.d, "+
					"remove the parts following the '$' and the results will be equivalent.")
			}
			if strings.HasSuffix(e.Key, ".$") {
				switch e.Value.(type) {
				case bson.D:
					return document.Errorf(document.Code(31271), "positional projection cannot be used with an expression or sub object")
				case bool, int32, int64, float64, bson.Decimal128:
				default:
					return document.Errorf(document.Code(31308), "positional projection cannot be used with a literal")
				}
				if !truthy(e.Value) {
					return document.Errorf(document.Code(31395), "positional projection cannot be used with exclusion")
				}
				if pr.positional != "" {
					return document.Errorf(document.Code(31276), "Cannot specify more than one positional projection per query.")
				}
				if hasElemMatch {
					return document.Errorf(document.Code(31256), "Cannot specify positional operator and $elemMatch.")
				}
				if e.Key == ".$" {
					return document.Errorf(document.Code(5392900), "Projection on field .$ is invalid")
				}
			}
			if strings.HasPrefix(e.Key, "$") {
				return badValue("projection field %s is not supported by ttlkv", path)
			}
			parts, ok := splitPath(path)
			if !ok {
				return badValue("invalid projection path %q", path)
			}
			if parts[len(parts)-1] == "$" {
				// The positional projection: the element of the array
				// the query placed (applyPositional).
				if mode == -1 {
					return document.Errorf(CodeInclusionInExclusion, "Cannot do inclusion on field %s in exclusion projection", e.Key)
				}
				if len(parts) == 1 || slices.Contains(parts[:len(parts)-1], "$") {
					return badValue("positional projection %q is not valid", path)
				}
				mode = 1
				parts = parts[:len(parts)-1]
				path = strings.Join(parts, ".")
				pr.positional = path
				pr.leafAt(parts).leaf = true
				paths = append(paths, path)
				continue
			}
			for _, q := range parts {
				if strings.HasPrefix(q, "$") {
					return badValue("projection path %q is not supported by ttlkv", path)
				}
			}
			// mongod's addNodeAtPathHelper: the path already there, or
			// a longer one under it, is 31250; a shorter one that is a
			// leaf on the way is 31249, whose "remaining portion" is
			// the path without its first field.
			for _, q := range paths {
				qp := strings.Split(q, ".")
				switch {
				case isPrefix(parts, qp):
					return document.Errorf(CodePathCollisionAt, "Path collision at %s", path)
				case isPrefix(qp, parts):
					return document.Errorf(CodeProjectionPathCollision, "Path collision at %s remaining portion %s", path, strings.Join(parts[1:], "."))
				}
			}
			var node *projNode
			switch v := e.Value.(type) {
			case bool, int32, int64, float64, bson.Decimal128:
				incl := truthy(v)
				if path == "_id" {
					pr.excludeID = !incl
					if incl {
						// _id: 1 counts as inclusion only if nothing else decides.
						paths = append(paths, path)
						node = pr.leafAt(parts)
						node.leaf = true
					}
					continue
				}
				want := -1
				if incl {
					want = 1
				}
				if mode != 0 && mode != want {
					if want == 1 {
						return document.Errorf(CodeInclusionInExclusion, "Cannot do inclusion on field %s in exclusion projection", e.Key)
					}
					return document.Errorf(CodeExclusionInInclusion, "Cannot do exclusion on field %s in inclusion projection", e.Key)
				}
				mode = want
				node = pr.leafAt(parts)
				node.leaf = true
			case bson.D:
				if len(v) == 0 {
					return badValue("An empty sub-projection is not a valid value. Found empty object at path %s", path)
				}
				if !strings.HasPrefix(v[0].Key, "$") {
					if err := add(path, v); err != nil {
						return err
					}
					continue
				}
				if len(v) != 1 {
					return badValue("projection operator object for %s must have exactly one field", path)
				}
				switch v[0].Key {
				case "$slice":
					hasSlice = true
					node = pr.leafAt(parts)
					if err := parseSlice(node, v[0].Value); err != nil {
						return err
					}
				case "$elemMatch":
					d, ok := v[0].Value.(bson.D)
					if !ok {
						return document.Errorf(document.Code(31274), "elemMatch: Invalid argument, object required, but got %s", typeName(v[0].Value))
					}
					if pr.positional != "" {
						return document.Errorf(document.Code(31255), "Cannot specify positional operator and $elemMatch.")
					}
					if len(parts) != 1 {
						return document.Errorf(document.Code(31275), "Cannot use $elemMatch projection on a nested field.")
					}
					hasElemMatch = true
					// mongod matches {path: {$elemMatch: d}}: d may be the
					// value form ({$gt: 3}) as in a filter.
					x, err := elemMatchExpr(path, parts, d, 1)
					if err != nil {
						return err
					}
					// An $elemMatch decides nothing: beside exclusions it
					// is an exclusion projection (mongod's parser leaves
					// the type to the other fields).
					node = pr.leafAt(parts)
					pe := x.(*pathExpr)
					node.elemMatch, node.elemValue = pe.sub, pe.valueForm
				default:
					return badValue("projection operator %s is not supported by ttlkv", v[0].Key)
				}
			default:
				return badValue("projection values other than 0, 1, true, false, $slice and $elemMatch are not supported by ttlkv (field %s)", path)
			}
			paths = append(paths, path)
		}
		return nil
	}
	if err := add("", p); err != nil {
		return nil, err
	}
	if mode == 0 {
		// Only _id, $slice and $elemMatch: as mongod's
		// computeProjectionType, with a $slice an {_id: 1} makes it an
		// inclusion and anything else an exclusion ($slice alone keeps
		// every other field); an $elemMatch without a $slice makes it an
		// inclusion; otherwise {_id: 1} includes only _id.
		_, idNamed := pr.root.children["_id"]
		pr.inclusion = idNamed && !pr.excludeID
		if hasElemMatch && !hasSlice {
			pr.inclusion = true
		}
		if !pr.inclusion {
			if n := pr.root.children["_id"]; n != nil && n.slice == nil {
				delete(pr.root.children, "_id")
			}
		}
	} else {
		pr.inclusion = mode == 1
		if n := pr.root.children["_id"]; !pr.inclusion && n != nil && n.leaf {
			// {_id: 1} in an exclusion keeps _id, as leaving it out
			// does; "_id.a": 0 stays an exclusion of _id.a.
			delete(pr.root.children, "_id")
		}
	}
	return pr, nil
}

// positionalValueErr is mongod's refusal of a positional path (a.$)
// given an expression or sub-object (31271) or a literal (31308),
// checked before a literal makes the projection a computed one.
func positionalValueErr(p bson.D) error {
	for _, e := range p {
		v, isDoc := e.Value.(bson.D)
		switch {
		case !strings.HasSuffix(e.Key, ".$"):
			if isDoc && len(v) > 0 && !strings.HasPrefix(v[0].Key, "$") {
				if err := positionalValueErr(v); err != nil {
					return err
				}
			}
		case isDoc:
			return document.Errorf(document.Code(31271), "positional projection cannot be used with an expression or sub object")
		default:
			switch e.Value.(type) {
			case bool, int32, int64, float64, bson.Decimal128:
			default:
				return document.Errorf(document.Code(31308), "positional projection cannot be used with a literal")
			}
		}
	}
	return nil
}

func (p *Projection) leafAt(parts []string) *projNode {
	n := p.root
	for _, q := range parts {
		c, ok := n.children[q]
		if !ok {
			c = newProjNode()
			n.children[q] = c
		}
		n = c
	}
	return n
}

func parseSlice(n *projNode, v any) error {
	switch t := v.(type) {
	case int32, int64, float64, bson.Decimal128:
		n.slice = &[2]int64{0, safeNumberInt(t)}
		return nil
	case bson.A:
		if len(t) != 2 {
			if len(t) == 3 {
				// mongod reads this as the $slice expression.
				return badValue("ttlkv does not support the $slice expression in a find projection")
			}
			return sliceSyntaxErr(v, "Location31272: $slice array argument should be of form [skip, limit]", len(t))
		}
		if !document.IsNumber(t[0]) || !document.IsNumber(t[1]) {
			return badValue("ttlkv does not support the $slice expression in a find projection")
		}
		skip, limit := safeNumberInt(t[0]), safeNumberInt(t[1])
		if limit <= 0 {
			// mongod reads [skip, limit <= 0] as the $slice expression,
			// which fails on its first argument, a number.
			return badValue("ttlkv does not support the $slice expression in a find projection")
		}
		n.slice, n.hasSkip = &[2]int64{skip, limit}, true
		return nil
	}
	return sliceSyntaxErr(v, "Location31273: $slice only supports numbers and [skip, limit] arrays", 1)
}

// sliceSyntaxErr is mongod's 28667 for a $slice that is neither the
// find form ([skip, limit] or a number: why) nor the expression's (args
// arguments).
func sliceSyntaxErr(v any, why string, args int) error {
	return document.Errorf(document.Code(28667), "Invalid $slice syntax. The given syntax { $slice: %s } did not match the find() syntax because :: %s "+
		":: The given syntax did not match the expression $slice syntax. :: caused by :: "+
		"Expression $slice takes at least 2 arguments, and at most 3, but %d were passed in.", shellValue(v), why, args)
}

// safeNumberInt is mongod's BSONElement::safeNumberInt: a number
// truncated toward zero and clamped to int32's range, NaN as 0.
func safeNumberInt(v any) int64 {
	var f float64
	switch t := v.(type) {
	case int32:
		return int64(t)
	case int64:
		f = float64(t)
		if t > math.MaxInt32 {
			return math.MaxInt32
		}
		if t < math.MinInt32 {
			return math.MinInt32
		}
		return t
	case float64:
		f = t
	case bson.Decimal128:
		f, _ = decimalToFloat(t)
	}
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt32:
		return math.MaxInt32
	case f <= math.MinInt32:
		return math.MinInt32
	}
	return int64(f)
}

// shellValue writes v as mongod's BSONObj::toString does: { a: 1 },
// [ 1, 2 ], strings quoted.
func shellValue(v any) string {
	switch t := v.(type) {
	case bson.D:
		if len(t) == 0 {
			return "{}"
		}
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = e.Key + ": " + shellValue(e.Value)
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	case bson.A:
		if len(t) == 0 {
			return "[]"
		}
		parts := make([]string, len(t))
		for i, e := range t {
			parts[i] = shellValue(e)
		}
		return "[ " + strings.Join(parts, ", ") + " ]"
	}
	return strings.TrimPrefix(elementString("", v), ": ")
}

// Apply returns the projected copy of d; d is not modified and the
// result shares no documents or arrays with it. Inclusion keeps the
// document's field order.
func (p *Projection) Apply(d bson.D) bson.D {
	out, _ := p.ApplyErr(d)
	return out
}

// Collate returns the projection with its computed fields' expressions
// comparing strings under c, as MongoDB applies a find's collation to
// them; a nil c, or a projection that computes nothing, returns p.
func (p *Projection) Collate(c *collation.Collator) *Projection {
	if p == nil || c == nil || p.compute == nil {
		return p
	}
	out := *p
	out.coll = c
	return &out
}

// ApplyErr is Apply with the error of a computed field's expression (a
// $divide by zero), which fails the query as in MongoDB; a projection
// that computes nothing never fails.
func (p *Projection) ApplyErr(d bson.D) (bson.D, error) {
	if hasTextScore(d) {
		return p.applyWithTextScore(d)
	}
	return p.applyErr(d)
}

func (p *Projection) applyErr(d bson.D) (bson.D, error) {
	if p != nil && p.js && p.query.HasWhere() {
		// mongod's refusal, when the $function would first run.
		return nil, script.ErrWhereAndFunction()
	}
	if p != nil && p.compute != nil {
		return p.compute(cloneDoc(d), p.coll)
	}
	if p != nil && p.positional != "" {
		return p.applyPositional(d)
	}
	return p.apply(d), nil
}

// hasMeta reports whether a projection gives a field a {$meta: ...}.
func hasMeta(p bson.D) bool {
	for _, e := range p {
		if m, ok := e.Value.(bson.D); ok && len(m) > 0 && m[0].Key == "$meta" {
			return true
		}
	}
	return false
}

// hasTextScore reports whether d carries a text score (TextScoreField),
// as a $text query's documents do on their way out; it is the last
// field.
func hasTextScore(d bson.D) bool { return len(d) > 0 && d[len(d)-1].Key == TextScoreField }

// apply is Apply for a projection that computes nothing.
func (p *Projection) apply(d bson.D) bson.D {
	if p == nil || p.empty {
		return cloneDoc(d)
	}
	out := bson.D{}
	for _, e := range d {
		if e.Key == "_id" && p.excludeID {
			continue
		}
		n, ok := p.root.children[e.Key]
		if e.Key == "_id" && !ok && p.inclusion {
			out = append(out, bson.E{Key: e.Key, Value: cloneValue(e.Value)})
			continue
		}
		if v, keep := p.project(n, ok, e.Value); keep {
			out = append(out, bson.E{Key: e.Key, Value: v})
		}
	}
	return out
}

// project returns the projection of value v by node n (present reports
// whether v's field is named in the projection) and whether to keep it.
func (p *Projection) project(n *projNode, present bool, v any) (any, bool) {
	if !present {
		if p.inclusion {
			return nil, false
		}
		return cloneValue(v), true
	}
	if n.elemMatch != nil {
		arr, ok := v.(bson.A)
		if !ok {
			return nil, false
		}
		for _, e := range arr {
			if n.elemValue {
				if n.elemMatch.match(e) {
					return bson.A{cloneValue(e)}, true
				}
				continue
			}
			var root any
			switch t := e.(type) {
			case bson.D:
				root = t
			case bson.A:
				root = arrayAsDoc(t)
			default:
				continue
			}
			if n.elemMatch.match(root) {
				return bson.A{cloneValue(e)}, true
			}
		}
		return nil, false
	}
	if n.slice != nil {
		return sliceValue(v, n.slice, n.hasSkip), true
	}
	if n.leaf {
		if p.inclusion {
			return cloneValue(v), true
		}
		return nil, false
	}
	switch t := v.(type) {
	case bson.D:
		return p.projectDoc(n, t), true
	case bson.A:
		out := bson.A{}
		for _, e := range t {
			switch et := e.(type) {
			case bson.D:
				out = append(out, p.projectDoc(n, et))
			case bson.A:
				if sub, keep := p.project(n, true, et); keep {
					out = append(out, sub)
				}
			default:
				if !p.inclusion {
					out = append(out, cloneValue(e))
				}
			}
		}
		return out, true
	}
	if p.inclusion {
		return nil, false
	}
	return cloneValue(v), true
}

func (p *Projection) projectDoc(n *projNode, d bson.D) bson.D {
	out := bson.D{}
	for _, e := range d {
		c, ok := n.children[e.Key]
		if v, keep := p.project(c, ok, e.Value); keep {
			out = append(out, bson.E{Key: e.Key, Value: v})
		}
	}
	return out
}

// sliceValue applies $slice to an array; other values pass unchanged.
func sliceValue(v any, s *[2]int64, hasSkip bool) any {
	arr, ok := v.(bson.A)
	if !ok {
		return cloneValue(v)
	}
	n := int64(len(arr))
	var from, to int64
	if !hasSkip {
		lim := s[1]
		if lim >= 0 {
			from, to = 0, min(lim, n)
		} else {
			from, to = max(n+lim, 0), n
		}
	} else {
		skip, lim := s[0], s[1]
		if skip < 0 {
			skip = max(n+skip, 0)
		}
		from = min(skip, n)
		to = min(from+lim, n)
	}
	out := make(bson.A, 0, to-from)
	for _, e := range arr[from:to] {
		out = append(out, cloneValue(e))
	}
	return out
}

// IsInclusion reports whether the projection lists the fields to keep
// (true) or the fields to drop (false).
func (p *Projection) IsInclusion() bool { return p != nil && p.inclusion }

// FieldFilter reports whether p only includes or excludes whole
// top-level fields (no dotted path, $slice, $elemMatch or computed
// field), and if so
// which fields Apply keeps: keep(name) is true for a top-level field
// named name that Apply keeps, whatever its value. keep is nil for a nil
// or empty projection, which keeps every field. A reader that copies
// stored documents without decoding them (document.AppendBSONFields)
// applies such a projection by field name.
func (p *Projection) FieldFilter() (keep func(name []byte) bool, ok bool) {
	if p == nil || p.empty {
		return nil, true
	}
	if p.compute != nil || len(p.textScore) > 0 || p.positional != "" {
		return nil, false // computed fields need the decoded document
	}
	for _, n := range p.root.children {
		if !n.leaf || len(n.children) > 0 || n.slice != nil || n.elemMatch != nil {
			return nil, false
		}
	}
	return func(name []byte) bool {
		if string(name) == "_id" {
			if p.excludeID {
				return false
			}
			if p.inclusion {
				return true
			}
		}
		_, named := p.root.children[string(name)]
		return named == p.inclusion
	}, true
}

// NeedsGeoMeta reports whether the projection writes a $near's distance
// or point ({$meta: "geoNearDistance"} or "geoNearPoint").
func (p *Projection) NeedsGeoMeta() bool {
	return p != nil && (len(p.geoDist) > 0 || len(p.geoPoint) > 0)
}

// SetGeoMeta writes a $near's distance and point at the projection's
// geoNearDistance and geoNearPoint paths of out, a projected document.
func (p *Projection) SetGeoMeta(out bson.D, dist float64, point any) bson.D {
	if p == nil {
		return out
	}
	for _, path := range p.geoDist {
		out = setScorePath(out, path, dist)
	}
	for _, path := range p.geoPoint {
		out = setScorePath(out, path, point)
	}
	return out
}

// hasFieldNamed reports whether a field named k appears in v, at any depth of
// its documents and arrays.
func hasFieldNamed(v any, k string) bool {
	switch x := v.(type) {
	case bson.D:
		for _, e := range x {
			if e.Key == k || hasFieldNamed(e.Value, k) {
				return true
			}
		}
	case bson.A:
		for _, e := range x {
			if hasFieldNamed(e, k) {
				return true
			}
		}
	}
	return false
}
