package main

import (
	"encoding/base64"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
	jstoken "github.com/dop251/goja/token"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// errLegacyOther is a legacy form legacyDoc leaves to the shell's
// reading (NumberDecimal, new Date("..."), DBRef, UUID and the like).
var errLegacyOther = errors.New("not read directly")

// legacyDoc reads one document of the old shell's legacy Extended JSON
// straight from its syntax tree, typing values as mongoimport --legacy
// types them: a number without a fraction or exponent is an int32, or
// an int64 when it does not fit (hex and octal too, as Go's ParseInt
// reads them), any other a double; undefined is BSON undefined; Date(n)
// is a date with or without new; a regular expression keeps its flags.
// The shell, which sees only JavaScript numbers, cannot tell 1.0 from 1.
// errLegacyOther says that src holds a form read only by the shell.
//
// A value legacyDoc does not read itself (NumberDecimal(...), DBRef(...),
// new Date("...")) is read by shell, given the value's text, when shell
// is not nil.
func legacyDoc(src string, shell func(string) (any, error)) (bson.D, error) {
	r := &legacyReader{src: "(\n" + src + "\n)", shell: shell}
	prog, err := parser.ParseFile(nil, "<document>", r.src, 0)
	if err != nil || len(prog.Body) != 1 {
		return nil, errLegacyOther
	}
	st, ok := prog.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return nil, errLegacyOther
	}
	obj, ok := st.Expression.(*ast.ObjectLiteral)
	if !ok {
		return nil, errLegacyOther
	}
	return r.object(obj, 0)
}

// legacyReader reads the syntax tree of one legacy document.
type legacyReader struct {
	src   string // the parsed text; node positions are 1-based offsets in it
	shell func(string) (any, error)
}

// maxLegacyDepth bounds the nesting legacyDoc reads itself.
const maxLegacyDepth = 100

func (r *legacyReader) object(obj *ast.ObjectLiteral, depth int) (bson.D, error) {
	d := make(bson.D, 0, len(obj.Value))
	for _, p := range obj.Value {
		kp, ok := p.(*ast.PropertyKeyed)
		if !ok || kp.Kind != ast.PropertyKindValue || kp.Computed {
			return nil, errLegacyOther
		}
		var key string
		switch k := kp.Key.(type) {
		case *ast.StringLiteral:
			key = k.Value.String()
		case *ast.Identifier:
			key = k.Name.String()
		case *ast.NumberLiteral:
			key = k.Literal
		default:
			return nil, errLegacyOther
		}
		v, err := r.value(kp.Value, depth+1)
		if err != nil {
			return nil, err
		}
		d = append(d, bson.E{Key: key, Value: v})
	}
	if len(d) > 0 && strings.HasPrefix(d[0].Key, "$") {
		// An Extended JSON wrapper ({"$date": "..."}), as mongoimport
		// reads it in legacy input too.
		return nil, errLegacyWrapper
	}
	return d, nil
}

// errLegacyWrapper is an object whose first key starts with '$'.
var errLegacyWrapper = errors.New("an Extended JSON wrapper")

// value reads one value; a form it does not read itself goes to shell.
func (r *legacyReader) value(e ast.Expression, depth int) (any, error) {
	v, err := r.direct(e, depth)
	if !errors.Is(err, errLegacyOther) && !errors.Is(err, errLegacyWrapper) {
		return v, err
	}
	from, to := int(e.Idx0())-1, int(e.Idx1())-1
	if from < 0 || to > len(r.src) || from >= to {
		return nil, errLegacyOther
	}
	text := r.src[from:to]
	if errors.Is(err, errLegacyWrapper) {
		if d, jerr := parseImportJSON([]byte(`{"v":` + text + `}`)); jerr == nil && len(d) == 1 {
			return d[0].Value, nil
		}
	}
	if r.shell == nil {
		return nil, errLegacyOther
	}
	return r.shell(text)
}

func (r *legacyReader) direct(e ast.Expression, depth int) (any, error) {
	if depth > maxLegacyDepth {
		return nil, errLegacyOther
	}
	switch x := e.(type) {
	case *ast.ObjectLiteral:
		return r.object(x, depth)
	case *ast.ArrayLiteral:
		a := make(bson.A, 0, len(x.Value))
		for _, v := range x.Value {
			if v == nil {
				return nil, errLegacyOther // a hole: [1,,2]
			}
			lv, err := r.value(v, depth+1)
			if err != nil {
				return nil, err
			}
			a = append(a, lv)
		}
		return a, nil
	case *ast.StringLiteral:
		return x.Value.String(), nil
	case *ast.NumberLiteral:
		return legacyNumber(x.Literal)
	case *ast.BooleanLiteral:
		return x.Value, nil
	case *ast.NullLiteral:
		return nil, nil
	case *ast.RegExpLiteral:
		// As mongoimport: an escaped slash is a slash, other escapes
		// stay, and the flags are the options as written.
		return bson.Regex{Pattern: strings.ReplaceAll(x.Pattern, `\/`, "/"), Options: x.Flags}, nil
	case *ast.Identifier:
		switch x.Name.String() {
		case "undefined":
			return bson.Undefined{}, nil
		case "NaN":
			return math.NaN(), nil
		case "Infinity":
			return math.Inf(1), nil
		case "MinKey":
			return bson.MinKey{}, nil
		case "MaxKey":
			return bson.MaxKey{}, nil
		}
	case *ast.UnaryExpression:
		if x.Postfix || (x.Operator != jstoken.MINUS && x.Operator != jstoken.PLUS) {
			return nil, errLegacyOther
		}
		sign := ""
		if x.Operator == jstoken.MINUS {
			sign = "-"
		}
		switch o := x.Operand.(type) {
		case *ast.NumberLiteral:
			return legacyNumber(sign + o.Literal)
		case *ast.Identifier:
			if o.Name.String() == "Infinity" {
				return math.Inf(len(sign)*-2 + 1), nil
			}
		}
	case *ast.CallExpression:
		return legacyCall(x.Callee, x.ArgumentList, false)
	case *ast.NewExpression:
		return legacyCall(x.Callee, x.ArgumentList, true)
	}
	return nil, errLegacyOther
}

