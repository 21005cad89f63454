package engine

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A clustered collection (create's clusteredIndex option, MongoDB's
// clustered collections) keeps each document in the value of its _id
// index entry instead of under a record key of its own:
//
//	_id entry        index tag, coll, _id index, _id keystring, rid -> document
//	secondary entry  index tag, coll, index, keystring, rid -> _id keystring
//
// (a TTL index's secondary entry holds its _id keystring inside the
// value of docs/ttl-indexes.md §3, entryID).
//
// A document is then two keys with one secondary index instead of
// three, and deleting it (a TTL delete) writes two tombstones: the cost
// the TTL reap is measured against (benchmarks/RESULTS.md). Natural
// order is _id order, as in MongoDB. Record ids stay: they keep the
// entry keys of equal secondary keys distinct and ordered, and they
// are allocated from a block reserved in the collection's sequence key
// (its records no longer sort by them, so Open cannot find the highest
// by a reverse scan).

// recKey returns the key holding document rid: its record key, or in a
// clustered collection its _id entry, whose _id keystring is id.
func recKey(m *catalog.Coll, rid uint64, id []byte) []byte {
	if m.Clustered {
		return lsm.IndexKey(m.ID, idIndexID, id, rid)
	}
	return lsm.RecordKey(m.ID, rid)
}

// recPrefix returns the prefix of the keys holding m's documents.
func recPrefix(m *catalog.Coll) []byte {
	if m.Clustered {
		return lsm.IndexPrefix(m.ID, idIndexID)
	}
	return lsm.RecordPrefix(m.ID)
}

// splitRecKey returns the record id of a key under recPrefix and, in a
// clustered collection, its _id keystring (a slice of k).
func splitRecKey(m *catalog.Coll, k []byte) (rid uint64, id []byte) {
	if m.Clustered {
		ks, rid, _ := lsm.SplitIndexKey(k)
		return rid, ks
	}
	_, rid, _ = lsm.DecodeRecordKey(k)
	return rid, nil
}

// idKeyOf returns the _id keystring of d in a clustered collection, nil
// in any other.
func idKeyOf(m *catalog.Coll, d bson.D) []byte {
	if !m.Clustered {
		return nil
	}
	v, _ := get(d, "_id")
	return appendIDKey(m, nil, v)
}

// entryValue returns the value of an index entry of ix for a document
// whose encoding is raw: nothing, except for a TTL index, whose entry
// carries what its document's delete needs (ttlEntryValue), and in a
// clustered collection, where the _id entry holds the document and the
// others its _id keystring (a TTL index's inside its carried value).
// An index that keeps type bits (typebits.go) carries them instead when
// the key loses something of the document's values; a TTL index's
// entry then carries no TTL value, which only a date needs (a key of
// another type never expires).
func entryValue(m *catalog.Coll, ix *catalog.Index, d bson.D, raw []byte) []byte {
	if keepsTypeBits(m, ix) {
		if tb := typeBitsOf(ix, d); tb != nil {
			return tb
		}
	}
	return untypedEntryValue(m, ix, d, raw)
}

// entryValueFor is entryValue for the entry of keystring k: type bits
// are not looked for when k's one field loses nothing
// (mayNeedTypeBits: a date's, an ObjectId's).
func entryValueFor(m *catalog.Coll, ix *catalog.Index, k []byte, d bson.D, raw []byte) []byte {
	if ix.TypeBits && !mayNeedTypeBits(ix, k) {
		return untypedEntryValue(m, ix, d, raw)
	}
	return entryValue(m, ix, d, raw)
}

// untypedEntryValue is entryValue without type bits.
func untypedEntryValue(m *catalog.Coll, ix *catalog.Index, d bson.D, raw []byte) []byte {
	if carriesTTLValue(m, ix) {
		return ttlEntryValue(m, d, raw)
	}
	if !m.Clustered {
		return nil
	}
	if ix.ID == idIndexID {
		return raw
	}
	return idKeyOf(m, d)
}

// entryID returns the _id keystring held by v, the value of a clustered
// collection's secondary index entry: v itself, or the keystring inside
// a TTL entry's carried value (ttlEntryValue; no keystring begins with
// its version byte). It is a slice of v.
func entryID(v []byte) []byte {
	if _, id, ok := parseTTLEntry(v); ok {
		return id
	}
	return v
}

// sortRidsByID orders rids by their _id keystrings in ids, the order of a
// clustered collection's documents, so that a batch reads them with one
// forward iterator.
func sortRidsByID(rids []uint64, ids map[uint64][]byte) []uint64 {
	out := slices.Clone(rids)
	slices.SortFunc(out, func(a, b uint64) int {
		if c := bytes.Compare(ids[a], ids[b]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	return out
}

// ridBlock is how many record ids a clustered collection reserves at a
// time in its sequence key.
const ridBlock = 1 << 16

// reserveRID stages, in an insert's transaction, a new reservation
// when rid passes the collection's reserved ceiling, and returns the
// ceiling to publish once the transaction commits (0: none). The caller
// holds c.wmu, under which every record id of the collection is
// allocated.
func (c *coll) reserveRID(txn *lsm.Txn, m *catalog.Coll, rid uint64, staged uint64) (uint64, error) {
	if !m.Clustered || rid <= c.ridCeil || rid <= staged {
		return staged, nil
	}
	ceil := rid + ridBlock
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], ceil)
	return ceil, txn.Set(lsm.SequenceKey(m.ID), b[:])
}

// loadRIDCeil sets a clustered collection's record-id counter from its
// reserved ceiling: every id ever used is at most the ceiling.
func (c *coll) loadRIDCeil(txn *lsm.Txn, m *catalog.Coll) error {
	v, err := txn.Get(lsm.SequenceKey(m.ID))
	if err == lsm.ErrNotFound {
		return nil
	} else if err != nil {
		return err
	}
	if len(v) == 8 {
		c.ridCeil = binary.BigEndian.Uint64(v)
		c.nextRID.Store(c.ridCeil)
	}
	return nil
}

// clusteredIDs returns the ids map (recKey) of one document rid, d, of m: nil
// unless m is clustered.
func clusteredIDs(m *catalog.Coll, rid uint64, d bson.D) map[uint64][]byte {
	if !m.Clustered {
		return nil
	}
	return map[uint64][]byte{rid: idKeyOf(m, d)}
}

// parseClusteredIndex validates create's clusteredIndex option, in
// MongoDB's order (create_command.cpp, create_collection.cpp), and
// returns it as listCollections shows it: {v: 2, key: {_id: 1}, name,
// unique: true}; nil for clusteredIndex: false (an ordinary
// collection).
func parseClusteredIndex(v any, has map[string]any) (bson.D, error) {
	spec, ok := v.(bson.D)
	if !ok {
		b, isBool := asBool(v)
		if _, isNum := asFloat(v); !isBool && !isNum {
			return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'create.clusteredIndex' is the wrong type '%s', expected types '[bool, object]'", typeName(v))
		}
		if !b {
			return nil, nil
		}
		return nil, document.Errorf(5979703, "The 'clusteredIndex' legacy format {clusteredIndex: <bool>} is only supported for specific internal collections and vice versa")
	}
	name := "_id_"
	var key bson.D
	version := int64(2)
	var unique, hasUnique, hasKey bool
	for _, e := range spec {
		switch e.Key {
		case "key":
			k, ok := e.Value.(bson.D)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'create.clusteredIndex.key' is the wrong type '%s', expected type 'object'", typeName(e.Value))
			}
			key, hasKey = k, true
		case "unique":
			b, ok := asBool(e.Value)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'create.clusteredIndex.unique' is the wrong type '%s', expected types '[bool, long, int, decimal, double]'", typeName(e.Value))
			}
			unique, hasUnique = b, true
		case "name":
			s, ok := e.Value.(string)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'create.clusteredIndex.name' is the wrong type '%s', expected type 'string'", typeName(e.Value))
			}
			name = s
		case "v":
			f, ok := asFloat(e.Value)
			if !ok {
				return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'create.clusteredIndex.v' is the wrong type '%s', expected types '[long, int, decimal, double]'", typeName(e.Value))
			}
			version = int64(f)
		default:
			return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'create.clusteredIndex.%s' is an unknown field.", e.Key)
		}
	}
	if !hasKey {
		return nil, document.Errorf(document.CodeIDLFailedToParse, "BSON field 'create.clusteredIndex.key' is missing but a required field")
	}
	if !hasUnique {
		return nil, document.Errorf(document.CodeIDLFailedToParse, "BSON field 'create.clusteredIndex.unique' is missing but a required field")
	}
	_, hasSize := has["size"]
	_, hasMax := has["max"]
	capped, _ := asBool(has["capped"])
	switch {
	case hasSize:
		return nil, document.Errorf(6049200, "'size' field for capped collections is not allowed on clustered collections. Did you mean 'capped: true' with 'expireAfterSeconds'?")
	case hasMax:
		return nil, document.Errorf(6049204, "'max' field for capped collections is not allowed on clustered collections. Did you mean 'capped: true' with 'expireAfterSeconds'?")
	case capped:
		return nil, document.Errorf(6127800, "Clustered capped collection only available with 'enableTestCommands' server parameter")
	}
	if _, ok := has["idIndex"]; ok {
		return nil, document.Errorf(document.CodeInvalidOptions, "The 'clusteredIndex' option is not supported with the 'idIndex' option")
	}
	if a, ok := has["autoIndexId"]; ok {
		if b, _ := asBool(a); !b {
			return nil, document.Errorf(6026501, "The 'clusteredIndex' option does not support {autoIndexId: false}")
		}
	}
	full := bson.D{{Key: "v", Value: int32(version)}, {Key: "key", Value: key}, {Key: "name", Value: name}, {Key: "unique", Value: unique}}
	if !unique {
		return nil, document.Errorf(5979700, "The clusteredIndex option requires unique: true to be specified")
	}
	if len(key) != 1 || key[0].Key != "_id" || !isOne(key[0].Value) {
		return nil, document.Errorf(document.CodeInvalidIndexSpecificationOption, "The clusteredIndex option is only supported for key: {_id: 1}")
	}
	if version != 2 {
		return nil, document.Errorf(5979704, "Invalid clusteredIndex specification %s; cannot create a clusteredIndex with v=%d", fmtValue(full), version)
	}
	full[1].Value = bson.D{{Key: "_id", Value: int32(1)}}
	return full, nil
}

