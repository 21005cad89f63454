package agg

import (
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// parseFill parses $fill as mongod does: into a $setWindowFields of
// $locf and $linearFill for the fields filled by a method, then an
// $addFields that gives the fields filled by a value {$ifNull: ["$f",
// value]}; explain shows those stages.
func parseFill(arg any, sc pdepth) (stageSpec, error) {
	spec, ok := arg.(bson.D)
	if !ok {
		return stageSpec{}, document.Errorf(document.CodeFailedToParse, "The $fill stage specification must be an object, found %s", document.TypeName(arg))
	}
	var (
		output, sortBy        bson.D
		hasOutput             bool
		partitionBy           any
		partitionByFields     bson.A
		hasPart, hasPartField bool
	)
	for _, el := range spec {
		switch el.Key {
		case "output":
			d, ok := el.Value.(bson.D)
			if !ok {
				return stageSpec{}, fillType("output", "object", el.Value)
			}
			output, hasOutput = d, true
		case "sortBy":
			d, ok := el.Value.(bson.D)
			if !ok {
				return stageSpec{}, fillType("sortBy", "object", el.Value)
			}
			sortBy = d
		case "partitionBy":
			switch el.Value.(type) {
			case string, bson.D:
			default:
				return stageSpec{}, document.Errorf(document.CodeTypeMismatch, "BSON field '$fill.partitionBy' is the wrong type '%s', expected types '[string, object]'", document.TypeName(el.Value))
			}
			partitionBy, hasPart = el.Value, true
		case "partitionByFields":
			a, ok := el.Value.(bson.A)
			if !ok {
				return stageSpec{}, fillType("partitionByFields", "array", el.Value)
			}
			for i, f := range a {
				if _, ok := f.(string); !ok {
					return stageSpec{}, document.Errorf(document.CodeTypeMismatch, "BSON field '$fill.partitionByFields.%d' is the wrong type '%s', expected type 'string'", i, document.TypeName(f))
				}
			}
			partitionByFields, hasPartField = a, true
		default:
			return stageSpec{}, document.Errorf(codeUnknownField, "BSON field '$fill.%s' is an unknown field.", el.Key)
		}
	}
	if !hasOutput {
		return stageSpec{}, document.Errorf(codeMissingField, "BSON field '$fill.output' is missing but a required field")
	}
	if len(output) == 0 {
		return stageSpec{}, document.Errorf(document.Code(6050203), "The output field in '$fill' must contain an object with at least one element")
	}
	windowOut, addFields := bson.D{}, bson.D{}
	for _, f := range output {
		fd, ok := f.Value.(bson.D)
		if !ok {
			return stageSpec{}, document.Errorf(document.Code(6050200), "Each fill output specification must be an object with exactly one field")
		}
		var method string
		var value any
		hasMethod, hasValue := false, false
		for _, o := range fd {
			switch o.Key {
			case "method":
				s, ok := o.Value.(string)
				if !ok {
					return stageSpec{}, fillType("method", "string", o.Value)
				}
				method, hasMethod = s, true
			case "value":
				value, hasValue = o.Value, true
			default:
				return stageSpec{}, document.Errorf(codeUnknownField, "BSON field '$fill.%s' is an unknown field.", o.Key)
			}
		}
		if hasMethod {
			if hasValue {
				return stageSpec{}, document.Errorf(document.Code(6050201), "Each fill output specification must have exactly one of 'method' or 'value' fields, not both")
			}
			fn := map[string]string{"locf": "$locf", "linear": "$linearFill"}[method]
			if fn == "" {
				return stageSpec{}, document.Errorf(document.Code(6050202), "Method must be either locf or linear")
			}
			windowOut = append(windowOut, bson.E{Key: f.Key, Value: bson.D{{Key: fn, Value: "$" + f.Key}}})
		}
		if hasValue {
			addFields = append(addFields, bson.E{Key: f.Key, Value: bson.D{{Key: "$ifNull", Value: bson.A{"$" + f.Key, value}}}})
		}
	}
	if hasPart && hasPartField {
		return stageSpec{}, document.Errorf(document.Code(6050204), "Maximum one of 'partitionBy' and 'partitionByFields can be specified in '$fill'")
	}
	var parts []stageSpec
	if len(windowOut) > 0 {
		w := bson.D{{Key: "output", Value: windowOut}}
		if sortBy != nil {
			w = append(w, bson.E{Key: "sortBy", Value: sortBy})
		}
		if hasPart {
			w = append(w, bson.E{Key: "partitionBy", Value: partitionBy})
		}
		if hasPartField {
			by := bson.D{}
			for _, f := range partitionByFields {
				by = append(by, bson.E{Key: f.(string), Value: "$" + f.(string)})
			}
			w = append(w, bson.E{Key: "partitionBy", Value: by})
		}
		st, err := parseSetWindowFields(w, sc)
		if err != nil {
			return stageSpec{}, err
		}
		parts = append(parts, st)
	}
	if len(addFields) > 0 {
		st, err := parseAddFields("$addFields", addFields, sc)
		if err != nil {
			return stageSpec{}, err
		}
		parts = append(parts, st)
	}
	return stageSpec{parts: parts}, nil
}

// fillType is the IDL parser's refusal of a $fill field of the wrong
// type.
func fillType(field, want string, v any) error {
	return document.Errorf(document.CodeTypeMismatch, "BSON field '$fill.%s' is the wrong type '%s', expected type '%s'", field, document.TypeName(v), want)
}
