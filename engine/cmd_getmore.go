package engine

import (
	"context"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdGetMore runs the getMore command.
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
	if err := strictFields(cmd, "collection", "batchSize", "term", "lastKnownCommittedOpTime", "includeQueryStatsMetrics"); err != nil {
		return nil, err
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
	if _, has := get(cmd, "maxTimeMS"); has && (cur.tail == nil || !cur.tail.await) {
		return nil, document.Errorf(document.CodeBadValue, "cannot set maxTimeMS on getMore command for a non-awaitData cursor")
	}
	var batch bson.A
	var err error
	if cur.tail != nil {
		// Each getMore waits for its own maxTimeMS, a second without
		// one, as mongod's do: an earlier getMore's does not carry over,
		// and 0 is no wait (mongod's deadline is now plus maxTimeMS).
		cur.tail.maxAwait = cur.tail.defaultAwait
		if v, ok := get(cmd, "maxTimeMS"); ok {
			if ms, isInt := asInt64(v); isInt && ms >= 0 {
				cur.tail.maxAwait = time.Duration(ms) * time.Millisecond
			}
		}
		var docs []bson.D
		docs, err = cur.tail.next(ctx, n, true)
		batch = docArray(docs)
		if err == nil && !cur.tail.keepOpen() {
			db.cursors.remove(id)
			id = 0
		}
	} else {
		batch, err = nextBatchUpTo(ctx, cur.q, n, rawBatches(ctx))
		if err == nil && cur.q.done {
			db.cursors.remove(id)
			id = 0
		}
	}
	if err != nil {
		db.cursors.remove(id)
		return nil, executorError("getMore", err)
	}
	if k := cur.killed.Load(); k != nil {
		db.cursors.remove(id)
		return nil, k
	}
	return cursorReplyArray(id, cur.ns, "nextBatch", batch), nil
}

// cmdKillCursors runs the killCursors command.
func cmdKillCursors(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	v, _ := get(cmd, "cursors")
	arr, ok := v.(bson.A)
	if !ok {
		return nil, document.Errorf(document.CodeFailedToParse, "BSON field 'killCursors.cursors' is missing but a required field")
	}
	if err := strictFields(cmd, "cursors"); err != nil {
		return nil, err
	}
	for i, x := range arr {
		if _, ok := x.(int64); !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'killCursors.cursors.%d' is the wrong type '%s', expected type 'long'", i, typeName(x))
		}
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

// getMoreBatchBytes is where a getMore without batchSize ends its batch:
// MongoDB fills such a batch up to the 16 MiB reply limit rather than
// returning everything the cursor has left (docs/commands.md).
const getMoreBatchBytes = document.MaxDocumentSize

// nextBatchUpTo returns q's next n documents, or with n 0 as many as fit
// in getMoreBatchBytes (at least one), so that following a cursor of any
// size holds one batch at a time. With raw set they may be bson.Raw
// (queryExec.nextBatchArray).
func nextBatchUpTo(ctx context.Context, q *queryExec, n int, raw bool) (bson.A, error) {
	if n > 0 {
		return q.nextBatchArray(ctx, n, raw, 0)
	}
	return q.nextBatchArray(ctx, 0, raw, getMoreBatchBytes)
}
