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
	"fmt"
	"time"

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
	// Invalidate ends a stream whose collection or database went away.
	// It is never stored; a stream makes it up after the Drop, Rename
	// or DropDatabase that ends it.
	Invalidate OpType = "invalidate"
)

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
	// WallTime is when the engine made the change.
	WallTime time.Time
}

// Encode returns the Change's stored form (the document codec).
func (c *Change) Encode() ([]byte, error) {
	d := bson.D{{Key: "o", Value: string(c.Op)}, {Key: "db", Value: c.DB}, {Key: "c", Value: c.Coll}}
	if c.ToDB != "" || c.ToColl != "" {
		d = append(d, bson.E{Key: "tdb", Value: c.ToDB}, bson.E{Key: "tc", Value: c.ToColl})
	}
	if c.DocumentKey != nil {
		d = append(d, bson.E{Key: "k", Value: c.DocumentKey})
	}
	if c.FullDocument != nil {
		d = append(d, bson.E{Key: "f", Value: c.FullDocument})
	}
	if c.Before != nil {
		d = append(d, bson.E{Key: "b", Value: c.Before})
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
		d = append(d, bson.E{Key: "u", Value: bson.D{{Key: "updatedFields", Value: uf}, {Key: "removedFields", Value: rm}, {Key: "truncatedArrays", Value: ta}}})
	}
	if x := c.Expiry; x != nil {
		d = append(d, bson.E{Key: "x", Value: expiryDoc(x)})
	}
	d = append(d, bson.E{Key: "w", Value: bson.NewDateTimeFromTime(c.WallTime)})
	return document.Marshal(d)
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
	wall             bson.DateTime
	hasKey, hasUpd   bool
	hasFull, hasPrev bool
}

func decode(b []byte) (*stored, error) {
	d, err := document.Unmarshal(b)
	if err != nil {
		return nil, fmt.Errorf("changestream: corrupt change: %w", err)
	}
	s := &stored{}
	for _, e := range d {
		switch e.Key {
		case "o":
			v, _ := e.Value.(string)
			s.op = OpType(v)
		case "db":
			s.db, _ = e.Value.(string)
		case "c":
			s.coll, _ = e.Value.(string)
		case "tdb":
			s.toDB, _ = e.Value.(string)
		case "tc":
			s.toColl, _ = e.Value.(string)
		case "k":
			s.key, s.hasKey = e.Value.(bson.D)
		case "f":
			s.full, s.hasFull = e.Value.(bson.D)
		case "b":
			s.prev, s.hasPrev = e.Value.(bson.D)
		case "u":
			s.upd, s.hasUpd = e.Value.(bson.D)
		case "x":
			s.expiry, _ = e.Value.(bson.D)
		case "w":
			s.wall, _ = e.Value.(bson.DateTime)
		}
	}
	if s.op == "" {
		return nil, fmt.Errorf("changestream: corrupt change: no operation type")
	}
	return s, nil
}

// Describe returns the updateDescription of a change from old to new:
// fields added or changed (sub-documents compared field by field, arrays
// element by element), fields removed, and arrays shortened.
func Describe(old, new bson.D) *UpdateDescription {
	u := &UpdateDescription{UpdatedFields: bson.D{}}
	diffDoc(u, "", old, new)
	return u
}

func diffDoc(u *UpdateDescription, prefix string, old, new bson.D) {
	oldAt := make(map[string]any, len(old))
	for _, e := range old {
		oldAt[e.Key] = e.Value
	}
	seen := make(map[string]bool, len(new))
	for _, e := range new {
		seen[e.Key] = true
		p := prefix + e.Key
		ov, ok := oldAt[e.Key]
		if !ok {
			u.UpdatedFields = append(u.UpdatedFields, bson.E{Key: p, Value: e.Value})
			continue
		}
		diffValue(u, p, ov, e.Value)
	}
	for _, e := range old {
		if !seen[e.Key] {
			u.RemovedFields = append(u.RemovedFields, prefix+e.Key)
		}
	}
}

func diffValue(u *UpdateDescription, p string, ov, nv any) {
	switch n := nv.(type) {
	case bson.D:
		if o, ok := ov.(bson.D); ok {
			diffDoc(u, p+".", o, n)
			return
		}
	case bson.A:
		if o, ok := ov.(bson.A); ok {
			for i := 0; i < len(n); i++ {
				ip := fmt.Sprintf("%s.%d", p, i)
				if i >= len(o) {
					u.UpdatedFields = append(u.UpdatedFields, bson.E{Key: ip, Value: n[i]})
					continue
				}
				diffValue(u, ip, o[i], n[i])
			}
			if len(n) < len(o) {
				u.TruncatedArrays = append(u.TruncatedArrays, bson.D{{Key: "field", Value: p}, {Key: "newSize", Value: int32(len(n))}})
			}
			return
		}
	}
	if !sameValue(ov, nv) {
		u.UpdatedFields = append(u.UpdatedFields, bson.E{Key: p, Value: nv})
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
