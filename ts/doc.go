// Package ts holds the rules of time-series collections (docs/timeseries.md §6) and
// the bucket codec. It stores nothing: the engine keeps each bucket as a
// record of the collection's internal buckets collection, and asks ts
// how to parse and list options (ParseOptions, Options.Listing,
// Options.ApplyCollMod), which bucket a measurement goes to (Bucketer),
// what a bucket document looks like (Bucket.Document, DecodeBucket), and
// when a bucket may be deleted (Bucket.ExpiresAt, OutOfTTLRange).
//
// # Buckets
//
// A bucket holds up to MaxBucketCount measurements with equal meta values
// whose times lie in [MinTime, MinTime + bucketMaxSpanSeconds), about
// MaxBucketBytes of them at most. MinTime is the first measurement's time
// rounded down to bucketRoundingSeconds. The stored form is MongoDB's
// version-1 bucket layout, one column per field:
//
//	{_id: ObjectId(<MinTime seconds>...),
//	 control: {version: 1, min: {...}, max: {...}, count: n},
//	 meta: <meta value>,
//	 data: {<field>: {"0": v0, "1": v1, ...}, ...},
//	 layout: {metaPos: p, rows: {"<row>": [ranks...]}}}
//
// layout is ttlkv's addition: it records where the meta field stood in the
// measurements and the field order of any measurement whose fields are not
// in the bucket's column order, so that Bucket.Measurements gives back each
// measurement exactly as it was inserted. It is omitted when there is
// nothing to record.
//
// # Expiry
//
// A bucket is deleted as a whole, once MinTime + bucketMaxSpanSeconds +
// expireAfterSeconds <= now: only when every measurement it could hold has
// expired. Single measurements are never deleted by TTL.
package ts
