package agg

import (
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ExplainStages returns the stages that run after the scan as mongod
// 7.0's explain shows them: each in its serialized, normalised form
// (DocumentSource::serialize after the pipeline's optimisation) rather
// than as the user wrote it. Literals in expressions are {$const: v},
// an expression of constants is its value, operators take their
// arguments as an array; $project names _id ($unset is an exclusion
// $project); $sort is {sortKey} (with the limit of a $limit right after
// it, which it absorbs); $unwind is {path}; $lookup lists its fields in
// mongod's order and absorbs an $unwind of its output; $count and
// $sortByCount are the $group and the stage after it that mongod parses
// them into; $skip, $limit and $sample's size are longs. filter
// normalises a $match's filter as a find's parsedQuery shows it (nil:
// as given). A stage this does not know is shown as given. from[i] is
// the index, among Stages, of the stage whose output stages[i] shows
// (the last of those it stands for), for its execution figures.
//
// The $limit after a leading $sort, which the scan's sort takes (as
// mongod's $sort absorbs it before the query layer takes both), is not
// listed. A final $out or $merge names its target in full, db (the
// aggregate's own when not given: db) and coll.
func (p *Pipeline) ExplainStages(db string, filter func(bson.D) bson.D) (stages bson.A, from []int) {
	all := p.Stages()
	skip := 0
	if p.sort != nil && p.limit > 0 && len(p.stages) > 0 && p.stages[0].name == "$limit" {
		skip = 1
	}
	stages, from = explainStages(all[skip:], filter)
	for i := range from {
		from[i] += skip
	}
	if p.out != nil && len(stages) > 0 {
		stages[len(stages)-1] = p.out.explain(db)
	}
	return stages, from
}

// explain is the $out or $merge stage as mongod serializes it: $out as
// {db, coll} (and its timeseries), $merge as {into: {db, coll}, on,
// whenMatched, whenNotMatched}, on one field a string. A $merge whose
// whenMatched is a pipeline is shown as written.
func (o *Out) explain(db string) bson.D {
	if o.DB != "" {
		db = o.DB
	}
	if o.Stage == "$out" {
		spec := bson.D{{Key: "db", Value: db}, {Key: "coll", Value: o.Coll}}
		if o.Timeseries != nil {
			spec = append(spec, bson.E{Key: "timeseries", Value: o.Timeseries})
		}
		return bson.D{{Key: "$out", Value: spec}}
	}
	if o.WhenMatched == "pipeline" {
		return bson.D{{Key: o.Stage, Value: o.spec}}
	}
	var on any = "_id"
	switch {
	case len(o.On) == 1:
		on = o.On[0]
	case len(o.On) > 1:
		a := bson.A{}
		for _, f := range o.On {
			a = append(a, f)
		}
		on = a
	}
	return bson.D{{Key: "$merge", Value: bson.D{{Key: "into", Value: bson.D{{Key: "db", Value: db}, {Key: "coll", Value: o.Coll}}},
		{Key: "on", Value: on}, {Key: "whenMatched", Value: o.WhenMatched}, {Key: "whenNotMatched", Value: o.WhenNotMatched}}}}
}

// explainStages serializes the stage documents of a pipeline, as
// ExplainStages.
func explainStages(stages bson.A, filter func(bson.D) bson.D) (bson.A, []int) {
	out := bson.A{}
	var from []int
	for i := 0; i < len(stages); i++ {
		sd, ok := stages[i].(bson.D)
		if !ok || len(sd) != 1 {
			out = append(out, stages[i])
			from = append(from, i)
			continue
		}
		name, spec := sd[0].Key, sd[0].Value
		if internalOps(spec) {
			// mapReduce's stages (its $_internalJs operators) are shown
			// as built.
			out = append(out, sd)
			from = append(from, i)
			continue
		}
		next := func() (string, any) {
			if i+1 < len(stages) {
				if nd, ok := stages[i+1].(bson.D); ok && len(nd) == 1 {
					return nd[0].Key, nd[0].Value
				}
			}
			return "", nil
		}
		switch name {
		case "$match":
			f, _ := spec.(bson.D)
			if filter != nil {
				f = filter(f)
			}
			out = append(out, bson.D{{Key: name, Value: nonNil(f)}})
		case "$project":
			out = append(out, bson.D{{Key: name, Value: explainProject(spec)}})
		case "$unset":
			// mongod's $unset is an exclusion $project.
			var names bson.D
			switch x := spec.(type) {
			case string:
				names = bson.D{{Key: x, Value: false}}
			case bson.A:
				for _, n := range x {
					names = append(names, bson.E{Key: asString(n), Value: false})
				}
			}
			out = append(out, bson.D{{Key: "$project", Value: explainProject(names)}})
		case "$replaceRoot", "$replaceWith":
			// $replaceWith is mongod's $replaceRoot.
			root := spec
			if name == "$replaceRoot" {
				sd, _ := spec.(bson.D)
				root, _ = specField(sd, "newRoot")
			}
			out = append(out, bson.D{{Key: "$replaceRoot", Value: bson.D{{Key: "newRoot", Value: explainExpr(root)}}}})
		case "$sample":
			sd, _ := spec.(bson.D)
			size, _ := specField(sd, "size")
			n, _ := explainInt64(size)
			out = append(out, bson.D{{Key: name, Value: bson.D{{Key: "size", Value: n}}}})
		case "$bucketAuto":
			// groupBy, buckets, granularity, then the output's
			// accumulators (a count when none are given).
			sd, _ := spec.(bson.D)
			ba := bson.D{}
			if v, ok := specField(sd, "groupBy"); ok {
				ba = append(ba, bson.E{Key: "groupBy", Value: explainExpr(v)})
			}
			if v, ok := specField(sd, "buckets"); ok {
				n, _ := explainInt64(v)
				ba = append(ba, bson.E{Key: "buckets", Value: int32(n)})
			}
			if v, ok := specField(sd, "granularity"); ok {
				ba = append(ba, bson.E{Key: "granularity", Value: v})
			}
			output := bson.D{{Key: "count", Value: bson.D{{Key: "$sum", Value: int32(1)}}}}
			if v, ok := specField(sd, "output"); ok {
				output, _ = v.(bson.D)
			}
			g, _ := explainGroup(append(bson.D{{Key: "_id", Value: nil}}, output...)).(bson.D)
			ba = append(ba, bson.E{Key: "output", Value: append(bson.D{}, g[1:]...)})
			out = append(out, bson.D{{Key: name, Value: ba}})
		case "$facet":
			// Each facet's pipeline serialized the same way.
			fd, _ := spec.(bson.D)
			facets := bson.D{}
			for _, f := range fd {
				sub, _ := f.Value.(bson.A)
				ss, _ := explainStages(optimizeSkipLimit(sub), filter)
				facets = append(facets, bson.E{Key: f.Key, Value: ss})
			}
			out = append(out, bson.D{{Key: name, Value: facets}})
		case "$redact":
			out = append(out, bson.D{{Key: name, Value: explainExpr(spec)}})
		case "$addFields", "$set":
			out = append(out, bson.D{{Key: name, Value: explainFields(spec)}})
		case "$group":
			out = append(out, bson.D{{Key: name, Value: explainGroup(spec)}})
		case "$sort":
			s := bson.D{{Key: "sortKey", Value: explainSortKey(spec)}}
			// A $limit right after the sort is absorbed into it.
			if nn, nv := next(); nn == "$limit" {
				if n, ok := explainInt64(nv); ok {
					s = append(s, bson.E{Key: "limit", Value: n})
					i++
				}
			}
			out = append(out, bson.D{{Key: name, Value: s}})
		case "$skip", "$limit":
			n, _ := explainInt64(spec)
			out = append(out, bson.D{{Key: name, Value: n}})
		case "$unwind":
			out = append(out, bson.D{{Key: name, Value: explainUnwind(spec)}})
		case "$lookup":
			l := explainLookup(spec, filter)
			// A $unwind of the lookup's output field right after it is
			// absorbed, as mongod's optimiser does.
			if nn, nv := next(); nn == "$unwind" {
				u := explainUnwind(nv)
				as, _ := specField(l, "as")
				if path, _ := specField(u, "path"); as != nil && path == "$"+asString(as) {
					uw := bson.D{{Key: "preserveNullAndEmptyArrays", Value: false}}
					if v, ok := specField(u, "preserveNullAndEmptyArrays"); ok {
						uw[0].Value = v
					}
					if v, ok := specField(u, "includeArrayIndex"); ok {
						uw = append(uw, bson.E{Key: "includeArrayIndex", Value: v})
					}
					l = append(l, bson.E{Key: "unwinding", Value: uw})
					i++
				}
			}
			out = append(out, bson.D{{Key: name, Value: l}})
		case "$count":
			field, _ := spec.(string)
			out = append(out,
				bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: constant(nil)}, {Key: field, Value: bson.D{{Key: "$sum", Value: constant(int32(1))}}}}}},
				bson.D{{Key: "$project", Value: bson.D{{Key: "_id", Value: false}, {Key: field, Value: true}}}})
		case "$sortByCount":
			out = append(out,
				bson.D{{Key: "$group", Value: bson.D{{Key: "_id", Value: explainExpr(spec)}, {Key: "count", Value: bson.D{{Key: "$sum", Value: constant(int32(1))}}}}}},
				bson.D{{Key: "$sort", Value: bson.D{{Key: "sortKey", Value: bson.D{{Key: "count", Value: int32(-1)}}}}}})
		default:
			out = append(out, sd)
		}
		for len(from) < len(out) {
			from = append(from, i)
		}
	}
	return out, from
}

