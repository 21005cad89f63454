package engine

import (
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// TestLogComponentVerbosity follows MongoDB's own test of the
// parameter: levels set per component (a number or {verbosity}), read
// back nested, -1 clears (the default back to 0), logLevel is the
// default's level, and a wrong value or an unknown component is
// refused with nothing changed.
func TestLogComponentVerbosity(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	get := func(path string) any {
		t.Helper()
		return field(mustRun(t, db, "admin", `{"getParameter": 1, "logComponentVerbosity": 1}`), "logComponentVerbosity."+path)
	}
	if v := get("verbosity"); v != int32(0) {
		t.Errorf("default verbosity = %v, want 0", v)
	}
	if v := get("storage.journal.verbosity"); v != int32(-1) {
		t.Errorf("storage.journal.verbosity = %v, want -1", v)
	}
	r := mustRun(t, db, "admin", `{"setParameter": 1, "logComponentVerbosity": {"verbosity": 2, "accessControl": {"verbosity": 0}, "storage": {"verbosity": 3, "journal": {"verbosity": 5}}}}`)
	if v := field(r, "was.verbosity"); v != int32(0) {
		t.Errorf("was.verbosity = %v, want 0", v)
	}
	for path, want := range map[string]int32{"verbosity": 2, "accessControl.verbosity": 0, "storage.verbosity": 3, "storage.journal.verbosity": 5, "network.asio.verbosity": -1} {
		if v := get(path); v != want {
			t.Errorf("%s = %v, want %d", path, v, want)
		}
	}
	for _, bad := range []string{
		`{"setParameter": 1, "logComponentVerbosity": "not an object"}`,
		`{"setParameter": 1, "logComponentVerbosity": {"storage": {"journal": {"verbosity": "x"}}}}`,
		`{"setParameter": 1, "logComponentVerbosity": {"verbosity": 6, "NoSuchComponent": {"verbosity": 2}}}`,
		`{"setParameter": 1, "logComponentVerbosity": {"journal": 1}}`,
		`{"setParameter": 1, "logLevel": -1}`,
	} {
		wantCode(t, db, "admin", bad, document.CodeBadValue, "")
	}
	if v := get("verbosity"); v != int32(2) {
		t.Errorf("a refused set changed the default verbosity to %v", v)
	}
	mustRun(t, db, "admin", `{"setParameter": 1, "logComponentVerbosity": {"verbosity": -1, "storage": {"journal": {"verbosity": -1}}, "accessControl": 5}}`)
	for path, want := range map[string]int32{"verbosity": 0, "storage.verbosity": 3, "storage.journal.verbosity": -1, "accessControl.verbosity": 5} {
		if v := get(path); v != want {
			t.Errorf("after clearing: %s = %v, want %d", path, v, want)
		}
	}
	r = mustRun(t, db, "admin", `{"setParameter": 1, "logLevel": 1}`)
	if v := field(r, "was"); v != int32(0) {
		t.Errorf("logLevel was = %v, want 0", v)
	}
	if v := get("verbosity"); v != int32(1) {
		t.Errorf("verbosity after logLevel 1 = %v", v)
	}
	all := mustRun(t, db, "admin", `{"getParameter": "*"}`)
	if v := field(all, "logLevel"); v != int32(1) {
		t.Errorf("getParameter '*' logLevel = %v", v)
	}
}
