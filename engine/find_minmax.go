package engine

import (
	"bytes"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// errMinMaxHint is mongod's refusal of min or max without a hint.
func errMinMaxHint() error {
	return document.Errorf(document.Code(51173), "When using min()/max() a hint of which index to use must be provided")
}

// errMinMaxNotEquivalent is mongod's refusal of min or max that do not
// fit the hinted index (a wildcard index fits none).
func errMinMaxNotEquivalent() error {
	return document.Errorf(document.Code(51174), "The index chosen is not equivalent to min/max")
}

// boundMinMax narrows p's ranges over its hinted index to the keys from
// min (inclusive) to max (exclusive), in the index's order: a find's
// min and max. Each must name the key pattern's fields in its order.
func (p *plan) boundMinMax(min, max bson.D) error {
	ix := p.ix
	if ix == nil {
		return document.Errorf(document.CodeNoQueryExecutionPlans, "error processing query: planner returned error :: caused by :: min and max are not allowed with a $natural hint")
	}
	if indexkey.IsWildcard(ix.Key) {
		return errMinMaxNotEquivalent()
	}
	if p.or != nil || p.ts != nil || p.wcPath != "" || isTextKey(ix.Key) {
		return errMinMaxHint()
	}
	if min != nil && max != nil {
		same := len(min) == len(max)
		for i := 0; same && i < len(min); i++ {
			same = min[i].Key == max[i].Key
		}
		if !same {
			return document.Errorf(document.Code(51176), "min and max must have the same field names")
		}
	}
	fields := indexkey.Fields(ix.Key)
	coll := ix.Collator()
	enc := func(d bson.D) ([]byte, error) {
		if len(d) != len(fields) {
			return nil, errMinMaxNotEquivalent()
		}
		k := lsm.IndexPrefix(p.m.ID, ix.ID)
		for i, f := range fields {
			if d[i].Key != f.Path {
				return nil, errMinMaxNotEquivalent()
			}
			v := d[i].Value
			if f.Hashed {
				v = document.HashedKey(v)
			} else if coll != nil {
				v = coll.KeyValue(v)
			}
			k = lsm.AppendKey(k, v, f.Desc)
		}
		return k, nil
	}
	var lo, hi []byte
	var err error
	if min != nil {
		if lo, err = enc(min); err != nil {
			return err
		}
	}
	if max != nil {
		if hi, err = enc(max); err != nil {
			return err
		}
	}
	if lo != nil && hi != nil && bytes.Compare(lo, hi) >= 0 {
		return document.Errorf(document.Code(51175), "min() must be less than max()")
	}
	var out []keyRange
	for _, r := range p.ranges {
		if lo != nil && bytes.Compare(lo, r.lo) > 0 {
			r.lo = lo
		}
		if hi != nil && (r.hi == nil || bytes.Compare(hi, r.hi) < 0) {
			r.hi = hi
		}
		if r.hi == nil || bytes.Compare(r.lo, r.hi) < 0 {
			out = append(out, r)
		}
	}
	p.ranges = out
	return nil
}

// indexKeyField carries the index key a document was read by, from the
// scan to a find's returnKey: a name no stored document can have.
const indexKeyField = "\x00indexKey"

// carry appends to rec's document what the find asked the scan to
// carry: its record id, the index key it was read by.
func (s *scanner) carry(rec *record) {
	if s.recordIDs {
		rec.d = append(rec.d[:len(rec.d):len(rec.d)], bson.E{Key: recordIDField, Value: int64(rec.rid)})
	}
	if s.indexKeys && rec.key != nil {
		rec.d = append(rec.d[:len(rec.d):len(rec.d)], bson.E{Key: indexKeyField, Value: s.p.keyDoc(rec.key, rec.d)})
	}
}

// keyDoc is index keystring ks of document d as returnKey shows it: each
// field of p's key pattern with its value in the key, as d holds it (the
// array element the key was made of, in its own type) where d has one
// whose key it is, else as the key decodes.
func (p *plan) keyDoc(ks []byte, d bson.D) bson.D {
	out := bson.D{}
	rest := ks
	coll := p.ix.Collator()
	for _, f := range indexkey.Fields(p.ix.Key) {
		v, next, err := lsm.DecodeKey(rest, f.Desc)
		if err != nil {
			break
		}
		fb := rest[:len(rest)-len(next)]
		if !f.Hashed {
			vals, _ := indexkey.PathValues(d, f.Path)
			if x, ok := keyedValue(vals, coll, f.Desc, fb); ok {
				v = x
			}
		}
		out = append(out, bson.E{Key: f.Path, Value: v})
		rest = next
	}
	return out
}

// recordIDField carries a document's record id from the scan to a
// find's showRecordId: a name no stored document can have.
const recordIDField = "\x00recordId"

// takeRecordID returns the record id d carries and d without it.
func takeRecordID(d bson.D) (any, bson.D) {
	for i := len(d) - 1; i >= 0; i-- {
		if d[i].Key == recordIDField {
			out := make(bson.D, 0, len(d)-1)
			out = append(out, d[:i]...)
			return d[i].Value, append(out, d[i+1:]...)
		}
	}
	return nil, d
}

// indexKeyOf is returnKey's document for d when the scan kept no key:
// the values of p's index fields in d ({} for a plan without an index).
func (p *plan) indexKeyOf(d bson.D) bson.D {
	if p == nil || p.ix == nil || isTextKey(p.ix.Key) || indexkey.IsWildcard(p.ix.Key) {
		return bson.D{}
	}
	return indexkey.Value(p.ix, d)
}

// keyedValue returns the first of vals (a document's values at an index
// field's path) whose key, under coll (nil: simple) and in the field's
// direction, is key: the value the document gave that key, its own type
// kept. ok is false when none is.
func keyedValue(vals []any, coll *collation.Collator, desc bool, key []byte) (any, bool) {
	for _, x := range vals {
		kv := x
		if coll != nil {
			kv = coll.KeyValue(x)
		}
		if bytes.Equal(lsm.AppendKey(nil, kv, desc), key) {
			return x, true
		}
	}
	return nil, false
}