func nonNil(d bson.D) bson.D {
	if d == nil {
		return bson.D{}
	}
	return d
}

func asString(v any) string {
	s, _ := v.(string)
	return s
}

func specField(d bson.D, key string) (any, bool) {
	for _, e := range d {
		if e.Key == key {
			return e.Value, true
		}
	}
	return nil, false
}

func explainInt64(v any) (int64, bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int32:
		return int64(x), true
	case float64:
		return int64(x), true
	}
	return 0, false
}

func constant(v any) bson.D { return bson.D{{Key: "$const", Value: v}} }

// explainExpr is expression v as mongod serializes it once optimised:
// a field path or variable as written, a literal as {$const: v}, an
// expression of constants folded to its value, an operator's arguments
// as an array (named arguments as a document of expressions), a
// document as a document of expressions.
func explainExpr(v any) any {
	switch x := v.(type) {
	case string:
		if strings.HasPrefix(x, "$") {
			return x
		}
		return constant(x)
	case bson.A:
		if c, ok := folded(x); ok {
			return c
		}
		out := make(bson.A, len(x))
		for i, e := range x {
			out[i] = explainExpr(e)
		}
		return out
	case bson.D:
		if len(x) == 1 && strings.HasPrefix(x[0].Key, "$") {
			return explainOperator(x)
		}
		if c, ok := folded(x); ok {
			return c
		}
		return explainFieldsOf(x, explainExpr)
	}
	return constant(v)
}

