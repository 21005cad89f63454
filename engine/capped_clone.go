package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdCloneCollectionAsCapped runs {cloneCollectionAsCapped: src,
// toCollection: dst, size}: a new capped collection dst of size bytes
// holding src's documents in natural order, the oldest overwritten when
// they do not fit, with only the _id index; src is unchanged
// (docs/capped.md, "cloneCollectionAsCapped and dataSize").
func cmdCloneCollectionAsCapped(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	src, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	var dst string
	var sizeV any
	hasDst, hasSize := false, false
	for _, e := range cmd[1:] {
		switch e.Key {
		case "toCollection":
			s, ok := e.Value.(string)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch,
					"BSON field 'cloneCollectionAsCapped.toCollection' is the wrong type '%s', expected type 'string'", typeName(e.Value))
			}
			dst, hasDst = s, true
		case "size":
			sizeV, hasSize = e.Value, true
		case "temp", "comment", "writeConcern", "lsid", "$db", "apiVersion", "apiStrict", "maxTimeMS":
		default:
			return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'cloneCollectionAsCapped.%s' is an unknown field.", e.Key)
		}
	}
	if !hasDst {
		return nil, document.Errorf(codeIDLFailedToParse, "BSON field 'cloneCollectionAsCapped.toCollection' is missing but a required field")
	}
	if !hasSize {
		return nil, document.Errorf(codeIDLFailedToParse, "BSON field 'cloneCollectionAsCapped.size' is missing but a required field")
	}
	size, err := parseCappedSize("cloneCollectionAsCapped", sizeV)
	if err != nil {
		return nil, err
	}
	return bson.D{}, db.cloneCollectionAsCapped(ctx, dbName, src, dst, size)
}

// cloneCollectionAsCapped copies src into a new capped collection dst.
// The copy reads src as convertToCapped does; dst is visible, empty, from
// its creation and its writers wait for the copy. A failed copy drops dst.
func (db *DB) cloneCollectionAsCapped(ctx context.Context, dbName, src, dst string, size int64) error {
	if err := db.checkWritable(); err != nil {
		return err
	}
	if err := validateCollName(dbName, src, false); err != nil {
		return err
	}
	if err := validateCollName(dbName, dst, false); err != nil {
		return err
	}
	sc := db.lookup(dbName, src)
	if sc == nil {
		if len(db.collsOf(dbName)) == 0 {
			return document.Errorf(document.CodeNamespaceNotFound, "database %s not found", dbName)
		}
		return document.Errorf(document.CodeNamespaceNotFound, "source collection %s.%s does not exist", dbName, src)
	}
	if sc.m().Kind == catalog.KindTimeseries {
		return document.Errorf(document.CodeCommandNotSupportedOnView,
			"cloneCollectionAsCapped is not supported for time-series collections: %s.%s", dbName, src)
	}
	if sc.m().Kind == catalog.KindView {
		return document.Errorf(document.CodeCommandNotSupportedOnView, "cloneCollectionAsCapped not supported for views: %s.%s", dbName, src)
	}
	if db.lookup(dbName, dst) != nil {
		return document.Errorf(document.CodeNamespaceExists,
			"cloneCollectionAsCapped failed - destination collection %s.%s already exists. source: %s.%s", dbName, dst, dbName, src)
	}
	// The copy keeps the source's default collation (and so its _id
	// index's), as MongoDB's copies the source's options.
	dc, created, err := db.createColl(dbName, dst, append(bson.D{{Key: "capped", Value: true}, {Key: "size", Value: size}}, defaultCollationOption(sc.m().Options)...))
	if err != nil {
		return err
	}
	if !created {
		return document.Errorf(document.CodeNamespaceExists,
			"cloneCollectionAsCapped failed - destination collection %s.%s already exists. source: %s.%s", dbName, dst, dbName, src)
	}
	dc.wmu.Lock()
	err = db.copyIntoCapped(ctx, sc, sc.m(), dc, 0, true)
	dc.wmu.Unlock()
	if err != nil {
		if _, derr := db.dropColl(dbName, dst); derr != nil {
			db.logf("cloneCollectionAsCapped %s.%s: dropping the partial copy: %v", dbName, dst, derr)
		}
		return err
	}
	return nil
}
