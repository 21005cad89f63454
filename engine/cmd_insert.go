package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdInsert runs the insert command.
func cmdInsert(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	if err := strictFields(cmd, "documents", "ordered", "bypassDocumentValidation"); err != nil {
		return nil, err
	}
	w, err := parseWriteCmd(cmd, "documents")
	if err != nil {
		return nil, err
	}
	name, arr, ordered := w.coll, w.stmts, w.ordered
	// Through RunCommandRaw a document may also be bson.Raw (a wire
	// client's bytes, stored without being decoded: insert_raw.go).
	raw := rawBatches(ctx)
	docs := make([]any, len(arr))
	for i, v := range arr {
		_, isDoc := v.(bson.D)
		if _, isRaw := v.(bson.Raw); isRaw && raw {
			isDoc = true
		}
		if !isDoc {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'insert.documents.%d' is the wrong type '%s', expected type 'object'", i, typeName(v))
		}
		docs[i] = v
	}
	if c := db.bucketsTarget(dbName, name); c != nil {
		// mongorestore writing a time-series collection's buckets.
		ds := make([]bson.D, len(docs))
		for i, v := range docs {
			if ds[i], err = asDoc(v); err != nil {
				return nil, err
			}
		}
		n, werrs, err := db.insertBuckets(ctx, dbName, c, ds, ordered)
		if err != nil {
			return nil, err
		}
		return appendWriteErrors(bson.D{{Key: "n", Value: int32(n)}}, werrs), nil
	}
	if name == systemViews {
		return nil, errWriteSystemViews(dbName)
	}
	if err := validateCollName(dbName, name, false); err != nil {
		return nil, err
	}
	var werrs []WriteError
	if raw {
		_, werrs, err = db.insertRawDocs(ctx, dbName, name, arr, ordered)
	} else {
		_, werrs, err = db.insertDocs(ctx, dbName, name, docs, ordered)
	}
	if err != nil {
		return nil, err
	}
	db.stats.inserted.Add(int64(len(docs) - len(werrs)))
	n := len(docs) - len(werrs)
	if ordered && len(werrs) > 0 {
		n = werrs[0].Index
	}
	reply := bson.D{{Key: "n", Value: int32(n)}}
	return appendWriteErrors(reply, werrs), nil
}

// appendWriteErrors appends werrs to reply as mongod's writeErrors: each
// is index, code and errmsg, then what the error adds (a duplicate key's
// keyPattern and keyValue, a validation failure's errInfo). mongod's
// WriteError carries no codeName.
func appendWriteErrors(reply bson.D, werrs []WriteError) bson.D {
	if len(werrs) == 0 {
		return reply
	}
	arr := bson.A{}
	for _, we := range werrs {
		d := bson.D{{Key: "index", Value: int32(we.Index)}, {Key: "code", Value: int32(we.Err.Code)},
			{Key: "errmsg", Value: we.Err.Message}}
		for _, k := range []string{"keyPattern", "keyValue", "errInfo"} {
			if v, ok := we.Err.Info[k]; ok {
				d = append(d, bson.E{Key: k, Value: v})
			}
		}
		arr = append(arr, d)
	}
	return append(reply, bson.E{Key: "writeErrors", Value: arr})
}
