package mongosh

import (
	"encoding/base64"
	"encoding/hex"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// breakLength is the width past which inspect puts an object's entries
// on separate lines, as Node's util.inspect (which mongosh uses) does.
const breakLength = 80

// inspectOpts are the util.inspect options mongosh prints with: compact
// (0 for false: every object and array on lines of their own), and the
// depth, array length and string length past which it abbreviates (-1:
// never).
type inspectOpts struct {
	compact, depth, maxArray, maxString int
}

var (
	// printOpts is how mongosh prints a value: print(), console.log()
	// and an expression's result.
	printOpts = inspectOpts{compact: 3, depth: 6, maxArray: 100, maxString: 10000}
	// cursorOpts is how it prints a cursor's documents, and the value
	// of --eval code: in full.
	cursorOpts = inspectOpts{compact: 3, depth: -1, maxArray: -1, maxString: -1}
	// printjsonOpts is printjson()'s: in full, one entry a line.
	printjsonOpts = inspectOpts{compact: 0, depth: -1, maxArray: -1, maxString: -1}
)

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// identRe is Node's test for a key it prints without quotes (no $).
var identRe = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// inspect renders v the way mongosh prints values: { a: 1, b: 'x' },
// ObjectId('...'), ISODate('...'), Long('5'), and so on.
func (s *Shell) inspect(v goja.Value) string { return s.inspectWith(v, printOpts) }

// inspectWith is inspect with o's options.
func (s *Shell) inspectWith(v goja.Value, o inspectOpts) string {
	s.circ = map[*goja.Object]int{}
	return render(s.node(v, 0, map[*goja.Object]bool{}, o), 0, o)
}

// inspectTop is inspect, except that a string prints as it is.
func (s *Shell) inspectTop(v goja.Value) string { return s.inspectTopWith(v, printOpts) }

// inspectTopWith is inspectWith, except that a string prints as it is
// and undefined as nothing, as mongosh's print does.
func (s *Shell) inspectTopWith(v goja.Value, o inspectOpts) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return ""
	case goja.IsString(v):
		return v.String()
	}
	return s.inspectWith(v, o)
}

// pnode is a value laid out for printing: a leaf, or a bracketed list of
// entries (each already prefixed with its key) that is printed on one
// line when Node would.
type pnode struct {
	leaf string
	// base is what Node prints before the brackets and counts apart:
	// "<ref *1>" for an object a value inside it refers back to, or a
	// function's "[Function: f]" before its properties.
	base    string
	open    string
	close   string
	entries []pentry
	// array is set for an array, whose entries Node may group in
	// columns; numeric when every element is a number (right-aligned).
	array, numeric bool
	// more is set when the last entry is an array's "... N more items".
	more bool
	// broken is set for an error, whose base in Node is its stack, of
	// several lines: its properties are never on the base's line.
	broken bool
	// depth is the node's nesting level (the top is 1), and last the
	// level of the last object or array laid out within it, itself
	// included: what Node's ctx.currentDepth holds once the node's
	// entries are formatted.
	depth, last int
}

type pentry struct {
	key string
	val pnode
}

