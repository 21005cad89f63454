package engine

import (
	"context"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// bulkOp is one operation of a bulkWrite command, parsed.
type bulkOp struct {
	kind   string // "insert", "update" or "delete"
	ns     int
	doc    bson.D // insert
	update UpdateSpec
	sort   bson.D // an update's sort (updateOne, MongoDB 8.0): which match it updates
	del    DeleteSpec
}

// cmdBulkWrite runs MongoDB 8.0's bulkWrite command (the drivers' client
// bulk write): inserts, updates and deletes over any collections named
// in nsInfo, in order, with one result each, as mongod answers it
// (docs/commands.md, "bulkWrite").
func cmdBulkWrite(ctx context.Context, db *DB, _ string, cmd bson.D) (bson.D, error) {
	var (
		opsV, nsV       bson.A
		haveOps, haveNs bool
		ordered         = true
		errorsOnly      bool
		batchSize       = int64(-1)
		let             bson.D
		err             error
	)
	for _, e := range cmd[1:] {
		switch e.Key {
		case "ops", "nsInfo":
			a, ok := e.Value.(bson.A)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'bulkWrite.%s' is the wrong type '%s', expected type 'array'", e.Key, typeName(e.Value))
			}
			if e.Key == "ops" {
				opsV, haveOps = a, true
			} else {
				nsV, haveNs = a, true
			}
		case "ordered":
			if ordered, err = boolField("bulkWrite", "ordered", e.Value); err != nil {
				return nil, err
			}
		case "errorsOnly":
			if errorsOnly, err = boolField("bulkWrite", "errorsOnly", e.Value); err != nil {
				return nil, err
			}
		case "let":
			if let, err = letValue("bulkWrite", e.Value); err != nil {
				return nil, err
			}
		case "cursor":
			if batchSize, err = cursorOption("bulkWrite", e.Value); err != nil {
				return nil, err
			}
		case "bypassDocumentValidation", "comment", "writeConcern", "lsid", "$db", "txnNumber", "apiVersion", "apiStrict", "apiDeprecationErrors", "$readPreference", "maxTimeMS":
		default:
			return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'bulkWrite.%s' is an unknown field.", e.Key)
		}
	}
	if !haveOps {
		return nil, document.Errorf(document.CodeIDLFailedToParse, "BSON field 'bulkWrite.ops' is missing but a required field")
	}
	if !haveNs {
		return nil, document.Errorf(document.CodeIDLFailedToParse, "BSON field 'bulkWrite.nsInfo' is missing but a required field")
	}
	if len(opsV) == 0 || len(opsV) > 100000 {
		return nil, document.Errorf(document.CodeInvalidLength, "Write batch sizes must be between 1 and 100000. Got %d operations.", len(opsV))
	}
	if err := db.checkLet(let); err != nil {
		return nil, err
	}
	namespaces := make([][2]string, len(nsV))
	for i, v := range nsV {
		d, ok := v.(bson.D)
		if !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'bulkWrite.nsInfo.%d' is the wrong type '%s', expected type 'object'", i, typeName(v))
		}
		s, have := get(d, "ns")
		if !have {
			return nil, document.Errorf(document.CodeIDLFailedToParse, "BSON field 'bulkWrite.nsInfo.ns' is missing but a required field")
		}
		ns, ok := s.(string)
		if !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'bulkWrite.nsInfo.ns' is the wrong type '%s', expected type 'string'", typeName(s))
		}
		for _, f := range d {
			switch f.Key {
			case "ns", "collectionUUID", "encryptionInformation", "isTimeseriesNamespace":
			default:
				return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'bulkWrite.nsInfo.%s' is an unknown field.", f.Key)
			}
		}
		dbName, coll, dot := strings.Cut(ns, ".")
		if !dot {
			return nil, document.Errorf(document.CodeInvalidNamespace, "Invalid namespace specified '%s'", ns)
		}
		if err := validateCollName(dbName, coll, false); err != nil {
			return nil, err
		}
		namespaces[i] = [2]string{dbName, coll}
	}
	ops := make([]bulkOp, len(opsV))
	for i, v := range opsV {
		if ops[i], err = parseBulkOp(v, i, len(namespaces)); err != nil {
			return nil, err
		}
		ops[i].update.Let, ops[i].del.Let = let, let
	}

	var nInserted, nMatched, nModified, nUpserted, nDeleted, nErrors int64
	var results []bson.D
	for i, op := range ops {
		ns := namespaces[op.ns]
		res, err := db.runBulkOp(ctx, ns[0], ns[1], op)
		if err != nil {
			ue, ok := asUserError(err)
			if !ok {
				return nil, err
			}
			nErrors++
			// mongod's BulkWriteReplyItem: ok, idx, code, errmsg, the
			// error's extra information, then n (0); no codeName, as
			// in the other write commands' writeErrors.
			d := bson.D{{Key: "ok", Value: 0.0}, {Key: "idx", Value: int32(i)}, {Key: "code", Value: int32(ue.Code)},
				{Key: "errmsg", Value: ue.Message}}
			for _, k := range []string{"keyPattern", "keyValue", "errInfo"} {
				if v, ok := ue.Info[k]; ok {
					d = append(d, bson.E{Key: k, Value: v})
				}
			}
			results = append(results, append(d, bson.E{Key: "n", Value: int32(0)}))
			if ordered {
				break
			}
			continue
		}
		switch op.kind {
		case "insert":
			nInserted++
		case "update":
			nMatched += res.MatchedCount
			nModified += res.ModifiedCount
			nUpserted += res.UpsertedCount
		case "delete":
			nDeleted += res.MatchedCount
		}
		if errorsOnly {
			continue
		}
		d := bson.D{{Key: "ok", Value: 1.0}, {Key: "idx", Value: int32(i)}, {Key: "n", Value: int32(res.MatchedCount + res.UpsertedCount)}}
		if op.kind == "update" {
			d = append(d, bson.E{Key: "nModified", Value: int32(res.ModifiedCount)})
			if res.UpsertedCount > 0 {
				d = append(d, bson.E{Key: "upserted", Value: bson.D{{Key: "_id", Value: res.UpsertedID}}})
			}
		}
		results = append(results, d)
	}
	db.stats.inserted.Add(nInserted)
	db.stats.updated.Add(nModified)
	db.stats.deleted.Add(nDeleted)
	// The results come in a cursor, as mongod's: the first batchSize
	// (all without one) now, the rest through getMore.
	const ns = "admin.$cmd.bulkWrite"
	id, first := int64(0), results
	if batchSize >= 0 && batchSize < int64(len(results)) {
		id = db.cursors.add(&serverCursor{ns: ns, q: sliceExec(results[batchSize:])})
		first = results[:batchSize]
	}
	return bson.D{
		{Key: "cursor", Value: bson.D{{Key: "id", Value: id}, {Key: "firstBatch", Value: docArray(first)}, {Key: "ns", Value: ns}}},
		{Key: "nErrors", Value: int32(nErrors)}, {Key: "nInserted", Value: int32(nInserted)}, {Key: "nMatched", Value: int32(nMatched)},
		{Key: "nModified", Value: int32(nModified)}, {Key: "nUpserted", Value: int32(nUpserted)}, {Key: "nDeleted", Value: int32(nDeleted)},
	}, nil
}

