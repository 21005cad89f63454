package changestream

import (
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/lsm"
)

// A fragment's token round-trips, sorts after its event's token and
// before the invalidate, high-water mark and next event's; malformed
// fragment tokens are refused, never a panic.
func TestFragmentTokens(t *testing.T) {
	t.Parallel()
	p := lsm.ChangePos{Seq: 7<<32 | 3, Index: 2}
	ev := Token{Pos: p}.String()
	prev := ev
	for _, f := range []uint32{0, 1, 255, 1 << 20} {
		tok := Token{Pos: p, Split: true, Fragment: f}
		got, err := ParseToken(tok.Doc())
		if err != nil || got != tok {
			t.Fatalf("fragment %d: %+v, %v", f, got, err)
		}
		if s := tok.String(); s <= prev {
			t.Errorf("fragment %d's token %s does not sort after %s", f, s, prev)
		} else {
			prev = s
		}
	}
	for _, later := range []Token{{Pos: p, Invalidate: true}, {Pos: p, HighWater: true}, {Pos: lsm.ChangePos{Seq: p.Seq, Index: 3}}} {
		if later.String() <= prev {
			t.Errorf("%s sorts before the last fragment's %s", later, prev)
		}
	}
	for _, bad := range []string{ev + "00", ev + "00000001", ev + "01000000FF", ev + "00ZZZZZZZZ"} {
		if _, err := ParseToken(bson.D{{Key: "_data", Value: bad}}); err == nil {
			t.Errorf("token %q accepted", bad)
		}
	}
}

// splitEvent packs the smallest fields first into fragments no larger
// than the bound, each led by its own token and splitEvent {fragment,
// of}, as mongod's splitChangeEvent; a field larger than the bound is
// 7182500, an event of _id alone 7182502.
func TestSplitEvent(t *testing.T) {
	t.Parallel()
	tok := Token{Pos: lsm.ChangePos{Seq: 1 << 32, Index: 0}}
	big := func(n int) string { return strings.Repeat("x", n) }
	ev := bson.D{
		{Key: "_id", Value: tok.Doc()},
		{Key: "operationType", Value: "update"},
		{Key: "b", Value: big(600)},
		{Key: "a", Value: big(600)},
		{Key: "c", Value: big(100)},
	}
	frags, err := splitEvent(ev, tok, 900)
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for i, f := range frags {
		if f[0].Key != "_id" || f[1].Key != "splitEvent" {
			t.Fatalf("fragment %d: %v", i, f)
		}
		if got := document.Format(f[1].Value); got != "{ fragment: "+string(rune('1'+i))+", of: 3 }" {
			t.Errorf("fragment %d: splitEvent %s", i, got)
		}
		id, _ := ParseToken(f[0].Value)
		if !id.Split || id.Fragment != uint32(i) || id.Pos != tok.Pos {
			t.Errorf("fragment %d: token %+v", i, id)
		}
		var ks []string
		for _, e := range f[2:] {
			ks = append(ks, e.Key)
		}
		keys = append(keys, strings.Join(ks, ","))
	}
	if got := strings.Join(keys, " | "); got != "operationType,c | a | b" {
		t.Errorf("fragments hold %s, want mongod's greedy packing, smallest first: operationType,c | a | b", got)
	}
	if _, err := splitEvent(ev, tok, 500); document.CodeOf(err) != 7182500 {
		t.Errorf("a field over the bound: %v, want 7182500", err)
	}
	if _, err := splitEvent(bson.D{{Key: "_id", Value: tok.Doc()}}, tok, 500); document.CodeOf(err) != 7182502 {
		t.Errorf("_id alone: %v, want 7182502", err)
	}
}
