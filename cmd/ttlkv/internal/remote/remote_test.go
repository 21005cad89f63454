package remote

import (
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"mongodb://127.0.0.1:27017/":             "mongodb://127.0.0.1:27017/",
		"mongodb://alice:s3cret@h:1/?tls=true":   "mongodb://alice:xxxxx@h:1/?tls=true",
		"mongodb://bob@h:1/":                     "mongodb://bob@h:1/",
		"mongodb://a:p@h1:1,h2:2/?replicaSet=rs": "mongodb://a:xxxxx@h1:1,h2:2/?replicaSet=rs",
	} {
		if got := Redact(in); got != want || strings.Contains(got, "s3cret") {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}
