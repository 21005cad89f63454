package changestream

import (
	"fmt"
	"sort"
	"strconv"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
)

// Model is what the change log says each collection holds: the result of
// applying its events, in order, to empty collections. Comparing it with
// the collections checks that every write has its event and every event
// its write (engine.DB.CheckChangeLog, ttlkv check --change-log).
type Model struct {
	colls map[string]map[string]bson.D // ns -> _id keystring -> document
}

// NewModel returns an empty Model.
func NewModel() *Model { return &Model{colls: map[string]map[string]bson.D{}} }

// IDKey returns the key a Model files a document under: the keystring
// of its _id, so that equal _ids of different numeric types match.
func IDKey(id any) string { return string(lsm.AppendKey(nil, id, false)) }

// Apply applies one event as a Stream returns it (with fullDocument
// whenAvailable, so an update carries its post-image when one was kept
// and its updateDescription otherwise). Events that contradict the model
// (an update of a document it does not hold) are errors.
func (m *Model) Apply(ev bson.D) error {
	op, _ := get(ev, "operationType").(string)
	nsd, _ := get(ev, "ns").(bson.D)
	db, _ := get(nsd, "db").(string)
	coll, _ := get(nsd, "coll").(string)
	ns := db + "." + coll
	key := ""
	if k, ok := get(ev, "documentKey").(bson.D); ok {
		key = IDKey(get(k, "_id"))
	}
	docs := m.colls[ns]
	if docs == nil && (op == Insert.String() || op == Update.String() || op == Replace.String()) {
		docs = map[string]bson.D{}
		m.colls[ns] = docs
	}
	switch OpType(op) {
	case Insert:
		if _, dup := docs[key]; dup {
			return fmt.Errorf("%s: a second insert of _id %v", ns, idText(ev))
		}
		d, _ := get(ev, "fullDocument").(bson.D)
		docs[key] = d
	case Replace:
		if _, ok := docs[key]; !ok {
			return fmt.Errorf("%s: replace of _id %v, which no event inserted", ns, idText(ev))
		}
		d, _ := get(ev, "fullDocument").(bson.D)
		docs[key] = d
	case Update:
		cur, ok := docs[key]
		if !ok {
			return fmt.Errorf("%s: update of _id %v, which no event inserted", ns, idText(ev))
		}
		if post, ok := get(ev, "fullDocument").(bson.D); ok {
			docs[key] = post
			break
		}
		ud, _ := get(ev, "updateDescription").(bson.D)
		nd, err := applyDescription(document.CloneDoc(cur), ud)
		if err != nil {
			return fmt.Errorf("%s: update of _id %v: %w", ns, idText(ev), err)
		}
		docs[key] = nd
	case Delete:
		if _, ok := docs[key]; !ok {
			return fmt.Errorf("%s: delete of _id %v, which no event inserted", ns, idText(ev))
		}
		delete(docs, key)
	case Drop:
		delete(m.colls, ns)
	case Rename:
		to, _ := get(ev, "to").(bson.D)
		tdb, _ := get(to, "db").(string)
		tc, _ := get(to, "coll").(string)
		// The target, if any, was dropped by the rename (dropTarget).
		if d := m.colls[ns]; d != nil {
			m.colls[tdb+"."+tc] = d
		} else {
			delete(m.colls, tdb+"."+tc)
		}
		delete(m.colls, ns)
	case DropDatabase:
		for n := range m.colls {
			if strings.HasPrefix(n, db+".") {
				delete(m.colls, n)
			}
		}
	}
	return nil
}

// Namespaces returns the namespaces the model holds documents for, sorted.
func (m *Model) Namespaces() []string {
	var out []string
	for ns, d := range m.colls {
		if len(d) > 0 {
			out = append(out, ns)
		}
	}
	sort.Strings(out)
	return out
}

