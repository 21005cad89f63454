// Package document is the document model every ttlkv layer speaks: the values
// of a document, their order, their limits, and their two encodings
// (msgpack on disk, MongoDB Extended JSON v2 at the edges).
//
// # Values
//
// A document is a bson.D from go.mongodb.org/mongo-driver/v2/bson: an
// ordered list of fields, where duplicate names are kept as they are. A
// value is canonical when it is one of
//
//	bson.D (document)        bson.A (array)          nil (null)
//	float64                  int32                   int64
//	bson.Decimal128          string                  bson.Symbol
//	bson.Binary              bson.ObjectID           bool
//	bson.DateTime            bson.Timestamp          bson.Regex
//	bson.DBPointer           bson.JavaScript         bson.CodeWithScope (scope a bson.D)
//	bson.Undefined           bson.MinKey             bson.MaxKey
//
// and every nested value is canonical too. Normalize (for documents) and
// NormalizeValue (for single values) turn what a Go caller holds — Go
// ints, maps, structs, time.Time, bson.Raw, bson.Null — into canonical
// form following the driver's encoding rules. Everything else in the
// package expects canonical input: Marshal and Size reject or miscount
// other types, and Compare falls back to a slow conversion for them.
//
// # Order
//
// Compare implements MongoDB's BSON comparison order: first the type
// class (CanonicalType: MinKey < Undefined < Null < numbers <
// strings/symbols < documents < arrays < binary < ObjectId < bool < date
// < timestamp < regex < DBPointer < JavaScript < code-with-scope <
// MaxKey), then the value. Numbers of all four types compare by exact
// value, with NaN equal to NaN and below every other number; the index
// key encoding in package lsm must agree with Compare byte for byte.
//
// # Limits
//
// ValidateForStorage applies MongoDB's checks before a write: 16 MiB of
// BSON (Size computes it without encoding), 100 levels of nesting, no NUL
// in field names, and no array, regex or undefined _id. Stored data is
// read with a laxer nesting limit of MaxReadDepth.
//
// # Encodings
//
// Marshal and Unmarshal are the on-disk form: msgpack with extension
// types, exact for every canonical value (types, float bits, field order,
// duplicates). Unmarshal treats its input as untrusted: it never panics,
// bounds allocation by the input length and returns errors wrapping
// ErrCorrupt. ParseExtJSON and MarshalExtJSON convert Extended JSON v2
// through the driver, with extra strictness on input.
//
// # Errors
//
// User mistakes are *Error values carrying a MongoDB code (CodeBadValue,
// CodeOverflow, CodeFailedToParse, ...); errors.As and CodeOf extract it.
// Corrupt stored bytes are not user mistakes: their errors wrap ErrCorrupt
// and CodeOf reports CodeInternalError.
package document
