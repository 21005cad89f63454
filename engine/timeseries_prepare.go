package engine

import (
	"crypto/rand"
	"encoding/binary"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// ObjectIDs of measurements. A time-series insert names every
// measurement without an _id, usually a whole batch of them, so it
// reserves a run of counter values with one atomic add and reads the
// clock once per batch instead of once per measurement. The layout is
// an ObjectID's: 4 bytes of seconds, 5 random bytes fixed per process
// (drawn independently of the driver's, so the two never overlap but by
// chance), 3 bytes of counter.
var (
	tsOIDProcess [5]byte
	tsOIDCounter atomic.Uint32
)

func init() {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		// crypto/rand does not fail on supported platforms; fall back
		// to the clock rather than refuse to start.
		binary.BigEndian.PutUint64(b[:], uint64(time.Now().UnixNano()))
	}
	copy(tsOIDProcess[:], b[:5])
	tsOIDCounter.Store(uint32(b[5])<<16 | uint32(b[6])<<8 | uint32(b[7]))
}

// tsIDs hands out ObjectIDs for one insert: the timestamp of its start
// and n consecutive counter values.
type tsIDs struct {
	secs uint32
	next uint32
}

func newTSIDs(n int) tsIDs {
	end := tsOIDCounter.Add(uint32(n))
	return tsIDs{secs: uint32(time.Now().Unix()), next: end - uint32(n)}
}

func (g *tsIDs) id() bson.ObjectID {
	var id bson.ObjectID
	binary.BigEndian.PutUint32(id[0:4], g.secs)
	copy(id[4:9], tsOIDProcess[:])
	c := g.next
	g.next++
	id[9], id[10], id[11] = byte(c>>16), byte(c>>8), byte(c)
	return id
}

// tsPrepare is prepareInsert for the measurements of one time-series
// insert, with the same results and errors: each document normalised,
// with its _id first (an ObjectID from ids when it has none), checked
// for storage. Documents that need an _id added share one allocation.
type tsPrepare struct {
	ids  tsIDs
	slab []bson.E
	left int // documents not prepared yet, the one being prepared included
}

func newTSPrepare(n int) *tsPrepare { return &tsPrepare{ids: newTSIDs(n), left: n} }

func (p *tsPrepare) prepare(v any) (bson.D, error) {
	d, err := prepareDoc(v, func() any { return p.ids.id() }, p.alloc)
	p.left--
	return d, err
}

// tsSlab is the most fields tsPrepare allocates at a time.
const tsSlab = 4096

// alloc returns a document of n fields with no spare capacity (appending
// to it copies). A new slab holds the documents still to come if they
// are like this one (a batch of 1,000 five-field measurements took two
// slabs of 4,096 fields, 40% of them unused).
func (p *tsPrepare) alloc(n int) bson.D {
	if n > tsSlab/4 {
		return make(bson.D, n)
	}
	if len(p.slab) < n {
		p.slab = make([]bson.E, min(tsSlab, n*max(p.left, 1)))
	}
	d := p.slab[:n:n]
	p.slab = p.slab[n:]
	return d
}
