package main

import (
	"fmt"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// CSV and TSV column names, as mongoimport checks them and builds
// documents from them: a dotted name makes nested documents and, with
// --useArrayIndexFields, a part that is a natural number (0, 1, ...; no
// leading zero) makes an array element.

// checkFieldNames refuses the column names mongoimport refuses before it
// imports anything: a name that starts with '$' or '.', ends with '.' or
// holds "..", two equal names, a name and a path below it (a, a.b) and,
// with arrays, a document and an array at the same path (a.b, a.0) or
// array indexes that do not run 0, 1, 2, ... in order.
func checkFieldNames(fields []csvField, arrays bool) error {
	for _, f := range fields {
		switch {
		case strings.HasSuffix(f.name, "."):
			return fmt.Errorf("field `%s` cannot end with a '.'", f.name)
		case strings.HasPrefix(f.name, "."):
			return fmt.Errorf("field `%s` cannot start with a '.'", f.name)
		case strings.HasPrefix(f.name, "$"):
			return fmt.Errorf("field `%s` cannot start with a '$'", f.name)
		case strings.Contains(f.name, ".."):
			return fmt.Errorf("field `%s` cannot contain consecutive '.' characters", f.name)
		}
	}
	root := &fieldNode{kind: nodeDoc}
	for _, f := range fields {
		if err := root.addToDoc(strings.Split(f.name, "."), f.name, "", arrays); err != nil {
			return err
		}
	}
	return nil
}

// fieldNode is one path of the document the column names describe: a
// value, a document or an array.
type fieldNode struct {
	kind  int
	keys  []string // a document's keys, in order
	kids  map[string]*fieldNode
	elems []*fieldNode // an array's elements
}

const (
	nodeValue = iota
	nodeDoc
	nodeArray
)

// first returns the path below n of its first value, for messages.
func (n *fieldNode) first() string {
	switch {
	case n.kind == nodeDoc && len(n.keys) > 0:
		return "." + n.keys[0] + n.kids[n.keys[0]].first()
	case n.kind == nodeArray && len(n.elems) > 0:
		return ".0" + n.elems[0].first()
	}
	return ""
}

func incompatibleFields(prefix string, n *fieldNode, full string) error {
	return fmt.Errorf("fields `%s` and `%s` are incompatible", prefix+n.first(), full)
}

func arrayIndexError(full string) error {
	return fmt.Errorf("array index error with field `%s`: array indexes in fields must start from 0 and increase sequentially", full)
}

// childKind is the kind of node the next part of a path makes.
func childKind(next string, arrays bool) int {
	if _, ok := natNum(next); arrays && ok {
		return nodeArray
	}
	return nodeDoc
}

// addToDoc adds the path parts, the rest of the name full, below the
// document n found at prefix.
func (n *fieldNode) addToDoc(parts []string, full, prefix string, arrays bool) error {
	head, tail := parts[0], parts[1:]
	if prefix == "" {
		prefix = head
	} else {
		prefix += "." + head
	}
	kid, exists := n.kids[head]
	if exists && len(tail) == 0 {
		if kid.kind == nodeValue {
			return fmt.Errorf("fields cannot be identical: `%s` and `%s`", full, full)
		}
		return incompatibleFields(prefix, kid, full)
	}
	if len(tail) == 0 {
		n.add(head, &fieldNode{kind: nodeValue})
		return nil
	}
	want := childKind(tail[0], arrays)
	if !exists {
		kid = &fieldNode{kind: want}
		n.add(head, kid)
	} else if kid.kind != want {
		return incompatibleFields(prefix, kid, full)
	}
	if want == nodeArray {
		return kid.addToArray(tail, full, prefix)
	}
	return kid.addToDoc(tail, full, prefix, arrays)
}

func (n *fieldNode) add(key string, kid *fieldNode) {
	if n.kids == nil {
		n.kids = map[string]*fieldNode{}
	}
	n.keys = append(n.keys, key)
	n.kids[key] = kid
}

// addToArray adds the path parts, whose first is an index, below the
// array n found at prefix.
func (n *fieldNode) addToArray(parts []string, full, prefix string) error {
	head, tail := parts[0], parts[1:]
	prefix += "." + head
	i, _ := natNum(head)
	if len(tail) == 0 {
		if i != len(n.elems) {
			return arrayIndexError(full)
		}
		n.elems = append(n.elems, &fieldNode{kind: nodeValue})
		return nil
	}
	if i > len(n.elems) {
		return arrayIndexError(full)
	}
	want := childKind(tail[0], true)
	var kid *fieldNode
	if i < len(n.elems) {
		if kid = n.elems[i]; kid.kind != want {
			return incompatibleFields(prefix, kid, full)
		}
	} else {
		kid = &fieldNode{kind: want}
		n.elems = append(n.elems, kid)
	}
	if want == nodeArray {
		return kid.addToArray(tail, full, prefix)
	}
	return kid.addToDoc(tail, full, prefix, true)
}

// natNum reads a natural number written without a leading zero or sign,
// as mongoimport reads an array index in a field name.
func natNum(s string) (int, bool) {
	if s == "" || s[0] < '0' || s[0] > '9' || (len(s) > 1 && s[0] == '0') {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// csvRow builds the documents of CSV and TSV rows.
type csvRow struct {
	fields       []csvField
	ignoreBlanks bool   // leave empty cells out
	grace        string // what a cell that does not fit its type does
	arrays       bool   // --useArrayIndexFields
}

// errSkipRow is a row --parseGrace skipRow leaves out.
type errSkipRow struct{ err error }

func (e errSkipRow) Error() string { return "skipping row: " + e.err.Error() }

// document builds the document of one row. A row with more values than
// fields names the extra ones field3, field4, ... (by their index) as
// mongoimport does.
func (r *csvRow) document(rec []string) (bson.D, error) {
	d := make(bson.D, 0, len(rec))
	for i, s := range rec {
		if s == "" && r.ignoreBlanks {
			continue
		}
		var f csvField
		if i < len(r.fields) {
			f = r.fields[i]
		} else {
			name := "field" + strconv.Itoa(i)
			for _, g := range r.fields {
				if g.name == name {
					return nil, fmt.Errorf("duplicate field name - on %s - for token #%d (`%s`)", name, i+1, s)
				}
			}
			f = csvField{name: name, path: []string{name}}
		}
		v, err := csvValue(f, s)
		if err != nil {
			// mongoimport's words, without its document number (the
			// report gives the line).
			err = fmt.Errorf("type coercion failure for column %#q, could not parse token %#q to type %s", f.name, s, f.typ)
			switch r.grace {
			case graceAutoCast:
				v = autoValue(s)
			case graceSkipField:
				continue
			case graceSkipRow:
				return nil, errSkipRow{err}
			default:
				return nil, err
			}
		}
		if d, err = setField(d, f.path, v, r.arrays); err != nil {
			return nil, fmt.Errorf("can't set value for key `%s`: %v", f.name, err)
		}
	}
	return d, nil
}

// setField sets the value at path in d, making the documents (and, with
// arrays, the arrays) on the way.
func setField(d bson.D, path []string, v any, arrays bool) (bson.D, error) {
	if len(path) == 1 {
		return append(d, bson.E{Key: path[0], Value: v}), nil
	}
	at := -1
	for i := range d {
		if d[i].Key == path[0] {
			at = i
			break
		}
	}
	var sub any
	if at >= 0 {
		sub = d[at].Value
	}
	sub, err := setBelow(sub, path[1:], v, arrays)
	if err != nil {
		return d, err
	}
	if at < 0 {
		return append(d, bson.E{Key: path[0], Value: sub}), nil
	}
	d[at].Value = sub
	return d, nil
}

// setBelow sets the value at path below cur (nil when there is nothing
// yet), which path[0] says is an array (an index, with arrays) or a
// document, and returns the new cur.
func setBelow(cur any, path []string, v any, arrays bool) (any, error) {
	i, isIndex := natNum(path[0])
	if !arrays || !isIndex {
		doc, ok := cur.(bson.D)
		if cur != nil && !ok {
			return nil, fmt.Errorf("expected a document, but the element has already been set as another value: %v", cur)
		}
		return setField(doc, path, v, arrays)
	}
	a, ok := cur.(bson.A)
	if cur != nil && !ok {
		return nil, fmt.Errorf("expected an array, but the element has already been set as a document or other value: %v", cur)
	}
	if len(path) == 1 {
		if i != len(a) {
			return nil, fmt.Errorf("trying to add value to array at index %d, but array is %d elements long; array indices in fields must start from 0 and increase sequentially", i, len(a))
		}
		return append(a, v), nil
	}
	switch {
	case i < len(a):
		elem, err := setBelow(a[i], path[1:], v, arrays)
		if err != nil {
			return nil, err
		}
		a[i] = elem
	case i == len(a):
		elem, err := setBelow(nil, path[1:], v, arrays)
		if err != nil {
			return nil, err
		}
		a = append(a, elem)
	default:
		return nil, fmt.Errorf("trying to add value to array at index %d, but array is %d elements long; array indices in fields must start from 0 and increase sequentially", i, len(a))
	}
	return a, nil
}
