package mongosh

import (
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/token"
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
	eachNode(reflect.ValueOf(prg), map[uintptr]bool{}, func(n any) {
		c, ok := n.(*ast.CatchStatement)
		if !ok {
			return
		}
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
	s.lastDecl = lastDeclared(prg)
	if redeclares(prg) {
		// One input that declares a name twice is a syntax error in
		// mongosh too: goja's compiler says so before the rewrite.
		if _, err := goja.CompileAST(prg, false); err != nil {
			return nil, err
		}
	}
	topLevelAsVar(prg)
	prog, err := goja.CompileAST(prg, false)
	if err == nil {
		s.srcs[name] = src
	}
	return prog, err
}

// astPkg is the package path of goja's syntax tree, the only types
// eachNode descends into.
var astPkg = reflect.TypeOf(ast.Program{}).PkgPath()

// eachNode calls f for every node of the syntax tree v (a pointer to a
// node), parents before their children.
func eachNode(v reflect.Value, seen map[uintptr]bool, f func(any)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || seen[v.Pointer()] || v.Elem().Kind() != reflect.Struct || v.Elem().Type().PkgPath() != astPkg {
			return
		}
		seen[v.Pointer()] = true
		f(v.Interface())
		eachNode(v.Elem(), seen, f)
	case reflect.Interface:
		if !v.IsNil() {
			eachNode(v.Elem(), seen, f)
		}
	case reflect.Slice:
		for i := 0; i < v.Len(); i++ {
			eachNode(v.Index(i), seen, f)
		}
	case reflect.Struct:
		if v.Type().PkgPath() != astPkg {
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).IsExported() {
				eachNode(v.Field(i), seen, f)
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
		if fixed := s.v8Message(msg.String(), stackTop(e.Get("stack"))); fixed != msg.String() {
			_ = e.Set("message", fixed)
		}
		return goja.Undefined()
	})
}

// jsFrame is where a script's error was thrown: a position in a file
// the shell compiled, and whether it is the file's top-level code (not
// inside one of its functions), whose variables are the global ones.
type jsFrame struct {
	file      string
	line, col int
	topLevel  bool
}

// stackFrame is a frame of goja's stack text: "at f (file:1:2(3))" or
// "at file:1:2(3)".
var stackFrame = regexp.MustCompile(`^\s*at (?:.*? \()?(.+):(\d+):(\d+)\(\d+\)\)?$`)

// stackTop is the position of the first frame of a goja error's stack,
// none when it was thrown inside a built-in function (whose frame has
// no position). It is top-level code when it is the stack's only frame.
func stackTop(stack goja.Value) jsFrame {
	if stack == nil || goja.IsUndefined(stack) {
		return jsFrame{}
	}
	var top jsFrame
	frames := 0
	for _, l := range strings.Split(stack.String(), "\n") {
		if !strings.HasPrefix(strings.TrimSpace(l), "at ") {
			continue
		}
		frames++
		if frames > 1 {
			break
		}
		m := stackFrame.FindStringSubmatch(l)
		if m == nil {
			return jsFrame{}
		}
		line, _ := strconv.Atoi(m[2])
		col, _ := strconv.Atoi(m[3])
		top = jsFrame{file: m[1], line: line, col: col}
	}
	top.topLevel = frames == 1
	return top
}

// readOfUndefined is goja's message for reading a property of undefined
// or null.
var readOfUndefined = regexp.MustCompile(`^Cannot read property '(.*)' of undefined( or null)?$`)

// v8Message is V8's words for goja's TypeError message msg, thrown at
// frame at: a call of what is not a function names the callee as
// written ("d.c.nosuch is not a function"), new of what is not a
// constructor too ("o.x is not a constructor"); reading or setting a
// property of null or undefined says which, and the property, as V8
// does ("Cannot read properties of null (reading 'x')", "Cannot set
// properties of undefined (setting 'x')"); an empty array's reduce
// says so. Any other message is returned as it is.
func (s *Shell) v8Message(msg string, at jsFrame) string {
	switch {
	case msg == "Dynamic object is not callable", strings.HasPrefix(msg, "Object has no member '"), strings.HasPrefix(msg, "Value is not an object: "):
		callee := calleeAt(s.srcs[at.file], at.line, at.col)
		if callee == "" {
			callee = s.callCalleeAt(at) // "abc".f(): a literal the scan stops at
		}
		if callee != "" {
			return v8Callee(callee) + " is not a function"
		}
		if callee := s.newCalleeAt(at); callee != "" {
			return callee + " is not a constructor"
		}
	case msg == "Class constructor cannot be invoked without 'new'":
		if callee := calleeAt(s.srcs[at.file], at.line, at.col); callee != "" {
			return "Class constructor " + callee + " cannot be invoked without 'new'"
		}
	case msg == "No initial value":
		return "Reduce of empty array with no initial value"
	case msg == "Cannot convert undefined or null to object":
		// goja's words for setting a property of null or undefined,
		// among others: V8's when the frame is such an assignment.
		if m := s.memberAt(at); m != nil && m.assigned {
			if key, ok := s.memberKey(m, at); ok {
				return "Cannot set properties of " + s.nullish(m, at) + " (setting '" + key + "')"
			}
		}
	}
	if m := readOfUndefined.FindStringSubmatch(msg); m != nil {
		what := "undefined"
		if mem := s.memberAt(at); mem != nil {
			what = s.nullish(mem, at)
		}
		return "Cannot read properties of " + what + " (reading '" + m[1] + "')"
	}
	return msg
}

// v8Callee is callee (source text) as mongosh names it in "... is not
// a function": V8 prints the last property of a member call itself (a
// string subscript as a name after a dot, o["f"] as o.f), and what it
// is read from as mongosh's rewriter left it: a plain name as it is,
// anything longer than 25 characters (UTF-16 units) cut to its first 14
// and last 6 around " ... ".
func v8Callee(callee string) string {
	prg, err := goja.Parse("", callee)
	if err != nil || len(prg.Body) != 1 {
		return callee
	}
	st, ok := prg.Body[0].(*ast.ExpressionStatement)
	if !ok {
		return callee
	}
	var obj ast.Expression
	var prop string
	switch e := st.Expression.(type) {
	case *ast.DotExpression:
		obj, prop = e.Left, "."+e.Identifier.Name.String()
	case *ast.BracketExpression:
		obj = e.Left
		if str, ok := e.Member.(*ast.StringLiteral); ok {
			prop = "." + str.Value.String()
		} else {
			prop = "[" + callee[e.Member.Idx0()-1:e.Member.Idx1()-1] + "]"
		}
	default:
		return callee
	}
	text := callee[obj.Idx0()-1 : obj.Idx1()-1]
	if lit, ok := v8Literal(obj); ok {
		return lit + prop
	}
	if _, plain := obj.(*ast.Identifier); !plain {
		if u := utf16.Encode([]rune(text)); len(u) > 25 {
			text = string(utf16.Decode(u[:14])) + " ... " + string(utf16.Decode(u[len(u)-6:]))
		}
	}
	return text + prop
}

// member is a property access of a script's source: obj.key or
// obj[key], and whether it is the target of an assignment.
type member struct {
	src      string         // the whole source
	obj      ast.Expression // what the property is read from
	key      ast.Expression // the property: an *ast.Identifier after a dot
	dot      bool
	assigned bool
	prg      *ast.Program // the source parsed
	at       int          // the error's position in it (a file.Idx)
}

// parsedAt parses the source of frame at and returns it with the
// frame's position as a file.Idx (the byte offset from 1); prg is nil
// when the source is not known or the position is not in it.
func (s *Shell) parsedAt(at jsFrame) (src string, idx int, prg *ast.Program) {
	src, ok := s.srcs[at.file]
	if !ok || at.line < 1 {
		return "", 0, nil
	}
	idx = lineOffset(src, at.line)
	if idx < 0 {
		return "", 0, nil
	}
	prg, err := goja.Parse(at.file, src)
	if err != nil {
		return "", 0, nil
	}
	return src, idx + at.col, prg
}

// memberAt is the property access goja reports an error at (its
// property name after a dot, its "[" otherwise), nil if none is there.
func (s *Shell) memberAt(at jsFrame) *member {
	src, idx, prg := s.parsedAt(at)
	if prg == nil {
		return nil
	}
	var found *member
	assigned := map[ast.Expression]bool{}
	eachNode(reflect.ValueOf(prg), map[uintptr]bool{}, func(n any) {
		switch e := n.(type) {
		case *ast.AssignExpression:
			assigned[e.Left] = true
		case *ast.DotExpression:
			if int(e.Identifier.Idx) == idx {
				found = &member{src: src, obj: e.Left, key: &e.Identifier, dot: true, assigned: assigned[e], prg: prg, at: idx}
			}
		case *ast.BracketExpression:
			if int(e.LeftBracket) == idx {
				found = &member{src: src, obj: e.Left, key: e.Member, assigned: assigned[e], prg: prg, at: idx}
			}
		}
	})
	return found
}

// lineOffset is the byte offset in src where line (from 1) starts, -1
// past its end.
func lineOffset(src string, line int) int {
	off := 0
	for l := 1; l < line; l++ {
		i := strings.IndexByte(src[off:], '\n')
		if i < 0 {
			return -1
		}
		off += i + 1
	}
	return off
}

// nullish says whether m's object was null or undefined when the error
// was thrown: null for the literal null and for what a call of a method
// that answers null when it finds nothing returned (findOne, match,
// ...); for a plain name or chain of names in top-level code, what it
// holds now; inside a function, for a name the function declares, null
// when what it was last given before the error, in the source's order,
// is the literal null (nameNullAt), and for a name no enclosing
// function declares (a global), what it holds now; undefined otherwise
// (goja does not tell them apart).
func (s *Shell) nullish(m *member, at jsFrame) string {
	switch o := m.obj.(type) {
	case *ast.NullLiteral:
		return "null"
	case *ast.CallExpression:
		if d, ok := o.Callee.(*ast.DotExpression); ok && nullAnswers[d.Identifier.Name.String()] {
			return "null"
		}
	}
	if at.topLevel && plainChain(m.obj) {
		if v, err := s.rt.RunString(m.src[m.obj.Idx0()-1 : m.obj.Idx1()-1]); err == nil && goja.IsNull(v) {
			return "null"
		}
	}
	if id, ok := m.obj.(*ast.Identifier); ok && !at.topLevel && m.prg != nil {
		null, local := nameNullAt(m.prg, id.Name, m.at)
		if null {
			return "null"
		}
		if !local {
			if v, err := s.rt.RunString(id.Name.String()); err == nil && goja.IsNull(v) {
				return "null"
			}
		}
	}
	return "undefined"
}

// nameNullAt looks at the functions around position at of prg, from
// the innermost out, for the first that declares name (a parameter, a
// var, let or const, a function): local says one does, and null whether
// the last value name is given in it before at, in the source's order
// (a declaration's initializer or an "=" assignment), is the literal
// null. The order of the source is not always the order of the run (a
// loop, a branch): this is a reading of the source, not of the run.
func nameNullAt(prg *ast.Program, name unistring.String, at int) (null, local bool) {
	var fns []ast.Node // enclosing functions, outermost first
	eachNode(reflect.ValueOf(prg), map[uintptr]bool{}, func(n any) {
		switch f := n.(type) {
		case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral:
			fn := f.(ast.Node)
			if int(fn.Idx0()) <= at && at < int(fn.Idx1()) {
				fns = append(fns, fn)
			}
		}
	})
	isName := func(e any) bool {
		id, ok := e.(*ast.Identifier)
		return ok && id.Name == name
	}
	for i := len(fns) - 1; i >= 0; i-- {
		declares, last, lastAt := false, ast.Expression(nil), -1
		var params *ast.ParameterList
		switch f := fns[i].(type) {
		case *ast.FunctionLiteral:
			params = f.ParameterList
		case *ast.ArrowFunctionLiteral:
			params = f.ParameterList
		}
		if params != nil {
			for _, b := range params.List {
				declares = declares || isName(b.Target)
			}
		}
		eachNode(reflect.ValueOf(fns[i]), map[uintptr]bool{}, func(n any) {
			switch e := n.(type) {
			case *ast.Binding:
				if isName(e.Target) {
					declares = true
					if pos := int(e.Target.Idx0()); pos < at && pos > lastAt {
						last, lastAt = e.Initializer, pos
					}
				}
			case *ast.FunctionDeclaration:
				if e.Function.Name != nil && e.Function.Name.Name == name {
					declares = true
				}
			case *ast.AssignExpression:
				if e.Operator == token.ASSIGN && isName(e.Left) {
					if pos := int(e.Left.Idx0()); pos < at && pos > lastAt {
						last, lastAt = e.Right, pos
					}
				}
			}
		})
		if declares {
			_, isNull := last.(*ast.NullLiteral)
			return isNull, true
		}
	}
	return false, false
}

// nullAnswers are the methods of the shell and of JavaScript that
// return null for "none": a collection's findOne, findOneAnd* and
// exists, a cursor's next and tryNext (a JavaScript iterator's next
// never answers null or undefined), a database's getUser and getRole, a
// string's match and a regular expression's exec.
var nullAnswers = map[string]bool{
	"findOne": true, "findOneAndUpdate": true, "findOneAndReplace": true, "findOneAndDelete": true,
	"exists": true, "next": true, "tryNext": true, "getUser": true, "getRole": true, "match": true, "exec": true,
}

// plainChain tells whether e is a name or a chain of names and literal
// subscripts (o, o.a, o["a"][0]), which reading again does not change.
func plainChain(e ast.Expression) bool {
	switch e := e.(type) {
	case *ast.Identifier:
		return true
	case *ast.DotExpression:
		return plainChain(e.Left)
	case *ast.BracketExpression:
		switch e.Member.(type) {
		case *ast.StringLiteral, *ast.NumberLiteral:
			return plainChain(e.Left)
		}
	}
	return false
}

// memberKey is the property name of m as V8 quotes it: the name after a
// dot, a literal subscript's value, or, in top-level code, a plain
// subscript's value now.
func (s *Shell) memberKey(m *member, at jsFrame) (string, bool) {
	if id, ok := m.key.(*ast.Identifier); ok && m.dot {
		return id.Name.String(), true
	}
	switch k := m.key.(type) {
	case *ast.StringLiteral:
		return k.Value.String(), true
	case *ast.NumberLiteral:
		if v, err := s.rt.RunString(k.Literal); err == nil {
			return v.String(), true
		}
	}
	if at.topLevel && plainChain(m.key) {
		if v, err := s.rt.RunString(m.src[m.key.Idx0()-1 : m.key.Idx1()-1]); err == nil && !goja.IsUndefined(v) {
			return v.String(), true
		}
	}
	return "", false
}

// newCalleeAt is the expression new is applied to at frame at ("o.x"
// for "new o.x()"), as written, "" if there is none.
func (s *Shell) newCalleeAt(at jsFrame) string {
	src, idx, prg := s.parsedAt(at)
	if prg == nil {
		return ""
	}
	callee := ""
	eachNode(reflect.ValueOf(prg), map[uintptr]bool{}, func(n any) {
		if e, ok := n.(*ast.NewExpression); ok && int(e.New) == idx {
			callee = src[e.Callee.Idx0()-1 : e.Callee.Idx1()-1]
		}
	})
	return callee
}

// lastDeclared is the name of the function or class the program's last
// statement declares, "" if it declares none: mongosh's value for such
// an input is that function or class ("function f() {}" prints
// [Function: f]), where JavaScript's completion value is undefined.
func lastDeclared(prg *ast.Program) string {
	for i := len(prg.Body) - 1; i >= 0; i-- {
		switch st := prg.Body[i].(type) {
		case *ast.EmptyStatement:
			continue
		case *ast.FunctionDeclaration:
			if st.Function != nil && st.Function.Name != nil {
				return st.Function.Name.Name.String()
			}
		case *ast.ClassDeclaration:
			if st.Class != nil && st.Class.Name != nil {
				return st.Class.Name.Name.String()
			}
		}
		return ""
	}
	return ""
}

// topLevelAsVar makes the program's top-level let, const and class
// declarations var ones, as mongosh's rewriter does: at its prompt a
// name can be declared again (const docs = ... twice) and a const
// given another value, where JavaScript's own rules refuse both.
func topLevelAsVar(prg *ast.Program) {
	for i, st := range prg.Body {
		var v *ast.VariableStatement
		switch d := st.(type) {
		case *ast.LexicalDeclaration:
			v = &ast.VariableStatement{Var: d.Idx, List: d.List}
		case *ast.ClassDeclaration:
			if d.Class == nil || d.Class.Name == nil {
				continue
			}
			v = &ast.VariableStatement{Var: d.Class.Class, List: []*ast.Binding{{Target: d.Class.Name, Initializer: d.Class}}}
		default:
			continue
		}
		prg.Body[i] = v
		prg.DeclarationList = append(prg.DeclarationList, &ast.VariableDeclaration{Var: v.Var, List: v.List})
	}
}

// redeclares tells whether the program's top level declares a name
// with let, const or class that it declares again (with any of them,
// var or function).
func redeclares(prg *ast.Program) bool {
	lexical, other := map[string]bool{}, map[string]bool{}
	dup := false
	note := func(name string, isLexical bool) {
		if lexical[name] || (isLexical && other[name]) {
			dup = true
		}
		if isLexical {
			lexical[name] = true
		} else {
			other[name] = true
		}
	}
	for _, st := range prg.Body {
		switch d := st.(type) {
		case *ast.LexicalDeclaration:
			for _, b := range d.List {
				if id, ok := b.Target.(*ast.Identifier); ok {
					note(id.Name.String(), true)
				}
			}
		case *ast.ClassDeclaration:
			if d.Class != nil && d.Class.Name != nil {
				note(d.Class.Name.Name.String(), true)
			}
		case *ast.VariableStatement:
			for _, b := range d.List {
				if id, ok := b.Target.(*ast.Identifier); ok {
					note(id.Name.String(), false)
				}
			}
		case *ast.FunctionDeclaration:
			if d.Function != nil && d.Function.Name != nil {
				note(d.Function.Name.Name.String(), false)
			}
		}
	}
	return dup
}

// v8Literal is a literal receiver as V8 itself prints it in "... is not
// a function" (mongosh leaves literals as they are): a string, or a
// template without substitutions, in double quotes, an array of such
// literals and numbers as [1,"a"].
func v8Literal(e ast.Expression) (string, bool) {
	switch x := e.(type) {
	case *ast.StringLiteral:
		return `"` + x.Value.String() + `"`, true
	case *ast.TemplateLiteral:
		if x.Tag == nil && len(x.Expressions) == 0 && len(x.Elements) == 1 {
			return `"` + x.Elements[0].Parsed.String() + `"`, true
		}
	case *ast.NumberLiteral:
		return x.Literal, true
	case *ast.ArrayLiteral:
		parts := make([]string, len(x.Value))
		for i, el := range x.Value {
			p, ok := v8Literal(el)
			if !ok {
				return "", false
			}
			parts[i] = p
		}
		return "[" + strings.Join(parts, ",") + "]", true
	}
	return "", false
}

// callCalleeAt is the callee, as written, of the call whose "(" is at
// frame at, "" if there is none or it spans lines.
func (s *Shell) callCalleeAt(at jsFrame) string {
	src, idx, prg := s.parsedAt(at)
	if prg == nil {
		return ""
	}
	callee := ""
	eachNode(reflect.ValueOf(prg), map[uintptr]bool{}, func(n any) {
		if e, ok := n.(*ast.CallExpression); ok && int(e.LeftParenthesis) == idx {
			callee = src[e.Callee.Idx0()-1 : e.Callee.Idx1()-1]
		}
	})
	if strings.Contains(callee, "\n") {
		return ""
	}
	return callee
}