// legacyNumber types a number literal as mongoimport does. JavaScript's
// forms mongoimport's scanner refuses (010, 1_000) and a double beyond
// the range of one are errors.
func legacyNumber(lit string) (any, error) {
	digits := strings.TrimLeft(lit, "+-")
	if strings.Contains(lit, "_") || (len(digits) > 1 && digits[0] == '0' && digits[1] >= '0' && digits[1] <= '9') {
		return nil, fmt.Errorf("invalid number %s", lit)
	}
	if n, err := strconv.ParseInt(lit, 0, 64); err == nil {
		if n >= math.MinInt32 && n <= math.MaxInt32 {
			return int32(n), nil
		}
		return n, nil
	}
	x, err := strconv.ParseFloat(lit, 64)
	if err != nil {
		return nil, fmt.Errorf("invalid number %s", lit)
	}
	return x, nil
}

// legacyArgs reads a constructor's arguments: strings and numbers
// (signed or not) only.
func legacyArgs(args []ast.Expression) ([]string, bool) {
	out := make([]string, len(args))
	for i, a := range args {
		switch x := a.(type) {
		case *ast.StringLiteral:
			out[i] = x.Value.String()
		case *ast.NumberLiteral:
			out[i] = x.Literal
		case *ast.UnaryExpression:
			n, ok := x.Operand.(*ast.NumberLiteral)
			if !ok || x.Postfix || x.Operator != jstoken.MINUS {
				return nil, false
			}
			out[i] = "-" + n.Literal
		default:
			return nil, false
		}
	}
	return out, true
}

// legacyCall reads the old shell's constructors that mongoimport
// --legacy reads the same way; the others go to the shell.
func legacyCall(callee ast.Expression, args []ast.Expression, isNew bool) (any, error) {
	id, ok := callee.(*ast.Identifier)
	if !ok {
		return nil, errLegacyOther
	}
	a, ok := legacyArgs(args)
	if !ok {
		return nil, errLegacyOther
	}
	name := id.Name.String()
	switch {
	case name == "ObjectId" && len(a) == 1:
		if oid, err := bson.ObjectIDFromHex(a[0]); err == nil {
			return oid, nil
		}
	case name == "NumberLong" && len(a) == 1:
		if n, err := strconv.ParseInt(a[0], 10, 64); err == nil {
			return n, nil
		}
	case name == "NumberInt" && len(a) == 1:
		if n, err := strconv.ParseInt(a[0], 10, 32); err == nil {
			return int32(n), nil
		}
	case name == "Date" && len(a) == 1:
		// Date(n) and new Date(n): milliseconds since the epoch.
		if n, err := strconv.ParseInt(a[0], 10, 64); err == nil && isNumeric(args[0]) {
			return bson.DateTime(n), nil
		}
	case name == "ISODate" && len(a) == 1:
		if t, err := time.Parse(time.RFC3339Nano, a[0]); err == nil {
			return bson.NewDateTimeFromTime(t), nil
		}
	case name == "Timestamp" && len(a) == 2 && isNumeric(args[0]) && isNumeric(args[1]):
		t, err1 := strconv.ParseUint(a[0], 10, 32)
		i, err2 := strconv.ParseUint(a[1], 10, 32)
		if err1 == nil && err2 == nil {
			return bson.Timestamp{T: uint32(t), I: uint32(i)}, nil
		}
	case name == "BinData" && len(a) == 2 && isNumeric(args[0]):
		sub, err := strconv.ParseUint(a[0], 0, 8)
		if err == nil {
			if data, err := base64.StdEncoding.DecodeString(a[1]); err == nil {
				return bson.Binary{Subtype: byte(sub), Data: data}, nil
			}
		}
	case (name == "MinKey" || name == "MaxKey") && len(a) == 0 && !isNew:
		if name == "MinKey" {
			return bson.MinKey{}, nil
		}
		return bson.MaxKey{}, nil
	}
	return nil, errLegacyOther
}

// isNumeric reports whether a constructor argument is a number literal.
func isNumeric(e ast.Expression) bool {
	if u, ok := e.(*ast.UnaryExpression); ok {
		e = u.Operand
	}
	_, ok := e.(*ast.NumberLiteral)
	return ok
}
