package main

import (
	"testing"
)

func TestExport(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	in := `{"_id": 1, "k": "a", "at": {"$date": "2024-01-01T00:00:00Z"}, "n": {"$numberLong": "7"}}
{"_id": 2, "k": "b"}
{"_id": 3, "k": "a"}
`
	if _, errOut, code := cli(t, nil, dir, in, "import", "c"); code != 0 {
		t.Fatalf("import exit %d: %s", code, errOut)
	}
	cases := []struct {
		args []string
		want string
	}{
		{nil, `{"_id":1,"k":"a","at":{"$date":"2024-01-01T00:00:00Z"},"n":7}` + "\n" + `{"_id":2,"k":"b"}` + "\n" + `{"_id":3,"k":"a"}` + "\n"},
		{[]string{"--query", `{"k": "a"}`, "--sort", `{"_id": -1}`, "--limit", "1"}, `{"_id":3,"k":"a"}` + "\n"},
		{[]string{"--skip", "2"}, `{"_id":3,"k":"a"}` + "\n"},
		{[]string{"--query", `{"_id": 1}`, "--jsonFormat", "canonical"}, `{"_id":{"$numberInt":"1"},"k":"a","at":{"$date":{"$numberLong":"1704067200000"}},"n":{"$numberLong":"7"}}` + "\n"},
	}
	for _, tc := range cases {
		out, errOut, code := cli(t, nil, dir, "", append([]string{"export", "c"}, tc.args...)...)
		if code != 0 || out != tc.want {
			t.Errorf("export %q: exit %d stdout %q stderr %q; want %q", tc.args, code, out, errOut, tc.want)
		}
	}
	// Export then import into another collection round-trips exactly.
	out, _, _ := cli(t, nil, dir, "", "export", "c")
	if _, errOut, code := cli(t, nil, dir, out, "import", "copy"); code != 0 {
		t.Fatalf("re-import: %s", errOut)
	}
	back, _, _ := cli(t, nil, dir, "", "export", "copy")
	if back != out {
		t.Errorf("round trip changed the data:\n%s\nvs\n%s", out, back)
	}
	if _, errOut, code := cli(t, nil, dir, "", "export", "c", "--query", "{bad"); code != 1 || errOut == "" {
		t.Errorf("bad --query: exit %d stderr %q", code, errOut)
	}
}
