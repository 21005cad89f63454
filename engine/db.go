package engine

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ttlkv/ttlkv/changestream"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/engine/internal/ttlmon"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// Sentinel errors of the Go API.
var (
	// ErrClosed is returned by every method of a DB after Close.
	ErrClosed = errors.New("engine: database is closed")
	// ErrNoDocuments is returned by FindOne when nothing matches, like
	// the driver's mongo.ErrNoDocuments.
	ErrNoDocuments = errors.New("engine: no documents in result")
	// ErrLocked is wrapped by Open's error when another process (or
	// another DB in this one) holds the data directory.
	ErrLocked = lsm.ErrLocked
)

// DefaultMemoryBudget is Options.MemoryBudget's default, 160 MiB.
const DefaultMemoryBudget = lsm.DefaultMemoryBudget

// Error is the typed error every user mistake returns: MongoDB's code,
// code name and a message. Use errors.As(err, &e) with e *engine.Error.
type Error = document.Error

// DB is an open data directory: every database and collection in it,
// the TTL monitor, and the cursors of running queries. It is safe for
// concurrent use.
type DB struct {
	dir    string
	opts   Options
	store  *lsm.Store
	params *params

	catMu sync.Mutex // serialises catalog changes (create, drop, indexes)

	mu    sync.RWMutex
	colls map[string]*coll // by "db.coll"
	// sysViews holds the databases whose system.views outlived their
	// last view (system_views.go); guarded by mu.
	sysViews map[string]bool
	closed   bool

	nextCollID atomic.Uint64
	cursors    cursorRegistry
	stats      stats
	csMetrics  changestream.Metrics // serverStatus metrics.changeStreams
	top        topStats
	ixUsage    indexUsage // $indexStats (indexstats.go)
	opened     time.Time  // when Open ran (serverStatus' uptime)
	ops        opRegistry
	opsSource  atomic.Pointer[func() []bson.D] // SetOperationsSource
	profile    atomic.Value                    // profileState (cmd_profile.go)
	mon        *ttlmon.Monitor
	ttl        ttlWatcher // the monitor, as writers and catalog changes see it
	// tsRemovals counts time-series bucket removals (timeseries_write.go).
	tsRemovals atomic.Uint64
}

// coll is the in-memory state of one existing collection.
type coll struct {
	db      *DB
	meta    atomic.Pointer[catalog.Coll] // replaced whole on catalog change
	wmu     sync.Mutex                   // serialises writers of this collection
	nextRID atomic.Uint64
	dropped atomic.Bool
	ext     any              // kind-specific state (capped ring, bucketer)
	idb     indexkey.IDBound // upper bound of the _id index's entries; guarded by wmu (idbound.go)
	// ridCeil is a clustered collection's reserved record-id ceiling
	// (clustered.go); guarded by wmu.
	ridCeil uint64
	// tsStats are a time-series collection's bucket catalog counters
	// (timeseries_write.go); kept apart from ext, which a failed write
	// drops.
	tsStats tsCatalogStats
}

func (c *coll) m() *catalog.Coll { return c.meta.Load() }

var metaNextCollID = lsm.MetaKey("nextCollID")

// Open opens (creating if needed) the data directory dir. Only one
// process may hold a directory open; a second Open fails with an error
// naming it.
func Open(dir string, opts Options) (*DB, error) {
	opts.ensureDefaults()
	db := &DB{dir: dir, opts: opts, params: newParams(), colls: map[string]*coll{}, sysViews: map[string]bool{}, opened: time.Now()}
	db.profile.Store(profileState{slowMS: 100, sampleRate: 1})
	for name, v := range opts.Params {
		if _, err := db.SetParameter(name, v); err != nil {
			return nil, err
		}
	}
	st, err := lsm.Open(dir, lsm.Options{
		SyncWrites: opts.SyncWrites,
		InMemory:   opts.InMemory,
		ReadOnly:   opts.Role == RoleReadOnly,

		MemoryBudget: opts.MemoryBudget,
		MemTableSize: opts.seams.memTableSize,

		SkipCloseCompaction: opts.seams.skipCloseCompaction,
	})
	if err != nil {
		return nil, err
	}
	db.store = st
	if opts.ChangeStreams {
		err := st.EnableChanges(lsm.ChangeLogOptions{MaxEvents: opts.ChangeStreamMaxEvents, MaxBytes: opts.ChangeStreamMaxBytes, Now: opts.Clock})
		if err != nil {
			st.Close()
			return nil, err
		}
	}
	db.cursors.init()
	if err := db.openKeyLayout(); err != nil {
		st.Close()
		return nil, err
	}
	if err := db.loadCatalog(); err != nil {
		st.Close()
		return nil, err
	}
	db.mon = newMonitor(db)
	db.ttl = db.mon
	if err := db.loadReclaimAccount(); err != nil {
		st.Close()
		return nil, err
	}
	if err := db.dropOutTemps(); err != nil {
		st.Close()
		return nil, err
	}
	if !opts.DisableTTLMonitor {
		db.mon.Start()
	}
	return db, nil
}

