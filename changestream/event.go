// Package changestream is ttlkv's change streams: the change events the
// engine writes to the change log (lsm's TagChange keys) in the same
// commit as the writes they describe, and the streams that read them back
// in MongoDB's change-event shapes, resumably.
//
// It sits beside engine, below it: engine builds a Change at each commit
// point and stages it with lsm's AddChange; Stream reads the log,
// filters by namespace, shapes events (resume token, clusterTime,
// fullDocument, fullDocumentBeforeChange) and applies a $match/$project
// pipeline. Keeping the logic here keeps engine's edits to one call per
// commit point. See docs/change-streams.md.
package changestream

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/vmihailenco/msgpack/v5"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// OpType is a change event's operationType.
type OpType string

// Operation types, as MongoDB names them.
const (
	// Insert is a document inserted.
	Insert OpType = "insert"
	// Update is a document modified by update operators or a pipeline.
	Update OpType = "update"
	// Replace is a document replaced by a replacement document.
	Replace OpType = "replace"
	// Delete is a document deleted by a user or expired (see Expiry).
	Delete OpType = "delete"
	// Drop is a collection dropped.
	Drop OpType = "drop"
	// Rename is a collection renamed; the event's to field is the new
	// namespace.
	Rename OpType = "rename"
	// DropDatabase is a database dropped (after one Drop per collection).
	DropDatabase OpType = "dropDatabase"
	// Create is a collection created (explicitly or by a first write),
	// shown with showExpandedEvents only.
	Create OpType = "create"
	// CreateIndexes is indexes built, shown with showExpandedEvents only.
	CreateIndexes OpType = "createIndexes"
	// DropIndexes is an index dropped, shown with showExpandedEvents only.
	DropIndexes OpType = "dropIndexes"
	// Modify is a collection's options changed by collMod, shown with
	// showExpandedEvents only.
	Modify OpType = "modify"
	// Invalidate ends a stream whose collection or database went away.
	// It is never stored; a stream makes it up after the Drop, Rename
	// or DropDatabase that ends it.
	Invalidate OpType = "invalidate"
)

// Expanded reports whether events of type t are shown only to streams
// opened with showExpandedEvents.
func (t OpType) Expanded() bool {
	switch t {
	case Create, CreateIndexes, DropIndexes, Modify:
		return true
	}
	return false
}

// Expiry says why a Delete was an expiration. It appears in the event as
// the ttlkv field, {expired: true, index: <name>} for a TTL index or
// {expired: true, bucket: true} for a time-series bucket; drivers that do
// not know it ignore it.
type Expiry struct {
	// Index is the name of the TTL index that expired the document; ""
	// for a time-series bucket.
	Index string
	// Bucket is set for a time-series bucket that expired as a whole.
	Bucket bool
}

// UpdateDescription is an update event's updateDescription.
type UpdateDescription struct {
	// UpdatedFields maps dotted paths to their new values, in order.
	UpdatedFields bson.D
	// RemovedFields lists dotted paths removed.
	RemovedFields []string
	// TruncatedArrays lists arrays shortened: {field, newSize}.
	TruncatedArrays []bson.D
	// DisambiguatedPaths maps each path above that a dotted string
	// cannot tell apart (an array index, a field named by digits or
	// holding a dot) to its components, indexes as numbers; shown with
	// showExpandedEvents, as mongod's.
	DisambiguatedPaths bson.D
}

