package changestream

import (
	"bytes"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Describe returns the updateDescription of a change from old to new as
// mongod's document diff describes it (DescribePipeline), without the
// size limits that make mongod log a pipeline update as a replacement.
func Describe(old, new bson.D) *UpdateDescription {
	n := diffDocs(old, new, 0, false)
	u := &UpdateDescription{UpdatedFields: bson.D{}}
	n.emit(u, nil, nil)
	return u
}

// DescribePipeline returns the updateDescription mongod 7.0 gives an
// update made by an aggregation pipeline, which it logs as the
// difference of the documents (doc_diff::computeOplogDiff): per
// document, the fields whose value changed (a sub-document or array of
// the same type compared within, unless that difference would be larger
// than its new value), then the fields only new holds, then those only
// old holds; per array, a shorter new array as truncated, then the
// changed and added elements by index. It reports false when mongod
// would log the whole new document instead (a diff not smaller than the
// document), which a change stream shows as a replace event.
func DescribePipeline(old, new bson.D) (*UpdateDescription, bool) {
	n := diffDocs(old, new, deltaMetadataSize, true)
	if n == nil || n.size-deltaMetadataSize >= document.Size(new) {
		return nil, false
	}
	u := &UpdateDescription{UpdatedFields: bson.D{}}
	n.emit(u, nil, nil)
	return u, true
}

// deltaMetadataSize is what mongod adds to the size of a diff for the
// fields around it in its oplog entry ({$v: 2, diff: ...}).
const deltaMetadataSize = 15

// Sizes of mongod's size estimate of a diff (its ApproxBSONSizeTracker,
// which counts the bytes the diff takes encoded).
const (
	emptyDocDiffSize   = 5 // an empty document
	emptyArrayDiffSize = 9 // {a: true}
	sectionSize        = 8 // a section ({u: {}}): type, name, NUL, empty document
	resizeSize         = 7 // l: <int32>
)

// diffEntry is one entry of a document diff's section or of an array
// diff: a value, or a sub-diff.
type diffEntry struct {
	name  string
	value any
	sub   *docDiff
}

// docDiff is a document's or an array's diff as mongod builds it.
type docDiff struct {
	array bool
	size  int
	// Document: its sections, each in the order added.
	updates, inserts, subs []diffEntry
	deletes                []string
	// Array: its entries by index, and its new length when shorter.
	entries []diffEntry
	resize  int // -1: none
}

func valueSize(v any) int { return document.Size(bson.D{{Key: "", Value: v}}) - 7 }

func (n *docDiff) addValue(section *[]diffEntry, name string, v any) {
	if len(*section) == 0 {
		n.size += sectionSize
	}
	n.size += len(name) + 2 + valueSize(v)
	*section = append(*section, diffEntry{name: name, value: v})
}

func (n *docDiff) addDelete(name string) {
	if len(n.deletes) == 0 {
		n.size += sectionSize
	}
	n.size += len(name) + 2 + 1
	n.deletes = append(n.deletes, name)
}

func (n *docDiff) addSub(name string, sub *docDiff) {
	n.size += len(name) + 2 + sub.size + 1
	n.subs = append(n.subs, diffEntry{name: name, sub: sub})
}

func (n *docDiff) addElement(i int, v any, sub *docDiff) {
	name := strconv.Itoa(i)
	n.size += 1 + len(name) + 2
	if sub != nil {
		n.size += sub.size
	} else {
		n.size += valueSize(v)
	}
	n.entries = append(n.entries, diffEntry{name: name, value: v, sub: sub})
}

// diffDocs is mongod's computeDocDiff of pre and post: nil when limited
// and the diff grows larger than post.
func diffDocs(pre, post bson.D, padding int, limited bool) *docDiff {
	n := &docDiff{size: padding + emptyDocDiffSize}
	postSize := document.Size(post)
	deleted := map[string]bool{}
	i, j := 0, 0
	for i < len(pre) && j < len(post) {
		if limited && postSize < n.size {
			return nil
		}
		pv, nv := pre[i], post[j]
		if pv.Key == nv.Key && sameBytes(pv.Value, nv.Value) {
			i, j = i+1, j+1
			continue
		}
		if pv.Key != nv.Key {
			// Removed, or moved: a field still in post is inserted below.
			deleted[pv.Key] = true
			i++
			continue
		}
		if sub := subDiff(pv.Value, nv.Value, limited); sub != nil {
			n.addSub(pv.Key, sub)
		} else {
			n.addValue(&n.updates, pv.Key, nv.Value)
		}
		i, j = i+1, j+1
	}
	for ; i < len(pre); i++ {
		n.addDelete(pre[i].Key)
	}
	for ; j < len(post); j++ {
		n.addValue(&n.inserts, post[j].Key, post[j].Value)
		delete(deleted, post[j].Key)
	}
	rest := make([]string, 0, len(deleted))
	for k := range deleted {
		rest = append(rest, k)
	}
	sort.Strings(rest) // mongod keeps them in an ordered set
	for _, k := range rest {
		n.addDelete(k)
	}
	if limited && postSize <= n.size {
		return nil
	}
	return n
}

// diffArrays is mongod's computeArrayDiff of pre and post.
func diffArrays(pre, post bson.A, limited bool) *docDiff {
	n := &docDiff{array: true, size: emptyArrayDiffSize, resize: -1}
	postSize := valueSize(post)
	k := 0
	for ; k < len(pre) && k < len(post); k++ {
		if limited && postSize < n.size {
			return nil
		}
		if sameBytes(pre[k], post[k]) {
			continue
		}
		n.addElement(k, post[k], subDiff(pre[k], post[k], limited))
	}
	for ; k < len(post); k++ {
		n.addElement(k, post[k], nil)
	}
	if len(pre) > len(post) {
		n.resize = len(post)
		n.size += resizeSize
	}
	if limited && postSize <= n.size {
		return nil
	}
	return n
}

// subDiff is the diff within two values that are both documents or both
// arrays, nil when they are not or when it would be larger than post.
func subDiff(pre, post any, limited bool) *docDiff {
	switch p := pre.(type) {
	case bson.D:
		if q, ok := post.(bson.D); ok {
			return diffDocs(p, q, 0, limited)
		}
	case bson.A:
		if q, ok := post.(bson.A); ok {
			return diffArrays(p, q, limited)
		}
	}
	return nil
}

// sameBytes reports whether two values encode to the same BSON (type and
// bytes), mongod's binaryEqual.
func sameBytes(a, b any) bool {
	ba, err1 := bson.Marshal(bson.D{{Key: "", Value: a}})
	bb, err2 := bson.Marshal(bson.D{{Key: "", Value: b}})
	if err1 != nil || err2 != nil {
		return sameValue(a, b)
	}
	return bytes.Equal(ba, bb)
}

// emit reads n (at path, of components comps) into u as mongod's change
// stream reads a diff (change_stream_document_diff_parser.cpp): a
// document's updated then inserted fields into updatedFields, its
// deleted ones into removedFields, then its sub-diffs in turn; an
// array's new length into truncatedArrays, then its elements by index.
func (n *docDiff) emit(u *UpdateDescription, path []string, comps []any) {
	at := func(name string) (string, []any) {
		p := append(slices.Clip(path), name)
		var c any = name
		if n.array {
			i, _ := strconv.Atoi(name)
			c = int32(i)
		}
		return strings.Join(p, "."), append(slices.Clip(comps), c)
	}
	if n.array {
		if n.resize >= 0 {
			p := strings.Join(path, ".")
			u.TruncatedArrays = append(u.TruncatedArrays, bson.D{{Key: "field", Value: p}, {Key: "newSize", Value: int32(n.resize)}})
			u.note(p, comps)
		}
		for _, e := range n.entries {
			if e.sub != nil {
				e.sub.emit(u, append(slices.Clip(path), e.name), append(slices.Clip(comps), any(int32(atoi(e.name)))))
				continue
			}
			p, c := at(e.name)
			u.Updated(p, c, e.value)
		}
		return
	}
	for _, sec := range [][]diffEntry{n.updates, n.inserts} {
		for _, e := range sec {
			p, c := at(e.name)
			u.Updated(p, c, e.value)
		}
	}
	for _, name := range n.deletes {
		p, c := at(name)
		u.Removed(p, c)
	}
	for _, e := range n.subs {
		e.sub.emit(u, append(slices.Clip(path), e.name), append(slices.Clip(comps), any(e.name)))
	}
}

func atoi(s string) int {
	i, _ := strconv.Atoi(s)
	return i
}
