package query

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// $jsonSchema (docs/validation.md, "$jsonSchema"): MongoDB's dialect of
// JSON Schema draft 4, with bsonType beside type. A keyword that
// constrains one type (minimum, minLength, properties, items...) passes
// values of other types; only type, bsonType, enum and the logical
// keywords refuse them.

// codeFailedToParse is MongoDB's code for a malformed $jsonSchema.
const codeFailedToParse = document.CodeFailedToParse

// schemaUnsupported are the keywords MongoDB refuses ("is not currently
// supported").
var schemaUnsupported = map[string]bool{"$ref": true, "$schema": true, "default": true, "definitions": true, "format": true, "id": true}

// schemaNotInTTLKV are keywords MongoDB accepts that ttlkv does not
// implement yet: refused, never ignored.
var schemaNotInTTLKV = map[string]bool{"encrypt": true, "encryptMetadata": true}

// jsonTypes maps JSON Schema's type names to BSON type numbers
// ("number" is every numeric type).
var jsonTypes = map[string][]int{
	"object": {3}, "array": {4}, "boolean": {8}, "string": {2}, "null": {10}, "number": {1, 16, 18, 19},
}

// schema is one parsed (sub)schema.
type schema struct {
	types      map[int]bool // bsonType / type; nil: any
	required   []string
	properties []schemaProp
	addlBool   *bool   // additionalProperties: false/true
	addl       *schema // additionalProperties: a schema
	minProps   int64
	maxProps   int64 // -1: none
	min, max   any   // numbers, nil: none
	exclMin    bool
	exclMax    bool
	minLen     int64
	maxLen     int64 // -1: none
	pattern    *regexp.Regexp
	enum       bson.A
	items      *schema
	itemsList  []*schema
	addlItemsB *bool   // additionalItems: false/true
	addlItems  *schema // additionalItems: a schema
	unique     bool    // uniqueItems
	multipleOf any     // a positive number, nil: none
	patProps   []schemaPattern
	depProps   []schemaDepProps
	depSchemas []schemaProp // dependencies: property name -> schema
	minItems   int64
	maxItems   int64 // -1: none
	allOf      []*schema
	anyOf      []*schema
	oneOf      []*schema
	not        *schema
}

type schemaProp struct {
	name string
	s    *schema
}

// schemaPattern is one entry of patternProperties.
type schemaPattern struct {
	re *regexp.Regexp
	s  *schema
}

// schemaDepProps is a property dependency: when name is present, so
// must needs be.
type schemaDepProps struct {
	name  string
	needs []string
}

// schemaNode is a top-level $jsonSchema in a filter.
type schemaNode struct {
	s   *schema
	raw bson.D
}

func (n schemaNode) match(root any) bool { return n.s.matches(root, true) }

// schemaMembers parses v, the object of named subschemas kw takes
// (properties, patternProperties): a member that is not an object is
// notObject's error (with its name); each is handed to add with a
// function that parses its schema, so that add vets the name first.
func schemaMembers(kw string, v any, depth int, notObject string, add func(name string, sub func() (*schema, error)) error) error {
	pd, ok := v.(bson.D)
	if !ok {
		return schemaTypeErr(kw, "an object")
	}
	for _, p := range pd {
		sd, ok := p.Value.(bson.D)
		if !ok {
			return document.Errorf(document.CodeTypeMismatch, notObject, p.Key)
		}
		if err := add(p.Key, func() (*schema, error) { return parseSchema(sd, depth+1) }); err != nil {
			return err
		}
	}
	return nil
}

// schemaOrBool parses the value of kw (additionalProperties,
// additionalItems), a schema or a boolean: one of the two results is
// set.
func schemaOrBool(kw string, v any, depth int) (*schema, *bool, error) {
	switch x := v.(type) {
	case bool:
		return nil, &x, nil
	case bson.D:
		sub, err := parseSchema(x, depth+1)
		return sub, nil, err
	default:
		return nil, nil, schemaTypeErr(kw, "either an object or a boolean")
	}
}

// parseJSONSchema parses the operand of $jsonSchema.
func parseJSONSchema(v any) (*schema, bson.D, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, nil, document.Errorf(document.CodeTypeMismatch, "$jsonSchema must be an object")
	}
	s, err := parseSchema(d, 0)
	return s, d, err
}

