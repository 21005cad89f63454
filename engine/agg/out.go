package agg

import (
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Out is a pipeline's final $out or $merge stage: the collection its
// results are written to, and for $merge how each result meets the
// document already there. The engine does the writing (Pipeline.Out).
type Out struct {
	// Stage is "$out" or "$merge".
	Stage string
	// DB is the target's database; "" means the aggregate's own.
	DB string
	// Coll is the target collection.
	Coll string
	// On are the fields a $merge result is matched by (default _id).
	On []string
	// WhenMatched is a $merge's action on a match: "replace",
	// "keepExisting", "merge", "fail" or "pipeline" (Pipeline).
	WhenMatched string
	// WhenNotMatched is a $merge's action without one: "insert",
	// "discard" or "fail".
	WhenNotMatched string
	// Pipeline is whenMatched's update pipeline, run on the matched
	// document with the variables of Vars.
	Pipeline bson.A
	// Timeseries is a $out's timeseries option as written, nil if it
	// has none: the target is (or becomes) a time-series collection of
	// those options. The engine checks its fields.
	Timeseries bson.D

	spec any      // as written, for explain
	let  []letVar // the variables of the whenMatched pipeline
}

type letVar struct {
	name string
	expr Expr
}

// Codes of the server's IDL parser.
const (
	codeUnknownField = document.CodeIDLUnknownField
	codeMissingField = document.CodeIDLFailedToParse
)

// The $merge combinations mongod supports.
var mergeModes = map[[2]string]bool{
	{"replace", "insert"}: true, {"replace", "discard"}: true, {"replace", "fail"}: true,
	{"merge", "insert"}: true, {"merge", "discard"}: true, {"merge", "fail"}: true,
	{"pipeline", "insert"}: true, {"pipeline", "discard"}: true, {"pipeline", "fail"}: true,
	{"keepExisting", "insert"}: true, {"fail", "insert"}: true,
}

// Vars are the values of the whenMatched pipeline's variables for the
// result d: $$new is d itself, and each of let's expressions is
// evaluated against d.
func (o *Out) Vars(d bson.D, now bson.DateTime) (bson.D, error) {
	out := make(bson.D, 0, len(o.let))
	env := &Env{Root: d, Now: now}
	for _, l := range o.let {
		v, err := l.expr.Eval(env)
		if err != nil {
			return nil, err
		}
		if isMissing(v) {
			v = nil
		}
		out = append(out, bson.E{Key: l.name, Value: v})
	}
	return out, nil
}

// Out returns the pipeline's $out or $merge stage, nil if it has none.
func (p *Pipeline) Out() *Out { return p.out }

// parseOut parses {$out: "coll"} or {$out: {db, coll, timeseries}}.
func parseOut(arg any) (*Out, error) {
	o := &Out{Stage: "$out", spec: arg}
	switch x := arg.(type) {
	case string:
		o.Coll = x
	case bson.D:
		for _, el := range x {
			switch el.Key {
			case "db", "coll":
				s, ok := el.Value.(string)
				if !ok {
					return nil, document.Errorf(document.CodeTypeMismatch, "BSON field '$out.%s' is the wrong type '%s', expected type 'string'", el.Key, document.TypeName(el.Value))
				}
				if el.Key == "db" {
					o.DB = s
				} else {
					o.Coll = s
				}
			case "timeseries":
				d, ok := el.Value.(bson.D)
				if !ok {
					return nil, document.Errorf(document.CodeTypeMismatch, "BSON field '$out.timeseries' is the wrong type '%s', expected type 'object'", document.TypeName(el.Value))
				}
				o.Timeseries = d
			default:
				return nil, document.Errorf(codeUnknownField, "BSON field '$out.%s' is an unknown field.", el.Key)
			}
		}
		if _, ok := getField(x, "coll"); !ok {
			return nil, document.Errorf(codeMissingField, "BSON field '$out.coll' is missing but a required field")
		}
	default:
		return nil, document.Errorf(document.Code(16990), "$out only supports a string or object argument, but found %s", document.TypeName(arg))
	}
	if o.Coll == "" {
		return nil, document.Errorf(document.CodeInvalidNamespace, "Invalid $out target namespace: '%s.'", o.DB)
	}
	return o, nil
}

// parseMerge parses $merge's {into, on, let, whenMatched,
// whenNotMatched}, or its short form, a collection name.
func parseMerge(arg any, sc pdepth) (*Out, error) {
	o := &Out{Stage: "$merge", spec: arg, WhenMatched: "merge", WhenNotMatched: "insert"}
	var spec bson.D
	switch x := arg.(type) {
	case string:
		spec = bson.D{{Key: "into", Value: x}}
	case bson.D:
		spec = x
	default:
		return nil, document.Errorf(document.CodeTypeMismatch, "$merge requires a string or object argument, but found %s", document.TypeName(arg))
	}
	var (
		haveInto, haveLet bool
		letSpec           bson.D
	)
	for _, el := range spec {
		switch el.Key {
		case "into":
			if err := o.parseInto(el.Value); err != nil {
				return nil, err
			}
			haveInto = true
		case "on":
			switch v := el.Value.(type) {
			case string:
				o.On = []string{v}
			case bson.A:
				o.On = []string{}
				for _, f := range v {
					s, ok := f.(string)
					if !ok {
						return nil, document.Errorf(document.Code(51134), "$merge 'on' array elements must be strings, but found %s", document.TypeName(f))
					}
					o.On = append(o.On, s)
				}
			default:
				return nil, document.Errorf(document.Code(51186), "$merge 'on' field  must be either a string or an array of strings, but found %s", document.TypeName(el.Value))
			}
			if len(o.On) == 0 {
				return nil, document.Errorf(document.Code(51187), "If explicitly specifying $merge 'on', must include at least one field")
			}
			seen := map[string]bool{}
			for _, f := range o.On {
				if _, err := lookupPath(f); err != nil {
					return nil, err
				}
				if seen[f] {
					return nil, document.Errorf(document.Code(31465), "Found a duplicate field '%s'", f)
				}
				seen[f] = true
			}
		case "let":
			d, ok := el.Value.(bson.D)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field '$merge.let' is the wrong type '%s', expected type 'object'", document.TypeName(el.Value))
			}
			letSpec, haveLet = d, true
		case "whenMatched":
			switch v := el.Value.(type) {
			case string:
				switch v {
				case "replace", "keepExisting", "merge", "fail":
					o.WhenMatched = v
				default:
					return nil, document.Errorf(document.CodeBadValue, "Enumeration value '%s' for field 'whenMatched' is not a valid value.", v)
				}
			case bson.A:
				o.WhenMatched, o.Pipeline = "pipeline", v
			default:
				return nil, document.Errorf(document.Code(51191), "$merge 'whenMatched' field  must be either a string or an array, but found %s", document.TypeName(el.Value))
			}
		case "whenNotMatched":
			v, ok := el.Value.(string)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field '$merge.whenNotMatched' is the wrong type '%s', expected type 'string'", document.TypeName(el.Value))
			}
			switch v {
			case "insert", "discard", "fail":
				o.WhenNotMatched = v
			default:
				return nil, document.Errorf(document.CodeBadValue, "Enumeration value '%s' for field '$merge.whenNotMatched' is not a valid value.", v)
			}
		default:
			return nil, document.Errorf(codeUnknownField, "BSON field '$merge.%s' is an unknown field.", el.Key)
		}
	}
	if !haveInto {
		return nil, document.Errorf(codeMissingField, "BSON field '$merge.into' is missing but a required field")
	}
	if !mergeModes[[2]string{o.WhenMatched, o.WhenNotMatched}] {
		return nil, document.Errorf(document.Code(51181), "Combination of $merge modes 'whenMatched: %s' and 'whenNotMatched: %s' is not supported", o.WhenMatched, o.WhenNotMatched)
	}
	if o.WhenMatched != "pipeline" {
		if haveLet {
			return nil, document.Errorf(document.Code(51199), "Cannot use 'let' variables with 'whenMatched: %s' mode", o.WhenMatched)
		}
		return o, nil
	}
	// The whenMatched pipeline sees $$new (the result) unless let binds
	// other names and nothing is inserted, as in mongod.
	if !haveLet {
		letSpec = bson.D{{Key: "new", Value: "$$ROOT"}}
	}
	if v, ok := getField(letSpec, "new"); ok && v != "$$ROOT" {
		return nil, document.Errorf(document.Code(51273), "'let' may not define a value for the reserved 'new' variable other than '$$ROOT'")
	} else if !ok && o.WhenNotMatched == "insert" {
		letSpec = append(letSpec, bson.E{Key: "new", Value: "$$ROOT"})
	}
	names := make([]string, 0, len(letSpec))
	for _, el := range letSpec {
		if err := checkVarName(el.Key); err != nil {
			return nil, err
		}
		e, err := parseExpr(el.Value, sc)
		if err != nil {
			return nil, err
		}
		o.let = append(o.let, letVar{name: el.Key, expr: e})
		names = append(names, el.Key)
	}
	// Parse the pipeline now, so that a bad one fails before anything is
	// written; the engine parses it again with the values.
	vars := make(bson.D, len(names))
	for i, n := range names {
		vars[i] = bson.E{Key: n}
	}
	if _, err := ParseUpdatePipelineVars(o.Pipeline, vars); err != nil {
		return nil, err
	}
	return o, nil
}

