package engine

import (
	"fmt"

	"github.com/ttlkv/ttlkv/lsm"
)

// openKeyLayout brings a store to lsm's current key layout before
// anything reads it: a store an older ttlkv wrote has its record and
// index entry keys rewritten, resumably (docs/storage-keys.md);
// a new store is marked. A read-only open of a store that needs the
// rewrite fails with an error wrapping lsm.ErrKeyLayout.
func (db *DB) openKeyLayout() error {
	upgrade, err := db.store.CheckKeyLayout()
	if err != nil {
		return err
	}
	if db.opts.Role == RoleReadOnly {
		if upgrade {
			return fmt.Errorf("%w: the store was written by an older ttlkv; open it read-write once to rewrite its keys", lsm.ErrKeyLayout)
		}
		return nil
	}
	if !upgrade {
		return db.store.MarkKeyLayout()
	}
	db.logf("storage: rewriting the store's keys into the compact layout (once)")
	// A time-series buckets collection's delta entries (tsDeltaIndexID)
	// are not keystring and record id: they move as they are.
	opaque := func(_, idx uint64) bool { return idx == tsDeltaIndexID }
	return db.store.UpgradeKeyLayout(opaque, func() { db.failpoint(FailpointKeyLayout) })
}