func schemaErr(format string, args ...any) error {
	return document.Errorf(codeFailedToParse, format, args...)
}

func schemaTypeErr(kw, want string) error {
	return document.Errorf(document.CodeTypeMismatch, "$jsonSchema keyword '%s' must be %s", kw, want)
}

func schemaCount(kw string, v any) (int64, error) {
	if !document.IsNumber(v) {
		return 0, schemaErr("Expected a number in: %s: %s", kw, document.Format(v))
	}
	n, ok := wholeNumber(v)
	if !ok {
		return 0, schemaErr("Expected an integer: %s: %s", kw, document.Format(v))
	}
	if n < 0 {
		return 0, schemaErr("$jsonSchema keyword '%s' must be a non-negative integral number", kw)
	}
	return n, nil
}

func parseSchemaList(kw string, v any, depth int) ([]*schema, error) {
	arr, ok := v.(bson.A)
	if !ok {
		return nil, schemaTypeErr(kw, "an array")
	}
	if len(arr) == 0 {
		return nil, document.Errorf(document.CodeBadValue, "$jsonSchema keyword '%s' must be a non-empty array", kw)
	}
	out := make([]*schema, len(arr))
	for i, x := range arr {
		d, ok := x.(bson.D)
		if !ok {
			return nil, schemaTypeErr(kw, "an array of objects")
		}
		s, err := parseSchema(d, depth+1)
		if err != nil {
			return nil, err
		}
		out[i] = s
	}
	return out, nil
}

func parseSchemaTypes(kw string, v any, s *schema) error {
	var names []string
	switch x := v.(type) {
	case string:
		names = []string{x}
	case bson.A:
		for _, e := range x {
			n, ok := e.(string)
			if !ok {
				return schemaTypeErr(kw, "either a string or an array of strings")
			}
			names = append(names, n)
		}
	default:
		return schemaTypeErr(kw, "either a string or an array of strings")
	}
	if len(names) == 0 {
		return schemaErr("$jsonSchema keyword '%s' must name at least one type", kw)
	}
	for i, n := range names {
		if slices.Contains(names[:i], n) {
			return schemaErr("$jsonSchema keyword '%s' has duplicate value: %s", kw, n)
		}
	}
	if s.types == nil {
		s.types = map[int]bool{}
	}
	for _, n := range names {
		if kw == "type" {
			if n == "integer" {
				return schemaErr("$jsonSchema type 'integer' is not currently supported.")
			}
			nums, ok := jsonTypes[n]
			if !ok {
				return document.Errorf(document.CodeBadValue, "Unknown type name alias: %s", n)
			}
			for _, t := range nums {
				s.types[t] = true
			}
			continue
		}
		if n == "integer" {
			return schemaErr("$jsonSchema type 'integer' is not currently supported.")
		}
		if n == "number" {
			for _, t := range jsonTypes["number"] {
				s.types[t] = true
			}
			continue
		}
		t, ok := typeAliases[n]
		if !ok {
			return document.Errorf(document.CodeBadValue, "Unknown type name alias: %s", n)
		}
		s.types[t] = true
	}
	return nil
}