// parseInto reads $merge's into: a collection name, or {db, coll}.
func (o *Out) parseInto(v any) error {
	switch x := v.(type) {
	case string:
		if x == "" {
			return document.Errorf(document.Code(5786800), "$merge 'into' field cannot be an empty string")
		}
		o.Coll = x
		return nil
	case bson.D:
		for _, el := range x {
			switch el.Key {
			case "db", "coll":
				s, ok := el.Value.(string)
				if !ok && el.Value != nil {
					return document.Errorf(document.CodeTypeMismatch, "BSON field 'into.%s' is the wrong type '%s', expected type 'string'", el.Key, document.TypeName(el.Value))
				}
				if el.Key == "db" {
					o.DB = s
				} else {
					o.Coll = s
				}
			default:
				return document.Errorf(codeUnknownField, "BSON field 'into.%s' is an unknown field.", el.Key)
			}
		}
		if o.Coll == "" {
			return document.Errorf(document.Code(5786801), "$merge 'into' field must specify a 'coll' that is not empty, null or undefined")
		}
		return nil
	}
	return document.Errorf(document.Code(51178), "$merge 'into' field  must be either a string or an object, but found %s", document.TypeName(v))
}

// getField returns the value of key in d.
func getField(d bson.D, key string) (any, bool) {
	for _, el := range d {
		if el.Key == key {
			return el.Value, true
		}
	}
	return nil, false
}

// outStageErr refuses $out or $merge inside a sub-pipeline, with the
// code mongod gives for where it is.
func outStageErr(stage, in string) error {
	switch in {
	case "$facet":
		return document.Errorf(document.Code(40600), "%s is not allowed to be used within a $facet stage", stage)
	case "$unionWith":
		return document.Errorf(document.Code(31441), "%s is not allowed within a $unionWith's sub-pipeline", stage)
	}
	return document.Errorf(document.Code(51047), "%s is not allowed within a $lookup's sub-pipeline", stage)
}

// isOutStage reports whether name is a stage that writes its results.
func isOutStage(name string) bool { return name == "$out" || name == "$merge" }
