package engine

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// dataSizeSpec is a parsed dataSize command.
type dataSizeSpec struct {
	dbName, name         string
	min, max, keyPattern bson.D
	hasMin, hasMax       bool
	estimate             bool
	maxSize, maxObjects  int64
}

// cmdDataSize runs {dataSize: "db.coll"}: the bytes and count of the
// collection's documents, or with min and max of those in that range of
// an index (docs/capped.md, "cloneCollectionAsCapped and dataSize").
// The reply is mongod 7.0's DataSizeReply: size, numObjects and millis
// are longs, estimate is there when the collection has documents,
// maxReached when a limit stopped the count.
func cmdDataSize(ctx context.Context, db *DB, _ string, cmd bson.D) (bson.D, error) {
	start := time.Now()
	s, err := parseDataSize(cmd)
	if err != nil {
		return nil, err
	}
	millis := func() int64 { return time.Since(start).Milliseconds() }
	c := db.lookup(s.dbName, s.name)
	var st collStatsInfo
	if c != nil {
		st = db.collStats(c)
	}
	if st.count == 0 {
		return bson.D{{Key: "size", Value: int64(0)}, {Key: "numObjects", Value: int64(0)}, {Key: "millis", Value: millis()}}, nil
	}
	if (len(s.min) == 0) != (len(s.max) == 0) {
		return nil, document.Errorf(document.CodeBadValue, "Only one of min or max specified")
	}
	reply := func(size, n int64, maxReached bool) bson.D {
		d := bson.D{{Key: "size", Value: size}, {Key: "numObjects", Value: n}, {Key: "millis", Value: millis()},
			{Key: "estimate", Value: s.estimate}}
		if maxReached {
			d = append(d, bson.E{Key: "maxReached", Value: true})
		}
		return d
	}
	ranged := len(s.min) > 0
	if !ranged && (s.estimate || (s.maxSize == 0 && s.maxObjects == 0)) {
		// The whole collection, as collStats counts it.
		return reply(st.size, st.count, false), nil
	}
	o := FindOptions{Collation: bson.D{{Key: "locale", Value: "simple"}}}
	if ranged {
		m := c.m()
		if m.Kind == catalog.KindView || m.Kind == catalog.KindTimeseries {
			return nil, document.Errorf(document.CodeCommandNotSupportedOnView, "Namespace %s is a view, not a collection", m.NS())
		}
		kp := s.keyPattern
		if len(kp) == 0 {
			for _, e := range s.min {
				kp = append(kp, bson.E{Key: e.Key, Value: 1.0})
			}
		}
		ix := dataSizeIndex(m, kp)
		if ix == nil {
			return nil, document.Errorf(document.CodeOperationFailed, "Couldn't find valid index containing key pattern")
		}
		if o.Min, err = extendRangeBound(ix.Key, s.min); err != nil {
			return nil, err
		}
		if o.Max, err = extendRangeBound(ix.Key, s.max); err != nil {
			return nil, err
		}
		o.Hint = ix.Name
	}
	_, _, q, err := db.findPlan(s.dbName, s.name, nil, o)
	var de *document.Error
	switch {
	case err != nil && errors.As(err, &de) && de.Code == document.Code(51175):
		// min at or past max: an empty range.
		return reply(0, 0, false), nil
	case err != nil:
		return nil, err
	case q == nil:
		return reply(0, 0, false), nil
	}
	avg := st.size / st.count
	var size, n int64
	for !q.done {
		docs, err := q.nextBatch(ctx, 256)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			if s.estimate {
				size += avg
			} else {
				size += int64(document.Size(d))
			}
			n++
			if (s.maxSize > 0 && size > s.maxSize) || (s.maxObjects > 0 && n > s.maxObjects) {
				return reply(size, n, true), nil
			}
		}
	}
	return reply(size, n, false), nil
}