func parseSchema(d bson.D, depth int) (*schema, error) {
	if depth > maxDepth {
		return nil, badValue("exceeded depth limit of %d when parsing the filter", maxDepth)
	}
	s := &schema{maxProps: -1, maxLen: -1, maxItems: -1}
	var hasType, hasBSONType bool
	var hasMin, hasMax bool
	var exclMinSet, exclMaxSet bool
	seen := map[string]bool{}
	for _, e := range d {
		kw, v := e.Key, e.Value
		if seen[kw] {
			return nil, schemaErr("Duplicate $jsonSchema keyword: %s", kw)
		}
		seen[kw] = true
		var err error
		switch kw {
		case "type":
			hasType = true
			err = parseSchemaTypes(kw, v, s)
		case "bsonType":
			hasBSONType = true
			err = parseSchemaTypes(kw, v, s)
		case "required":
			arr, ok := v.(bson.A)
			if !ok {
				return nil, schemaTypeErr(kw, "an array")
			}
			if len(arr) == 0 {
				return nil, schemaErr("$jsonSchema keyword 'required' cannot be an empty array")
			}
			for _, x := range arr {
				n, ok := x.(string)
				if !ok {
					return nil, schemaTypeErr(kw, "an array of strings")
				}
				if slices.Contains(s.required, n) {
					return nil, schemaErr("$jsonSchema keyword 'required' array cannot contain duplicate values")
				}
				s.required = append(s.required, n)
			}
		case "properties":
			err = schemaMembers(kw, v, depth, "Nested schema for $jsonSchema property '%s' must be an object",
				func(name string, sub func() (*schema, error)) error {
					ps, err := sub()
					s.properties = append(s.properties, schemaProp{name, ps})
					return err
				})
		case "additionalProperties":
			s.addl, s.addlBool, err = schemaOrBool(kw, v, depth)
		case "minProperties":
			s.minProps, err = schemaCount(kw, v)
		case "maxProperties":
			s.maxProps, err = schemaCount(kw, v)
		case "minimum", "maximum":
			if !document.IsNumber(v) {
				return nil, schemaTypeErr(kw, "a number")
			}
			if kw == "minimum" {
				s.min, hasMin = v, true
			} else {
				s.max, hasMax = v, true
			}
		case "exclusiveMinimum", "exclusiveMaximum":
			b, ok := v.(bool)
			if !ok {
				return nil, schemaTypeErr(kw, "a boolean")
			}
			if kw == "exclusiveMinimum" {
				s.exclMin, exclMinSet = b, true
			} else {
				s.exclMax, exclMaxSet = b, true
			}
		case "minLength":
			s.minLen, err = schemaCount(kw, v)
		case "maxLength":
			s.maxLen, err = schemaCount(kw, v)
		case "pattern":
			p, ok := v.(string)
			if !ok {
				return nil, schemaTypeErr(kw, "a string")
			}
			if depth == 0 {
				// The top level is a document, which a pattern (for
				// strings) never applies to: mongod does not compile it.
				break
			}
			if s.pattern, err = compileRegex(p, ""); err != nil {
				err = document.Errorf(document.Code(51091), "Regular expression is invalid: %v", err)
			}
		case "enum":
			arr, ok := v.(bson.A)
			if !ok {
				return nil, schemaTypeErr(kw, "an array")
			}
			if len(arr) == 0 {
				return nil, schemaErr("$jsonSchema keyword 'enum' cannot be an empty array")
			}
			for i, x := range arr {
				for _, y := range arr[:i] {
					if unorderedEqual(x, y) {
						return nil, schemaErr("$jsonSchema keyword 'enum' array cannot contain duplicate values")
					}
				}
			}
			s.enum = arr
		case "items":
			switch x := v.(type) {
			case bson.D:
				s.items, err = parseSchema(x, depth+1)
			case bson.A:
				// Non-nil even when empty: additionalItems then applies
				// from the first element.
				s.itemsList = make([]*schema, 0, len(x))
				for _, it := range x {
					itd, ok := it.(bson.D)
					if !ok {
						return nil, schemaTypeErr(kw, "an array of objects")
					}
					is, err := parseSchema(itd, depth+1)
					if err != nil {
						return nil, err
					}
					s.itemsList = append(s.itemsList, is)
				}
			default:
				return nil, schemaTypeErr(kw, "an array or an object")
			}
		case "additionalItems":
			s.addlItems, s.addlItemsB, err = schemaOrBool(kw, v, depth)
		case "uniqueItems":
			b, ok := v.(bool)
			if !ok {
				return nil, schemaTypeErr(kw, "a boolean")
			}
			s.unique = b
		case "multipleOf":
			if !document.IsNumber(v) {
				return nil, schemaTypeErr(kw, "a number")
			}
			// Judged as a decimal, as mongod does (a decimal divisor may
			// lie beyond a double's range): a NaN or +Infinity divisor
			// passes the sign check and is refused as a divisor.
			d := toDecimal(v)
			i, _, err := d.BigInt() // err: NaN or an infinity
			switch {
			case d.IsInf() < 0 || err == nil && i.Sign() <= 0:
				return nil, schemaErr("$jsonSchema keyword 'multipleOf' must have a positive value")
			case d.IsNaN():
				return nil, document.Errorf(document.CodeBadValue, "divisor cannot be NaN")
			case d.IsInf() > 0:
				return nil, document.Errorf(document.CodeBadValue, "divisor cannot be infinite")
			}
			s.multipleOf = v
		case "patternProperties":
			err = schemaMembers(kw, v, depth, "$jsonSchema keyword 'patternProperties' has property '%s' which is not an object",
				func(name string, sub func() (*schema, error)) error {
					re, err := compileRegex(name, "")
					if err != nil {
						// A property pattern is compiled alone, not as a
						// $regex: mongod refuses it with 2.
						var de *document.Error
						if errors.As(err, &de) && de.Code == codeBadRegex {
							return badValue("%s", de.Message)
						}
						return err
					}
					ps, err := sub()
					s.patProps = append(s.patProps, schemaPattern{re, ps})
					return err
				})
		case "dependencies":
			dd, ok := v.(bson.D)
			if !ok {
				return nil, schemaTypeErr(kw, "an object")
			}
			for _, dep := range dd {
				switch x := dep.Value.(type) {
				case bson.D:
					ds, err := parseSchema(x, depth+1)
					if err != nil {
						return nil, err
					}
					s.depSchemas = append(s.depSchemas, schemaProp{dep.Key, ds})
				case bson.A:
					if len(x) == 0 {
						return nil, schemaErr("property '%s' in $jsonSchema keyword 'dependencies' cannot be an empty array", dep.Key)
					}
					var needs []string
					for _, n := range x {
						ns, ok := n.(string)
						if !ok {
							return nil, document.Errorf(document.CodeTypeMismatch, "property '%s' in $jsonSchema keyword 'dependencies' must be either an object or an array of strings", dep.Key)
						}
						if slices.Contains(needs, ns) {
							return nil, schemaErr("property '%s' in $jsonSchema keyword 'dependencies' contains duplicate values", dep.Key)
						}
						needs = append(needs, ns)
					}
					s.depProps = append(s.depProps, schemaDepProps{dep.Key, needs})
				default:
					return nil, document.Errorf(document.CodeTypeMismatch, "property '%s' in $jsonSchema keyword 'dependencies' must be either an object or an array of strings", dep.Key)
				}
			}
		case "minItems":
			s.minItems, err = schemaCount(kw, v)
		case "maxItems":
			s.maxItems, err = schemaCount(kw, v)
		case "allOf":
			s.allOf, err = parseSchemaList(kw, v, depth)
		case "anyOf":
			s.anyOf, err = parseSchemaList(kw, v, depth)
		case "oneOf":
			s.oneOf, err = parseSchemaList(kw, v, depth)
		case "not":
			nd, ok := v.(bson.D)
			if !ok {
				return nil, schemaTypeErr(kw, "an object")
			}
			s.not, err = parseSchema(nd, depth+1)
		case "title", "description":
			if _, ok := v.(string); !ok {
				return nil, schemaTypeErr(kw, "a string")
			}
		default:
			switch {
			case schemaUnsupported[kw]:
				return nil, schemaErr("$jsonSchema keyword '%s' is not currently supported", kw)
			case schemaNotInTTLKV[kw]:
				return nil, badValue("$jsonSchema keyword '%s' is not supported by ttlkv", kw)
			}
			return nil, schemaErr("Unknown $jsonSchema keyword: %s", kw)
		}
		if err != nil {
			return nil, err
		}
	}
	if hasType && hasBSONType {
		return nil, schemaErr("Cannot specify both $jsonSchema keywords 'type' and 'bsonType'")
	}
	if exclMinSet && !hasMin {
		return nil, schemaErr("$jsonSchema keyword 'minimum' must be a present if exclusiveMinimum is present")
	}
	if exclMaxSet && !hasMax {
		return nil, schemaErr("$jsonSchema keyword 'maximum' must be a present if exclusiveMaximum is present")
	}
	return s, nil
}

