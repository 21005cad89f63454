package engine

import (
	"context"
	"errors"
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The raw insert path (docs/wire.md, "Where the time goes"): an insert
// command run through RunCommandRaw may carry its documents as
// bson.Raw, as a wire client sent them. Into an ordinary collection
// they are transcoded straight to the stored encoding by
// document.AppendInsertBSON, which applies prepareInsert's rules with
// the same codes, and the bson.D the write path needs holds only the
// top-level fields the collection's indexes read, decoded from the
// stored bytes (only the _id, taken from the transcoder, when the _id
// index is the only one); the whole document is decoded when more may
// be read (rawFields). Into a capped or time-series collection they
// are decoded as before.

// rawInsert is one document of an insert command as BSON bytes. The
// documents of one command share an arena for their stored encodings
// and prepared _ids, so a batch of 1000 costs a few allocations rather
// than three a document.
type rawInsert struct {
	bson  []byte
	arena *rawArena
}

// rawArena holds what the raw documents of one insert are prepared
// into; each document's slices are capped, so nothing appended later
// reaches them, and the store may keep them (they are never written
// again).
type rawArena struct {
	buf []byte
	ids []bson.E
	// m is the collection's metadata the documents are prepared for,
	// read at the first; fields are the top-level fields its indexes
	// read (the write path's bson.D holds only those), or whole is set
	// when the whole document must be decoded (rawFields).
	m      *catalog.Coll
	fields []string
	whole  bool
}

// rawInsertFault carries a document that is not valid BSON: the whole
// command fails with InvalidBSON before anything is written, as mongod
// refuses such a message, rather than that document alone.
type rawInsertFault struct{ err *Error }

func (f rawInsertFault) Error() string { return f.err.Error() }

// insertRawDocs inserts the documents of an insert command run through
// RunCommandRaw, or of Collection.InsertOne/InsertMany, where arr may
// hold bson.Raw documents, and returns their _ids as insertDocs does.
func (db *DB) insertRawDocs(ctx context.Context, dbName, name string, arr bson.A, ordered bool) ([]any, []WriteError, error) {
	if err := db.checkWritable(); err != nil {
		return nil, nil, err
	}
	c, _, err := db.ensureColl(dbName, name)
	if err != nil {
		return nil, nil, err
	}
	k := kindOf(c.m())
	_, ordinary := k.(ordinaryKind)
	docs := make([]any, len(arr))
	var raws []rawInsert
	arena := &rawArena{}
	if ordinary {
		raws = make([]rawInsert, len(arr))
		n := 0
		for _, v := range arr {
			if r, ok := v.(bson.Raw); ok {
				n += len(r) + 32 // a generated _id and longer headers
			}
		}
		arena.buf = make([]byte, 0, n)
		arena.ids = make([]bson.E, 0, len(arr))
	}
	for i, v := range arr {
		r, isRaw := v.(bson.Raw)
		switch {
		case isRaw && ordinary:
			raws[i] = rawInsert{bson: r, arena: arena}
			docs[i] = &raws[i]
		case isRaw:
			if err := bsoncore.Document(r).Validate(); err != nil {
				return nil, nil, document.Errorf(document.CodeInvalidBSON, "invalid BSON document in insert.documents.%d: %v", i, err)
			}
			docs[i] = r
		default:
			docs[i] = v
		}
	}
	ids, werrs, err := db.insertValidated(ctx, c, k, docs, ordered)
	var fault rawInsertFault
	if errors.As(err, &fault) {
		return nil, nil, fault.err
	}
	return ids, werrs, err
}

// hasRaw reports whether docs holds a bson.Raw document, which the
// insert stores from its bytes (insertRawDocs).
func hasRaw(docs []any) bool {
	for _, v := range docs {
		if _, ok := v.(bson.Raw); ok {
			return true
		}
	}
	return false
}

// rawValid reports whether every bson.Raw of docs is valid BSON.
func rawValid(docs []any) bool {
	for _, v := range docs {
		if r, ok := v.(bson.Raw); ok && bsoncore.Document(r).Validate() != nil {
			return false
		}
	}
	return true
}

// prepareStored prepares v, a document of an insert into the ordinary
// collection c, for storage: it returns the document the write path
// indexes (see rawNeedsFull for a raw one) and its stored encoding.
//
// enc, when not nil, holds the encodings of the insert's other
// documents (encArena).
func (db *DB) prepareStored(c *coll, v any, enc *encArena) (bson.D, []byte, error) {
	r, ok := v.(*rawInsert)
	if !ok {
		d, err := prepareInsert(v)
		if err != nil {
			return nil, nil, err
		}
		raw, err := enc.marshal(d)
		if err != nil {
			return nil, nil, err
		}
		return d, raw, nil
	}
	a := r.arena
	start := len(a.buf)
	out, id, err := document.AppendInsertBSON(a.buf, r.bson, bson.NewObjectID)
	if err != nil {
		var de *Error
		if errors.As(err, &de) && de.Code == document.CodeInvalidBSON {
			return nil, nil, rawInsertFault{de}
		}
		return nil, nil, err
	}
	// out may be a new array (the arena was too small): the documents
	// before keep the old one, which is never written again.
	a.buf = out
	raw := out[start:len(out):len(out)]
	if a.m == nil {
		a.m = c.m()
		a.fields, a.whole = db.rawFields(a.m)
	}
	switch {
	case a.whole:
		d, err := document.Unmarshal(raw)
		return d, raw, err
	case len(a.fields) > 1:
		// _id is the first field stored, so it comes first.
		d, err := document.UnmarshalFields(raw, a.fields)
		return d, raw, err
	}
	a.ids = append(a.ids, bson.E{Key: "_id", Value: id})
	n := len(a.ids)
	return a.ids[n-1 : n : n], raw, nil
}

// encArena holds the stored encodings of one insert's documents in
// shared blocks, instead of a buffer grown a document at a time (five
// or six allocations for a 200-byte document). Each encoding is a
// capped slice of its block, never written again, so the transaction
// may keep it (rawOwned).
type encArena struct {
	buf     []byte
	largest int // the largest encoding so far
}

// encArenaBlock is the least size of an encArena block.
const encArenaBlock = 64 << 10

// marshal returns the encoding of d (document.Marshal). A nil arena
// allocates it alone.
func (a *encArena) marshal(d bson.D) ([]byte, error) {
	if a == nil || a.largest > encArenaBlock/8 {
		// Large documents get buffers of their own.
		raw, err := document.Marshal(d)
		return raw[:len(raw):len(raw)], err
	}
	if room := max(a.largest, 1<<10); cap(a.buf)-len(a.buf) < room {
		a.buf = make([]byte, 0, max(encArenaBlock, 8*a.largest))
	}
	start := len(a.buf)
	out, err := document.AppendMarshal(a.buf, d)
	if err != nil {
		return nil, err
	}
	// out may be a new array (d did not fit): the encodings before keep
	// the old one, which is never written again.
	a.buf = out
	a.largest = max(a.largest, len(out)-start)
	return out[start:len(out):len(out)], nil
}

// rawFields returns the top-level fields of a document the write path
// reads when inserting it into m, _id first: the first component of
// every index key. whole is true when it may read more: a partial
// index (its filter), a wildcard key, a time-series buckets
// collection, or change streams (the event holds the document).
func (db *DB) rawFields(m *catalog.Coll) (fields []string, whole bool) {
	if db.changesOn() || isBucketsColl(m) {
		return nil, true
	}
	fields = []string{"_id"}
	for _, ix := range m.Indexes {
		if ix.PartialFilter != nil || ix.Partial != nil {
			return nil, true
		}
		for _, f := range ix.Key {
			top, _, _ := strings.Cut(f.Key, ".")
			if top == "" || strings.HasPrefix(top, "$") {
				return nil, true
			}
			if !slices.Contains(fields, top) {
				fields = append(fields, top)
			}
		}
	}
	return fields, false
}

// completeRaw decodes in full the raw documents of docs[start:end]
// that were prepared for metadata other than m (read under the
// collection's write lock): an index created, or some other catalog
// change, since they were prepared.
func (db *DB) completeRaw(m *catalog.Coll, docs []any, prepared []bson.D, raws [][]byte, start, end int) error {
	for i := start; i < end; i++ {
		r, ok := docs[i].(*rawInsert)
		if !ok || prepared[i] == nil || r.arena.m == m || r.arena.whole {
			continue
		}
		d, err := document.Unmarshal(raws[i])
		if err != nil {
			return err
		}
		prepared[i] = d
	}
	return nil
}
