package remote

import (
	"strings"
	"testing"
	"time"
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

// A connection string's own appName is kept, as mongosh and the
// mongo-tools keep it; without one the client names itself.
func TestClientOptionsKeepTheURIsAppName(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ uri, want string }{
		{"mongodb://127.0.0.1:1/?appName=billing", "billing"},
		{"mongodb://127.0.0.1:1/?appname=billing&serverSelectionTimeoutMS=5", "billing"},
		{"mongodb://127.0.0.1:1/", "ttlkv test"},
	} {
		o := clientOptions(c.uri, "ttlkv test")
		if o.AppName == nil || *o.AppName != c.want {
			t.Errorf("%s: appName %v, want %q", c.uri, o.AppName, c.want)
		}
	}
	if o := clientOptions("mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=5", "x"); o.ServerSelectionTimeout == nil || *o.ServerSelectionTimeout != 5*time.Millisecond {
		t.Errorf("the URI's serverSelectionTimeoutMS: %v", o.ServerSelectionTimeout)
	}
	if o := clientOptions("mongodb://127.0.0.1:1/", "x"); o.ServerSelectionTimeout == nil || *o.ServerSelectionTimeout != DefaultSelectionTimeout {
		t.Errorf("the default selection timeout: %v", o.ServerSelectionTimeout)
	}
}
