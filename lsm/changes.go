package lsm

import (
	"encoding/binary"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	badger "github.com/dgraph-io/badger/v4"
)

// TagChange prefixes change-log keys: tag, commit sequence (8 bytes, big
// endian), index within its commit of the last change the entry holds
// (4 bytes). Key order is commit order. An entry holds one change, or
// several consecutive changes of one commit packed together (its Badger
// user meta is changePackMeta). See docs/change-streams.md.
const TagChange byte = 0x06

// changePackMeta is the Badger user meta of a change-log entry holding a
// pack of changes: a uvarint count, then each change as a uvarint length
// and its bytes. Entries without it hold one change, as they are.
const changePackMeta byte = 1

// changePackMax bounds the bytes of one pack. Larger than the value
// threshold, so a pack lives in Badger's value log, written once,
// instead of in the tree (write-ahead log, memtable, table builds and
// compactions copy a value in the tree several times); small enough that
// a reader resuming inside a pack re-reads little.
const changePackMax = 64 << 10

// changeTrimmedKey is the meta key holding the position of the last
// change trimmed from the log (absent: nothing was ever trimmed).
var changeTrimmedKey = MetaKey("changes.trimmed")

// Change-log errors. Test with errors.Is.
var (
	// ErrChangesDisabled is returned by Txn.AddChange, Batch.AddChange and
	// the change readers when EnableChanges was not called.
	ErrChangesDisabled = errors.New("lsm: the change log is not enabled")
	// ErrChangeHistoryLost is returned by ReadChanges when the position
	// asked for was trimmed from the log (MongoDB's
	// ChangeStreamHistoryLost, 286, one level up).
	ErrChangeHistoryLost = errors.New("lsm: change log position was trimmed")
)

// ChangePos is a position in the change log: the sequence of a commit
// and the index of a change within it. The zero ChangePos is before every
// change.
type ChangePos struct {
	// Seq is the commit's sequence; sequences grow with commit order. The
	// high 32 bits are the commit's Unix second, the low 32 a counter
	// within that second, so a sequence reads as a MongoDB timestamp.
	Seq uint64
	// Index is the change's index within its commit, from 0.
	Index uint32
}

// Compare returns -1, 0 or +1 as p is before, at or after q.
func (p ChangePos) Compare(q ChangePos) int {
	switch {
	case p.Seq < q.Seq:
		return -1
	case p.Seq > q.Seq:
		return 1
	case p.Index < q.Index:
		return -1
	case p.Index > q.Index:
		return 1
	}
	return 0
}

// ChangeKey returns the key of the change-log entry whose last change is
// at p.
func ChangeKey(p ChangePos) []byte {
	k := make([]byte, 13)
	k[0] = TagChange
	binary.BigEndian.PutUint64(k[1:], p.Seq)
	binary.BigEndian.PutUint32(k[9:], p.Index)
	return k
}

// DecodeChangeKey returns the position of a change key; ok is false if k
// is not exactly a change key.
func DecodeChangeKey(k []byte) (p ChangePos, ok bool) {
	if len(k) != 13 || k[0] != TagChange {
		return ChangePos{}, false
	}
	return ChangePos{binary.BigEndian.Uint64(k[1:]), binary.BigEndian.Uint32(k[9:])}, true
}

// ChangeLogOptions configures EnableChanges. Zero fields take the
// defaults documented on them.
type ChangeLogOptions struct {
	// MaxEvents is how many changes the log keeps; older ones are trimmed
	// oldest first. Default 1,000,000.
	MaxEvents int64
	// MaxBytes bounds the bytes of the kept changes' values. Default
	// 256 MiB.
	MaxBytes int64
	// Now gives the wall clock used for sequences. Default time.Now.
	Now func() time.Time
}

// changeLog is the state of an enabled change log.
type changeLog struct {
	o ChangeLogOptions
	// mu orders commits that carry changes: a sequence is taken and the
	// commit is handed to Badger (which gives it its commit timestamp)
	// under mu, so sequence order is commit order.
	mu   sync.Mutex
	last uint64 // last sequence taken
	// count and bytes are the changes kept (approximate while commits are
	// in flight); first is the oldest kept position (guarded by trimMu).
	count, bytes atomic.Int64
	trimMu       sync.Mutex
	trimming     atomic.Bool
	notifyMu     sync.Mutex
	notify       chan struct{}
	published    atomic.Uint64 // last sequence known applied
}

