package changestream

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/agg"
	"github.com/ttlkv/ttlkv/engine/query"
	"github.com/ttlkv/ttlkv/lsm"
)

// Options are a stream's options, the fields of a $changeStream stage.
type Options struct {
	// FullDocument is "default" (or ""), "updateLookup", "whenAvailable"
	// or "required": what an update event's fullDocument holds.
	FullDocument string
	// FullDocumentBeforeChange is "off" (or ""), "whenAvailable" or
	// "required": whether events carry the pre-image.
	FullDocumentBeforeChange string
	// ResumeAfter is a resume token document: start after its event.
	ResumeAfter bson.D
	// StartAfter is like ResumeAfter but also accepts an invalidate
	// event's token.
	StartAfter bson.D
	// StartAtOperationTime starts at the first event whose clusterTime is
	// at or after it.
	StartAtOperationTime *bson.Timestamp
	// ShowExpandedEvents adds the DDL events create, createIndexes,
	// dropIndexes and modify, and a rename's operationDescription.
	ShowExpandedEvents bool
	// FromOldest starts at the oldest event the log still holds (a ttlkv
	// extension, $changeStream field ttlkvFromOldest: true): what a
	// process that opens a data directory to read its history wants.
	FromOldest bool
	// Metrics, when set, counts the stream's large events and whether it
	// shows expanded events.
	Metrics *Metrics
	// Collation is the aggregate command's collation, which the
	// pipeline's $match stages compare strings with; nil is the simple
	// collation. As in mongod, a stream never takes its collection's
	// default collation.
	Collation *collation.Collator
}

// ParseStage parses the argument of a $changeStream stage. Unknown
// fields are 40415; allChangesForCluster is accepted (the caller scopes
// the stream).
func ParseStage(v any) (Options, bool, error) {
	var o Options
	d, ok := v.(bson.D)
	if !ok {
		return o, false, document.Errorf(document.Code(50808), "$changeStream stage expects a document as argument")
	}
	all := false
	for _, e := range d {
		switch e.Key {
		case "fullDocument", "fullDocumentBeforeChange":
			s, ok := e.Value.(string)
			if !ok {
				return o, false, wrongType(e, "string")
			}
			if e.Key == "fullDocument" {
				o.FullDocument = s
			} else {
				o.FullDocumentBeforeChange = s
			}
		case "resumeAfter", "startAfter":
			t, ok := e.Value.(bson.D)
			if !ok {
				return o, false, wrongType(e, "object")
			}
			if e.Key == "resumeAfter" {
				o.ResumeAfter = t
			} else {
				o.StartAfter = t
			}
		case "startAtOperationTime":
			ts, ok := e.Value.(bson.Timestamp)
			if !ok {
				return o, false, wrongType(e, "timestamp")
			}
			o.StartAtOperationTime = &ts
		case "showMigrationEvents", "allowToRunOnConfigDB", "allowToRunOnSystemNS":
			// mongod's internal options, taken and (false or true) of no
			// effect on a standalone.
			if _, ok := e.Value.(bool); !ok {
				return o, false, wrongType(e, "bool")
			}
		case "showExpandedEvents", "allChangesForCluster", "ttlkvFromOldest":
			b, ok := e.Value.(bool)
			if !ok {
				return o, false, wrongType(e, "bool")
			}
			switch e.Key {
			case "showExpandedEvents":
				o.ShowExpandedEvents = b
			case "ttlkvFromOldest":
				o.FromOldest = b
			default:
				all = b
			}
		default:
			return o, false, document.Errorf(document.CodeIDLUnknownField, "BSON field '$changeStream.%s' is an unknown field.", e.Key)
		}
	}
	return o, all, o.validate()
}

// wrongType is the IDL parser's answer to a $changeStream field e of
// another type than want, as mongod's (14 TypeMismatch).
func wrongType(e bson.E, want string) error {
	return document.Errorf(document.CodeTypeMismatch, "BSON field '$changeStream.%s' is the wrong type '%s', expected type '%s'", e.Key, document.TypeName(e.Value), want)
}

