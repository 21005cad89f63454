package js

import (
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
)

// functionSource turns a script's source into the source of a function
// expression, as mongod does before it compiles a $where or a $function:
// a function expression stays as it is; statements whose last one is an
// expression become a function that returns that expression; other
// statements become the body of a function (returning undefined).
func functionSource(src string) (string, error) {
	for {
		t := strings.TrimRight(src, " \t\r\n\f\v")
		t = strings.TrimSuffix(t, ";")
		if t == src {
			break
		}
		src = t
	}
	prg, err := goja.Parse("", src)
	if err != nil {
		// An anonymous function statement: a function expression.
		if isFunctionExpression(src) {
			return src, nil
		}
		// A body with return statements.
		if _, err2 := goja.Parse("", "function __body() {"+src+"\n}"); err2 == nil {
			return "function() {" + src + "\n}", nil
		}
		return "", err
	}
	if len(prg.Body) == 0 {
		return "function() {}", nil
	}
	last := prg.Body[len(prg.Body)-1]
	switch st := last.(type) {
	case *ast.ExpressionStatement:
		prevEnd := 0
		if len(prg.Body) > 1 {
			prevEnd = int(prg.Body[len(prg.Body)-2].Idx1()) - 1
		}
		// The parser may place an expression inside its parentheses:
		// step back until "return" fits.
		for at := int(st.Idx0()) - 1; at >= prevEnd && at >= 0; at-- {
			body := "{ " + src[:at] + "return " + src[at:] + "\n}"
			if _, err := goja.Parse("", "function __body() "+body); err == nil {
				return "function() " + body, nil
			}
		}
		return "function() { " + src + "\n}", nil
	case *ast.FunctionDeclaration:
		if len(prg.Body) == 1 {
			return src, nil
		}
	}
	return "function() { " + src + "\n}", nil
}

// isFunctionExpression reports whether src is one function expression.
func isFunctionExpression(src string) bool {
	prg, err := goja.Parse("", "("+src+"\n)")
	if err != nil || len(prg.Body) != 1 {
		return false
	}
	st, ok := prg.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return false
	}
	_, ok = st.Expression.(*ast.FunctionLiteral)
	return ok
}
