package lsm

import (
	"context"
	"errors"
	"fmt"

	badger "github.com/dgraph-io/badger/v4"
)

// reclaimDiscardRatio is the fraction of a value-log file that must be
// garbage before value-log GC rewrites it.
const reclaimDiscardRatio = 0.5

// flushMarker is the key Reclaim writes and drops to make Badger flush its
// memtables (Badger has no public flush call; DropPrefix flushes).
var flushMarker = []byte{tagInternal, 'f', 'l', 'u', 's', 'h'}

// Reclaim gives disk space held by deleted and overwritten keys back to
// the file system. It runs these steps, checking ctx between them:
//
//  1. Flush the memtables, so recent deletes reach the tables. Badger
//     rejects writes while it flushes; Store holds commits back instead,
//     so concurrent writers wait (for about one memtable write) and do not
//     fail.
//  2. Flatten: compact the tree down to one level, which drops deleted
//     keys and old versions. This rewrites every table that holds deleted
//     data, so its cost grows with the store; compactions pause while it
//     runs, but reads and writes continue.
//  3. Value-log GC, repeated until Badger reports there is nothing left
//     worth rewriting (its ErrNoRewrite, which here means success).
//
// It returns nil when done, ctx.Err() when cancelled, and nil at once for
// InMemory and ReadOnly stores. Only one Reclaim (or ReclaimBackground)
// runs at a time; others wait. It never exits the process.
func (s *Store) Reclaim(ctx context.Context) error { return s.reclaim(ctx, true) }

// ReclaimBackground is Reclaim without step 1: it never holds writers
// back, and leaves what the memtables still hold (at most the last
// NumMemtables x MemTableSize of writes) to a later reclamation, by
// which time Badger has flushed it. It is for reclamation nobody waits
// for, such as the TTL monitor's after a large reap, where the flush's
// pause of every writer (hundreds of milliseconds) is the cost that
// matters.
func (s *Store) ReclaimBackground(ctx context.Context) error { return s.reclaim(ctx, false) }

// TableBytes returns the on-disk size of the store's tables: the data
// that reclamation rewrites (values of ValueThreshold and more live in
// the value log and are not counted). It reads Badger's level metadata,
// not the directory.
func (s *Store) TableBytes() int64 {
	if s.closed.Load() {
		return 0
	}
	var n int64
	for _, t := range s.db.Tables() {
		n += int64(t.OnDiskSize)
	}
	return n
}

// LevelZeroTables returns how many tables level 0 of the store's tree
// holds now: memtables flushed and not yet compacted into level 1.
// Badger stalls writes when they reach twice Options.LevelZeroTables.
func (s *Store) LevelZeroTables() int {
	if s.closed.Load() {
		return 0
	}
	if lv := s.db.Levels(); len(lv) > 0 {
		return lv[0].NumTables
	}
	return 0
}

// Commits returns how many commits (transactions, batches, pipelined
// commits) the store has sent to Badger since it was opened, failed ones
// included. Two equal readings mean nothing was written between them.
func (s *Store) Commits() uint64 { return s.commits.Load() }

func (s *Store) reclaim(ctx context.Context, flush bool) error {
	if s.closed.Load() {
		return ErrClosed
	}
	if s.opts.InMemory || s.opts.ReadOnly {
		return nil
	}
	s.reclaimMu.Lock()
	defer s.reclaimMu.Unlock()
	if s.closed.Load() {
		return ErrClosed
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if flush {
		if err := s.flushMemtables(); err != nil {
			return err
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if s.opts.NumCompactors > 0 {
		if err := s.db.Flatten(s.opts.NumCompactors); err != nil {
			return fmt.Errorf("lsm: reclaim: flatten: %w", err)
		}
	}
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		err := s.db.RunValueLogGC(reclaimDiscardRatio)
		switch {
		case err == nil:
			continue // rewrote a file; there may be more
		case errors.Is(err, badger.ErrNoRewrite), errors.Is(err, badger.ErrRejected):
			// Nothing (more) to rewrite, or a GC is already running.
			return nil
		}
		return fmt.Errorf("lsm: reclaim: value-log GC: %w", err)
	}
}

// flushMemtables writes flushMarker and drops it, which makes Badger flush
// every memtable to level 0. The gate keeps commits from reaching Badger
// while it blocks writes.
func (s *Store) flushMemtables() error {
	s.gate.Lock()
	defer s.gate.Unlock()
	t := s.db.NewTransaction(true)
	defer t.Discard()
	if err := t.Set(flushMarker, nil); err != nil {
		return fmt.Errorf("lsm: reclaim: %w", err)
	}
	if err := t.Commit(); err != nil {
		return fmt.Errorf("lsm: reclaim: %w", err)
	}
	if err := s.db.DropPrefix(flushMarker); err != nil {
		return fmt.Errorf("lsm: reclaim: flush: %w", err)
	}
	return nil
}
