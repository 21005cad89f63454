package engine

import (
	"bytes"
	"context"
	"errors"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/extsort"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// record is a document with its record id.
type record struct {
	rid uint64
	id  []byte // _id keystring, in a clustered collection (recKey)
	d   bson.D
	raw []byte // stored encoding
	key []byte // the index keystring the scan read it by, when it keeps keys
}

// execStats are explain's executionStats counters.
type execStats struct {
	keysExamined, docsExamined, nReturned int64
	// matched are the records the scan handed on (its filter passed);
	// seeks the index positions it looked up (a range's start, a skip
	// past keys out of bounds); dupsTested and dupsDropped the keys of
	// a multikey index checked for a document already taken, and those
	// that were, as mongod's IXSCAN counts them.
	matched, seeks, dupsTested, dupsDropped int64
	// termKeys are a $text scan's keys examined in each of its ranges
	// (one a term), for explain's IXSCAN a term.
	termKeys []int64
	// coveredKeys are the entries a covered scan answered from, without
	// reading their documents.
	coveredKeys int64
	// partial is set when the scan stopped before its end (a limit was
	// met): its stages are not at EOF.
	partial bool
	sort    sortStats // the SORT stage's, if any
}

// sortStats are an in-memory sort's figures, as mongod's SORT stage
// reports them: its memory limit, what it sorted (by the estimate the
// limit is counted in) and the runs it wrote to disk.
type sortStats struct {
	memLimit, bytes, spills int64
}

// scanChunkKeys bounds the keys one read transaction examines, so that
// long scans do not pin old versions in Badger.
const scanChunkKeys = 4096

// scanner reads the records a plan selects, in plan order, in short
// read transactions, resuming where the last one stopped. It filters
// with the plan's filter.
type scanner struct {
	p       *plan
	flt     *query.Filter   // p.filter bound to fltCtx (filter)
	fltCtx  context.Context //
	ranges  []keyRange
	ri      int    // current range
	resume  []byte // next key bound within ranges[ri]; nil: range start
	seen    map[uint64]struct{}
	done    bool
	stats   execStats
	noMatch bool    // return every record, ignoring the filter
	ts      *tsScan // non-nil: measurements of a time-series collection
	// skipDecode leaves record.d nil: the caller reads record.raw only
	// (queryExec.rawKeep). With partialMatch set, the filter is applied
	// to the record's matchFields alone; without it, there is no filter
	// to apply.
	skipDecode   bool
	partialMatch bool
	matchFields  []string
	// subs are the scans of an index union's branches, read one after
	// the other (si the current one), sharing seen so that a document is
	// taken once.
	subs []*scanner
	si   int
	// misses counts the keys in a row that a key check skipped.
	misses int
	// cover, when set, are the fields of the index the scan answers
	// from (a covered find, plan.covered): each entry's document is
	// rebuilt from its key and type bits (coveredDoc), not read, unless
	// the entry cannot give it.
	cover []indexkey.Field
	// recordIDs: each document carries its record id (recordIDField),
	// for a find's showRecordId; indexKeys: the index key the scan read
	// it by (indexKeyField), for returnKey.
	recordIDs, indexKeys bool
}

// seekAfterMisses is how many keys in a row out of a later field's
// bounds an index scan reads before it seeks past them: a new iterator
// costs more than reading a few keys.
const seekAfterMisses = 16

// seekTo moves a forward index scan to the index keystring next (nil:
// past the whole index): within its current range when next is in it,
// else to the next range. A next at or before where the scan is goes
// nowhere: the scan reads on from where it was.
func (s *scanner) seekTo(next []byte) {
	r := s.ranges[s.ri]
	if next != nil {
		k := append(append([]byte(nil), s.p.ixPrefix...), next...)
		if bytes.Compare(k, s.resume) <= 0 {
			return
		}
		if r.hi == nil || bytes.Compare(k, r.hi) < 0 {
			s.resume = k
			s.stats.seeks++
			return
		}
	}
	s.nextRange()
}

// seekBelow moves a backward index scan below the index keystring
// bound: within its current range when bound is above the range's
// start, else to the range before. A bound at or above where the scan
// is goes nowhere.
func (s *scanner) seekBelow(bound []byte) {
	r := s.ranges[s.ri]
	k := append(append([]byte(nil), s.p.ixPrefix...), bound...)
	if s.resume != nil && bytes.Compare(k, s.resume) >= 0 {
		return
	}
	if bytes.Compare(k, r.lo) > 0 {
		s.resume = k
		s.stats.seeks++
		return
	}
	s.nextRange()
}

// rangeIter returns the iterator options of the scan's current range,
// from its resume key when it has one.
func (s *scanner) rangeIter(keysOnly bool) lsm.IterOptions {
	r := s.ranges[s.ri]
	o := lsm.IterOptions{Lower: r.lo, Upper: r.hi, Reverse: s.p.reverse, KeysOnly: keysOnly}
	if s.resume != nil {
		if s.p.reverse {
			o.Upper = s.resume
		} else {
			o.Lower = s.resume
		}
	}
	return o
}

// nextRange moves an index scan past its current range to the next one
// in scan order (the previous one when reverse), from that range's
// start, and marks the scan done after the last.
func (s *scanner) nextRange() {
	s.resume = nil
	if s.p.reverse {
		s.ri--
		s.done = s.ri < 0
	} else {
		s.ri++
		s.done = s.ri >= len(s.ranges)
	}
	if !s.done {
		s.stats.seeks++
	}
}

func newScanner(p *plan) *scanner {
	s := &scanner{p: p}
	if p.or != nil {
		seen := map[uint64]struct{}{}
		for _, sp := range p.or {
			sub := newScanner(sp)
			sub.seen = seen
			s.subs = append(s.subs, sub)
			p.orStats = append(p.orStats, &sub.stats)
		}
		return s
	}
	if p.ix == nil {
		pre := recPrefix(p.m)
		s.ranges = []keyRange{{pre, lsm.PrefixEnd(pre)}}
	} else {
		s.ranges = p.ranges
		if p.ix.Multikey {
			s.seen = map[uint64]struct{}{}
		}
		if p.text != nil {
			s.stats.termKeys = make([]int64, len(p.ranges))
		}
	}
	if p.reverse {
		s.ri = len(s.ranges) - 1
	}
	if len(s.ranges) == 0 {
		s.done = true
	} else {
		s.stats.seeks = 1
	}
	return s
}

// filter is the scan's filter bound to the context of the batch being
// read, so that a $where (or a $function in a $expr) stops when that
// context ends: a cursor's batches each have their own.
func (s *scanner) filter(ctx context.Context) *query.Filter {
	if s.flt == nil || s.fltCtx != ctx {
		bound := ctx
		if s.p.filter.HasWhere() && s.p.c != nil {
			// A Go API call has no command to give its $where the
			// log and the stored functions (runCommand does).
			bound = s.p.c.db.scriptContext(ctx, s.p.m.DB)
		}
		s.flt, s.fltCtx = s.p.filter.WithContext(bound), ctx
	}
	return s.flt
}

// next returns up to n more matching records; fewer (maybe none) with
// done set at the end.
func (s *scanner) next(ctx context.Context, n int) (recs []record, err error) {
	defer func() { s.stats.matched += int64(len(recs)) }()
	s.filter(ctx)
	if s.ts != nil {
		return s.nextTS(ctx, n)
	}
	if s.subs != nil {
		return s.nextUnion(ctx, n)
	}
	return kindOf(s.p.m).next(ctx, s, n)
}

// nextUnion is next over an index union: each branch's scan in turn,
// with this scan's settings, its figures added to this scan's.
func (s *scanner) nextUnion(ctx context.Context, n int) ([]record, error) {
	var out []record
	for s.si < len(s.subs) && len(out) < n {
		sub := s.subs[s.si]
		sub.noMatch, sub.skipDecode, sub.partialMatch, sub.matchFields = s.noMatch, s.skipDecode, s.partialMatch, s.matchFields
		k0, d0 := sub.stats.keysExamined, sub.stats.docsExamined
		recs, err := sub.next(ctx, n-len(out))
		s.stats.keysExamined += sub.stats.keysExamined - k0
		s.stats.docsExamined += sub.stats.docsExamined - d0
		out = append(out, recs...)
		if err != nil {
			return out, err
		}
		if sub.done {
			s.si++
		}
	}
	s.done = s.si >= len(s.subs)
	return out, nil
}

// nextRecords is next over an ordinary (possibly clustered) collection's
// records in Badger.
func (s *scanner) nextRecords(ctx context.Context, n int) ([]record, error) {
	var out []record
	flt := s.filter(ctx)
	for !s.done && len(out) < n {
		if err := ctxErr(ctx); err != nil {
			return out, err
		}
		err := s.p.c.db.store.View(func(txn *lsm.Txn) error {
			if s.seen == nil && s.p.ix != nil && !(s.p.m.Clustered && s.p.ix.ID == idIndexID) {
				// The plan was made from a catalog entry in which the
				// index was not multikey; a writer may have made it so
				// since. Then this snapshot can hold several keys of one
				// document: take each document once from here on.
				if mk, err := multikeyIn(txn, s.p.m, s.p.ix.ID); err != nil {
					return err
				} else if mk {
					s.seen = map[uint64]struct{}{}
					// Its keys are no longer one a document: documents
					// are read from here on.
					s.cover = nil
				}
			}
			examined := 0
			for !s.done && len(out) < n && examined < scanChunkKeys {
				// Index entries are read for their keys, except in a
				// clustered collection, whose entries hold the _id
				// entry's document or a secondary entry's _id keystring.
				it := txn.NewIter(s.rangeIter(s.p.ix != nil && !s.p.m.Clustered && s.cover == nil))
				exhausted := true
				for it.Next() {
					examined++
					k := it.Key()
					if s.p.reverse {
						s.resume = append(s.resume[:0:0], k...)
					} else {
						s.resume = append(append(s.resume[:0:0], k...), 0)
					}
					var rec record
					if s.p.ix == nil || (s.p.m.Clustered && s.p.ix.ID == idIndexID) {
						if s.p.ix != nil {
							s.stats.keysExamined++
						}
						rid, id := splitRecKey(s.p.m, k)
						if s.seen != nil {
							// A branch of an index union over the clustered
							// _id index: its secondary indexes' entries
							// carry the same record ids.
							if _, dup := s.seen[rid]; dup {
								continue
							}
							s.seen[rid] = struct{}{}
						}
						v, err := it.Value()
						if err != nil {
							it.Close()
							return err
						}
						rec.rid, rec.id, rec.raw = rid, bytes.Clone(id), v
					} else {
						s.stats.keysExamined++
						if s.stats.termKeys != nil {
							s.stats.termKeys[s.ri]++
						}
						ks, rid, _ := lsm.SplitIndexKey(k)
						if s.indexKeys {
							rec.key = bytes.Clone(ks)
						}
						if s.p.keyChecks != nil {
							ok, next, prev := s.p.keyCheck(ks)
							if !ok {
								// Out of a later field's bounds: not fetched.
								s.misses++
								if examined >= scanChunkKeys {
									exhausted = false // resume in a new transaction
									break
								}
								if s.misses >= seekAfterMisses {
									// A run of keys out of bounds: go to the
									// next key that can be within them (the
									// next range, when that is past this
									// one).
									s.misses = 0
									if s.p.reverse {
										s.seekBelow(prev)
									} else {
										s.seekTo(next)
									}
									exhausted = false
									break
								}
								continue
							}
							s.misses = 0
						}
						if s.seen != nil {
							s.stats.dupsTested++
							if _, dup := s.seen[rid]; dup {
								s.stats.dupsDropped++
								continue
							}
							s.seen[rid] = struct{}{}
						}
						if s.cover != nil {
							v, err := it.Value()
							if err != nil {
								it.Close()
								return err
							}
							if d, ok := coveredDoc(s.cover, ks, v); ok {
								s.stats.coveredKeys++
								keep := s.noMatch
								if !keep {
									if keep, err = flt.MatchErr(d); err != nil {
										it.Close()
										return err
									}
								}
								if keep {
									out = append(out, record{rid: rid, d: d})
								}
								if len(out) >= n || examined >= scanChunkKeys {
									exhausted = false
									break
								}
								continue
							}
						}
						if s.p.m.Clustered {
							id, err := it.Value()
							if err != nil {
								it.Close()
								return err
							}
							rec.id = entryID(id) // a TTL entry carries more
						}
						v, err := txn.Get(recKey(s.p.m, rid, rec.id))
						if err == lsm.ErrNotFound {
							continue
						} else if err != nil {
							it.Close()
							return err
						}
						rec.rid, rec.raw = rid, v
					}
					s.stats.docsExamined++
					if s.skipDecode {
						keep := true
						if s.partialMatch && !s.noMatch {
							d, err := document.UnmarshalFields(rec.raw, s.matchFields)
							if err == nil {
								keep, err = flt.MatchErr(d)
							}
							if err != nil {
								it.Close()
								return err
							}
						}
						if keep {
							out = append(out, rec)
						}
						if len(out) >= n || examined >= scanChunkKeys {
							exhausted = false
							break
						}
						continue
					}
					d, err := document.Unmarshal(rec.raw)
					if err != nil {
						it.Close()
						return err
					}
					if isBucketsColl(s.p.m) {
						// A time-series bucket: base record plus deltas.
						if d, err = s.p.c.db.tsMergeRecord(txn, s.p.m, rec.rid, d); err != nil {
							it.Close()
							return err
						}
					}
					rec.d = d
					if s.noMatch {
						s.carry(&rec)
						out = append(out, rec)
					} else if ok, err := flt.MatchErr(d); err != nil {
						it.Close()
						return err
					} else if ok {
						s.carry(&rec)
						d = rec.d
						if t := s.p.text; t != nil && t.score {
							// The score travels as the last field to the
							// sort and the projection (query.TextScoreField).
							score, err := t.q.Score(d, t.spec)
							if err != nil {
								it.Close()
								return err
							}
							rec.d = append(d, bson.E{Key: query.TextScoreField, Value: score})
						}
						out = append(out, rec)
					}
					if len(out) >= n || examined >= scanChunkKeys {
						exhausted = false
						break
					}
				}
				it.Close()
				if exhausted {
					s.nextRange()
				}
			}
			return nil
		})
		if err != nil {
			return out, err
		}
	}
	return out, nil
}

// queryExec runs a find: scan, optional in-memory sort, skip, limit
// and projection.
type queryExec struct {
	sc       *scanner
	sortSt   *query.Sort // non-nil: SORT stage in memory
	sortCfg  sortConfig
	sorted   *extsort.Iter
	sortDone bool
	skip     int64
	limit    int64 // 0: none
	proj     *query.Projection
	// present, when set, turns a stored document into what a client
	// reads (a time-series bucket as MongoDB's bucket document); the
	// filter and sort see the stored form.
	present  func(bson.D) (bson.D, error)
	returned int64
	done     bool
	// keepScore hands the documents on with the text score they carry
	// (query.TextScoreField), for an aggregation's $meta.
	keepScore bool
	// returnKey returns each document's index key instead of it.
	returnKey bool
	// showRecordID adds each document's record id as $recordId, after
	// the projection; the scan carries it (recordIDField).
	showRecordID bool
	// gen, when set, produces the documents instead of the scan (an
	// aggregation pipeline's results); it sets done at the end.
	gen func(ctx context.Context, n int) ([]bson.D, error)
}

func newQueryExec(p *plan, skip, limit int64, proj *query.Projection) *queryExec {
	// A positional projection (a.$) is placed by the query.
	q := &queryExec{sc: newScanner(p), skip: skip, limit: limit, proj: proj.WithQuery(p.filter)}
	if p.near != nil {
		q.gen = nearGen(q, p.near, p.sort, nil)
		return q
	}
	if p.sort != nil && !p.sortByIndex && len(p.sort.Keys()) > 0 {
		q.sortSt = p.sort
	}
	return q
}

// nextBatch returns up to n documents (n <= 0: all remaining).
func (q *queryExec) nextBatch(ctx context.Context, n int) ([]bson.D, error) {
	if n <= 0 {
		n = int(^uint(0) >> 1)
	}
	if q.gen != nil {
		return q.gen(ctx, n)
	}
	var out []bson.D
	if q.sortSt != nil && !q.sortDone {
		if err := q.sortAll(ctx); err != nil {
			return nil, err
		}
	}
	for len(out) < n && !q.done {
		if q.limit > 0 && q.returned >= q.limit {
			q.done = true
			break
		}
		var d bson.D
		if q.sortSt != nil {
			var err error
			if d, err = q.sorted.Next(); err != nil {
				return out, err
			}
			if d == nil {
				q.done = true
				break
			}
		} else {
			want := n - len(out)
			if q.limit > 0 && int64(want) > q.limit-q.returned {
				want = int(q.limit - q.returned)
			}
			want += int(q.skip)
			recs, err := q.sc.next(ctx, min(want, 1024))
			if err != nil {
				return out, err
			}
			for _, r := range recs {
				if q.skip > 0 {
					q.skip--
					continue
				}
				if q.limit > 0 && q.returned >= q.limit {
					break
				}
				pd, err := q.project(r.d)
				if err != nil {
					return out, err
				}
				out = append(out, pd)
				q.returned++
			}
			if q.sc.done {
				q.done = true
			}
			continue
		}
		if q.skip > 0 {
			q.skip--
			continue
		}
		pd, err := q.project(d)
		if err != nil {
			return out, err
		}
		out = append(out, pd)
		q.returned++
	}
	q.sc.stats.nReturned = q.returned
	return out, nil
}

// sortConfig is how a query's in-memory sort may use disk: past
// agg.DefaultMaxMemoryBytes (mongod's internalQueryMaxBlockingSortMemoryUsageBytes)
// it writes sorted runs to dir, or with noSpill fails with 292.
type sortConfig struct {
	dir      string
	noSpill  bool
	maxBytes int64 // 0: agg.DefaultMaxMemoryBytes
}

// sortAll reads the whole scan into the SORT stage: only the first
// skip+limit documents when limited (a top-k), and past the memory limit
// in sorted runs on disk, merged as the results are read.
func (q *queryExec) sortAll(ctx context.Context) error {
	maxBytes := q.sortCfg.maxBytes
	if maxBytes <= 0 {
		maxBytes = agg.DefaultMaxMemoryBytes
	}
	srt := &extsort.Sorter{Compare: q.sortSt.Compare, SortBuf: q.sortSt.SortDocs, Size: agg.ApproxSize, MaxBytes: maxBytes,
		Dir: q.sortCfg.dir, NoSpill: q.sortCfg.noSpill}
	if q.limit > 0 {
		srt.Limit = q.skip + q.limit
	}
	for !q.sc.done {
		recs, err := q.sc.next(ctx, 1024)
		if err != nil {
			srt.Close()
			return err
		}
		for _, r := range recs {
			if err := q.sortSt.CheckParallelArrays(r.d); err != nil {
				srt.Close()
				return err
			}
			if err := srt.Add(r.d); err != nil {
				srt.Close()
				if errors.Is(err, extsort.ErrMemory) {
					return document.Errorf(document.CodeQueryExceededMemoryLimit, "Executor error during find command :: caused by :: Sort exceeded memory limit of %d bytes, but did not opt in to external sorting.", maxBytes)
				}
				return err
			}
		}
	}
	runs, _ := srt.Spilled()
	q.sc.stats.sort = sortStats{memLimit: maxBytes, bytes: srt.Sorted(), spills: int64(runs)}
	it, err := srt.Sort()
	if err != nil {
		return err
	}
	q.sorted, q.sortDone = it, true
	return nil
}

func (q *queryExec) project(d bson.D) (bson.D, error) {
	if q.showRecordID {
		rid, rest := takeRecordID(d)
		q.showRecordID = false
		out, err := q.project(rest)
		q.showRecordID = true
		if err != nil || rid == nil {
			return out, err
		}
		return append(out[:len(out):len(out)], bson.E{Key: "$recordId", Value: rid}), nil
	}
	if q.returnKey {
		for _, e := range d {
			if e.Key == indexKeyField {
				return e.Value.(bson.D), nil
			}
		}
		// A scan that kept no key (a capped collection's, a clustered
		// _id index's): the key made from the document.
		return q.sc.p.indexKeyOf(d), nil
	}
	if q.present != nil {
		var err error
		if d, err = q.present(d); err != nil {
			return nil, err
		}
	}
	if q.keepScore {
		return d, nil // an aggregation's stages read the score
	}
	if q.proj == nil && !q.sc.p.carriesTextScore() {
		return d, nil
	}
	// A nil projection too takes a text score's field away.
	return q.proj.ApplyErr(d)
}

// rawKeep reports whether q's documents can be handed out as their
// stored encoding transcoded to BSON, without decoding them: an
// ordinary collection's records (not time-series buckets, which are
// merged with their deltas), a filter that reads named top-level fields
// only (or none), no sort in memory, no aggregation stage, and no
// projection or one of whole top-level fields. keep selects the fields
// to write (nil: all); match is set when the filter must be applied,
// to the fields named in matchFields.
func (q *queryExec) rawKeep() (keep func([]byte) bool, match bool, matchFields []string, ok bool) {
	if q.gen != nil || q.sortSt != nil || q.sc.ts != nil || q.returnKey || q.showRecordID || q.sc.cover != nil {
		return nil, false, nil, false
	}
	m := q.sc.p.m
	if m.Kind != catalog.KindNormal || isBucketsColl(m) {
		return nil, false, nil, false
	}
	if !q.sc.noMatch && !q.sc.p.filter.IsEmpty() {
		if matchFields, ok = q.sc.p.filter.TopFields(); !ok {
			return nil, false, nil, false
		}
		match = true
	}
	keep, ok = q.proj.FieldFilter()
	return keep, match, matchFields, ok
}

// nextBatchArray returns q's next documents as a bson.A: up to n of
// them (n <= 0: no count limit), and with maxBytes > 0 no more once
// their BSON size reaches maxBytes (at least one). With raw set, and
// when rawKeep allows it, the documents are bson.Raw transcoded from
// the stored encoding; otherwise they are bson.D.
func (q *queryExec) nextBatchArray(ctx context.Context, n int, raw bool, maxBytes int) (bson.A, error) {
	if n <= 0 {
		n = int(^uint(0) >> 1)
	}
	if raw {
		if keep, match, fields, ok := q.rawKeep(); ok {
			q.sc.skipDecode, q.sc.partialMatch, q.sc.matchFields = true, match, fields
			defer func() { q.sc.skipDecode, q.sc.partialMatch, q.sc.matchFields = false, false, nil }()
			return q.nextRawBatch(ctx, n, keep, maxBytes)
		}
	}
	if maxBytes <= 0 {
		docs, err := q.nextBatch(ctx, n)
		return docArray(docs), err
	}
	var out []bson.D
	size := 0
	for !q.done && size < maxBytes && len(out) < n {
		docs, err := q.nextBatch(ctx, min(256, n-len(out)))
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			size += document.Size(d)
		}
		out = append(out, docs...)
	}
	return docArray(out), nil
}

