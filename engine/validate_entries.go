package engine

import (
	"bytes"
	"fmt"
	"math"
	"sort"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// IndexEntry is one index entry validate found missing or extra, as
// mongod 7.0 lists it in missingIndexEntries and extraIndexEntries.
type IndexEntry struct {
	IndexName string
	// RecordID is the record the entry points at (a missing entry's:
	// the record that should have it).
	RecordID int64
	// IDKey is {_id: value} of the document a missing entry belongs to;
	// nil for an extra entry and for a document without _id.
	IDKey bson.D
	// IndexKey is the entry's key: the index's key pattern fields, in
	// order, each with its value (docs/commands.md, "validate").
	IndexKey bson.D
}

// Doc is e as validate's reply lists it: indexName, recordId (a long),
// idKey when there is one, indexKey.
func (e IndexEntry) Doc() bson.D {
	d := bson.D{{Key: "indexName", Value: e.IndexName}, {Key: "recordId", Value: e.RecordID}}
	if e.IDKey != nil {
		d = append(d, bson.E{Key: "idKey", Value: e.IDKey})
	}
	return append(d, bson.E{Key: "indexKey", Value: e.IndexKey})
}

// maxListedEntryBytes bounds, as mongod 7.0 does, the listed missing
// entries and, apart, the listed extra entries: entries are listed in
// increasing size until their sizes add up past 1 MiB. The first entry
// of either list is listed whatever its size.
const maxListedEntryBytes = 1 << 20

// Errors and warnings validate gives about missing and extra index
// entries, worded as mongod 7.0's.
const (
	missingNotAllListed = "Not all missing index entry inconsistencies are listed due to size limitations."
	extraNotAllListed   = "Not all extra index entry inconsistencies are listed due to size limitations."
)

func indexInconsistent(name string) string {
	return fmt.Sprintf("Index with name '%s' has inconsistencies.", name)
}

func detectedMissing(n int) string { return fmt.Sprintf("Detected %d missing index entries.", n) }
func detectedExtra(n int) string   { return fmt.Sprintf("Detected %d extra index entries.", n) }

// entryDiff is an index entry found on one side only: expected from a
// document but absent (missing) or present with no document producing
// it (extra).
type entryDiff struct {
	ix     *catalog.Index
	ks     []byte // the entry's keystring, without its record id
	size   int    // the entry's key length past the index prefix, record id included
	rid    uint64
	recKey []byte // where the record is, to reread it
}

// expectedEntry is what a record leads validate to expect of one index
// entry: its value (entryValue) and its record.
type expectedEntry struct {
	val    string
	rid    uint64
	recKey string
}

// reportEntries turns the differences found into mongod 7.0's report:
// the listed entries (smallest first, within maxListedEntryBytes each),
// one error per index found inconsistent that no earlier error made
// invalid, an error when a list is cut short, then the counts as
// warnings. doc rereads a record (nil if it is gone or unreadable).
func (r *ValidateResult) reportEntries(missing, extra []entryDiff, doc func(entryDiff) bson.D) {
	byKey := func(ds []entryDiff) {
		sort.SliceStable(ds, func(i, j int) bool {
			if ds[i].ix.Name != ds[j].ix.Name {
				return ds[i].ix.Name < ds[j].ix.Name
			}
			if c := bytes.Compare(ds[i].ks, ds[j].ks); c != 0 {
				return c < 0
			}
			return ds[i].rid < ds[j].rid
		})
	}
	first := true
	mark := func(name string) {
		if !r.InvalidIndexes[name] {
			r.Errors = append(r.Errors, indexInconsistent(name))
			r.badIndex(name)
		}
	}
	// list adds the n entries (entry(i) makes the i-th) in order while
	// their sizes add up to at most maxListedEntryBytes, and says so
	// once when it stops; past that only their indexes matter (name).
	list := func(n int, entry func(int) IndexEntry, name func(int) string, into *[]IndexEntry, cut string) {
		total, full := 0, false
		for i := 0; i < n; i++ {
			if !full {
				e := entry(i)
				total += docSize(e.Doc())
				if first || total <= maxListedEntryBytes {
					*into = append(*into, e)
					first = false
				} else {
					r.Errors = append(r.Errors, cut)
					full = true
				}
			}
			mark(name(i))
		}
	}
	byKey(missing)
	sort.SliceStable(missing, func(i, j int) bool { return missing[i].size < missing[j].size })
	list(len(missing), func(i int) IndexEntry {
		m := missing[i]
		d := doc(m)
		e := IndexEntry{IndexName: m.ix.Name, RecordID: int64(m.rid), IndexKey: renderKey(m.ix, m.ks, d)}
		if id, ok := get(d, "_id"); ok {
			e.IDKey = bson.D{{Key: "_id", Value: id}}
		}
		return e
	}, func(i int) string { return missing[i].ix.Name }, &r.MissingIndexEntries, missingNotAllListed)
	// Extra entries go smallest first as listed, so each is made to
	// know its size.
	byKey(extra)
	type sized struct {
		e    IndexEntry
		size int
	}
	es := make([]sized, len(extra))
	for i, x := range extra {
		e := IndexEntry{IndexName: x.ix.Name, RecordID: int64(x.rid), IndexKey: renderKey(x.ix, x.ks, doc(x))}
		es[i] = sized{e, docSize(e.Doc())}
	}
	sort.SliceStable(es, func(i, j int) bool { return es[i].size < es[j].size })
	list(len(es), func(i int) IndexEntry { return es[i].e }, func(i int) string { return es[i].e.IndexName }, &r.ExtraIndexEntries, extraNotAllListed)
	r.NumMissing, r.NumExtra = int64(len(missing)), int64(len(extra))
	if len(missing) > 0 {
		r.Warnings = append(r.Warnings, detectedMissing(len(missing)))
	}
	if len(extra) > 0 {
		r.Warnings = append(r.Warnings, detectedExtra(len(extra)))
	}
}

func docSize(d bson.D) int {
	b, err := bson.Marshal(d)
	if err != nil {
		return 0
	}
	return len(b)
}

// keySlot is one value of an index's keystring: the key pattern field
// it is shown under ("" for a value not shown), its direction, and how
// to show it.
type keySlot struct {
	name   string
	path   string // the document path whose values can be the slot's
	desc   bool
	long   bool // a hash or a geo cell: shown as a long
	retype bool // the document's value of the same key is shown instead
}

// keySlots lists the values ix's keystrings hold, in order (indexkey.Of
// writes them): one a field, except that a wildcard field holds a path
// (shown) and a value (not shown, as mongod shows the path only), and a
// text index holds one term (under _fts) for all its text fields.
func keySlots(ix *catalog.Index) []keySlot {
	var out []keySlot
	text := false
	wildcard := indexkey.WildcardPos(ix.Key)
	for i, f := range indexkey.Fields(ix.Key) {
		name := ix.Key[i].Key
		kind, _ := ix.Key[i].Value.(string)
		switch {
		case i == wildcard:
			out = append(out, keySlot{name: name}, keySlot{desc: f.Desc})
		case kind == "text" || name == "_ftsx" && catalog.IsTextKey(ix.Key):
			if !text {
				out = append(out, keySlot{name: "_fts"})
				text = true
			}
		case f.Hashed || kind == "2dsphere" || kind == "2d":
			out = append(out, keySlot{name: name, long: true})
		default:
			out = append(out, keySlot{name: name, path: f.Path, desc: f.Desc, retype: true})
		}
	}
	return out
}

// renderKey shows keystring ks of ix as {field: value, ...} in key
// pattern order. A value is the one document d (if not nil) holds at
// the field's path when it has the same key, so it keeps its BSON type,
// and otherwise the keystring's decoding (a number then shows as a
// double, a long or a decimal, since a keystring does not keep the
// type). A keystring that does not decode shows the fields it could.
func renderKey(ix *catalog.Index, ks []byte, d bson.D) bson.D {
	out := bson.D{}
	coll := ix.Collator()
	rest := ks
	for _, s := range keySlots(ix) {
		v, after, err := lsm.DecodeKey(rest, s.desc)
		if err != nil {
			break
		}
		raw := rest[:len(rest)-len(after)]
		rest = after
		if s.name == "" {
			continue
		}
		if s.long {
			if f, ok := v.(float64); ok && f == math.Trunc(f) && math.Abs(f) < 1<<63 {
				v = int64(f)
			}
		}
		if s.retype && d != nil {
			vals, _ := indexkey.PathValues(d, s.path)
			if len(vals) == 0 {
				vals = []any{nil}
			}
			if c, ok := keyedValue(vals, coll, s.desc, raw); ok {
				v = c
			}
		}
		out = append(out, bson.E{Key: s.name, Value: v})
	}
	return out
}

// readRecordDoc returns the document stored at record key k in txn, nil if
// there is none or it does not decode.
func readRecordDoc(txn *lsm.Txn, k []byte) bson.D {
	raw, err := txn.Get(k)
	if err != nil {
		return nil
	}
	d, err := document.Unmarshal(raw)
	if err != nil {
		return nil
	}
	return d
}
