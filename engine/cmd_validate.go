package engine

import (
	"context"
	"sort"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdValidate runs the validate command.
func cmdValidate(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	// mongod's option conflicts (72).
	opt := func(k string) bool { v, ok := get(cmd, k); return ok && truthy(v) }
	switch {
	case opt("background") && (opt("full") || opt("enforceFastCount") || opt("repair")):
		return nil, document.Errorf(document.CodeInvalidOptions, "Running the validate command with { background: true } cannot be done with { full: true }, { enforceFastCount: true } or { repair: true }")
	case opt("metadata") && (opt("full") || opt("background") || opt("repair") || opt("enforceFastCount")):
		return nil, document.Errorf(document.CodeInvalidOptions, "Running the validate command with { metadata: true } is not supported with any other options")
	}
	r, err := db.Validate(ctx, dbName, name)
	if err != nil {
		return nil, err
	}
	if c := db.lookup(dbName, name); c != nil && c.m().Kind == catalog.KindTimeseries {
		// mongod 7.0 validates a time-series collection's buckets
		// collection and answers for it: its namespace, a record and
		// an index key a bucket. ttlkv's checks of the buckets (r's
		// errors) stand.
		if t, bc, _ := db.tsParts(c); bc != nil {
			br, err := db.Validate(ctx, dbName, t.buckets)
			if err != nil {
				return nil, err
			}
			br.Errors = r.Errors
			r, name = br, t.buckets
		}
	}
	kpi, details := bson.D{}, bson.D{}
	// Each index's own validity, as mongod 7.0 reports it: an index with
	// entries missing, extra or wrong is invalid, the others stay valid
	// (the collection's errors say what is wrong). served is the ttlkv
	// index that holds the entries.
	add := func(n, served string, keys int64) {
		kpi = append(kpi, bson.E{Key: n, Value: int32OrLong(keys)})
		details = append(details, bson.E{Key: n, Value: bson.D{{Key: "valid", Value: !r.InvalidIndexes[served]}}})
	}
	if tc := db.bucketsTarget(dbName, name); tc != nil {
		// The indexes listIndexes shows (tsBucketsIndexes), with the
		// keys of the ttlkv index holding each; a TTL index, which has
		// none, holds one key a bucket its filter passes.
		for _, bi := range db.tsBucketsIndexes(tc, db.lookup(dbName, name)) {
			if bi.served != nil {
				add(bi.name, bi.served.Name, r.KeysPerIndex[bi.served.Name])
				continue
			}
			pf, _ := get(bi.spec, "partialFilterExpression")
			f, _ := pf.(bson.D)
			n, err := db.count(ctx, dbName, name, f, 0, 0, nil)
			if err != nil {
				return nil, err
			}
			add(bi.name, "", n)
		}
	} else if c := db.lookup(dbName, name); c != nil {
		for _, ix := range c.m().Indexes {
			add(ix.Name, ix.Name, r.KeysPerIndex[ix.Name])
		}
	} else {
		// A collection the engine shows (catalogDocs): its _id index.
		add("_id_", "_id_", r.KeysPerIndex["_id_"])
	}
	// mongod 7.0 keeps each index's results in a map by name and
	// reports them in that order (byte order of the names).
	byName := func(d bson.D) {
		sort.SliceStable(d, func(i, j int) bool { return d[i].Key < d[j].Key })
	}
	byName(kpi)
	byName(details)
	strs := func(ss []string) bson.A {
		a := bson.A{}
		for _, e := range ss {
			a = append(a, e)
		}
		return a
	}
	// mongod 7.0's reply: the namespace and UUID of the collection
	// validated, the document counts (appendNumber: an int when it
	// fits), the indexes, then ValidateResults::appendToResultObj's
	// fields, and advice when something is wrong.
	reply := bson.D{{Key: "ns", Value: r.Namespace}}
	if u, ok := db.collUUID(dbName, name); ok {
		reply = append(reply, bson.E{Key: "uuid", Value: u.Binary()})
	}
	entries := func(es []IndexEntry) bson.A {
		a := bson.A{}
		for _, e := range es {
			a = append(a, e.Doc())
		}
		return a
	}
	corrupt := bson.A{}
	for _, rid := range r.CorruptRecords {
		corrupt = append(corrupt, rid) // a RecordId: a long
	}
	reply = append(reply, bson.E{Key: "nInvalidDocuments", Value: int32OrLong(r.InvalidDocuments)},
		bson.E{Key: "nNonCompliantDocuments", Value: int32OrLong(r.NonCompliant)},
		bson.E{Key: "nrecords", Value: int32OrLong(r.Records)}, bson.E{Key: "nIndexes", Value: int32(len(kpi))},
		bson.E{Key: "keysPerIndex", Value: kpi}, bson.E{Key: "indexDetails", Value: details}, bson.E{Key: "valid", Value: r.Valid()},
		bson.E{Key: "repaired", Value: false}, bson.E{Key: "warnings", Value: strs(r.Warnings)}, bson.E{Key: "errors", Value: strs(r.Errors)},
		bson.E{Key: "extraIndexEntries", Value: entries(r.ExtraIndexEntries)}, bson.E{Key: "missingIndexEntries", Value: entries(r.MissingIndexEntries)}, bson.E{Key: "corruptRecords", Value: corrupt})
	if !r.Valid() {
		reply = append(reply, bson.E{Key: "advice", Value: validateAdvice})
	}
	return reply, nil
}

// validateAdvice is what mongod's validate adds to a reply whose
// collection is not valid.
const validateAdvice = "A corrupt namespace has been detected. See http://dochub.mongodb.org/core/data-recovery for recovery steps."

// collUUID is the UUID of collection name of dbName as listCollections
// shows it (a shown collection's made from its namespace); false for
// none (a view, a time-series collection, whose buckets have one).
func (db *DB) collUUID(dbName, name string) (catalog.UUID, bool) {
	if c := db.lookup(dbName, name); c != nil {
		u := c.m().UUID
		return u, !u.IsZero() && c.m().Kind != catalog.KindView && c.m().Kind != catalog.KindTimeseries
	}
	if _, ok := db.catalogDocs(dbName, name); ok {
		return catalogUUID(dbName, name), true
	}
	return catalog.UUID{}, false
}
