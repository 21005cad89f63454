package document

import (
	"bytes"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Clone returns a deep copy of v: documents, arrays, binary data and the
// scope of code-with-scope are copied, so the copy shares no memory that
// a caller could mutate through v. Scalars are returned as they are. v
// must not contain cycles.
func Clone(v any) any {
	switch x := v.(type) {
	case bson.D:
		return CloneDoc(x)
	case bson.A:
		if x == nil {
			return x
		}
		out := make(bson.A, len(x))
		for i := range x {
			out[i] = Clone(x[i])
		}
		return out
	case bson.Binary:
		return bson.Binary{Subtype: x.Subtype, Data: bytes.Clone(x.Data)}
	case bson.CodeWithScope:
		return bson.CodeWithScope{Code: x.Code, Scope: Clone(x.Scope)}
	}
	return v
}

// CloneDoc is Clone for a document.
func CloneDoc(d bson.D) bson.D {
	if d == nil {
		return nil
	}
	out := make(bson.D, len(d))
	for i := range d {
		out[i] = bson.E{Key: d[i].Key, Value: Clone(d[i].Value)}
	}
	return out
}