func (o Options) validate() error {
	switch o.FullDocument {
	case "", "default", "updateLookup", "whenAvailable", "required":
	default:
		return document.Errorf(document.CodeBadValue, "Enumeration value '%s' for field '$changeStream.fullDocument' is not a valid value.", o.FullDocument)
	}
	switch o.FullDocumentBeforeChange {
	case "", "off", "whenAvailable", "required":
	default:
		return document.Errorf(document.CodeBadValue, "Enumeration value '%s' for field '$changeStream.fullDocumentBeforeChange' is not a valid value.", o.FullDocumentBeforeChange)
	}
	if o.ResumeAfter != nil && o.StartAfter != nil {
		return document.Errorf(document.Code(50865), "Do not specify both 'resumeAfter' and 'startAfter' in a $changeStream stage")
	}
	// mongod reads the token before it checks the other resume options.
	for _, t := range []bson.D{o.ResumeAfter, o.StartAfter} {
		if t != nil {
			if _, err := ParseToken(t); err != nil {
				return err
			}
		}
	}
	n := 0
	if o.ResumeAfter != nil {
		n++
	}
	if o.StartAfter != nil {
		n++
	}
	if o.StartAtOperationTime != nil {
		n++
	}
	if o.FromOldest {
		n++
	}
	if n > 1 {
		return document.Errorf(document.Code(40674), "Only one type of resume option is allowed, but multiple were found")
	}
	return nil
}

// Scope is what a stream watches: one collection (DB and Coll), one
// database (Coll ""), or everything (DB ""). As mongod's, a database or
// engine-wide stream leaves out system.* collections, and an
// engine-wide one the internal databases admin, config and local,
// unless Internal is set.
type Scope struct {
	DB, Coll string
	// Internal also reports the collections and databases above (a
	// ttlkv use: reading the whole log back, as CheckChangeLog does).
	Internal bool
}

// Lookup returns the current version of the document with key in a
// collection (nil, nil when there is none), for fullDocument
// updateLookup.
type Lookup func(db, coll string, key bson.D) (bson.D, error)

// readBatch is how many stored changes a stream reads per snapshot.
const readBatch = 256

// Stream is an open change stream. Next blocks until an event arrives;
// ResumeToken gives the token to resume after the last event returned
// (or, with no event buffered, after everything read so far). A Stream is
// not safe for concurrent use.
type Stream struct {
	store  *lsm.Store
	scope  Scope
	o      Options
	lookup Lookup
	stages []stage
	pos    lsm.ChangePos // last change read from the log
	buf    []bson.D
	cur    bson.D
	token  bson.D // resume token of cur, or high-water mark
	ended  bool   // invalidated: no event after what is buffered
	// invToken is the invalidate event's token when the pipeline
	// filtered the event out: the stream's last resume token, as mongod's.
	invToken bson.D
	// split is set when the pipeline ends with
	// $changeStreamSplitLargeEvent: events too large for a reply are
	// returned in fragments.
	split bool
	// resumeSplit is the fragment token the stream resumes after, until
	// its event is read again: the fragments up to it are skipped.
	resumeSplit *Token
	err         error
	closed      bool
}

type stage struct {
	match *query.Filter
	proj  *query.Projection
	// agg is one of the aggregation stages a stream may run besides
	// ($addFields, $set, $replaceRoot, $replaceWith, $redact).
	agg *agg.Pipeline
	// split is $changeStreamSplitLargeEvent, which must come last.
	split bool
}