// docArray returns docs as the elements of a bson.A.
func docArray(docs []bson.D) bson.A {
	arr := make(bson.A, len(docs))
	for i, d := range docs {
		arr[i] = d
	}
	return arr
}

// nextRawBatch is nextBatchArray's path for a query rawKeep allows: the
// scan (skipDecode set) returns records undecoded, each matched on the
// fields its filter reads, and each is transcoded (the fields keep
// selects) into a buffer that the documents of one chunk of the scan
// share, sized from their stored sizes so that it is seldom regrown.
func (q *queryExec) nextRawBatch(ctx context.Context, n int, keep func([]byte) bool, maxBytes int) (bson.A, error) {
	chunk := 1024
	if maxBytes > 0 {
		chunk = 256
	}
	out := bson.A{}
	size := 0
	for len(out) < n && !q.done && (maxBytes <= 0 || size < maxBytes) {
		if q.limit > 0 && q.returned >= q.limit {
			q.done = true
			break
		}
		want := min(n-len(out), chunk)
		if q.limit > 0 && int64(want) > q.limit-q.returned {
			want = int(q.limit - q.returned)
		}
		want = min(want+int(min(q.skip, int64(chunk))), chunk)
		recs, err := q.sc.next(ctx, want)
		if err != nil {
			return nil, err
		}
		// BSON takes a little more than the stored encoding: type
		// bytes, NULs after names, 4-byte lengths and int32s.
		need := 0
		for _, r := range recs {
			need += len(r.raw)*3/2 + 16
		}
		buf := make([]byte, 0, need)
		for _, r := range recs {
			if q.skip > 0 {
				q.skip--
				continue
			}
			if q.limit > 0 && q.returned >= q.limit {
				break
			}
			start := len(buf)
			if buf, err = document.AppendBSONFields(buf, r.raw, keep); err != nil {
				return nil, err
			}
			out = append(out, bson.Raw(buf[start:len(buf):len(buf)]))
			size += len(buf) - start
			q.returned++
		}
		if q.sc.done {
			q.done = true
		}
	}
	q.sc.stats.nReturned = q.returned
	return out, nil
}

// multikeyIn reports whether index id of collection m is multikey in
// the catalog entry that txn reads (false when it is no longer there).
func multikeyIn(txn *lsm.Txn, m *catalog.Coll, id uint64) (bool, error) {
	raw, err := txn.Get(lsm.CatalogKey(m.DB, m.Name))
	if err == lsm.ErrNotFound {
		return false, nil
	} else if err != nil {
		return false, err
	}
	cm, err := catalog.Decode(raw)
	if err != nil {
		return false, err
	}
	ix := indexByID(cm, id)
	return ix != nil && ix.Multikey, nil
}
