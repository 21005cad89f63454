package changestream

import (
	"encoding/hex"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
)

// Token is a decoded resume token: a change-log position, and whether it
// is the token of the invalidate event that follows that position.
type Token struct {
	// Pos is the change's position in the log.
	Pos lsm.ChangePos
	// Invalidate marks the token of an invalidate event.
	Invalidate bool
	// HighWater marks a high-water-mark token (a postBatchResumeToken
	// with no event under it): the stream has read up to Pos, which may
	// be another namespace's change, so resuming from it is not checked
	// against the stream's namespace.
	HighWater bool
	// Split marks the token of one fragment of an event that
	// $changeStreamSplitLargeEvent split; Fragment is its index, from 0
	// (splitEvent.fragment is Fragment+1).
	Split    bool
	Fragment uint32
}

// String returns the token's _data: "82", the commit sequence (16 hex
// digits), the index within the commit (8), and "01" for an invalidate,
// "02" for a high-water mark, or "00" and the fragment's index (8 hex
// digits) for a fragment of a split event.
// Tokens of later events compare greater as strings, as MongoDB's do
// (a fragment's sorts after its event's position and before what
// follows it).
func (t Token) String() string {
	s := fmt.Sprintf("82%016X%08X", t.Pos.Seq, t.Pos.Index)
	switch {
	case t.Split:
		s += fmt.Sprintf("00%08X", t.Fragment)
	case t.Invalidate:
		s += "01"
	case t.HighWater:
		s += "02"
	}
	return s
}

// Doc returns the token as the event's _id: {_data: String()}.
func (t Token) Doc() bson.D { return bson.D{{Key: "_data", Value: t.String()}} }

// ParseToken decodes a resume token document {_data: "<hex>"}. A token
// ttlkv did not make is 260 InvalidResumeToken; a document of the wrong
// shape is 2 BadValue or 14 TypeMismatch.
func ParseToken(v any) (Token, error) {
	d, ok := v.(bson.D)
	if !ok {
		return Token{}, document.Errorf(document.CodeTypeMismatch, "resume token must be an object, got %T", v)
	}
	var data string
	found := false
	for _, e := range d {
		if e.Key != "_data" {
			continue
		}
		s, ok := e.Value.(string)
		if !ok {
			return Token{}, document.Errorf(document.Code(40647), "Bad resume token: _data of missing or of wrong type. Expected string, got %s", document.TypeName(e.Value))
		}
		data, found = s, true
	}
	if !found {
		return Token{}, document.Errorf(document.Code(40647), "Bad resume token: _data of missing or of wrong type. Expected string, got missing")
	}
	if _, err := hex.DecodeString(data); err != nil || len(data)%2 != 0 {
		return Token{}, document.Errorf(document.CodeFailedToParse, "resume token string was not a valid hex string")
	}
	var t Token
	switch {
	case len(data) == 26:
	case len(data) == 28 && strings.HasSuffix(data, "01"):
		t.Invalidate = true
	case len(data) == 28 && strings.HasSuffix(data, "02"):
		t.HighWater = true
	case len(data) == 36 && data[26:28] == "00":
		t.Split = true
		f, _ := hex.DecodeString(data[28:])
		for _, c := range f {
			t.Fragment = t.Fragment<<8 | uint32(c)
		}
	default:
		return Token{}, document.Errorf(document.CodeInvalidResumeToken, "resume token %q was not produced by ttlkv", data)
	}
	b, err := hex.DecodeString(data[2:26])
	if err != nil || !strings.HasPrefix(data, "82") {
		return Token{}, document.Errorf(document.CodeInvalidResumeToken, "resume token %q was not produced by ttlkv", data)
	}
	for _, c := range b[:8] {
		t.Pos.Seq = t.Pos.Seq<<8 | uint64(c)
	}
	for _, c := range b[8:12] {
		t.Pos.Index = t.Pos.Index<<8 | uint32(c)
	}
	return t, nil
}

// ClusterTime returns the clusterTime of a commit sequence: the Unix
// second in T and the counter within it in I.
func ClusterTime(seq uint64) bson.Timestamp {
	return bson.Timestamp{T: uint32(seq >> 32), I: uint32(seq)}
}

// seqOf is ClusterTime's inverse.
func seqOf(ts bson.Timestamp) uint64 { return uint64(ts.T)<<32 | uint64(ts.I) }
