package engine

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/ttlkv/ttlkv/engine/query"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/capped"
	"github.com/ttlkv/ttlkv/changestream"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/lsm"
)

// This file is the engine's side of change streams
// (docs/change-streams.md): one call at each commit point stages a
// changestream.Change in the commit's own transaction; the shapes and the
// reading live in package changestream.

// changesOn reports whether the engine keeps a change log.
func (db *DB) changesOn() bool { return db.opts.ChangeStreams && db.store.ChangesEnabled() }

// preImagesOn reports whether collection m keeps pre- and post-images
// for change streams (changeStreamPreAndPostImages: {enabled: true}).
func preImagesOn(m *catalog.Coll) bool {
	v, ok := get(m.Options, "changeStreamPreAndPostImages")
	if !ok {
		return false
	}
	d, ok := v.(bson.D)
	if !ok {
		return false
	}
	e, _ := get(d, "enabled")
	b, _ := e.(bool)
	return b
}

// checkPreImagesOption validates a changeStreamPreAndPostImages value as
// MongoDB's IDL does: an object whose only field is the boolean enabled.
func checkPreImagesOption(cmd string, v any) error {
	d, ok := v.(bson.D)
	if !ok {
		return document.Errorf(document.CodeTypeMismatch, "BSON field '%s.changeStreamPreAndPostImages' is the wrong type '%s', expected type 'object'", cmd, typeName(v))
	}
	found := false
	for _, e := range d {
		if e.Key != "enabled" {
			return document.Errorf(document.CodeIDLUnknownField, "BSON field '%s.changeStreamPreAndPostImages.%s' is an unknown field.", cmd, e.Key)
		}
		if _, ok := e.Value.(bool); !ok {
			return document.Errorf(document.CodeTypeMismatch, "BSON field '%s.changeStreamPreAndPostImages.enabled' is the wrong type '%s', expected type 'bool'", cmd, typeName(e.Value))
		}
		found = true
	}
	if !found {
		return document.Errorf(document.CodeIDLFailedToParse, "BSON field '%s.changeStreamPreAndPostImages.enabled' is missing but a required field", cmd)
	}
	return nil
}

// docKey is a document's documentKey, {_id: ...}.
func docKey(d bson.D) bson.D {
	v, _ := get(d, "_id")
	return bson.D{{Key: "_id", Value: v}}
}

// stageChange encodes c and stages it in txn.
func (db *DB) stageChange(txn *lsm.Txn, c *changestream.Change) error {
	c.WallTime = db.opts.Clock()
	b, err := c.Encode()
	if err != nil {
		return err
	}
	return txn.AddChangeOwned(b)
}

// noteInsert records the insert of d, whose encoding is raw
// (writeCtx.insert): the event copies raw rather than encoding d again.
func (w *writeCtx) noteInsert(d bson.D, raw []byte) error {
	if !w.c.db.changesOn() || isBucketsColl(w.m) {
		return nil
	}
	return w.c.db.stageChange(w.txn, &changestream.Change{Op: changestream.Insert, DB: w.m.DB, Coll: w.m.Name, CollectionUUID: uuidOf(w.m), DocumentKey: docKey(d), FullDocument: d, FullRaw: raw})
}

// noteReplace records the change of a document from old to new
// (writeCtx.replace), new being encoded as raw (nil: encode it): a
// replace when the write was a replacement document, an update
// otherwise.
func (w *writeCtx) noteReplace(old, new bson.D, raw []byte) error {
	if !w.c.db.changesOn() || isBucketsColl(w.m) {
		return nil
	}
	return w.c.db.stageChange(w.txn, replaceChange(w.m, old, new, raw, w.replacement, w.touched))
}

