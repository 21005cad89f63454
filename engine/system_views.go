package engine

import (
	"sort"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// mongod keeps a database's view definitions, and in 7.0 those of its
// time-series collections (each the view over its buckets), as the
// documents of the database's system.views collection, which exists
// from the first one on and which clients see and read. ttlkv keeps
// them in its catalog; it shows the same collection, read-only, while
// the database has one (docs/views.md, "system.views").

// systemViews is the name of a database's collection of view
// definitions.
const systemViews = "system.views"

// systemViewsDocs returns the documents of dbName's system.views, as
// mongod writes them (ViewsForDatabase::_upsertIntoCatalog): {_id:
// "db.name", viewOn, pipeline, collation when not simple}, a
// time-series collection's viewOn its system.buckets.<name> and its
// pipeline its one $_internalUnpackBucket; in creation order. ok is
// false when the database has no such collection: it never had a view,
// or system.views was dropped since.
func (db *DB) systemViewsDocs(dbName string) (docs []bson.D, ok bool) {
	var ms []*catalog.Coll
	for _, c := range db.collsOf(dbName) {
		if m := c.m(); m.Kind == catalog.KindView || m.Kind == catalog.KindTimeseries {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
		if db.sysViewsKept(dbName) {
			return []bson.D{}, true
		}
		return nil, false
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].ID < ms[j].ID })
	for _, m := range ms {
		var on string
		var pipe bson.A
		if m.Kind == catalog.KindView {
			on, pipe = viewDef(m)
		} else {
			on = tsBucketsPre + m.Name
			if t, err := decodeTSMeta(m); err == nil {
				pipe = tsViewPipeline(t.opts)
			}
		}
		if pipe == nil {
			pipe = bson.A{}
		}
		d := bson.D{{Key: "_id", Value: m.NS()}, {Key: "viewOn", Value: on}, {Key: "pipeline", Value: pipe}}
		if v, ok := get(m.Options, "collation"); ok {
			d = append(d, bson.E{Key: "collation", Value: v})
		}
		docs = append(docs, d)
	}
	return docs, true
}

// errWriteSystemViews is mongod's refusal of any user write to a
// database's system.views (userAllowedWriteNS), whatever the user's
// privileges: the view commands write there, nothing else.
func errWriteSystemViews(dbName string) error {
	return document.Errorf(document.CodeInvalidNamespace, "cannot write to %s.%s", dbName, systemViews)
}

// catalogQuery is a read of a collection catalogDocs shows (find,
// count, an aggregation's scan or a $lookup's): its documents matched
// by f, in srt's order (else their own), after skip and limit,
// projected; nil when there is no such collection, as for a collection
// that does not exist.
func (db *DB) catalogQuery(dbName, name string, f *query.Filter, srt *query.Sort, o FindOptions, proj *query.Projection) (*queryExec, error) {
	docs, ok := db.catalogDocs(dbName, name)
	if !ok {
		return nil, nil
	}
	switch {
	case f.Text() != nil:
		return nil, document.Errorf(document.CodeIndexNotFound, "text index required for $text query")
	case f.Near() != nil:
		return nil, errNoGeoIndex
	case o.Tailable:
		return nil, document.Errorf(document.CodeBadValue, "error processing query: ns=%s.%s tailable cursor requested on non capped collection", dbName, name)
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
	if srt != nil && len(srt.Keys()) > 0 {
		sort.SliceStable(out, func(i, j int) bool { return srt.Compare(out[i], out[j]) < 0 })
	}
	out = out[min(int64(len(out)), o.Skip):]
	limit := o.Limit
	if limit < 0 {
		limit = -limit
	}
	if limit > 0 && int64(len(out)) > limit {
		out = out[:limit]
	}
	if proj != nil {
		pq := proj.WithQuery(f)
		for i, d := range out {
			p, err := pq.ApplyErr(d)
			if err != nil {
				return nil, err
			}
			out[i] = p
		}
	}
	return sliceExec(out), nil
}

// mongod creates a database's system.views with its first view and
// never drops it on its own: dropping the last view leaves it, empty.
// ttlkv marks such a database under sysViewsKey when a view or a
// time-series collection is dropped, in the drop's transaction; while
// the database has a view the catalog shows it anyway. The mark goes
// with dropDatabase and with a drop of system.views itself.

// sysViewsKey is the store key marking dbName's system.views as kept.
func sysViewsKey(dbName string) []byte { return lsm.MetaKey("sysviews/" + dbName) }

// loadSysViews reads the marks of kept system.views at open.
func (db *DB) loadSysViews(txn *lsm.Txn) error {
	pre := lsm.MetaKey("sysviews/")
	it := txn.NewIter(lsm.IterOptions{Prefix: pre, KeysOnly: true})
	defer it.Close()
	for it.Next() {
		db.sysViews[string(it.Key()[len(pre):])] = true
	}
	return nil
}

// sysViewsDBs returns the databases whose system.views is kept.
func (db *DB) sysViewsDBs() []string {
	db.mu.RLock()
	defer db.mu.RUnlock()
	out := make([]string, 0, len(db.sysViews))
	for d := range db.sysViews {
		out = append(out, d)
	}
	sort.Strings(out)
	return out
}

// sysViewsKept reports whether dbName's system.views is kept without a
// view.
func (db *DB) sysViewsKept(dbName string) bool {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.sysViews[dbName]
}

// dropSysViews removes the mark of dbName's kept system.views and
// reports whether there was one. The caller holds catMu.
func (db *DB) dropSysViews(dbName string) (bool, error) {
	if !db.sysViewsKept(dbName) {
		return false, nil
	}
	if err := db.store.Update(func(txn *lsm.Txn) error { return txn.Delete(sysViewsKey(dbName)) }); err != nil {
		return false, err
	}
	db.mu.Lock()
	delete(db.sysViews, dbName)
	db.mu.Unlock()
	return true, nil
}

// dropSystemViews runs drop on dbName's system.views, as mongod 7.0's
// DatabaseImpl::dropCollection does: refused with 125 while the
// database has a time-series collection (its definition is there),
// else every view of the database goes with it, no change event
// reporting them (mongod reloads its view catalog from the now missing
// collection). ok is false when there was no such collection.
func (db *DB) dropSystemViews(dbName string) (ok bool, err error) {
	if err := db.checkWritable(); err != nil {
		return false, err
	}
	db.catMu.Lock()
	defer db.catMu.Unlock()
	var views []*coll
	for _, c := range db.collsOf(dbName) {
		switch c.m().Kind {
		case catalog.KindTimeseries:
			return false, document.Errorf(document.CodeCommandFailed, "cannot drop collection %s.%s when time-series collections are present.", dbName, systemViews)
		case catalog.KindView:
			views = append(views, c)
		}
	}
	for _, c := range views {
		if err := db.dropWith(c, func(*lsm.Txn) error { return nil }, nil); err != nil {
			return false, err
		}
	}
	had, err := db.dropSysViews(dbName)
	return had || len(views) > 0, err
}
