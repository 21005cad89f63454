package wire

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cursorOwners records which connection last used each open cursor, so
// that the cursors of a closed connection are killed once they have
// gone unused for Options.OrphanCursorTimeout. The cursors themselves
// live in the engine, so a getMore from any connection finds them.
type cursorOwners struct {
	mu sync.Mutex
	m  map[int64]*cursorOwner
}

type cursorOwner struct {
	conn    int64 // 0 once the connection has closed
	ns      string
	orphan  *time.Timer
	docSize int // the largest document seen in its batches, in bytes
	// inSession and session are whether the command that opened the
	// cursor had an lsid, and its id: a getMore must come from the same.
	inSession bool
	session   string
	// user is who opened the cursor ("user@db"; "" without access
	// control): only that user may continue or kill it.
	user string
}

// replyTarget is the size a getMore without batchSize aims its batch at,
// as mongod fills a batch up to 16 MiB; a third of the 48 MB message
// limit leaves room for documents larger than those seen so far.
const replyTarget = 16 << 20

// largestDoc returns the encoded size of the largest of the first few
// documents of a batch.
func largestDoc(batch bson.A) int {
	m := 0
	for i, v := range batch {
		if i == 16 {
			break
		}
		switch d := v.(type) {
		case bson.D:
			m = max(m, document.Size(d))
		case bson.Raw:
			m = max(m, len(d))
		}
	}
	return m
}

// batchSizeFor returns the batchSize to give a getMore on id that names
// none, so its reply stays near replyTarget; 0 when nothing is known.
func (r *cursorOwners) batchSizeFor(id int64, target int) int32 {
	r.mu.Lock()
	defer r.mu.Unlock()
	o := r.m[id]
	if o == nil || o.docSize == 0 {
		return 0
	}
	return int32(max(1, target/o.docSize))
}

// track records the cursor a reply opened, or forgets the one a
// getMore exhausted.
func (r *cursorOwners) track(connID int64, cmd bson.D, reply bson.D, user string) {
	cur, ok := lookup(reply, "cursor").(bson.D)
	if !ok {
		return
	}
	id, _ := lookup(cur, "id").(int64)
	ns, _ := lookup(cur, "ns").(string)
	if cmd[0].Key == "getMore" {
		req, _ := cmd[0].Value.(int64)
		if id == 0 {
			r.forget(req)
			return
		}
		batch, _ := lookup(cur, "nextBatch").(bson.A)
		if size := largestDoc(batch); size > 0 {
			r.mu.Lock()
			if o := r.m[req]; o != nil && size > o.docSize {
				o.docSize = size
			}
			r.mu.Unlock()
		}
		return
	}
	if id != 0 {
		batch, _ := lookup(cur, "firstBatch").(bson.A)
		size := largestDoc(batch)
		r.mu.Lock()
		lsid := lookup(cmd, "lsid")
		r.m[id] = &cursorOwner{conn: connID, ns: ns, docSize: size, inSession: lsid != nil, session: string(sessionID(lsid)), user: user}
		r.mu.Unlock()
	}
}

// checkSession refuses a getMore from a session other than the one
// that opened its cursor, as mongod does: 50736 from a session on a
// cursor opened without one, 50737 without an lsid on a cursor opened
// in one, 50738 from another session.
func (r *cursorOwners) checkSession(cmd bson.D) *cmdError {
	id, _ := cmd[0].Value.(int64)
	r.mu.Lock()
	o := r.m[id]
	r.mu.Unlock()
	if o == nil {
		return nil // the engine answers an unknown cursor
	}
	lsid := lookup(cmd, "lsid")
	now := string(sessionID(lsid))
	switch {
	case !o.inSession && lsid != nil:
		return &cmdError{50736, "Location50736", fmt.Sprintf("Cannot run getMore on cursor %d, which was not created in a session, in session %s", id, sessionName(now))}
	case o.inSession && lsid == nil:
		return &cmdError{50737, "Location50737", fmt.Sprintf("Cannot run getMore on cursor %d, which was created in session %s, without an lsid", id, sessionName(o.session))}
	case o.inSession && now != o.session:
		return &cmdError{50738, "Location50738", fmt.Sprintf("Cannot run getMore on cursor %d, which was created in session %s, in session %s", id, sessionName(o.session), sessionName(now))}
	}
	return nil
}

