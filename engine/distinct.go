package engine

import (
	"context"
	"slices"
	"strconv"
	"strings"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// codeDistinctTooBig is the server's code for a distinct result over
// the 16 MiB reply limit.
const codeDistinctTooBig = document.Code(17217)

// distinct returns the distinct values of key over the documents that
// match filter, as MongoDB's distinct does: arrays at the end of the
// path contribute their elements, arrays along the path are traversed,
// documents without the field contribute nothing, and values equal
// under BSON comparison (1 and 1.0) count once. The values come back
// in BSON order. When an index's keys give the values exactly
// (distinctScannable), they are read from its entries, not from the
// documents.
func (db *DB) distinct(ctx context.Context, dbName, name, key string, filter bson.D) (bson.A, error) {
	if key == "" {
		return nil, document.Errorf(document.CodeBadValue, "FieldPath cannot be constructed with empty string")
	}
	if strings.HasPrefix(key, "$") || strings.HasSuffix(key, ".") || strings.Contains(key, "..") || strings.HasPrefix(key, ".") {
		return nil, document.Errorf(document.CodeBadValue, "FieldPath field names may not start with '$' or be empty; got '%s'", key)
	}
	c, p, q, scan, err := db.distinctPlan(dbName, name, key, filter, ctxCollation(ctx))
	if err != nil || q == nil {
		return bson.A{}, err
	}
	if scan {
		vals, ok, err := db.distinctScan(ctx, p, key, &execStats{})
		if err != nil {
			return nil, err
		}
		if ok {
			vals = sortUnique(vals, nil)
			if vals == nil {
				vals = bson.A{}
			}
			return vals, nil
		}
		// The index went multikey since the plan: read the documents.
	}
	coll := planCollator(p)
	if c != nil && c.m().Kind == catalog.KindView {
		coll = c.m().DefaultCollator() // a view's reads run under its own
	}
	var vals bson.A
	var size int
	parts := strings.Split(key, ".")
	for {
		docs, err := q.nextBatch(ctx, 1024)
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			distinctValues(d, parts, 0, false, func(v any) {
				vals = append(vals, v)
			})
		}
		// Sort and deduplicate as we go so memory follows the number of
		// distinct values, not of documents.
		vals = sortUnique(vals, coll)
		size = 0
		for _, v := range vals {
			size += approxSize(v)
		}
		if size > document.MaxDocumentSize {
			return nil, document.Errorf(codeDistinctTooBig, "distinct too big, 16mb cap")
		}
		if q.done {
			break
		}
	}
	if vals == nil {
		vals = bson.A{}
	}
	return vals, nil
}

// distinctValues calls emit with each value at parts[i:] below v. inArray
// is true when v is an element of an array already traversed, whose
// nested arrays MongoDB does not unwind again.
func distinctValues(v any, parts []string, i int, inArray bool, emit func(any)) {
	if i == len(parts) {
		if arr, ok := v.(bson.A); ok && !inArray {
			for _, el := range arr {
				emit(el)
			}
			return
		}
		emit(v)
		return
	}
	switch x := v.(type) {
	case bson.D:
		if fv, ok := get(x, parts[i]); ok {
			distinctValues(fv, parts, i+1, false, emit)
		}
	case bson.A:
		if n, err := strconv.Atoi(parts[i]); err == nil && n >= 0 {
			if n < len(x) {
				distinctValues(x[n], parts, i+1, false, emit)
			}
			return
		}
		if inArray {
			return
		}
		for _, el := range x {
			if sd, ok := el.(bson.D); ok {
				distinctValues(sd, parts, i, true, emit)
			}
		}
	}
}

func sortUnique(vals bson.A, coll *collation.Collator) bson.A {
	// Under a collation, values equal under it count once (the first
	// met stands for them), as MongoDB's distinct does.
	slices.SortStableFunc(vals, coll.CompareValues)
	return slices.CompactFunc(vals, func(a, b any) bool { return coll.CompareValues(a, b) == 0 })
}

// approxSize is the encoded size of v, for the reply-size limit.
func approxSize(v any) int {
	b, err := document.Marshal(bson.D{{Key: "v", Value: v}})
	if err != nil {
		return 0
	}
	return len(b)
}

// Distinct returns the distinct values of field over the documents that
// match filter, in BSON order; see the distinct command.
func (c *Collection) Distinct(ctx context.Context, field string, filter any) ([]any, error) {
	f, err := normFilter(filter)
	if err != nil {
		return nil, err
	}
	vals, err := c.db.distinct(ctx, c.dbName, c.name, field, f)
	return []any(vals), err
}

// planCollator is the collator a distinct compares its values with: the
// plan's (nil for a view, whose pipeline's results are compared
// binary).
func planCollator(p *plan) *collation.Collator {
	if p == nil {
		return nil
	}
	return p.filter.Collator()
}