// isOne reports whether v is the number 1.
func isOne(v any) bool {
	f, ok := asFloat(v)
	return ok && f == 1
}

// unset returns d without its field key.
func unset(d bson.D, key string) bson.D {
	out := d[:0:0]
	for _, e := range d {
		if e.Key != key {
			out = append(out, e)
		}
	}
	return out
}

// clusteredIndexEntry is how listIndexes shows a clustered collection's
// _id index: its clusteredIndex spec with clustered: true.
func clusteredIndexEntry(m *catalog.Coll) bson.D {
	spec, _ := getDoc(m.Options, "clusteredIndex")
	d := slices.Clone(spec)
	if v, ok := get(m.Options, "expireAfterSeconds"); ok {
		d = append(d, bson.E{Key: "expireAfterSeconds", Value: v})
	}
	d = append(d, bson.E{Key: "clustered", Value: true})
	if c := idCollator(m); c != nil {
		d = append(d, bson.E{Key: "collation", Value: c.Doc()})
	}
	return d
}

// getString returns the string at d.outer.inner.
func getString(d bson.D, outer, inner string) (string, bool) {
	sub, ok := getDoc(d, outer)
	if !ok {
		return "", false
	}
	v, _ := get(sub, inner)
	s, ok := v.(string)
	return s, ok
}

