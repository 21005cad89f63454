package mongosh

import (
	"strconv"
	"strings"

	"github.com/dop251/goja"
)

// help, db.help(), db.coll.help(), a cursor's help(), rs.help() and the
// others answer mongosh's Help: an object of attr (a {name,
// description} a method), help (the title) and docs (a link), printed
// as mongosh prints one. The tables are mongosh's (helpdata.go); the
// shell lists the methods it has, so a method of mongosh's it lacks is
// not offered.

// helpTable is one of mongosh's help tables.
type helpTable struct {
	title, docs string
	rows        []helpRow
}

// helpRow is a table's method and what it does; a row without a name is
// a paragraph.
type helpRow struct{ name, desc string }

// helpWidth is the column a method's description starts at.
const helpWidth = 47

// shellCommandNames are the words of the shell's help that are commands
// rather than functions.
var shellCommandNames = map[string]bool{"use": true, "show": true, "it": true, "exit": true, "quit": true}

// formatHelp is a Help as mongosh prints it: the title, a method a line
// (its description from column 47, a description's further lines
// there too), then the link.
func formatHelp(title string, rows []helpRow, docs string) string {
	var b strings.Builder
	if title != "" {
		b.WriteString("\n  " + title + ":\n\n")
	}
	for _, r := range rows {
		switch {
		case r.name != "" && r.desc != "":
			head := "    " + r.name
			lines := strings.Split(r.desc, "\n")
			lines[0] = strings.Repeat(" ", max(helpWidth-len(head), 0)) + lines[0]
			for i := 1; i < len(lines); i++ {
				if strings.TrimSpace(lines[i]) != "" {
					lines[i] = strings.Repeat(" ", helpWidth) + lines[i]
				}
			}
			b.WriteString(head + strings.Join(lines, "\n") + "\n")
		case r.desc != "":
			b.WriteString("  " + r.desc + "\n")
		}
	}
	if docs != "" {
		b.WriteString("\n  For more information on usage: " + docs)
	}
	return b.String()
}

// helpOf is the Help of kind for target, and the text it prints as:
// the table's rows whose method target has (for the shell's, the global
// functions and the commands).
func (s *Shell) helpOf(kind string, target *goja.Object) (*goja.Object, string) {
	rt := s.rt
	if c := s.cursorOf(target); kind == "cursor" && c != nil && c.cmd != nil {
		kind = "agg" // an aggregate's cursor: mongosh's lists none
	}
	t := helpTables[kind]
	var rows []helpRow
	attr := rt.NewArray()
	for _, r := range t.rows {
		if r.name != "" && !(kind == "shell" && shellCommandNames[r.name]) {
			if _, ok := goja.AssertFunction(target.Get(r.name)); !ok {
				continue
			}
		}
		rows = append(rows, r)
		a := rt.NewObject()
		_ = a.Set("name", goja.Undefined()) // a key, as mongosh's, named or not
		if r.name != "" {
			_ = a.Set("name", r.name)
		}
		_ = a.Set("description", r.desc)
		_ = attr.Set(strconv.Itoa(len(rows)-1), a)
	}
	return s.helpObject(t.title, attr, rows, t.docs)
}

// helpObject is mongosh's Help of title, the rows (attr as JavaScript)
// and the link, and the text it prints as: title and docs are keys
// whether they are there or not (undefined), as mongosh's.
func (s *Shell) helpObject(title string, attr *goja.Object, rows []helpRow, docs string) (*goja.Object, string) {
	rt := s.rt
	h := rt.NewObject()
	_ = h.Set("attr", attr)
	_ = h.Set("help", goja.Undefined())
	if title != "" {
		_ = h.Set("help", title)
	}
	_ = h.Set("docs", goja.Undefined())
	if docs != "" {
		_ = h.Set("docs", docs)
	}
	text := formatHelp(title, rows, docs)
	_ = h.DefineDataPropertySymbol(s.printSym, rt.ToValue(func(goja.FunctionCall) goja.Value { return rt.ToValue(text) }), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	return h, text
}

// methodHelp is one method's help in mongosh: its call as mongosh
// writes it (may be empty), what it does, and its link (may be empty).
type methodHelp struct{ title, desc, docs string }

// giveMethodHelps gives each method get finds (nil: none) that has a
// help of mongosh's, among kind's, its help: called, that Help; printed
// itself (db.c.find.help), the Help too, as mongosh shows them.
func (s *Shell) giveMethodHelps(kind string, get func(name string) goja.Value) {
	rt := s.rt
	for name, mh := range methodHelps[kind] {
		f, ok := get(name).(*goja.Object)
		if !ok {
			continue
		}
		if _, isFn := goja.AssertFunction(f); !isFn {
			continue
		}
		key := kind + "." + name
		h := s.methodHelpFns[key] // one for every object of the kind
		if h == nil {
			mh := mh
			build := func() (*goja.Object, string) {
				a := rt.NewObject()
				_ = a.Set("name", goja.Undefined()) // a key, as mongosh's
				_ = a.Set("description", mh.desc)
				return s.helpObject(mh.title, rt.NewArray(a), []helpRow{{"", mh.desc}}, mh.docs)
			}
			h = s.named("help", func(goja.FunctionCall) goja.Value { o, _ := build(); return o }).(*goja.Object)
			_ = h.DefineDataPropertySymbol(s.printSym, rt.ToValue(func(goja.FunctionCall) goja.Value {
				_, text := build()
				return rt.ToValue(text)
			}), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
			s.methodHelpFns[key] = h
		}
		_ = f.DefineDataProperty("help", h, goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
}

// objectMethods is get for giveMethodHelps over o's properties.
func objectMethods(o *goja.Object) func(string) goja.Value {
	return func(name string) goja.Value { return o.Get(name) }
}

// helpMethod is the help method of target, an object of kind: called,
// its Help; printed itself (db.help without the call), that Help too,
// as mongosh shows it. A nil target is the method's this.
func (s *Shell) helpMethod(kind string, target *goja.Object) goja.Value {
	rt := s.rt
	f := s.named("help", func(c goja.FunctionCall) goja.Value {
		t := target
		if t == nil {
			t, _ = c.This.(*goja.Object)
		}
		if t == nil {
			t = rt.NewObject()
		}
		h, _ := s.helpOf(kind, t)
		return h
	}).(*goja.Object)
	if target != nil {
		_ = f.DefineDataPropertySymbol(s.printSym, rt.ToValue(func(goja.FunctionCall) goja.Value {
			_, text := s.helpOf(kind, target)
			return rt.ToValue(text)
		}), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)
	}
	return f
}

// installHelp gives the shell help, and rs, sh and config their help
// methods.
func (s *Shell) installHelp() {
	g := s.rt.GlobalObject()
	_ = g.Set("help", s.helpMethod("shell", g))
	s.giveMethodHelps("shell", objectMethods(g))
	for _, kind := range []string{"rs", "sh", "config"} {
		if o, ok := g.Get(kind).(*goja.Object); ok {
			_ = o.DefineDataProperty("help", s.helpMethod(kind, o), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
			s.giveMethodHelps(kind, objectMethods(o))
		}
	}
}
