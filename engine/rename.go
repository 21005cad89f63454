package engine

import (
	"context"
	"strings"

	"github.com/ttlkv/ttlkv/doc"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// codeUnauthorized is the server's code for an admin-only command run
// against another database.
const codeUnauthorized = doc.CodeUnauthorized

// cmdRenameCollection is MongoDB's renameCollection admin command:
// {renameCollection: "db.from", to: "db.to", dropTarget: bool}.
func cmdRenameCollection(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	if dbName != "admin" {
		return nil, doc.Errorf(codeUnauthorized, "renameCollection may only be run against the admin database.")
	}
	from, ok := cmd[0].Value.(string)
	if !ok {
		return nil, doc.Errorf(doc.CodeTypeMismatch, "BSON field 'renameCollection.renameCollection' is the wrong type '%s', expected type 'string'", typeName(cmd[0].Value))
	}
	var to string
	var haveTo, dropTarget bool
	for _, e := range cmd[1:] {
		switch e.Key {
		case "to":
			s, ok := e.Value.(string)
			if !ok {
				return nil, doc.Errorf(doc.CodeTypeMismatch, "BSON field 'renameCollection.to' is the wrong type '%s', expected type 'string'", typeName(e.Value))
			}
			to, haveTo = s, true
		case "dropTarget":
			dropTarget = truthy(e.Value)
		}
	}
	if !haveTo {
		return nil, doc.Errorf(doc.CodeFailedToParse, "BSON field 'renameCollection.to' is missing but a required field")
	}
	fdb, fname, ok1 := strings.Cut(from, ".")
	tdb, tname, ok2 := strings.Cut(to, ".")
	if !ok1 || fdb == "" || fname == "" {
		return nil, doc.Errorf(doc.CodeInvalidNamespace, "Invalid source namespace: %s", from)
	}
	if !ok2 || tdb == "" || tname == "" {
		return nil, doc.Errorf(doc.CodeInvalidNamespace, "Invalid target namespace: %s", to)
	}
	return bson.D{}, db.renameCollection(fdb, fname, tdb, tname, dropTarget)
}

// truthy is the server's boolean reading of an option value.
func truthy(v any) bool {
	switch x := v.(type) {
	case bool:
		return x
	case nil, bson.Null, bson.Undefined:
		return false
	}
	if doc.IsNumber(v) {
		return doc.Compare(v, int32(0)) != 0
	}
	return true
}

// renameCollection gives the collection fdb.fname the name tdb.tname,
// keeping its documents, indexes, options and TTL state; with
// dropTarget an existing target is dropped first. The catalog change is
// one transaction; cursors open on the source are killed, as MongoDB
// does.
func (db *DB) renameCollection(fdb, fname, tdb, tname string, dropTarget bool) error {
	if err := db.checkWritable(); err != nil {
		return err
	}
	if err := validateCollName(fdb, fname, false); err != nil {
		return err
	}
	if err := validateCollName(tdb, tname, false); err != nil {
		return err
	}
	db.catMu.Lock()
	defer db.catMu.Unlock()
	c := db.lookup(fdb, fname)
	if c == nil {
		return doc.Errorf(doc.CodeNamespaceNotFound, "Source collection %s.%s does not exist", fdb, fname)
	}
	if c.m().Kind == kindTimeseries {
		return doc.Errorf(doc.CodeCommandNotSupportedOnView, "cannot rename view: %s.%s (time-series collections cannot be renamed)", fdb, fname)
	}
	if fdb == tdb && fname == tname {
		return doc.Errorf(doc.CodeIllegalOperation, "Can't rename a collection to itself")
	}
	if t := db.lookup(tdb, tname); t != nil {
		if !dropTarget {
			return doc.Errorf(doc.CodeNamespaceExists, "target namespace exists")
		}
		if err := db.dropLocked(t); err != nil {
			return err
		}
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	old := c.m()
	nm := old.clone()
	nm.DB, nm.Name = tdb, tname
	err := db.store.Update(func(txn *lsm.Txn) error {
		if err := txn.Delete(lsk(old)); err != nil {
			return err
		}
		return putMeta(txn, nm)
	})
	if err != nil {
		return err
	}
	c.meta.Store(nm)
	db.mu.Lock()
	delete(db.colls, old.ns())
	db.colls[nm.ns()] = c
	db.mu.Unlock()
	db.cursors.killCollWith(c, doc.Errorf(doc.CodeQueryPlanKilled, "collection renamed from '%s' to '%s'", old.ns(), nm.ns()))
	return nil
}

// killCollWith makes every live server cursor of c fail with err.
func (r *cursorRegistry) killCollWith(c *coll, err *doc.Error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, cur := range r.m {
		if cur.c == c {
			cur.killed.CompareAndSwap(nil, err) // the first reason stays
		}
	}
}
