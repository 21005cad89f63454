package engine

import "context"

// Reclaim gives the disk space held by deleted documents and index
// entries back to the file system now, instead of waiting for the
// background reclamation that follows large TTL passes: it flushes the
// memtables, compacts the tree and garbage-collects the value log (see
// lsm.Store.Reclaim). Reads and writes continue while it runs; writers
// may pause for about one memtable flush. It returns ctx.Err() when
// cancelled between steps, ErrClosed after Close, and nil at once for an
// in-memory or read-only DB.
func (db *DB) Reclaim(ctx context.Context) error {
	if err := db.checkOpen(); err != nil {
		return err
	}
	return db.store.Reclaim(ctx)
}
