package engine

import (
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// collModTimeseries applies collMod's collection-level options to nm,
// the entry of time-series collection c built from m (docs/collmod.md
// §5.2, docs/timeseries.md §6.5): expireAfterSeconds (a number >= 0, or
// "off" to remove it) and timeseries (granularity growth, custom span
// and rounding, through ts.Options.ApplyCollMod). The caller holds
// catMu and the buckets collection's write lock (collModCommit). A new
// expiry applies from the monitor's next visit.
func (db *DB) collModTimeseries(c *coll, m, nm *catalog.Coll, cmd bson.D) (bson.D, func(*catalog.Coll), error) {
	t, err := decodeTSMeta(m)
	if err != nil {
		return nil, nil, err
	}
	o, exp, hasExp := t.opts, t.expire, t.hasExpire
	for _, e := range cmd {
		switch e.Key {
		case "expireAfterSeconds":
			if exp, hasExp, err = parseCollModExpire(e.Value); err != nil {
				return nil, nil, err
			}
		case "timeseries":
			if o, err = o.ApplyCollMod(e.Value); err != nil {
				return nil, nil, err
			}
		default:
			return nil, nil, document.Errorf(document.CodeInvalidOptions, "option not supported on a time-series collection: %s", e.Key)
		}
	}
	nm.Options = tsOptionsDoc(o, exp, hasExp)
	if spec, ok := get(m.Options, "collation"); ok {
		nm.Options = append(nm.Options, bson.E{Key: "collation", Value: spec}) // kept
	}
	return nil, func(*catalog.Coll) {
		if _, ok := c.ext.(*tsState); ok {
			tsStateOf(c, o)
		}
	}, nil
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
