package engine

import (
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
)

// codeUnauthorized is the server's code for an admin-only command run
// against another database.
const codeUnauthorized = document.CodeUnauthorized

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
	defer db.top.forget(fdb + "." + fname)
	c := db.lookup(fdb, fname)
	if c == nil {
		return document.Errorf(document.CodeNamespaceNotFound, "Source collection %s.%s does not exist", fdb, fname)
	}
	if c.m().Kind == catalog.KindView {
		return document.Errorf(document.CodeCommandNotSupportedOnView, "cannot rename view: %s.%s", fdb, fname)
	}
	if c.m().Kind == catalog.KindTimeseries {
		return document.Errorf(document.CodeCommandNotSupportedOnView, "cannot rename view: %s.%s (time-series collections cannot be renamed)", fdb, fname)
	}
	if fdb == tdb && fname == tname {
		return document.Errorf(document.CodeIllegalOperation, "Can't rename a collection to itself")
	}
	var target *coll
	if t := db.lookup(tdb, tname); t != nil {
		if k := t.m().Kind; k == catalog.KindView || k == catalog.KindTimeseries {
			// A view (a time-series collection is one in mongod) is not
			// a collection dropTarget drops.
			return document.Errorf(document.CodeNamespaceExists, "a view already exists with that name: %s.%s", tdb, tname)
		}
		if !dropTarget {
			return document.Errorf(document.CodeNamespaceExists, "target namespace exists")
		}
		target = t
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	old := c.m()
	nm := old.Clone()
	nm.DB, nm.Name = tdb, tname
	if tdb != fdb {
		// mongod copies across databases into a new collection.
		nm.UUID = catalog.NewUUID()
	}
	var targetMeta *catalog.Coll
	if target != nil {
		targetMeta = target.m()
	}
	rename := func(txn *lsm.Txn) error {
		if err := txn.Delete(lsk(old)); err != nil {
			return err
		}
		if err := db.noteRename(txn, old, tdb, tname, targetMeta); err != nil {
			return err
		}
		return putMeta(txn, nm)
	}
	renamed := func() {
		c.meta.Store(nm)
		db.mu.Lock()
		delete(db.colls, old.NS())
		db.colls[nm.NS()] = c
		db.mu.Unlock()
		db.cursors.killCollWith(c, document.Errorf(document.CodeQueryPlanKilled, "collection renamed from '%s' to '%s'", old.NS(), nm.NS()))
	}
	if target != nil {
		// The target goes in the rename's transaction, with the one
		// rename event: mongod drops it within the rename, whose oplog
		// entry names it (dropTarget), and logs no drop.
		return db.dropWith(target, rename, renamed)
	}
	if err := db.store.Update(rename); err != nil {
		return err
	}
	renamed()
	return nil
}

// killCollWith makes every live server cursor of c fail with err.
func (r *cursorRegistry) killCollWith(c *coll, err *document.Error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, cur := range r.m {
		if cur.c == c {
			cur.killed.CompareAndSwap(nil, err) // the first reason stays
		}
	}
}