// parseBulkOp reads one of bulkWrite's ops: {insert: ns, document},
// {update: ns, filter, updateMods, multi, upsert, arrayFilters, hint,
// collation} or {delete: ns, filter, multi, hint, collation}, where ns
// indexes nsInfo.
func parseBulkOp(v any, i, nns int) (bulkOp, error) {
	d, ok := v.(bson.D)
	if !ok {
		return bulkOp{}, document.Errorf(document.CodeTypeMismatch, "BSON field 'bulkWrite.ops.%d' is the wrong type '%s', expected type 'object'", i, typeName(v))
	}
	if len(d) == 0 {
		return bulkOp{}, document.Errorf(document.CodeFailedToParse, "Unrecognized bulkWrite operation: {}; an operation starts with insert, update or delete")
	}
	op := bulkOp{kind: d[0].Key}
	switch op.kind {
	case "insert", "update", "delete":
	default:
		return bulkOp{}, document.Errorf(document.CodeFailedToParse, "Unrecognized bulkWrite operation: %s", op.kind)
	}
	n, ok := asInt64(d[0].Value)
	if !ok || n < 0 || n >= int64(nns) {
		return bulkOp{}, document.Errorf(document.CodeBadValue, "BulkWrite ops entry %d has an invalid nsInfo index", i)
	}
	op.ns = int(n)
	op.update.Filter, op.del.Filter = bson.D{}, bson.D{}
	multi := false
	var err error
	for _, e := range d[1:] {
		switch {
		case e.Key == "document" && op.kind == "insert":
			op.doc, err = toDoc("bulkWrite.ops.document", e.Value)
		case e.Key == "filter" && op.kind != "insert":
			if op.update.Filter, err = toDoc("bulkWrite.ops.filter", e.Value); err == nil {
				op.del.Filter = op.update.Filter
			}
		case e.Key == "updateMods" && op.kind == "update":
			var ok bool
			if op.update.Update, op.update.Pipeline, ok = updateArg(e.Value); !ok {
				err = document.Errorf(document.CodeFailedToParse, "Update argument must be either an object or an array")
			}
		case e.Key == "multi" && op.kind != "insert":
			multi, err = boolField("bulkWrite.ops", "multi", e.Value)
		case e.Key == "upsert" && op.kind == "update":
			op.update.Upsert, err = boolField("bulkWrite.ops", "upsert", e.Value)
		case e.Key == "arrayFilters" && op.kind == "update":
			a, ok := e.Value.(bson.A)
			if !ok {
				err = document.Errorf(document.CodeTypeMismatch, "BSON field 'bulkWrite.ops.arrayFilters' is the wrong type '%s', expected type 'array'", typeName(e.Value))
			}
			op.update.ArrayFilters = a
		case e.Key == "sort" && op.kind == "update":
			op.sort, err = toDoc("bulkWrite.ops.sort", e.Value)
		case e.Key == "hint" && op.kind != "insert":
			op.update.Hint, op.del.Hint = e.Value, e.Value
		case e.Key == "collation" && op.kind != "insert":
			var c bson.D
			if c, err = collationOption("bulkWrite", e.Value); err == nil {
				op.update.Collation, op.del.Collation = c, c
			}
		default:
			err = document.Errorf(document.CodeIDLUnknownField, "BSON field 'bulkWrite.ops.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return bulkOp{}, err
		}
	}
	switch {
	case op.kind == "insert" && op.doc == nil:
		return bulkOp{}, document.Errorf(document.CodeIDLFailedToParse, "BSON field 'bulkWrite.ops.document' is missing but a required field")
	case op.kind == "update" && op.update.Update == nil && op.update.Pipeline == nil:
		return bulkOp{}, document.Errorf(document.CodeIDLFailedToParse, "BSON field 'bulkWrite.ops.updateMods' is missing but a required field")
	}
	if op.sort != nil && multi {
		return bulkOp{}, document.Errorf(document.CodeFailedToParse, "Cannot specify sort with multi=true")
	}
	op.update.Multi = multi
	if !multi {
		op.del.Limit = 1
	}
	return op, nil
}

// runBulkOp runs one bulkWrite operation; an update's or a delete's
// count comes back in MatchedCount.
func (db *DB) runBulkOp(ctx context.Context, dbName, coll string, op bulkOp) (*UpdateResult, error) {
	if err := db.refuseView(dbName, coll); err != nil {
		return nil, err
	}
	switch op.kind {
	case "insert":
		_, werrs, err := db.insertDocs(ctx, dbName, coll, []any{op.doc}, true)
		if err != nil {
			return nil, err
		}
		if len(werrs) > 0 {
			return nil, werrs[0].Err
		}
		return &UpdateResult{MatchedCount: 1}, nil
	case "update":
		if op.sort == nil {
			return db.updateDocs(ctx, dbName, coll, op.update)
		}
		ps, err := parseSort(op.sort)
		if err != nil {
			return nil, err
		}
		res, _, err := db.updateReturning(ctx, dbName, coll, op.update, ps, false)
		return res, err
	}
	n, err := db.deleteDocs(ctx, dbName, coll, op.del)
	if err != nil {
		return nil, err
	}
	return &UpdateResult{MatchedCount: n}, nil
}
