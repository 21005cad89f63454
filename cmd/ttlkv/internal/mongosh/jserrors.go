package mongosh

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/unistring"
)

// JavaScript's own TypeErrors are goja's words, not V8's, which a
// mongosh user sees ("o.f is not a function", "Cannot read properties
// of undefined (reading 'x')"). compile makes every catch (e) of a
// script first give e to v8Message, so that the caught error carries
// V8's words; scriptError does the same for an error nobody catches.

// v8MessageFn is the global the rewritten catch clauses call.
const v8MessageFn = "__v8Message"

// compile compiles src (named name) as goja.Compile does, each
// catch (e) { ... } starting with __v8Message(e). Its source is kept for
// the messages that quote the code.
func (s *Shell) compile(name, src string) (*goja.Program, error) {
	prg, err := goja.Parse(name, src)
	if err != nil {
		return nil, err
	}
	eachCatch(reflect.ValueOf(prg), map[uintptr]bool{}, func(c *ast.CatchStatement) {
		id, ok := c.Parameter.(*ast.Identifier)
		if !ok || c.Body == nil {
			return // a destructured parameter: left as it is
		}
		at := c.Body.LeftBrace
		call := &ast.ExpressionStatement{Expression: &ast.CallExpression{
			Callee:           &ast.Identifier{Name: unistring.NewFromString(v8MessageFn), Idx: at},
			LeftParenthesis:  at,
			ArgumentList:     []ast.Expression{&ast.Identifier{Name: id.Name, Idx: at}},
			RightParenthesis: at,
		}}
		c.Body.List = append([]ast.Statement{call}, c.Body.List...)
	})
	prog, err := goja.CompileAST(prg, false)
	if err == nil {
		s.srcs[name] = src
	}
	return prog, err
}

// astPkg is the package path of goja's syntax tree, the only types
// eachCatch descends into.
var astPkg = reflect.TypeOf(ast.Program{}).PkgPath()

// eachCatch calls f for every catch clause in the syntax tree v.
func eachCatch(v reflect.Value, seen map[uintptr]bool, f func(*ast.CatchStatement)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] || v.Elem().Kind() != reflect.Struct || v.Elem().Type().PkgPath() != astPkg {
			return
		}
		seen[v.Pointer()] = true
		if c, ok := v.Interface().(*ast.CatchStatement); ok {
			f(c)
		}
		eachCatch(v.Elem(), seen, f)
	case reflect.Interface:
		if !v.IsNil() {
			eachCatch(v.Elem(), seen, f)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			eachCatch(v.Index(i), seen, f)
		}
	case reflect.Struct:
		if v.Type().PkgPath() != astPkg {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				eachCatch(v.Field(i), seen, f)
			}
		}
	}
}

// installV8Messages defines __v8Message(e): a TypeError of goja's gets
// V8's message, found from the error's stack and the script's source.
func (s *Shell) installV8Messages() {
	_ = s.rt.Set(v8MessageFn, func(c goja.FunctionCall) goja.Value {
		e, ok := c.Argument(0).(*goja.Object)
		if !ok || e.ClassName() != "Error" || e.Get("name") == nil || e.Get("name").String() != "TypeError" {
			return goja.Undefined()
		}
		msg := e.Get("message")
		if msg == nil {
			return goja.Undefined()
		}
		file, line, col := stackTop(e.Get("stack"))
		if fixed := s.v8Message(msg.String(), file, line, col); fixed != msg.String() {
			_ = e.Set("message", fixed)
		}
		return goja.Undefined()
	})
}

// stackFrame is a frame of goja's stack text: "at f (file:1:2(3))" or
// "at file:1:2(3)".
var stackFrame = regexp.MustCompile(`^\s*at (?:.*? \()?(.+):(\d+):(\d+)\(\d+\)\)?$`)

// stackTop is the position of the first frame of a goja error's stack,
// none when it was thrown inside a built-in function (whose frame has
// no position).
func stackTop(stack goja.Value) (file string, line, col int) {
	if stack == nil || goja.IsUndefined(stack) {
		return "", 0, 0
	}
	for _, l := range strings.Split(stack.String(), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "at ") {
			continue
		}
		if m := stackFrame.FindStringSubmatch(l); m != nil {
			line, _ = strconv.Atoi(m[2])
			col, _ = strconv.Atoi(m[3])
			return m[1], line, col
		}
		break
	}
	return "", 0, 0
}

// readOfUndefined is goja's message for reading a property of undefined
// or null.
var readOfUndefined = regexp.MustCompile(`^Cannot read property '(.*)' of undefined( or null)?$`)

// v8Message is V8's words for goja's TypeError message msg, thrown at
// file:line:col: a call of what is not a function names the callee as
// written ("d.c.nosuch is not a function"); reading a property of
// undefined says so as V8 does (goja does not tell null from undefined:
// both are undefined here). Any other message is returned as it is.
func (s *Shell) v8Message(msg, file string, line, col int) string {
	switch {
	case msg == "Dynamic object is not callable", strings.HasPrefix(msg, "Object has no member '"), strings.HasPrefix(msg, "Value is not an object: "):
		if callee := calleeAt(s.srcs[file], line, col); callee != "" {
			return callee + " is not a function"
		}
	}
	if m := readOfUndefined.FindStringSubmatch(msg); m != nil {
		return "Cannot read properties of undefined (reading '" + m[1] + "')"
	}
	return msg
}
