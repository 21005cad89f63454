package engine

import (
	"context"
	"github.com/ttlkv/ttlkv/document"

	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdListCollections runs the listCollections command.
func cmdListCollections(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	if err := strictFields(cmd, "filter", "nameOnly", "authorizedCollections", "cursor", "includePendingDrops"); err != nil {
		return nil, err
	}
	for _, f := range []string{"nameOnly", "authorizedCollections"} {
		if v, ok := get(cmd, f); ok {
			if _, err := boolField("listCollections", f, v); err != nil {
				return nil, err
			}
		}
	}
	batchSize := int64(-1)
	if v, ok := get(cmd, "cursor"); ok {
		var err error
		if batchSize, err = cursorOption("listCollections", v); err != nil {
			return nil, err
		}
	}
	var filter bson.D
	if v, ok := get(cmd, "filter"); ok {
		var err error
		if filter, err = toDoc("listCollections.filter", v); err != nil {
			return nil, err
		}
	}
	nameOnly, _ := get(cmd, "nameOnly")
	only, _ := asBool(nameOnly)
	authorized, _ := get(cmd, "authorizedCollections")
	var keep func(dbName, coll string) bool
	if a, _ := asBool(authorized); a {
		keep, _ = ctx.Value(collsFilterKey{}).(func(string, string) bool)
	}
	var docs []bson.D
	// A database with views lists its system.views (its view
	// definitions) among its collections, and admin its
	// system.version, as mongod does (catalogDocs).
	var shown []string
	for _, name := range db.catalogNames(dbName) {
		if keep == nil || keep(dbName, name) {
			shown = append(shown, name)
		}
	}
	addShown := func() {
		name := shown[0]
		shown = shown[1:]
		d := db.catalogCollInfo(dbName, name)
		if only {
			d = bson.D{{Key: "name", Value: name}, {Key: "type", Value: "collection"}}
		}
		docs = append(docs, d)
	}
	for _, c := range db.collsOf(dbName) {
		m := c.m()
		for len(shown) > 0 && m.Name > shown[0] {
			addShown()
		}
		if keep != nil && !keep(dbName, m.Name) {
			continue
		}
		var d bson.D
		if isInternalName(m.Name) && !listedSystemName(dbName, m.Name) {
			// The buckets of a time-series collection are listed, as
			// mongod 7.0 lists them.
			owner := db.bucketsTarget(dbName, m.Name)
			if owner == nil || !isBucketsColl(m) {
				continue
			}
			d = db.bucketsCollInfo(owner.m(), m)
		} else {
			d = db.collectionInfo(c)
		}
		if only {
			d = bson.D{{Key: "name", Value: m.Name}, {Key: "type", Value: typeOfColl(m)}}
		}
		docs = append(docs, d)
	}
	for len(shown) > 0 {
		addShown()
	}
	docs, err := filterDocs(docs, filter)
	if err != nil {
		return nil, err
	}
	return db.listReply(dbName+".$cmd.listCollections", docs, batchSize), nil
}

// WithCollectionsFilter returns a context under which listCollections
// with authorizedCollections: true lists only the collections keep
// accepts: a front end's way to list the collections a user has some
// privilege on, as mongod does. Without authorizedCollections every
// collection is listed, as mongod lists them to a user who may run
// listCollections.
func WithCollectionsFilter(ctx context.Context, keep func(dbName, coll string) bool) context.Context {
	return context.WithValue(ctx, collsFilterKey{}, keep)
}

// collsFilterKey marks the filter of WithCollectionsFilter in a context.
type collsFilterKey struct{}

// listReply is the reply of a command that lists catalog entries
// (listCollections, listIndexes): the first batchSize of docs (all of
// them when batchSize is negative) and, when some are left, a cursor on
// ns that getMore follows for the rest (docs/commands.md §0). The
// entries are those of the moment the command ran.
func (db *DB) listReply(ns string, docs []bson.D, batchSize int64) bson.D {
	if batchSize < 0 || batchSize >= int64(len(docs)) {
		return cursorReply(0, ns, "firstBatch", docs)
	}
	id := db.cursors.add(&serverCursor{ns: ns, q: sliceExec(docs[batchSize:])})
	return cursorReply(id, ns, "firstBatch", docs[:batchSize])
}

// sliceExec is a query that yields docs, batch by batch.
func sliceExec(docs []bson.D) *queryExec {
	q := &queryExec{sc: &scanner{}}
	q.gen = func(_ context.Context, n int) ([]bson.D, error) {
		n = min(n, len(docs))
		out := docs[:n:n]
		docs = docs[n:]
		q.returned += int64(n)
		q.done = len(docs) == 0
		return out, nil
	}
	return q
}

func typeOfColl(m *catalog.Coll) string {
	switch m.Kind {
	case catalog.KindTimeseries:
		return "timeseries"
	case catalog.KindView:
		return "view"
	}
	return "collection"
}

// collectionInfo renders a collection as listCollections shows it.
func (db *DB) collectionInfo(c *coll) bson.D {
	m := c.m()
	opts := m.Options
	if opts == nil {
		opts = bson.D{}
	}
	if m.Kind == catalog.KindCapped {
		opts = listedCappedOptions(opts)
	}
	info := bson.D{{Key: "readOnly", Value: db.opts.Role == RoleReadOnly || m.Kind == catalog.KindView}}
	if m.Kind != catalog.KindView && m.Kind != catalog.KindTimeseries {
		// As mongod's: a view has no UUID, and a time-series
		// collection's is its buckets collection's, listed there.
		info = append(info, bson.E{Key: "uuid", Value: m.UUID.Binary()})
	}
	d := bson.D{{Key: "name", Value: m.Name}, {Key: "type", Value: typeOfColl(m)}, {Key: "options", Value: opts},
		{Key: "info", Value: info}}
	if m.Kind == catalog.KindView {
		return d // a view has no _id index
	}
	if m.Kind != catalog.KindTimeseries && !m.Clustered {
		// A clustered collection's _id index is its clusteredIndex.
		id := idIndex()
		if len(m.Indexes) > 0 && m.Indexes[0].ID == idIndexID {
			id = m.Indexes[0]
		}
		d = append(d, bson.E{Key: "idIndex", Value: listIndexEntry(id)})
	}
	return d
}

// bucketsCollInfo renders bm, system.buckets.<name>, the buckets of
// time-series collection ts, as mongod 7.0 lists that collection: an
// ordinary clustered collection whose options carry the buckets'
// schema validator, clusteredIndex true, the expiry and the
// timeseries options (CollectionOptions::appendBSON's order).
func (db *DB) bucketsCollInfo(ts, bm *catalog.Coll) bson.D {
	name := bm.Name
	var opts bson.D
	for _, k := range []string{"storageEngine", "indexOptionDefaults"} {
		if v, ok := get(ts.Options, k); ok {
			opts = append(opts, bson.E{Key: k, Value: v})
		}
	}
	tv, _ := get(ts.Options, "timeseries")
	tvd, _ := tv.(bson.D)
	timeField, _ := get(tvd, "timeField")
	tf, _ := timeField.(string)
	opts = append(opts, bson.E{Key: "validator", Value: bucketsValidator(tf)})
	if v, ok := get(ts.Options, "collation"); ok {
		opts = append(opts, bson.E{Key: "collation", Value: v})
	}
	opts = append(opts, bson.E{Key: "clusteredIndex", Value: true})
	if v, ok := get(ts.Options, "expireAfterSeconds"); ok {
		opts = append(opts, bson.E{Key: "expireAfterSeconds", Value: v})
	}
	opts = append(opts, bson.E{Key: "timeseries", Value: tv})
	return bson.D{{Key: "name", Value: name}, {Key: "type", Value: "collection"}, {Key: "options", Value: opts},
		{Key: "info", Value: bson.D{{Key: "readOnly", Value: db.opts.Role == RoleReadOnly}, {Key: "uuid", Value: bm.UUID.Binary()}}}}
}

// bucketsValidator is the $jsonSchema mongod gives a buckets collection
// whose time field is timeField (jstests/core/timeseries/
// timeseries_field_parsed_as_bson.js shows it whole). ttlkv lists it;
// it checks the buckets inserted there its own way (docs/timeseries.md).
func bucketsValidator(timeField string) bson.D {
	bound := bson.D{{Key: "bsonType", Value: "object"}, {Key: "required", Value: bson.A{timeField}},
		{Key: "properties", Value: bson.D{{Key: timeField, Value: bson.D{{Key: "bsonType", Value: "date"}}}}}}
	control := bson.D{
		{Key: "bsonType", Value: "object"},
		{Key: "required", Value: bson.A{"version", "min", "max"}},
		{Key: "properties", Value: bson.D{
			{Key: "version", Value: bson.D{{Key: "bsonType", Value: "number"}}},
			{Key: "min", Value: bound},
			{Key: "max", Value: bound},
			{Key: "closed", Value: bson.D{{Key: "bsonType", Value: "bool"}}},
			{Key: "count", Value: bson.D{{Key: "bsonType", Value: "number"}, {Key: "minimum", Value: int32(1)}}},
		}},
		{Key: "additionalProperties", Value: false},
	}
	return bson.D{{Key: "$jsonSchema", Value: bson.D{
		{Key: "bsonType", Value: "object"},
		{Key: "required", Value: bson.A{"_id", "control", "data"}},
		{Key: "properties", Value: bson.D{
			{Key: "_id", Value: bson.D{{Key: "bsonType", Value: "objectId"}}},
			{Key: "control", Value: control},
			{Key: "data", Value: bson.D{{Key: "bsonType", Value: "object"}}},
			{Key: "meta", Value: bson.D{}},
		}},
		{Key: "additionalProperties", Value: false},
	}}}
}

// listedCappedOptions types a capped collection's size and max as
// MongoDB lists them: CollectionOptions::appendBSON appends both with
// appendNumber (src/mongo/db/catalog/collection_options.cpp), so small
// values are int32. The catalog keeps its own int64s.
func listedCappedOptions(opts bson.D) bson.D {
	out := make(bson.D, len(opts))
	for i, e := range opts {
		if n, ok := e.Value.(int64); ok && (e.Key == "size" || e.Key == "max") {
			e.Value = int32OrLong(n)
		}
		out[i] = e
	}
	return out
}

// cmdListDatabases runs the listDatabases command.
func cmdListDatabases(_ context.Context, db *DB, _ string, cmd bson.D) (bson.D, error) {
	if err := strictFields(cmd, "filter", "nameOnly", "authorizedDatabases"); err != nil {
		return nil, err
	}
	var filter bson.D
	if v, ok := get(cmd, "filter"); ok {
		d, isDoc := v.(bson.D)
		if !isDoc {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'listDatabases.filter' is the wrong type '%s', expected type 'object'", typeName(v))
		}
		filter = d
	}
	nameOnly := false
	if v, ok := get(cmd, "nameOnly"); ok {
		b, isBool := asBoolStrict(v)
		if !isBool {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'listDatabases.nameOnly' is the wrong type '%s', expected types '[bool, long, int, decimal, double]'", typeName(v))
		}
		nameOnly = b
	}
	if v, ok := get(cmd, "authorizedDatabases"); ok {
		if _, isBool := v.(bool); !isBool {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'listDatabases.authorizedDatabases' is the wrong type '%s', expected type 'bool'", typeName(v))
		}
	}
	var entries []bson.D
	for _, name := range db.DatabaseNames() {
		e := bson.D{{Key: "name", Value: name}}
		if !nameOnly {
			e = append(e, bson.E{Key: "sizeOnDisk", Value: db.databaseSize(name)}, bson.E{Key: "empty", Value: false})
		}
		entries = append(entries, e)
	}
	// As mongod: the filter applies to the entries, the total counts
	// the databases listed, and a nameOnly reply has names alone.
	entries, err := filterDocs(entries, filter)
	if err != nil {
		return nil, err
	}
	out := bson.A{}
	var total int64
	for _, e := range entries {
		if v, ok := get(e, "sizeOnDisk"); ok {
			total += v.(int64)
		}
		out = append(out, e)
	}
	if nameOnly {
		return bson.D{{Key: "databases", Value: out}}, nil
	}
	return bson.D{{Key: "databases", Value: out}, {Key: "totalSize", Value: total}, {Key: "totalSizeMb", Value: total / (1 << 20)}}, nil
}

// asBoolStrict reads a "safeBool": a bool, or a number (non-zero true).
func asBoolStrict(v any) (bool, bool) {
	switch x := v.(type) {
	case bool:
		return x, true
	case int32, int64, float64, bson.Decimal128:
		f, _ := asFloat(x)
		return f != 0, true
	}
	return false, false
}

// filterDocs keeps the documents matching filter.
func filterDocs(docs []bson.D, filter bson.D) ([]bson.D, error) {
	if len(filter) == 0 {
		return docs, nil
	}
	f, err := parseFilter(filter)
	if err != nil {
		return nil, err
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
	return out, nil
}
