package engine

import (
	"context"
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/ts"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A time-series collection's buckets, as clients read and write them
// through system.buckets.<name> (docs/timeseries.md, "Buckets through
// system.buckets"): mongodump reads them with a find, mongorestore
// writes them back with an insert. ttlkv stores a bucket in a format of
// its own; a client reads it as MongoDB's uncompressed (version 1)
// bucket, and an insert takes such a bucket (or ttlkv's own) and
// inserts its measurements into the time-series collection, which
// buckets them afresh.

// presentBucket returns how a stored bucket of buckets collection m is
// shown to a client: MongoDB's version 1 bucket document.
func (db *DB) presentBucket(m *catalog.Coll) func(bson.D) (bson.D, error) {
	o, ok := db.bucketsOptions(m)
	if !ok {
		return nil
	}
	return func(d bson.D) (bson.D, error) {
		b, err := ts.DecodeBucket(o, d)
		if err != nil {
			return nil, err
		}
		return b.MongoDocument(o), nil
	}
}

// insertBuckets inserts the measurements of bucket documents docs into
// time-series collection c (an insert into system.buckets.<name>): one
// write error a bucket that cannot be read, or whose measurements
// cannot be inserted; n counts buckets, as mongod's reply does.
func (db *DB) insertBuckets(ctx context.Context, dbName string, c *coll, docs []bson.D, ordered bool) (int, []WriteError, error) {
	t, err := decodeTSMeta(c.m())
	if err != nil {
		return 0, nil, err
	}
	var werrs []WriteError
	n := 0
	for i, d := range docs {
		ms, err := bucketMeasurements(t.opts, d)
		if err == nil {
			list := make([]any, len(ms))
			for j, m := range ms {
				list[j] = m
			}
			var ws []WriteError
			if _, ws, err = db.insertDocs(ctx, dbName, c.m().Name, list, true); err != nil {
				return n, werrs, err
			}
			if len(ws) > 0 {
				err = ws[0].Err
			}
		}
		if err != nil {
			stop, fault := writeFailed(&werrs, i, err, ordered)
			if fault != nil {
				return n, werrs, fault
			}
			if stop {
				break
			}
			continue
		}
		n++
	}
	return n, finishWriteErrors(werrs, ordered), nil
}

// bucketMeasurements reads the measurements of a bucket document: in
// ttlkv's own form (ts.DecodeBucket), or MongoDB's uncompressed form,
// {control: {version: 1, ...}, meta?, data: {<field>: {"<row>": v}}},
// whose rows are gathered across the columns in row order, the meta
// field after the time field. MongoDB's
// compressed buckets (control.version 2 and later, data columns of
// binary subtype 7) are refused.
func bucketMeasurements(o ts.Options, d bson.D) ([]bson.D, error) {
	if b, err := ts.DecodeBucket(o, d); err == nil {
		return b.Measurements(o), nil
	}
	var data bson.D
	var meta any
	hasMeta, version := false, int64(0)
	for _, e := range d {
		switch e.Key {
		case "control":
			c, _ := e.Value.(bson.D)
			v, _ := get(c, "version")
			version, _ = asInt64(v)
		case "meta":
			meta, hasMeta = e.Value, true
		case "data":
			var ok bool
			if data, ok = e.Value.(bson.D); !ok {
				return nil, document.Errorf(document.CodeBadValue, "a time-series bucket's data must be an object, not %s", typeName(e.Value))
			}
		}
	}
	if version != 1 {
		return nil, document.Errorf(document.CodeBadValue, "ttlkv reads MongoDB's uncompressed time-series buckets (control.version 1) only; this one has control.version %v: insert its measurements into the time-series collection instead", version)
	}
	if hasMeta && o.MetaField == "" {
		return nil, document.Errorf(document.CodeBadValue, "a bucket with meta, for a time-series collection without a metaField")
	}
	rows := map[int]bson.D{}
	last := -1
	for _, col := range data {
		cells, ok := col.Value.(bson.D)
		if !ok {
			return nil, document.Errorf(document.CodeBadValue, "column %q of a version 1 bucket must be an object, not %s", col.Key, typeName(col.Value))
		}
		for _, cell := range cells {
			r, err := strconv.Atoi(cell.Key)
			if err != nil || r < 0 || r >= ts.MaxBucketCount {
				return nil, document.Errorf(document.CodeBadValue, "column %q of a version 1 bucket has a row %q that is not a row number", col.Key, cell.Key)
			}
			rows[r] = append(rows[r], bson.E{Key: col.Key, Value: cell.Value})
			last = max(last, r)
		}
	}
	out := make([]bson.D, 0, len(rows))
	for r := 0; r <= last; r++ {
		m, ok := rows[r]
		if !ok {
			continue
		}
		if hasMeta {
			// A version 1 bucket does not say where the meta field
			// stood: after the time, as most documents have it.
			at := len(m)
			for j, e := range m {
				if e.Key == o.TimeField {
					at = j + 1
					break
				}
			}
			m = append(m[:at], append(bson.D{{Key: o.MetaField, Value: meta}}, m[at:]...)...)
		}
		out = append(out, m)
	}
	return out, nil
}

// bucketsTarget is the time-series collection whose buckets name is
// (system.buckets.<name>), nil if it is not one.
func (db *DB) bucketsTarget(dbName, name string) *coll {
	ts, ok := strings.CutPrefix(name, tsBucketsPre)
	if !ok {
		return nil
	}
	if c := db.lookup(dbName, ts); c != nil && c.m().Kind == catalog.KindTimeseries {
		return c
	}
	return nil
}

// asDoc is an insert's document decoded: a bson.D as it is, the bytes a
// wire client sent (bson.Raw) unmarshalled.
func asDoc(v any) (bson.D, error) {
	switch x := v.(type) {
	case bson.D:
		return x, nil
	case bson.Raw:
		var d bson.D
		if err := bson.Unmarshal(x, &d); err != nil {
			return nil, document.Errorf(document.CodeBadValue, "a document that is not valid BSON: %v", err)
		}
		return d, nil
	}
	return nil, document.Errorf(document.CodeTypeMismatch, "an insert's document must be an object, not %s", typeName(v))
}
