package changestream

import (
	"sort"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
)

// Event sizes, as mongod bounds them.
const (
	// maxEventSize is the largest event a stream returns whole: mongod's
	// BSONObjMaxInternalSize (16 MiB + 16 KiB), the bound of the BSON
	// object the event becomes. A larger one is 10334
	// BSONObjectTooLarge, unless the pipeline splits it.
	maxEventSize = document.MaxDocumentSize + 16*1024
	// maxSplitEventSize is the largest event $changeStreamSplitLargeEvent
	// leaves whole, and the bound of each fragment with the token's size
	// taken off (mongod's kBSONObjMaxChangeEventSize: 8 KiB under
	// maxEventSize, room for the reply's postBatchResumeToken).
	maxSplitEventSize = maxEventSize - 8*1024
	// maxBatchBytes is how many bytes of events a batch holds, at least
	// one event: mongod's 16 MiB for a reply's documents.
	maxBatchBytes = document.MaxDocumentSize
)

// Metrics counts what mongod's serverStatus reports under
// metrics.changeStreams. The zero value is ready, and it is safe for
// concurrent use; streams given the same Metrics (Options.Metrics) add
// to it.
type Metrics struct {
	// LargeEventsFailed counts events a stream refused as too large
	// (10334 BSONObjectTooLarge).
	LargeEventsFailed atomic.Int64
	// LargeEventsSplit counts events $changeStreamSplitLargeEvent split
	// into fragments.
	LargeEventsSplit atomic.Int64
	// ShowExpandedEvents counts streams opened with showExpandedEvents.
	ShowExpandedEvents atomic.Int64
}

// emit adds ev, the event of the change at p after the pipeline (nil
// when filtered out), to the buffer: whole, or in fragments when the
// stream splits large events, and refuses one too large for a reply.
func (s *Stream) emit(p lsm.ChangePos, ev bson.D) error {
	resume := s.resumeSplit
	if resume != nil && resume.Pos == p {
		s.resumeSplit = nil
	} else {
		resume = nil
	}
	if ev == nil {
		if resume != nil {
			return document.Errorf(document.CodeChangeStreamFatalError, "cannot resume stream; the resume token was not found. %s", fmtToken(*resume))
		}
		return nil
	}
	size := document.Size(ev)
	if !s.split {
		if size > maxEventSize {
			if s.o.Metrics != nil {
				s.o.Metrics.LargeEventsFailed.Add(1)
			}
			return document.Errorf(document.CodeBSONObjectTooLarge, "BSONObj size: %d (0x%X) is invalid. Size must be between 0 and %d(%dMB) First element: _id: { _data: \"%s\" }", size, size, maxEventSize, maxEventSize>>20, Token{Pos: p}.String())
		}
		s.buf = append(s.buf, ev)
		return nil
	}
	if resume != nil && size <= maxSplitEventSize {
		return document.Errorf(document.CodeChangeStreamFatalError, "Attempted to resume from a split event fragment, but the event in the resumed stream was not large enough to be split")
	}
	if size <= maxSplitEventSize {
		s.buf = append(s.buf, ev)
		return nil
	}
	tok := Token{Pos: p}
	frags, err := splitEvent(ev, tok, maxSplitEventSize-document.Size(tok.Doc()))
	if err != nil {
		return err
	}
	skip := 0
	if resume != nil {
		skip = int(resume.Fragment) + 1
		if skip > len(frags) {
			return document.Errorf(document.CodeChangeStreamFatalError, "Attempted to resume from a split event, but the resumed stream produced a different split. Ensure that the pipeline used to resume is the same as the original")
		}
	}
	if s.o.Metrics != nil {
		s.o.Metrics.LargeEventsSplit.Add(1)
	}
	s.buf = append(s.buf, frags[skip:]...)
	return nil
}

// splitEvent splits ev, the event at tok, into fragments of at most max
// bytes, as mongod's $changeStreamSplitLargeEvent: each fragment is its
// own token (tok with the fragment's index), splitEvent: {fragment, of},
// then as many of the event's other fields as fit, taken from the
// smallest (by encoded size, then name), and at least one each.
func splitEvent(ev bson.D, tok Token, max int) ([]bson.D, error) {
	type field struct {
		e    bson.E
		size int
	}
	var fields []field
	for _, e := range ev {
		if e.Key != "_id" {
			fields = append(fields, field{e, document.Size(bson.D{e}) - 5})
		}
	}
	if len(fields) == 0 {
		return nil, document.Errorf(document.Code(7182502), "Cannot split an empty event or an event containing solely '_id' field")
	}
	sort.SliceStable(fields, func(i, j int) bool {
		if fields[i].size != fields[j].size {
			return fields[i].size < fields[j].size
		}
		return fields[i].e.Key < fields[j].e.Key
	})
	var frags []bson.D
	for i := 0; i < len(fields); {
		t := tok
		t.Split, t.Fragment = true, uint32(len(frags))
		f := bson.D{
			{Key: "_id", Value: t.Doc()},
			{Key: "splitEvent", Value: bson.D{{Key: "fragment", Value: int32(len(frags) + 1)}, {Key: "of", Value: int32(0)}}},
		}
		// mongod counts the fragment with its metadata: the token again,
		// as $sortKey: [token].
		size := document.Size(f) + document.Size(bson.D{{Key: "$sortKey", Value: bson.A{t.Doc()}}}) - 5
		for {
			f = append(f, fields[i].e)
			size += fields[i].size
			i++
			if i == len(fields) || size+fields[i].size > max {
				break
			}
		}
		if size > max {
			return nil, document.Errorf(document.Code(7182500), "Splitting change event failed: fragment size %d is greater than maximum allowed fragment size %d", size, max)
		}
		frags = append(frags, f)
	}
	for _, f := range frags {
		f[1].Value.(bson.D)[1].Value = int32(len(frags))
	}
	return frags, nil
}
