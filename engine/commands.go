package engine

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/query"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdFunc runs one command. cmd[0] is the command name and its value.
type cmdFunc func(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error)

var commands map[string]cmdFunc

func init() {
	commands = map[string]cmdFunc{
		"ping":             cmdPing,
		"hello":            cmdHello,
		"isMaster":         cmdHello,
		"ismaster":         cmdHello,
		"buildInfo":        cmdBuildInfo,
		"buildinfo":        cmdBuildInfo,
		"create":           cmdCreate,
		"drop":             cmdDrop,
		"dropDatabase":     cmdDropDatabase,
		"listCollections":  cmdListCollections,
		"listDatabases":    cmdListDatabases,
		"insert":           cmdInsert,
		"find":             cmdFind,
		"getMore":          cmdGetMore,
		"killCursors":      cmdKillCursors,
		"count":            cmdCount,
		"distinct":         cmdDistinct,
		"aggregate":        cmdAggregate,
		"update":           cmdUpdate,
		"delete":           cmdDelete,
		"findAndModify":    cmdFindAndModify,
		"findandmodify":    cmdFindAndModify,
		"createIndexes":    cmdCreateIndexes,
		"listIndexes":      cmdListIndexes,
		"dropIndexes":      cmdDropIndexes,
		"deleteIndexes":    cmdDropIndexes,
		"collMod":          cmdCollMod,
		"convertToCapped":  cmdConvertToCapped,
		"renameCollection": cmdRenameCollection,
		"explain":          cmdExplain,
		"serverStatus":     cmdServerStatus,
		"currentOp":        cmdCurrentOp,
		"setParameter":     cmdSetParameter,
		"getParameter":     cmdGetParameter,
		"validate":         cmdValidate,
		"dbStats":          cmdDBStats,
		"collStats":        cmdCollStats,
		"runTTLPass":       cmdRunTTLPass,
		"getCmdLineOpts":   cmdGetCmdLineOpts,
		"endSessions":      cmdPing,
		"getLog":           cmdGetLog,
	}
}

// RunCommand runs a MongoDB database command against database dbName
// and returns its reply. The reply always has "ok"; when the command
// fails it also has errmsg, code and codeName, and the error is
// returned too (an *Error for user mistakes).
func (db *DB) RunCommand(ctx context.Context, dbName string, cmd bson.D) (bson.D, error) {
	reply, err := db.runCommand(ctx, dbName, cmd)
	if err != nil {
		return errorReply(err), err
	}
	return append(reply, bson.E{Key: "ok", Value: 1.0}), nil
}

func (db *DB) runCommand(ctx context.Context, dbName string, cmd bson.D) (bson.D, error) {
	if len(cmd) == 0 {
		return nil, document.Errorf(document.CodeFailedToParse, "empty command document")
	}
	if err := db.checkOpen(); err != nil {
		return nil, err
	}
	if err := validateDBName(dbName); err != nil {
		return nil, err
	}
	f, ok := commands[cmd[0].Key]
	if !ok {
		return nil, document.Errorf(document.CodeCommandNotFound, "no such command: '%s'", cmd[0].Key)
	}
	if v, ok := get(cmd, "maxTimeMS"); ok {
		if ms, isInt := asInt64(v); isInt && ms > 0 && cmd[0].Key != "getMore" {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, time.Duration(ms)*time.Millisecond)
			defer cancel()
		}
	}
	return f(ctx, db, dbName, cmd)
}

// errorReply renders err as {ok: 0, errmsg, code, codeName}.
func errorReply(err error) bson.D {
	var e *Error
	if !errors.As(err, &e) {
		e = &Error{Code: document.CodeInternalError, Message: err.Error()}
	}
	d := bson.D{{Key: "ok", Value: 0.0}, {Key: "errmsg", Value: e.Message},
		{Key: "code", Value: int32(e.Code)}, {Key: "codeName", Value: e.Name()}}
	for _, k := range []string{"keyPattern", "keyValue"} {
		if v, ok := e.Info[k]; ok {
			d = append(d, bson.E{Key: k, Value: v})
		}
	}
	return d
}

// collName returns the collection a command names in its first field.
func collName(cmd bson.D) (string, error) {
	s, ok := cmd[0].Value.(string)
	if !ok {
		return "", document.Errorf(document.CodeInvalidNamespace, "collection name has invalid type %s", typeName(cmd[0].Value))
	}
	return s, nil
}

