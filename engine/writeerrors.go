package engine

import (
	"errors"

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

func asUserError(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
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

// writeFailed records e, the failure of document or statement i of a
// write, in werrs when it is a user error, and reports whether the write
// stops there: an ordered write stops at its first failure (MongoDB's
// rule, docs/writes.md). A storage fault is returned as fault, and the
// write stops.
func writeFailed(werrs *[]WriteError, i int, e error, ordered bool) (stop bool, fault error) {
	ue, ok := asUserError(e)
	if !ok {
		return true, e
	}
	*werrs = append(*werrs, WriteError{Index: i, Err: ue})
	return ordered, nil
}

// finishWriteErrors returns werrs in request order; an ordered write
// reports only its first failure.
func finishWriteErrors(werrs []WriteError, ordered bool) []WriteError {
	sortWriteErrors(werrs)
	if ordered && len(werrs) > 1 {
		werrs = werrs[:1]
	}
	return werrs
}

// prepareAll prepares the n documents of an insert in order with
// prepare. A user error becomes the write error of its document, and an
// ordered insert stops preparing there. It returns where the insert
// stops: n, or an ordered insert's first failed document. A storage
// fault is returned as fault.
func prepareAll(n int, ordered bool, werrs *[]WriteError, prepare func(i int) error) (stopAt int, fault error) {
	for i := 0; i < n; i++ {
		e := prepare(i)
		if e == nil {
			continue
		}
		stop, fault := writeFailed(werrs, i, e, ordered)
		if fault != nil {
			return i, fault
		}
		if stop {
			return i, nil
		}
	}
	return n, nil
}

// ackIDs records in ids the _id of each document of prepared[start:end]
// that a committed chunk wrote: prepared and not among chunkErrs.
func ackIDs(ids []any, prepared []bson.D, start, end int, chunkErrs []WriteError) {
	for j := start; j < end; j++ {
		if prepared[j] != nil && !hasIndex(chunkErrs, j) {
			ids[j] = prepared[j][0].Value
		}
	}
}