func (s *Shell) node(v goja.Value, depth int, seen map[*goja.Object]bool, opts inspectOpts) pnode {
	switch {
	case v == nil || goja.IsUndefined(v):
		return pnode{leaf: "undefined"}
	case goja.IsNull(v):
		return pnode{leaf: "null"}
	case goja.IsBigInt(v):
		return pnode{leaf: v.String() + "n"}
	case goja.IsString(v):
		str := v.String()
		if depth > 0 && opts.maxString >= 0 {
			if n := utf16Len(str); n > opts.maxString {
				return pnode{leaf: quoteJS(utf16Prefix(str, opts.maxString)) + fmt.Sprintf("... %d more character%s", n-opts.maxString, plural(n-opts.maxString))}
			}
		}
		return pnode{leaf: quoteJS(str)}
	}
	if sym, ok := v.(*goja.Symbol); ok {
		return pnode{leaf: "Symbol(" + sym.String() + ")"}
	}
	o, ok := v.(*goja.Object)
	if !ok {
		if f, isFloat := v.Export().(float64); isFloat && f == 0 && math.Signbit(f) {
			return pnode{leaf: "-0"}
		}
		return pnode{leaf: v.String()}
	}
	if b := s.boxOf(o); b != nil {
		return s.boxNode(b.v, depth, seen, opts)
	}
	if c := s.cursorOf(o); c != nil {
		return pnode{leaf: c.String()}
	}
	if c, ok := s.mongos[o]; ok {
		return pnode{leaf: c.connDesc}
	}
	if f, ok := goja.AssertFunction(o.GetSymbol(s.printSym)); ok {
		// A shell object that prints as something else, as mongosh's
		// asPrintable: a string as it is (Explainable(db.c)).
		if r, err := f(o); err == nil {
			if goja.IsString(r) {
				return pnode{leaf: r.String()}
			}
			return s.node(r, depth, seen, opts)
		}
	}
	if id, ok := s.sessions[o]; ok { // a Session prints as its id, as mongosh's
		return s.node(id, depth, seen, opts)
	}
	switch d := o.Export().(type) {
	case *dbObject:
		return pnode{leaf: d.name}
	case *collObject:
		return pnode{leaf: d.db + "." + d.name}
	case *sessionProxy:
		return s.node(d.base, depth, seen, opts)
	}
	if seen[o] {
		// A value inside o refers back to o: o gets a number, printed
		// before it as "<ref *1>" (see refNode), as Node does.
		id := s.circ[o]
		if id == 0 {
			id = len(s.circ) + 1
			s.circ[o] = id
		}
		return pnode{leaf: fmt.Sprintf("[Circular *%d]", id)}
	}
	if depth > maxDepth {
		return pnode{leaf: "[Circular *]"}
	}
	return s.refNode(o, s.objectNode(o, depth, seen, opts))
}

// refNode gives p, the layout of o, o's "<ref *n>" when a value inside
// o referred back to it.
func (s *Shell) refNode(o *goja.Object, p pnode) pnode {
	id := s.circ[o]
	if id == 0 || p.open == "" {
		return p
	}
	ref := fmt.Sprintf("<ref *%d>", id)
	if p.base != "" {
		ref += " " + p.base
	}
	p.base = ref
	return p
}

// typedArrays are the names of JavaScript's typed array classes, which
// Node prints as "Uint8Array(3) [ 1, 2, 3 ]".
var typedArrays = map[string]bool{
	"Int8Array": true, "Uint8Array": true, "Uint8ClampedArray": true, "Int16Array": true, "Uint16Array": true,
	"Int32Array": true, "Uint32Array": true, "Float32Array": true, "Float64Array": true,
	"BigInt64Array": true, "BigUint64Array": true,
}