// replaceChange is the event of a change of a document of collection m
// from old to new (encoded as raw, or nil): a replace when replacement is
// set, an update otherwise, with the pre- and post-images when m keeps
// them. An update's description is what its modifiers logged when
// touched is not nil (describeOps), else (a pipeline update) mongod's
// difference of the documents, or a replace event when mongod would log
// the whole document (changestream.DescribePipeline).
func replaceChange(m *catalog.Coll, old, new bson.D, raw []byte, replacement bool, touched []query.Touched) *changestream.Change {
	c := &changestream.Change{Op: changestream.Update, DB: m.DB, Coll: m.Name, CollectionUUID: uuidOf(m), DocumentKey: docKey(old)}
	images := preImagesOn(m)
	if images {
		c.Before = old
	}
	if replacement {
		c.Op, c.FullDocument, c.FullRaw = changestream.Replace, new, raw
	} else {
		if touched != nil {
			c.UpdateDescription = describeOps(old, new, touched)
		} else if ud, ok := changestream.DescribePipeline(old, new); ok {
			c.UpdateDescription = ud
		} else {
			// mongod logs a pipeline update whose difference is not
			// smaller than the document as a replacement.
			c.Op, c.FullDocument, c.FullRaw = changestream.Replace, new, raw
			return c
		}
		if images {
			c.FullDocument, c.FullRaw = new, raw
		}
	}
	return c
}

// noteDelete records the delete of d (writeCtx.remove), an expiration
// when w.expiry is set. A time-series bucket is reported only when it
// expires, on the time-series namespace.
func (w *writeCtx) noteDelete(d bson.D) error {
	if !w.c.db.changesOn() {
		return nil
	}
	c := &changestream.Change{Op: changestream.Delete, DB: w.m.DB, Coll: w.m.Name, CollectionUUID: uuidOf(w.m), DocumentKey: docKey(d), Expiry: w.expiry}
	if isBucketsColl(w.m) {
		if w.expiry == nil {
			return nil
		}
		c.Coll = strings.TrimPrefix(w.m.Name, tsBucketsPre)
	}
	if preImagesOn(w.m) {
		// d may hold only the indexed fields when beforeRaw is set.
		c.Before, c.BeforeRaw = d, w.beforeRaw
	}
	return w.c.db.stageChange(w.txn, c)
}

// batchInsertEvents adds the insert events of a capped collection's
// documents to b, docs[i] being the ring record of sequence first+i. The
// ring is the truth for capped data and is flushed before b commits, so
// unlike other writes these events follow their writes instead of
// sharing their commit. Each event is staged with the collection's
// events mark (the last ring sequence whose event is logged) in the same
// transaction, so after a crash between the two, recoverCappedEvents
// logs exactly the records whose events are missing
// (docs/change-streams.md).
func (db *DB) batchInsertEvents(b *lsm.Batch, m *catalog.Coll, docs []bson.D, first uint64) error {
	key := cappedEventsKey(m.ID)
	var mark [8]byte
	for i, d := range docs {
		c := &changestream.Change{Op: changestream.Insert, DB: m.DB, Coll: m.Name, CollectionUUID: uuidOf(m), DocumentKey: docKey(d), FullDocument: d, WallTime: db.opts.Clock()}
		v, err := c.Encode()
		if err != nil {
			return err
		}
		// The mark first: a Batch commits early only before a write, so
		// the mark and its event share a transaction.
		binary.BigEndian.PutUint64(mark[:], first+uint64(i))
		if err := b.Set(key, mark[:]); err != nil {
			return err
		}
		if err := b.AddChange(v); err != nil {
			return err
		}
	}
	return nil
}

// cappedEventsKey is the meta key of capped collection id's events mark:
// the sequence of the last ring record whose insert event is logged.
func cappedEventsKey(id uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], id)
	return append(lsm.MetaKey("changes.capped/"), b[:]...)
}