// matches reports whether v (present says whether it exists) satisfies
// the schema.
func (s *schema) matches(v any, present bool) bool {
	if !present {
		return true // a missing value fails only its parent's required
	}
	return len(s.failing(v)) == 0
}

// failing lists the keywords of s that v, a present value, does not
// satisfy, in the schema's own order of checks.
func (s *schema) failing(v any) []string {
	var out []string
	fail := func(kw string) { out = append(out, kw) }
	if s.types != nil && !s.types[document.TypeNumber(v)] {
		fail("type")
	}
	if s.enum != nil {
		found := false
		for _, e := range s.enum {
			if document.CanonicalType(e) == document.CanonicalType(v) && unorderedEqual(e, v) {
				found = true
				break
			}
		}
		if !found {
			fail("enum")
		}
	}
	switch x := v.(type) {
	case bson.D:
		s.failingObject(x, fail)
	case bson.A:
		s.failingArray(x, fail)
	case string:
		n := int64(utf8.RuneCountInString(x))
		if n < s.minLen {
			fail("minLength")
		}
		if s.maxLen >= 0 && n > s.maxLen {
			fail("maxLength")
		}
		if s.pattern != nil && !s.pattern.MatchString(x) {
			fail("pattern")
		}
	default:
		if document.IsNumber(v) {
			if s.min != nil && !schemaBound(v, s.min, s.exclMin, 1) {
				fail("minimum")
			}
			if s.max != nil && !schemaBound(v, s.max, s.exclMax, -1) {
				fail("maximum")
			}
			if s.multipleOf != nil && (isNaN(v) || !isMultipleOf(v, s.multipleOf)) {
				fail("multipleOf") // NaN is a multiple of nothing
			}
		}
	}
	for _, a := range s.allOf {
		if len(a.failing(v)) > 0 {
			fail("allOf")
			break
		}
	}
	if s.anyOf != nil {
		ok := false
		for _, a := range s.anyOf {
			if len(a.failing(v)) == 0 {
				ok = true
				break
			}
		}
		if !ok {
			fail("anyOf")
		}
	}
	if s.oneOf != nil {
		n := 0
		for _, a := range s.oneOf {
			if len(a.failing(v)) == 0 {
				n++
			}
		}
		if n != 1 {
			fail("oneOf")
		}
	}
	if s.not != nil && len(s.not.failing(v)) == 0 {
		fail("not")
	}
	return out
}

