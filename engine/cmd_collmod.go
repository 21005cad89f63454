package engine

import (
	"bytes"
	"context"
	"math"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// FailpointCollModCommitted fires right after a collMod's catalog commit
// (the one that also carries its modify event), before the in-memory
// follow-ups such as the TTL monitor's reset.
const FailpointCollModCommitted = "collMod.committed"

// collModEdit applies one part of a collMod (an option group) to nm, the
// new catalog entry being built from m, the current one, under the
// collection's write lock. It returns the part's reply fields and, when
// something must follow the publication of the entry, a function called
// with the entry published. An edit commits nothing itself, so a collMod
// is one catalog commit or none (docs/change-streams.md).
type collModEdit func(m, nm *catalog.Coll) (reply bson.D, after func(fin *catalog.Coll), err error)

// cmdCollMod runs the collMod command.
func cmdCollMod(ctx context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	name, err := collName(cmd)
	if err != nil {
		return nil, err
	}
	if err := db.checkWritable(); err != nil {
		return nil, err
	}
	var indexOpt bson.D
	hasIndex := false
	var collOpts bson.D
	var images any
	var capOpts bson.D
	var viewOpts bson.D
	dryRun := false
	for _, e := range cmd[1:] {
		switch e.Key {
		case "viewOn", "pipeline":
			viewOpts = append(viewOpts, e)
		case "changeStreamPreAndPostImages":
			if err := checkPreImagesOption("collMod", e.Value); err != nil {
				return nil, err
			}
			images = e.Value
		case "index":
			hasIndex = true
			d, ok := e.Value.(bson.D)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.index' is the wrong type '%s', expected type 'object'", typeName(e.Value))
			}
			indexOpt = d
		case "expireAfterSeconds", "timeseries", "validator", "validationLevel", "validationAction":
			collOpts = append(collOpts, e)
		case "cappedSize", "cappedMax":
			capOpts = append(capOpts, e)
		case "dryRun":
			b, ok := asBool(e.Value)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.dryRun' is the wrong type '%s', expected types '[bool, long, int, decimal, double']", typeName(e.Value))
			}
			dryRun = b
		case "comment", "writeConcern", "lsid", "$db":
		default:
			return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'collMod.%s' is an unknown field.", e.Key)
		}
	}
	if dryRun {
		return db.collModDryRun(dbName, name, indexOpt, hasIndex, len(collOpts)+len(capOpts)+len(viewOpts)+btoi(images != nil))
	}
	var resize *cappedResize
	if len(capOpts) > 0 {
		if resize, err = parseCappedResize(capOpts); err != nil {
			return nil, err
		}
	}
	db.catMu.Lock()
	defer db.catMu.Unlock()
	c := db.lookup(dbName, name)
	if c == nil {
		return nil, document.Errorf(document.CodeNamespaceNotFound, "ns does not exist: %s.%s", dbName, name)
	}
	if c.m().Kind == catalog.KindView || viewOpts != nil {
		if c.m().Kind != catalog.KindView {
			// mongod checks pipeline before viewOn.
			k := viewOpts[0].Key
			if _, ok := get(viewOpts, "pipeline"); ok {
				k = "pipeline"
			}
			return nil, document.Errorf(document.CodeInvalidOptions, "option only supported on a view: %s", k)
		}
		// mongod's parseCollModRequest names the first option a view
		// does not take (72), in its order of options, not the
		// command's.
		for _, k := range []string{"index", "validator", "validationLevel", "validationAction", "changeStreamPreAndPostImages", "expireAfterSeconds", "timeseries", "cappedSize", "cappedMax"} {
			if _, ok := get(cmd[1:], k); ok {
				return nil, document.Errorf(document.CodeInvalidOptions, "option not supported on a view: %s", k)
			}
		}
		return bson.D{}, db.modifyView(c, viewOpts)
	}
	if c.m().Kind == catalog.KindTimeseries {
		// parseCollModRequest's refusals, in its order.
		for _, k := range []string{"validator", "validationLevel", "validationAction", "changeStreamPreAndPostImages"} {
			if _, ok := get(cmd[1:], k); ok {
				return nil, document.Errorf(document.CodeInvalidOptions, "option not supported on a time-series collection: %s", k)
			}
		}
	}
	if resize != nil && c.m().Kind != catalog.KindCapped {
		// Before anything changes (docs/capped.md §7.8).
		_, err := db.resizeCapped(ctx, c, resize, nil, nil)
		return nil, err
	}
	var edits []collModEdit
	if images != nil {
		edits = append(edits, func(_, nm *catalog.Coll) (bson.D, func(*catalog.Coll), error) {
			nm.Options = set(append(bson.D(nil), nm.Options...), "changeStreamPreAndPostImages", images)
			return nil, nil, nil
		})
	}
	if hasIndex {
		edits = append(edits, func(m, nm *catalog.Coll) (bson.D, func(*catalog.Coll), error) {
			return db.collModIndex(m, nm, indexOpt)
		})
	}
	if len(collOpts) > 0 {
		edits = append(edits, func(m, nm *catalog.Coll) (bson.D, func(*catalog.Coll), error) {
			collOpts := collOpts // an edit may be applied again
			if m.Kind != catalog.KindTimeseries {
				// Time-series collections refuse validators
				// (collModTimeseries); the others take them
				// (docs/validation.md).
				val, rest := splitValidationOptions(collOpts)
				if err := checkValidationOptions("collMod", dbName, name, m.UUID, val, db.opts.Clock()); err != nil {
					return nil, nil, err
				}
				if len(val) > 0 {
					collModValidation(nm, val)
				}
				collOpts = rest
			}
			switch {
			case m.Kind == catalog.KindTimeseries:
				return db.collModTimeseries(c, m, nm, collOpts)
			case m.Clustered:
				return db.collModClustered(m, nm, collOpts)
			}
			for _, e := range collOpts {
				switch e.Key {
				case "expireAfterSeconds":
					return nil, nil, document.Errorf(document.CodeInvalidOptions, "'expireAfterSeconds' option is only supported on collections clustered by _id")
				case "timeseries":
					return nil, nil, document.Errorf(document.CodeInvalidOptions, "option only supported on a time-series collection: timeseries")
				}
			}
			return nil, nil, nil
		})
	}
	// The modify event goes in the transaction of the catalog commit, so
	// a crash keeps both or neither.
	desc := modifyDesc(cmd)
	note := func(txn *lsm.Txn, m *catalog.Coll) error {
		return db.noteModify(txn, m, modifyIndexDesc(m, desc), modifyBefore(m, indexOpt))
	}
	reply := bson.D{}
	var r bson.D
	switch {
	case resize != nil:
		r, err = db.resizeCapped(ctx, c, resize, edits, note)
	default:
		// Even with nothing to change: mongod's collMod of a collection
		// always writes its oplog entry, so a stream sees a modify.
		r, err = db.collModCommit(c, edits, note)
	}
	if err != nil {
		return nil, err
	}
	return append(reply, r...), nil
}