// New opens a stream over store's change log. pipeline may hold $match,
// $project, $unset, $addFields, $set, $replaceRoot, $replaceWith and
// $redact stages, and a last $changeStreamSplitLargeEvent, as mongod's;
// lookup serves fullDocument updateLookup (nil: no lookup, fullDocument
// null).
func New(store *lsm.Store, scope Scope, pipeline []bson.D, o Options, lookup Lookup) (*Stream, error) {
	if !store.ChangesEnabled() {
		return nil, document.Errorf(document.CodeIllegalOperation, "change streams are not enabled on this engine (engine.Options.ChangeStreams, or ttlkv serve --change-streams)")
	}
	if err := o.validate(); err != nil {
		return nil, err
	}
	s := &Stream{store: store, scope: scope, o: o, lookup: lookup}
	for _, st := range pipeline {
		ps, err := parseStage(st)
		if err != nil {
			return nil, err
		}
		if ps.match != nil && o.Collation != nil {
			if ps.match, err = ps.match.Collate(o.Collation); err != nil {
				return nil, err
			}
		}
		s.stages = append(s.stages, ps)
	}
	for i, st := range s.stages {
		if !st.split {
			continue
		}
		if i != len(s.stages)-1 {
			return nil, document.Errorf(document.Code(7182802), "$changeStreamSplitLargeEvent must be the last stage in the pipeline")
		}
		s.split = true
		s.stages = s.stages[:i]
	}
	switch {
	case o.ResumeAfter != nil || o.StartAfter != nil:
		td := o.ResumeAfter
		if td == nil {
			td = o.StartAfter
		}
		t, err := ParseToken(td)
		if err != nil {
			return nil, err
		}
		if t.Split && !s.split {
			return nil, document.Errorf(document.CodeChangeStreamFatalError, "To resume from a split event, the $changeStream pipeline must include a $changeStreamSplitLargeEvent stage")
		}
		if t.Invalidate && o.ResumeAfter != nil {
			return nil, document.Errorf(document.CodeInvalidResumeToken, "Attempting to resume a change stream using 'resumeAfter' is not allowed from an invalidate notification")
		}
		s.pos = t.Pos
		if !t.Invalidate && !t.HighWater {
			c, err := s.checkResumePoint(t)
			if err != nil {
				return nil, err
			}
			if t.Split {
				// The split event is read again, and its fragments up
				// to the token's are skipped.
				s.pos = before(t.Pos)
				s.resumeSplit = &t
			} else if c != nil && s.invalidates(c) {
				// Resumed after the drop (or rename) that ended the
				// stream: the invalidate that followed it comes first,
				// as mongod's.
				if err := s.invalidate(t.Pos, c); err != nil {
					return nil, err
				}
			}
		}
	case o.StartAtOperationTime != nil:
		seq := seqOf(*o.StartAtOperationTime)
		if seq > 0 {
			s.pos = lsm.ChangePos{Seq: seq - 1, Index: math.MaxUint32}
		}
	default:
		trimmed, last, err := store.ChangeBounds()
		if err != nil {
			return nil, err
		}
		s.pos = last
		if o.FromOldest || last.Compare(trimmed) < 0 {
			s.pos = trimmed
		}
	}
	s.token = Token{Pos: s.pos, HighWater: true}.Doc()
	if o.ResumeAfter != nil || o.StartAfter != nil {
		// mongod's first postBatchResumeToken is the token resumed from,
		// until the stream reads past it.
		t, _ := ParseToken(o.ResumeAfter)
		if o.ResumeAfter == nil {
			t, _ = ParseToken(o.StartAfter)
		}
		s.token = t.Doc()
	}
	if o.Metrics != nil && o.ShowExpandedEvents {
		o.Metrics.ShowExpandedEvents.Add(1)
	}
	// A start position already trimmed fails now, as MongoDB's does; an
	// event the stream cannot return (too large, a required image
	// missing, ...) fails the read that reaches it, as mongod's does at
	// the first batch or getMore that holds it.
	if err := s.fill(); err != nil {
		if document.CodeOf(err) == document.CodeChangeStreamHistoryLost {
			return nil, err
		}
		s.err = err
	}
	return s, nil
}

func parseStage(st bson.D) (stage, error) {
	if len(st) != 1 {
		return stage{}, document.Errorf(document.CodeBadValue, "a pipeline stage specification object must contain exactly one field")
	}
	e := st[0]
	switch e.Key {
	case "$match":
		f, ok := e.Value.(bson.D)
		if !ok {
			return stage{}, document.Errorf(document.CodeTypeMismatch, "the match filter must be an expression in an object")
		}
		m, err := query.ParseFilter(f)
		if err != nil {
			return stage{}, err
		}
		return stage{match: m}, nil
	case "$project", "$unset":
		var p bson.D
		if e.Key == "$unset" {
			switch v := e.Value.(type) {
			case string:
				p = bson.D{{Key: v, Value: 0}}
			case bson.A:
				for _, f := range v {
					s, ok := f.(string)
					if !ok {
						return stage{}, document.Errorf(document.CodeTypeMismatch, "$unset specification must be a string or an array of strings")
					}
					p = append(p, bson.E{Key: s, Value: 0})
				}
			default:
				return stage{}, document.Errorf(document.CodeTypeMismatch, "$unset specification must be a string or an array of strings")
			}
		} else {
			var ok bool
			if p, ok = e.Value.(bson.D); !ok {
				return stage{}, document.Errorf(document.CodeTypeMismatch, "$project specification must be an object")
			}
		}
		pr, err := query.ParseProjection(p)
		if err != nil {
			return stage{}, err
		}
		return stage{proj: pr}, nil
	case "$addFields", "$set", "$replaceRoot", "$replaceWith", "$redact":
		p, err := agg.Parse(bson.A{st})
		if err != nil {
			return stage{}, err
		}
		return stage{agg: p}, nil
	case "$changeStreamSplitLargeEvent":
		if d, ok := e.Value.(bson.D); !ok || len(d) != 0 {
			return stage{}, document.Errorf(document.Code(7182800), "$changeStreamSplitLargeEvent spec should be an empty object")
		}
		return stage{split: true}, nil
	case "$changeStream":
		return stage{}, document.Errorf(document.Code(40602), "$changeStream is only valid as the first stage in a pipeline")
	}
	return stage{}, document.Errorf(document.CodeIllegalOperation, "%s is not permitted in a $changeStream pipeline", e.Key)
}