// checkGetMore refuses, as mongod does with 13, a getMore naming another
// namespace than its cursor's, or from another user than the one that
// opened it.
func (r *cursorOwners) checkGetMore(dbName string, cmd bson.D, user string) *cmdError {
	id, _ := cmd[0].Value.(int64)
	r.mu.Lock()
	o := r.m[id]
	r.mu.Unlock()
	if o == nil {
		return nil
	}
	if o.user != user {
		return &cmdError{13, "Unauthorized", fmt.Sprintf("cursor id %d was not created by the authenticated user", id)}
	}
	coll, _ := lookup(cmd, "collection").(string)
	if ns := dbName + "." + coll; o.ns != "" && ns != o.ns {
		return &cmdError{13, "Unauthorized", fmt.Sprintf("Requested getMore on namespace '%s', but cursor belongs to a different namespace %s", ns, o.ns)}
	}
	return nil
}

// checkKill refuses a killCursors naming a cursor another user opened
// (13), before any is killed.
func (r *cursorOwners) checkKill(cmd bson.D, user string) *cmdError {
	arr, _ := lookup(cmd, "cursors").(bson.A)
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, v := range arr {
		id, _ := v.(int64)
		if o := r.m[id]; o != nil && o.user != user {
			return &cmdError{13, "Unauthorized", fmt.Sprintf("not authorized to kill cursor on %s with id %d", o.ns, id)}
		}
	}
	return nil
}

// sessionName prints a session id as a UUID.
func sessionName(id string) string {
	if len(id) != 16 {
		return fmt.Sprintf("%x", id)
	}
	b := []byte(id)
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[:4], b[4:6], b[6:8], b[8:10], b[10:])
}

// adopt hands cursor id to connection connID (a getMore from it).
func (r *cursorOwners) adopt(id, connID int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o := r.m[id]; o != nil {
		o.conn = connID
		if o.orphan != nil {
			o.orphan.Stop()
			o.orphan = nil
		}
	}
}

func (r *cursorOwners) forget(id int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if o := r.m[id]; o != nil && o.orphan != nil {
		o.orphan.Stop()
	}
	delete(r.m, id)
}

func (r *cursorOwners) len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.m)
}

// orphan starts the timeout of every cursor connID owns.
func (r *cursorOwners) orphan(s *Server, connID int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for id, o := range r.m {
		if o.conn != connID {
			continue
		}
		o.conn = 0
		o.orphan = time.AfterFunc(s.opts.OrphanCursorTimeout, func() {
			r.mu.Lock()
			still := r.m[id] == o && o.conn == 0
			if still {
				delete(r.m, id)
			}
			r.mu.Unlock()
			if still {
				s.killCursor(id, o.ns)
			}
		})
	}
}

// killAll kills every cursor the server tracks (at Close).
func (r *cursorOwners) killAll(s *Server) {
	r.mu.Lock()
	m := r.m
	r.m = map[int64]*cursorOwner{}
	r.mu.Unlock()
	for id, o := range m {
		if o.orphan != nil {
			o.orphan.Stop()
		}
		s.killCursor(id, o.ns)
	}
}

func (s *Server) killCursor(id int64, ns string) {
	dbName, coll, _ := strings.Cut(ns, ".")
	if dbName == "" {
		return
	}
	_, err := s.db.RunCommand(context.Background(), dbName,
		bson.D{{Key: "killCursors", Value: coll}, {Key: "cursors", Value: bson.A{id}}})
	if err == nil {
		s.opts.Logf("killed cursor %d on %s, unused since its connection closed", id, ns)
	}
}
