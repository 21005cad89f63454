package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// TestProfileCommand: the profile command reports level 0 with slowms
// and sampleRate, sets those at level 0 (replying with what was
// before), and refuses the levels that would profile, a filter, and
// bad values, with MongoDB's codes.
func TestProfileCommand(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	r, err := run(t, db, "test", `{"profile": -1}`)
	if want := `{"was":{"$numberInt":"0"},"slowms":{"$numberInt":"100"},"sampleRate":{"$numberDouble":"1.0"},"ok":{"$numberDouble":"1.0"}}`; err != nil || r.String() != want {
		t.Fatalf("profile -1: %v %v, want %s", r, err, want)
	}
	if _, err := run(t, db, "test", `{"profile": 0, "slowms": 50, "sampleRate": 0.5}`); err != nil {
		t.Fatal(err)
	}
	r, err = run(t, db, "test", `{"profile": -1}`)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := get(r, "slowms"); v != int32(50) {
		t.Errorf("slowms after setting 50: %v", v)
	}
	if v, _ := get(r, "sampleRate"); v != 0.5 {
		t.Errorf("sampleRate after setting 0.5: %v", v)
	}
	for _, tc := range []struct {
		cmd  string
		code document.Code
		frag string
	}{
		{`{"profile": 1}`, document.CodeCommandNotSupported, "profiling level 1 is not available"},
		{`{"profile": 2}`, document.CodeCommandNotSupported, "profiling level 2"},
		{`{"profile": 3}`, document.CodeBadValue, "Invalid profiling level"},
		{`{"profile": 0, "sampleRate": 2}`, document.CodeBadValue, "between 0.0 and 1.0"},
		{`{"profile": 0, "filter": {}}`, document.CodeCommandNotSupported, "filter"},
		{`{"profile": 0, "nosuch": 1}`, document.CodeIDLUnknownField, "'profile.nosuch' is an unknown field"},
	} {
		_, err := run(t, db, "test", tc.cmd)
		checkCode(t, tc.cmd, err, tc.code, tc.frag)
	}
	// A refused level changed nothing.
	r, _ = run(t, db, "test", `{"profile": -1}`)
	if v, _ := get(r, "slowms"); v != int32(50) {
		t.Errorf("slowms after refusals: %v, want 50", v)
	}
}
