package engine

import (
	"encoding/binary"
	"errors"
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// idIndexID is the index id of every collection's _id index.
const idIndexID = 1

func idIndex() *catalog.Index {
	return &catalog.Index{ID: idIndexID, Name: "_id_", Key: bson.D{{Key: "_id", Value: int32(1)}}, Unique: true}
}

// idIndexFor is the _id index of a new collection whose listed options
// are opts: in the collection's default collation, if it has one, as
// in MongoDB (docs/collation.md, "The _id index"). The collation is kept
// in the index's catalog entry, which is what says how the collection's
// _id keys are made: entries written before this rule have none and
// stay simple-keyed.
func idIndexFor(opts bson.D) *catalog.Index {
	ix := idIndex()
	for _, e := range opts {
		if e.Key == "collation" && catalog.CollatorOf(e.Value) != nil {
			ix.Extra = bson.D{{Key: "collation", Value: e.Value}}
		}
	}
	return ix
}

// createOptions are the parsed options of a create command.
type createOptions struct {
	raw       bson.D // as listCollections shows them
	kind      catalog.Kind
	clustered bool // clusteredIndex (clustered.go)
	// uuid is the new collection's UUID when the command made it
	// before creating (its refusals name it, as mongod's); zero: made
	// at creation.
	uuid catalog.UUID
	// kind-specific parsed state, filled by the capped / time-series
	// parsers.
	ext any
}

// knownCreateFields are the create options ttlkv accepts; others are
// 40415 IDLUnknownField, as MongoDB's IDL parser reports.
var knownCreateFields = map[string]bool{
	"capped": true, "size": true, "max": true, "timeseries": true, "expireAfterSeconds": true,
	"validator": true, "validationLevel": true, "validationAction": true, "clusteredIndex": true,
	"collation": true, "storageEngine": true, "indexOptionDefaults": true, "comment": true,
	"writeConcern": true, "idIndex": true, "autoIndexId": true, "flags": true, "viewOn": true, "pipeline": true,
	"changeStreamPreAndPostImages": true, "lsid": true, "$db": true, "apiVersion": true, "apiStrict": true,
}

// parseCreateOptions validates create's options (everything but the
// command name) for the collection ns and decides its kind.
func parseCreateOptions(ns string, opts bson.D) (*createOptions, error) {
	co := &createOptions{kind: catalog.KindNormal}
	has := map[string]any{}
	for _, e := range opts {
		if !knownCreateFields[e.Key] {
			return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'create.%s' is an unknown field.", e.Key)
		}
		if e.Key == "changeStreamPreAndPostImages" {
			if err := checkPreImagesOption("create", e.Value); err != nil {
				return nil, err
			}
		}
		has[e.Key] = e.Value
	}
	if _, ok := has["collation"]; ok {
		// Stored and listed as the full specification (collation.go).
		var err error
		if opts, err = normalizeCreateCollation(opts); err != nil {
			return nil, err
		}
		delete(has, "collation")
		for _, e := range opts {
			has[e.Key] = e.Value
		}
	}
	if _, ok := has["pipeline"]; ok && has["viewOn"] == nil {
		return nil, document.Errorf(document.CodeInvalidOptions, "'pipeline' requires 'viewOn' to also be specified")
	}
	if _, ok := has["timeseries"]; ok {
		// mongod checks the time-series options before it makes a view.
		return parseTimeseriesCreate(ns, opts, has, co)
	}
	if _, ok := has["viewOn"]; ok {
		return parseViewCreate(opts, has, co)
	}
	// clusteredIndex is checked before the capped options, as MongoDB's
	// create command does (clustered_util::checkCreationOptions).
	clusteredV, hasClustered := has["clusteredIndex"]
	var spec bson.D
	if hasClustered {
		var err error
		if spec, err = parseClusteredIndex(clusteredV, has); err != nil {
			return nil, err
		}
	}
	expireV, hasExpire := has["expireAfterSeconds"]
	if hasExpire && spec == nil {
		return nil, document.Errorf(document.CodeInvalidOptions, "'expireAfterSeconds' is only supported on time-series collections or when the 'clusteredIndex' option is specified")
	}
	cappedV, hasCapped := has["capped"]
	capped := false
	if hasCapped {
		b, ok := cappedV.(bool)
		if !ok {
			if _, isNum := asFloat(cappedV); !isNum {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'create.capped' is the wrong type '%s', expected types '[bool, long, int, decimal, double]'", typeName(cappedV))
			}
			b, _ = asBool(cappedV)
		}
		capped = b
	}
	_, hasSize := has["size"]
	_, hasMax := has["max"]
	if capped {
		return parseCappedCreate(opts, has, co)
	}
	if hasSize || hasMax {
		return nil, document.Errorf(document.CodeInvalidOptions, "the 'capped' field needs to be true when either the 'size' or 'max' fields are present")
	}
	co.raw = visibleOptions(opts)
	if spec != nil {
		co.clustered = true
		co.raw = set(co.raw, "clusteredIndex", spec)
		if hasExpire {
			// Expiry by _id (clustered.go, "Clustered TTL").
			n, err := parseCollExpire("create", expireV)
			if err != nil {
				return nil, err
			}
			co.raw = set(co.raw, "expireAfterSeconds", n)
		}
	} else if hasClustered {
		co.raw = unset(co.raw, "clusteredIndex") // clusteredIndex: false
	}
	return co, nil
}

// checkIDIndexOption checks create's idIndex option (the _id index's
// spec) against the collection being made: its collation, if it gives
// one, must be the collection's, 2 BadValue otherwise, as MongoDB
// answers (docs/collation.md, "The _id index"). The _id index is made
// from the collection's options whatever else idIndex says.
func checkIDIndexOption(opts bson.D, co *createOptions) error {
	v, ok := get(opts, "idIndex")
	if !ok || co.kind == catalog.KindTimeseries || co.clustered {
		return nil
	}
	spec, ok := v.(bson.D)
	if !ok {
		return document.Errorf(document.CodeTypeMismatch, "BSON field 'create.idIndex' is the wrong type '%s', expected type 'object'", typeName(v))
	}
	cv, ok := get(spec, "collation")
	if !ok {
		return nil
	}
	full, err := normalizeCollation(cv)
	if err != nil {
		return err
	}
	want := idIndexFor(co.raw)
	if !collation.Equal(catalog.CollatorOf(full), want.Collator()) {
		var coll bson.D
		if c := want.Collator(); c != nil {
			coll = c.Doc()
		}
		return document.Errorf(document.CodeBadValue,
			"The _id index must have the same collation as the collection. Index collation: %s, collection collation: %s",
			fmtValue(collationShown(full)), fmtValue(collationShown(coll)))
	}
	return nil
}

// visibleOptions drops the generic command fields from options, and
// idIndex: as in mongod, it describes the _id index (listCollections
// shows that as idIndex beside the options), it is not an option the
// collection keeps. mongorestore sends it with every create.
func visibleOptions(opts bson.D) bson.D {
	out := bson.D{}
	for _, e := range opts {
		switch e.Key {
		case "comment", "writeConcern", "lsid", "$db", "apiVersion", "apiStrict", "idIndex":
			continue
		}
		out = append(out, e)
	}
	return out
}

// createColl creates db.name with opts (nil: an ordinary collection).
// It reports created=false when the collection already exists with
// the same options, and 48 NamespaceExists when the options differ.
func (db *DB) createColl(dbName, name string, opts bson.D) (*coll, bool, error) {
	if err := db.checkWritable(); err != nil {
		return nil, false, err
	}
	if err := validateCollName(dbName, name, false); err != nil {
		return nil, false, err
	}
	co, err := parseCreateOptions(dbName+"."+name, opts)
	if err != nil {
		return nil, false, err
	}
	if co.kind == catalog.KindView {
		on, pipe := viewDef(&catalog.Coll{Options: co.raw})
		if strings.HasPrefix(on, tsBucketsPre) {
			return nil, false, document.Errorf(document.CodeInvalidNamespace, "Cannot create view on a system.buckets namespace except by creating a time-series collection")
		}
		if err := checkViewPipeline(dbName+"."+name, pipe); err != nil {
			return nil, false, err
		}
	}
	if v, ok := get(opts, "autoIndexId"); ok && !truthy(v) {
		// mongod refuses it for every collection that can be
		// replicated, that is every user collection.
		return nil, false, document.Errorf(document.Code(50001), "autoIndexId:false is not allowed for collection %s.%s because it can be replicated", dbName, name)
	}
	if co.kind != catalog.KindView && co.kind != catalog.KindTimeseries {
		co.uuid = catalog.NewUUID()
	}
	if err := checkValidationOptions("create", dbName, name, co.uuid, opts, db.opts.Clock()); err != nil {
		return nil, false, err
	}
	co.raw = withValidationDefaults(co.raw)
	if err := checkIDIndexOption(opts, co); err != nil {
		return nil, false, err
	}
	return db.createParsed(dbName, name, co, opts != nil)
}

func (db *DB) createParsed(dbName, name string, co *createOptions, explicit bool) (*coll, bool, error) {
	db.catMu.Lock()
	defer db.catMu.Unlock()
	if c := db.lookup(dbName, name); c != nil {
		m := c.m()
		if !explicit || (m.Kind == co.kind && document.Equal(m.Options, co.raw)) {
			return c, false, nil
		}
		if m.Kind == catalog.KindView {
			return nil, false, viewExists(m, co)
		}
		return nil, false, document.Errorf(document.CodeNamespaceExists, "Collection %s already exists.", m.NS())
	}
	if co.kind == catalog.KindTimeseries {
		// It is a view over its buckets in mongod's view graph: the views
		// that already read its name must take it (collation, depth).
		if tc, ok := co.ext.(*tsCreate); ok {
			tm := &catalog.Coll{Options: co.raw}
			if err := db.checkViewGraph(dbName, name, tsBucketsPre+name, tsViewPipeline(tc.opts), tm.DefaultCollator()); err != nil {
				return nil, false, err
			}
		}
		return db.createTimeseriesLocked(dbName, name, co)
	}
	if co.kind == catalog.KindView {
		vm := &catalog.Coll{Options: co.raw}
		on, pipe := viewDef(vm)
		if err := db.checkViewGraph(dbName, name, on, pipe, vm.DefaultCollator()); err != nil {
			return nil, false, err
		}
	}
	m := &catalog.Coll{DB: dbName, Name: name, Kind: co.kind, Options: co.raw, NextIndexID: idIndexID + 1, Clustered: co.clustered}
	if co.kind != catalog.KindTimeseries && co.kind != catalog.KindView {
		m.UUID = co.uuid
		if m.UUID.IsZero() {
			m.UUID = catalog.NewUUID()
		}
		m.Indexes = []*catalog.Index{idIndexFor(co.raw)}
		m.Indexes[0].TypeBits = typedIndex(m, m.Indexes[0])
		if co.clustered {
			m.Indexes[0].Name, _ = getString(co.raw, "clusteredIndex", "name")
			if v, ok := get(co.raw, "expireAfterSeconds"); ok {
				m.Indexes[0].TTL, m.Indexes[0].Expire = true, v.(int64)
			}
		}
	}
	c := &coll{db: db}
	err := db.store.Update(func(txn *lsm.Txn) error {
		id, err := db.allocCollID(txn)
		if err != nil {
			return err
		}
		m.ID = id
		if err := db.prepareExt(c, m, co); err != nil {
			return err
		}
		if err := db.noteCreate(txn, m); err != nil {
			return err
		}
		return putMeta(txn, m)
	})
	if err != nil {
		db.abortExt(c, m)
		return nil, false, err
	}
	c.meta.Store(m)
	if err := kindOf(m).open(db, c); err != nil {
		return nil, false, err
	}
	db.mu.Lock()
	db.colls[m.NS()] = c
	db.mu.Unlock()
	return c, true, nil
}

// pendingDropKey marks a dropped collection whose data is still being
// removed; Open resumes such drops.
func pendingDropKey(id uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], id)
	return append(lsm.MetaKey("drop/"), b[:]...)
}