// Docs returns the documents of ns by IDKey; the caller must not modify
// them.
func (m *Model) Docs(ns string) map[string]bson.D { return m.colls[ns] }

// String returns the operation type's name.
func (o OpType) String() string { return string(o) }

func get(d bson.D, k string) any {
	for _, e := range d {
		if e.Key == k {
			return e.Value
		}
	}
	return nil
}

func idText(ev bson.D) string {
	k, _ := get(ev, "documentKey").(bson.D)
	b, err := document.MarshalExtJSON(k, false)
	if err != nil {
		return fmt.Sprint(k)
	}
	return string(b)
}

// applyDescription applies an updateDescription to d: arrays truncated,
// then fields set, then fields removed.
func applyDescription(d bson.D, ud bson.D) (bson.D, error) {
	ta, _ := get(ud, "truncatedArrays").(bson.A)
	for _, x := range ta {
		t, _ := x.(bson.D)
		f, _ := get(t, "field").(string)
		n, _ := get(t, "newSize").(int32)
		v, ok := lookupPath(d, strings.Split(f, "."))
		a, isArr := v.(bson.A)
		if !ok || !isArr || int(n) > len(a) {
			return nil, fmt.Errorf("cannot truncate %s to %d", f, n)
		}
		var err error
		if d, err = setPath(d, strings.Split(f, "."), a[:n]); err != nil {
			return nil, err
		}
	}
	uf, _ := get(ud, "updatedFields").(bson.D)
	for _, e := range uf {
		var err error
		if d, err = setPath(d, strings.Split(e.Key, "."), e.Value); err != nil {
			return nil, err
		}
	}
	rf, _ := get(ud, "removedFields").(bson.A)
	for _, x := range rf {
		f, _ := x.(string)
		d = removePath(d, strings.Split(f, "."))
	}
	return d, nil
}

func lookupPath(v any, parts []string) (any, bool) {
	for _, p := range parts {
		switch c := v.(type) {
		case bson.D:
			var ok bool
			found := false
			for _, e := range c {
				if e.Key == p {
					v, ok, found = e.Value, true, true
					break
				}
			}
			if !found || !ok {
				return nil, false
			}
		case bson.A:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(c) {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

func setPath(d bson.D, parts []string, val any) (bson.D, error) {
	v, err := setIn(d, parts, val)
	if err != nil {
		return nil, err
	}
	return v.(bson.D), nil
}

func setIn(cur any, parts []string, val any) (any, error) {
	if len(parts) == 0 {
		return val, nil
	}
	switch c := cur.(type) {
	case bson.D:
		for i, e := range c {
			if e.Key == parts[0] {
				nv, err := setIn(e.Value, parts[1:], val)
				if err != nil {
					return nil, err
				}
				c[i].Value = nv
				return c, nil
			}
		}
		nv, err := setIn(bson.D{}, parts[1:], val)
		if err != nil {
			return nil, err
		}
		return append(c, bson.E{Key: parts[0], Value: nv}), nil
	case bson.A:
		i, err := strconv.Atoi(parts[0])
		if err != nil || i < 0 || i > len(c) {
			return nil, fmt.Errorf("cannot set array element %q of %d", parts[0], len(c))
		}
		if i == len(c) {
			c = append(c, nil)
		}
		nv, err := setIn(c[i], parts[1:], val)
		if err != nil {
			return nil, err
		}
		c[i] = nv
		return c, nil
	}
	return nil, fmt.Errorf("cannot set %q inside a %T", parts[0], cur)
}

func removePath(d bson.D, parts []string) bson.D {
	if len(parts) == 1 {
		out := d[:0:0]
		for _, e := range d {
			if e.Key != parts[0] {
				out = append(out, e)
			}
		}
		return out
	}
	for i, e := range d {
		if e.Key == parts[0] {
			if sub, ok := e.Value.(bson.D); ok {
				d[i].Value = removePath(sub, parts[1:])
			}
		}
	}
	return d
}
