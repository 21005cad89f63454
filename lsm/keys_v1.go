package lsm

import "encoding/binary"

// Tags of layout 1's record and index entry keys.
const (
	tagRecordV1 byte = 0x02
	tagIndexV1  byte = 0x03
)

// The first key layout (store format 1): record and index entry keys with
// fixed-width ids, tag, 8-byte big-endian collection id, 8-byte record id
// (records) or 8-byte index id, keystring, 8-byte record id (index
// entries). Stores written before the compact layout hold these keys; the
// benchmarks' hand-made raw-Badger indexes keep writing them so their
// baselines stay what they were. See docs/storage-keys.md.

// RecordKeyV1 returns record rid of collection coll's key in the first
// layout.
func RecordKeyV1(coll, rid uint64) []byte {
	k := make([]byte, 17)
	k[0] = tagRecordV1
	binary.BigEndian.PutUint64(k[1:], coll)
	binary.BigEndian.PutUint64(k[9:], rid)
	return k
}

// IndexKeyV1 returns, in the first layout, the key of the entry of index
// idx of collection coll for keystring ks and record rid.
func IndexKeyV1(coll, idx uint64, ks []byte, rid uint64) []byte {
	k := make([]byte, 17, 25+len(ks))
	k[0] = tagIndexV1
	binary.BigEndian.PutUint64(k[1:], coll)
	binary.BigEndian.PutUint64(k[9:], idx)
	k = append(k, ks...)
	return binary.BigEndian.AppendUint64(k, rid)
}

// IndexPrefixV1 returns, in the first layout, the prefix shared by every
// entry key of index idx of collection coll.
func IndexPrefixV1(coll, idx uint64) []byte {
	k := make([]byte, 17)
	k[0] = tagIndexV1
	binary.BigEndian.PutUint64(k[1:], coll)
	binary.BigEndian.PutUint64(k[9:], idx)
	return k
}

// SplitIndexKeyV1 returns the keystring and record id of an index entry
// key of the first layout. ks aliases k.
func SplitIndexKeyV1(k []byte) (ks []byte, rid uint64, ok bool) {
	if len(k) < 25 || k[0] != tagIndexV1 {
		return nil, 0, false
	}
	n := len(k) - 8
	return k[17:n], binary.BigEndian.Uint64(k[n:]), true
}

// RecordPrefixV1 returns, in the first layout, the prefix shared by every
// record key of collection coll.
func RecordPrefixV1(coll uint64) []byte {
	k := make([]byte, 9)
	k[0] = tagRecordV1
	binary.BigEndian.PutUint64(k[1:], coll)
	return k
}

// CollectionIndexPrefixV1 returns, in the first layout, the prefix shared
// by the entries of every index of collection coll.
func CollectionIndexPrefixV1(coll uint64) []byte {
	k := make([]byte, 9)
	k[0] = tagIndexV1
	binary.BigEndian.PutUint64(k[1:], coll)
	return k
}
