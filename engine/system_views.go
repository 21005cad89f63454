package engine

import (
	"crypto/md5"
	"sort"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/query"
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
// false when the database has none, and so no such collection.
func (db *DB) systemViewsDocs(dbName string) (docs []bson.D, ok bool) {
	var ms []*catalog.Coll
	for _, c := range db.collsOf(dbName) {
		if m := c.m(); m.Kind == catalog.KindView || m.Kind == catalog.KindTimeseries {
			ms = append(ms, m)
		}
	}
	if len(ms) == 0 {
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

// systemViewsInfo is system.views as listCollections shows it: an
// ordinary collection with an _id index. Its UUID is made from the
// database's name, so it stays the same while the collection is shown.
func (db *DB) systemViewsInfo(dbName string) bson.D {
	sum := md5.Sum([]byte("system.views\x00" + dbName))
	u := catalog.UUID(sum)
	u[6] = u[6]&0x0f | 0x40 // version 4
	u[8] = u[8]&0x3f | 0x80 // RFC 4122 variant
	return bson.D{{Key: "name", Value: systemViews}, {Key: "type", Value: "collection"}, {Key: "options", Value: bson.D{}},
		{Key: "info", Value: bson.D{{Key: "readOnly", Value: db.opts.Role == RoleReadOnly}, {Key: "uuid", Value: u.Binary()}}},
		{Key: "idIndex", Value: listIndexEntry(idIndex())}}
}

// errWriteSystemViews is mongod's refusal of any user write to a
// database's system.views (userAllowedWriteNS), whatever the user's
// privileges: the view commands write there, nothing else.
func errWriteSystemViews(dbName string) error {
	return document.Errorf(document.CodeInvalidNamespace, "cannot write to %s.%s", dbName, systemViews)
}

// systemViewsQuery is a read of dbName's system.views (find, count, an
// aggregation's scan or a $lookup's): its documents matched by f, in
// srt's order (else creation order), after skip and limit, projected;
// nil when the database has no such collection, as for a collection
// that does not exist.
func (db *DB) systemViewsQuery(dbName string, f *query.Filter, srt *query.Sort, o FindOptions, proj *query.Projection) (*queryExec, error) {
	docs, ok := db.systemViewsDocs(dbName)
	if !ok {
		return nil, nil
	}
	switch {
	case f.Text() != nil:
		return nil, document.Errorf(document.CodeIndexNotFound, "text index required for $text query")
	case f.Near() != nil:
		return nil, errNoGeoIndex
	case o.Tailable:
		return nil, document.Errorf(document.CodeBadValue, "error processing query: ns=%s.%s tailable cursor requested on non capped collection", dbName, systemViews)
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
