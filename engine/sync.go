package engine

import (
	"errors"

	"github.com/ttlkv/ttlkv/capped"
)

// Sync makes every write acknowledged so far durable against power
// loss: it flushes the store's logs and every capped collection's ring
// file. A server calls it before acknowledging a write with {j: true}.
// It returns ErrClosed after Close.
func (db *DB) Sync() error {
	db.mu.RLock()
	if db.closed {
		db.mu.RUnlock()
		return ErrClosed
	}
	var rings []*capped.Ring
	for _, c := range db.colls {
		if st, ok := c.ext.(*cappedState); ok && st != nil && st.ring != nil {
			rings = append(rings, st.ring)
		}
	}
	db.mu.RUnlock()
	if err := db.store.Sync(); err != nil {
		return err
	}
	for _, r := range rings {
		if err := r.Sync(); err != nil && !errors.Is(err, capped.ErrClosed) {
			return err
		}
	}
	return nil
}