// recoverCappedEvents runs when capped collection c's ring is opened
// (st), on a writable engine. With change streams on, it logs the insert
// events of the ring records after the events mark: the records a crash
// left without their events, between the ring's flush and the commit of
// the events. A collection without a mark (written while change streams
// were off) gets one at its last record, as writes made with change
// streams off have no events. With change streams off, it removes the
// mark, which would otherwise make those writes look lost.
func (db *DB) recoverCappedEvents(m *catalog.Coll, st *cappedState) error {
	key := cappedEventsKey(m.ID)
	var mark uint64
	found := false
	err := db.store.View(func(txn *lsm.Txn) error {
		v, err := txn.Get(key)
		if errors.Is(err, lsm.ErrNotFound) {
			return nil
		}
		if err != nil {
			return err
		}
		if len(v) != 8 {
			return fmt.Errorf("engine: corrupt capped events mark of %s: %x", m.NS(), v)
		}
		mark, found = binary.BigEndian.Uint64(v), true
		return nil
	})
	if err != nil {
		return err
	}
	if !db.changesOn() {
		if !found {
			return nil
		}
		return db.store.Update(func(txn *lsm.Txn) error { return txn.Delete(key) })
	}
	last := st.ring.LastSeq()
	if !found {
		var v [8]byte
		binary.BigEndian.PutUint64(v[:], last)
		return db.store.Update(func(txn *lsm.Txn) error { return txn.Set(key, v[:]) })
	}
	if mark >= last {
		return nil
	}
	b := db.store.NewBatch()
	defer b.Cancel()
	var ferr error
	n := 0
	err = st.ring.ReadRun(mark+1, func(rec capped.Record) bool {
		if rec.Seq <= mark || cappedDeleted(rec.Data) {
			return true
		}
		d, _, err := st.decodeRecord(rec)
		if err == nil && d != nil {
			err = db.batchInsertEvents(b, m, []bson.D{d}, rec.Seq)
		}
		if err != nil {
			ferr = err
			return false
		}
		n++
		return true
	})
	if err == nil {
		err = ferr
	}
	if err == nil {
		err = b.Flush()
	}
	if err != nil {
		return fmt.Errorf("engine: logging the insert events a crash left out of capped collection %s: %w", m.NS(), err)
	}
	db.logf("capped %s: logged the insert events of %d records written before a crash", m.NS(), n)
	return nil
}

// An in-place update of a capped collection's document rewrites its ring
// record, which is not in Badger, so its event cannot share the write's
// commit. It is made crash-consistent by an update intent per capped
// collection (meta key cappedUpdateKey), committed before the overwrite
// and deleted in the transaction of the event, after it: the record's
// sequence, the SHA-256 of its new data and the encoded event. Opening
// the ring (recoverCappedUpdate) logs the event of an intent whose record
// holds the new data (a crash between the overwrite and the event) and
// drops one whose record does not (a crash before the overwrite)
// (docs/change-streams.md).

// Failpoints of an in-place update (or delete, whose tombstone is
// written the same way) of a capped collection with change streams on,
// in order.
const (
	// FailpointCappedUpdateIntent fires after the update's intent
	// commits, before its ring record is overwritten.
	FailpointCappedUpdateIntent = "capped.update.intent"
	// FailpointCappedUpdateWritten fires after the ring record is
	// overwritten, before the update's event commits.
	FailpointCappedUpdateWritten = "capped.update.written"
)

// cappedUpdateIntentHead is the length of an update intent before its
// event: the ring sequence and the SHA-256 of the record's new data.
const cappedUpdateIntentHead = 8 + sha256.Size

// cappedUpdateKey is the meta key of capped collection id's update
// intent.
func cappedUpdateKey(id uint64) []byte {
	var b [8]byte
	binary.BigEndian.PutUint64(b[:], id)
	return append(lsm.MetaKey("changes.cappedUpdate/"), b[:]...)
}

// cappedUpdateIntent commits the intent of the in-place update of ring
// record seq of capped collection c from old to new, data being the
// record's new data, and returns the encoded event for logCappedUpdate
// (nil with change streams off: no intent, no event). touched is what
// the update's modifiers did (query.UpdateOptions.Touched), which the
// event's updateDescription shows; nil: the difference of the documents.
func (db *DB) cappedUpdateIntent(c *coll, seq uint64, data []byte, old, new bson.D, replacement bool, touched []query.Touched) ([]byte, error) {
	if !db.changesOn() {
		return nil, nil
	}
	return db.cappedIntent(c, seq, data, replaceChange(c.m(), old, new, nil, replacement, touched))
}

// cappedIntent commits the intent of rewriting ring record seq of capped
// collection c with data, whose event is ch (an update's, or a delete's
// whose data is a tombstone), and returns the encoded event for
// logCappedUpdate. Change streams must be on.
func (db *DB) cappedIntent(c *coll, seq uint64, data []byte, ch *changestream.Change) ([]byte, error) {
	m := c.m()
	ch.WallTime = db.opts.Clock()
	ev, err := ch.Encode()
	if err != nil {
		return nil, err
	}
	v := make([]byte, cappedUpdateIntentHead, cappedUpdateIntentHead+len(ev))
	binary.BigEndian.PutUint64(v, seq)
	sum := sha256.Sum256(data)
	copy(v[8:], sum[:])
	v = append(v, ev...)
	if err := db.store.Update(func(txn *lsm.Txn) error { return txn.Set(cappedUpdateKey(m.ID), v) }); err != nil {
		return nil, err
	}
	return ev, nil
}

