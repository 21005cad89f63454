package ttlmon

import "testing"

// The mirror of TestLowWater for a descending index: a visit walks down
// from the index's high-water mark, or from just past the greatest key
// a writer noted since the last visit began; keys are noted only once a
// visit has set a mark; collMod's reset forgets it.
func TestHighWater(t *testing.T) {
	t.Parallel()
	_, m := newFake(0)
	k := Key{Coll: 1, Index: 2}
	m.NoteKey(k, []byte("x")) // no mark yet: not noted
	ix, resume := m.StartVisitDesc(k, []byte("z"))
	if resume != nil {
		t.Fatalf("first visit resumes at %q, want nil", resume)
	}
	if st, _ := m.State(k); string(st.Mark) != "z" {
		t.Fatalf("mark %q after the first start, want the range end z", st.Mark)
	}
	m.Advance(ix, []byte("m"))
	m.NoteKey(k, []byte("c")) // below the mark: walked anyway
	if _, resume = m.StartVisitDesc(k, []byte("z")); string(resume) != "m" {
		t.Fatalf("resume %q, want the mark m", resume)
	}
	m.NoteKey(k, []byte("p"))
	m.NoteKey(k, []byte("s"))
	m.NoteKey(k, []byte("q"))
	if _, resume = m.StartVisitDesc(k, []byte("z")); string(resume) != "s\x00" {
		t.Fatalf("resume %q, want just past the greatest noted key s", resume)
	}
	if _, resume = m.StartVisitDesc(k, []byte("z")); string(resume) != "m" {
		t.Fatalf("resume %q after the note was taken, want m", resume)
	}
	m.ResetLowWater(1, 2)
	if _, ok := m.State(k); ok {
		t.Fatal("state kept after ResetLowWater")
	}
	if _, resume = m.StartVisitDesc(k, []byte("z")); resume != nil {
		t.Fatalf("resume %q after the reset, want nil", resume)
	}
}