// dropColl removes a collection, its indexes and data. It reports
// false if the collection did not exist.
func (db *DB) dropColl(dbName, name string) (bool, error) {
	if err := db.checkWritable(); err != nil {
		return false, err
	}
	db.catMu.Lock()
	defer db.catMu.Unlock()
	if t := db.bucketsTarget(dbName, name); t != nil {
		// Dropping a time-series collection's buckets drops the
		// collection, as in mongod.
		return true, db.dropLocked(t)
	}
	c := db.lookup(dbName, name)
	if c == nil {
		return false, nil
	}
	return true, db.dropLocked(c)
}

// dropLocked drops c; the caller holds catMu.
func (db *DB) dropLocked(c *coll) error { return db.dropWith(c, nil, nil) }

// dropWith drops c; the caller holds catMu. With inTxn set, the drop
// logs no drop event and inTxn writes in the drop's transaction instead
// (a rename with dropTarget: its one rename event says the target went,
// as mongod's), and committed runs once that transaction has committed,
// before the dropped data is removed.
func (db *DB) dropWith(c *coll, inTxn func(*lsm.Txn) error, committed func()) error {
	m := c.m()
	c.wmu.Lock()
	defer c.wmu.Unlock()
	db.top.forget(m.DB + "." + m.Name)
	db.forgetIndexUse(m.ID)
	err := db.store.Update(func(txn *lsm.Txn) error {
		if err := txn.Delete(lsk(m)); err != nil {
			return err
		}
		note := inTxn
		if note == nil {
			note = func(txn *lsm.Txn) error { return db.noteDrop(txn, m) }
		}
		if err := note(txn); err != nil {
			return err
		}
		if m.Kind == catalog.KindView || m.Kind == catalog.KindTimeseries {
			// The database's system.views stays (system_views.go).
			if err := txn.Set(sysViewsKey(m.DB), nil); err != nil {
				return err
			}
		}
		return txn.Set(pendingDropKey(m.ID), nil)
	})
	if err != nil {
		return err
	}
	c.dropped.Store(true)
	db.ttl.ForgetColl(m.ID)
	db.mu.Lock()
	delete(db.colls, m.NS())
	if m.Kind == catalog.KindView || m.Kind == catalog.KindTimeseries {
		db.sysViews[m.DB] = true
	}
	db.mu.Unlock()
	db.cursors.killColl(c)
	if committed != nil {
		committed()
	}
	if err := kindOf(m).drop(db, c); err != nil {
		return err
	}
	return db.finishDrop(m.ID)
}