// explainOperator serializes {$op: args}.
func explainOperator(x bson.D) any {
	op, args := x[0].Key, x[0].Value
	switch op {
	case "$literal", "$const":
		return constant(args)
	case "$meta":
		return x
	}
	if c, ok := folded(x); ok {
		return c
	}
	switch a := args.(type) {
	case bson.A:
		out := make(bson.A, len(a))
		for i, e := range a {
			out[i] = explainExpr(e)
		}
		return bson.D{{Key: op, Value: out}}
	case bson.D:
		if op == "$cond" {
			// mongod's $cond is a three-argument operator.
			var c bson.A
			for _, k := range []string{"if", "then", "else"} {
				v, _ := specField(a, k)
				c = append(c, explainExpr(v))
			}
			return bson.D{{Key: op, Value: c}}
		}
		if len(a) == 1 && strings.HasPrefix(a[0].Key, "$") {
			// One argument that is itself an operator.
			return bson.D{{Key: op, Value: bson.A{explainOperator(a)}}}
		}
		// Named arguments, each an expression but for the names of
		// variables ($let's vars, $map's and $filter's as), $switch's
		// branches and a sortBy.
		out := make(bson.D, len(a))
		for i, e := range a {
			v := e.Value
			switch {
			case op == "$let" && e.Key == "vars":
				if vd, ok := v.(bson.D); ok {
					vars := make(bson.D, len(vd))
					for j, ve := range vd {
						vars[j] = bson.E{Key: ve.Key, Value: explainExpr(ve.Value)}
					}
					v = vars
				}
			case e.Key == "as" && (op == "$map" || op == "$filter"), e.Key == "sortBy":
			case op == "$switch" && e.Key == "branches":
				if ba, ok := v.(bson.A); ok {
					branches := make(bson.A, len(ba))
					for j, b := range ba {
						bd, _ := b.(bson.D)
						br := make(bson.D, len(bd))
						for k, be := range bd {
							br[k] = bson.E{Key: be.Key, Value: explainExpr(be.Value)}
						}
						branches[j] = br
					}
					v = branches
				}
			default:
				v = explainExpr(v)
			}
			out[i] = bson.E{Key: e.Key, Value: v}
		}
		return bson.D{{Key: op, Value: out}}
	}
	// One argument, which an n-ary operator holds in its array.
	return bson.D{{Key: op, Value: bson.A{explainExpr(args)}}}
}

