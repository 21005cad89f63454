package engine

import (
	"context"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/changestream"
	"github.com/ttlkv/ttlkv/document"
)

// The command form of change streams: aggregate with a leading
// $changeStream stage opens a server cursor over a changestream.Stream,
// and getMore on it waits for events like a tailable awaitData cursor
// (docs/change-streams.md).

// defaultChangeStreamAwait is how long a getMore on a change stream
// waits for an event when the command gives no maxTimeMS (MongoDB's
// awaitData default).
const defaultChangeStreamAwait = time.Second

// leadingStage looks in aggregate command cmd's pipeline for the stage
// name, one that must come first (MongoDB's 40602 otherwise): found
// reports whether the pipeline holds it, and pipe is the pipeline.
func leadingStage(cmd bson.D, name string) (pipe bson.A, found bool, err error) {
	pv, _ := get(cmd, "pipeline")
	pipe, isArr := pv.(bson.A)
	if !isArr {
		return nil, false, nil
	}
	for i, st := range pipe {
		if d, isDoc := st.(bson.D); isDoc && len(d) > 0 && d[0].Key == name {
			if i > 0 {
				return nil, true, document.Errorf(document.Code(40602), "%s is only valid as the first stage in a pipeline", name)
			}
			return pipe, true, nil
		}
	}
	return nil, false, nil
}

// changeStreamAggregate runs aggregate when its pipeline holds a
// $changeStream stage; ok is false (and the reply nil) otherwise.
func (db *DB) changeStreamAggregate(ctx context.Context, dbName string, cmd bson.D) (reply bson.D, ok bool, err error) {
	pipe, found, err := leadingStage(cmd, "$changeStream")
	if !found || err != nil {
		return nil, found, err
	}
	o, all, err := changestream.ParseStage(pipe[0].(bson.D)[0].Value)
	if err != nil {
		return nil, true, err
	}
	rest := make([]bson.D, 0, len(pipe)-1)
	for _, st := range pipe[1:] {
		d, isDoc := st.(bson.D)
		if !isDoc {
			return nil, true, document.Errorf(document.CodeTypeMismatch, "each element of the 'pipeline' array must be an object")
		}
		rest = append(rest, d)
	}
	scope := changestream.Scope{DB: dbName}
	ns := dbName + ".$cmd.aggregate"
	switch name := cmd[0].Value.(type) {
	case string:
		if err := validateCollName(dbName, name, true); err != nil {
			return nil, true, err
		}
		if c := db.lookup(dbName, name); c != nil && c.m().Kind == catalog.KindView {
			return nil, true, errView(c.m()) // a view has no changes of its own, as in mongod
		}
		scope.Coll, ns = name, dbName+"."+name
	default:
		if v, isNum := asInt64(name); !isNum || v != 1 {
			return nil, true, document.Errorf(document.CodeFailedToParse, "Invalid command format: the 'aggregate' field must specify a collection name or 1")
		}
	}
	// Where a stream may be opened, as mongod's
	// assertIsLegalSpecification says: the whole cluster from admin
	// only; no stream on the internal databases or on a system
	// collection.
	switch {
	case all && (dbName != "admin" || scope.Coll != ""):
		return nil, true, document.Errorf(document.CodeInvalidOptions, "A $changeStream with 'allChangesForCluster:true' may only be opened on the 'admin' database, and with no collection name; found %s", ns)
	case all:
		scope.DB = ""
	case dbName == "admin" || dbName == "config" || dbName == "local":
		return nil, true, document.Errorf(document.CodeInvalidNamespace, "$changeStream may not be opened on the internal %s database", dbName)
	case strings.HasPrefix(scope.Coll, "system."):
		return nil, true, document.Errorf(document.CodeInvalidNamespace, "$changeStream may not be opened on the internal %s collection", ns)
	}
	n := int64(defaultFirstBatch)
	if cv, has := get(cmd, "cursor"); has {
		cd, isDoc := cv.(bson.D)
		if !isDoc {
			return nil, true, document.Errorf(document.CodeTypeMismatch, "BSON field 'aggregate.cursor' is the wrong type '%s', expected type 'object'", typeName(cv))
		}
		if v, has := get(cd, "batchSize"); has {
			if n, err = intOpt("aggregate.cursor.batchSize", v); err != nil {
				return nil, true, err
			}
			if n < 0 {
				return nil, true, negativeBatchSize(n)
			}
		}
	} else {
		return nil, true, document.Errorf(document.CodeFailedToParse, "The 'cursor' option is required, except for aggregate with the explain argument")
	}
	if cv, has := get(cmd, "collation"); has {
		// The stream's $match compares with the command's collation
		// only, never the collection's, as mongod's.
		cd, err := collationOption("aggregate", cv)
		if err != nil {
			return nil, true, err
		}
		if o.Collation, err = catalog.ParseCollation(cd); err != nil {
			return nil, true, err
		}
	}
	st, err := db.watch(scope, rest, o)
	if err != nil {
		return nil, true, err
	}
	var docs []bson.D
	if n > 0 { // batchSize 0: an empty first batch, as mongod's
		if docs, err = st.NextBatch(ctx, int(n), 0); err != nil {
			return nil, true, err
		}
	}
	var id int64
	if !st.Ended() {
		id = db.cursors.add(&serverCursor{ns: ns, stream: st})
	}
	return changeStreamReply(id, ns, "firstBatch", docs, st), true, nil
}

// changeStreamGetMore is getMore on a change stream cursor: it waits up
// to maxTimeMS (default one second) for the first event.
func (db *DB) changeStreamGetMore(ctx context.Context, cur *serverCursor, cmd bson.D, n int) (bson.D, error) {
	docs, err := cur.stream.NextBatch(ctx, n, changeStreamAwait(cmd))
	if err != nil {
		db.cursors.remove(cur.id)
		return nil, err
	}
	id := cur.id
	if cur.stream.Ended() {
		db.cursors.remove(id)
		id = 0
	}
	return changeStreamReply(id, cur.ns, "nextBatch", docs, cur.stream), nil
}

// changeStreamAwait is how long getMore command cmd waits for a change
// stream's first event: its maxTimeMS (0: not at all), or a second when
// it has none, as mongod's awaitData getMore
// (cmd.getMaxTimeMS().value_or(1000)).
func changeStreamAwait(cmd bson.D) time.Duration {
	if v, ok := get(cmd, "maxTimeMS"); ok {
		if ms, isInt := asInt64(v); isInt && ms >= 0 {
			return time.Duration(ms) * time.Millisecond
		}
	}
	return defaultChangeStreamAwait
}

// changeStreamReply is a cursor reply with the postBatchResumeToken
// MongoDB adds to change stream batches.
func changeStreamReply(id int64, ns, batchName string, docs []bson.D, st *changestream.Stream) bson.D {
	arr := make(bson.A, len(docs))
	for i, d := range docs {
		arr[i] = d
	}
	return bson.D{{Key: "cursor", Value: bson.D{
		{Key: batchName, Value: arr},
		{Key: "postBatchResumeToken", Value: st.ResumeToken()},
		{Key: "id", Value: id},
		{Key: "ns", Value: ns},
	}}}
}
