package wire

import (
	"context"
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
func (r *cursorOwners) track(connID int64, cmd bson.D, reply bson.D) {
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
		r.m[id] = &cursorOwner{conn: connID, ns: ns, docSize: size}
		r.mu.Unlock()
	}
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
