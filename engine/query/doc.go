// Package query is MongoDB's query language over documents: filters
// (ParseFilter, Filter.Match), index bounds a planner can scan
// (Filter.Bounds), updates (ParseUpdate, Update.Apply, Update.Upsert),
// projections (ParseProjection) and sorts (ParseSort). It stores nothing:
// every function is a pure function of its arguments, and every parsed
// value is immutable and safe for concurrent use.
//
// Values are the Go types of the mongo driver's bson package as package
// doc canonicalises them: bson.D documents, bson.A arrays, float64,
// int32, int64, bson.Decimal128, string, bool, nil for null, and the other
// bson types. Ordering and equality are document.Compare's, with
// strings compared under a collation once Filter.Collate, Sort.Collate
// or Update.Collate has given one (docs/collation.md).
//
// # Semantics worth knowing
//
//   - Paths expand arrays the way MongoDB does: {"a.b": 1} matches
//     {a: [{b: 1}, {b: 2}]}, {a: 5} matches {a: [5, 7]}, {a: [5]} matches
//     {a: [[5], 1]}; a numeric component both indexes an array and names a
//     field of its document elements.
//   - Null follows MongoDB 8/9 (SERVER-36681): {a: null} matches a missing
//     field, null, and arrays holding null, but not undefined.
//     {"a.b": null} also matches a scalar a, an empty array a and an array
//     a with no document holding b.
//   - Range operators are type-bracketed ({$gt: 5} never matches "x"),
//     except that MinKey and MaxKey operands span all types. NaN equals
//     only NaN and is neither above nor below any number.
//   - Regexes are Go's RE2 with MongoDB's i, m, s, x options; PCRE-only
//     syntax (backreferences, lookaround) is 2 BadValue at parse time.
//     TranslateRegex is the translation; aggregation's $regexMatch,
//     $regexFind and $regexFindAll use it too.
//   - Update.Apply never modifies its input and returns a deep copy.
//     Modifiers apply in field-name order, so new fields are appended in
//     that order, as MongoDB 5.0+ does.
//   - $where runs JavaScript (engine/internal/js) where ParseOptions.Where
//     accepts it; Filter.WithContext binds the context that stops it.
//
// # Elsewhere
//
// Aggregation expressions ($expr, computed projections, pipeline
// updates) are engine/agg's, which registers them here
// (RegisterExprCompiler, RegisterProjectionCompiler); text search
// ($text) is engine/fts's scoring over what Filter.Text returns;
// geospatial predicates are engine/geo's. What this package refuses, it
// refuses with MongoDB's code, never as a silent difference.
package query
