package engine

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdDBHash runs the dbHash command: an MD5 of each collection's
// documents, as BSON, in _id order (a capped collection's in natural
// order), and one of those hashes in name order, as mongod computes
// them (docs/commands.md, "dbHash"). Two servers holding the same
// documents answer the same hashes, which is how a restore or a copy is
// checked.
func cmdDBHash(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	start := time.Now()
	var only map[string]bool
	if v, ok := get(cmd, "collections"); ok {
		arr, ok := v.(bson.A)
		if !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'dbHash.collections' is the wrong type '%s', expected type 'array'", typeName(v))
		}
		only = map[string]bool{}
		for _, e := range arr {
			s, ok := e.(string)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'dbHash.collections' is the wrong type '%s', expected type 'string'", typeName(e))
			}
			only[s] = true
		}
	}
	colls := bson.D{}
	capped := bson.A{}
	uuids := bson.D{}
	global := md5.New()
	for _, c := range db.collsOf(dbName) {
		m := c.m()
		// A view and a time-series collection hold no documents of their
		// own; a time-series collection's are in its buckets collection.
		if m.Kind == catalog.KindView || m.Kind == catalog.KindTimeseries {
			continue
		}
		if isInternalName(m.Name) && !isBucketsColl(m) {
			continue
		}
		if only != nil && !only[m.Name] {
			continue
		}
		sum, err := db.hashCollection(ctx, dbName, c)
		if err != nil {
			return nil, err
		}
		colls = append(colls, bson.E{Key: m.Name, Value: sum})
		uuids = append(uuids, bson.E{Key: m.Name, Value: m.UUID.Binary()})
		global.Write([]byte(sum))
		if m.Kind == catalog.KindCapped {
			capped = append(capped, m.Name)
		}
	}
	// mongod 7.0's reply (commands/dbhash.cpp): host, the hashes,
	// the capped collections, each collection's UUID, the md5 of the
	// hashes and the time taken.
	return bson.D{{Key: "host", Value: prettyHostName(ctx)},
		{Key: "collections", Value: colls}, {Key: "capped", Value: capped}, {Key: "uuids", Value: uuids},
		{Key: "md5", Value: hex.EncodeToString(global.Sum(nil))},
		{Key: "timeMillis", Value: int32(time.Since(start).Milliseconds())}}, nil
}

// hashCollection returns the hex MD5 of c's documents as BSON: in _id
// order, or in natural order for a capped collection.
func (db *DB) hashCollection(ctx context.Context, dbName string, c *coll) (string, error) {
	o := FindOptions{Sort: bson.D{{Key: "_id", Value: int32(1)}}}
	if c.m().Kind == catalog.KindCapped {
		o.Sort = nil
	}
	_, _, q, err := db.findPlan(dbName, c.m().Name, bson.D{}, o)
	if err != nil {
		return "", err
	}
	h := md5.New()
	for q != nil && !q.done {
		docs, err := q.nextBatch(ctx, 1024)
		if err != nil {
			return "", err
		}
		for _, d := range docs {
			b, err := bson.Marshal(d)
			if err != nil {
				return "", err
			}
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