// Change is one change as the engine records it.
type Change struct {
	// Op is the operation type (never Invalidate).
	Op OpType
	// DB and Coll are the namespace.
	DB, Coll string
	// ToDB and ToColl are a Rename's new namespace.
	ToDB, ToColl string
	// DocumentKey is {_id: ...} of the document (document operations).
	DocumentKey bson.D
	// FullDocument is an Insert's or Replace's new document, or an
	// Update's post-image when the collection keeps images.
	FullDocument bson.D
	// Before is the pre-image of an Update, Replace or Delete, kept when
	// the collection has changeStreamPreAndPostImages enabled.
	Before bson.D
	// UpdateDescription is an Update's description.
	UpdateDescription *UpdateDescription
	// Expiry is set on a Delete that was an expiration.
	Expiry *Expiry
	// FullRaw, when set, is FullDocument already encoded by the document
	// codec (the record's bytes): Encode stores it as is instead of
	// encoding FullDocument, which may then be nil.
	FullRaw []byte
	// BeforeRaw, when set, is Before already encoded, as FullRaw.
	BeforeRaw []byte
	// Description is a DDL event's operationDescription (Create,
	// CreateIndexes, DropIndexes, Modify).
	Description bson.D
	// StateBefore is a Modify's stateBeforeChange.
	StateBefore bson.D
	// NsType is a Create's nsType ("collection").
	NsType string
	// CollectionUUID is the UUID of the collection changed (16 bytes;
	// nil for a DropDatabase), shown as collectionUUID with
	// showExpandedEvents.
	CollectionUUID []byte
	// DropTarget is the UUID of the collection a Rename dropped in its
	// place (nil when it dropped none), shown in its
	// operationDescription.
	DropTarget []byte
	// View marks a change to a view's definition (its Create, Modify or
	// Drop), shown only with showExpandedEvents, as mongod shows the
	// writes to a database's system.views.
	View bool
	// WallTime is when the engine made the change.
	WallTime time.Time
}

// Encode returns the Change's stored form: a document in the document
// codec whose sub-documents (k, f, b, u, x) decode on their own. Where
// FullRaw or BeforeRaw is set, those bytes are copied in as they are,
// without encoding the document again.
func (c *Change) Encode() ([]byte, error) {
	n := 4 // o, db, c, w
	if c.ToDB != "" || c.ToColl != "" {
		n += 2
	}
	if c.NsType != "" {
		n++
	}
	if c.CollectionUUID != nil {
		n++
	}
	if c.DropTarget != nil {
		n++
	}
	if c.View {
		n++
	}
	full, before := c.FullRaw, c.BeforeRaw
	size := 64 + len(c.DB) + len(c.Coll) + len(c.ToDB) + len(c.ToColl) + len(full) + len(before)
	for _, x := range []bool{c.DocumentKey != nil, full != nil || c.FullDocument != nil, before != nil || c.Before != nil, c.UpdateDescription != nil, c.Expiry != nil, c.Description != nil, c.StateBefore != nil} {
		if x {
			n++
		}
	}
	b := make([]byte, 0, size)
	b = appendMapLen(b, n)
	b = appendStr(appendStr(b, "o"), string(c.Op))
	b = appendStr(appendStr(b, "db"), c.DB)
	b = appendStr(appendStr(b, "c"), c.Coll)
	if c.ToDB != "" || c.ToColl != "" {
		b = appendStr(appendStr(b, "tdb"), c.ToDB)
		b = appendStr(appendStr(b, "tc"), c.ToColl)
	}
	if c.NsType != "" {
		b = appendStr(appendStr(b, "nt"), c.NsType)
	}
	if c.CollectionUUID != nil {
		b = appendBin(appendStr(b, "ui"), c.CollectionUUID)
	}
	if c.DropTarget != nil {
		b = appendBin(appendStr(b, "dt"), c.DropTarget)
	}
	if c.View {
		b = append(appendStr(b, "vw"), 0xc3) // true
	}
	var err error
	doc := func(key string, raw []byte, d bson.D) {
		if err != nil {
			return
		}
		b = appendStr(b, key)
		if raw != nil {
			b = append(b, raw...)
			return
		}
		b, err = document.AppendMarshal(b, d)
	}
	if c.DocumentKey != nil {
		doc("k", nil, c.DocumentKey)
	}
	if full != nil || c.FullDocument != nil {
		doc("f", full, c.FullDocument)
	}
	if before != nil || c.Before != nil {
		doc("b", before, c.Before)
	}
	if u := c.UpdateDescription; u != nil {
		rm := bson.A{}
		for _, f := range u.RemovedFields {
			rm = append(rm, f)
		}
		ta := bson.A{}
		for _, t := range u.TruncatedArrays {
			ta = append(ta, t)
		}
		uf := u.UpdatedFields
		if uf == nil {
			uf = bson.D{}
		}
		ud := bson.D{{Key: "updatedFields", Value: uf}, {Key: "removedFields", Value: rm}, {Key: "truncatedArrays", Value: ta}}
		if len(u.DisambiguatedPaths) > 0 {
			ud = append(ud, bson.E{Key: "disambiguatedPaths", Value: u.DisambiguatedPaths})
		}
		doc("u", nil, ud)
	}
	if x := c.Expiry; x != nil && err == nil {
		b = appendExpiry(appendStr(b, "x"), x)
	}
	if c.Description != nil {
		doc("d", nil, c.Description)
	}
	if c.StateBefore != nil {
		doc("sb", nil, c.StateBefore)
	}
	if err != nil {
		return nil, err
	}
	return appendDateTime(appendStr(b, "w"), bson.NewDateTimeFromTime(c.WallTime)), nil
}

