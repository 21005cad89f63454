package agg

import (
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// trimWhitespace is what $trim removes by default, mongod's list: NUL,
// space, tab, the line and page breaks, and Unicode's spaces U+00A0,
// U+1680 and U+2000 to U+200A.
const trimWhitespace = "\x00 \t\n\v\f\r\u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a"

// trimExpr is {$trim, $ltrim or $rtrim: {input, chars}}.
type trimExpr struct {
	op          string
	input, cset Expr
}

func parseTrim(op string, arg any, depth pdepth) (Expr, error) {
	d, ok := arg.(bson.D)
	if !ok {
		return nil, document.Errorf(document.Code(50696), "%s only supports an object as an argument, found %s", op, document.TypeName(arg))
	}
	a, err := namedExprs(d, depth, []string{"input", "chars"}, func(name string) error {
		return document.Errorf(document.Code(50694), "%s found an unknown argument: %s", op, name)
	})
	if err != nil {
		return nil, err
	}
	t := trimExpr{op: op, input: a["input"], cset: a["chars"]}
	if t.input == nil {
		return nil, document.Errorf(document.Code(50695), "%s requires an 'input' field", op)
	}
	return t, nil
}

// Eval removes the characters of chars (code points; whitespace by
// default) from the start, the end or both ends of input; null when
// either is null or missing.
func (t trimExpr) Eval(e *Env) (any, error) {
	v, err := t.input.Eval(e)
	if err != nil || nullish(v) {
		return nil, err
	}
	s, ok := v.(string)
	if !ok {
		return nil, document.Errorf(document.Code(50699), "%s requires its input to be a string, got %s (of type %s) instead.", t.op, valueString(v), document.TypeName(v))
	}
	cutset := trimWhitespace
	if t.cset != nil {
		c, err := t.cset.Eval(e)
		if err != nil || nullish(c) {
			return nil, err
		}
		cs, ok := c.(string)
		if !ok {
			return nil, document.Errorf(document.Code(50700), "%s requires 'chars' to be a string, got %s (of type %s) instead.", t.op, valueString(c), document.TypeName(c))
		}
		cutset = cs
	}
	switch t.op {
	case "$ltrim":
		return strings.TrimLeft(s, cutset), nil
	case "$rtrim":
		return strings.TrimRight(s, cutset), nil
	}
	return strings.Trim(s, cutset), nil
}
