package engine

import (
	"context"
	"slices"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdCreateIndexes runs the createIndexes command.
func cmdCreateIndexes(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	if err := strictFields(cmd, "indexes", "commitQuorum", "ignoreUnknownIndexOptions", "v"); err != nil {
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
	ignoreUnknown := false
	if v, ok := get(cmd, "ignoreUnknownIndexOptions"); ok {
		if ignoreUnknown, ok = asBool(v); !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'createIndexes.ignoreUnknownIndexOptions' is the wrong type '%s', expected types '[bool, long, int, decimal, double]'", typeName(v))
		}
	}
	specs := make([]bson.D, len(arr))
	for i, s := range arr {
		d, ok := s.(bson.D)
		if !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'createIndexes.indexes.%d' is the wrong type '%s', expected type 'object'", i, typeName(s))
		}
		if ignoreUnknown {
			// mongod drops the fields it does not know before it
			// validates the spec (removeUnknownFields).
			d = slices.DeleteFunc(slices.Clone(d), func(e bson.E) bool { return !knownIndexOptions[e.Key] })
		}
		// The command needs a name, as mongod's; the Go API names an
		// index from its key (Collection.CreateIndex).
		_, hasKey := get(d, "key")
		if _, hasName := get(d, "name"); hasKey && !hasName {
			return nil, document.Errorf(document.CodeFailedToParse, "Error in specification %s :: caused by :: The 'name' field is a required property of an index specification", fmtValue(d))
		}
		specs[i] = d
	}
	if q, ok := get(cmd, "commitQuorum"); ok {
		// A standalone mongod parses commitQuorum (a number or a
		// string), then refuses it: there are no voting members to wait
		// for.
		switch q.(type) {
		case int32, int64, float64, string:
			return nil, document.Errorf(document.CodeBadValue, "Standalones can't specify commitQuorum")
		}
		return nil, document.Errorf(document.CodeFailedToParse, "commitQuorum has to be a number or a string")
	}
	res, err := db.createIndexes(ctx, dbName, name, specs)
	if err != nil {
		return nil, err
	}
	reply := bson.D{{Key: "numIndexesBefore", Value: int32(res.NumIndexesBefore)},
		{Key: "numIndexesAfter", Value: int32(res.NumIndexesAfter)}}
	if res.CreatedCollectionAutomatically || res.NumIndexesAfter != res.NumIndexesBefore {
		// mongod leaves the field out when every index was already
		// there on an existing collection (its indexesAlreadyExist).
		reply = append(reply, bson.E{Key: "createdCollectionAutomatically", Value: res.CreatedCollectionAutomatically})
	}
	if res.Note != "" {
		reply = append(reply, bson.E{Key: "note", Value: res.Note})
	}
	return reply, nil
}

// cmdListIndexes runs the listIndexes command.
func cmdListIndexes(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	if err := strictFields(cmd, "cursor", "includeBuildUUIDs", "includeIndexBuildInfo"); err != nil {
		return nil, err
	}
	batchSize := int64(-1)
	if v, ok := get(cmd, "cursor"); ok {
		if batchSize, err = cursorOption("listIndexes", v); err != nil {
			return nil, err
		}
	}
	c := db.lookup(dbName, name)
	if c == nil {
		if _, ok := db.catalogDocs(dbName, name); ok {
			return db.listReply(dbName+"."+name, []bson.D{listIndexEntry(idIndex())}, batchSize), nil
		}
		return nil, document.Errorf(document.CodeNamespaceNotFound, "ns does not exist: %s.%s", dbName, name)
	}
	if c.m().Kind == catalog.KindView {
		return nil, errView(c.m())
	}
	return db.listReply(dbName+"."+name, db.listIndexes(c), batchSize), nil
}

// cmdDropIndexes runs the dropIndexes command (also deleteIndexes).
func cmdDropIndexes(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	if err := strictFields(cmd, "index"); err != nil {
		return nil, err
	}
	v, ok := get(cmd, "index")
	if !ok {
		return nil, document.Errorf(document.CodeFailedToParse, "BSON field 'dropIndexes.index' is missing but a required field")
	}
	// The field is a name, a key pattern or an array of names
	// (mongod's IDL variant [string, array<string>, object]).
	switch w := v.(type) {
	case string, bson.D:
	case bson.A:
		for i, n := range w {
			if _, ok := n.(string); !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'dropIndexes.index.%d' is the wrong type '%s', expected type 'string'", i, typeName(n))
			}
		}
	default:
		return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'dropIndexes.index' is the wrong type '%s', expected types '[string, array, object]'", typeName(v))
	}
	was, err := db.dropIndexes(dbName, name, v)
	if err != nil {
		return nil, err
	}
	reply := bson.D{{Key: "nIndexesWas", Value: int32(was)}}
	if v == "*" {
		reply = append(reply, bson.E{Key: "msg", Value: "non-_id indexes dropped for collection"})
	}
	return reply, nil
}