// Close stops the TTL monitor (keeping what it counted toward the next
// space reclamation for the next Open), kills open cursors and closes
// the store.
func (db *DB) Close() error {
	db.mu.Lock()
	if db.closed {
		db.mu.Unlock()
		return ErrClosed
	}
	db.closed = true
	colls := db.colls
	db.mu.Unlock()
	db.mon.Stop()
	db.cursors.killAll()
	first := db.saveReclaimAccount()
	for _, c := range colls {
		if err := c.closeExt(); err != nil && first == nil {
			first = err
		}
	}
	if err := db.store.Close(); err != nil && first == nil {
		first = err
	}
	return first
}

// Dir returns the data directory.
func (db *DB) Dir() string { return db.dir }

func (db *DB) now() bson.DateTime { return bson.NewDateTimeFromTime(db.opts.Clock()) }

// targetNow returns the time on the clock that measures the time
// targets of the TTL monitor and the batched delete stage (docs/ttl-monitor.md §3–§4):
// the real monotonic clock, not Options.Clock, which says what has
// expired and which tests freeze.
func (db *DB) targetNow() time.Time {
	if c := db.opts.seams.targetClock; c != nil {
		return c()
	}
	return time.Now()
}

// targetSince returns the time elapsed since start (a targetNow) on the
// clock of the time targets.
func (db *DB) targetSince(start time.Time) time.Duration {
	if c := db.opts.seams.targetClock; c != nil {
		return c().Sub(start)
	}
	return time.Since(start)
}

func (db *DB) checkOpen() error {
	db.mu.RLock()
	defer db.mu.RUnlock()
	if db.closed {
		return ErrClosed
	}
	return nil
}

func (db *DB) checkWritable() error {
	if err := db.checkOpen(); err != nil {
		return err
	}
	if db.opts.Role != RolePrimary {
		return document.Errorf(document.CodeNotWritablePrimary, "not primary: this engine's role does not accept writes")
	}
	return nil
}

func (db *DB) loadCatalog() error {
	err := db.store.View(func(txn *lsm.Txn) error {
		if v, err := txn.Get(metaNextCollID); err == nil && len(v) == 8 {
			db.nextCollID.Store(binary.BigEndian.Uint64(v))
		} else if err != nil && !errors.Is(err, lsm.ErrNotFound) {
			return err
		}
		if err := db.loadSysViews(txn); err != nil {
			return err
		}
		it := txn.NewIter(lsm.IterOptions{Prefix: lsm.CatalogPrefix("")})
		defer it.Close()
		for it.Next() {
			v, err := it.Value()
			if err != nil {
				return err
			}
			m, err := catalog.Decode(v)
			if err != nil {
				return err
			}
			c := &coll{db: db}
			c.meta.Store(m)
			db.colls[m.NS()] = c
		}
		return nil
	})
	if err != nil {
		return err
	}
	for _, c := range db.colls {
		if err := db.initColl(c); err != nil {
			return err
		}
	}
	if err := db.resumeIndexDrops(); err != nil {
		return err
	}
	return db.resumeDrops()
}

// dropOutTemps drops the collections a $out was writing into when the
// process stopped (tmpOutPrefix): their target never changed.
func (db *DB) dropOutTemps() error {
	if db.opts.Role == RoleReadOnly {
		return nil
	}
	var temps []*catalog.Coll
	for _, c := range db.colls {
		if m := c.m(); strings.HasPrefix(m.Name, tmpOutPrefix) {
			temps = append(temps, m)
		}
	}
	for _, m := range temps {
		if _, err := db.dropColl(m.DB, m.Name); err != nil {
			return err
		}
	}
	return nil
}