// fill reads the next stored changes into buf (possibly none).
func (s *Stream) fill() error {
	if s.ended {
		return nil
	}
	var raws []struct {
		p lsm.ChangePos
		v []byte
	}
	bytes := 0
	err := s.store.ReadChanges(s.pos, readBatch, func(p lsm.ChangePos, v []byte) error {
		raws = append(raws, struct {
			p lsm.ChangePos
			v []byte
		}{p, append([]byte(nil), v...)})
		// Large events (a 16 MiB document with its images) are read a
		// batch's worth at a time, not readBatch of them at once.
		if bytes += len(v); bytes >= maxBatchBytes {
			return lsm.ErrStopRead
		}
		return nil
	})
	if errors.Is(err, lsm.ErrChangeHistoryLost) {
		// mongod's words ("oplog" included): applications and tools
		// match them to tell a lost history from other failures.
		return document.Errorf(document.CodeChangeStreamHistoryLost, "Resume of change stream was not possible, as the resume point may no longer be in the oplog.")
	}
	if err != nil {
		return err
	}
	start := s.pos
	for _, r := range raws {
		s.pos = r.p
		c, err := decode(r.v)
		if err != nil {
			return err
		}
		if !s.inScope(c) {
			continue
		}
		ev, err := s.event(r.p, c)
		if err != nil {
			return err
		}
		if err := s.emit(r.p, ev); err != nil {
			return err
		}
		if s.invalidates(c) {
			if err := s.invalidate(r.p, c); err != nil {
				return err
			}
			break
		}
	}
	if len(s.buf) == 0 && s.pos != start {
		s.token = Token{Pos: s.pos, HighWater: true}.Doc()
	}
	return nil
}

// invalidate ends the stream with the invalidate event that follows c,
// at position p, the change that invalidates it.
func (s *Stream) invalidate(p lsm.ChangePos, c *stored) error {
	inv := bson.D{
		{Key: "_id", Value: Token{Pos: p, Invalidate: true}.Doc()},
		{Key: "operationType", Value: string(Invalidate)},
		{Key: "clusterTime", Value: ClusterTime(p.Seq)},
		{Key: "wallTime", Value: c.wall},
	}
	tok := inv[0].Value.(bson.D)
	inv, err := s.apply(inv)
	if err != nil {
		return err
	}
	if inv != nil {
		s.buf = append(s.buf, inv)
	} else {
		s.invToken = tok // filtered out: the stream still ends at it
	}
	s.ended = true
	return nil
}

func (s *Stream) inScope(c *stored) bool {
	if !s.scope.Internal && s.scope.Coll == "" && internalNS(s.scope.DB == "", c) {
		return false
	}
	if s.scope.DB == "" {
		return true
	}
	if c.op == Rename && c.toDB == s.scope.DB && (s.scope.Coll == "" || c.toColl == s.scope.Coll) {
		return true // a rename onto the watched collection (or into the database)
	}
	if c.db != s.scope.DB {
		return false
	}
	if s.scope.Coll == "" {
		return true
	}
	return c.op == DropDatabase || c.coll == s.scope.Coll
}

// internalNS reports whether c is a change mongod's database and
// cluster-wide streams do not report: one of a system.* collection (a
// rename counts when both its ends are), and, when cluster is set, one
// of the admin, config or local database.
func internalNS(cluster bool, c *stored) bool {
	if cluster && internalDB(c.db) && (c.op != Rename || internalDB(c.toDB)) {
		return true
	}
	if !strings.HasPrefix(c.coll, "system.") {
		return false
	}
	return c.op != Rename || strings.HasPrefix(c.toColl, "system.")
}

