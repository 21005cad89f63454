package engine

import (
	"context"
	"math/rand/v2"
	"sync"
	"sync/atomic"

	"github.com/ttlkv/ttlkv/changestream"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// serverCursor is an open cursor of the command interface.
type serverCursor struct {
	id     int64
	ns     string
	c      *coll
	q      *queryExec
	tail   *tailState                     // non-nil for tailable cursors on capped collections
	stream *changestream.Stream           // non-nil for change streams (cmd_changestream.go)
	mu     sync.Mutex                     // one getMore at a time
	killed atomic.Pointer[document.Error] // set when the collection is dropped (by another goroutine)
}

// cursorRegistry holds open server cursors by id.
type cursorRegistry struct {
	mu sync.Mutex
	m  map[int64]*serverCursor
}

func (r *cursorRegistry) init() { r.m = map[int64]*serverCursor{} }

func (r *cursorRegistry) add(cur *serverCursor) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	for {
		id := rand.Int64N(1<<53) + 1
		if _, taken := r.m[id]; !taken {
			cur.id = id
			r.m[id] = cur
			return id
		}
	}
}

func (r *cursorRegistry) get(id int64) *serverCursor {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.m[id]
}

func (r *cursorRegistry) remove(id int64) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.m[id]
	delete(r.m, id)
	return ok
}

// killColl marks c's cursors killed: their next getMore fails with
// 175 QueryPlanKilled.
func (r *cursorRegistry) killColl(c *coll) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, cur := range r.m {
		if cur.c == c {
			cur.killed.Store(document.Errorf(document.CodeQueryPlanKilled, "collection dropped: %s", cur.ns))
		}
	}
}

func (r *cursorRegistry) killAll() {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.m = map[int64]*serverCursor{}
}

// Cursor iterates the results of Find, like the driver's mongo.Cursor.
// It is not safe for concurrent use.
type Cursor struct {
	q       *queryExec
	tail    *tailState
	buf     []bson.D
	err     error
	done    bool
	batch   int
	Current bson.D // the document Next moved to
}

// Next moves to the next document, returning false at the end or on
// error (see Err). A tailable cursor's Next blocks until a document
// arrives or ctx ends.
func (c *Cursor) Next(ctx context.Context) bool {
	for len(c.buf) == 0 {
		if c.done || c.err != nil {
			return false
		}
		var docs []bson.D
		var err error
		if c.tail != nil {
			docs, err = c.tail.nextBlocking(ctx, c.batch)
			if err == nil && len(docs) == 0 {
				c.done = true // the tailable cursor is dead
			}
		} else {
			docs, err = c.q.nextBatch(ctx, c.batch)
			if len(docs) == 0 && err == nil && c.q.done {
				c.done = true
			}
		}
		if err != nil {
			c.err = err
			return false
		}
		c.buf = docs
		if c.tail == nil && c.q.done && len(docs) == 0 {
			c.done = true
		}
	}
	c.Current, c.buf = c.buf[0], c.buf[1:]
	return true
}

// Err returns the error that stopped Next, if any.
func (c *Cursor) Err() error { return c.err }

// All reads every remaining document.
func (c *Cursor) All(ctx context.Context) ([]bson.D, error) {
	var out []bson.D
	for c.Next(ctx) {
		out = append(out, c.Current)
	}
	return out, c.err
}

// Close releases the cursor.
func (c *Cursor) Close(ctx context.Context) error { c.done = true; c.buf = nil; return nil }