func cmdPing(context.Context, *DB, string, bson.D) (bson.D, error) { return bson.D{}, nil }

func cmdHello(_ context.Context, db *DB, _ string, _ bson.D) (bson.D, error) {
	return bson.D{
		{Key: "isWritablePrimary", Value: db.opts.Role == RolePrimary},
		{Key: "ismaster", Value: db.opts.Role == RolePrimary},
		{Key: "secondary", Value: db.opts.Role == RoleSecondary},
		{Key: "maxBsonObjectSize", Value: int32(document.MaxDocumentSize)},
		{Key: "maxMessageSizeBytes", Value: int32(48000000)},
		{Key: "maxWriteBatchSize", Value: int32(100000)},
		{Key: "localTime", Value: db.now()},
		{Key: "minWireVersion", Value: int32(0)}, {Key: "maxWireVersion", Value: int32(21)},
		{Key: "readOnly", Value: db.opts.Role == RoleReadOnly},
	}, nil
}

// Version is ttlkv's version, reported by buildInfo and `ttlkv version`.
const Version = "0.1.0"

func cmdBuildInfo(context.Context, *DB, string, bson.D) (bson.D, error) {
	return bson.D{{Key: "version", Value: Version}, {Key: "gitVersion", Value: "ttlkv"},
		{Key: "versionArray", Value: bson.A{int32(0), int32(1), int32(0), int32(0)}},
		{Key: "storageEngines", Value: bson.A{"badger"}}, {Key: "maxBsonObjectSize", Value: int32(document.MaxDocumentSize)}}, nil
}

func cmdCreate(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	opts := cmd[1:]
	if opts == nil {
		opts = bson.D{}
	}
	_, _, err = db.createColl(dbName, name, opts)
	return bson.D{}, err
}

func cmdDrop(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	if err := validateCollName(dbName, name, true); err != nil {
		return nil, err
	}
	c := db.lookup(dbName, name)
	var nIndexes int32
	if c != nil {
		nIndexes = int32(len(c.m().Indexes))
	}
	if _, err := db.dropColl(dbName, name); err != nil {
		return nil, err
	}
	return bson.D{{Key: "nIndexesWas", Value: nIndexes}, {Key: "ns", Value: dbName + "." + name}}, nil
}

func cmdDropDatabase(_ context.Context, db *DB, dbName string, _ bson.D) (bson.D, error) {
	return bson.D{{Key: "dropped", Value: dbName}}, db.dropDatabase(dbName)
}

func cmdListCollections(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	var filter bson.D
	if v, ok := get(cmd, "filter"); ok {
		var err error
		if filter, err = toDoc("listCollections.filter", v); err != nil {
			return nil, err
		}
	}
	nameOnly, _ := get(cmd, "nameOnly")
	only, _ := asBool(nameOnly)
	var docs []bson.D
	for _, c := range db.collsOf(dbName) {
		m := c.m()
		if isInternalName(m.Name) {
			continue
		}
		d := db.collectionInfo(c)
		if only {
			d = bson.D{{Key: "name", Value: m.Name}, {Key: "type", Value: typeOfColl(m)}}
		}
		docs = append(docs, d)
	}
	docs, err := filterDocs(docs, filter)
	if err != nil {
		return nil, err
	}
	return cursorReply(0, dbName+".$cmd.listCollections", "firstBatch", docs), nil
}

func typeOfColl(m *collMeta) string {
	if m.Kind == kindTimeseries {
		return "timeseries"
	}
	return "collection"
}

// collectionInfo renders a collection as listCollections shows it.
func (db *DB) collectionInfo(c *coll) bson.D {
	m := c.m()
	opts := m.Options
	if opts == nil {
		opts = bson.D{}
	}
	if m.Kind == kindCapped {
		opts = listedCappedOptions(opts)
	}
	d := bson.D{{Key: "name", Value: m.Name}, {Key: "type", Value: typeOfColl(m)}, {Key: "options", Value: opts},
		{Key: "info", Value: bson.D{{Key: "readOnly", Value: db.opts.Role == RoleReadOnly}}}}
	if m.Kind != kindTimeseries && !m.Clustered {
		// A clustered collection's _id index is its clusteredIndex.
		d = append(d, bson.E{Key: "idIndex", Value: listIndexEntry(idIndex())})
	}
	return d
}