func internalDB(name string) bool {
	return name == "admin" || name == "config" || name == "local"
}

func (s *Stream) invalidates(c *stored) bool {
	switch {
	case s.scope.DB == "":
		return false
	case s.scope.Coll == "":
		return c.op == DropDatabase
	}
	return c.op == Drop || c.op == Rename || c.op == DropDatabase
}

// shows reports whether the stream makes an event of in-scope change c:
// not a DDL event or a view's event without showExpandedEvents, nor a
// dropDatabase on a collection stream (which sees the collection's
// drop, then invalidate).
func (s *Stream) shows(c *stored) bool {
	if c.op == DropDatabase && s.scope.Coll != "" {
		return false
	}
	if c.view && !s.o.ShowExpandedEvents {
		return false
	}
	return !c.op.Expanded() || s.o.ShowExpandedEvents
}

// event shapes a stored change as MongoDB's change event and runs the
// pipeline; nil when the pipeline filters it out.
func (s *Stream) event(p lsm.ChangePos, c *stored) (bson.D, error) {
	if !s.shows(c) {
		return nil, nil
	}
	tok := Token{Pos: p}
	ev := bson.D{
		{Key: "_id", Value: tok.Doc()},
		{Key: "operationType", Value: string(c.op)},
		{Key: "clusterTime", Value: ClusterTime(p.Seq)},
	}
	if s.o.ShowExpandedEvents && c.uuid != nil {
		// mongod's events carry the collection's UUID (all but
		// dropDatabase's) when they are expanded.
		ev = append(ev, bson.E{Key: "collectionUUID", Value: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: c.uuid}})
	}
	ev = append(ev, bson.E{Key: "wallTime", Value: c.wall})
	switch c.op {
	case Insert, Replace:
		ev = append(ev, bson.E{Key: "fullDocument", Value: c.full})
	case Update:
		switch s.o.FullDocument {
		case "updateLookup":
			var cur any
			if s.lookup != nil {
				d, err := s.lookup(c.db, c.coll, c.key)
				if err != nil {
					return nil, err
				}
				if d != nil {
					cur = d
				}
			}
			ev = append(ev, bson.E{Key: "fullDocument", Value: cur})
		case "whenAvailable", "required":
			if !c.hasFull {
				if s.o.FullDocument == "required" {
					return nil, document.Errorf(document.CodeNoMatchingDocument, "Change stream was configured to require a post-image for all update events, but the post-image was not found for event: %s", imageEventDesc(p, c))
				}
				ev = append(ev, bson.E{Key: "fullDocument", Value: nil})
			} else {
				ev = append(ev, bson.E{Key: "fullDocument", Value: c.full})
			}
		}
	}
	ns := bson.D{{Key: "db", Value: c.db}}
	if c.op != DropDatabase {
		ns = append(ns, bson.E{Key: "coll", Value: c.coll})
	}
	ev = append(ev, bson.E{Key: "ns", Value: ns})
	if c.op == Rename {
		// mongod's rename event begins with its target.
		to := bson.D{{Key: "db", Value: c.toDB}, {Key: "coll", Value: c.toColl}}
		ev = append(bson.D{{Key: "to", Value: to}}, ev...)
		if s.o.ShowExpandedEvents {
			// mongod's oplog entry: the target, then the UUID of the
			// collection the rename dropped in its place, if any.
			desc := bson.D{{Key: "to", Value: to}}
			if c.dropTarget != nil {
				desc = append(desc, bson.E{Key: "dropTarget", Value: bson.Binary{Subtype: bson.TypeBinaryUUID, Data: c.dropTarget}})
			}
			ev = append(ev, bson.E{Key: "operationDescription", Value: desc})
		}
	}
	if c.desc != nil {
		ev = append(ev, bson.E{Key: "operationDescription", Value: c.desc})
	}
	if c.before != nil {
		ev = append(ev, bson.E{Key: "stateBeforeChange", Value: c.before})
	}
	if c.nsType != "" {
		ev = append(ev, bson.E{Key: "nsType", Value: c.nsType})
	}
	if c.hasKey {
		ev = append(ev, bson.E{Key: "documentKey", Value: c.key})
	}
	if c.op == Update && c.hasUpd {
		ev = append(ev, bson.E{Key: "updateDescription", Value: s.updateDescription(c.upd)})
	}
	if c.op == Update || c.op == Replace || c.op == Delete {
		switch s.o.FullDocumentBeforeChange {
		case "whenAvailable":
			var v any
			if c.hasPrev {
				v = c.prev
			}
			ev = append(ev, bson.E{Key: "fullDocumentBeforeChange", Value: v})
		case "required":
			if !c.hasPrev {
				return nil, document.Errorf(document.CodeNoMatchingDocument, "Change stream was configured to require a pre-image for all update, delete and replace events, but the pre-image was not found for event: %s", imageEventDesc(p, c))
			}
			ev = append(ev, bson.E{Key: "fullDocumentBeforeChange", Value: c.prev})
		}
	}
	if c.expiry != nil {
		ev = append(ev, bson.E{Key: "ttlkv", Value: c.expiry})
	}
	return s.apply(ev)
}