// nonConstantOps may not be folded: they differ by run or need the
// document's metadata.
var nonConstantOps = map[string]bool{"$rand": true, "$function": true, "$accumulator": true,
	"$meta": true, "$where": true}

// folded is expression v evaluated, as {$const: value}, when it holds
// no field path, variable or per-run operator and evaluates cleanly, as
// mongod's optimiser folds it.
func folded(v any) (bson.D, bool) {
	if !constantExpr(v) {
		return nil, false
	}
	e, err := ParseExpr(v)
	if err != nil {
		return nil, false
	}
	r, err := e.Eval(&Env{})
	if err != nil || r == missing {
		return nil, false
	}
	return constant(r), true
}

func constantExpr(v any) bool {
	switch x := v.(type) {
	case string:
		return !strings.HasPrefix(x, "$")
	case bson.A:
		for _, e := range x {
			if !constantExpr(e) {
				return false
			}
		}
	case bson.D:
		if len(x) == 1 && (x[0].Key == "$literal" || x[0].Key == "$const") {
			return true // a literal whatever it holds
		}
		for _, e := range x {
			if strings.HasPrefix(e.Key, "$") && nonConstantOps[e.Key] {
				return false
			}
			if !constantExpr(e.Value) {
				return false
			}
		}
	}
	return true
}

// explainFieldsOf serializes a document of fields, a dotted name as
// nested documents, each value through val.
func explainFieldsOf(d bson.D, val func(any) any) bson.D {
	out := bson.D{}
	for _, e := range d {
		out = setNested(out, strings.Split(e.Key, "."), val(e.Value))
	}
	return out
}

// explainFields is an $addFields' or $set's spec: each field an
// expression; a document without operators is a document of fields.
func explainFields(spec any) any {
	d, ok := spec.(bson.D)
	if !ok {
		return spec
	}
	var val func(any) any
	val = func(v any) any {
		if sub, ok := v.(bson.D); ok && (len(sub) == 0 || !strings.HasPrefix(sub[0].Key, "$")) {
			return explainFieldsOf(sub, val)
		}
		return explainExpr(v)
	}
	return explainFieldsOf(d, val)
}

