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
		docs, err = nextBatchUpTo(ctx, cur.q, n)
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

// cmdKillCursors runs the killCursors command.
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

// getMoreBatchBytes is where a getMore without batchSize ends its batch:
// MongoDB fills such a batch up to the 16 MiB reply limit rather than
// returning everything the cursor has left (docs/commands.md).
const getMoreBatchBytes = document.MaxDocumentSize

// nextBatchUpTo returns q's next n documents, or with n 0 as many as fit
// in getMoreBatchBytes (at least one), so that following a cursor of any
// size holds one batch at a time.
func nextBatchUpTo(ctx context.Context, q *queryExec, n int) ([]bson.D, error) {
	if n > 0 {
		return q.nextBatch(ctx, n)
	}
	var out []bson.D
	size := 0
	for !q.done && size < getMoreBatchBytes {
		docs, err := q.nextBatch(ctx, 256)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			size += document.Size(d)
		}
		out = append(out, docs...)
	}
	return out, nil
}
