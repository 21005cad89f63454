// Package lsm is ttlkv's storage layer: Badger behind a small interface.
// It is the only package that imports Badger.
//
// # Key space
//
// Every key starts with a tag byte (TagCatalog, TagRecord, TagIndex,
// TagSequence, TagMeta, TagChange) followed by ids, so related keys are
// contiguous: a collection's records, one index's entries, all of a
// database's catalog entries are each one prefix. Record and index entry
// keys write their ids in a compact form that is prefix-free and
// order-preserving (AppendID); an index entry key ends with its record
// id's length, so it splits from the end. A store written with the first,
// fixed-width layout is rewritten once (UpgradeKeyLayout). Tag 0x7f and
// keys starting with '!' are reserved. See docs/storage-keys.md.
//
// # Keystring
//
// AppendKey encodes a BSON value so that bytes.Compare of encodings has
// the sign of document.Compare of the values, across all types. A class byte in
// MongoDB's canonical type order comes first, so AppendTypeBound can
// bracket one class (every date in an index) and a scan never reads
// another class.
//
// Numbers of every width share one encoding that is exact: 8 bytes of the
// double D nearest below the value (an order-preserving IEEE encoding;
// NaN below -Inf), then "exact" or the exact distance to D as a decimal
// digit string. int32, int64 up to ±2^53, and every float64 therefore take
// 10 bytes; int64 beyond 2^53 a few more; a Decimal128 that is not a double
// carries its distance from the double below it, usually 20-30 bytes, and
// up to about 3 KiB for values at the extremes of Decimal128's exponent
// range (for example 9.99E+6144 or 1E-6176). Equal values of different
// widths encode identically, so an index on a field holding 1, 1.0 and
// NumberLong(1) has one key for all three. MongoDB's own comparison of
// Decimal128 with double rounds the double to 34 digits; document.Compare and
// this encoding compare exactly, which can differ only for a decimal within
// 1E-34 relative of a double.
//
// Descending index fields invert every byte of the field's encoding;
// because encodings are prefix-free this reverses the field's order without
// disturbing the fields after it.
//
// # Transactions and batches
//
// Update runs a function in a serialisable Badger transaction and retries
// it on conflict; View reads a snapshot. Batch splits a large stream of
// writes into transactions that fit Badger's limits (MaxBatchSize,
// MaxBatchCount); each split is atomic, the Batch is not.
//
// # Change log
//
// When EnableChanges is on, a transaction (Update, Batch, Pipeline) may
// stage change entries with AddChange; they are written under TagChange
// in the same commit as the writes they describe, at a position (commit
// sequence, index) taken in commit order. ReadChanges reads from a
// position, ChangeNotify wakes waiting readers, and the log is trimmed
// oldest first past its size bounds (ErrChangeHistoryLost for a reader
// left behind). See docs/change-streams.md.
//
// # Space
//
// Deleted data leaves the disk only when compaction drops it and value-log
// GC rewrites the files that held it. Reclaim does both on demand (after a
// large TTL reap, say) and returns nil when there is nothing more to do;
// it never treats Badger's "nothing to rewrite" as a failure.
package lsm