// logCappedUpdate commits the event ev of capped collection c's in-place
// update, after the ring holds it, and deletes the update's intent in
// the same transaction. A nil ev (change streams off) does nothing.
func (db *DB) logCappedUpdate(c *coll, ev []byte) error {
	if ev == nil {
		return nil
	}
	id := c.m().ID
	return db.store.Update(func(txn *lsm.Txn) error {
		if err := txn.Delete(cappedUpdateKey(id)); err != nil {
			return err
		}
		return txn.AddChange(ev)
	})
}

// recoverCappedUpdate settles capped collection m's update intent, if a
// crash left one, when its ring (st) is opened on a writable engine: the
// update's event is logged when the record holds the update's data (the
// overwrite happened) and dropped otherwise; either way the intent goes.
// With change streams off the intent is dropped, as the events mark is.
func (db *DB) recoverCappedUpdate(m *catalog.Coll, st *cappedState) error {
	key := cappedUpdateKey(m.ID)
	var v []byte
	err := db.store.View(func(txn *lsm.Txn) error {
		b, err := txn.Get(key)
		if errors.Is(err, lsm.ErrNotFound) {
			return nil
		}
		v = bytes.Clone(b)
		return err
	})
	if err != nil || v == nil {
		return err
	}
	if len(v) < cappedUpdateIntentHead {
		return fmt.Errorf("engine: corrupt capped update intent of %s: %x", m.NS(), v)
	}
	written := false
	if db.changesOn() {
		seq := binary.BigEndian.Uint64(v)
		it := st.ring.Scan(seq, false)
		if it.Next() && it.Record().Seq == seq {
			sum := sha256.Sum256(it.Record().Data)
			written = bytes.Equal(sum[:], v[8:cappedUpdateIntentHead])
		} else if err := it.Err(); err != nil && !errors.Is(err, capped.ErrOverwritten) {
			return fmt.Errorf("engine: reading the record of capped collection %s's update intent: %w", m.NS(), err)
		}
	}
	err = db.store.Update(func(txn *lsm.Txn) error {
		if err := txn.Delete(key); err != nil {
			return err
		}
		if !written {
			return nil
		}
		return txn.AddChange(v[cappedUpdateIntentHead:])
	})
	if err != nil {
		return fmt.Errorf("engine: settling the update intent of capped collection %s: %w", m.NS(), err)
	}
	if written {
		db.logf("capped %s: logged the event of an update written before a crash", m.NS())
	}
	return nil
}

// noteCappedSwitch records, in the transaction of a capped resize's
// switch from the ring of old to the new one of fin, that the new ring's
// records (copies, last being the last one's sequence) have their insert
// events already: the new ring's events mark is last, so a crash before
// the events of its first inserts commit is recovered like any other.
// The old ring's mark and intent go.
func (db *DB) noteCappedSwitch(txn *lsm.Txn, old, fin *catalog.Coll, last uint64) error {
	if err := txn.Delete(cappedEventsKey(old.ID)); err != nil {
		return err
	}
	if err := txn.Delete(cappedUpdateKey(old.ID)); err != nil {
		return err
	}
	if !db.changesOn() {
		return nil
	}
	var v [8]byte
	binary.BigEndian.PutUint64(v[:], last)
	return txn.Set(cappedEventsKey(fin.ID), v[:])
}

// noteDrop records the drop of collection m in txn.
func (db *DB) noteDrop(txn *lsm.Txn, m *catalog.Coll) error {
	if !db.changesOn() || isBucketsColl(m) {
		return nil
	}
	if m.Kind == catalog.KindCapped {
		if err := txn.Delete(cappedEventsKey(m.ID)); err != nil {
			return err
		}
		if err := txn.Delete(cappedUpdateKey(m.ID)); err != nil {
			return err
		}
	}
	return db.stageChange(txn, &changestream.Change{Op: changestream.Drop, DB: m.DB, Coll: m.Name, CollectionUUID: uuidOf(m), View: m.Kind == catalog.KindView})
}