// listedCappedOptions types a capped collection's size and max as
// MongoDB lists them: CollectionOptions::appendBSON appends both with
// appendNumber (src/mongo/db/catalog/collection_options.cpp), so small
// values are int32. The catalog keeps its own int64s.
func listedCappedOptions(opts bson.D) bson.D {
	out := make(bson.D, len(opts))
	for i, e := range opts {
		if n, ok := e.Value.(int64); ok && (e.Key == "size" || e.Key == "max") {
			e.Value = int32OrLong(n)
		}
		out[i] = e
	}
	return out
}

func cmdListDatabases(_ context.Context, db *DB, _ string, cmd bson.D) (bson.D, error) {
	var out bson.A
	var total int64
	for _, name := range db.DatabaseNames() {
		size := db.databaseSize(name)
		total += size
		out = append(out, bson.D{{Key: "name", Value: name}, {Key: "sizeOnDisk", Value: size}, {Key: "empty", Value: false}})
	}
	if out == nil {
		out = bson.A{}
	}
	return bson.D{{Key: "databases", Value: out}, {Key: "totalSize", Value: total}}, nil
}

func cursorReply(id int64, ns, batchName string, docs []bson.D) bson.D {
	arr := make(bson.A, len(docs))
	for i, d := range docs {
		arr[i] = d
	}
	return bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: id}, {Key: "ns", Value: ns}, {Key: batchName, Value: arr}}}}
}

// filterDocs keeps the documents matching filter.
func filterDocs(docs []bson.D, filter bson.D) ([]bson.D, error) {
	if len(filter) == 0 {
		return docs, nil
	}
	f, err := parseFilter(filter)
	if err != nil {
		return nil, err
	}
	var out []bson.D
	for _, d := range docs {
		ok, err := f.MatchErr(d)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, d)
		}
	}
	return out, nil
}