// projFlagOf reads a $project value that includes or excludes a field.
func projFlagOf(v any) (on, ok bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case int32:
		return x != 0, true
	case int64:
		return x != 0, true
	case float64:
		return x != 0, true
	case bson.Decimal128:
		return x.String() != "0", true
	}
	return false, false
}

// explainProject is a $project's spec as mongod serializes it: an
// inclusion names _id first (true unless excluded), included fields
// true, computed ones as expressions; an exclusion lists its fields
// false, _id where it was excluded, else last and true.
func explainProject(spec any) any {
	d, ok := spec.(bson.D)
	if !ok {
		return spec
	}
	exclusion := true
	for _, e := range flattenProj(d, "") {
		if on, isFlag := projFlagOf(e.Value); !isFlag || on {
			if e.Key != "_id" {
				exclusion = false
			}
		}
	}
	if _, hasID := specField(d, "_id"); exclusion && !(len(d) == 1 && hasID) {
		out := bson.D{}
		for _, e := range flattenProj(d, "") {
			out = setNested(out, strings.Split(e.Key, "."), false)
		}
		if !hasID {
			out = append(out, bson.E{Key: "_id", Value: true})
		}
		return out
	}
	out := bson.D{{Key: "_id", Value: true}}
	for _, e := range flattenProj(d, "") {
		if on, isFlag := projFlagOf(e.Value); isFlag {
			if e.Key == "_id" || on {
				out = setNested(out, strings.Split(e.Key, "."), on)
			}
			continue
		}
		out = setNested(out, strings.Split(e.Key, "."), explainExpr(e.Value))
	}
	return out
}

// flattenProj lists a projection's leaves under their dotted paths; an
// operator document is a leaf.
func flattenProj(d bson.D, prefix string) bson.D {
	var out bson.D
	for _, e := range d {
		if sub, ok := e.Value.(bson.D); ok && len(sub) > 0 && !strings.HasPrefix(sub[0].Key, "$") {
			out = append(out, flattenProj(sub, prefix+e.Key+".")...)
			continue
		}
		out = append(out, bson.E{Key: prefix + e.Key, Value: e.Value})
	}
	return out
}

// explainGroup is a $group's spec: _id an expression, each accumulator
// {$acc: expression}.
func explainGroup(spec any) any {
	d, ok := spec.(bson.D)
	if !ok {
		return spec
	}
	out := bson.D{}
	for _, e := range d {
		if e.Key == "_id" {
			id := explainExpr(e.Value)
			if idd, ok := e.Value.(bson.D); ok && len(idd) > 0 && !strings.HasPrefix(idd[0].Key, "$") {
				// A document _id is one expression a field, never folded
				// whole.
				fields := make(bson.D, len(idd))
				for j, f := range idd {
					fields[j] = bson.E{Key: f.Key, Value: explainExpr(f.Value)}
				}
				id = fields
			}
			out = append(out, bson.E{Key: "_id", Value: id})
			continue
		}
		acc, ok := e.Value.(bson.D)
		if !ok || len(acc) != 1 {
			out = append(out, e)
			continue
		}
		arg := acc[0].Value
		if acc[0].Key == "$accumulator" {
			// JavaScript's parts, shown as given.
			out = append(out, e)
			continue
		}
		if acc[0].Key == "$count" {
			// mongod parses {$count: {}} as a $sum of 1.
			out = append(out, bson.E{Key: e.Key, Value: bson.D{{Key: "$sum", Value: constant(int32(1))}}})
			continue
		}
		if ad, isDoc := arg.(bson.D); isDoc && namedArgAccs[acc[0].Key] {
			// The n-accumulators' named arguments in mongod's order,
			// their expressions serialized, a sortBy as given.
			named := bson.D{}
			for _, k := range []string{"n", "output", "input", "sortBy"} {
				if v, ok := specField(ad, k); ok {
					if k != "sortBy" {
						v = explainExpr(v)
					}
					named = append(named, bson.E{Key: k, Value: v})
				}
			}
			for _, a := range ad {
				switch a.Key {
				case "n", "output", "input", "sortBy":
				default:
					named = append(named, bson.E{Key: a.Key, Value: explainExpr(a.Value)})
				}
			}
			arg = named
		} else {
			arg = explainExpr(arg)
		}
		out = append(out, bson.E{Key: e.Key, Value: bson.D{{Key: acc[0].Key, Value: arg}}})
	}
	return out
}