// noteRename records the rename of collection m to tdb.tname in txn;
// target is the collection the rename drops in its place (nil if none),
// whose UUID the event's operationDescription names, as mongod's.
func (db *DB) noteRename(txn *lsm.Txn, m *catalog.Coll, tdb, tname string, target *catalog.Coll) error {
	if !db.changesOn() || isBucketsColl(m) {
		return nil
	}
	c := &changestream.Change{Op: changestream.Rename, DB: m.DB, Coll: m.Name, CollectionUUID: uuidOf(m), ToDB: tdb, ToColl: tname}
	if target != nil {
		c.DropTarget = uuidOf(target)
	}
	return db.stageChange(txn, c)
}

// uuidOf is m's UUID as an event carries it: nil when m has none (a
// view).
func uuidOf(m *catalog.Coll) []byte {
	if m.UUID.IsZero() {
		return nil
	}
	return m.UUID[:]
}

// noteDropDatabase records the drop of database name, after the drops
// of its collections.
func (db *DB) noteDropDatabase(name string) error {
	if !db.changesOn() {
		return nil
	}
	return db.store.Update(func(txn *lsm.Txn) error {
		return db.stageChange(txn, &changestream.Change{Op: changestream.DropDatabase, DB: name})
	})
}

// ChangeStreamOptions are Watch's options: the fields of a $changeStream
// stage (fullDocument, fullDocumentBeforeChange, resumeAfter, startAfter,
// startAtOperationTime, showExpandedEvents).
type ChangeStreamOptions = changestream.Options

// ChangeStream is an open change stream: Next blocks until the next
// event, ResumeToken gives the token to resume from. See
// docs/change-streams.md.
type ChangeStream = changestream.Stream

func (db *DB) watch(scope changestream.Scope, pipeline []bson.D, o ChangeStreamOptions) (*ChangeStream, error) {
	if !db.changesOn() {
		return nil, document.Errorf(document.CodeIllegalOperation, "change streams are not enabled on this engine (engine.Options.ChangeStreams)")
	}
	if o.Metrics == nil {
		o.Metrics = &db.csMetrics
	}
	return changestream.New(db.store, scope, pipeline, o, db.lookupForStream)
}

// lookupForStream serves fullDocument: "updateLookup".
func (db *DB) lookupForStream(dbName, coll string, key bson.D) (bson.D, error) {
	d, err := db.Database(dbName).Collection(coll).FindOne(context.Background(), key)
	if errors.Is(err, ErrNoDocuments) || document.CodeOf(err) == document.CodeNamespaceNotFound {
		return nil, nil
	}
	return d, err
}

// Watch opens a change stream on the collection. pipeline may hold the
// stages mongod allows after $changeStream ($match, $project, $unset,
// $addFields, $set, $replaceRoot, $replaceWith, $redact, and a last
// $changeStreamSplitLargeEvent), over the events.
func (c *Collection) Watch(ctx context.Context, pipeline []bson.D, o ChangeStreamOptions) (*ChangeStream, error) {
	return c.db.watch(changestream.Scope{DB: c.dbName, Coll: c.name}, pipeline, o)
}

// Watch opens a change stream on every collection of the database.
func (d *Database) Watch(ctx context.Context, pipeline []bson.D, o ChangeStreamOptions) (*ChangeStream, error) {
	return d.db.watch(changestream.Scope{DB: d.name}, pipeline, o)
}

// Watch opens a change stream on every database of the engine.
func (db *DB) Watch(ctx context.Context, pipeline []bson.D, o ChangeStreamOptions) (*ChangeStream, error) {
	return db.watch(changestream.Scope{}, pipeline, o)
}

// ChangeLogCheck is CheckChangeLog's result.
type ChangeLogCheck struct {
	// Events is how many events the log holds.
	Events int
	// Checked lists the collections compared with the log.
	Checked []string
	// Skipped lists collections not compared, each with the reason
	// (capped and time-series collections: their evictions and
	// measurements are not events).
	Skipped []string
	// Problems lists each disagreement: a document without its events,
	// an event without its document, a document that differs from what
	// its events make it.
	Problems []string
}

