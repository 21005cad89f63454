package engine

import (
	"context"
	"math"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

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
	for _, e := range cmd[1:] {
		switch e.Key {
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
		case "comment", "writeConcern", "lsid", "$db", "dryRun":
		default:
			return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'collMod.%s' is an unknown field.", e.Key)
		}
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
	if resize != nil && c.m().Kind != kindCapped {
		// Before anything changes (docs/capped.md §7.8).
		return nil, db.resizeCapped(ctx, c, resize)
	}
	reply := bson.D{}
	desc, before := modifyDesc(cmd), modifyBefore(c, indexOpt)
	if images != nil {
		if err := db.collModPreImages(c, images); err != nil {
			return nil, err
		}
	}
	if hasIndex {
		r, err := db.collModIndex(c, indexOpt)
		if err != nil {
			return nil, err
		}
		reply = append(reply, r...)
	}
	if len(collOpts) > 0 {
		if c.m().Kind == kindTimeseries {
			r, err := db.collModTimeseries(c, collOpts)
			if err != nil {
				return nil, err
			}
			reply = append(reply, r...)
		} else if c.m().Clustered {
			r, err := db.collModClustered(c, collOpts)
			if err != nil {
				return nil, err
			}
			reply = append(reply, r...)
		} else {
			for _, e := range collOpts {
				switch e.Key {
				case "expireAfterSeconds":
					return nil, document.Errorf(document.CodeInvalidOptions, "'expireAfterSeconds' option is only supported on collections clustered by _id")
				case "timeseries":
					return nil, document.Errorf(document.CodeInvalidOptions, "option only supported on a time-series collection: timeseries")
				}
			}
		}
	}
	if resize != nil {
		if err := db.resizeCapped(ctx, c, resize); err != nil {
			return nil, err
		}
	}
	if err := db.noteModify(c, desc, before); err != nil {
		return nil, err
	}
	return reply, nil
}

// collModIndex applies collMod's index form (docs/collmod.md §5.1).
func (db *DB) collModIndex(c *coll, opt bson.D) (bson.D, error) {
	m := c.m()
	var ref any
	nameV, hasName := get(opt, "name")
	keyV, hasKey := get(opt, "keyPattern")
	switch {
	case hasName && hasKey:
		return nil, document.Errorf(document.CodeInvalidOptions, "Cannot specify both key pattern and name.")
	case !hasName && !hasKey:
		return nil, document.Errorf(document.CodeInvalidOptions, "Must specify either index name or key pattern.")
	case hasName:
		if _, ok := nameV.(string); !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.index.name' is the wrong type '%s', expected type 'string'", typeName(nameV))
		}
		ref = nameV
	default:
		if _, ok := keyV.(bson.D); !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.index.keyPattern' is the wrong type '%s', expected type 'object'", typeName(keyV))
		}
		ref = keyV
	}
	expV, hasExp := get(opt, "expireAfterSeconds")
	hidV, hasHid := get(opt, "hidden")
	for _, e := range opt {
		switch e.Key {
		case "name", "keyPattern", "expireAfterSeconds", "hidden":
		case "unique", "prepareUnique", "forceNonUnique":
			return nil, document.Errorf(document.CodeInvalidOptions, "collMod option '%s' is not supported by ttlkv", e.Key)
		default:
			return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'collMod.index.%s' is an unknown field.", e.Key)
		}
	}
	if !hasExp && !hasHid {
		return nil, document.Errorf(document.CodeInvalidOptions, "no expireAfterSeconds or hidden field")
	}
	if m.Kind == kindTimeseries && hasExp {
		return nil, document.Errorf(document.CodeInvalidOptions, "TTL indexes are not supported for time-series collections")
	}
	if m.Kind == kindCapped && hasExp {
		// docs/ttl-indexes.md §1.4: TTL and capped are incompatible, however the TTL
		// index would come about.
		return nil, document.Errorf(document.CodeInvalidOptions, "TTL indexes are not supported for capped collections.")
	}
	var newExp int64
	if hasExp {
		switch v := expV.(type) {
		case int32, int64, float64, bson.Decimal128:
			f, _ := asFloat(v)
			if math.IsNaN(f) {
				return nil, document.Errorf(document.CodeInvalidOptions, "TTL index 'expireAfterSeconds' option must not be NaN")
			}
			if f < 0 {
				return nil, document.Errorf(document.CodeInvalidOptions, "TTL index 'expireAfterSeconds' option cannot be less than 0, found %s", fmtValue(v))
			}
			if math.Trunc(f) > math.MaxInt32 {
				return nil, document.Errorf(document.CodeInvalidOptions, "TTL index 'expireAfterSeconds' option must be within the range of a 32-bit integer, found %s", fmtValue(v))
			}
			newExp = int64(math.Trunc(f))
		default:
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.index.expireAfterSeconds' is the wrong type '%s', expected types '[long, int, decimal, double]'", typeName(expV))
		}
	}
	var newHidden bool
	if hasHid {
		b, ok := hidV.(bool)
		if !ok {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'collMod.index.hidden' is the wrong type '%s', expected type 'bool'", typeName(hidV))
		}
		newHidden = b
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	m = c.m()
	ix, err := findIndex(m, ref)
	if err != nil {
		return nil, err
	}
	if hasExp {
		if ix.ID == idIndexID {
			return nil, document.Errorf(document.CodeInvalidOptions, "the _id field does not support TTL indexes")
		}
		if len(ix.Key) > 1 {
			return nil, document.Errorf(document.CodeInvalidOptions, "TTL indexes are single-field indexes, compound indexes do not support TTL")
		}
	}
	if hasHid && ix.ID == idIndexID {
		return nil, document.Errorf(document.CodeBadValue, "can't hide _id index")
	}
	nm := m.clone()
	for i := range nm.Indexes {
		nm.Indexes[i].partial = m.Indexes[i].partial
	}
	nix := indexByID(nm, ix.ID)
	reply := bson.D{}
	if hasExp {
		if ix.TTL {
			reply = append(reply, bson.E{Key: "expireAfterSeconds_old", Value: int32(ix.Expire)})
		}
		reply = append(reply, bson.E{Key: "expireAfterSeconds_new", Value: int32(newExp)})
		nix.TTL, nix.Expire = true, newExp
	}
	if hasHid {
		reply = append(reply, bson.E{Key: "hidden_old", Value: ix.Hidden}, bson.E{Key: "hidden_new", Value: newHidden})
		nix.Hidden = newHidden
	}
	if err := db.updateMeta(c, nm, nil); err != nil {
		return nil, err
	}
	if hasExp {
		db.ttl.resetLowWater(nm.ID, ix.ID)
	}
	return reply, nil
}