// objectNode lays out an object that is not a shell or BSON value.
func (s *Shell) objectNode(o *goja.Object, depth int, seen map[*goja.Object]bool, opts inspectOpts) pnode {
	if _, isFn := goja.AssertFunction(o); isFn && o != s.minKeyCtor && o != s.maxKeyCtor {
		return s.propsNode(o, s.functionLeaf(o), depth, seen, opts)
	}
	switch o.ClassName() {
	case "Date":
		ms := s.callMethod(o, "getTime").ToFloat()
		if math.IsNaN(ms) {
			return pnode{leaf: "Invalid Date"}
		}
		return pnode{leaf: bsonLeaf(bson.DateTime(int64(ms)))}
	case "RegExp":
		return pnode{leaf: o.String()}
	case "Function":
		if o == s.minKeyCtor {
			return pnode{leaf: "MinKey()"}
		}
		return pnode{leaf: "MaxKey()"}
	case "Error":
		// Node shows an error's own properties after its stack, which the
		// shell does not have: "MongoServerError: E11000 ... { code: ... }"
		// is mongosh's print less the stack's "at ..." lines.
		base := o.Get("name").String() + ": " + o.Get("message").String()
		shown := 0
		for _, k := range o.Keys() {
			if !errorKeyInBase(o, k, base) {
				shown++
			}
		}
		if shown == 0 && len(o.Symbols()) == 0 {
			return pnode{leaf: base, broken: true}
		}
		p := s.propsNode(o, base, depth, seen, opts)
		p.broken = true
		return p
	case "Number", "String", "Boolean":
		// The primitive inside as Node shows it: [String: 's'], [Number: -0].
		return pnode{leaf: "[" + o.ClassName() + ": " + s.node(s.callMethod(o, "valueOf"), depth+1, seen, opts).leaf + "]"}
	}
	if pr, ok := o.Export().(*goja.Promise); ok {
		// As Node: Promise { 5 }, Promise { <pending> },
		// Promise { <rejected> Error: x }.
		p := pnode{open: "Promise {", close: "}", depth: depth + 1, last: depth + 1}
		switch pr.State() {
		case goja.PromiseStatePending:
			p.add(pentry{val: pnode{leaf: "<pending>"}})
		case goja.PromiseStateFulfilled:
			p.add(pentry{val: s.node(pr.Result(), depth+1, seen, opts)})
		default:
			in := s.node(pr.Result(), depth+1, seen, opts)
			if in.open == "" {
				in.leaf = "<rejected> " + in.leaf
			} else {
				in.base = strings.TrimSpace("<rejected> " + in.base)
			}
			p.add(pentry{val: in})
		}
		return p
	}
	typed := ""
	if ctor, ok := o.Get("constructor").(*goja.Object); ok && o.ClassName() != "Array" {
		if name := ctor.Get("name"); name != nil && typedArrays[name.String()] {
			typed = name.String()
		}
	}
	if o.ClassName() == "Array" || typed != "" {
		n := int(o.Get("length").ToInteger())
		var extra []string // keys that are not indices, printed after the elements
		if typed == "" {
			for _, k := range o.Keys() {
				if i, err := strconv.Atoi(k); err != nil || i < 0 || strconv.Itoa(i) != k {
					extra = append(extra, k)
				}
			}
		}
		open := "["
		if typed != "" {
			open = fmt.Sprintf("%s(%d) [", typed, n)
		}
		if n == 0 && len(extra) == 0 {
			return pnode{leaf: open + "]"}
		}
		if opts.depth >= 0 && depth > opts.depth {
			return pnode{leaf: "[Array]"}
		}
		seen[o] = true
		defer delete(seen, o)
		p := pnode{open: open, close: "]", array: true, numeric: true, depth: depth + 1, last: depth + 1}
		shown := n
		if opts.maxArray >= 0 {
			shown = min(n, opts.maxArray)
		}
		holes := 0
		for i := 0; i < shown; i++ {
			ev := o.Get(strconv.Itoa(i))
			if ev == nil { // a hole: Node counts a run of them as one entry
				holes++
				p.numeric = false
				if i+1 < shown && o.Get(strconv.Itoa(i+1)) == nil {
					continue
				}
				p.add(pentry{val: pnode{leaf: fmt.Sprintf("<%d empty item%s>", holes, plural(holes))}})
				holes = 0
				continue
			}
			p.numeric = p.numeric && isNumber(ev)
			p.add(pentry{val: s.node(ev, depth+1, seen, opts)})
		}
		if n > shown {
			p.entries = append(p.entries, pentry{val: pnode{leaf: fmt.Sprintf("... %d more item%s", n-shown, plural(n-shown))}})
			p.more = true
		}
		for _, k := range extra {
			p.add(s.propEntry(o, k, depth, seen, opts))
		}
		return p
	}
	for _, cls := range []string{"Map", "Set"} {
		if ctor, ok := s.rt.Get(cls).(*goja.Object); ok && s.rt.InstanceOf(o, ctor) {
			return s.collectionNode(o, cls, depth, seen, opts)
		}
	}
	return s.propsNode(o, "", depth, seen, opts)
}

// propsNode lays out o's own enumerable properties, string keys then
// symbols, after base (a function's "[Function: f]", or nothing for
// an object, whose class name comes before its braces).
func (s *Shell) propsNode(o *goja.Object, base string, depth int, seen map[*goja.Object]bool, opts inspectOpts) pnode {
	keys := o.Keys()
	if base != "" && o.ClassName() == "Error" {
		keys = slices.DeleteFunc(keys, func(k string) bool { return errorKeyInBase(o, k, base) })
	}
	var syms []*goja.Symbol
	if all := o.Symbols(); len(all) > 0 {
		// Object.prototype's, which an object without a prototype lacks.
		isEnum, _ := goja.AssertFunction(s.rt.Get("Object").ToObject(s.rt).Get("prototype").ToObject(s.rt).Get("propertyIsEnumerable"))
		for _, sym := range all {
			if r, err := isEnum(o, sym); err == nil && r.ToBoolean() {
				syms = append(syms, sym)
			}
		}
	}
	prefix := ""
	if base == "" {
		prefix = s.objectPrefix(o)
	}
	if len(keys)+len(syms) == 0 {
		if base != "" {
			return pnode{leaf: base}
		}
		return pnode{leaf: prefix + "{}"}
	}
	if opts.depth >= 0 && depth > opts.depth {
		if base != "" {
			return pnode{leaf: base}
		}
		return pnode{leaf: "[Object]"}
	}
	seen[o] = true
	defer delete(seen, o)
	p := pnode{base: base, open: prefix + "{", close: "}", depth: depth + 1, last: depth + 1}
	for _, k := range keys {
		p.add(s.propEntry(o, k, depth, seen, opts))
	}
	for _, sym := range syms {
		p.add(pentry{key: "[" + s.node(sym, depth+1, seen, opts).leaf + "]", val: s.node(o.GetSymbol(sym), depth+1, seen, opts)})
	}
	return p
}

