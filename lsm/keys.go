package lsm

import "encoding/binary"

// Key tags. Every key in the store begins with exactly one of these bytes,
// so each kind of key occupies one contiguous range of the key space.
const (
	// TagCatalog prefixes catalog keys: tag, db name, 0x00, collection name.
	TagCatalog byte = 0x01
	// TagRecord prefixes record keys: tag, collection id, record id.
	TagRecord byte = 0x02
	// TagIndex prefixes index entry keys: tag, collection id, index id,
	// keystring, record id.
	TagIndex byte = 0x03
	// TagSequence prefixes sequence keys: tag, collection id.
	TagSequence byte = 0x04
	// TagMeta prefixes store-wide metadata keys: tag, name.
	TagMeta byte = 0x05
	// tagInternal prefixes keys owned by this package (Reclaim's flush
	// marker). Callers never see or write them.
	tagInternal byte = 0x7f
)

// CatalogKey returns the catalog key of collection coll in database db:
// TagCatalog, db, 0x00, coll. Names must not contain NUL; a db name with a
// NUL would make CatalogPrefix(db) ambiguous.
func CatalogKey(db, coll string) []byte {
	k := make([]byte, 0, 2+len(db)+len(coll))
	k = append(k, TagCatalog)
	k = append(k, db...)
	k = append(k, 0)
	return append(k, coll...)
}

// CatalogPrefix returns the prefix shared by the catalog keys of every
// collection of database db, or of every catalog key when db is "".
func CatalogPrefix(db string) []byte {
	if db == "" {
		return []byte{TagCatalog}
	}
	k := make([]byte, 0, 2+len(db))
	k = append(k, TagCatalog)
	k = append(k, db...)
	return append(k, 0)
}

// SplitCatalogKey returns the database and collection names of a catalog
// key; ok is false if k is not a well-formed catalog key.
func SplitCatalogKey(k []byte) (db, coll string, ok bool) {
	if len(k) < 2 || k[0] != TagCatalog {
		return "", "", false
	}
	for i := 1; i < len(k); i++ {
		if k[i] == 0 {
			return string(k[1:i]), string(k[i+1:]), true
		}
	}
	return "", "", false
}

// RecordKey returns the key of record rid of collection coll. Keys of one
// collection sort by rid.
func RecordKey(coll, rid uint64) []byte {
	k := make([]byte, 17)
	k[0] = TagRecord
	binary.BigEndian.PutUint64(k[1:], coll)
	binary.BigEndian.PutUint64(k[9:], rid)
	return k
}

// RecordPrefix returns the prefix shared by every record key of collection
// coll.
func RecordPrefix(coll uint64) []byte {
	k := make([]byte, 9)
	k[0] = TagRecord
	binary.BigEndian.PutUint64(k[1:], coll)
	return k
}

// DecodeRecordKey returns the collection and record ids of a record key;
// ok is false if k is not exactly a record key.
func DecodeRecordKey(k []byte) (coll, rid uint64, ok bool) {
	if len(k) != 17 || k[0] != TagRecord {
		return 0, 0, false
	}
	return binary.BigEndian.Uint64(k[1:]), binary.BigEndian.Uint64(k[9:]), true
}

// IndexKey returns the key of the entry of index idx of collection coll
// for keystring ks (see AppendKey) and record rid. The record id is always
// appended, so entries with equal keystrings are distinct and sort by rid.
func IndexKey(coll, idx uint64, ks []byte, rid uint64) []byte {
	k := make([]byte, 17, 25+len(ks))
	k[0] = TagIndex
	binary.BigEndian.PutUint64(k[1:], coll)
	binary.BigEndian.PutUint64(k[9:], idx)
	k = append(k, ks...)
	return binary.BigEndian.AppendUint64(k, rid)
}

// IndexPrefix returns the prefix shared by every entry key of index idx of
// collection coll. IndexPrefix(coll, idx) followed by a keystring prefix is
// a valid scan prefix.
func IndexPrefix(coll, idx uint64) []byte {
	k := make([]byte, 17)
	k[0] = TagIndex
	binary.BigEndian.PutUint64(k[1:], coll)
	binary.BigEndian.PutUint64(k[9:], idx)
	return k
}

// CollectionIndexPrefix returns the prefix shared by the entries of every
// index of collection coll.
func CollectionIndexPrefix(coll uint64) []byte {
	k := make([]byte, 9)
	k[0] = TagIndex
	binary.BigEndian.PutUint64(k[1:], coll)
	return k
}

// SplitIndexKey returns the keystring and record id of an index entry key.
// ks aliases k. ok is false if k is too short to be an index key.
func SplitIndexKey(k []byte) (ks []byte, rid uint64, ok bool) {
	if len(k) < 25 || k[0] != TagIndex {
		return nil, 0, false
	}
	n := len(k) - 8
	return k[17:n], binary.BigEndian.Uint64(k[n:]), true
}

// DecodeIndexKey is SplitIndexKey that also returns the collection and
// index ids.
func DecodeIndexKey(k []byte) (coll, idx uint64, ks []byte, rid uint64, ok bool) {
	ks, rid, ok = SplitIndexKey(k)
	if !ok {
		return 0, 0, nil, 0, false
	}
	return binary.BigEndian.Uint64(k[1:]), binary.BigEndian.Uint64(k[9:]), ks, rid, true
}

// SequenceKey returns the key of the record-id sequence of collection coll.
func SequenceKey(coll uint64) []byte {
	k := make([]byte, 9)
	k[0] = TagSequence
	binary.BigEndian.PutUint64(k[1:], coll)
	return k
}

// MetaKey returns the key of the store-wide metadata entry name.
func MetaKey(name string) []byte {
	k := make([]byte, 0, 1+len(name))
	k = append(k, TagMeta)
	return append(k, name...)
}

// PrefixEnd returns the smallest key greater than every key that has
// prefix as a prefix, or nil (meaning unbounded) when no such key exists
// (prefix empty or all 0xff). The result never aliases prefix.
func PrefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] != 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}