// initColl sets the record-id counter from the highest stored record
// and opens kind-specific state.
func (db *DB) initColl(c *coll) error {
	m := c.m()
	err := db.store.View(func(txn *lsm.Txn) error {
		if m.Clustered {
			return c.loadRIDCeil(txn, m)
		}
		it := txn.NewIter(lsm.IterOptions{Prefix: lsm.RecordPrefix(m.ID), Reverse: true, KeysOnly: true})
		defer it.Close()
		if it.Next() {
			_, rid, _ := lsm.DecodeRecordKey(it.Key())
			c.nextRID.Store(rid)
		}
		return nil
	})
	if err != nil {
		return err
	}
	return kindOf(c.m()).open(db, c)
}

// lookup returns the collection db.name or nil.
func (db *DB) lookup(dbName, name string) *coll {
	db.mu.RLock()
	defer db.mu.RUnlock()
	return db.colls[dbName+"."+name]
}

// collsOf returns the collections of a database (all when dbName is
// ""), sorted by name.
func (db *DB) collsOf(dbName string) []*coll {
	db.mu.RLock()
	var out []*coll
	for _, c := range db.colls {
		if dbName == "" || c.m().DB == dbName {
			out = append(out, c)
		}
	}
	db.mu.RUnlock()
	sort.Slice(out, func(i, j int) bool { return out[i].m().NS() < out[j].m().NS() })
	return out
}

// DatabaseNames returns the names of databases holding collections, in
// name order: admin always (its system.version, as a standalone mongod
// has it), and every database with a collection or a view.
func (db *DB) DatabaseNames() []string {
	seen := map[string]bool{"admin": true}
	out := []string{"admin"}
	for _, c := range db.collsOf("") {
		if !seen[c.m().DB] {
			seen[c.m().DB] = true
			out = append(out, c.m().DB)
		}
	}
	// A database whose only collection is system.views exists.
	for _, d := range db.sysViewsDBs() {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	sort.Strings(out)
	return out
}

// allocCollID reserves a new collection id in the same transaction
// that writes the catalog entry.
func (db *DB) allocCollID(txn *lsm.Txn) (uint64, error) {
	id := db.nextCollID.Add(1)
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], id)
	return id, txn.Set(metaNextCollID, b[:])
}

// putMeta writes a collection's catalog entry in txn.
func putMeta(txn *lsm.Txn, m *catalog.Coll) error {
	b, err := m.Encode()
	if err != nil {
		return err
	}
	return txn.Set(lsm.CatalogKey(m.DB, m.Name), b)
}

// validateDBName applies MongoDB's database-name rules (docs/commands.md §0).
func validateDBName(name string) error {
	if name == "" {
		return document.Errorf(document.CodeInvalidNamespace, "Invalid database name: ''")
	}
	if len(name) >= 64 {
		return document.Errorf(document.CodeInvalidNamespace, "Invalid database name: '%s': db name must be at most 63 characters, found: %d", name, len(name))
	}
	if strings.ContainsAny(name, "/\\. \"$\x00") {
		return document.Errorf(document.CodeInvalidNamespace, "Invalid database name: '%s': contains an invalid character", name)
	}
	return nil
}

// validateCollName applies MongoDB's collection-name rules (docs/commands.md §0).
// internal allows the engine's own system.* namespaces.
func validateCollName(dbName, name string, internal bool) error {
	if err := validateDBName(dbName); err != nil {
		return err
	}
	switch {
	case name == "":
		return document.Errorf(document.CodeInvalidNamespace, "Invalid namespace specified '%s.'", dbName)
	case strings.ContainsAny(name, "$\x00"):
		return document.Errorf(document.CodeInvalidNamespace, "Invalid collection name: '%s': contains an invalid character", name)
	case strings.HasPrefix(name, "system.") && !internal && name != systemJS && !listedSystemName(dbName, name):
		// admin.system.users and admin.system.roles hold the wire
		// server's users and user-defined roles, as in mongod;
		// system.js (stored JavaScript, which mongorestore restores) may
		// be written in any database.
		return document.Errorf(document.CodeInvalidNamespace, "Invalid collection name: '%s': names starting with 'system.' are reserved", name)
	case len(dbName)+1+len(name) > 255:
		return document.Errorf(document.CodeInvalidNamespace, "Fully qualified namespace is too long. Namespace: %s.%s Max: 255", dbName, name)
	}
	return nil
}

var errDropped = document.Errorf(document.CodeNamespaceNotFound, "collection was dropped")

func (db *DB) logf(format string, args ...any) { db.opts.Logf(format, args...) }

// ctxErr maps a context error to MongoDB's MaxTimeMSExpired or returns it.
func ctxErr(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return document.Errorf(document.CodeMaxTimeMSExpired, "operation exceeded time limit")
		}
		return err
	}
	return nil
}

var _ = fmt.Sprintf