// propEntry is o's property k as Node shows it: its value, or
// [Getter], [Setter] or [Getter/Setter] for an accessor.
func (s *Shell) propEntry(o *goja.Object, k string, depth int, seen map[*goja.Object]bool, opts inspectOpts) pentry {
	key := k
	if !identRe.MatchString(k) {
		key = quoteJS(k)
	}
	if s.getOwnPropertyDescriptor == nil {
		s.getOwnPropertyDescriptor, _ = goja.AssertFunction(s.rt.Get("Object").ToObject(s.rt).Get("getOwnPropertyDescriptor"))
	}
	if d, err := s.getOwnPropertyDescriptor(goja.Undefined(), o, s.rt.ToValue(k)); err == nil {
		if do, ok := d.(*goja.Object); ok {
			get, set := do.Get("get"), do.Get("set")
			hasGet, hasSet := get != nil && !goja.IsUndefined(get), set != nil && !goja.IsUndefined(set)
			switch {
			case hasGet && hasSet:
				return pentry{key: key, val: pnode{leaf: "[Getter/Setter]"}}
			case hasGet:
				return pentry{key: key, val: pnode{leaf: "[Getter]"}}
			case hasSet:
				return pentry{key: key, val: pnode{leaf: "[Setter]"}}
			}
		}
	}
	return pentry{key: key, val: s.node(o.Get(k), depth+1, seen, opts)}
}

// functionLeaf is how Node names a function: [Function: f],
// [Function (anonymous)], [class Foo extends Bar], [AsyncFunction: f],
// [GeneratorFunction: g].
func (s *Shell) functionLeaf(o *goja.Object) string {
	name := ""
	if n := o.Get("name"); n != nil && !goja.IsUndefined(n) {
		name = n.String()
	}
	if strings.HasPrefix(o.String(), "class") {
		out := "[class " + name
		if name == "" {
			out += "(anonymous)"
		}
		if super := o.Prototype(); super != nil {
			if sn := super.Get("name"); sn != nil && sn.String() != "" {
				if _, isFn := goja.AssertFunction(super); isFn {
					out += " extends " + sn.String()
				}
			}
		}
		return out + "]"
	}
	kind := "Function"
	if proto := o.Prototype(); proto != nil {
		if ctor, ok := proto.Get("constructor").(*goja.Object); ok {
			switch cn := ctor.Get("name").String(); cn {
			case "AsyncFunction", "GeneratorFunction", "AsyncGeneratorFunction":
				kind = cn
			}
		}
	}
	if name == "" {
		return "[" + kind + " (anonymous)]"
	}
	return "[" + kind + ": " + name + "]"
}

// boxNode lays out a BSON value as mongosh shows it: its constructor
// with its arguments, inspected where they are values of their own (a
// DBRef's id and fields, a Code's scope).
func (s *Shell) boxNode(v any, depth int, seen map[*goja.Object]bool, opts inspectOpts) pnode {
	arg := func(x any) string { return render(s.node(s.toJS(x), depth+1, seen, opts), 0, opts) }
	switch x := v.(type) {
	case dbRef:
		args := []string{quoteJS(x.Coll), arg(x.ID)}
		if x.DB != "" {
			args = append(args, quoteJS(x.DB))
		}
		if len(x.Fields) > 0 {
			args = append(args, arg(x.Fields))
		}
		return pnode{leaf: "DBRef(" + strings.Join(args, ", ") + ")"}
	case bson.CodeWithScope:
		return pnode{leaf: "Code(" + quoteJS(string(x.Code)) + ", " + arg(x.Scope) + ")"}
	}
	return pnode{leaf: bsonLeaf(v)}
}