// appendDateTime appends a date as the document codec writes one: a
// MessagePack fixext 8 of the codec's date type holding the milliseconds
// big endian (TestEncodeRawSameBytes holds the two equal).
func appendDateTime(b []byte, t bson.DateTime) []byte {
	b = append(b, 0xd7, dateExt)
	return binary.BigEndian.AppendUint64(b, uint64(t))
}

// dateExt is the document codec's MessagePack extension type of dates.
const dateExt = 1

// appendExpiry appends the ttlkv expiry field's document, expiryDoc(x),
// as the document codec writes it, without building it (an event per
// expired document; TestEncodeRawSameBytes holds the two equal).
func appendExpiry(b []byte, x *Expiry) []byte {
	b = append(appendStr(appendMapLen(b, 2), "expired"), 0xc3) // true
	if x.Bucket {
		return append(appendStr(b, "bucket"), 0xc3)
	}
	return appendStr(appendStr(b, "index"), x.Index)
}

// appendMapLen appends a MessagePack map header of n entries, as the
// document codec writes one (docs/change-streams.md, "Stored form").
func appendMapLen(b []byte, n int) []byte {
	switch {
	case n < 16:
		return append(b, 0x80|byte(n))
	case n <= math.MaxUint16:
		return append(b, 0xde, byte(n>>8), byte(n))
	}
	return append(b, 0xdf, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
}

// appendStr appends a MessagePack string, as the document codec writes
// field names and string values.
func appendStr(b []byte, s string) []byte {
	n := len(s)
	switch {
	case n < 32:
		b = append(b, 0xa0|byte(n))
	case n <= math.MaxUint8:
		b = append(b, 0xd9, byte(n))
	case n <= math.MaxUint16:
		b = append(b, 0xda, byte(n>>8), byte(n))
	default:
		b = append(b, 0xdb, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(b, s...)
}

// appendBin appends a MessagePack bin (short: a UUID's 16 bytes).
func appendBin(b, v []byte) []byte {
	n := len(v)
	switch {
	case n <= math.MaxUint8:
		b = append(b, 0xc4, byte(n))
	case n <= math.MaxUint16:
		b = append(b, 0xc5, byte(n>>8), byte(n))
	default:
		b = append(b, 0xc6, byte(n>>24), byte(n>>16), byte(n>>8), byte(n))
	}
	return append(b, v...)
}

func expiryDoc(x *Expiry) bson.D {
	d := bson.D{{Key: "expired", Value: true}}
	if x.Bucket {
		return append(d, bson.E{Key: "bucket", Value: true})
	}
	return append(d, bson.E{Key: "index", Value: x.Index})
}

// stored is a decoded stored change, kept as the document it was.
type stored struct {
	op               OpType
	db, coll         string
	toDB, toColl     string
	key, full, prev  bson.D
	upd, expiry      bson.D
	desc, before     bson.D // a DDL event's operationDescription and stateBeforeChange
	nsType           string
	uuid, dropTarget []byte // collectionUUID; a rename's dropTarget
	view             bool   // a view's definition changed (Change.View)
	wall             bson.DateTime
	hasKey, hasUpd   bool
	hasFull, hasPrev bool
}

// decode reads a stored change. Its sub-documents are decoded one by
// one, each as a whole document, so a document as deep as the codec
// allows still decodes inside its event.
func decode(b []byte) (*stored, error) {
	dec := msgpack.NewDecoder(bytes.NewReader(b))
	n, err := dec.DecodeMapLen()
	if err != nil {
		return nil, fmt.Errorf("changestream: corrupt change: %w", err)
	}
	s := &stored{}
	sub := func() (bson.D, bool, error) {
		raw, err := dec.DecodeRaw()
		if err != nil {
			return nil, false, err
		}
		d, err := document.Unmarshal(raw)
		if err != nil {
			return nil, false, err
		}
		return d, true, nil
	}
	for i := 0; i < n; i++ {
		k, err := dec.DecodeString()
		if err != nil {
			return nil, fmt.Errorf("changestream: corrupt change: %w", err)
		}
		switch k {
		case "o":
			var v string
			v, err = dec.DecodeString()
			s.op = OpType(v)
		case "db":
			s.db, err = dec.DecodeString()
		case "c":
			s.coll, err = dec.DecodeString()
		case "tdb":
			s.toDB, err = dec.DecodeString()
		case "tc":
			s.toColl, err = dec.DecodeString()
		case "k":
			s.key, s.hasKey, err = sub()
		case "f":
			s.full, s.hasFull, err = sub()
		case "b":
			s.prev, s.hasPrev, err = sub()
		case "u":
			s.upd, s.hasUpd, err = sub()
		case "x":
			s.expiry, _, err = sub()
		case "d":
			s.desc, _, err = sub()
		case "sb":
			s.before, _, err = sub()
		case "nt":
			s.nsType, err = dec.DecodeString()
		case "ui":
			s.uuid, err = dec.DecodeBytes()
		case "dt":
			s.dropTarget, err = dec.DecodeBytes()
		case "vw":
			s.view, err = dec.DecodeBool()
		case "w":
			var raw []byte
			if raw, err = dec.DecodeRaw(); err == nil {
				var v any
				if v, err = document.UnmarshalValue(raw); err == nil {
					s.wall, _ = v.(bson.DateTime)
				}
			}
		default:
			err = dec.Skip()
		}
		if err != nil {
			return nil, fmt.Errorf("changestream: corrupt change: field %q: %w", k, err)
		}
	}
	if s.op == "" {
		return nil, fmt.Errorf("changestream: corrupt change: no operation type")
	}
	return s, nil
}

// Updated records path p (components comps: field names as strings,
// array indexes as int32) written with value v, as an operator update
// logs it.
func (u *UpdateDescription) Updated(p string, comps []any, v any) {
	u.UpdatedFields = append(u.UpdatedFields, bson.E{Key: p, Value: v})
	u.note(p, comps)
}

// Removed records path p (components comps) removed.
func (u *UpdateDescription) Removed(p string, comps []any) {
	u.RemovedFields = append(u.RemovedFields, p)
	u.note(p, comps)
}

// note records path p (of components comps) in DisambiguatedPaths when a
// dotted string does not say what its components are: when a field's
// name holds a dot, or, below the top level, is a number without
// leading zeros (so that it reads as an array index). Array indexes
// alone do not make a path ambiguous, as in mongod's jstest
// expanded_update_description.js; when a path is listed, its indexes are
// numbers and its field names strings (mongod's
// change_stream_document_diff_parser.cpp).
func (u *UpdateDescription) note(p string, comps []any) {
	for i, c := range comps {
		ambiguous := false
		if x, ok := c.(string); ok {
			numeric := x != "" && strings.Trim(x, "0123456789") == "" && (x == "0" || x[0] != '0')
			ambiguous = strings.Contains(x, ".") || (i > 0 && numeric)
		}
		if ambiguous {
			u.DisambiguatedPaths = append(u.DisambiguatedPaths, bson.E{Key: p, Value: bson.A(slices.Clone(comps))})
			return
		}
	}
}

// sameValue is equality of type and value (1 and 1.0 differ: a change
// of type is a change).
func sameValue(a, b any) bool {
	if fmt.Sprintf("%T", a) != fmt.Sprintf("%T", b) {
		return false
	}
	return document.Compare(a, b) == 0
}
