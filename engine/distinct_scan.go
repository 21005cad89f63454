package engine

import (
	"bytes"
	"context"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A distinct answered from an index's keys (mongod's DISTINCT_SCAN
// under PROJECTION_COVERED; docs/commands.md, "Distinct from an
// index"): the scan reads the first entry of each run of entries that
// share the key's value and seeks past the rest, rebuilding the exact
// value from the entry's keystring and type bits.

// distinctIndex returns the index a distinct on key with an empty
// filter reads its values from, nil if none qualifies: as mongod's
// getDistinctNodeIndex, the one with the fewest fields (the first in
// catalog order among equals) whose first field is key and that is not
// partial, of those whose keys give back their values exactly (marked
// with type bits, ascending and descending fields, no collation) and
// that are not multikey or hidden.
func distinctIndex(m *catalog.Coll, key string) *catalog.Index {
	var best *catalog.Index
	for _, ix := range m.Indexes {
		if ix.Hidden || ix.Partial != nil || ix.Multikey || !keepsTypeBits(m, ix) || !typedIndex(m, ix) {
			continue
		}
		if ix.Key[0].Key != key {
			continue
		}
		if best == nil || len(ix.Key) < len(best.Key) {
			best = ix
		}
	}
	return best
}

// distinctScannable reports whether plan p can give a distinct on key
// its values from its index's keys alone: one forward scan of a marked,
// typed index (typedIndex) of an ordinary collection, not multikey,
// whose first field is key, under the simple collation, and a filter
// that is empty or whose every condition is one the bounds on that
// first field answer exactly (query.Filter.CoveredPaths, without an
// equality to null, whose keys hold missing fields too).
func distinctScannable(p *plan, key string) bool {
	if p == nil || p.ix == nil || p.or != nil || p.ts != nil || p.text != nil || p.near != nil ||
		p.wcPath != "" || p.cwi != nil || p.whole || p.keyChecks != nil || p.reverse || p.sort != nil {
		return false
	}
	ix, m := p.ix, p.m
	if m.Kind != catalog.KindNormal || ix.Multikey || !keepsTypeBits(m, ix) || !typedIndex(m, ix) || planCollator(p) != nil {
		return false
	}
	fields := indexkey.Fields(ix.Key)
	if len(fields) == 0 || fields[0].Path != key {
		return false
	}
	if p.filter.IsEmpty() {
		return true
	}
	paths, nulls, ok := p.filter.CoveredPaths()
	if !ok || len(nulls) > 0 {
		return false
	}
	for _, path := range paths {
		if path != key {
			return false
		}
	}
	_, bounded := fieldBounds(ix, p.filter, p.sort)
	return bounded[0]
}

// distinctPlan plans a distinct on key over the documents that match
// filter under collation coll, and reports whether the plan's index
// gives the values (distinctScannable). An empty filter reads the index
// distinctIndex chooses, when the query's collation is the simple one.
func (db *DB) distinctPlan(dbName, name, key string, filter, coll bson.D) (*coll, *plan, *queryExec, bool, error) {
	o := FindOptions{Collation: coll}
	if len(filter) == 0 {
		if c := db.lookup(dbName, name); c != nil && c.m().Kind == catalog.KindNormal {
			m := c.m()
			simple := catalog.CollatorOf(coll) == nil
			if coll == nil {
				simple = m.DefaultCollator() == nil
			}
			if ix := distinctIndex(m, key); ix != nil && simple {
				hinted := o
				hinted.Hint = ix.Name
				c, p, q, err := db.findPlan(dbName, name, filter, hinted)
				if err == nil && distinctScannable(p, key) {
					return c, p, q, true, nil
				}
			}
		}
	}
	c, p, q, err := db.findPlan(dbName, name, filter, o)
	if err != nil {
		return nil, nil, nil, false, err
	}
	return c, p, q, distinctScannable(p, key), nil
}

// distinctScan reads the values of key from the entries of plan p's
// index within its ranges (distinctScannable), adding the keys and any
// documents it examined to st. Each run of entries whose first field
// has one keystring gives one value, from its first entry in index
// order (the value mongod's DISTINCT_SCAN gives of 1, 1.0 and
// NumberLong(1)), or from its first entry whose document has the field:
// a missing field keys as null, and the type bits tell it from a null,
// so the scan reads on through a run of missing fields until it meets a
// null. An entry whose type bits cannot give its value (a Symbol) has
// its document read. vals are in index order, not deduplicated across
// runs; ok is false, with nothing read, when the snapshot's catalog no
// longer has the index as the plan saw it (a writer made it multikey
// or dropped it): the caller reads documents instead.
func (db *DB) distinctScan(ctx context.Context, p *plan, key string, st *execStats) (vals bson.A, ok bool, err error) {
	fields := indexkey.Fields(p.ix.Key)
	parts := strings.Split(key, ".")
	flt := p.filter.WithContext(ctx)
	var size int
	err = db.store.View(func(txn *lsm.Txn) error {
		if same, err := indexAsPlanned(txn, p); err != nil || !same {
			return err
		}
		ok = true
		for _, r := range p.ranges {
			lo := r.lo
			for lo != nil {
				if err := ctxErr(ctx); err != nil {
					return err
				}
				next, err := db.distinctRun(txn, p, fields, parts, flt.MatchErr, lo, r.hi, st, func(v any) error {
					vals = append(vals, v)
					if size += approxSize(v); size > document.MaxDocumentSize {
						return document.Errorf(codeDistinctTooBig, "distinct too big, 16mb cap")
					}
					return nil
				})
				if err != nil {
					return err
				}
				lo = next
			}
		}
		return nil
	})
	if err != nil || !ok {
		return nil, false, err
	}
	return vals, true, nil
}

// distinctRun reads the entries from lo (below hi) until one gives a
// value (emitted) or is out of the filter, and returns where the next
// run starts: past every entry whose first field keys as that entry's
// does. nil: the range is read.
func (db *DB) distinctRun(txn *lsm.Txn, p *plan, fields []indexkey.Field, parts []string,
	match func(bson.D) (bool, error), lo, hi []byte, st *execStats, emit func(any) error) ([]byte, error) {
	it := txn.NewIter(lsm.IterOptions{Lower: lo, Upper: hi})
	defer it.Close()
	for it.Next() {
		st.keysExamined++
		ks, rid, ok := lsm.SplitIndexKey(it.Key())
		if !ok {
			return nil, document.Errorf(document.CodeInternalError, "malformed index entry in %s.%s", p.m.DB, p.m.Name)
		}
		_, rest, err := lsm.DecodeKey(ks, fields[0].Desc)
		if err != nil {
			return nil, err
		}
		run := append(bytes.Clone(p.ixPrefix), ks[:len(ks)-len(rest)]...)
		v, err := it.Value()
		if err != nil {
			return nil, err
		}
		d, covered := coveredDoc(fields, ks, v)
		if !covered {
			raw, err := txn.Get(recKey(p.m, rid, nil))
			if err == lsm.ErrNotFound {
				continue
			} else if err != nil {
				return nil, err
			}
			st.docsExamined++
			if d, err = document.Unmarshal(raw); err != nil {
				return nil, err
			}
		}
		if !p.filter.IsEmpty() {
			keep, err := match(d)
			if err != nil {
				return nil, err
			}
			if !keep {
				// Every entry of the run holds an equal value.
				return lsm.PrefixEnd(run), nil
			}
		}
		var emitErr error
		emitted := false
		distinctValues(d, parts, 0, false, func(x any) {
			if emitErr == nil {
				emitErr, emitted = emit(x), true
			}
		})
		if emitErr != nil {
			return nil, emitErr
		}
		if emitted {
			st.nReturned++
			return lsm.PrefixEnd(run), nil
		}
		// A missing field: a later entry of its run may hold a null.
	}
	return nil, it.Err()
}

// distinctScanDoc is explain's DISTINCT_SCAN of plan p: an IXSCAN's
// fields without seeks and dupsTested/dupsDropped, as mongod's
// DistinctScanStats; st, when non-nil, adds the values it handed on and
// keysExamined.
func distinctScanDoc(p *plan, st *execStats) bson.D {
	d := ixscanDoc(p, nil)
	d[0].Value = "DISTINCT_SCAN"
	if st != nil {
		d = withExec(d, st.nReturned, true)
		d = append(d, bson.E{Key: "keysExamined", Value: int32OrLong(st.keysExamined)})
	}
	return d
}
