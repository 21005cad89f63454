package capped

import (
	"errors"
	"fmt"
)

// Errors returned by the ring. Wrapped errors carry detail; test with
// errors.Is. ErrTooLarge, ErrOverwritten and ErrSizeChanged also wrap a
// *document.Error with MongoDB's code (2 BadValue, 136 CappedPositionLost and
// 10003 CannotGrowDocumentInCappedNamespace), so document.CodeOf works on them.
var (
	// ErrTooLarge is returned by Append when a record cannot fit in the
	// ring's usable space (or in Limits.MaxDataBytes) even when empty.
	ErrTooLarge = errors.New("capped: record larger than the ring")
	// ErrEmptyRecord is returned by Append and Overwrite for zero-length data.
	ErrEmptyRecord = errors.New("capped: empty record")
	// ErrOverwritten is returned by Read and by an Iterator when the
	// record asked for was evicted (it is older than FirstSeq).
	ErrOverwritten = errors.New("capped: position overwritten")
	// ErrNotFound is returned by Read when no live record has that
	// sequence number at that offset (never written, not yet committed,
	// or the offset does not belong to the sequence).
	ErrNotFound = errors.New("capped: record not found")
	// ErrSizeChanged is returned by Overwrite when the new data's length
	// differs from the record's.
	ErrSizeChanged = errors.New("capped: record size changed")
	// ErrClosed is returned by every method after Close, and by Wait when
	// the ring is closed while waiting.
	ErrClosed = errors.New("capped: ring closed")
	// ErrBadCapacity is returned by Create for a capacity outside
	// [MinCapacity, MaxCapacity].
	ErrBadCapacity = errors.New("capped: capacity out of range")
	// ErrNoSpace is returned by Create when the file system cannot
	// allocate the ring file (ENOSPC, EFBIG): nothing is written and the
	// file is removed.
	ErrNoSpace = errors.New("capped: no space for the ring file")
	// ErrCorrupt matches every *CorruptionError through errors.Is.
	ErrCorrupt = errors.New("capped: corruption")
	// ErrFailed wraps the first I/O error of a write path. After it the
	// ring refuses further writes (reads still work); Close and re-Open
	// to recover. This follows the fsync-failure rule: after a failed
	// write or fsync the state of the file is unknown.
	ErrFailed = errors.New("capped: ring failed")
)

// CorruptionError reports damage that recovery or Check found in a ring
// file: the file, the byte offset of the damaged structure and why it is
// rejected. errors.Is(err, ErrCorrupt) is true for it.
type CorruptionError struct {
	Path   string
	Offset int64
	Reason string
}

// Error formats the corruption as "capped: corruption in FILE at offset N: REASON".
func (e *CorruptionError) Error() string {
	return fmt.Sprintf("capped: corruption in %s at offset %d: %s", e.Path, e.Offset, e.Reason)
}

// Is reports whether target is ErrCorrupt.
func (e *CorruptionError) Is(target error) bool { return target == ErrCorrupt }

func corruptf(path string, off int64, format string, args ...any) *CorruptionError {
	return &CorruptionError{Path: path, Offset: off, Reason: fmt.Sprintf(format, args...)}
}
