package engine

import (
	"encoding/binary"
	"errors"

	"github.com/ttlkv/ttlkv/engine/internal/ttlmon"
	"github.com/ttlkv/ttlkv/lsm"
)

// metaReclaimAccount holds the TTL monitor's reclamation account
// (ttlmon.ReclaimAccount) while the database is closed: the TTL deletes
// counted toward the next space reclamation, and whether a due one had
// not run (docs/ttl-monitor.md, "Giving the space back").
var metaReclaimAccount = lsm.MetaKey("reclaimAccount")

// reclaimAccountLen is the account's encoded size: two big-endian
// uint64 counts and a flag byte.
const reclaimAccountLen = 17

// loadReclaimAccount gives the monitor the account the last Close saved
// and removes it from the store, so that a crash before the next Close
// cannot give the same account twice. A read-only database only reads
// it. An entry of another size (written by a later version) is ignored.
func (db *DB) loadReclaimAccount() error {
	var a ttlmon.ReclaimAccount
	found := false
	err := db.store.View(func(txn *lsm.Txn) error {
		v, err := txn.Get(metaReclaimAccount)
		if errors.Is(err, lsm.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		found = true
		if len(v) == reclaimAccountLen {
			a = ttlmon.ReclaimAccount{Deletes: int64(binary.BigEndian.Uint64(v)), Bytes: int64(binary.BigEndian.Uint64(v[8:])), Owed: v[16] == 1}
		}
		return nil
	})
	if err != nil || !found {
		return err
	}
	db.mon.RestoreReclaimAccount(a)
	if db.opts.Role == RoleReadOnly {
		return nil
	}
	return db.store.Update(func(txn *lsm.Txn) error { return txn.Delete(metaReclaimAccount) })
}

// saveReclaimAccount writes the stopped monitor's account for the next
// Open; an empty account writes nothing.
func (db *DB) saveReclaimAccount() error {
	a := db.mon.ReclaimAccount()
	if db.opts.Role == RoleReadOnly || a == (ttlmon.ReclaimAccount{}) {
		return nil
	}
	var v [reclaimAccountLen]byte
	binary.BigEndian.PutUint64(v[:], uint64(a.Deletes))
	binary.BigEndian.PutUint64(v[8:], uint64(a.Bytes))
	if a.Owed {
		v[16] = 1
	}
	return db.store.Update(func(txn *lsm.Txn) error { return txn.Set(metaReclaimAccount, v[:]) })
}