// schemaBound reports whether the number v meets a minimum (dir 1) or
// maximum (dir -1) bound, exclusive or not. mongod builds these keywords
// as $gte/$gt/$lte/$lt (json_schema_parser.cpp: parseMinimum,
// parseMaximum), whose rule for NaN is that it equals NaN and compares
// false with everything else: a NaN bound passes only NaN (and an
// exclusive one nothing), and NaN fails every other bound.
func schemaBound(v, bound any, excl bool, dir int) bool {
	if isNaN(v) || isNaN(bound) {
		return !excl && isNaN(v) && isNaN(bound)
	}
	c := document.Compare(v, bound) * dir
	return c > 0 || (c == 0 && !excl)
}

func (s *schema) failingObject(d bson.D, fail func(string)) {
	for _, r := range s.required {
		if len(schemaGet(d, r)) == 0 {
			fail("required")
			break
		}
	}
	if int64(len(d)) < s.minProps || (s.maxProps >= 0 && int64(len(d)) > s.maxProps) {
		if int64(len(d)) < s.minProps {
			fail("minProperties")
		} else {
			fail("maxProperties")
		}
	}
	for _, p := range s.properties {
		if !p.s.passesSome(schemaGet(d, p.name)) {
			fail("properties")
			break
		}
	}
	for _, p := range s.patProps {
		for _, e := range d {
			if p.re.MatchString(e.Key) && len(p.s.failing(e.Value)) > 0 {
				fail("patternProperties")
				break
			}
		}
	}
	for _, dep := range s.depProps {
		if len(schemaGet(d, dep.name)) == 0 {
			continue
		}
		for _, n := range dep.needs {
			if len(schemaGet(d, n)) == 0 {
				fail("dependencies")
				break
			}
		}
	}
	for _, dep := range s.depSchemas {
		if len(schemaGet(d, dep.name)) > 0 && len(dep.s.failing(d)) > 0 {
			fail("dependencies")
		}
	}
	if s.addlBool != nil || s.addl != nil {
		for _, e := range d {
			if s.hasProperty(e.Key) || s.matchesPattern(e.Key) {
				continue
			}
			if (s.addlBool != nil && !*s.addlBool) || (s.addl != nil && len(s.addl.failing(e.Value)) > 0) {
				fail("additionalProperties")
				break
			}
		}
	}
}