// CheckChangeLog rebuilds every collection from the change log alone
// (changestream.Model) and compares it with the collection. It needs the
// log to hold the whole history: nothing trimmed, and change streams on
// whenever the data directory was written. Document field order is not
// compared.
func (db *DB) CheckChangeLog(ctx context.Context) (*ChangeLogCheck, error) {
	if !db.changesOn() {
		return nil, document.Errorf(document.CodeIllegalOperation, "change streams are not enabled on this engine (engine.Options.ChangeStreams)")
	}
	trimmed, _, err := db.store.ChangeBounds()
	if err != nil {
		return nil, err
	}
	res := &ChangeLogCheck{}
	if trimmed != (lsm.ChangePos{}) {
		for _, c := range db.collsOf("") {
			res.Skipped = append(res.Skipped, c.m().NS()+": the change log was trimmed, so it no longer holds the whole history")
		}
		return res, nil
	}
	st, err := changestream.New(db.store, changestream.Scope{Internal: true}, nil, changestream.Options{FromOldest: true, FullDocument: "whenAvailable"}, nil)
	if err != nil {
		return nil, err
	}
	model := changestream.NewModel()
	for st.TryNext(ctx) {
		res.Events++
		if err := model.Apply(st.Current()); err != nil {
			res.Problems = append(res.Problems, err.Error())
		}
	}
	if err := st.Err(); err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	for _, c := range db.collsOf("") {
		m := c.m()
		ns := m.NS()
		seen[ns] = true
		if m.Kind == catalog.KindCapped || m.Kind == catalog.KindTimeseries || isBucketsColl(m) {
			res.Skipped = append(res.Skipped, ns+": capped and time-series collections are not fully described by events")
			continue
		}
		res.Checked = append(res.Checked, ns)
		want := model.Docs(ns)
		cur, err := db.Database(m.DB).Collection(m.Name).Find(ctx, bson.D{})
		if err != nil {
			return nil, err
		}
		docs, err := cur.All(ctx)
		if err != nil {
			return nil, err
		}
		found := map[string]bool{}
		for _, d := range docs {
			k := changestream.IDKey(idOf(d))
			found[k] = true
			w, ok := want[k]
			switch {
			case !ok:
				res.Problems = append(res.Problems, fmt.Sprintf("%s: _id %s has no insert event", ns, extJSONOf(idOf(d))))
			case document.Compare(document.SortFields(w), document.SortFields(d)) != 0:
				res.Problems = append(res.Problems, fmt.Sprintf("%s: _id %s differs from what its events make it", ns, extJSONOf(idOf(d))))
			}
		}
		for k, w := range want {
			if !found[k] {
				res.Problems = append(res.Problems, fmt.Sprintf("%s: _id %s has events but no document", ns, extJSONOf(idOf(w))))
			}
		}
	}
	for _, ns := range model.Namespaces() {
		if !seen[ns] {
			res.Problems = append(res.Problems, fmt.Sprintf("%s: events leave %d document(s) in a collection that does not exist", ns, len(model.Docs(ns))))
		}
	}
	return res, nil
}

func extJSONOf(v any) string {
	b, err := document.MarshalExtJSON(bson.D{{Key: "_id", Value: v}}, false)
	if err != nil {
		return fmt.Sprint(v)
	}
	return strings.TrimSuffix(strings.TrimPrefix(string(b), `{"_id":`), "}")
}

// noteCreate records the creation of collection m in txn (a create
// event, shown with showExpandedEvents): operationDescription is the
// collection's options as listCollections shows them, then the _id
// index's spec (clustered collections have none: their clusteredIndex
// option says it). Time-series collections get none, as in MongoDB.
func (db *DB) noteCreate(txn *lsm.Txn, m *catalog.Coll) error {
	if !db.changesOn() || isBucketsColl(m) || m.Kind == catalog.KindTimeseries {
		return nil
	}
	// mongod's create oplog entry (makeCreateCollCmdObj): the
	// options, then the _id index's spec.
	desc := bson.D{}
	for _, e := range m.Options {
		if e.Key != "idIndex" {
			desc = append(desc, e)
		}
	}
	if !m.Clustered && len(m.Indexes) > 0 && m.Indexes[0].ID == idIndexID {
		desc = append(desc, bson.E{Key: "idIndex", Value: listIndexEntry(m.Indexes[0])})
	}
	if m.Kind == catalog.KindCapped {
		// Its ring is empty: every record it gets must have its event
		// (recoverCappedEvents).
		if err := txn.Set(cappedEventsKey(m.ID), make([]byte, 8)); err != nil {
			return err
		}
	}
	nsType := "collection"
	if m.Kind == catalog.KindView {
		nsType = "view" // mongod 8.1's; its view events carry no UUID
	}
	return db.stageChange(txn, &changestream.Change{Op: changestream.Create, DB: m.DB, Coll: m.Name, CollectionUUID: uuidOf(m), Description: desc, NsType: nsType, View: m.Kind == catalog.KindView})
}

