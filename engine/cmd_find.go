package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

func cursorReply(id int64, ns, batchName string, docs []bson.D) bson.D {
	return cursorReplyArray(id, ns, batchName, docArray(docs))
}

// cursorReplyArray is a cursor reply whose batch is arr.
func cursorReplyArray(id int64, ns, batchName string, arr bson.A) bson.D {
	return bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: id}, {Key: "ns", Value: ns}, {Key: batchName, Value: arr}}}}
}

// parseFindOptions reads find's options from the command document.
func parseFindOptions(cmd bson.D) (bson.D, FindOptions, error) {
	var o FindOptions
	var filter bson.D
	singleBatch := false
	for _, e := range cmd[1:] {
		var err error
		switch e.Key {
		case "filter":
			filter, err = toDoc("find.filter", e.Value)
		case "projection":
			o.Projection, err = toDoc("find.projection", e.Value)
		case "sort":
			o.Sort, err = toDoc("find.sort", e.Value)
		case "skip":
			o.Skip, err = intOpt("find.skip", e.Value)
			if err == nil && o.Skip < 0 {
				err = findNegative("skip", o.Skip)
			}
		case "limit":
			o.Limit, err = intOpt("find.limit", e.Value)
			if err == nil && o.Limit < 0 {
				err = findNegative("limit", o.Limit)
			}
		case "batchSize":
			var n int64
			n, err = intOpt("find.batchSize", e.Value)
			if err == nil && n < 0 {
				err = findNegative("batchSize", n)
			}
			o.BatchSize = int32(n)
			if n == 0 {
				o.BatchSize = -1 // explicit zero: empty first batch
			}
		case "singleBatch":
			singleBatch, _ = asBool(e.Value)
		case "hint":
			// mongod's IndexHint takes a name or a document only.
			switch e.Value.(type) {
			case string, bson.D:
				o.Hint = e.Value
			default:
				err = document.Errorf(document.CodeFailedToParse, "Hint must be a string or an object")
			}
		case "tailable":
			o.Tailable, _ = asBool(e.Value)
		case "awaitData":
			o.AwaitData, _ = asBool(e.Value)
		case "collation":
			o.Collation, err = collationOption("find", e.Value)
		case "let":
			o.Let, err = letValue("find", e.Value)
		case "min", "max":
			var d bson.D
			if d, err = toDoc("find."+e.Key, e.Value); err == nil {
				if e.Key == "min" {
					o.Min = d
				} else {
					o.Max = d
				}
			}
		case "returnKey":
			o.ReturnKey, _ = asBool(e.Value)
		case "showRecordId":
			o.ShowRecordID, _ = asBool(e.Value)
		case "noCursorTimeout":
			o.noCursorTimeout, _ = asBool(e.Value)
		case "allowPartialResults":
			o.allowPartialResults, _ = asBool(e.Value)
		case "readOnce":
			o.readOnce, _ = asBool(e.Value)
		case "maxTimeMS", "comment", "readConcern", "lsid", "$db",
			"readPreference", "$readPreference",
			"oplogReplay": // deprecated; mongod 4.4 and later take it and ignore it

		case "allowDiskUse":
			switch v := e.Value.(type) {
			case bool:
				o.AllowDiskUse = &v
			case nil:
			default:
				err = document.Errorf(document.CodeTypeMismatch, "BSON field 'find.allowDiskUse' is the wrong type '%s', expected type 'bool'", typeName(e.Value))
			}
		default:
			err = document.Errorf(document.CodeIDLUnknownField, "BSON field 'find.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return nil, o, err
		}
	}
	if singleBatch && o.Tailable {
		return nil, o, document.Errorf(document.CodeBadValue, "cannot use tailable option with the 'singleBatch' option")
	}
	o.singleBatch = singleBatch
	if singleBatch && o.BatchSize >= 0 {
		// One batch, then the cursor closes: a negative Limit.
		n := int64(defaultFirstBatch)
		if o.BatchSize > 0 {
			n = int64(o.BatchSize)
		}
		if o.Limit > 0 && o.Limit < n {
			n = o.Limit
		}
		o.Limit = -n
	}
	return filter, o, nil
}

const defaultFirstBatch = 101

// findNegative is the IDL validator's refusal of a negative skip, limit
// or batchSize in a find command (find_command.idl: gte 0), 51024.
func findNegative(field string, n int64) error {
	return document.Errorf(codeIDLValidator, "BSON field '%s' value must be >= 0, actual value '%d'", field, n)
}

// cmdFind runs the find command.
func cmdFind(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	filter, o, err := parseFindOptions(cmd)
	if err != nil {
		return nil, err
	}
	o.systemViews = true
	c, _, q, err := db.findPlan(dbName, name, filter, o)
	if err != nil {
		return nil, err
	}
	db.stats.queried.Add(1)
	ns := dbName + "." + name
	if q == nil {
		return cursorReply(0, ns, "firstBatch", nil), nil
	}
	n := defaultFirstBatch
	switch {
	case o.BatchSize > 0:
		n = int(o.BatchSize)
	case o.BatchSize < 0:
		n = 0
	}
	if o.Limit < 0 {
		n = int(-o.Limit)
	}
	batch := bson.A{}
	cur := &serverCursor{ns: ns, c: c, q: q}
	if o.Tailable {
		cur.tail = newTailState(c, q, o)
		var docs []bson.D
		docs, err = cur.tail.next(ctx, n, false)
		batch = docArray(docs)
	} else if n > 0 {
		batch, err = q.nextBatchArray(ctx, n, rawBatches(ctx), 0)
	}
	if err != nil {
		return nil, executorError("find command", err)
	}
	var id int64
	keepOpen := (o.Tailable && cur.tail.keepOpen()) || (!o.Tailable && !q.done && o.Limit >= 0)
	if keepOpen {
		id = db.cursors.add(cur)
	}
	return cursorReplyArray(id, ns, "firstBatch", batch), nil
}