// schemaGet returns the values that a property name of required,
// properties or dependencies reaches in d. mongod parses such a name as
// a path (json_schema_parser.cpp gives it to the match expressions it
// builds), so "a.b" reaches into {a: {b: 1}}, and an array met on the
// way is searched element by element as a query path is; nil: the name
// reaches nothing.
func schemaGet(d bson.D, name string) []any {
	if !strings.Contains(name, ".") {
		if v, ok := getField(d, name); ok {
			return []any{v}
		}
		return nil
	}
	var vals []any
	for _, it := range collect(d, strings.Split(name, "."), false, nil) {
		if it.present {
			vals = append(vals, it.v)
		}
	}
	return vals
}

// passesSome reports whether vals, the values a property reaches, meet
// s: none at all (a missing property fails only required), or one that
// satisfies every keyword.
func (s *schema) passesSome(vals []any) bool {
	if len(vals) == 0 {
		return true
	}
	for _, v := range vals {
		if len(s.failing(v)) == 0 {
			return true
		}
	}
	return false
}

// hasProperty reports whether properties names the field name itself
// (additionalProperties compares a document's own field names).
func (s *schema) hasProperty(name string) bool {
	for _, p := range s.properties {
		if p.name == name {
			return true
		}
	}
	return false
}

func (s *schema) matchesPattern(name string) bool {
	for _, p := range s.patProps {
		if p.re.MatchString(name) {
			return true
		}
	}
	return false
}

func (s *schema) failingArray(a bson.A, fail func(string)) {
	n := int64(len(a))
	if n < s.minItems {
		fail("minItems")
	}
	if s.maxItems >= 0 && n > s.maxItems {
		fail("maxItems")
	}
	if s.items != nil {
		for _, e := range a {
			if len(s.items.failing(e)) > 0 {
				fail("items")
				return
			}
		}
	}
	if s.unique {
	uniq:
		for i := range a {
			for j := i + 1; j < len(a); j++ {
				if document.CanonicalType(a[i]) == document.CanonicalType(a[j]) && unorderedEqual(a[i], a[j]) {
					fail("uniqueItems")
					break uniq
				}
			}
		}
	}
	for i, is := range s.itemsList {
		if i < len(a) && len(is.failing(a[i])) > 0 {
			fail("items")
			return
		}
	}
	if s.itemsList != nil && len(a) > len(s.itemsList) {
		for _, e := range a[len(s.itemsList):] {
			if (s.addlItemsB != nil && !*s.addlItemsB) || (s.addlItems != nil && len(s.addlItems.failing(e)) > 0) {
				fail("additionalItems")
				return
			}
		}
	}
}