// noteIndexes records indexes ixs of collection m built (CreateIndexes:
// one event listing them all, unless perIndex) or dropped (DropIndexes:
// one event per index), in txn. Shown with showExpandedEvents.
func (db *DB) noteIndexes(txn *lsm.Txn, m *catalog.Coll, op changestream.OpType, ixs []*catalog.Index, perIndex bool) error {
	if !db.changesOn() || isBucketsColl(m) || len(ixs) == 0 {
		return nil
	}
	specs := make(bson.A, 0, len(ixs))
	for _, ix := range ixs {
		specs = append(specs, listIndexEntry(ix))
	}
	if op == changestream.CreateIndexes && !perIndex {
		return db.stageChange(txn, &changestream.Change{Op: op, DB: m.DB, Coll: m.Name, CollectionUUID: uuidOf(m), Description: bson.D{{Key: "indexes", Value: specs}}})
	}
	for _, s := range specs {
		if err := db.stageChange(txn, &changestream.Change{Op: op, DB: m.DB, Coll: m.Name, CollectionUUID: uuidOf(m), Description: bson.D{{Key: "indexes", Value: bson.A{s}}}}); err != nil {
			return err
		}
	}
	return nil
}

// noteModify records a collMod of collection m (a modify event, shown
// with showExpandedEvents) in txn, the transaction of the collMod's
// catalog commit (collModCommit, resizeCapped): desc is the command's
// options, before the collection's options (and, for an index change,
// the changed index options) as they were.
func (db *DB) noteModify(txn *lsm.Txn, m *catalog.Coll, desc, before bson.D) error {
	if !db.changesOn() || isBucketsColl(m) {
		return nil
	}
	if desc == nil {
		// mongod logs a collMod that changes nothing too, as
		// {collMod: name}: an empty operationDescription.
		desc = bson.D{}
	}
	return db.stageChange(txn, &changestream.Change{Op: changestream.Modify, DB: m.DB, Coll: m.Name, CollectionUUID: uuidOf(m), Description: desc, StateBefore: before, View: m.Kind == catalog.KindView})
}

// modifyBefore returns a modify event's stateBeforeChange for a collMod
// of the collection whose entry is m, with index option opt (nil when the
// command changes no index): the collection's options and, for an index,
// the old values of the index options the command sets.
func modifyBefore(m *catalog.Coll, opt bson.D) bson.D {
	// mongod's old options begin with the collection's UUID
	// (CollectionOptions::toBSON).
	opts := bson.D{}
	if !m.UUID.IsZero() {
		opts = append(opts, bson.E{Key: "uuid", Value: m.UUID.Binary()})
	}
	opts = append(opts, m.Options...)
	before := bson.D{{Key: "collectionOptions", Value: opts}}
	if opt == nil {
		return before
	}
	ix := collModTarget(m, opt)
	if ix == nil {
		return before
	}
	// mongod's indexOptions_old: expireAfterSeconds, hidden,
	// prepareUnique, those the command changes (a hidden or a
	// prepareUnique it sets to what it was changes nothing); none when
	// it changes none of the index's options.
	eff := collModIndexEffect(ix, opt)
	if len(eff) == 0 {
		return before
	}
	io := bson.D{}
	if _, ok := get(eff, "expireAfterSeconds"); ok && ix.TTL {
		io = append(io, bson.E{Key: "expireAfterSeconds", Value: ix.Expire})
	}
	if _, ok := get(eff, "hidden"); ok {
		io = append(io, bson.E{Key: "hidden", Value: ix.Hidden})
	}
	if _, ok := get(eff, "prepareUnique"); ok {
		io = append(io, bson.E{Key: "prepareUnique", Value: ix.PrepareUnique})
	}
	return append(before, bson.E{Key: "indexOptions", Value: io})
}