// imageEventDesc names the event at p whose required image is missing
// as mongod's error does: its operationType, ns and clusterTime, printed
// the way mongod prints a document.
func imageEventDesc(p lsm.ChangePos, c *stored) string {
	ct := ClusterTime(p.Seq)
	return fmt.Sprintf("{operationType: \"%s\", ns: {db: \"%s\", coll: \"%s\"}, clusterTime: Timestamp(%d, %d)}", string(c.op), c.db, c.coll, ct.T, ct.I)
}

// apply runs the pipeline over ev; nil when filtered out. The _id (the
// resume token) must come through unchanged.
func (s *Stream) apply(ev bson.D) (bson.D, error) {
	id := any(idOf(ev))
	for _, st := range s.stages {
		if st.match != nil {
			ok, err := st.match.MatchErr(ev)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, nil
			}
			continue
		}
		if st.agg != nil {
			one := ev
			c := st.agg.Open(func(context.Context) (bson.D, error) {
				d := one
				one = nil
				return d, nil
			}, agg.Options{Now: bson.NewDateTimeFromTime(time.Now())})
			out, err := c.Next(context.Background())
			if err != nil {
				return nil, err
			}
			if out == nil { // $redact pruned it
				return nil, nil
			}
			ev = out
			continue
		}
		ev = st.proj.Apply(ev)
	}
	var got any
	has := false
	for _, e := range ev {
		if e.Key == "_id" {
			got, has = e.Value, true
		}
	}
	if !has || document.Compare(got, id) != 0 {
		found := bson.D{}
		if has {
			found = bson.D{{Key: "_id", Value: got}}
		}
		return nil, document.Errorf(document.CodeChangeStreamFatalError, "Encountered an event whose _id field, which contains the resume token, was modified by the pipeline. Modifying the _id field of an event makes it impossible to resume the stream from that point. Only transformations that retain the unmodified _id field are allowed. Expected: %s but found: %s", document.Format(bson.D{{Key: "_id", Value: id}}), document.Format(found))
	}
	return ev, nil
}

// TryNext returns the next event if one is available now, without
// waiting: true with Current set, or false (check Err).
func (s *Stream) TryNext(ctx context.Context) bool {
	if !s.ready(ctx) {
		return false
	}
	s.cur, s.buf = s.buf[0], s.buf[1:]
	s.token = idOf(s.cur)
	if len(s.buf) == 0 && !s.ended {
		// Everything read was returned: the high-water mark is the last
		// position read, which may be past cur (filtered out since).
		if t, err := ParseToken(s.token); err != nil || t.Pos.Compare(s.pos) != 0 {
			s.token = Token{Pos: s.pos, HighWater: true}.Doc()
		}
	}
	return true
}

// ready reports whether an event is buffered, reading the log when none
// is.
func (s *Stream) ready(ctx context.Context) bool {
	if s.closed || s.err != nil {
		return false
	}
	if len(s.buf) == 0 {
		if err := ctx.Err(); err != nil {
			s.err = err
			return false
		}
		if err := s.fill(); err != nil {
			s.err = err
			return false
		}
	}
	return len(s.buf) > 0
}

// Next blocks until an event is available (true, Current set), the
// stream is invalidated and drained, ctx ends, or an error occurs (false;
// Err says which).
func (s *Stream) Next(ctx context.Context) bool {
	for {
		if s.closed || s.err != nil {
			return false
		}
		ch := s.store.ChangeNotify()
		if s.TryNext(ctx) {
			return true
		}
		if s.err != nil || s.ended {
			return false
		}
		select {
		case <-ch:
		case <-ctx.Done():
			s.err = ctx.Err()
			return false
		}
	}
}

