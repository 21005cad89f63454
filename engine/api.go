package engine

import (
	"context"
	"sort"
	"sync"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	script "github.com/ttlkv/ttlkv/engine/internal/js"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Database is a handle on one database of a DB. Handles are cheap and
// hold no state; the database exists while it has collections.
type Database struct {
	db   *DB
	name string
}

// Database returns a handle on the named database.
func (db *DB) Database(name string) *Database { return &Database{db: db, name: name} }

// Name returns the database name.
func (d *Database) Name() string { return d.name }

// Collection returns a handle on the named collection, which need not
// exist yet: the first insert or index creates it.
func (d *Database) Collection(name string) *Collection {
	return &Collection{db: d.db, dbName: d.name, name: name}
}

// CreateCollection creates a collection with create's options
// (capped, size, max, timeseries, expireAfterSeconds). Creating an
// existing collection with the same options succeeds; with other
// options it fails with 48 NamespaceExists.
func (d *Database) CreateCollection(ctx context.Context, name string, opts bson.D) error {
	if opts == nil {
		opts = bson.D{}
	}
	// Options written with Go ints read as the driver would send them.
	norm, err := document.Normalize(opts)
	if err != nil {
		return err
	}
	_, _, err = d.db.createColl(d.name, name, norm)
	return err
}

// ListCollectionNames returns the collection names, sorted.
func (d *Database) ListCollectionNames(ctx context.Context) ([]string, error) {
	if err := d.db.checkOpen(); err != nil {
		return nil, err
	}
	var out []string
	for _, c := range d.db.collsOf(d.name) {
		if !isInternalName(c.m().Name) || listedSystemName(d.name, c.m().Name) {
			out = append(out, c.m().Name)
		}
	}
	// admin's system.version, which the engine shows (catalogDocs).
	if d.name == "admin" {
		out = append(out, systemVersion)
		sort.Strings(out)
	}
	return out, nil
}

// Drop drops every collection of the database.
func (d *Database) Drop(ctx context.Context) error { return d.db.dropDatabase(d.name) }

// RunCommand runs a database command document against this database.
func (d *Database) RunCommand(ctx context.Context, cmd bson.D) (bson.D, error) {
	return d.db.RunCommand(ctx, d.name, cmd)
}

// Collection is a handle on one collection, with methods shaped like
// the official Go driver's mongo.Collection. Filters and documents may
// be bson.D, bson.M, maps or structs with bson tags.
type Collection struct {
	db           *DB
	dbName, name string
}

// Name returns the collection name.
func (c *Collection) Name() string { return c.name }

// InsertOneResult is InsertOne's result.
type InsertOneResult struct{ InsertedID any }

// InsertManyResult is InsertMany's result: the _ids written, in input
// order (nil for documents that failed).
type InsertManyResult struct{ InsertedIDs []any }

// DeleteResult reports how many documents a delete removed.
type DeleteResult struct{ DeletedCount int64 }

// InsertOne inserts one document, generating an ObjectId _id when it
// has none. A bson.Raw document is stored from its bytes; one that is
// not valid BSON fails with code 2 (BadValue).
func (c *Collection) InsertOne(ctx context.Context, document any) (*InsertOneResult, error) {
	ids, werrs, err := c.insert(ctx, []any{document}, true)
	if err != nil {
		return nil, err
	}
	if len(werrs) > 0 {
		return nil, werrs[0].Err
	}
	c.db.stats.inserted.Add(1)
	return &InsertOneResult{InsertedID: ids[0]}, nil
}

// InsertMany inserts documents. Ordered inserts stop at the first
// failure and keep the documents before it; unordered ones keep every
// valid document. Failures come back as a *BulkWriteError. bson.Raw
// documents are stored from their bytes; one that is not valid BSON is
// a write error of its own (code 2, BadValue), like any other invalid
// document.
func (c *Collection) InsertMany(ctx context.Context, documents []any, ordered bool) (*InsertManyResult, error) {
	ids, werrs, err := c.insert(ctx, documents, ordered)
	if err != nil {
		return nil, err
	}
	c.db.stats.inserted.Add(int64(len(documents) - len(werrs)))
	res := &InsertManyResult{InsertedIDs: ids}
	if len(werrs) > 0 {
		return res, &BulkWriteError{WriteErrors: werrs}
	}
	return res, nil
}

// insert inserts docs, taking the raw path when one is bson.Raw and
// every bson.Raw is valid BSON. With an invalid one it takes the decoding
// path, where that document alone fails (a write error) and the valid
// rest of the batch is kept as the call's ordering says; the wire
// refuses such a message whole, as mongod does (insertRawDocs).
func (c *Collection) insert(ctx context.Context, docs []any, ordered bool) ([]any, []WriteError, error) {
	if hasRaw(docs) && rawValid(docs) {
		return c.db.insertRawDocs(ctx, c.dbName, c.name, docs, ordered)
	}
	return c.db.insertDocs(ctx, c.dbName, c.name, docs, ordered)
}

func normFilter(filter any) (bson.D, error) {
	if filter == nil {
		return bson.D{}, nil
	}
	return document.Normalize(filter)
}

// Find returns a cursor over the documents matching filter.
func (c *Collection) Find(ctx context.Context, filter any, opts ...FindOptions) (*Cursor, error) {
	f, err := normFilter(filter)
	if err != nil {
		return nil, err
	}
	var o FindOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	// Options come from Go code (int values, maps) like filters do.
	if o.Sort != nil {
		if o.Sort, err = document.Normalize(o.Sort); err != nil {
			return nil, err
		}
	}
	if o.Projection != nil {
		if o.Projection, err = document.Normalize(o.Projection); err != nil {
			return nil, err
		}
	}
	if h, ok := o.Hint.(bson.D); ok {
		if o.Hint, err = document.Normalize(h); err != nil {
			return nil, err
		}
	}
	// system.views and admin.system.version read as the find command
	// reads them.
	o.systemViews = true
	coll, _, q, err := c.db.findPlan(c.dbName, c.name, f, o)
	if err != nil {
		return nil, err
	}
	c.db.stats.queried.Add(1)
	cur := &Cursor{q: q, batch: int(o.BatchSize)}
	if cur.batch <= 0 {
		cur.batch = 1024
	}
	if q == nil {
		cur.done = true
		return cur, nil
	}
	if o.Tailable {
		cur.tail = newTailState(coll, q, o)
	}
	return cur, nil
}

// FindOne returns the first matching document, or ErrNoDocuments.
func (c *Collection) FindOne(ctx context.Context, filter any, opts ...FindOptions) (bson.D, error) {
	var o FindOptions
	if len(opts) > 0 {
		o = opts[0]
	}
	o.Limit = 1
	if f, err := normFilter(filter); err == nil {
		d, handled, err := c.db.findByID(c.dbName, c.name, f, o)
		switch {
		case !handled:
		case err != nil:
			return nil, err
		case d == nil:
			return nil, ErrNoDocuments
		default:
			return d, nil
		}
	}
	cur, err := c.Find(ctx, filter, o)
	if err != nil {
		return nil, err
	}
	if cur.Next(ctx) {
		return cur.Current, nil
	}
	if cur.Err() != nil {
		return nil, cur.Err()
	}
	return nil, ErrNoDocuments
}

// CountDocuments counts the documents matching filter.
func (c *Collection) CountDocuments(ctx context.Context, filter any) (int64, error) {
	f, err := normFilter(filter)
	if err != nil {
		return 0, err
	}
	return c.db.count(ctx, c.dbName, c.name, f, 0, 0, nil)
}

func (c *Collection) update(ctx context.Context, filter, update any, multi, upsert bool) (*UpdateResult, error) {
	f, err := normFilter(filter)
	if err != nil {
		return nil, err
	}
	uv, err := document.NormalizeValue(update)
	if err != nil {
		return nil, err
	}
	u, pipeline, ok := updateArg(uv)
	if !ok {
		return nil, document.Errorf(document.CodeFailedToParse, "Update argument must be either an object or an array")
	}
	res, err := c.db.updateDocs(ctx, c.dbName, c.name, UpdateSpec{Filter: f, Update: u, Pipeline: pipeline, Multi: multi, Upsert: upsert})
	if err == nil {
		c.db.stats.updated.Add(res.ModifiedCount)
	}
	return res, err
}

// UpdateOne applies update ($set, ..., or an aggregation pipeline: a
// bson.A of $set/$unset/$project/$replaceWith stages) to the first
// matching document;
// with upsert, inserts one when nothing matches.
func (c *Collection) UpdateOne(ctx context.Context, filter, update any, upsert bool) (*UpdateResult, error) {
	return c.update(ctx, filter, update, false, upsert)
}

// UpdateMany applies update to every matching document.
func (c *Collection) UpdateMany(ctx context.Context, filter, update any, upsert bool) (*UpdateResult, error) {
	return c.update(ctx, filter, update, true, upsert)
}

// ReplaceOne replaces the first matching document (keeping its _id).
func (c *Collection) ReplaceOne(ctx context.Context, filter, replacement any, upsert bool) (*UpdateResult, error) {
	r, err := document.Normalize(replacement)
	if err != nil {
		return nil, err
	}
	for _, e := range r {
		if len(e.Key) > 0 && e.Key[0] == '$' {
			return nil, document.Errorf(document.CodeBadValue, "replacement document must not contain update operators")
		}
	}
	return c.update(ctx, filter, r, false, upsert)
}

func (c *Collection) delete(ctx context.Context, filter any, limit int64) (*DeleteResult, error) {
	f, err := normFilter(filter)
	if err != nil {
		return nil, err
	}
	n, err := c.db.deleteDocs(ctx, c.dbName, c.name, DeleteSpec{Filter: f, Limit: limit})
	if err != nil {
		return nil, err
	}
	c.db.stats.deleted.Add(n)
	return &DeleteResult{DeletedCount: n}, nil
}

// DeleteOne deletes the first matching document.
func (c *Collection) DeleteOne(ctx context.Context, filter any) (*DeleteResult, error) {
	return c.delete(ctx, filter, 1)
}

// DeleteMany deletes every matching document, in batches.
func (c *Collection) DeleteMany(ctx context.Context, filter any) (*DeleteResult, error) {
	return c.delete(ctx, filter, 0)
}

// CreateIndex creates one index and returns its name. An identical
// existing index is a success.
func (c *Collection) CreateIndex(ctx context.Context, model IndexModel) (string, error) {
	keys, err := document.Normalize(model.Keys)
	if err != nil {
		return "", err
	}
	opts := bson.D{}
	if model.Options != nil {
		if opts, err = document.Normalize(model.Options); err != nil {
			return "", err
		}
	}
	spec := append(bson.D{{Key: "key", Value: keys}}, opts...)
	res, err := c.db.createIndexes(ctx, c.dbName, c.name, []bson.D{spec})
	if err != nil {
		return "", err
	}
	if len(res.Names) > 0 {
		return res.Names[0], nil
	}
	if n, ok := get(model.Options, "name"); ok {
		s, _ := n.(string)
		return s, nil
	}
	return defaultIndexName(keys), nil
}

// CreateIndexes creates several index specs ({key, name, ...}) at once;
// if one is invalid none is created. Go values in the specs (an int
// expireAfterSeconds) are taken as the driver would encode them, as in
// CreateIndex.
func (c *Collection) CreateIndexes(ctx context.Context, specs []bson.D) (*CreateIndexesResult, error) {
	norm := make([]bson.D, len(specs))
	for i, s := range specs {
		d, err := document.Normalize(s)
		if err != nil {
			return nil, err
		}
		norm[i] = d
	}
	return c.db.createIndexes(ctx, c.dbName, c.name, norm)
}

// ListIndexes returns the index specs as listIndexes shows them, _id_
// first.
func (c *Collection) ListIndexes(ctx context.Context) ([]bson.D, error) {
	if err := c.db.checkOpen(); err != nil {
		return nil, err
	}
	co := c.db.lookup(c.dbName, c.name)
	if _, ok := c.db.catalogDocs(c.dbName, c.name); co == nil && ok {
		return []bson.D{listIndexEntry(idIndex())}, nil
	}
	if co == nil {
		return nil, document.Errorf(document.CodeNamespaceNotFound, "ns does not exist: %s.%s", c.dbName, c.name)
	}
	if co.m().Kind == catalog.KindView {
		return nil, errView(co.m())
	}
	return c.db.listIndexes(co), nil
}

// DropIndex drops an index by name or key pattern.
func (c *Collection) DropIndex(ctx context.Context, nameOrKey any) error {
	_, err := c.db.dropIndexes(c.dbName, c.name, nameOrKey)
	return err
}

// Drop drops the collection; dropping a missing one succeeds.
func (c *Collection) Drop(ctx context.Context) error {
	_, err := c.db.dropColl(c.dbName, c.name)
	return err
}

// IsCapped reports whether the collection is capped.
func (c *Collection) IsCapped() bool {
	co := c.db.lookup(c.dbName, c.name)
	return co != nil && co.m().Kind == catalog.KindCapped
}

func (db *DB) listIndexes(c *coll) []bson.D {
	if c.m().Kind == catalog.KindTimeseries {
		return db.timeseriesIndexes(c)
	}
	var out []bson.D
	m := c.m()
	if tc := db.bucketsTarget(m.DB, m.Name); tc != nil {
		out = []bson.D{}
		for _, bi := range db.tsBucketsIndexes(tc, c) {
			out = append(out, bi.spec)
		}
		return out
	}
	for _, ix := range m.Indexes {
		if m.Clustered && ix.ID == idIndexID {
			out = append(out, clusteredIndexEntry(m))
			continue
		}
		out = append(out, listIndexEntry(ix))
	}
	return out
}

// isInternalName reports engine-owned collections hidden from lists:
// the system. names other than system.js, which holds a user's stored
// JavaScript and is listed as mongod lists it.
func isInternalName(name string) bool {
	return len(name) > 7 && name[:7] == "system." && name != systemJS
}

// listedSystemName reports whether the system collection dbName.name,
// which the engine keeps, is listed as mongod lists it: admin.system.users
// and admin.system.roles (the wire server's users and user-defined
// roles). mongod lists every collection that exists;
// ttlkv keeps no other system collection a client could see (it shows
// system.views from its catalog's views, system_views.go, and
// admin.system.version, system_dbs.go).
func listedSystemName(dbName, name string) bool {
	return dbName == "admin" && (name == "system.users" || name == "system.roles")
}

// systemJS is the collection of a database's stored JavaScript, the one
// system. name a client may create in any database, as mongod's
// NamespaceString::isLegalClientSystemNS allows it.
const systemJS = "system.js"

// scriptContext returns ctx with what server-side scripts of database
// dbName run under it need, unless it has them already: print and
// printjson write to the log, as mongod's, and a $where or a mapReduce
// sees the database's stored functions (system.js).
func (db *DB) scriptContext(ctx context.Context, dbName string) context.Context {
	if script.HasStored(ctx) {
		return ctx
	}
	ctx = script.WithPrint(ctx, func(line string) { db.logf("jsPrint: %s", line) })
	return script.WithStored(ctx, db.storedJSLoader(ctx, dbName))
}

// storedJSLoader returns what reads the documents of dbName's system.js
// collection (stored JavaScript) once, when a $where or a mapReduce
// function first runs, for the scripts' globals (docs/javascript.md).
func (db *DB) storedJSLoader(ctx context.Context, dbName string) func() ([]bson.D, error) {
	var once sync.Once
	var docs []bson.D
	var err error
	return func() ([]bson.D, error) {
		once.Do(func() {
			if db.lookup(dbName, systemJS) == nil {
				return
			}
			_, _, q, ferr := db.findPlan(dbName, systemJS, nil, FindOptions{})
			if ferr != nil {
				err = ferr
				return
			}
			err = q.each(ctx, func(d bson.D) error {
				docs = append(docs, d)
				return nil
			})
		})
		return docs, err
	}
}
