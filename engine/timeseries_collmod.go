package engine

import (
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// collModTimeseries applies collMod's collection-level options to a
// time-series collection (docs/collmod.md §5.2, docs/timeseries.md §6.5): expireAfterSeconds (a
// number >= 0, or "off" to remove it) and timeseries (granularity
// growth, custom span and rounding, through ts.Options.ApplyCollMod).
// Everything is validated before anything changes. The caller holds
// catMu. A new expiry applies from the monitor's next visit.
func (db *DB) collModTimeseries(c *coll, cmd bson.D) (bson.D, error) {
	t, bc, err := db.tsParts(c)
	if err != nil {
		return nil, err
	}
	o, exp, hasExp := t.opts, t.expire, t.hasExpire
	for _, e := range cmd {
		switch e.Key {
		case "expireAfterSeconds":
			if exp, hasExp, err = parseCollModExpire(e.Value); err != nil {
				return nil, err
			}
		case "timeseries":
			if o, err = o.ApplyCollMod(e.Value); err != nil {
				return nil, err
			}
		default:
			return nil, document.Errorf(document.CodeInvalidOptions, "option '%s' is not supported on a time-series collection", e.Key)
		}
	}
	if bc != nil {
		bc.wmu.Lock()
		defer bc.wmu.Unlock()
	}
	m := c.m()
	nm := m.clone()
	nm.Options = tsOptionsDoc(o, exp, hasExp)
	if spec, ok := get(m.Options, "collation"); ok {
		nm.Options = append(nm.Options, bson.E{Key: "collation", Value: spec}) // kept
	}
	if err := db.updateMeta(c, nm, nil); err != nil {
		return nil, err
	}
	if _, ok := c.ext.(*tsState); ok {
		tsStateOf(c, o)
	}
	return bson.D{}, nil
}

// parseCollModExpire parses collMod's collection-level
// expireAfterSeconds: a number of seconds (on is true), or "off".
func parseCollModExpire(v any) (n int64, on bool, err error) {
	if s, ok := v.(string); ok {
		if s != "off" {
			return 0, false, document.Errorf(document.CodeInvalidOptions, "Invalid string value for the 'expireAfterSeconds' option: '%s'; expected \"off\"", s)
		}
		return 0, false, nil
	}
	n, err = parseCollExpire("collMod", v)
	return n, err == nil, err
}