func cmdInsert(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	dv, ok := get(cmd, "documents")
	if !ok {
		return nil, document.Errorf(document.CodeFailedToParse, "BSON field 'insert.documents' is missing but a required field")
	}
	arr, ok := dv.(bson.A)
	if !ok {
		return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'insert.documents' is the wrong type '%s', expected type 'array'", typeName(dv))
	}
	ordered := true
	if v, ok := get(cmd, "ordered"); ok {
		ordered, _ = asBool(v)
	}
	docs := make([]any, len(arr))
	for i, v := range arr {
		if _, isDoc := v.(bson.D); !isDoc {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'insert.documents.%d' is the wrong type '%s', expected type 'object'", i, typeName(v))
		}
		docs[i] = v
	}
	if err := validateCollName(dbName, name, false); err != nil {
		return nil, err
	}
	_, werrs, err := db.insertDocs(ctx, dbName, name, docs, ordered)
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

func appendWriteErrors(reply bson.D, werrs []WriteError) bson.D {
	if len(werrs) == 0 {
		return reply
	}
	arr := bson.A{}
	for _, we := range werrs {
		d := bson.D{{Key: "index", Value: int32(we.Index)}, {Key: "code", Value: int32(we.Err.Code)},
			{Key: "codeName", Value: we.Err.Name()}, {Key: "errmsg", Value: we.Err.Message}}
		for _, k := range []string{"keyPattern", "keyValue"} {
			if v, ok := we.Err.Info[k]; ok {
				d = append(d, bson.E{Key: k, Value: v})
			}
		}
		arr = append(arr, d)
	}
	return append(reply, bson.E{Key: "writeErrors", Value: arr})
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
		case "limit":
			o.Limit, err = intOpt("find.limit", e.Value)
			if err == nil && o.Limit < 0 {
				err = document.Errorf(document.CodeBadValue, "Limit value must be non-negative, but received: %d", o.Limit)
			}
		case "batchSize":
			var n int64
			n, err = intOpt("find.batchSize", e.Value)
			if err == nil && n < 0 {
				err = document.Errorf(document.CodeBadValue, "BatchSize value must be non-negative, but received: %d", n)
			}
			o.BatchSize = int32(n)
			if n == 0 {
				o.BatchSize = -1 // explicit zero: empty first batch
			}
		case "singleBatch":
			singleBatch, _ = asBool(e.Value)
		case "hint":
			o.Hint = e.Value
		case "tailable":
			o.Tailable, _ = asBool(e.Value)
		case "awaitData":
			o.AwaitData, _ = asBool(e.Value)
		case "maxTimeMS", "comment", "readConcern", "lsid", "$db", "noCursorTimeout", "allowPartialResults",
			"collation", "let", "returnKey", "showRecordId", "min", "max", "allowDiskUse", "readPreference", "$readPreference":
		default:
			err = document.Errorf(document.CodeIDLUnknownField, "BSON field 'find.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return nil, o, err
		}
	}
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

func intOpt(field string, v any) (int64, error) {
	n, ok := asInt64(v)
	if !ok {
		return 0, document.Errorf(document.CodeTypeMismatch, "BSON field '%s' is the wrong type '%s', expected types '[long, int, decimal, double]'", field, typeName(v))
	}
	return n, nil
}

const defaultFirstBatch = 101

func cmdFind(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	filter, o, err := parseFindOptions(cmd)
	if err != nil {
		return nil, err
	}
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
	var docs []bson.D
	cur := &serverCursor{ns: ns, c: c, q: q}
	if o.Tailable {
		cur.tail = newTailState(c, q, o)
		docs, err = cur.tail.next(ctx, n, false)
	} else if n > 0 {
		docs, err = q.nextBatch(ctx, n)
	}
	if err != nil {
		return nil, err
	}
	var id int64
	keepOpen := (o.Tailable && cur.tail.keepOpen()) || (!o.Tailable && !q.done && o.Limit >= 0)
	if keepOpen {
		id = db.cursors.add(cur)
	}
	return cursorReply(id, ns, "firstBatch", docs), nil
}

func cmdGetMore(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	id, ok := cmd[0].Value.(int64)
	if !ok {
		return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'getMore.getMore' is the wrong type '%s', expected type 'long'", typeName(cmd[0].Value))
	}
	cv, _ := get(cmd, "collection")
	name, ok := cv.(string)
	if !ok {
		return nil, document.Errorf(document.CodeFailedToParse, "BSON field 'getMore.collection' is missing but a required field")
	}
	n := 0
	if v, ok := get(cmd, "batchSize"); ok {
		b, err := intOpt("getMore.batchSize", v)
		if err != nil {
			return nil, err
		}
		n = int(b)
	}
	cur := db.cursors.get(id)
	if cur == nil || cur.ns != dbName+"."+name {
		return nil, document.Errorf(document.CodeCursorNotFound, "cursor id %d not found", id)
	}
	cur.mu.Lock()
	defer cur.mu.Unlock()
	if k := cur.killed.Load(); k != nil {
		db.cursors.remove(id)
		return nil, k
	}
	if cur.stream != nil {
		return db.changeStreamGetMore(ctx, cur, cmd, n)
	}
	var docs []bson.D
	var err error
	if cur.tail != nil {
		if v, ok := get(cmd, "maxTimeMS"); ok {
			if ms, isInt := asInt64(v); isInt && ms > 0 {
				cur.tail.maxAwait = time.Duration(ms) * time.Millisecond
			}
		}
		docs, err = cur.tail.next(ctx, n, true)
		if err == nil && !cur.tail.keepOpen() {
			db.cursors.remove(id)
			id = 0
		}
	} else {
		docs, err = cur.q.nextBatch(ctx, n)
		if err == nil && cur.q.done {
			db.cursors.remove(id)
			id = 0
		}
	}
	if err != nil {
		db.cursors.remove(id)
		return nil, err
	}
	if k := cur.killed.Load(); k != nil {
		db.cursors.remove(id)
		return nil, k
	}
	return cursorReply(id, cur.ns, "nextBatch", docs), nil
}

func cmdKillCursors(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	v, _ := get(cmd, "cursors")
	arr, ok := v.(bson.A)
	if !ok {
		return nil, document.Errorf(document.CodeFailedToParse, "BSON field 'killCursors.cursors' is missing but a required field")
	}
	killed, notFound := bson.A{}, bson.A{}
	for _, x := range arr {
		id, _ := x.(int64)
		if db.cursors.remove(id) {
			killed = append(killed, id)
		} else {
			notFound = append(notFound, id)
		}
	}
	return bson.D{{Key: "cursorsKilled", Value: killed}, {Key: "cursorsNotFound", Value: notFound},
		{Key: "cursorsAlive", Value: bson.A{}}, {Key: "cursorsUnknown", Value: bson.A{}}}, nil
}

func cmdCount(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	var filter bson.D
	var skip, limit int64
	var hint any
	for _, e := range cmd[1:] {
		switch e.Key {
		case "query":
			filter, err = toDoc("count.query", e.Value)
		case "skip":
			skip, err = intOpt("count.skip", e.Value)
		case "limit":
			limit, err = intOpt("count.limit", e.Value)
			if limit < 0 {
				limit = -limit
			}
		case "hint":
			hint = e.Value
		}
		if err != nil {
			return nil, err
		}
	}
	n, err := db.count(ctx, dbName, name, filter, skip, limit, hint)
	if err != nil {
		return nil, err
	}
	return bson.D{{Key: "n", Value: int32OrLong(n)}}, nil
}

func statements(cmd bson.D, field string) (bson.A, error) {
	v, ok := get(cmd, field)
	if !ok {
		return nil, document.Errorf(document.CodeFailedToParse, "BSON field '%s.%s' is missing but a required field", cmd[0].Key, field)
	}
	arr, ok := v.(bson.A)
	if !ok {
		return nil, document.Errorf(document.CodeTypeMismatch, "BSON field '%s.%s' is the wrong type '%s', expected type 'array'", cmd[0].Key, field, typeName(v))
	}
	return arr, nil
}

func cmdUpdate(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	stmts, err := statements(cmd, "updates")
	if err != nil {
		return nil, err
	}
	ordered := true
	if v, ok := get(cmd, "ordered"); ok {
		ordered, _ = asBool(v)
	}
	var n, nModified int64
	var upserted bson.A
	var werrs []WriteError
	for i, sv := range stmts {
		s, err := parseUpdateStmt(sv)
		var res *UpdateResult
		if err == nil {
			res, err = db.updateDocs(ctx, dbName, name, s)
		}
		if err != nil {
			ue, ok := asUserError(err)
			if !ok {
				return nil, err
			}
			werrs = append(werrs, WriteError{Index: i, Err: ue})
			if ordered {
				break
			}
			continue
		}
		n += res.MatchedCount + res.UpsertedCount
		nModified += res.ModifiedCount
		if res.UpsertedCount > 0 {
			upserted = append(upserted, bson.D{{Key: "index", Value: int32(i)}, {Key: "_id", Value: res.UpsertedID}})
		}
	}
	db.stats.updated.Add(nModified)
	reply := bson.D{{Key: "n", Value: int32OrLong(n)}, {Key: "nModified", Value: int32OrLong(nModified)}}
	if len(upserted) > 0 {
		reply = append(reply, bson.E{Key: "upserted", Value: upserted})
	}
	return appendWriteErrors(reply, werrs), nil
}

func parseUpdateStmt(v any) (UpdateSpec, error) {
	var s UpdateSpec
	d, ok := v.(bson.D)
	if !ok {
		return s, document.Errorf(document.CodeTypeMismatch, "update statement must be an object, not %s", typeName(v))
	}
	for _, e := range d {
		var err error
		switch e.Key {
		case "q":
			s.Filter, err = toDoc("update.updates.q", e.Value)
		case "u":
			switch u := e.Value.(type) {
			case bson.D:
				s.Update = u
			case bson.A:
				s.Pipeline = u
			default:
				err = document.Errorf(document.CodeTypeMismatch, "BSON field 'update.updates.u' is the wrong type '%s', expected type 'object'", typeName(e.Value))
			}
		case "multi":
			s.Multi, _ = asBool(e.Value)
		case "upsert":
			s.Upsert, _ = asBool(e.Value)
		case "hint":
			s.Hint = e.Value
		case "arrayFilters":
			s.ArrayFilters, _ = e.Value.(bson.A)
		case "collation", "c", "sort":
		default:
			err = document.Errorf(document.CodeIDLUnknownField, "BSON field 'update.updates.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return s, err
		}
	}
	if s.Update == nil && s.Pipeline == nil {
		return s, document.Errorf(document.CodeFailedToParse, "BSON field 'update.updates.u' is missing but a required field")
	}
	if s.Filter == nil {
		s.Filter = bson.D{}
	}
	return s, nil
}

func cmdDelete(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	stmts, err := statements(cmd, "deletes")
	if err != nil {
		return nil, err
	}
	ordered := true
	if v, ok := get(cmd, "ordered"); ok {
		ordered, _ = asBool(v)
	}
	// Statements are parsed before any runs: a malformed one (limit 2,
	// a missing q) fails the whole command, as MongoDB's parser does.
	specs := make([]DeleteSpec, len(stmts))
	for i, sv := range stmts {
		s, err := parseDeleteStmt(sv)
		if err != nil {
			return nil, err
		}
		if s.Limit != 0 && s.Limit != 1 {
			return nil, document.Errorf(document.CodeFailedToParse, "The limit field in delete objects must be 0 or 1. Got %d", s.Limit)
		}
		specs[i] = s
	}
	var n int64
	var werrs []WriteError
	for i, s := range specs {
		k, err := db.deleteDocs(ctx, dbName, name, s)
		if err != nil {
			ue, ok := asUserError(err)
			if !ok {
				return nil, err
			}
			werrs = append(werrs, WriteError{Index: i, Err: ue})
			if ordered {
				break
			}
			continue
		}
		n += k
	}
	db.stats.deleted.Add(n)
	return appendWriteErrors(bson.D{{Key: "n", Value: int32OrLong(n)}}, werrs), nil
}

func parseDeleteStmt(v any) (DeleteSpec, error) {
	var s DeleteSpec
	d, ok := v.(bson.D)
	if !ok {
		return s, document.Errorf(document.CodeTypeMismatch, "delete statement must be an object, not %s", typeName(v))
	}
	hasLimit := false
	for _, e := range d {
		var err error
		switch e.Key {
		case "q":
			s.Filter, err = toDoc("delete.deletes.q", e.Value)
		case "limit":
			hasLimit = true
			s.Limit, err = intOpt("delete.deletes.limit", e.Value)
		case "hint":
			s.Hint = e.Value
		case "collation":
		default:
			err = document.Errorf(document.CodeIDLUnknownField, "BSON field 'delete.deletes.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return s, err
		}
	}
	if s.Filter == nil {
		return s, document.Errorf(document.CodeFailedToParse, "BSON field 'delete.deletes.q' is missing but a required field")
	}
	if !hasLimit {
		return s, document.Errorf(document.CodeFailedToParse, "BSON field 'delete.deletes.limit' is missing but a required field")
	}
	return s, nil
}

func cmdFindAndModify(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	var s UpdateSpec
	var sortD bson.D
	var remove, returnNew bool
	var fields bson.D
	for _, e := range cmd[1:] {
		switch e.Key {
		case "query":
			s.Filter, err = toDoc("findAndModify.query", e.Value)
		case "sort":
			sortD, err = toDoc("findAndModify.sort", e.Value)
		case "update":
			var ok bool
			if s.Update, s.Pipeline, ok = updateArg(e.Value); !ok {
				err = document.Errorf(document.CodeFailedToParse, "Update argument must be either an object or an array")
			}
		case "remove":
			remove, _ = asBool(e.Value)
		case "new":
			returnNew, _ = asBool(e.Value)
		case "upsert":
			s.Upsert, _ = asBool(e.Value)
		case "fields":
			fields, err = toDoc("findAndModify.fields", e.Value)
		}
		if err != nil {
			return nil, err
		}
	}
	if s.Filter == nil {
		s.Filter = bson.D{}
	}
	if remove == (s.Update != nil || s.Pipeline != nil) {
		return nil, document.Errorf(document.CodeFailedToParse, "Either an update or remove=true must be specified")
	}
	if remove {
		d, err := db.findOneAndDelete(ctx, dbName, name, s.Filter, sortD)
		if err != nil {
			return nil, err
		}
		var v any
		n := int32(0)
		if d != nil {
			v, n = projectOne(d, fields), 1
		}
		return bson.D{{Key: "lastErrorObject", Value: bson.D{{Key: "n", Value: n}}}, {Key: "value", Value: v}}, nil
	}
	srt := sortD
	if srt == nil {
		srt = bson.D{{Key: "$natural", Value: int32(1)}}
	}
	ps, err := parseSort(srt)
	if err != nil {
		return nil, err
	}
	res, d, err := db.updateReturning(ctx, dbName, name, s, ps, returnNew)
	if err != nil {
		return nil, err
	}
	var v any
	if d != nil {
		v = projectOne(d, fields)
	}
	leo := bson.D{{Key: "n", Value: int32(res.MatchedCount + res.UpsertedCount)},
		{Key: "updatedExisting", Value: res.MatchedCount > 0}}
	if res.UpsertedCount > 0 {
		leo = append(leo, bson.E{Key: "upserted", Value: res.UpsertedID})
	}
	return bson.D{{Key: "lastErrorObject", Value: leo}, {Key: "value", Value: v}}, nil
}

func projectOne(d bson.D, fields bson.D) bson.D {
	if len(fields) == 0 {
		return d
	}
	p, err := parseProjection(fields)
	if err != nil {
		return d
	}
	return p.Apply(d)
}

func cmdCreateIndexes(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	v, ok := get(cmd, "indexes")
	if !ok {
		return nil, document.Errorf(document.CodeFailedToParse, "BSON field 'createIndexes.indexes' is missing but a required field")
	}
	arr, ok := v.(bson.A)
	if !ok {
		return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'createIndexes.indexes' is the wrong type '%s', expected type 'array'", typeName(v))
	}
	specs := make([]bson.D, len(arr))
	for i, s := range arr {
		d, ok := s.(bson.D)
		if !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "index specification must be an object, not %s", typeName(s))
		}
		specs[i] = d
	}
	res, err := db.createIndexes(ctx, dbName, name, specs)
	if err != nil {
		return nil, err
	}
	reply := bson.D{{Key: "numIndexesBefore", Value: int32(res.NumIndexesBefore)},
		{Key: "numIndexesAfter", Value: int32(res.NumIndexesAfter)},
		{Key: "createdCollectionAutomatically", Value: res.CreatedCollectionAutomatically}}
	if res.Note != "" {
		reply = append(reply, bson.E{Key: "note", Value: res.Note})
	}
	return reply, nil
}

func cmdListIndexes(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	c := db.lookup(dbName, name)
	if c == nil {
		return nil, document.Errorf(document.CodeNamespaceNotFound, "ns does not exist: %s.%s", dbName, name)
	}
	return cursorReply(0, dbName+"."+name, "firstBatch", db.listIndexes(c)), nil
}

func cmdDropIndexes(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	v, ok := get(cmd, "index")
	if !ok {
		return nil, document.Errorf(document.CodeFailedToParse, "BSON field 'dropIndexes.index' is missing but a required field")
	}
	was, err := db.dropIndexes(dbName, name, v)
	if err != nil {
		return nil, err
	}
	return bson.D{{Key: "nIndexesWas", Value: int32(was)}}, nil
}

func cmdServerStatus(_ context.Context, db *DB, _ string, _ bson.D) (bson.D, error) {
	s := db.Stats()
	lsmB, vlogB := db.store.DiskUsage()
	return bson.D{
		{Key: "host", Value: "ttlkv"}, {Key: "version", Value: Version}, {Key: "process", Value: "ttlkv"},
		{Key: "localTime", Value: db.now()},
		{Key: "opcounters", Value: bson.D{{Key: "insert", Value: s.Inserted}, {Key: "query", Value: s.Queried},
			{Key: "update", Value: s.Updated}, {Key: "delete", Value: s.Deleted}}},
		{Key: "metrics", Value: bson.D{{Key: "ttl", Value: bson.D{
			{Key: "deletedDocuments", Value: s.TTLDeletedDocuments},
			{Key: "passes", Value: s.TTLPasses},
			{Key: "subPasses", Value: s.TTLSubPasses}}}}},
		{Key: "batchedDeletes", Value: bson.D{
			{Key: "batches", Value: s.BatchedDeleteBatches}, {Key: "docs", Value: s.BatchedDeleteDocs},
			{Key: "stagedSizeBytes", Value: s.BatchedDeleteStagedBytes},
			{Key: "timeInBatchMillis", Value: s.BatchedDeleteTimeMillis},
			{Key: "refetchesDueToYield", Value: db.stats.bdRefetches.Load()}}},
		{Key: "storageEngine", Value: bson.D{{Key: "name", Value: "badger"}, {Key: "lsmBytes", Value: lsmB},
			{Key: "vlogBytes", Value: vlogB}, {Key: "persistent", Value: !db.opts.InMemory}}},
	}, nil
}

// cmdCurrentOp lists the running operations. As in MongoDB, the
// command's other fields ({currentOp: 1, desc: "TTLMonitor"}) are a
// filter the operations must match; $all and $ownOps are options.
func cmdCurrentOp(_ context.Context, db *DB, _ string, cmd bson.D) (bson.D, error) {
	var filter bson.D
	for _, e := range cmd[1:] {
		switch {
		case e.Key == "$all", e.Key == "$ownOps", e.Key == "$truncateOps", isGenericField(e.Key):
		default:
			filter = append(filter, e)
		}
	}
	f, err := query.ParseFilter(filter)
	if err != nil {
		return nil, err
	}
	ops := bson.A{}
	for _, op := range db.ops.list() {
		if f.Match(op.(bson.D)) {
			ops = append(ops, op)
		}
	}
	return bson.D{{Key: "inprog", Value: ops}}, nil
}

func cmdSetParameter(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	if dbName != "admin" {
		return nil, document.Errorf(document.CodeUnauthorized, "setParameter may only be run against the admin database.")
	}
	reply := bson.D{}
	// Validate every parameter first so an invalid one changes nothing.
	for _, e := range cmd[1:] {
		if isGenericField(e.Key) {
			continue
		}
		if _, err := parseParam(e.Key, e.Value); err != nil {
			return nil, err
		}
	}
	n := 0
	for _, e := range cmd[1:] {
		if isGenericField(e.Key) {
			continue
		}
		old, err := db.SetParameter(e.Key, e.Value)
		if err != nil {
			return nil, err
		}
		reply = append(reply, bson.E{Key: "was", Value: old})
		n++
	}
	if n == 0 {
		return nil, document.Errorf(document.CodeInvalidOptions, "no option found to set, use help:true to see options")
	}
	return reply, nil
}

func isGenericField(k string) bool {
	switch k {
	case "comment", "lsid", "$db", "writeConcern", "apiVersion", "apiStrict", "$readPreference":
		return true
	}
	return false
}

func cmdGetParameter(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	if dbName != "admin" {
		return nil, document.Errorf(document.CodeUnauthorized, "getParameter may only be run against the admin database.")
	}
	if s, ok := cmd[0].Value.(string); ok && s == "*" {
		return paramsDoc(db, true, nil), nil
	}
	var want []string
	for _, e := range cmd[1:] {
		if !isGenericField(e.Key) {
			want = append(want, e.Key)
		}
	}
	for _, w := range want {
		if _, err := db.GetParameter(w); err != nil {
			return nil, err
		}
	}
	if len(want) == 0 {
		return nil, document.Errorf(document.CodeInvalidOptions, "no option found to get")
	}
	return paramsDoc(db, false, want), nil
}

func cmdGetCmdLineOpts(_ context.Context, db *DB, _ string, _ bson.D) (bson.D, error) {
	return bson.D{{Key: "argv", Value: bson.A{"ttlkv"}}, {Key: "parsed", Value: bson.D{{Key: "storage", Value: bson.D{{Key: "dbPath", Value: db.dir}}}}}}, nil
}

func cmdGetLog(context.Context, *DB, string, bson.D) (bson.D, error) {
	return bson.D{{Key: "totalLinesWritten", Value: int32(0)}, {Key: "log", Value: bson.A{}}}, nil
}

func cmdRunTTLPass(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	if dbName != "admin" {
		return nil, document.Errorf(document.CodeUnauthorized, "runTTLPass may only be run against the admin database.")
	}
	res, err := db.RunTTLPass(ctx)
	if err != nil {
		return nil, err
	}
	return res.Reply(), nil
}

// Reply is r in the shape of the runTTLPass command's reply:
// {deleted, subPasses, indexes: [{ns, index, deleted}]}.
func (r *TTLPassResult) Reply() bson.D {
	per := bson.A{}
	for _, ir := range r.Indexes {
		per = append(per, bson.D{{Key: "ns", Value: ir.Namespace}, {Key: "index", Value: ir.Index}, {Key: "deleted", Value: ir.Deleted}})
	}
	return bson.D{{Key: "deleted", Value: r.Deleted}, {Key: "subPasses", Value: int32(r.SubPasses)}, {Key: "indexes", Value: per}}
}

func hasPrefixDollar(s string) bool { return strings.HasPrefix(s, "$") }
