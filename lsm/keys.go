package lsm

import (
	"encoding/binary"
	"math/bits"
)

// Key tags. Every key in the store begins with exactly one of these bytes,
// so each kind of key occupies one contiguous range of the key space.
const (
	// TagCatalog prefixes catalog keys: tag, db name, 0x00, collection name.
	TagCatalog byte = 0x01
	// TagRecord prefixes record keys: tag, collection id, record id
	// (compact ids; layout 1 used 0x02 with fixed-width ids).
	TagRecord byte = 0x07
	// TagIndex prefixes index entry keys: tag, collection id, index id,
	// keystring, record id, record id length (layout 1 used 0x03).
	TagIndex byte = 0x08
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

// Ids in record and index keys are written in the compact id form: a
// value below idOneByte is the one byte itself; a larger value is one byte
// idOneByte-1+n followed by its n big-endian bytes without leading zeros
// (n 1..8). The form is prefix-free (the first byte says the length) and
// order-preserving (bytes.Compare of two forms has the sign of the
// values' comparison), so a key's fields sort as the ids do and a
// collection's prefix never prefixes another collection's keys. See
// docs/storage-keys.md.
const idOneByte = 0xf8

// maxIDLen is the longest compact id form.
const maxIDLen = 9

// AppendID appends the compact form of id v to b.
func AppendID(b []byte, v uint64) []byte {
	if v < idOneByte {
		return append(b, byte(v))
	}
	n := (bits.Len64(v) + 7) / 8
	b = append(b, byte(idOneByte-1+n))
	for i := n - 1; i >= 0; i-- {
		b = append(b, byte(v>>(8*uint(i))))
	}
	return b
}

// idLen returns the length of the compact form of v.
func idLen(v uint64) int {
	if v < idOneByte {
		return 1
	}
	return 1 + (bits.Len64(v)+7)/8
}

// readID decodes the compact id at the start of b and returns it and its
// length; ok is false if b does not start with a whole canonical form.
func readID(b []byte) (v uint64, n int, ok bool) {
	if len(b) == 0 {
		return 0, 0, false
	}
	c := b[0]
	if c < idOneByte {
		return uint64(c), 1, true
	}
	m := int(c) - (idOneByte - 1)
	if len(b) < 1+m || b[1] == 0 {
		return 0, 0, false
	}
	for _, x := range b[1 : 1+m] {
		v = v<<8 | uint64(x)
	}
	if m == 1 && v < idOneByte {
		return 0, 0, false
	}
	return v, 1 + m, true
}

// ReadID decodes the compact id form at the start of b and returns the id
// and the form's length; ok is false if b does not start with a whole
// canonical form.
func ReadID(b []byte) (v uint64, n int, ok bool) { return readID(b) }

// RecordKey returns the key of record rid of collection coll: TagRecord,
// coll, rid, both in the compact id form. Keys of one collection sort by
// rid.
func RecordKey(coll, rid uint64) []byte {
	k := make([]byte, 0, 1+idLen(coll)+idLen(rid))
	k = append(k, TagRecord)
	k = AppendID(k, coll)
	return AppendID(k, rid)
}

// RecordPrefix returns the prefix shared by every record key of collection
// coll.
func RecordPrefix(coll uint64) []byte {
	k := make([]byte, 0, 1+idLen(coll))
	k = append(k, TagRecord)
	return AppendID(k, coll)
}

// DecodeRecordKey returns the collection and record ids of a record key;
// ok is false if k is not exactly a record key.
func DecodeRecordKey(k []byte) (coll, rid uint64, ok bool) {
	if len(k) < 3 || k[0] != TagRecord {
		return 0, 0, false
	}
	coll, n, ok := readID(k[1:])
	if !ok {
		return 0, 0, false
	}
	rid, m, ok := readID(k[1+n:])
	if !ok || 1+n+m != len(k) {
		return 0, 0, false
	}
	return coll, rid, true
}

// IndexKey returns the key of the entry of index idx of collection coll
// for keystring ks (see AppendKey) and record rid: TagIndex, coll, idx,
// ks, rid, then one byte holding the length of rid's form, so the key
// splits from its end. The record id is always appended, so entries with
// equal keystrings are distinct and sort by rid.
func IndexKey(coll, idx uint64, ks []byte, rid uint64) []byte {
	k := make([]byte, 0, 1+idLen(coll)+idLen(idx)+len(ks)+idLen(rid)+1)
	k = append(k, TagIndex)
	k = AppendID(k, coll)
	k = AppendID(k, idx)
	k = append(k, ks...)
	return AppendIndexRecordID(k, rid)
}

// AppendIndexRecordID appends the record-id suffix of an index entry key
// (rid's compact form, then its length) to b.
func AppendIndexRecordID(b []byte, rid uint64) []byte {
	n := len(b)
	b = AppendID(b, rid)
	return append(b, byte(len(b)-n))
}

// IndexPrefix returns the prefix shared by every entry key of index idx of
// collection coll. IndexPrefix(coll, idx) followed by a keystring prefix is
// a valid scan prefix.
func IndexPrefix(coll, idx uint64) []byte {
	k := make([]byte, 0, 1+idLen(coll)+idLen(idx))
	k = append(k, TagIndex)
	k = AppendID(k, coll)
	return AppendID(k, idx)
}

// CollectionIndexPrefix returns the prefix shared by the entries of every
// index of collection coll.
func CollectionIndexPrefix(coll uint64) []byte {
	k := make([]byte, 0, 1+idLen(coll))
	k = append(k, TagIndex)
	return AppendID(k, coll)
}

// IndexKeyRecordID returns the record id of index entry key k when
// k[n:] is exactly its record-id suffix, as it is when k[:n] is the
// entry's index prefix and whole keystring; ok is false otherwise.
func IndexKeyRecordID(k []byte, n int) (rid uint64, ok bool) {
	if n < 0 || n >= len(k) {
		return 0, false
	}
	l := int(k[len(k)-1])
	if l < 1 || l > maxIDLen || len(k)-n != l+1 {
		return 0, false
	}
	rid, m, ok := readID(k[n : len(k)-1])
	if !ok || m != l {
		return 0, false
	}
	return rid, true
}

// splitIndexKey returns the offsets in k of the keystring and of the
// record-id suffix, and the ids.
func splitIndexKey(k []byte) (coll, idx uint64, ksAt, ridAt int, rid uint64, ok bool) {
	if len(k) < 5 || k[0] != TagIndex {
		return 0, 0, 0, 0, 0, false
	}
	coll, n, ok := readID(k[1:])
	if !ok {
		return 0, 0, 0, 0, 0, false
	}
	idx, m, ok := readID(k[1+n:])
	if !ok {
		return 0, 0, 0, 0, 0, false
	}
	ksAt = 1 + n + m
	l := int(k[len(k)-1])
	ridAt = len(k) - 1 - l
	if l < 1 || l > maxIDLen || ridAt < ksAt {
		return 0, 0, 0, 0, 0, false
	}
	rid, ok = IndexKeyRecordID(k, ridAt)
	if !ok {
		return 0, 0, 0, 0, 0, false
	}
	return coll, idx, ksAt, ridAt, rid, true
}

// SplitIndexKey returns the keystring and record id of an index entry key.
// ks aliases k. ok is false if k is not a well-formed index key.
func SplitIndexKey(k []byte) (ks []byte, rid uint64, ok bool) {
	// The record id is read from the end alone on the hot path; the
	// front's ids are checked only by DecodeIndexKey.
	if len(k) < 5 || k[0] != TagIndex {
		return nil, 0, false
	}
	l := int(k[len(k)-1])
	ridAt := len(k) - 1 - l
	if l < 1 || l > maxIDLen || ridAt < 3 {
		return nil, 0, false
	}
	rid, ok = IndexKeyRecordID(k, ridAt)
	if !ok {
		return nil, 0, false
	}
	_, n, ok := readID(k[1:])
	if !ok {
		return nil, 0, false
	}
	_, m, ok := readID(k[1+n:])
	if !ok || 1+n+m > ridAt {
		return nil, 0, false
	}
	return k[1+n+m : ridAt], rid, true
}

// DecodeIndexKey is SplitIndexKey that also returns the collection and
// index ids.
func DecodeIndexKey(k []byte) (coll, idx uint64, ks []byte, rid uint64, ok bool) {
	coll, idx, ksAt, ridAt, rid, ok := splitIndexKey(k)
	if !ok {
		return 0, 0, nil, 0, false
	}
	return coll, idx, k[ksAt:ridAt], rid, true
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

// IndexKeyIDs returns the collection and index ids at the front of an
// index entry key and what follows them, whatever it is (an entry of an
// index whose suffix is not keystring and record id, say); ok is false
// if k does not start with TagIndex and two compact ids.
func IndexKeyIDs(k []byte) (coll, idx uint64, rest []byte, ok bool) {
	if len(k) < 3 || k[0] != TagIndex {
		return 0, 0, nil, false
	}
	coll, n, ok := readID(k[1:])
	if !ok {
		return 0, 0, nil, false
	}
	idx, m, ok := readID(k[1+n:])
	if !ok {
		return 0, 0, nil, false
	}
	return coll, idx, k[1+n+m:], true
}
