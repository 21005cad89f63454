package ttlmon

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// IndexResult is what one TTL pass deleted through one index (or one
// time-series collection's expiry).
type IndexResult struct {
	Namespace string
	Index     string
	Deleted   int64
}

// PassResult reports a TTL pass.
type PassResult struct {
	Deleted   int64
	SubPasses int
	Indexes   []IndexResult
}

// Reply is r in the shape of the runTTLPass command's reply:
// {deleted, subPasses, indexes: [{ns, index, deleted}]}.
func (r *PassResult) Reply() bson.D {
	per := bson.A{}
	for _, ir := range r.Indexes {
		per = append(per, bson.D{{Key: "ns", Value: ir.Namespace}, {Key: "index", Value: ir.Index}, {Key: "deleted", Value: ir.Deleted}})
	}
	return bson.D{{Key: "deleted", Value: r.Deleted}, {Key: "subPasses", Value: int32(r.SubPasses)}, {Key: "indexes", Value: per}}
}

// Pass runs one TTL pass now (docs/ttl-monitor.md §3): sub-passes until
// one ends with no target having work left. Each sub-pass lists the
// targets afresh and visits each in turn; a target whose visit stopped
// at one of its targets goes to the back of the queue, and once every
// target was visited the sub-pass ends at ttlMonitorSubPassTargetSecs.
// It returns what it deleted, also when it fails or is cancelled (with
// the reaper's error, or the context's as it is).
func (m *Monitor) Pass(ctx context.Context) (*PassResult, error) {
	if err := m.host.Writable(); err != nil {
		return nil, err
	}
	m.passMu.Lock()
	defer m.passMu.Unlock()
	startWrites := m.host.Writes()
	res := &PassResult{}
	per := map[Key]*IndexResult{}
	var order []Key
	// add counts n deletes through target t.
	add := func(t Target, n int64) {
		if n == 0 {
			return
		}
		r := per[t.Key]
		if r == nil {
			r = &IndexResult{Namespace: t.Reaper.Namespace(), Index: t.Name}
			per[t.Key] = r
			order = append(order, t.Key)
		}
		r.Deleted += n
		res.Deleted += n
	}
	// results fills in res.Indexes, in the order the indexes first
	// deleted something.
	results := func() {
		for _, k := range order {
			res.Indexes = append(res.Indexes, *per[k])
		}
	}
	// stopped ends a pass that failed or was cancelled: it reports what
	// it deleted, which still counts toward reclamation.
	stopped := func(err error) (*PassResult, error) {
		results()
		m.mu.Lock()
		m.reclaim.since += res.Deleted
		m.mu.Unlock()
		return res, err
	}
	for {
		subStart := m.host.Now()
		subTarget := m.host.SubPassTarget()
		queue := m.host.Targets()
		// unvisited counts the targets of the fresh list not yet visited:
		// the time target ends a sub-pass only once each was visited, so
		// a visit as long as the target cannot keep the targets after it
		// waiting.
		unvisited := len(queue)
		workLeft := false
		for len(queue) > 0 {
			t := queue[0]
			queue = queue[1:]
			unvisited--
			n, more, err := t.Reaper.Visit(ctx)
			add(t, n)
			if err != nil {
				return stopped(err)
			}
			m.host.Visited(t.Name, n, more)
			if more {
				if subTarget == 0 {
					workLeft = true
					continue
				}
				queue = append(queue, t)
			}
			if subTarget > 0 && unvisited <= 0 && len(queue) > 0 && m.host.Now().Sub(subStart) >= subTarget {
				workLeft = true
				break
			}
		}
		m.subPasses.Add(1)
		res.SubPasses++
		if !workLeft {
			break
		}
		if err := ctx.Err(); err != nil {
			return stopped(err)
		}
	}
	m.passes.Add(1)
	results()
	m.afterPass(res.Deleted, startWrites)
	return res, nil
}