// parseDataSize reads dataSize's fields as mongod's IDL command
// DataSizeCommand does (src/mongo/db/dbcommands.idl).
func parseDataSize(cmd bson.D) (*dataSizeSpec, error) {
	ns, ok := cmd[0].Value.(string)
	if !ok {
		return nil, document.Errorf(document.CodeTypeMismatch,
			"BSON field 'dataSize.dataSize' is the wrong type '%s', expected type 'string'", typeName(cmd[0].Value))
	}
	s := &dataSizeSpec{}
	for _, e := range cmd[1:] {
		var err error
		switch e.Key {
		case "min":
			s.hasMin = true
			s.min, err = dataSizeDoc(e)
		case "max":
			s.hasMax = true
			s.max, err = dataSizeDoc(e)
		case "keyPattern":
			s.keyPattern, err = dataSizeDoc(e)
		case "estimate":
			b, isBool := asBoolStrict(e.Value)
			if !isBool {
				err = document.Errorf(document.CodeTypeMismatch, "BSON field 'dataSize.estimate' is the wrong type '%s', expected types '[bool, long, int, decimal, double]'", typeName(e.Value))
			}
			s.estimate = b
		case "maxSize":
			s.maxSize, err = intOpt("dataSize.maxSize", e.Value)
		case "maxObjects":
			s.maxObjects, err = intOpt("dataSize.maxObjects", e.Value)
		case "comment", "lsid", "$db", "apiVersion", "apiStrict", "maxTimeMS", "readConcern", "$readPreference":
		default:
			err = document.Errorf(document.CodeIDLUnknownField, "BSON field 'dataSize.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return nil, err
		}
	}
	var found bool
	s.dbName, s.name, found = strings.Cut(ns, ".")
	if !found || s.dbName == "" || s.name == "" {
		return nil, document.Errorf(document.CodeInvalidNamespace, "Invalid namespace specified '%s'", ns)
	}
	if s.hasMin != s.hasMax {
		not := "not "
		if s.hasMin {
			not = ""
		}
		return nil, document.Errorf(document.CodeBadValue, "Max must %sbe set if min is %sset.", not, not)
	}
	return s, nil
}

// dataSizeDoc is one of dataSize's object fields.
func dataSizeDoc(e bson.E) (bson.D, error) {
	d, ok := e.Value.(bson.D)
	if !ok {
		return nil, document.Errorf(document.CodeTypeMismatch, "BSON field 'dataSize.%s' is the wrong type '%s', expected type 'object'", e.Key, typeName(e.Value))
	}
	return d, nil
}

// dataSizeIndex is the index dataSize scans for key pattern kp: the
// first whose key pattern starts with kp and that holds one key per
// document in a plain order, as mongod's findShardKeyPrefixedIndex
// takes it (requireSingleKey): not sparse, partial, hidden, multikey on
// those fields, nor under a collation. Nil when none fits.
func dataSizeIndex(m *catalog.Coll, kp bson.D) *catalog.Index {
	for _, ix := range m.Indexes {
		if ix.Sparse || ix.Partial != nil || ix.Hidden || ix.Collator() != nil || len(kp) > len(ix.Key) || len(kp) > 64 {
			continue
		}
		fits := true
		for i, e := range kp {
			f := ix.Key[i]
			if f.Key != e.Key || document.Compare(f.Value, e.Value) != 0 || (ix.Multikey && ix.MultikeyFields&(1<<i) != 0) {
				fits = false
				break
			}
		}
		if fits {
			return ix
		}
	}
	return nil
}

// extendRangeBound completes bound, a prefix of index key pattern key,
// to the whole pattern: each missing field is MinKey (MaxKey where the
// field is descending), so that the bound sorts before every key that
// starts with it, as mongod's KeyPattern::extendRangeBound does.
func extendRangeBound(key, bound bson.D) (bson.D, error) {
	if len(bound) > len(key) {
		return nil, document.Errorf(document.CodeKeyPatternShorterThanBound, "keyPattern %s shorter than bound %s", document.Format(key), document.Format(bound))
	}
	out := make(bson.D, 0, len(key))
	for i, e := range bound {
		if e.Key != key[i].Key {
			return nil, document.Errorf(document.Code(16634), "field names of bound %s do not match those of keyPattern %s", document.Format(bound), document.Format(key))
		}
		out = append(out, e)
	}
	for _, f := range key[len(bound):] {
		var v any = bson.MinKey{}
		if dir, isNum := asFloat(f.Value); isNum && dir < 0 {
			v = bson.MaxKey{}
		}
		out = append(out, bson.E{Key: f.Key, Value: v})
	}
	return out, nil
}
