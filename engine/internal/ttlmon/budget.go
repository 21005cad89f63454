package ttlmon

import "time"

// Budget is how much one visit of a target may do before the sub-pass
// moves on to the next target, so that one large index never starves a
// small one (docs/ttl-monitor.md §3.2): up to ttlIndexDeleteTargetDocs
// documents and ttlIndexDeleteTargetTimeMS on the clock of the time
// targets. A reaper reads its keys in chunks the budget sizes and asks
// it between chunks, and between delete batches inside a chunk, whether
// to stop; a visit always deletes something before it stops, so every
// visit makes progress.
type Budget struct {
	docs    int64         // 0: no document target
	limit   time.Duration // 0: no time target
	start   time.Time
	now     func() time.Time
	stopped bool // the time target ended the visit inside a chunk
}

// Budget starts the budget of a visit with document target docs and
// time target limit (0: none).
func (m *Monitor) Budget(docs int64, limit time.Duration) *Budget {
	return &Budget{docs: docs, limit: limit, start: m.host.Now(), now: m.host.Now}
}

func (b *Budget) since() time.Duration { return b.now().Sub(b.start) }

// Chunk returns how many keys the visit reads at a time: max, or fewer
// when the document target is smaller.
func (b *Budget) Chunk(max int64) int64 {
	if b.docs > 0 && b.docs < max {
		return b.docs
	}
	return max
}

// Want returns how many keys to read next, in chunks of chunk, when the
// visit has deleted documents: no more than its document target leaves.
func (b *Budget) Want(chunk, deleted int64) int64 {
	if b.docs > 0 && b.docs-deleted < chunk {
		return b.docs - deleted
	}
	return chunk
}

// Met reports whether a visit that has deleted documents must stop at
// a chunk boundary: its document or time target is met.
func (b *Budget) Met(deleted int64) bool {
	return (b.docs > 0 && deleted >= b.docs) || (b.limit > 0 && b.since() >= b.limit)
}

// StopFunc returns the function a chunk's delete batches ask, with what
// they deleted so far, whether the visit must stop between two of them,
// for a chunk begun after the visit had deleted before documents (nil:
// no time target). It ends a visit at its time target between two
// delete batches, so that a visit overshoots the target by at most one
// batch rather than by the rest of a chunk (thousands of documents,
// seconds of gentle reaping beside writers).
func (b *Budget) StopFunc(before int64) func(deleted int64) bool {
	if b.limit <= 0 {
		return nil
	}
	return func(deleted int64) bool {
		if before+deleted > 0 && b.since() >= b.limit {
			b.stopped = true
		}
		return b.stopped
	}
}

// Stopped reports whether a StopFunc ended the visit inside a chunk.
func (b *Budget) Stopped() bool { return b.stopped }