func lsk(m *catalog.Coll) []byte { return lsm.CatalogKey(m.DB, m.Name) }

// finishDrop removes every record and index key of collection id and
// then its pending-drop marker.
func (db *DB) finishDrop(id uint64) error {
	rp := lsm.RecordPrefix(id)
	if _, err := db.store.DeleteRange(rp, lsm.PrefixEnd(rp)); err != nil {
		return err
	}
	ip := lsm.CollectionIndexPrefix(id)
	if _, err := db.store.DeleteRange(ip, lsm.PrefixEnd(ip)); err != nil {
		return err
	}
	return db.store.Update(func(txn *lsm.Txn) error {
		if err := txn.Delete(lsm.SequenceKey(id)); err != nil {
			return err
		}
		return txn.Delete(pendingDropKey(id))
	})
}

// resumeDrops finishes drops a crash interrupted.
func (db *DB) resumeDrops() error {
	if db.opts.Role == RoleReadOnly {
		return nil
	}
	var ids []uint64
	pre := lsm.MetaKey("drop/")
	err := db.store.View(func(txn *lsm.Txn) error {
		it := txn.NewIter(lsm.IterOptions{Prefix: pre, KeysOnly: true})
		defer it.Close()
		for it.Next() {
			k := it.Key()
			if len(k) == len(pre)+8 {
				ids = append(ids, binary.BigEndian.Uint64(k[len(pre):]))
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, id := range ids {
		if err := db.finishDrop(id); err != nil {
			return err
		}
	}
	return nil
}

// dropDatabase drops every collection of dbName.
func (db *DB) dropDatabase(dbName string) error {
	if err := db.checkWritable(); err != nil {
		return err
	}
	db.catMu.Lock()
	defer db.catMu.Unlock()
	colls := db.collsOf(dbName)
	for _, c := range colls {
		if err := db.dropLocked(c); err != nil {
			return err
		}
	}
	had, err := db.dropSysViews(dbName)
	if err != nil {
		return err
	}
	if len(colls) > 0 || had {
		return db.noteDropDatabase(dbName)
	}
	return nil
}

// updateMeta replaces c's catalog entry with nm in one transaction
// (fn may write more in the same transaction) and publishes it.
func (db *DB) updateMeta(c *coll, nm *catalog.Coll, fn func(txn *lsm.Txn) error) error {
	err := db.store.Update(func(txn *lsm.Txn) error {
		if fn != nil {
			if err := fn(txn); err != nil {
				return err
			}
		}
		return putMeta(txn, nm)
	})
	if err != nil {
		return err
	}
	c.meta.Store(nm)
	return nil
}

var errNotFound = errors.New("not found")
