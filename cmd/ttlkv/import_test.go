package main

import (
	"strings"
	"testing"
)

func TestImport(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		input string
		code  int
		err   []string // substrings of stderr
		count string   // documents afterwards, as printed by eval
	}{
		{"json lines", nil, "{\"_id\": 1}\n{\"_id\": 2, \"d\": {\"$date\": \"2024-01-01T00:00:00Z\"}}\n\n{\"_id\": 3}\n", 0,
			[]string{"3 document(s) imported successfully. 0 document(s) failed"}, "3"},
		{"json array", nil, "[\n  {\"_id\": 1},\n  {\"_id\": 2}\n]\n", 0, []string{"2 document(s) imported successfully"}, "2"},
		{"bad lines skipped with line numbers", nil, "{\"_id\": 1}\n{\"_id\": \n{\"_id\": {\"$oid\": \"zz\"}}\n{\"_id\": 4}\n", 1,
			[]string{"line 2: ", "line 3: ", "2 document(s) imported successfully. 2 document(s) failed"}, "2"},
		{"stopOnError keeps what came before", []string{"--stopOnError"}, "{\"_id\": 1}\n{\"_id\": 2}\nnot json\n{\"_id\": 4}\n", 1,
			[]string{"line 3: ", "2 document(s) imported successfully. 1 document(s) failed"}, "2"},
		{"duplicate _id reported by line", []string{"--batchSize", "2"}, "{\"_id\": 1}\n{\"_id\": 1}\n{\"_id\": 3}\n", 1,
			[]string{"line 2: E11000", "2 document(s) imported successfully. 1 document(s) failed"}, "2"},
		{"bad array element line", nil, "[{\"_id\": 1},\n {\"_id\": {\"$oid\": \"zz\"}},\n {\"_id\": 3}]", 1,
			[]string{"line 2: ", "2 document(s) imported successfully. 1 document(s) failed"}, "2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			_, errOut, code := cli(t, nil, dir, tc.input, append([]string{"import", "c"}, tc.args...)...)
			if code != tc.code {
				t.Errorf("exit %d, want %d; stderr %s", code, tc.code, errOut)
			}
			for _, s := range tc.err {
				if !strings.Contains(errOut, s) {
					t.Errorf("stderr %q lacks %q", errOut, s)
				}
			}
			out, errOut, _ := cli(t, nil, dir, "", "eval", "db.c.countDocuments()")
			if strings.TrimSpace(out) != tc.count {
				t.Errorf("count %q (stderr %q), want %s", out, errOut, tc.count)
			}
		})
	}
}

func TestImportUpsert(t *testing.T) {
	dir := t.TempDir()
	if _, errOut, code := cli(t, nil, dir, "{\"_id\": 1, \"v\": 1}\n{\"_id\": 2, \"v\": 1}\n", "import", "c"); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if _, errOut, code := cli(t, nil, dir, "{\"_id\": 1, \"v\": 2}\n{\"_id\": 3, \"v\": 2}\n{\"v\": 2}\n", "import", "c", "--mode", "upsert"); code != 0 {
		t.Fatalf("upsert exit %d: %s", code, errOut)
	}
	out, _, _ := cli(t, nil, dir, "", "eval", "db.c.find({}, {_id: 0, v: 1}).sort({_id: 1}).toArray().map(d => d.v).join(',') + ' ' + db.c.countDocuments()")
	if want := "2,1,2,2 4\n"; out != want {
		t.Errorf("after upsert: %q, want %q", out, want)
	}
}
