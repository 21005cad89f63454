package engine

import (
	"context"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdCompact runs the compact command: it gives the disk space held by
// deleted documents and index entries back to the file system
// (docs/commands.md, "compact"). ttlkv keeps every collection in one
// store, so it reclaims the whole store (DB.Reclaim) and reports the
// bytes the store's files shrank by as bytesFreed.
func cmdCompact(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	for _, e := range cmd[1:] {
		switch e.Key {
		case "force":
			if _, ok := e.Value.(bool); !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'compact.%s' is the wrong type '%s', expected type 'bool'", e.Key, typeName(e.Value))
			}
		case "freeSpaceTargetMB":
			n, ok := asFloat(e.Value)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'compact.freeSpaceTargetMB' is the wrong type '%s', expected types '[long, int, decimal, double]'", typeName(e.Value))
			}
			if n < 1 {
				return nil, document.Errorf(document.CodeBadValue, "BSON field 'freeSpaceTargetMB' value must be >= 1, actual value '%v'", e.Value)
			}
		default:
			if !isGenericField(e.Key) {
				return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'compact.%s' is an unknown field.", e.Key)
			}
		}
	}
	c := db.lookup(dbName, name)
	if c == nil {
		return nil, document.Errorf(document.CodeNamespaceNotFound, "collection does not exist")
	}
	if c.m().Kind == catalog.KindView {
		return nil, errView(c.m())
	}
	lsmBefore, vlogBefore := db.store.DiskUsage()
	if err := db.Reclaim(ctx); err != nil {
		return nil, err
	}
	lsmAfter, vlogAfter := db.store.DiskUsage()
	freed := max(lsmBefore+vlogBefore-lsmAfter-vlogAfter, 0)
	return bson.D{{Key: "bytesFreed", Value: freed}}, nil
}