// EnableChanges turns the change log on: AddChange becomes usable and
// ReadChanges and ChangeNotify serve readers. It scans the log once (keys
// only) to learn its size and last sequence. Call it once, right after
// Open, before any write.
func (s *Store) EnableChanges(o ChangeLogOptions) error {
	if o.MaxEvents <= 0 {
		o.MaxEvents = 1_000_000
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = 256 << 20
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	cl := &changeLog{o: o, notify: make(chan struct{})}
	err := s.View(func(t *Txn) error {
		tp, err := s.trimmedIn(t)
		if err != nil {
			return err
		}
		prev := tp
		it := t.t.NewIterator(badger.IteratorOptions{Prefix: []byte{TagChange}})
		defer it.Close()
		for it.Rewind(); it.Valid(); it.Next() {
			item := it.Item()
			p, ok := DecodeChangeKey(item.Key())
			if !ok {
				continue
			}
			cl.count.Add(entryChanges(p, prev))
			cl.bytes.Add(item.ValueSize())
			cl.last, prev = p.Seq, p
		}
		cl.last = max(cl.last, tp.Seq)
		return nil
	})
	if err != nil {
		return err
	}
	cl.published.Store(cl.last)
	s.changes = cl
	return nil
}

// ChangesEnabled reports whether EnableChanges was called.
func (s *Store) ChangesEnabled() bool { return s.changes != nil }

// trimmedIn reads the trimmed-through position in t.
func (s *Store) trimmedIn(t *Txn) (ChangePos, error) {
	v, err := t.Get(changeTrimmedKey)
	if errors.Is(err, ErrNotFound) {
		return ChangePos{}, nil
	}
	if err != nil {
		return ChangePos{}, err
	}
	p, ok := DecodeChangeKey(v)
	if !ok {
		return ChangePos{}, fmt.Errorf("lsm: corrupt change-log trim marker %x", v)
	}
	return p, nil
}

// entryChanges returns how many changes the entry whose key is at p
// holds, prev being the key of the entry before it or, for the oldest
// entry, the trimmed-through mark: a commit's entries hold its changes
// from index 0 on, in order, and trimming deletes whole entries.
func entryChanges(p, prev ChangePos) int64 {
	if p.Seq == prev.Seq && prev.Index < p.Index {
		return int64(p.Index - prev.Index)
	}
	return int64(p.Index) + 1
}

// packMax is the most bytes packed into one change-log entry: an
// in-memory store has no value log and refuses values from the value
// threshold on.
func (s *Store) packMax() int {
	if s.opts.InMemory {
		return int(s.opts.ValueThreshold) - 1
	}
	return changePackMax
}

// packChanges calls fn with the change-log entries of a commit's
// changes, in order: last is the index of the entry's last change, pack
// whether val packs several. Consecutive changes share an entry while
// the pack stays within max bytes; a change that fits no pack gets an
// entry of its own, as it is.
func packChanges(changes [][]byte, max int, fn func(last int, val []byte, pack bool) error) error {
	for i := 0; i < len(changes); {
		size, j := binary.MaxVarintLen32, i
		for j < len(changes) && size+binary.MaxVarintLen32+len(changes[j]) <= max {
			size += binary.MaxVarintLen32 + len(changes[j])
			j++
		}
		if j <= i+1 {
			if err := fn(i, changes[i], false); err != nil {
				return err
			}
			i++
			continue
		}
		v := make([]byte, 0, size)
		v = binary.AppendUvarint(v, uint64(j-i))
		for _, c := range changes[i:j] {
			v = binary.AppendUvarint(v, uint64(len(c)))
			v = append(v, c...)
		}
		if err := fn(j-1, v, true); err != nil {
			return err
		}
		i = j
	}
	return nil
}

// eachChange calls fn with each change of the entry at p (the position of
// its last change), whose Badger user meta is meta and value v.
func eachChange(p ChangePos, meta byte, v []byte, fn func(ChangePos, []byte) error) error {
	if meta&changePackMeta == 0 {
		return fn(p, v)
	}
	n, k := binary.Uvarint(v)
	if k <= 0 || n == 0 || n-1 > uint64(p.Index) {
		return fmt.Errorf("lsm: corrupt change-log pack at %d.%d: count %d", p.Seq, p.Index, n)
	}
	v = v[k:]
	q := ChangePos{Seq: p.Seq, Index: p.Index - uint32(n-1)}
	for i := uint64(0); i < n; i++ {
		l, k := binary.Uvarint(v)
		if k <= 0 || l > uint64(len(v)-k) {
			return fmt.Errorf("lsm: corrupt change-log pack at %d.%d: change %d", p.Seq, p.Index, i)
		}
		if err := fn(q, v[k:k+int(l)]); err != nil {
			return err
		}
		v = v[k+int(l):]
		q.Index++
	}
	if len(v) != 0 {
		return fmt.Errorf("lsm: corrupt change-log pack at %d.%d: %d bytes after its changes", p.Seq, p.Index, len(v))
	}
	return nil
}

// changeEntryCost estimates what an entry adds to Badger's transaction
// size (key, value or value pointer, metadata).
func (s *Store) changeEntryCost(key, val int) int64 {
	if int64(val) >= s.opts.ValueThreshold {
		return int64(key) + 32
	}
	return int64(key + val + 24)
}

// AddChange stages a change-log entry with value val, written in the same
// commit as the transaction's other writes, at the position the commit
// is given. It returns ErrTxnTooBig (staging nothing) when the entry
// would not fit beside the writes already staged, and ErrChangesDisabled
// when the log is off. The caller may reuse val.
func (t *Txn) AddChange(val []byte) error {
	return t.addChange(val, true)
}

func (t *Txn) addChange(val []byte, copyVal bool) error {
	if err := t.check(); err != nil {
		return err
	}
	if !t.update {
		return ErrReadOnly
	}
	if t.s.changes == nil {
		return ErrChangesDisabled
	}
	if err := t.s.checkValueSize(val); err != nil {
		return err
	}
	c := t.s.changeEntryCost(13, len(val))
	if t.size+c > t.s.MaxBatchSize()*9/10 || t.count+1 >= t.s.MaxBatchCount()*9/10 {
		return ErrTxnTooBig
	}
	t.size += c
	t.count++
	if copyVal {
		val = append([]byte(nil), val...)
	}
	t.changes = append(t.changes, val)
	return nil
}

// AddChangeOwned is AddChange for a val the transaction may keep: the
// caller must not modify val afterwards. It saves the copy.
func (t *Txn) AddChangeOwned(val []byte) error {
	return t.addChange(val, false)
}

// ChangesStaged returns how many changes the transaction has staged.
func (t *Txn) ChangesStaged() int { return len(t.changes) }

// commitChanges commits bt with changes appended at the next sequence.
// It returns once Badger has ordered the commit; done receives the
// commit's outcome once it is applied (from another goroutine).
func (s *Store) commitChanges(bt *badger.Txn, changes [][]byte, done func(error)) {
	cl := s.changes
	cl.mu.Lock()
	seq := uint64(cl.o.Now().Unix()) << 32
	if seq <= cl.last {
		seq = cl.last + 1
	}
	var bytes int64
	err := packChanges(changes, s.packMax(), func(last int, v []byte, pack bool) error {
		e := badger.NewEntry(ChangeKey(ChangePos{seq, uint32(last)}), v)
		if pack {
			e = e.WithMeta(changePackMeta)
		}
		bytes += int64(len(v))
		return bt.SetEntry(e)
	})
	if err != nil {
		cl.mu.Unlock()
		done(mapErr(err))
		return
	}
	cl.last = seq
	n := int64(len(changes))
	bt.CommitWith(func(err error) {
		if err == nil {
			cl.count.Add(n)
			cl.bytes.Add(bytes)
			s.publish(seq)
		}
		done(err)
	})
	cl.mu.Unlock()
}

// publish wakes every waiting reader after the commit of seq applied.
func (s *Store) publish(seq uint64) {
	cl := s.changes
	for {
		p := cl.published.Load()
		if p >= seq || cl.published.CompareAndSwap(p, seq) {
			break
		}
	}
	cl.notifyMu.Lock()
	close(cl.notify)
	cl.notify = make(chan struct{})
	cl.notifyMu.Unlock()
	if cl.count.Load() > cl.o.MaxEvents || cl.bytes.Load() > cl.o.MaxBytes {
		if cl.trimming.CompareAndSwap(false, true) {
			go func() {
				defer cl.trimming.Store(false)
				_ = s.TrimChanges()
			}()
		}
	}
}

// commitSync commits bt, with the transaction's changes if it has any,
// and waits for the outcome.
func (s *Store) commitSync(bt *badger.Txn, changes [][]byte) error {
	if len(changes) == 0 || s.changes == nil {
		return bt.Commit()
	}
	ch := make(chan error, 1)
	s.commitChanges(bt, changes, func(err error) { ch <- err })
	return <-ch
}

// ChangeNotify returns a channel closed at the next commit that adds
// changes. Take it before reading, then wait on it if the read found
// nothing new: a commit between the two closes it.
func (s *Store) ChangeNotify() <-chan struct{} {
	cl := s.changes
	if cl == nil {
		return nil
	}
	cl.notifyMu.Lock()
	defer cl.notifyMu.Unlock()
	return cl.notify
}

// ReadChanges calls fn with the changes after position after, in commit
// order, up to limit of them (limit <= 0: no limit), from one snapshot;
// fn must not keep val. It returns ErrChangeHistoryLost if changes after
// after were trimmed, so a reader at after would miss some. fn may stop
// the read by returning ErrStopRead, which ReadChanges then returns as
// nil.
func (s *Store) ReadChanges(after ChangePos, limit int, fn func(p ChangePos, val []byte) error) error {
	if s.changes == nil {
		return ErrChangesDisabled
	}
	return s.View(func(t *Txn) error {
		tp, err := s.trimmedIn(t)
		if err != nil {
			return err
		}
		if after.Compare(tp) < 0 {
			return ErrChangeHistoryLost
		}
		// The entry holding the change after after is the first whose
		// last change is at or past after.
		n := 0
		it := t.t.NewIterator(badger.IteratorOptions{Prefix: []byte{TagChange}})
		defer it.Close()
		for it.Seek(ChangeKey(after)); it.Valid(); it.Next() {
			item := it.Item()
			p, ok := DecodeChangeKey(item.Key())
			if !ok || p.Compare(after) <= 0 {
				continue
			}
			err := item.Value(func(v []byte) error {
				return eachChange(p, item.UserMeta(), v, func(q ChangePos, val []byte) error {
					if q.Compare(after) <= 0 {
						return nil
					}
					if limit > 0 && n >= limit {
						return ErrStopRead
					}
					n++
					return fn(q, val)
				})
			})
			if errors.Is(err, ErrStopRead) {
				return nil
			}
			if err != nil {
				return mapErr(err)
			}
		}
		return nil
	})
}

// ErrStopRead may be returned by a ReadChanges callback to end the read
// early without an error.
var ErrStopRead = errors.New("lsm: stop reading")

// ChangeBounds returns the trimmed-through position (readers before it
// have lost history) and the last position in the log (zero if empty).
func (s *Store) ChangeBounds() (trimmed, last ChangePos, err error) {
	if s.changes == nil {
		return ChangePos{}, ChangePos{}, ErrChangesDisabled
	}
	err = s.View(func(t *Txn) error {
		if trimmed, err = s.trimmedIn(t); err != nil {
			return err
		}
		it := t.NewIter(IterOptions{Prefix: []byte{TagChange}, Reverse: true, KeysOnly: true})
		defer it.Close()
		if it.Next() {
			last, _ = DecodeChangeKey(it.Key())
		}
		return it.Err()
	})
	return trimmed, last, err
}

// TrimChanges deletes the oldest changes until the log holds at most
// 90% of MaxEvents and of MaxBytes, recording the last trimmed position
// in the same transactions. The writer that overfills the log starts it
// in the background; tests may call it directly.
func (s *Store) TrimChanges() error {
	cl := s.changes
	if cl == nil {
		return ErrChangesDisabled
	}
	cl.trimMu.Lock()
	defer cl.trimMu.Unlock()
	packs, trimmedPacks := false, false
	defer func() {
		if trimmedPacks {
			s.changeValueLogGC()
		}
	}()
	for cl.count.Load() > cl.o.MaxEvents*9/10 || cl.bytes.Load() > cl.o.MaxBytes*9/10 {
		wantN := cl.count.Load() - cl.o.MaxEvents*9/10
		wantB := cl.bytes.Load() - cl.o.MaxBytes*9/10
		var n, b int64
		err := s.Update(func(t *Txn) error {
			n, b, packs = 0, 0, false
			prev, err := s.trimmedIn(t)
			if err != nil {
				return err
			}
			var lastKey []byte
			it := t.t.NewIterator(badger.IteratorOptions{Prefix: []byte{TagChange}})
			defer it.Close()
			limit := min(s.MaxBatchCount()/2, 10_000)
			entries := int64(0)
			for it.Rewind(); it.Valid() && entries < limit && (n < wantN || b < wantB); it.Next() {
				k := it.Item().KeyCopy(nil)
				p, ok := DecodeChangeKey(k)
				if !ok {
					continue
				}
				if err := t.t.Delete(k); err != nil {
					return mapErr(err)
				}
				entries++
				packs = packs || it.Item().UserMeta()&changePackMeta != 0
				n += entryChanges(p, prev)
				b += it.Item().ValueSize()
				lastKey, prev = k, p
			}
			if lastKey == nil {
				return nil
			}
			return t.t.Set(append([]byte(nil), changeTrimmedKey...), lastKey)
		})
		if err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		cl.count.Add(-n)
		cl.bytes.Add(-b)
		trimmedPacks = trimmedPacks || packs
	}
	return nil
}

// changeValueLogGC runs Badger's value-log GC after a trim deleted packs,
// whose bytes live in the value log: nothing else would give that space
// back in a store that is only inserted into. A file is rewritten once
// half of it is garbage, which Badger learns as compactions drop the
// deleted entries, so the space of one trim often comes back at a later
// one.
func (s *Store) changeValueLogGC() {
	if s.opts.InMemory || s.opts.ReadOnly {
		return
	}
	s.reclaimMu.Lock() // one GC at a time; Close waits for it
	defer s.reclaimMu.Unlock()
	for i := 0; i < 8 && !s.closed.Load(); i++ {
		if s.db.RunValueLogGC(reclaimDiscardRatio) != nil {
			return // nothing (more) worth rewriting, or an error a later trim meets again
		}
	}
}