// collModIndexEffect returns the options of a collMod's index option
// opt that change index ix, as mongod 7.0 keeps them for its oplog
// entry (parseCollModRequest): expireAfterSeconds (a long) always;
// hidden and prepareUnique only when they differ from the index's;
// unique only on an index not yet unique; forceNonUnique only on a
// unique one; prepareUnique never on a unique one. In that order.
func collModIndexEffect(ix *catalog.Index, opt bson.D) bson.D {
	var eff bson.D
	if e, ok := get(opt, "expireAfterSeconds"); ok {
		if n, isNum := asInt64(e); isNum {
			eff = append(eff, bson.E{Key: "expireAfterSeconds", Value: n})
		}
	}
	for _, k := range []string{"hidden", "unique", "prepareUnique", "forceNonUnique"} {
		e, ok := get(opt, k)
		if !ok {
			continue
		}
		b, _ := asBool(e)
		var noop bool
		switch k {
		case "hidden":
			noop = b == ix.Hidden
		case "unique":
			noop = ix.Unique
		case "prepareUnique":
			noop = b == ix.PrepareUnique || ix.Unique
		case "forceNonUnique":
			noop = !ix.Unique
		}
		if !noop {
			eff = append(eff, bson.E{Key: k, Value: b})
		}
	}
	return eff
}

// collModTarget is the index of m a collMod's index option opt names,
// by name or key pattern; nil if none.
func collModTarget(m *catalog.Coll, opt bson.D) *catalog.Index {
	if n, ok := get(opt, "name"); ok {
		if s, ok := n.(string); ok {
			return m.Index(s)
		}
	} else if k, ok := get(opt, "keyPattern"); ok {
		if kd, ok := k.(bson.D); ok {
			ix, _ := findIndex(m, kd)
			return ix
		}
	}
	return nil
}

// modifyIndexDesc returns desc (a modify event's operationDescription)
// with its index option as mongod logs it (makeCollModCmdObj): the
// index by name, then the options the command changes
// (collModIndexEffect), in the order expireAfterSeconds (a long),
// hidden, unique, prepareUnique, forceNonUnique; without the index
// option when it changes nothing. m is the collection before the
// collMod.
func modifyIndexDesc(m *catalog.Coll, desc bson.D) bson.D {
	v, ok := get(desc, "index")
	opt, isDoc := v.(bson.D)
	if !ok || !isDoc {
		return desc
	}
	ix := collModTarget(m, opt)
	if ix == nil {
		return desc
	}
	eff := collModIndexEffect(ix, opt)
	out := make(bson.D, 0, len(desc))
	for _, e := range desc {
		if e.Key == "index" {
			if len(eff) == 0 {
				// mongod leaves an index option that changes
				// nothing out of its oplog entry.
				continue
			}
			e.Value = append(bson.D{{Key: "name", Value: ix.Name}}, eff...)
		}
		out = append(out, e)
	}
	return out
}

// noteCreateIndexes records indexes ixs of m built, in txn: one event
// per index when perIndex is set (built on an empty collection), else
// one listing them all, as MongoDB's createIndexes and commitIndexBuild
// oplog entries give.
func (db *DB) noteCreateIndexes(txn *lsm.Txn, m *catalog.Coll, ixs []*catalog.Index, perIndex bool) error {
	return db.noteIndexes(txn, m, changestream.CreateIndexes, ixs, perIndex)
}

// noteDropIndexes records indexes ixs of m dropped, in txn.
func (db *DB) noteDropIndexes(txn *lsm.Txn, m *catalog.Coll, ixs []*catalog.Index) error {
	return db.noteIndexes(txn, m, changestream.DropIndexes, ixs, true)
}

// modifyDesc returns a modify event's operationDescription: collMod's
// options, without the collection name and the generic command fields.
func modifyDesc(cmd bson.D) bson.D {
	var d bson.D
	for _, e := range cmd[1:] {
		switch e.Key {
		case "comment", "writeConcern", "lsid", "$db", "dryRun":
		default:
			d = append(d, e)
		}
	}
	return d
}