// NextBatch returns up to n events (n <= 0: up to 101), waiting up to
// wait for the first one when none is available; an empty batch is not
// an error. As mongod's, a batch holds at most 16 MiB of events (but
// always one): an event that would overfill it starts the next. It is
// getMore's loop for an awaitData cursor.
func (s *Stream) NextBatch(ctx context.Context, n int, wait time.Duration) ([]bson.D, error) {
	if n <= 0 {
		n = 101
	}
	var out []bson.D
	bytes := 0
	deadline := time.Now().Add(wait)
	for len(out) < n {
		ch := s.store.ChangeNotify()
		if s.ready(ctx) {
			if len(out) > 0 && bytes+document.Size(s.buf[0]) > maxBatchBytes {
				break
			}
			s.TryNext(ctx)
			out = append(out, s.cur)
			bytes += document.Size(s.cur)
			continue
		}
		if s.err != nil {
			return out, s.err
		}
		if len(out) > 0 || s.ended || wait <= 0 {
			break
		}
		left := time.Until(deadline)
		if left <= 0 {
			break
		}
		t := time.NewTimer(left)
		select {
		case <-ch:
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return out, ctx.Err()
		}
		t.Stop()
	}
	return out, nil
}

// Current returns the event Next or TryNext last returned.
func (s *Stream) Current() bson.D { return s.cur }

// ResumeToken returns the token to resume after: the last event's _id,
// or a later position when events were read and filtered out since.
func (s *Stream) ResumeToken() bson.D {
	if s.invToken != nil && s.Ended() {
		return s.invToken
	}
	return s.token
}

// Ended reports whether the stream was invalidated (no event follows
// what it has returned).
func (s *Stream) Ended() bool { return s.ended && len(s.buf) == 0 }

// Err returns the error that stopped the stream, nil if none.
func (s *Stream) Err() error { return s.err }

// Close ends the stream. It always returns nil.
func (s *Stream) Close() error {
	s.closed = true
	s.buf = nil
	return nil
}

func idOf(ev bson.D) bson.D {
	for _, e := range ev {
		if e.Key == "_id" {
			d, _ := e.Value.(bson.D)
			return d
		}
	}
	return nil
}

// updateDescription is a stored updateDescription as the stream shows
// it: with disambiguatedPaths ({} when none) under showExpandedEvents,
// without them otherwise, as mongod's.
func (s *Stream) updateDescription(ud bson.D) bson.D {
	out := make(bson.D, 0, len(ud)+1)
	var dp any = bson.D{}
	for _, e := range ud {
		if e.Key == "disambiguatedPaths" {
			dp = e.Value
			continue
		}
		out = append(out, e)
	}
	if s.o.ShowExpandedEvents {
		out = append(out, bson.E{Key: "disambiguatedPaths", Value: dp})
	}
	return out
}

// checkResumePoint returns the change of event token t (nil when the
// log no longer holds it). It refuses an event token whose event this
// stream would not have shown (another collection's, another
// database's, a DDL event's without showExpandedEvents), as mongod's
// does: 280 "cannot resume stream; the resume token was not found". A
// position the log no longer holds is left to the read, which reports
// the history lost.
func (s *Stream) checkResumePoint(t Token) (*stored, error) {
	if t.Pos == (lsm.ChangePos{}) {
		return nil, nil
	}
	prev := before(t.Pos)
	var at lsm.ChangePos
	var c *stored
	err := s.store.ReadChanges(prev, 1, func(p lsm.ChangePos, v []byte) error {
		at = p
		var err error
		c, err = decode(v)
		return err
	})
	if err != nil {
		if errors.Is(err, lsm.ErrChangeHistoryLost) {
			return nil, nil
		}
		return nil, err
	}
	if c == nil || at != t.Pos || !s.inScope(c) || !s.shows(c) {
		return nil, document.Errorf(document.CodeChangeStreamFatalError, "cannot resume stream; the resume token was not found. %s", fmtToken(t))
	}
	return c, nil
}

func fmtToken(t Token) string { return "{_data: \"" + t.String() + "\"}" }

// before returns the position just before p (p when p is the first).
func before(p lsm.ChangePos) lsm.ChangePos {
	switch {
	case p.Index > 0:
		p.Index--
	case p.Seq > 0:
		p = lsm.ChangePos{Seq: p.Seq - 1, Index: math.MaxUint32}
	}
	return p
}
