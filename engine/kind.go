package engine

// kind is what varies between the kinds of collection: ordinary
// (clustered or not), capped and time-series. The core asks a
// collection's kind (kindOf) rather than testing collMeta.Kind.
type kind interface {
	// ttlTargets lists what the TTL monitor visits in c (docs/ttl-monitor.md
	// §3.2): its TTL indexes, or a time-series collection's expiry.
	ttlTargets(c *coll) []ttlTarget
}

// kindOf returns the kind of a collection with catalog entry m. It is
// the one place that maps collMeta.Kind to behaviour.
func kindOf(m *collMeta) kind {
	if m.Kind == kindTimeseries {
		return timeseriesKind{}
	}
	return indexedKind{}
}

// indexedKind is a collection whose documents expire through TTL
// indexes: ordinary and clustered collections (capped collections refuse
// TTL indexes, docs/ttl-indexes.md §1.4, so they list none).
type indexedKind struct{}

func (indexedKind) ttlTargets(c *coll) []ttlTarget {
	var out []ttlTarget
	for _, ix := range c.m().Indexes {
		if ix.TTL {
			out = append(out, ttlTarget{c: c, index: ix.ID, name: ix.Name, reaper: indexReaper{}})
		}
	}
	return out
}

// timeseriesKind is a time-series collection: its measurements live in
// buckets of a buckets collection, which expire whole (timeseries*.go).
type timeseriesKind struct{}

func (timeseriesKind) ttlTargets(c *coll) []ttlTarget { return c.db.timeseriesTTLTargets(c) }
