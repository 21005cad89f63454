package engine

import (
	"bytes"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// errMinMaxHint is mongod's refusal of min or max without a hint.
func errMinMaxHint() error {
	return document.Errorf(document.Code(51173), "When using min()/max() a hint of which index to use must be provided")
}

// boundMinMax narrows p's ranges over its hinted index to the keys from
// min (inclusive) to max (exclusive), in the index's order: a find's
// min and max. Each must name the key pattern's fields in its order.
func (p *plan) boundMinMax(min, max bson.D) error {
	ix := p.ix
	if ix == nil {
		return document.Errorf(document.CodeNoQueryExecutionPlans, "error processing query: planner returned error :: caused by :: min and max are not allowed with a $natural hint")
	}
	if p.or != nil || p.ts != nil || p.wcPath != "" || isTextKey(ix.Key) || indexkey.IsWildcard(ix.Key) {
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
			return nil, document.Errorf(document.Code(51174), "The index chosen is not equivalent to min/max")
		}
		k := lsm.IndexPrefix(p.m.ID, ix.ID)
		for i, f := range fields {
			if d[i].Key != f.Path {
				return nil, document.Errorf(document.Code(51174), "The index chosen is not equivalent to min/max")
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

// indexKeyOf is returnKey's document for d: the values of p's index
// fields ({} for a plan without an index).
func (p *plan) indexKeyOf(d bson.D) bson.D {
	if p == nil || p.ix == nil || isTextKey(p.ix.Key) || indexkey.IsWildcard(p.ix.Key) {
		return bson.D{}
	}
	return indexkey.Value(p.ix, d)
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