// namedArgAccs are the accumulators whose argument is a document of
// named arguments rather than an expression.
var namedArgAccs = map[string]bool{"$top": true, "$bottom": true, "$topN": true, "$bottomN": true,
	"$firstN": true, "$lastN": true, "$maxN": true, "$minN": true, "$percentile": true, "$median": true}

// explainSortKey is a sort specification with its directions as
// mongod's: 1 or -1 (int32), a $meta kept.
func explainSortKey(spec any) any {
	d, ok := spec.(bson.D)
	if !ok {
		return spec
	}
	out := bson.D{}
	for _, e := range d {
		v := e.Value
		if f, isNum := explainFloat(v); isNum {
			if f < 0 {
				v = int32(-1)
			} else {
				v = int32(1)
			}
		}
		out = append(out, bson.E{Key: e.Key, Value: v})
	}
	return out
}

func explainFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// explainUnwind is an $unwind's spec as mongod's: {path}, then
// preserveNullAndEmptyArrays when true, then includeArrayIndex.
func explainUnwind(spec any) bson.D {
	switch x := spec.(type) {
	case string:
		return bson.D{{Key: "path", Value: x}}
	case bson.D:
		out := bson.D{}
		if v, ok := specField(x, "path"); ok {
			out = append(out, bson.E{Key: "path", Value: v})
		}
		if v, ok := specField(x, "preserveNullAndEmptyArrays"); ok && v == true {
			out = append(out, bson.E{Key: "preserveNullAndEmptyArrays", Value: true})
		}
		if v, ok := specField(x, "includeArrayIndex"); ok {
			out = append(out, bson.E{Key: "includeArrayIndex", Value: v})
		}
		return out
	}
	return bson.D{}
}

// explainLookup is a $lookup's spec in mongod's order: from, as, then
// localField and foreignField, then let (its expressions serialized)
// and the sub-pipeline (serialized too) when there is one.
func explainLookup(spec any, filter func(bson.D) bson.D) bson.D {
	d, ok := spec.(bson.D)
	if !ok {
		return bson.D{}
	}
	out := bson.D{}
	for _, k := range []string{"from", "as", "localField", "foreignField"} {
		if v, ok := specField(d, k); ok {
			out = append(out, bson.E{Key: k, Value: v})
		}
	}
	if pv, ok := specField(d, "pipeline"); ok {
		let := bson.D{}
		if lv, ok := specField(d, "let"); ok {
			if ld, ok := lv.(bson.D); ok {
				for _, e := range ld {
					let = append(let, bson.E{Key: e.Key, Value: explainExpr(e.Value)})
				}
			}
		}
		pa, _ := pv.(bson.A)
		sub, _ := explainStages(pa, filter)
		out = append(out, bson.E{Key: "let", Value: let}, bson.E{Key: "pipeline", Value: sub})
	}
	return out
}

// internalOps reports whether v uses one of mongod's $_internal
// operators anywhere.
func internalOps(v any) bool {
	switch x := v.(type) {
	case bson.D:
		for _, e := range x {
			if strings.HasPrefix(e.Key, "$_internal") || internalOps(e.Value) {
				return true
			}
		}
	case bson.A:
		for _, e := range x {
			if internalOps(e) {
				return true
			}
		}
	}
	return false
}
