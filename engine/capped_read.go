package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"time"

	"github.com/ttlkv/ttlkv/capped"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// nextCapped is scanner.next for a capped collection. A collection scan
// walks the ring in natural (insertion) order, or newest first when the
// plan is reverse; it keeps the next sequence to read in s.resume. A
// forward scan overtaken by evictions fails with 136
// CappedPositionLost; a reverse scan ends at the oldest record still
// live. An index scan (the _id index) reads entries in short read
// transactions and fetches each record from the ring at its offset,
// skipping records evicted meanwhile; a multikey index returns each
// document once.
func (s *scanner) nextCapped(ctx context.Context, n int) ([]record, error) {
	st, err := cappedOf(s.p.c)
	if err != nil {
		s.done = true
		return nil, cappedErr(s.p.c, err)
	}
	if s.p.ix != nil {
		return s.nextCappedIndex(ctx, n, st)
	}
	var out []record
	for !s.done && len(out) < n {
		if err := ctxErr(ctx); err != nil {
			return out, err
		}
		var it *capped.Iterator
		if s.resume == nil {
			it = st.ring.Scan(0, s.p.reverse)
		} else {
			next := binary.BigEndian.Uint64(s.resume)
			if s.p.reverse && next == 0 {
				s.done = true
				break
			}
			it = st.ring.Scan(next, s.p.reverse)
		}
		examined := 0
		for len(out) < n && examined < scanChunkKeys {
			if !it.Next() {
				if err := it.Err(); err != nil {
					s.done = true
					if errors.Is(err, capped.ErrOverwritten) && s.resume != nil && !s.p.reverse {
						return out, positionLost(false, binary.BigEndian.Uint64(s.resume)-1)
					}
					return out, cappedErr(s.p.c, err)
				}
				s.done = true
				break
			}
			examined++
			rec := it.Record()
			next := rec.Seq + 1
			if s.p.reverse {
				next = rec.Seq - 1
			}
			s.resume = binary.BigEndian.AppendUint64(s.resume[:0], next)
			r, err := s.cappedRecord(st, rec)
			if err != nil {
				return out, err
			}
			if r != nil {
				out = append(out, *r)
			}
		}
	}
	return out, nil
}

// cappedRecord decodes a ring record (through its pointer to the
// outside copy of a grown document) and applies the scan's filter; nil
// when it does not match or is a deleted document's tombstone.
func (s *scanner) cappedRecord(st *cappedState, rec capped.Record) (*record, error) {
	seq := rec.Seq
	msg, ok, err := st.recordMsg(rec)
	if err != nil || !ok {
		return nil, err
	}
	d, err := document.Unmarshal(msg)
	if err != nil {
		return nil, err
	}
	s.stats.docsExamined++
	if !s.noMatch {
		flt := s.flt
		if flt == nil {
			flt = s.p.filter
		}
		if ok, err := flt.MatchErr(d); err != nil || !ok {
			return nil, err
		}
	}
	if s.recordIDs {
		d = append(d, bson.E{Key: recordIDField, Value: int64(seq)})
	}
	return &record{rid: seq, d: d, raw: msg}, nil
}

// nextCappedIndex scans the plan's index ranges (the _id index from
// memory, secondary ones from Badger); see nextCapped.
func (s *scanner) nextCappedIndex(ctx context.Context, n int, st *cappedState) ([]record, error) {
	var out []record
	for !s.done && len(out) < n {
		if err := ctxErr(ctx); err != nil {
			return out, err
		}
		want := min(n-len(out), scanChunkKeys)
		var hits []cappedHit
		var err error
		if s.p.ix.ID == idIndexID {
			hits, err = s.cappedIDHits(st, want)
		} else {
			err = s.p.c.db.store.View(func(txn *lsm.Txn) error {
				for !s.done && len(hits) < want {
					it := txn.NewIter(s.rangeIter(false))
					exhausted := true
					for it.Next() {
						k := it.Key()
						if s.p.reverse {
							s.resume = append(s.resume[:0:0], k...)
						} else {
							s.resume = append(append(s.resume[:0:0], k...), 0)
						}
						s.stats.keysExamined++
						_, seq, _ := lsm.SplitIndexKey(k)
						v, err := it.Value()
						if err != nil {
							it.Close()
							return err
						}
						if s.seen != nil {
							// A multikey index has an entry per distinct key
							// of a document: return the document once.
							if _, dup := s.seen[seq]; dup {
								continue
							}
							s.seen[seq] = struct{}{}
						}
						if off, ok := decodeOff(v); ok {
							hits = append(hits, cappedHit{seq, off})
						}
						if len(hits) >= want {
							exhausted = false
							break
						}
					}
					err := it.Err()
					it.Close()
					if err != nil {
						return err
					}
					if exhausted {
						s.nextRange()
					}
				}
				return nil
			})
		}
		if err != nil {
			return out, err
		}
		for _, h := range hits {
			data, err := st.ring.Read(h.seq, h.off)
			if errors.Is(err, capped.ErrOverwritten) || errors.Is(err, capped.ErrNotFound) {
				continue // evicted after its entry was read
			} else if err != nil {
				return out, cappedErr(s.p.c, err)
			}
			r, err := s.cappedRecord(st, capped.Record{Seq: h.seq, Off: h.off, Data: data})
			if err != nil {
				return out, err
			}
			if r != nil {
				out = append(out, *r)
			}
		}
	}
	return out, nil
}

