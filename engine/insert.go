package engine

import (
	"context"
	"errors"

	"github.com/ttlkv/ttlkv/doc"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// WriteError is one failed document or statement of a write command.
type WriteError struct {
	Index int    // position in the request
	Err   *Error // what went wrong
}

// BulkWriteError is returned by InsertMany, and by the write commands'
// Go equivalents, when some documents failed: it lists each failure.
// The documents not listed were written.
type BulkWriteError struct {
	WriteErrors []WriteError
}

// Error summarises the first failure.
func (e *BulkWriteError) Error() string {
	if len(e.WriteErrors) == 0 {
		return "bulk write error"
	}
	return e.WriteErrors[0].Err.Error()
}

// Unwrap returns the first failure, so errors.As finds an *Error.
func (e *BulkWriteError) Unwrap() error {
	if len(e.WriteErrors) == 0 {
		return nil
	}
	return e.WriteErrors[0].Err
}

// insertChunkDocs and insertChunkBytes bound one insert transaction.
const (
	insertChunkDocs  = 2000
	insertChunkBytes = 4 << 20
)

func asUserError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// insertDocs inserts docs into db.name, creating the collection if
// needed. Ordered inserts stop at the first failure; unordered ones go
// on. It returns the _ids inserted (nil entries for failures) and the
// per-document errors; a non-nil error means a storage fault.
func (db *DB) insertDocs(ctx context.Context, dbName, name string, docs []any, ordered bool) (ids []any, werrs []WriteError, err error) {
	if err := db.checkWritable(); err != nil {
		return nil, nil, err
	}
	c, _, err := db.ensureColl(dbName, name)
	if err != nil {
		return nil, nil, err
	}
	if c.m().Kind == kindTimeseries {
		return db.insertTimeseries(ctx, c, docs, ordered)
	}
	if k := c.m().Kind; k == kindCapped || k == kindTimeseries {
		return db.insertSpecial(ctx, c, docs, ordered)
	}
	ids = make([]any, len(docs))
	prepared := make([]bson.D, len(docs))
	raws := make([][]byte, len(docs))
	failed := func(i int, e error) bool {
		ue, ok := asUserError(e)
		if !ok {
			err = e
			return true
		}
		werrs = append(werrs, WriteError{Index: i, Err: ue})
		return ordered
	}
	stopAt := len(docs)
	for i, v := range docs {
		d, e := prepareInsert(v)
		if e == nil {
			raws[i], e = doc.Marshal(d)
		}
		if e != nil {
			if failed(i, e) {
				stopAt = i
				break
			}
			continue
		}
		prepared[i] = d
	}
	if err != nil {
		return nil, nil, err
	}
	i := 0
	for i < stopAt {
		if err := ctxErr(ctx); err != nil {
			return ids, werrs, err
		}
		// The write lock is held per chunk, so the TTL monitor and other
		// writers interleave with a large insert.
		c.wmu.Lock()
		if c.dropped.Load() {
			c.wmu.Unlock()
			return ids, werrs, errDropped
		}
		start := i
		var newMeta *collMeta
		var chunkErrs []WriteError
		stop := false
		txErr := db.store.Update(func(txn *lsm.Txn) error {
			i, chunkErrs, stop, newMeta = start, nil, false, nil
			w := &writeCtx{c: c, m: c.m(), txn: txn}
			bytesIn := 0
			for ; i < stopAt && i-start < insertChunkDocs && bytesIn < insertChunkBytes; i++ {
				if prepared[i] == nil {
					continue
				}
				rid := c.nextRID.Add(1)
				if e := w.insert(rid, prepared[i], raws[i]); e != nil {
					ue, ok := asUserError(e)
					if !ok {
						return e
					}
					chunkErrs = append(chunkErrs, WriteError{Index: i, Err: ue})
					if ordered {
						i++
						stop = true
						break
					}
					continue
				}
				bytesIn += len(raws[i]) + 64
			}
			var e error
			newMeta, e = w.commitMultikey()
			return e
		})
		if txErr == nil && newMeta != nil {
			c.meta.Store(newMeta)
		}
		c.wmu.Unlock()
		if txErr != nil {
			return ids, werrs, txErr
		}
		for j := start; j < i; j++ {
			if prepared[j] != nil && !hasIndex(chunkErrs, j) {
				ids[j] = prepared[j][0].Value
			}
		}
		werrs = append(werrs, chunkErrs...)
		if stop {
			break
		}
	}
	sortWriteErrors(werrs)
	if ordered && len(werrs) > 1 {
		werrs = werrs[:1] // an ordered insert stops at its first failure
	}
	return ids, werrs, nil
}

func hasIndex(errs []WriteError, i int) bool {
	for _, e := range errs {
		if e.Index == i {
			return true
		}
	}
	return false
}

func sortWriteErrors(w []WriteError) {
	for i := 1; i < len(w); i++ {
		for j := i; j > 0 && w[j].Index < w[j-1].Index; j-- {
			w[j], w[j-1] = w[j-1], w[j]
		}
	}
}

// ensureColl returns the collection, creating an ordinary one if it
// does not exist.
func (db *DB) ensureColl(dbName, name string) (*coll, bool, error) {
	if c := db.lookup(dbName, name); c != nil {
		return c, false, nil
	}
	return db.createColl(dbName, name, nil)
}

var _ = doc.Errorf
