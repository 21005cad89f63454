package main

import (
	"context"
	"database/sql"
	"fmt"
	"path/filepath"
	"sync"
	"time"

	"github.com/ttlkv/ttlkv/benchmarks/internal/workload"
	"github.com/ttlkv/ttlkv/document"
	_ "modernc.org/sqlite" // the database/sql driver "sqlite"
)

// indexOn names the secondary index of the table.
type indexOn string

const (
	// indexDate indexes createdAt (the document's exp date): the TTL
	// shape, what the reaper's DELETE walks.
	indexDate indexOn = "exp"
	// indexN indexes the column n (the document's scrambled n):
	// BenchmarkInsert's shape, its one secondary index in random order.
	indexN indexOn = "n"
)

// store is one SQLite database in WAL mode, synchronous=NORMAL, holding
// documents as rows (id INTEGER PRIMARY KEY = the document's _id,
// createdAt = its exp date in Unix milliseconds, doc = its ttlkv
// encoding as a BLOB; with indexN also n), with one secondary index.
//
// Writes (an insert batch, one delete batch) take mu: SQLite has one
// writer at a time, and a Go lock queues the writer and the reaper
// without SQLite's busy handler, which polls by sleeping.
type store struct {
	db       *sql.DB
	ix       indexOn
	mu       sync.Mutex
	wconn    *sql.Conn // the writer's connection
	rconn    *sql.Conn // the reaper's connection
	ins      *sql.Stmt // on wconn
	del      *sql.Stmt // on rconn
	reapSize int       // rows a delete batch
}

// openStore creates the database file in dir.
func openStore(ctx context.Context, dir string, ix indexOn, reapSize int) (*store, error) {
	// _pragma parameters run on every new connection; busy_timeout is a
	// backstop only (mu orders the writes).
	dsn := "file:" + filepath.Join(dir, "docs.db") +
		"?_pragma=journal_mode(WAL)&_pragma=synchronous(NORMAL)&_pragma=busy_timeout(10000)"
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, err
	}
	s := &store{db: db, ix: ix, reapSize: reapSize}
	if err := s.init(ctx); err != nil {
		_ = db.Close()
		return nil, err
	}
	return s, nil
}

func (s *store) init(ctx context.Context) error {
	schema := []string{
		"CREATE TABLE docs (id INTEGER PRIMARY KEY, createdAt INTEGER NOT NULL, doc BLOB NOT NULL)",
		"CREATE INDEX docs_createdAt ON docs (createdAt)",
	}
	insert := "INSERT INTO docs (id, createdAt, doc) VALUES (?, ?, ?)"
	if s.ix == indexN {
		schema = []string{
			"CREATE TABLE docs (id INTEGER PRIMARY KEY, n INTEGER NOT NULL, createdAt INTEGER NOT NULL, doc BLOB NOT NULL)",
			"CREATE INDEX docs_n ON docs (n)",
		}
		insert = "INSERT INTO docs (id, createdAt, doc, n) VALUES (?, ?, ?, ?)"
	}
	var err error
	if s.wconn, err = s.db.Conn(ctx); err != nil {
		return err
	}
	if s.rconn, err = s.db.Conn(ctx); err != nil {
		return err
	}
	var mode string
	if err := s.wconn.QueryRowContext(ctx, "PRAGMA journal_mode").Scan(&mode); err != nil || mode != "wal" {
		return fmt.Errorf("journal_mode %q (%v), want wal", mode, err)
	}
	for _, q := range schema {
		if _, err := s.wconn.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("%s: %w", q, err)
		}
	}
	if s.ins, err = s.wconn.PrepareContext(ctx, insert); err != nil {
		return err
	}
	// Bounded batches, oldest first, through the date index; SQLite
	// builds without DELETE ... LIMIT, hence the subquery.
	s.del, err = s.rconn.PrepareContext(ctx,
		"DELETE FROM docs WHERE id IN (SELECT id FROM docs WHERE createdAt <= ? ORDER BY createdAt LIMIT ?)")
	return err
}

// insert writes documents [from, from+n) in one transaction; date gives
// document i's exp date (its createdAt column).
func (s *store) insert(ctx context.Context, from, n int, date func(i int) time.Time) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, err := s.wconn.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	st := tx.StmtContext(ctx, s.ins)
	for i := from; i < from+n; i++ {
		d := date(i)
		b, err := document.Marshal(workload.Doc(i, d))
		if err != nil {
			return err
		}
		if s.ix == indexN {
			_, err = st.ExecContext(ctx, int64(i), d.UnixMilli(), b, workload.Scramble(i))
		} else {
			_, err = st.ExecContext(ctx, int64(i), d.UnixMilli(), b)
		}
		if err != nil {
			return err
		}
	}
	return tx.Commit()
}

// reap deletes every row whose createdAt is at or before cutoff (expired
// as ttlkv and MongoDB define it: docs/ttl-indexes.md), in batches
// of reapSize rows, each its own transaction, and returns how many it
// deleted. stop, when closed, ends it between batches.
func (s *store) reap(ctx context.Context, cutoff time.Time, stop <-chan struct{}, deleted func(int64)) (int64, error) {
	var total int64
	for {
		select {
		case <-stop:
			return total, nil
		default:
		}
		s.mu.Lock()
		res, err := s.del.ExecContext(ctx, cutoff.UnixMilli(), s.reapSize)
		s.mu.Unlock()
		if err != nil {
			return total, err
		}
		n, err := res.RowsAffected()
		if err != nil {
			return total, err
		}
		total += n
		if deleted != nil {
			deleted(n)
		}
		if n < int64(s.reapSize) {
			return total, nil
		}
	}
}

// count is the rows present.
func (s *store) count(ctx context.Context) (int64, error) {
	var n int64
	err := s.rconn.QueryRowContext(ctx, "SELECT count(*) FROM docs").Scan(&n)
	return n, err
}

func (s *store) close() error {
	for _, c := range []interface{ Close() error }{s.ins, s.del, s.wconn, s.rconn} {
		if c != nil {
			_ = c.Close()
		}
	}
	return s.db.Close()
}