// SchemaRulesNotSatisfied describes why document d fails the $jsonSchema
// schema (as parsed by a filter, so valid): one entry per keyword of the
// schema's top level that d does not satisfy, with operatorName and
// specifiedAs, and for required the missing properties and for
// properties the failing ones with their own keywords
// (docs/validation.md, "errInfo").
func SchemaRulesNotSatisfied(schemaDoc bson.D, d bson.D) bson.A {
	s, err := parseSchema(schemaDoc, 0)
	if err != nil {
		return nil
	}
	failed := map[string]bool{}
	for _, kw := range s.failing(d) {
		failed[kw] = true
	}
	var out bson.A
	seenType := false
	for _, e := range inMongodOrder(schemaDoc) {
		kw := e.Key
		key := kw
		if kw == "bsonType" || kw == "type" {
			key = "type"
		}
		if kw == "exclusiveMinimum" || kw == "exclusiveMaximum" || !failed[key] || (key == "type" && seenType) {
			continue
		}
		seenType = seenType || key == "type"
		rule := bson.D{{Key: "operatorName", Value: kw}, {Key: "specifiedAs", Value: bson.D{e}}}
		switch kw {
		case "required":
			var missing bson.A
			for _, r := range s.required {
				if len(schemaGet(d, r)) == 0 {
					missing = append(missing, r)
				}
			}
			slices.SortFunc(missing, func(a, b any) int { return strings.Compare(a.(string), b.(string)) })
			rule = append(rule, bson.E{Key: "missingProperties", Value: missing})
		case "properties":
			rule = bson.D{{Key: "operatorName", Value: kw}}
			var props bson.A
			pd, _ := e.Value.(bson.D)
			for _, p := range pd {
				vals := schemaGet(d, p.Key)
				sd, _ := p.Value.(bson.D)
				if len(vals) == 0 || sd == nil {
					continue
				}
				ps, err := parseSchema(sd, 1)
				if err != nil || ps.passesSome(vals) {
					continue
				}
				v := vals[0]
				var det bson.A
				fails := ps.failing(v)
				slices.SortStableFunc(fails, func(a, b string) int { return schemaOrder[a] - schemaOrder[b] })
				for _, kw := range fails {
					rule := bson.D{{Key: "operatorName", Value: schemaKeywordShown(kw, sd)}, {Key: "specifiedAs", Value: schemaSpecified(kw, sd)}}
					if r := schemaReasons[kw]; r != "" {
						rule = append(rule, bson.E{Key: "reason", Value: r})
					}
					rule = append(rule, bson.E{Key: "consideredValue", Value: v})
					if kw == "type" {
						rule = append(rule, bson.E{Key: "consideredType", Value: document.TypeName(v)})
					}
					det = append(det, rule)
				}
				entry := bson.D{{Key: "propertyName", Value: p.Key}}
				if desc, ok := getField(sd, "description"); ok {
					entry = append(entry, bson.E{Key: "description", Value: desc})
				}
				props = append(props, append(entry, bson.E{Key: "details", Value: det}))
			}
			rule = append(rule, bson.E{Key: "propertiesNotSatisfied", Value: props})
		}
		out = append(out, rule)
	}
	return out
}

// schemaOrder is the order in which mongod builds a schema's keywords,
// which is the order its errInfo lists the failing ones in: the scalar
// keywords, the array ones, the object ones (properties before
// required), the logical ones, the type last.
var schemaOrder = func() map[string]int {
	m := map[string]int{}
	for i, kw := range []string{"multipleOf", "maximum", "minimum", "pattern", "maxLength", "minLength",
		"items", "additionalItems", "maxItems", "minItems", "uniqueItems",
		"properties", "patternProperties", "additionalProperties", "required", "minProperties", "maxProperties", "dependencies",
		"allOf", "anyOf", "oneOf", "not", "enum", "type", "bsonType"} {
		m[kw] = i + 1
	}
	return m
}()

// inMongodOrder is the keywords of schema document sd in schemaOrder.
func inMongodOrder(sd bson.D) bson.D {
	out := slices.Clone(sd)
	slices.SortStableFunc(out, func(a, b bson.E) int { return schemaOrder[a.Key] - schemaOrder[b.Key] })
	return out
}

// schemaReasons are the reasons mongod gives for a property's failing
// keyword, where ttlkv gives one (docs/validation.md, "errInfo").
var schemaReasons = map[string]string{
	"type": "type did not match", "minimum": "comparison failed", "maximum": "comparison failed",
	"minLength": "specified string length was not satisfied", "maxLength": "specified string length was not satisfied",
	"pattern": "regular expression did not match", "enum": "value was not found in enum",
}

// schemaKeywordShown is the keyword of sd that failing's name kw stands
// for: "type" is reported as the schema spells it (type or bsonType).
func schemaKeywordShown(kw string, sd bson.D) string {
	if kw != "type" {
		return kw
	}
	for _, e := range sd {
		if e.Key == "bsonType" {
			return "bsonType"
		}
	}
	return "type"
}

// schemaSpecified is {kw: value} as sd gives it.
func schemaSpecified(kw string, sd bson.D) bson.D {
	kw = schemaKeywordShown(kw, sd)
	out := bson.D{}
	for _, e := range sd {
		if e.Key == kw || (strings.HasPrefix(e.Key, "exclusive") && strings.EqualFold(e.Key[len("exclusive"):], kw)) {
			out = append(out, e)
		}
	}
	return out
}

// unorderedEqual compares two values as mongod's $jsonSchema enum and
// uniqueItems do: numbers by value, documents without regard to the
// order of their fields, at any depth.
func unorderedEqual(a, b any) bool {
	return document.Compare(document.SortFields(a), document.SortFields(b)) == 0
}