// cappedHit is an index entry of a capped collection: its record's
// sequence and offset.
type cappedHit struct {
	seq uint64
	off int64
}

// cappedIDHits is nextCappedIndex's scan of the in-memory _id index
// (cappedIDIndex), whose entries stand for the Badger keys
// IndexKey(coll, _id, ks, seq): up to want entries from the plan's
// ranges, resuming and advancing as a Badger scan does.
func (s *scanner) cappedIDHits(st *cappedState, want int) ([]cappedHit, error) {
	var hits []cappedHit
	pre := lsm.IndexPrefix(s.p.m.ID, idIndexID)
	for !s.done && len(hits) < want {
		r := s.ranges[s.ri]
		lo, hi := r.lo, r.hi
		if s.resume != nil {
			if s.p.reverse {
				hi = s.resume
			} else {
				lo = s.resume
			}
		}
		exhausted := true
		err := st.ids.scan(pre, lo, hi, s.p.reverse, func(ks string, seq uint64, off int64) bool {
			k := lsm.AppendIndexRecordID(append(append(s.resume[:0:0], pre...), ks...), seq)
			if !s.p.reverse {
				k = append(k, 0)
			}
			s.resume = k
			s.stats.keysExamined++
			hits = append(hits, cappedHit{seq, off})
			if len(hits) >= want {
				exhausted = false
				return false
			}
			return true
		})
		if err != nil {
			return hits, cappedErr(s.p.c, err)
		}
		if exhausted {
			s.nextRange()
		}
	}
	return hits, nil
}

// defaultMaxAwait is how long an awaitData getMore waits for a new
// document when maxTimeMS is not given (docs/tailable.md §8.2).
const defaultMaxAwait = time.Second

// tailBatchBytes bounds one batch of a tailable cursor when the caller
// sets no document count (a getMore without batchSize), like MongoDB's
// 16 MiB reply limit.
const tailBatchBytes = 16 << 20

// tailState drives a tailable cursor on a capped collection (docs/tailable.md §8):
// it returns matching documents in natural order and then follows the
// ring's tail, remembering the next sequence to read. A getMore of an
// awaitData cursor with nothing new waits on the ring (woken by the
// append that commits a record, never by polling) for up to maxAwait. If
// the records it has not read yet are overwritten it fails with 136
// CappedPositionLost; if the collection is dropped, with 175
// QueryPlanKilled. It is used by one goroutine at a time (the cursor's).
type tailState struct {
	c     *coll
	q     *queryExec // filter, projection, skip and limit
	await bool       // awaitData
	// maxAwait is how long the next awaitData getMore waits: its
	// maxTimeMS, else defaultAwait (the find's MaxAwaitMS or a second).
	maxAwait, defaultAwait time.Duration

	started bool
	pos     uint64 // next sequence to read once started
	dead    bool   // never returns more, and closes (empty at start, error)
	// spent: the find's limit is reached; the cursor stays open and
	// returns nothing more, as mongod keeps a tailable cursor.
	spent bool
}

func newTailState(c *coll, q *queryExec, o FindOptions) *tailState {
	t := &tailState{c: c, q: q, await: o.AwaitData, maxAwait: defaultMaxAwait}
	if o.MaxAwaitMS > 0 {
		t.maxAwait = time.Duration(o.MaxAwaitMS) * time.Millisecond
	}
	t.defaultAwait = t.maxAwait
	return t
}

// keepOpen reports whether the cursor stays open: false once it has
// failed or started on an empty collection (docs/tailable.md §8.3:
// cursor id 0); a cursor whose limit is reached stays open, returning
// nothing more, as mongod's tailable cursors do.
func (t *tailState) keepOpen() bool { return !t.dead }

// next returns up to n documents (n <= 0: none on the first batch, as
// many as fit in 16 MiB on a getMore). With await (a getMore) an
// awaitData cursor that finds nothing waits up to maxAwait for a new
// matching document and then returns an empty batch, still open.
func (t *tailState) next(ctx context.Context, n int, await bool) ([]bson.D, error) {
	docs, err := t.read(n, await)
	if err != nil || len(docs) > 0 || !await || !t.await || t.dead {
		return docs, err
	}
	timeout := context.WithTimeout
	if f := t.c.db.opts.seams.awaitTimeout; f != nil {
		timeout = f
	}
	wctx, cancel := timeout(ctx, t.maxAwait)
	defer cancel()
	docs, err = t.wait(wctx, n)
	if err != nil && ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
		return nil, nil // maxAwait passed: an empty batch, cursor open
	}
	return docs, err
}