// Clustered TTL: a clustered collection created (or collMod'ed) with
// expireAfterSeconds expires each document whose _id is a date at or
// before now - expireAfterSeconds, as MongoDB's clustered collections
// do. The catalog marks its _id index as a TTL index with that value,
// so the TTL monitor visits it like any other: it scans the _id
// index's date class up to the cut-off, in _id order.

// collModClustered applies collMod's collection form to nm, the entry
// of a clustered collection built from m: expireAfterSeconds n or "off"
// (docs/collmod.md §5.2's codes).
func (db *DB) collModClustered(m, nm *catalog.Coll, opts bson.D) (bson.D, func(*catalog.Coll), error) {
	exp, hasExp := int64(0), false
	set := false
	for _, e := range opts {
		switch e.Key {
		case "expireAfterSeconds":
			set = true
			var err error
			if exp, hasExp, err = parseCollModExpire(e.Value); err != nil {
				return nil, nil, err
			}
		case "timeseries":
			return nil, nil, document.Errorf(document.CodeInvalidOptions, "option only supported on a time-series collection: timeseries")
		}
	}
	if !set {
		return nil, nil, nil
	}
	id := indexByID(nm, idIndexID)
	id.TTL, id.Expire = hasExp, exp
	nm.Options = unset(nm.Options, "expireAfterSeconds")
	if hasExp {
		nm.Options = append(nm.Options, bson.E{Key: "expireAfterSeconds", Value: exp})
	}
	return nil, func(fin *catalog.Coll) { db.ttl.ResetLowWater(fin.ID, idIndexID) }, nil
}
