package indexkey

import (
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A wildcard index ({"$**": 1}, or {"a.$**": 1} for the subtree under
// a) keeps one key a leaf of the document: the leaf's dotted path, then
// its value, as MongoDB's wildcard key generator makes them
// (docs/commands.md, "Wildcard indexes").

// MongoDB's codes for a projection that mixes inclusions and
// exclusions.
const (
	codeExclusionInInclusion = document.Code(31254)
	codeInclusionInExclusion = document.Code(31253)
	codePathCollision        = document.Code(31250)
)

// WildcardProjection is the name of the index option that chooses the
// paths a {"$**": 1} index keeps.
const WildcardProjection = "wildcardProjection"

// WildcardPos returns the position of key's wildcard field, -1 if none.
func WildcardPos(key bson.D) int {
	for i, f := range key {
		if f.Key == "$**" || strings.HasSuffix(f.Key, ".$**") {
			return i
		}
	}
	return -1
}

// IsWildcard reports whether key pattern key is a wildcard index's.
func IsWildcard(key bson.D) bool {
	for _, f := range key {
		if f.Key == "$**" || strings.HasSuffix(f.Key, ".$**") {
			return true
		}
	}
	return false
}

// projNode is one level of a wildcard index's path projection: the
// fields named at this level, each either a leaf (the whole subtree) or
// an inner node. include says whether named leaves are kept (an
// inclusion projection) or dropped (an exclusion).
type projNode struct {
	fields  map[string]*projNode // nil value: a leaf
	include bool
}

// all reports whether everything below the node is kept: an exclusion
// that names nothing.
func (n *projNode) all() bool { return n == nil }

// CheckWildcardProjection checks a wildcardProjection document: field
// paths (dotted or nested) to 1/true or 0/false, all inclusions or all
// exclusions but for _id, no path inside another.
func CheckWildcardProjection(p bson.D) error {
	_, err := parseProjection(p)
	return err
}

// parseProjection returns a wildcardProjection as a tree.
func parseProjection(p bson.D) (*projNode, error) {
	root := &projNode{fields: map[string]*projNode{}}
	mode := 0 // 1 inclusion, -1 exclusion, 0 not yet known
	idMode := 0
	var add func(prefix []string, d bson.D) error
	add = func(prefix []string, d bson.D) error {
		if len(d) == 0 && len(prefix) > 0 {
			return document.Errorf(document.CodeFailedToParse, "An empty sub-projection is not a valid value. Found empty object at path: %s", strings.Join(prefix, "."))
		}
		for _, e := range d {
			if e.Key == "" || strings.HasPrefix(e.Key, "$") {
				return document.Errorf(document.CodeFailedToParse, "Failed to parse projection: wildcardProjection: field path '%s' is not valid", e.Key)
			}
			path := append(append([]string(nil), prefix...), strings.Split(e.Key, ".")...)
			if sub, ok := e.Value.(bson.D); ok {
				if err := add(path, sub); err != nil {
					return err
				}
				continue
			}
			var in bool
			switch v := e.Value.(type) {
			case bool:
				in = v
			default:
				f, ok := numberOf(v)
				if !ok {
					return document.Errorf(document.CodeFailedToParse, "Failed to parse projection: wildcardProjection: the value of '%s' must be a number or a boolean", strings.Join(path, "."))
				}
				in = f != 0
			}
			m := -1
			if in {
				m = 1
			}
			if len(path) == 1 && path[0] == "_id" {
				idMode = m
			} else if mode == 0 {
				mode = m
			} else if mode != m {
				if mode > 0 {
					return document.Errorf(codeExclusionInInclusion, "Cannot do exclusion on field %s in inclusion projection", strings.Join(path, "."))
				}
				return document.Errorf(codeInclusionInExclusion, "Cannot do inclusion on field %s in exclusion projection", strings.Join(path, "."))
			}
			node := root
			for i, part := range path {
				next, ok := node.fields[part]
				if i == len(path)-1 {
					if ok {
						return document.Errorf(codePathCollision, "Path collision at %s", strings.Join(path, "."))
					}
					node.fields[part] = nil
					break
				}
				if ok && next == nil {
					return document.Errorf(codePathCollision, "Path collision at %s remaining portion %s", strings.Join(path, "."), strings.Join(path[i+1:], "."))
				}
				if !ok {
					next = &projNode{fields: map[string]*projNode{}}
					node.fields[part] = next
				}
				node = next
			}
		}
		return nil
	}
	if err := add(nil, p); err != nil {
		return nil, err
	}
	if mode == 0 {
		// Only _id named: its mode is the projection's.
		mode = idMode
	}
	root.include = mode > 0
	var setMode func(n *projNode)
	setMode = func(n *projNode) {
		for _, c := range n.fields {
			if c != nil {
				c.include = root.include
				setMode(c)
			}
		}
	}
	setMode(root)
	// _id is dropped unless named for inclusion; in an inclusion
	// projection it is kept only when named.
	if idMode > 0 {
		root.fields["_id"] = nil
		if !root.include {
			delete(root.fields, "_id")
		}
	} else if root.include {
		delete(root.fields, "_id")
	} else {
		root.fields["_id"] = nil
	}
	return root, nil
}

// numberOf returns a BSON number as a float64.
func numberOf(v any) (float64, bool) {
	switch n := v.(type) {
	case int32:
		return float64(n), true
	case int64:
		return float64(n), true
	case float64:
		return n, true
	case bson.Decimal128:
		if n.IsZero() {
			return 0, true
		}
		return 1, true
	}
	return 0, false
}

// wildcardRoot returns the projection of ix: the subtree of "a.$**",
// or the wildcardProjection of "$**" (without one, everything but _id).
func wildcardRoot(ix *catalog.Index) (*projNode, error) {
	field := ix.Key[WildcardPos(ix.Key)].Key
	if field != "$**" {
		// {"a.b.$**": 1}: an inclusion of a.b.
		path := strings.Split(strings.TrimSuffix(field, ".$**"), ".")
		root := &projNode{fields: map[string]*projNode{}, include: true}
		node := root
		for i, part := range path {
			if i == len(path)-1 {
				node.fields[part] = nil
				break
			}
			next := &projNode{fields: map[string]*projNode{}, include: true}
			node.fields[part] = next
			node = next
		}
		return root, nil
	}
	for _, e := range ix.Extra {
		if e.Key == WildcardProjection {
			if p, ok := e.Value.(bson.D); ok {
				return parseProjection(p)
			}
		}
	}
	return &projNode{fields: map[string]*projNode{"_id": nil}}, nil
}

// WildcardCovers reports whether a wildcard index ix can hold keys for
// path: the path lies in its projection. A field named on the way to a
// projected path ("a" for a projection of "a.b") is not covered: its
// keys are its leaves'.
func WildcardCovers(ix *catalog.Index, path string) bool {
	root, err := wildcardRoot(ix)
	if err != nil {
		return false
	}
	node := root
	for _, part := range strings.Split(path, ".") {
		if node.all() {
			return true
		}
		child, named := node.fields[part]
		switch {
		case named && child == nil:
			return node.include // a leaf: the whole subtree kept or dropped
		case named:
			node = child
		default:
			return !node.include
		}
	}
	// The path ends at an inner node: only an exclusion keeps it whole
	// enough to answer for its own leaves.
	return node.all() || !node.include
}

// wildcardKeys returns the keys of d in wildcard index ix, and whether
// an array was traversed: the projection applied to d first, then one
// key a leaf of what it kept.
func wildcardKeys(ix *catalog.Index, d bson.D) (keys [][]byte, multikey bool, err error) {
	root, err := wildcardRoot(ix)
	if err != nil {
		return nil, false, err
	}
	w := wildcardWalk{coll: ix.Collator(), seen: map[string]bool{}, desc: negative(ix.Key[WildcardPos(ix.Key)].Value)}
	w.object(project(d, root), "")
	if len(ix.Key) == 1 {
		return w.keys, w.multikey, nil
	}
	return compoundWildcardKeys(ix, d, w.keys, w.multikey)
}

// codeCannotBuildIndexKeys is MongoDB's code for a document an index
// cannot key.
const codeCannotBuildIndexKeys = document.Code(133)

// compoundWildcardKeys returns the keys of d in a compound wildcard
// index: each leaf key (path and value) between the values of the
// regular fields before and after the wildcard; a document without a
// leaf but with a regular field has one key whose path and value are
// MinKey; one with neither has none (docs/commands.md, "Compound
// wildcard indexes"). The regular fields are single values, as mongod
// requires.
func compoundWildcardKeys(ix *catalog.Index, d bson.D, leaves [][]byte, multikey bool) ([][]byte, bool, error) {
	pos := WildcardPos(ix.Key)
	coll := ix.Collator()
	var pre, post []byte
	present := false
	for i, f := range Fields(ix.Key) {
		if i == pos {
			continue
		}
		// An array anywhere on the path would make the field multikey.
		vals, arr := PathValues(d, f.Path)
		if arr {
			return nil, false, document.Errorf(codeCannotBuildIndexKeys, "the regular field '%s' of compound wildcard index %s meets an array; its regular fields must hold single values", f.Path, ix.Name)
		}
		var v any
		if len(vals) > 0 {
			present, v = true, vals[0]
		}
		if coll != nil {
			v = coll.KeyValue(v)
		}
		if i < pos {
			pre = lsm.AppendKey(pre, v, f.Desc)
		} else {
			post = lsm.AppendKey(post, v, f.Desc)
		}
	}
	if len(leaves) == 0 {
		if !present {
			return nil, false, nil
		}
		leaves = [][]byte{lsm.AppendKey(lsm.AppendKey(nil, bson.MinKey{}, false), bson.MinKey{}, negative(ix.Key[pos].Value))}
	}
	keys := make([][]byte, len(leaves))
	for i, l := range leaves {
		k := make([]byte, 0, len(pre)+len(l)+len(post))
		keys[i] = append(append(append(k, pre...), l...), post...)
	}
	return keys, multikey || len(keys) > 1, nil
}

// project applies projection node n to d, as MongoDB's projection does
// for a wildcard index: nested arrays are not descended (an inclusion
// drops them, an exclusion keeps them whole).
func project(d bson.D, n *projNode) bson.D {
	out := bson.D{}
	for _, e := range d {
		c, named := n.fields[e.Key]
		switch {
		case named && c == nil:
			if n.include {
				out = append(out, e)
			}
		case named:
			if v, ok := projectValue(e.Value, c); ok {
				out = append(out, bson.E{Key: e.Key, Value: v})
			}
		default:
			if !n.include {
				out = append(out, e)
			}
		}
	}
	return out
}

// projectValue applies inner node n to the value of a field it names;
// ok is false when nothing of it is kept.
func projectValue(v any, n *projNode) (any, bool) {
	switch x := v.(type) {
	case bson.D:
		return project(x, n), true
	case bson.A:
		out := bson.A{}
		for _, el := range x {
			switch y := el.(type) {
			case bson.D:
				out = append(out, project(y, n))
			default:
				if !n.include {
					out = append(out, el) // scalars and nested arrays
				}
			}
		}
		return out, true
	}
	return v, !n.include
}

// wildcardWalk makes the keys of a projected document.
type wildcardWalk struct {
	coll     *collation.Collator
	desc     bool // the wildcard field is descending: values keyed so
	seen     map[string]bool
	keys     [][]byte
	multikey bool
}

func (w *wildcardWalk) add(path string, v any) {
	if w.coll != nil {
		v = w.coll.KeyValue(v)
	}
	k := lsm.AppendKey(nil, path, false)
	k = lsm.AppendKey(k, v, w.desc)
	if !w.seen[string(k)] {
		w.seen[string(k)] = true
		w.keys = append(w.keys, k)
	}
}

// object keys the fields of d, a document at path ("" at the top).
func (w *wildcardWalk) object(d bson.D, path string) {
	for _, e := range d {
		if strings.IndexByte(e.Key, '.') >= 0 {
			continue // a dotted field name cannot be queried
		}
		p := e.Key
		if path != "" {
			p = path + "." + e.Key
		}
		w.value(e.Value, p, false)
	}
}

// value keys v at path; inArray says v is an element of an array.
func (w *wildcardWalk) value(v any, path string, inArray bool) {
	switch x := v.(type) {
	case bson.A:
		if inArray {
			w.add(path, x) // a nested array is a value
			return
		}
		w.multikey = true
		if len(x) == 0 {
			w.add(path, bson.Undefined{}) // as a regular index keys it
			return
		}
		for _, el := range x {
			w.value(el, path, true)
		}
	case bson.D:
		if len(x) == 0 {
			w.add(path, x)
			return
		}
		w.object(x, path)
	default:
		w.add(path, v)
	}
}

// MongoDB's codes for the rules of compound wildcard indexes.
const (
	codeWildcardOverlap       = document.Code(7246200) // projection paths overlap
	codeTwoWildcards          = document.Code(7246201)
	codeWildcardKeyOverlap    = document.Code(7246204) // "a.$**" beside a.b
	codeProjectionIncludesKey = document.Code(7246208)
	codeKeyNotExcluded        = document.Code(7246209)
	codeKeyNotExcludedEnd     = document.Code(7246210)
	codeProjectionMixed       = document.Code(7246211)
)

// CheckCompoundWildcard checks the key pattern of a compound wildcard
// index and its wildcardProjection (nil: none) by mongod's rules: one
// wildcard field; "a.$**" beside no field at or under a; "$**" only
// with a projection, which includes no regular field or excludes them
// all, and mixes inclusions and exclusions only for _id.
func CheckCompoundWildcard(key, proj bson.D) error {
	pos := -1
	for i, f := range key {
		if f.Key == "$**" || strings.HasSuffix(f.Key, ".$**") {
			if pos >= 0 {
				return document.Errorf(codeTwoWildcards, "Index Key can contain only one wildcard index field")
			}
			pos = i
		}
	}
	if len(key) < 2 || pos < 0 {
		return nil
	}
	var regular []string
	for i, f := range key {
		if i != pos {
			regular = append(regular, f.Key)
		}
	}
	wild := key[pos].Key
	if wild != "$**" {
		prefix := strings.TrimSuffix(wild, ".$**")
		for _, r := range regular {
			if pathPrefixOrEqual(prefix, r) {
				return document.Errorf(codeWildcardKeyOverlap, "A wildcard index field should not overlap with and index key fields if wildcard projection is empty, however '%s' is overlapping with the wildcard index field.", r)
			}
		}
		return nil
	}
	if proj == nil {
		return document.Errorf(document.CodeCannotCreateIndex, "Compound wildcard indexes on all fields must also specify 'wildcardProjection' option")
	}
	var incl, excl []string
	var flatten func(prefix string, d bson.D)
	flatten = func(prefix string, d bson.D) {
		for _, e := range d {
			p := e.Key
			if prefix != "" {
				p = prefix + "." + e.Key
			}
			if sub, ok := e.Value.(bson.D); ok {
				flatten(p, sub)
				continue
			}
			in := true
			switch v := e.Value.(type) {
			case bool:
				in = v
			default:
				f, _ := numberOf(v)
				in = f != 0
			}
			if in {
				incl = append(incl, p)
			} else {
				excl = append(excl, p)
			}
		}
	}
	flatten("", proj)
	onlyID := func(ps []string) bool { return len(ps) == 1 && ps[0] == "_id" }
	if len(incl) > 0 && len(excl) > 0 && !onlyID(incl) && !onlyID(excl) {
		return document.Errorf(codeProjectionMixed, "Inclusion and exclusion statements cannot combine in the wildcardProjection with an exception of explicitly including _id field")
	}
	for _, list := range [][]string{incl, excl} {
		for i, a := range list {
			for _, b := range list[i+1:] {
				if pathPrefixOrEqual(a, b) || pathPrefixOrEqual(b, a) {
					return document.Errorf(codeWildcardOverlap, "Fields in Wildcard Projection cannot overlap, however '%s' is overlapped with '%s", a, b)
				}
			}
		}
	}
	if len(excl) == 0 || onlyID(excl) && len(incl) > 0 {
		// An inclusion: it may include no regular field.
		for _, p := range incl {
			for _, r := range regular {
				if pathPrefixOrEqual(p, r) {
					return document.Errorf(codeProjectionIncludesKey, "Index Key and Wildcard Projection cannot contain overlapping fields, however '%s' index field is ovverlapping with '%s' wildcardProjection path.", r, p)
				}
			}
		}
		return nil
	}
	// Every regular field must lie at or under an excluded path: the
	// two lists walked in path order, as mongod walks them.
	fields := append([]string(nil), regular...)
	ex := append([]string(nil), excl...)
	byPath := func(a, b string) int { return comparePaths(a, b) }
	slices.SortFunc(fields, byPath)
	slices.SortFunc(ex, byPath)
	fi, ei := 0, 0
	for fi < len(fields) && ei < len(ex) {
		switch {
		case pathPrefixOrEqual(ex[ei], fields[fi]):
			fi++
		case comparePaths(ex[ei], fields[fi]) < 0:
			ei++
		default:
			return document.Errorf(codeKeyNotExcluded, "wildcardProjection paths must exclude all regular index fields, however '%s'is not excluded.", fields[fi])
		}
	}
	if fi < len(fields) {
		return document.Errorf(codeKeyNotExcludedEnd, "wildcardProjection paths must exclude all regular index fields, however '%s'is not excluded.", fields[fi])
	}
	return nil
}

// pathPrefixOrEqual reports whether dotted path a is b or one of its
// ancestors.
func pathPrefixOrEqual(a, b string) bool {
	return a == b || strings.HasPrefix(b, a+".")
}

// comparePaths orders dotted paths part by part.
func comparePaths(a, b string) int {
	pa, pb := strings.Split(a, "."), strings.Split(b, ".")
	for i := 0; i < len(pa) && i < len(pb); i++ {
		if c := strings.Compare(pa[i], pb[i]); c != 0 {
			return c
		}
	}
	return len(pa) - len(pb)
}

// SameWildcardProjection reports whether two wildcardProjection
// documents keep the same paths however they are spelled, as mongod
// compares an index's normalised projection: {a: 1}, {a: true} and
// {a: 1.0} are one; {"a.b": 1} and {a: {b: 1}} are one; field order does
// not matter. A missing projection (nil) is only the same as another
// missing one, and one that does not parse is the same as none other.
func SameWildcardProjection(a, b bson.D) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	pa, errA := parseProjection(a)
	pb, errB := parseProjection(b)
	if errA != nil || errB != nil {
		return false
	}
	return sameProjNode(pa, pb)
}

func sameProjNode(a, b *projNode) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	if a.include != b.include || len(a.fields) != len(b.fields) {
		return false
	}
	for k, na := range a.fields {
		nb, ok := b.fields[k]
		if !ok || !sameProjNode(na, nb) {
			return false
		}
	}
	return true
}