// nextBlocking serves the Go Cursor: it returns at least one document,
// an error, or nothing when the cursor is dead; it waits as long as ctx
// allows.
func (t *tailState) nextBlocking(ctx context.Context, n int) ([]bson.D, error) {
	docs, err := t.read(n, true)
	if err != nil || len(docs) > 0 || t.dead {
		return docs, err
	}
	return t.wait(ctx, n)
}

// wait blocks on the ring until a matching document arrives (returning
// it), the cursor dies, or ctx ends (returning ctx.Err()).
func (t *tailState) wait(ctx context.Context, n int) ([]bson.D, error) {
	for {
		st, err := cappedOf(t.c)
		if err != nil {
			t.dead = true
			return nil, t.killed(err)
		}
		if err := st.ring.Wait(ctx, t.pos-1); err != nil {
			if errors.Is(err, capped.ErrClosed) {
				t.dead = true
				return nil, t.killed(err)
			}
			return nil, err
		}
		docs, err := t.read(n, true)
		if err != nil || len(docs) > 0 || t.dead {
			return docs, err
		}
	}
}

// killed maps the end of the ring under a cursor to 175 QueryPlanKilled.
func (t *tailState) killed(err error) error {
	if t.c.dropped.Load() || errors.Is(err, capped.ErrClosed) || errors.Is(err, errDropped) {
		return document.Errorf(document.CodeQueryPlanKilled, "collection dropped: %s", t.c.m().NS())
	}
	return err
}

// read returns what is available now, without waiting. n <= 0 means
// nothing on a first batch (await false) and up to 16 MiB on a getMore.
func (t *tailState) read(n int, await bool) ([]bson.D, error) {
	if t.dead || t.spent {
		return nil, nil
	}
	if t.c.dropped.Load() {
		t.dead = true
		return nil, t.killed(errDropped)
	}
	st, err := cappedOf(t.c)
	if err != nil {
		t.dead = true
		return nil, t.killed(err)
	}
	if !t.started {
		t.started = true
		if st.liveCount() == 0 {
			t.dead = true
			return nil, nil
		}
		// Records evicted between these two calls make the first read
		// fail with 136, as if they had been overwritten under the cursor.
		t.pos = st.ring.FirstSeq()
	}
	if n <= 0 && !await {
		return nil, nil // a find with batchSize 0: positioned, nothing returned
	}
	it := st.ring.Scan(t.pos, false)
	q := t.q
	f := q.sc.p.filter
	var out []bson.D
	bytes := 0
	for n <= 0 || len(out) < n {
		if q.limit > 0 && q.returned >= q.limit {
			t.spent = true
			break
		}
		if n <= 0 && bytes >= tailBatchBytes {
			break
		}
		if !it.Next() {
			if err := it.Err(); err != nil {
				t.dead = true
				if errors.Is(err, capped.ErrClosed) {
					return out, t.killed(err)
				}
				if errors.Is(err, capped.ErrOverwritten) {
					return out, positionLost(true, t.pos-1)
				}
				return out, cappedErr(t.c, err)
			}
			break
		}
		rec := it.Record()
		t.pos = rec.Seq + 1
		d, ok, err := st.decodeRecord(rec)
		if err != nil {
			t.dead = true
			return out, err
		}
		if !ok {
			continue // deleted, or evicted since it was read
		}
		if ok, err := f.MatchErr(d); err != nil {
			t.dead = true
			return out, err
		} else if !ok {
			continue
		}
		if q.skip > 0 {
			q.skip--
			continue
		}
		if q.showRecordID {
			d = append(d, bson.E{Key: recordIDField, Value: int64(rec.Seq)})
		}
		pd, err := q.project(d)
		if err != nil {
			t.dead = true
			return out, err
		}
		out = append(out, pd)
		q.returned++
		bytes += len(rec.Data)
	}
	return out, nil
}

// positionLost is 136 CappedPositionLost worded as mongod's collection
// scan words it, last being the record id (ring sequence) the scan saw
// last: a tailable cursor could not resume after it, any other scan of
// the collection found it evicted under it (docs/capped.md §7.7).
func positionLost(tailable bool, last uint64) error {
	if tailable {
		return document.Errorf(document.CodeCappedPositionLost, "CollectionScan died due to failure to restore tailable cursor position. Last seen record id: RecordId(%d)", last)
	}
	return document.Errorf(document.CodeCappedPositionLost, "CollectionScan died due to position in capped collection being deleted. Last seen record id: RecordId(%d)", last)
}

// executorError adds mongod's context to an error a query's executor
// met while producing a batch (where is "find command" or "getMore"):
// 136 is the one the engine words as mongod's executor does.
func executorError(where string, err error) error {
	var de *document.Error
	if errors.As(err, &de) && de.Code == document.CodeCappedPositionLost {
		return document.Errorf(de.Code, "Executor error during %s :: caused by :: %s", where, de.Message)
	}
	return err
}
