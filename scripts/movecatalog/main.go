// Command movecatalog is the part of scripts/move-catalog.sh that reads
// Go: in the files named on the command line (package engine), it turns
// each method declared on the catalog entry types that moved to
// engine/internal/catalog (collMeta, indexMeta; catalog.Coll,
// catalog.Index once renamed) into a function of the entry, since Go
// allows no methods on another package's type, and prints, one a line,
// the gofmt -r rule that rewrites its calls (x.name(a, b) -> name(x, a,
// b)). A declaration of a method the catalog package now has (ns, index,
// clone, encode, defaultCollator, collator), or of a package-level name
// that moved (collatorOf, indexKeys, ...): a copy a merge brought back,
// is deleted instead, and named on stderr so that it can be compared
// with the moved one.
//
// It edits the files' text at the declarations only, so running it again
// finds nothing to do. It exits non-zero, changing nothing, when a
// converted name would collide with a function of the package or with a
// method of another type.
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"sort"
	"strings"
)

// moved are the catalog entry's methods that live in package catalog.
var moved = map[string]bool{"ns": true, "index": true, "clone": true, "encode": true, "defaultCollator": true, "collator": true}

// movedDecls are the package-level names whose declarations moved to
// package catalog or indexkey.
var movedDecls = map[string]bool{
	"collMeta": true, "indexMeta": true, "collKind": true, "kindNormal": true, "kindCapped": true, "kindTimeseries": true,
	"decodeCollMeta": true, "collators": true, "storedCollators": true, "collatorOf": true, "parseCollation": true,
	"pathValues": true, "keyField": true, "keyFields": true, "indexKeys": true, "keyValue": true, "idBound": true,
	"codeCannotIndexParallelArrays": true,
}

// declNames returns the names a general declaration declares.
func declNames(g *ast.GenDecl) []string {
	var out []string
	for _, sp := range g.Specs {
		switch s := sp.(type) {
		case *ast.TypeSpec:
			out = append(out, s.Name.Name)
		case *ast.ValueSpec:
			for _, n := range s.Names {
				out = append(out, n.Name)
			}
		}
	}
	return out
}

type edit struct {
	start, end int
	text       string
}

func entryType(e ast.Expr) bool {
	if s, ok := e.(*ast.StarExpr); ok {
		e = s.X
	}
	switch t := e.(type) {
	case *ast.Ident:
		return t.Name == "collMeta" || t.Name == "indexMeta"
	case *ast.SelectorExpr:
		x, ok := t.X.(*ast.Ident)
		return ok && x.Name == "catalog" && (t.Sel.Name == "Coll" || t.Sel.Name == "Index")
	}
	return false
}

func main() {
	fset := token.NewFileSet()
	type file struct {
		name  string
		src   []byte
		edits []edit
	}
	var files []*file
	funcs := map[string]bool{}        // package-level functions
	otherMethods := map[string]bool{} // methods of the package's other types
	type method struct {
		name     string
		arity    int
		variadic bool
	}
	var convert []method
	for _, name := range os.Args[1:] {
		src, err := os.ReadFile(name)
		if err != nil {
			fail(err)
		}
		f, err := parser.ParseFile(fset, name, src, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			fail(err)
		}
		fl := &file{name: name, src: src}
		files = append(files, fl)
		off := func(p token.Pos) int { return fset.Position(p).Offset }
		del := func(what string, n ast.Node, doc *ast.CommentGroup) {
			start := off(n.Pos())
			if doc != nil {
				start = off(doc.Pos())
			}
			end := off(n.End())
			for end < len(src) && src[end] == '\n' {
				end++
			}
			fl.edits = append(fl.edits, edit{start, end, ""})
			fmt.Fprintf(os.Stderr, "movecatalog: %s: deleted %s, which moved to engine/internal: compare it with the package's\n", fset.Position(n.Pos()), what)
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok != token.IMPORT {
				names := declNames(g)
				all, some := len(names) > 0, false
				for _, n := range names {
					all = all && movedDecls[n]
					some = some || movedDecls[n]
				}
				switch {
				case all:
					del(strings.Join(names, ", "), g, g.Doc)
				case some:
					fmt.Fprintf(os.Stderr, "movecatalog: %s: a declaration of %s names something that moved to engine/internal: fix it by hand\n", fset.Position(g.Pos()), strings.Join(names, ", "))
				}
				continue
			}
			fd, ok := d.(*ast.FuncDecl)
			if !ok {
				continue
			}
			if fd.Recv == nil {
				if movedDecls[fd.Name.Name] {
					del("function "+fd.Name.Name, fd, fd.Doc)
					continue
				}
				funcs[fd.Name.Name] = true
				continue
			}
			if !entryType(fd.Recv.List[0].Type) {
				otherMethods[fd.Name.Name] = true
				continue
			}
			if moved[fd.Name.Name] {
				del("method "+fd.Name.Name, fd, fd.Doc)
				continue
			}
			// func (m *T) name(params) -> func name(m *T, params)
			recv := fd.Recv.List[0]
			rname := "_"
			if len(recv.Names) > 0 {
				rname = recv.Names[0].Name
			}
			param := rname + " " + string(src[off(recv.Type.Pos()):off(recv.Type.End())])
			params := fd.Type.Params
			text := fd.Name.Name + "(" + param
			if len(params.List) > 0 {
				text += ", "
			}
			fl.edits = append(fl.edits, edit{off(fd.Recv.Opening), off(params.Opening) + 1, text})
			n := 0
			variadic := false
			for _, p := range params.List {
				if len(p.Names) == 0 {
					n++
				} else {
					n += len(p.Names)
				}
				if _, ok := p.Type.(*ast.Ellipsis); ok {
					variadic = true
				}
			}
			convert = append(convert, method{fd.Name.Name, n, variadic})
		}
	}
	for _, m := range convert {
		if funcs[m.name] || otherMethods[m.name] {
			fail(fmt.Errorf("method %s of the catalog entry: the package has another %s; rename one first", m.name, m.name))
		}
		if m.variadic {
			fail(fmt.Errorf("method %s of the catalog entry is variadic; convert it by hand", m.name))
		}
	}
	for _, fl := range files {
		if len(fl.edits) == 0 {
			continue
		}
		sort.Slice(fl.edits, func(i, j int) bool { return fl.edits[i].start > fl.edits[j].start })
		out := fl.src
		for _, e := range fl.edits {
			out = append(out[:e.start:e.start], append([]byte(e.text), out[e.end:]...)...)
		}
		if err := os.WriteFile(fl.name, out, 0o644); err != nil {
			fail(err)
		}
	}
	sort.Slice(convert, func(i, j int) bool { return convert[i].name < convert[j].name })
	const wild = "bcdefghijklmnopqrstuvwxyz" // a is the receiver
	for _, m := range convert {
		if m.arity > len(wild) {
			fail(fmt.Errorf("method %s has too many parameters", m.name))
		}
		args := strings.Split(wild[:m.arity], "")
		call := strings.Join(args, ", ")
		fn := strings.Join(append([]string{"a"}, args...), ", ")
		fmt.Printf("a.%s(%s) -> %s(%s)\n", m.name, call, m.name, fn)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "movecatalog:", err)
	os.Exit(1)
}