// collModDryRun runs collMod's dryRun: true, which only checks that an
// index may be made unique (mongod's _processCollModDryRunMode): the
// request must be the index form with unique: true and nothing else
// (72 otherwise); the index's usual checks apply, its duplicates are
// 359 with their violations, and nothing changes. others counts the
// collection options the command holds besides its index form.
func (db *DB) collModDryRun(dbName, name string, indexOpt bson.D, hasIndex bool, others int) (bson.D, error) {
	if !hasIndex {
		return nil, document.Errorf(document.CodeInvalidOptions, "dry run mode requires an valid index modification.")
	}
	if v, ok := get(indexOpt, "unique"); !ok || !truthy(v) {
		return nil, document.Errorf(document.CodeInvalidOptions, "dry run mode requires an index modification with unique: true.")
	}
	for _, k := range []string{"expireAfterSeconds", "hidden", "prepareUnique", "forceNonUnique"} {
		if _, ok := get(indexOpt, k); ok {
			others++
		}
	}
	if others > 0 {
		return nil, document.Errorf(document.CodeInvalidOptions, "unique: true cannot be combined with any other modification in dry run mode.")
	}
	db.catMu.Lock()
	defer db.catMu.Unlock()
	c := db.lookup(dbName, name)
	if c == nil {
		return nil, document.Errorf(document.CodeNamespaceNotFound, "ns does not exist: %s.%s", dbName, name)
	}
	if c.m().Kind == catalog.KindView {
		return nil, document.Errorf(document.CodeInvalidOptions, "option not supported on a view: index")
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	m := c.m()
	if _, _, err := db.collModIndex(m, m.Clone(), indexOpt); err != nil {
		return nil, err
	}
	return bson.D{}, nil
}

// btoi is 1 for true, 0 for false.
func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// collModCommit applies edits to c's catalog entry and publishes the
// result in one transaction, which note (the modify event) writes in
// too. Nothing changes when an edit fails. The caller holds catMu.
func (db *DB) collModCommit(c *coll, edits []collModEdit, note func(*lsm.Txn, *catalog.Coll) error) (bson.D, error) {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	m := c.m()
	if m.Kind == catalog.KindTimeseries {
		// Bucket writers read the options the commit changes.
		if _, bc, err := db.tsParts(c); err == nil && bc != nil {
			bc.wmu.Lock()
			defer bc.wmu.Unlock()
		}
	}
	nm, reply, afters, err := applyCollModEdits(m, edits)
	if err != nil {
		return nil, err
	}
	err = db.updateMeta(c, nm, func(txn *lsm.Txn) error {
		if note == nil {
			return nil
		}
		return note(txn, m)
	})
	if err != nil {
		return nil, err
	}
	db.failpoint(FailpointCollModCommitted)
	for _, f := range afters {
		f(nm)
	}
	return reply, nil
}

// applyCollModEdits builds the catalog entry edits make of m, with their
// replies and follow-ups in order.
func applyCollModEdits(m *catalog.Coll, edits []collModEdit) (*catalog.Coll, bson.D, []func(*catalog.Coll), error) {
	nm := m.Clone()
	reply := bson.D{}
	var afters []func(*catalog.Coll)
	for _, e := range edits {
		r, after, err := e(m, nm)
		if err != nil {
			return nil, nil, nil, err
		}
		reply = append(reply, r...)
		if after != nil {
			afters = append(afters, after)
		}
	}
	return nm, reply, afters, nil
}

// collModIndex applies collMod's index form (docs/collmod.md §5.1) to
// nm, built from m.
func (db *DB) collModIndex(m, nm *catalog.Coll, opt bson.D) (bson.D, func(*catalog.Coll), error) {
	var ref any
	nameV, hasName := get(opt, "name")
	keyV, hasKey := get(opt, "keyPattern")
	switch {
	case hasName && hasKey:
		return nil, nil, document.Errorf(document.CodeInvalidOptions, "Cannot specify both key pattern and name.")
	case !hasName && !hasKey:
		return nil, nil, document.Errorf(document.CodeInvalidOptions, "Must specify either index name or key pattern.")
	case hasName:
		if _, ok := nameV.(string); !ok {
			return nil, nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.index.name' is the wrong type '%s', expected type 'string'", typeName(nameV))
		}
		ref = nameV
	default:
		if _, ok := keyV.(bson.D); !ok {
			return nil, nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.index.keyPattern' is the wrong type '%s', expected type 'object'", typeName(keyV))
		}
		ref = keyV
	}
	expV, hasExp := get(opt, "expireAfterSeconds")
	hidV, hasHid := get(opt, "hidden")
	uniV, hasUni := get(opt, "unique")
	prepV, hasPrep := get(opt, "prepareUnique")
	forceV, hasForce := get(opt, "forceNonUnique")
	for _, e := range opt {
		switch e.Key {
		case "name", "keyPattern", "expireAfterSeconds", "hidden":
		case "unique", "prepareUnique", "forceNonUnique":
			if _, ok := asBool(e.Value); !ok {
				return nil, nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.index.%s' is the wrong type '%s', expected types '[bool, long, int, decimal, double]'", e.Key, typeName(e.Value))
			}
		default:
			return nil, nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'collMod.index.%s' is an unknown field.", e.Key)
		}
	}
	if !hasExp && !hasHid && !hasUni && !hasPrep && !hasForce {
		return nil, nil, document.Errorf(document.CodeInvalidOptions, "no expireAfterSeconds, hidden, unique, or prepareUnique field")
	}
	if hasUni && hasForce {
		return nil, nil, document.Errorf(document.CodeInvalidOptions, "collMod does not support 'unique' and 'forceNonUnique' options at the same time")
	}
	if hasPrep && (hasExp || hasHid || hasUni || hasForce) {
		return nil, nil, document.Errorf(document.CodeInvalidOptions, "prepareUnique cannot be combined with any other modification.")
	}
	newUnique, _ := asBool(uniV)
	newPrep, _ := asBool(prepV)
	force, _ := asBool(forceV)
	if hasUni && !newUnique {
		return nil, nil, document.Errorf(document.CodeBadValue, "Cannot make index non-unique")
	}
	if m.Kind == catalog.KindTimeseries && hasExp {
		return nil, nil, document.Errorf(document.CodeInvalidOptions, "TTL indexes are not supported for time-series collections")
	}
	if m.Kind == catalog.KindCapped && hasExp {
		// docs/ttl-indexes.md §1.4: TTL and capped are incompatible, however the TTL
		// index would come about.
		return nil, nil, document.Errorf(document.CodeInvalidOptions, "TTL indexes are not supported for capped collections.")
	}
	var newExp int64
	if hasExp {
		switch v := expV.(type) {
		case int32, int64, float64, bson.Decimal128:
			f, _ := asFloat(v)
			if math.IsNaN(f) {
				return nil, nil, document.Errorf(document.CodeInvalidOptions, "TTL index 'expireAfterSeconds' option must not be NaN")
			}
			if f < 0 {
				return nil, nil, document.Errorf(document.CodeInvalidOptions, "TTL index 'expireAfterSeconds' option cannot be less than 0, found %s", fmtValue(v))
			}
			if math.Trunc(f) > math.MaxInt32 {
				return nil, nil, document.Errorf(document.CodeInvalidOptions, "TTL index 'expireAfterSeconds' option must be within the range of a 32-bit integer, found %s", fmtValue(v))
			}
			newExp = int64(math.Trunc(f))
		default:
			return nil, nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.index.expireAfterSeconds' is the wrong type '%s', expected types '[long, int, decimal, double]'", typeName(expV))
		}
	}
	var newHidden bool
	if hasHid {
		b, ok := hidV.(bool)
		if !ok {
			return nil, nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.index.hidden' is the wrong type '%s', expected type 'bool'", typeName(hidV))
		}
		newHidden = b
	}
	ix, err := collModFindIndex(m, ref)
	if err != nil {
		return nil, nil, err
	}
	if hasExp {
		if ix.ID == idIndexID {
			return nil, nil, document.Errorf(document.CodeInvalidOptions, "the _id field does not support TTL indexes")
		}
		if len(ix.Key) > 1 {
			return nil, nil, document.Errorf(document.CodeInvalidOptions, "TTL indexes are single-field indexes, compound indexes do not support TTL")
		}
	}
	if hasHid && ix.ID == idIndexID {
		return nil, nil, document.Errorf(document.CodeBadValue, "can't hide _id index")
	}
	if (hasPrep || hasUni) && !ix.Unique {
		// Enforced where ttlkv's writes check unique indexes, as
		// createIndexes' prepareUnique.
		switch {
		case m.Kind != catalog.KindNormal || isBucketsColl(m) || m.Clustered:
			return nil, nil, document.Errorf(document.CodeInvalidOptions, "prepareUnique is not supported by ttlkv on a %s collection", collKindName(m))
		case !plainBtreeKey(ix.Key):
			return nil, nil, document.Errorf(document.CodeInvalidOptions, "prepareUnique is not supported by ttlkv on a hashed, text, wildcard or geospatial index")
		}
	}
	convert := hasUni && !ix.Unique
	if convert {
		if !ix.PrepareUnique {
			return nil, nil, document.Errorf(document.CodeInvalidOptions, "Cannot make index unique with 'prepareUnique=false'. Run collMod to set it first.")
		}
		// prepareUnique kept new duplicates out; the ones from before
		// must be gone.
		violations, over, err := db.uniqueViolations(m, ix)
		if err != nil {
			return nil, nil, err
		}
		if len(violations) > 0 {
			msg := "Cannot convert the index to unique. Please resolve conflicting documents before running collMod again."
			if over {
				msg = "Cannot convert the index to unique. Too many conflicting documents were detected. Please resolve them and rerun collMod."
			}
			e := document.Errorf(document.CodeCannotConvertIndexToUnique, "%s", msg)
			e.Info = map[string]any{"violations": violations}
			return nil, nil, e
		}
	}
	if hasForce && !force {
		return nil, nil, document.Errorf(document.CodeBadValue, "'forceNonUnique: false' is not supported")
	}
	// A unique index made an ordinary one again (mongod 7.0); the _id
	// index stays unique, as mongod's does whatever its spec says.
	unforce := hasForce && ix.Unique
	prepChange := hasPrep && newPrep != ix.PrepareUnique && !ix.Unique
	nix := indexByID(nm, ix.ID)
	reply := bson.D{}
	if hasExp {
		if ix.TTL {
			reply = append(reply, bson.E{Key: "expireAfterSeconds_old", Value: int32(ix.Expire)})
		}
		reply = append(reply, bson.E{Key: "expireAfterSeconds_new", Value: int32(newExp)})
		nix.TTL, nix.Expire = true, newExp
	}
	if hasHid && newHidden != ix.Hidden {
		// A no-op is not reported, as mongod's collMod does not.
		reply = append(reply, bson.E{Key: "hidden_old", Value: ix.Hidden}, bson.E{Key: "hidden_new", Value: newHidden})
		nix.Hidden = newHidden
	}
	if convert {
		// prepareUnique has done its work: mongod resets it.
		reply = append(reply, bson.E{Key: "unique_new", Value: true})
		nix.Unique, nix.PrepareUnique = true, false
	}
	if prepChange {
		reply = append(reply, bson.E{Key: "prepareUnique_old", Value: ix.PrepareUnique}, bson.E{Key: "prepareUnique_new", Value: newPrep})
		nix.PrepareUnique = newPrep
	}
	if unforce {
		reply = append(reply, bson.E{Key: "forceNonUnique_new", Value: true})
		nix.Unique = ix.ID == idIndexID
	}
	if !hasExp {
		return reply, nil, nil
	}
	ixID := ix.ID
	return reply, func(fin *catalog.Coll) { db.ttl.ResetLowWater(fin.ID, ixID) }, nil
}

// maxViolationBytes is how much of the _id elements collMod's
// CannotConvertIndexToUnique lists at most, as mongod's: half the
// largest document.
const maxViolationBytes = 8 << 20

// uniqueViolations returns the documents index ix (of collection m, an
// ordinary unclustered one) holds two or more of under one key, as
// mongod's collMod lists them: a {ids: [...]} group a key, in key order,
// each group's _ids in record order. Past maxViolationBytes of _id
// elements the list stops (over), with one _id at least.
func (db *DB) uniqueViolations(m *catalog.Coll, ix *catalog.Index) (violations bson.A, over bool, err error) {
	var groups [][]uint64
	pre := lsm.IndexPrefix(m.ID, ix.ID)
	err = db.store.View(func(rt *lsm.Txn) error {
		it := rt.NewIter(lsm.IterOptions{Prefix: pre, KeysOnly: true})
		defer it.Close()
		var last []byte
		var lastRID uint64
		var cur []uint64
		for it.Next() {
			ks, rid, ok := lsm.SplitIndexKey(it.Key())
			if !ok {
				continue
			}
			if last != nil && bytes.Equal(ks, last) {
				if len(cur) == 0 {
					cur = append(cur, lastRID)
				}
				cur = append(cur, rid)
			} else if len(cur) > 0 {
				groups, cur = append(groups, cur), nil
			}
			last, lastRID = append(last[:0], ks...), rid
		}
		if len(cur) > 0 {
			groups = append(groups, cur)
		}
		if len(groups) == 0 {
			return nil
		}
		size := 0
		for _, g := range groups {
			ids := bson.A{}
			for _, rid := range g {
				d, _, err := getRecord(rt, m.ID, rid)
				if err != nil {
					return err
				}
				id, _ := get(d, "_id")
				el, _ := bson.Marshal(bson.D{{Key: "_id", Value: id}})
				size += len(el) - 5 // the element, without the document's length and end
				if size > maxViolationBytes {
					if len(violations) == 0 && len(ids) == 0 {
						ids = append(ids, id)
					}
					if len(ids) > 0 {
						violations = append(violations, bson.D{{Key: "ids", Value: ids}})
					}
					over = true
					return nil
				}
				ids = append(ids, id)
			}
			violations = append(violations, bson.D{{Key: "ids", Value: ids}})
		}
		return nil
	})
	return violations, over, err
}

// plainBtreeKey reports whether key is an ordinary B-tree key pattern:
// numbers only, no wildcard path.
func plainBtreeKey(key bson.D) bool {
	for _, f := range key {
		if _, isStr := f.Value.(string); isStr || indexkey.IsWildcard(bson.D{f}) || catalog.IsTextKey(bson.D{f}) {
			return false
		}
	}
	return true
}

// collModFindIndex resolves collMod's index name or key pattern, with
// mongod's collMod messages (which differ from dropIndexes').
func collModFindIndex(m *catalog.Coll, ref any) (*catalog.Index, error) {
	if name, ok := ref.(string); ok {
		if ix := m.Index(name); ix != nil {
			return ix, nil
		}
		return nil, document.Errorf(document.CodeIndexNotFound, "cannot find index %s for ns %s", name, m.NS())
	}
	key, _ := ref.(bson.D)
	var found []*catalog.Index
	for _, ix := range m.Indexes {
		if document.Equal(ix.Key, key) {
			found = append(found, ix)
		}
	}
	switch len(found) {
	case 0:
		return nil, document.Errorf(document.CodeIndexNotFound, "cannot find index %s for ns %s", fmtValue(key), m.NS())
	case 1:
		return found[0], nil
	}
	return nil, document.Errorf(document.CodeAmbiguousIndexKeyPattern, "index keyPattern %s matches %d indexes, must use index name. Conflicting indexes:%s, %s",
		fmtValue(key), len(found), fmtValue(listIndexEntry(found[0])), fmtValue(listIndexEntry(found[1])))
}