// printsAs makes o print as text, as mongosh prints its shell objects
// (Explainable(db.c), PlanCache for collection c.).
func (s *Shell) printsAs(o *goja.Object, text string) {
	f := s.rt.ToValue(func(goja.FunctionCall) goja.Value { return s.rt.ToValue(text) })
	_ = o.DefineDataPropertySymbol(s.printSym, f, goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
}

// collectionNode lays out a Map ("Map(n) { k => v }") or a Set
// ("Set(n) { v }") as Node does.
func (s *Shell) collectionNode(o *goja.Object, cls string, depth int, seen map[*goja.Object]bool, opts inspectOpts) pnode {
	size := o.Get("size").ToInteger()
	head := fmt.Sprintf("%s(%d) {", cls, size)
	if size == 0 {
		return pnode{leaf: head + "}"}
	}
	if opts.depth >= 0 && depth > opts.depth {
		return pnode{leaf: "[" + cls + "]"}
	}
	seen[o] = true
	defer delete(seen, o)
	p := pnode{open: head, close: "}", depth: depth + 1, last: depth + 1}
	it, ok := s.callMethod(o, "entries").(*goja.Object)
	for ok {
		r, isObj := s.callMethod(it, "next").(*goja.Object)
		if !isObj || r.Get("done").ToBoolean() {
			break
		}
		pair, _ := r.Get("value").(*goja.Object)
		if pair == nil {
			break
		}
		k := s.node(pair.Get("0"), depth+1, seen, opts)
		if cls == "Set" {
			p.add(pentry{val: k})
			continue
		}
		v := s.node(pair.Get("1"), depth+1, seen, opts)
		p.add(pentry{key: render(k, 0, opts) + " =>", val: v})
	}
	return p
}

// objectPrefix is what Node prints before an object's braces: the name
// of the class it was made by ("BulkWriteResult "), nothing for a plain
// object, "[Object: null prototype] " for one without a prototype.
func (s *Shell) objectPrefix(o *goja.Object) string {
	proto := o.Prototype()
	if proto == nil {
		return "[Object: null prototype] "
	}
	ctor, ok := proto.Get("constructor").(*goja.Object)
	if !ok {
		return ""
	}
	name := ctor.Get("name")
	if name == nil || goja.IsUndefined(name) || name.String() == "" || name.String() == "Object" {
		return ""
	}
	return name.String() + " "
}

// add appends e to p, and makes the last object or array laid out in e
// p's last.
func (p *pnode) add(e pentry) {
	if e.val.open != "" {
		p.last = e.val.last
	}
	p.entries = append(p.entries, e)
}

// isNumber reports whether v is a JavaScript number.
func isNumber(v goja.Value) bool {
	switch v.Export().(type) {
	case int64, float64:
		return true
	}
	return false
}

// render lays p out at the given indentation as Node's util.inspect
// does (its reduceToSingleString): with compact set, an array of more
// than six entries in columns when they are short, and the node on one
// line when at most compact-1 levels of objects lie below it (counted,
// as Node does, along the last one laid out) and it fits breakLength;
// otherwise one entry a line.
func render(p pnode, indent int, o inspectOpts) string {
	if p.open == "" {
		return p.leaf
	}
	out := make([]string, len(p.entries))
	broken := p.broken // an error's stack, or an entry's, is several lines
	for i, e := range p.entries {
		broken = broken || e.val.broken
		v := render(e.val, indent+2, o)
		switch {
		case strings.HasSuffix(e.key, " =>"):
			v = e.key + " " + v
		case e.key != "":
			v = e.key + ": " + v
		}
		out[i] = v
	}
	if o.compact > 0 {
		entries := len(out)
		if p.array && entries > 6 {
			out = groupArrayElements(out, p.more, indent, p.numeric, o)
		}
		if p.last-p.depth < o.compact && entries == len(out) && !broken {
			start := len(out) + indent + len(p.open) + len(p.base) + 10
			if belowBreakLength(out, start) {
				joined := strings.Join(out, ", ")
				if !strings.Contains(joined, "\n") {
					return basePrefix(p) + p.open + " " + joined + " " + p.close
				}
			}
		}
	}
	ind := "\n" + strings.Repeat(" ", indent)
	return basePrefix(p) + p.open + ind + "  " + strings.Join(out, ","+ind+"  ") + ind + p.close
}

// basePrefix is p's base and a space, or nothing.
func basePrefix(p pnode) string {
	if p.base == "" {
		return ""
	}
	return p.base + " "
}

// belowBreakLength is Node's isBelowBreakLength: whether out, joined
// on one line after start columns, stays within breakLength.
func belowBreakLength(out []string, start int) bool {
	total := len(out) + start
	if total+len(out) > breakLength {
		return false
	}
	for _, e := range out {
		total += utf16Len(e)
		if total > breakLength {
			return false
		}
	}
	return true
}

// groupArrayElements is Node's: the entries of a long array of short
// values set out in aligned columns, as many a row as make the block
// roughly square (at most 4 x compact, 15, and what fits breakLength);
// numbers are right-aligned. A trailing "... more items" entry is kept
// on its own row. out is returned as it is when no grouping applies.
func groupArrayElements(out []string, more bool, indent int, numeric bool, o inspectOpts) []string {
	const separatorSpace = 2
	n := len(out)
	if more {
		n--
	}
	dataLen := make([]int, n)
	total, maxLen := 0, 0
	for i := 0; i < n; i++ {
		l := utf16Len(out[i])
		dataLen[i] = l
		total += l + separatorSpace
		maxLen = max(maxLen, l)
	}
	actualMax := maxLen + separatorSpace
	if !(actualMax*3+indent < breakLength && (float64(total)/float64(actualMax) > 5 || maxLen <= 6)) {
		return out
	}
	averageBias := math.Sqrt(float64(actualMax) - float64(total)/float64(len(out)))
	biasedMax := math.Max(float64(actualMax)-3-averageBias, 1)
	columns := min(
		int(math.Round(math.Sqrt(2.5*biasedMax*float64(n))/biasedMax)),
		(breakLength-indent)/actualMax,
		o.compact*4,
		15,
	)
	if columns <= 1 {
		return out
	}
	maxLineLength := make([]int, columns)
	for i := 0; i < columns; i++ {
		w := 0
		for j := i; j < n; j += columns {
			w = max(w, dataLen[j])
		}
		maxLineLength[i] = w + separatorSpace
	}
	var rows []string
	for i := 0; i < n; i += columns {
		end := min(i+columns, n)
		var b strings.Builder
		j := i
		for ; j < end-1; j++ {
			b.WriteString(pad(out[j]+", ", maxLineLength[j-i], numeric))
		}
		if numeric {
			b.WriteString(pad(out[j], maxLineLength[j-i]-separatorSpace, true))
		} else {
			b.WriteString(out[j])
		}
		rows = append(rows, b.String())
	}
	if n < len(out) {
		rows = append(rows, out[n])
	}
	return rows
}

// pad pads str with spaces to width (in UTF-16 units, as JavaScript
// counts): on the left when start is set, else on the right.
func pad(str string, width int, start bool) string {
	n := width - utf16Len(str)
	if n <= 0 {
		return str
	}
	if start {
		return strings.Repeat(" ", n) + str
	}
	return str + strings.Repeat(" ", n)
}

// utf16Len is the length of str as JavaScript counts it.
func utf16Len(str string) int {
	n := 0
	for _, r := range str {
		n += utf16.RuneLen(r)
	}
	return n
}

// utf16Prefix is str's first n UTF-16 units (a pair split at the end is
// dropped whole).
func utf16Prefix(str string, n int) string {
	for i, r := range str {
		if n -= utf16.RuneLen(r); n < 0 {
			return str[:i]
		}
	}
	return str
}

// bsonLeaf renders a BSON value JavaScript has no literal for, as
// mongosh shows it.
func bsonLeaf(v any) string {
	switch x := v.(type) {
	case bson.ObjectID:
		return "ObjectId('" + x.Hex() + "')"
	case int64:
		return "Long('" + strconv.FormatInt(x, 10) + "')"
	case int32:
		return "Int32(" + strconv.FormatInt(int64(x), 10) + ")"
	case float64:
		return "Double(" + strconv.FormatFloat(x, 'g', -1, 64) + ")"
	case bson.Decimal128:
		return "Decimal128('" + x.String() + "')"
	case bson.DateTime:
		return "ISODate('" + time.UnixMilli(int64(x)).UTC().Format("2006-01-02T15:04:05.000Z07:00") + "')"
	case bson.Timestamp:
		return fmt.Sprintf("Timestamp({ t: %d, i: %d })", x.T, x.I)
	case bson.Binary:
		if x.Subtype == 4 && len(x.Data) == 16 {
			return "UUID('" + uuidString(x.Data) + "')"
		}
		if x.Subtype == 5 {
			return "MD5('" + hex.EncodeToString(x.Data) + "')"
		}
		return fmt.Sprintf("Binary.createFromBase64('%s', %d)", base64.StdEncoding.EncodeToString(x.Data), x.Subtype)
	case bson.MinKey:
		return "MinKey()"
	case bson.MaxKey:
		return "MaxKey()"
	case bson.Regex:
		return "BSONRegExp(" + quoteJS(x.Pattern) + ", " + quoteJS(x.Options) + ")"
	case bson.JavaScript:
		return "Code(" + quoteJS(string(x)) + ")"
	case bson.Symbol:
		return "BSONSymbol(" + quoteJS(string(x)) + ")"
	}
	return fmt.Sprintf("%v", v)
}

// quoteJS quotes a string as Node does: single quotes unless the string
// holds one, then double quotes, then backquotes.
func quoteJS(str string) string {
	q := byte('\'')
	if strings.IndexByte(str, '\'') >= 0 {
		q = '"'
		if strings.IndexByte(str, '"') >= 0 {
			q = '`'
			if strings.IndexByte(str, '`') >= 0 {
				q = '\''
			}
		}
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range str {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}

// named is f as a JavaScript function called name: goja names a Go
// function by its Go name, which print would show
// ("[Function: github.com/...func60]" for mongosh's "[Function: watch]").
func (s *Shell) named(name string, f func(goja.FunctionCall) goja.Value) goja.Value {
	v := s.rt.ToValue(f)
	if o, ok := v.(*goja.Object); ok {
		_ = o.DefineDataProperty("name", s.rt.ToValue(name), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	return v
}

// nameNative names each Go function among o's own properties after its
// key (see named), and those of the plain objects it holds, depth
// levels down.
func (s *Shell) nameNative(o *goja.Object, depth int, seen map[*goja.Object]bool) {
	if seen[o] {
		return
	}
	seen[o] = true
	for _, k := range o.GetOwnPropertyNames() {
		v, ok := ownData(o, k).(*goja.Object)
		if !ok {
			continue
		}
		if _, fn := goja.AssertFunction(v); fn {
			if n := v.Get("name"); n != nil && goFuncName(n.String()) {
				_ = v.DefineDataProperty("name", s.rt.ToValue(k), goja.FLAG_FALSE, goja.FLAG_TRUE, goja.FLAG_FALSE)
			}
			if depth > 0 {
				s.nameNative(v, depth-1, seen) // a constructor's own functions (ObjectId.isValid)
			}
			continue
		}
		if depth > 0 && v.ClassName() == "Object" {
			s.nameNative(v, depth-1, seen)
		}
	}
}

// goFuncName tells whether a function's name is the Go name goja gave
// it ("github.com/x/y.(*T).m.func3").
func goFuncName(n string) bool {
	return strings.Contains(n, "/") || strings.Contains(n, ".func") || strings.Contains(n, "(*")
}

// ownData is o's property k, nil for an accessor that throws (a strict
// function's caller) or for a constructor's prototype.
func ownData(o *goja.Object, k string) (v goja.Value) {
	if k == "prototype" || k == "caller" || k == "arguments" {
		return nil
	}
	defer func() {
		if recover() != nil {
			v = nil
		}
	}()
	return o.Get(k)
}

// settled is v, or the value of the promise v once the script's jobs
// have run, as mongosh awaits what an input and print are given: a
// rejected promise throws its reason; a pending one stays as it is.
func (s *Shell) settled(v goja.Value) goja.Value {
	o, ok := v.(*goja.Object)
	if !ok {
		return v
	}
	pr, ok := o.Export().(*goja.Promise)
	if !ok {
		return v
	}
	switch pr.State() {
	case goja.PromiseStateFulfilled:
		return pr.Result()
	case goja.PromiseStateRejected:
		panic(pr.Result())
	}
	return v
}

// errorKeyInBase tells whether an error's own key k is one Node leaves
// out because its stack shows it: name, message or stack whose value
// the stack's first line, base, holds.
func errorKeyInBase(o *goja.Object, k, base string) bool {
	switch k {
	case "name", "message", "stack":
		v := o.Get(k)
		return v != nil && strings.Contains(base, v.String())
	}
	return false
}
