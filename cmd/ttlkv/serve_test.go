package main

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// serveLog is a stderr the test reads while serve writes it.
type serveLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *serveLog) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *serveLog) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startServe runs `ttlkv serve args...` on dir until the returned stop
// is called, and returns the TCP address it logged.
func startServe(t *testing.T, dir string, args ...string) (addr string, log *serveLog, stop func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	log = &serveLog{}
	e := &env{ctx: ctx, stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: log,
		getenv: func(string) string { return "" }, isTerm: func(any) bool { return false }}
	done := make(chan int, 1)
	go func() { done <- e.main(append([]string{"--dir", dir, "serve", "--port", "0"}, args...)) }()
	re := regexp.MustCompile(`waiting for connections on (127\.0\.0\.1:\d+)`)
	for i := 0; i < 2000; i++ {
		if m := re.FindStringSubmatch(log.String()); m != nil {
			addr = m[1]
			break
		}
		select {
		case code := <-done:
			t.Fatalf("serve exited %d: %s", code, log.String())
		case <-time.After(5 * time.Millisecond):
		}
	}
	if addr == "" {
		cancel()
		t.Fatalf("serve did not start: %s", log.String())
	}
	var once sync.Once
	code := -1
	stop = func() int {
		once.Do(func() {
			cancel()
			select {
			case code = <-done:
			case <-time.After(30 * time.Second):
				t.Fatal("serve did not stop")
			}
		})
		return code
	}
	t.Cleanup(func() { stop() })
	return addr, log, stop
}

func connect(t *testing.T, uri string, o ...*options.ClientOptions) *mongo.Client {
	t.Helper()
	opts := options.Client().ApplyURI(uri).SetTimeout(20 * time.Second)
	if len(o) > 0 {
		opts = o[0].ApplyURI(uri).SetTimeout(20 * time.Second)
	}
	c, err := mongo.Connect(opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestServeWithDriver(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	sock := filepath.Join(t.TempDir(), "s.sock")
	addr, log, stop := startServe(t, dir, "--unixSocket", sock)
	ctx := context.Background()
	c := connect(t, "mongodb://"+addr)
	if _, err := c.Database("app").Collection("c").InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	u := connect(t, "mongodb://"+url.PathEscape(sock))
	if n, err := u.Database("app").Collection("c").CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("over the Unix socket: %d %v", n, err)
	}
	c.Disconnect(ctx)
	u.Disconnect(ctx)
	if code := stop(); code != 0 {
		t.Fatalf("exit %d: %s", code, log.String())
	}
	out := log.String()
	for _, want := range []string{"connection accepted from", "end connection", "stopping"} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %q:\n%s", want, out)
		}
	}
	// The store was closed cleanly: it reopens with the document.
	addr2, _, _ := startServe(t, dir)
	c2 := connect(t, "mongodb://"+addr2)
	defer c2.Disconnect(ctx)
	if n, err := c2.Database("app").Collection("c").CountDocuments(ctx, bson.D{}); err != nil || n != 1 {
		t.Fatalf("after restart: %d %v", n, err)
	}
}

func TestServeRefusesNetworkWithoutAuth(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{{"--bind_ip", "0.0.0.0"}, {"--bind_ip_all"}, {"--bind_ip", "127.0.0.1,192.0.2.1"}} {
		_, errOut, code := cli(t, nil, t.TempDir(), "", append([]string{"serve", "--port", "0"}, args...)...)
		if code != 2 || !strings.Contains(errOut, "refusing to listen") || !strings.Contains(errOut, "--auth") {
			t.Errorf("%v: exit %d, %q", args, code, errOut)
		}
	}
}

func TestServeDbpathAlias(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "viadbpath")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, errOut, code := cli(t, ctx, "", "", "serve", "--dbpath", dir)
	if code != 0 || !strings.Contains(errOut, "serving "+dir) {
		t.Fatalf("exit %d, %q", code, errOut)
	}
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
}

// selfSigned writes a PEM with a self-signed certificate for 127.0.0.1
// and its key, and returns its path and a pool trusting it.
func selfSigned(t *testing.T) (string, *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "ttlkv test"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	kb, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	pem.Encode(&b, &pem.Block{Type: "CERTIFICATE", Bytes: der})
	pem.Encode(&b, &pem.Block{Type: "EC PRIVATE KEY", Bytes: kb})
	path := filepath.Join(t.TempDir(), "server.pem")
	if err := os.WriteFile(path, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	return path, pool
}

func TestServeTLS(t *testing.T) {
	t.Parallel()
	pemPath, pool := selfSigned(t)
	addr, _, _ := startServe(t, t.TempDir(), "--tlsCertificateKeyFile", pemPath)
	ctx := context.Background()
	c := connect(t, "mongodb://"+addr, options.Client().SetTLSConfig(&tls.Config{RootCAs: pool}))
	defer c.Disconnect(ctx)
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatalf("ping over TLS: %v", err)
	}
	// A client without TLS gets nowhere, and the server stays up.
	plain := connect(t, "mongodb://"+addr+"/?serverSelectionTimeoutMS=300")
	defer plain.Disconnect(ctx)
	if err := plain.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err == nil {
		t.Fatal("a plain client was served by a TLS server")
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err != nil {
		t.Fatalf("ping over TLS after a plain client: %v", err)
	}
}

func TestServeAuth(t *testing.T) {
	t.Parallel()
	addr, log, _ := startServe(t, t.TempDir(), "--auth")
	ctx := context.Background()
	anon := connect(t, "mongodb://"+addr)
	defer anon.Disconnect(ctx)
	err := anon.Database("app").RunCommand(ctx, bson.D{{Key: "find", Value: "c"}}).Err()
	var ce mongo.CommandError
	if !errors.As(err, &ce) || ce.Code != 13 {
		t.Fatalf("unauthenticated find: %v", err)
	}
	// The localhost exception creates the first user.
	if err := anon.Database("admin").RunCommand(ctx, bson.D{{Key: "createUser", Value: "admin"}, {Key: "pwd", Value: "pw"},
		{Key: "roles", Value: bson.A{"root"}}}).Err(); err != nil {
		t.Fatal(err)
	}
	root := connect(t, "mongodb://admin:pw@"+addr+"/?authSource=admin")
	defer root.Disconnect(ctx)
	if _, err := root.Database("app").Collection("c").InsertOne(ctx, bson.D{{Key: "a", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	bad := connect(t, "mongodb://admin:wrong@"+addr+"/?authSource=admin")
	defer bad.Disconnect(ctx)
	if err := bad.Database("admin").RunCommand(ctx, bson.D{{Key: "ping", Value: 1}}).Err(); err == nil {
		t.Fatal("a wrong password was accepted")
	}
	if !strings.Contains(log.String(), "authentication failed") {
		t.Fatalf("no log line for the failed login:\n%s", log.String())
	}
}

// By default serve runs time-series updates as mongod 7.0 does (an
// updateOne is 72); --timeseriesArbitraryUpdates, mongod's
// featureFlagTimeseriesUpdatesSupport, runs it.
func TestServeTimeseriesArbitraryUpdates(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	for _, on := range []bool{false, true} {
		var args []string
		if on {
			args = append(args, "--timeseriesArbitraryUpdates")
		}
		addr, _, _ := startServe(t, t.TempDir(), args...)
		c := connect(t, "mongodb://"+addr)
		db := c.Database("app")
		if err := db.CreateCollection(ctx, "w", options.CreateCollection().SetTimeSeriesOptions(
			options.TimeSeries().SetTimeField("t").SetMetaField("m"))); err != nil {
			t.Fatal(err)
		}
		if _, err := db.Collection("w").InsertOne(ctx, bson.D{{Key: "t", Value: time.Now()}, {Key: "m", Value: 1}, {Key: "v", Value: 1}}); err != nil {
			t.Fatal(err)
		}
		_, err := db.Collection("w").UpdateOne(ctx, bson.D{{Key: "v", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "v", Value: 2}}}})
		var we mongo.WriteException
		switch {
		case on && err != nil:
			t.Errorf("with the flag, updateOne: %v", err)
		case !on && (!errors.As(err, &we) || len(we.WriteErrors) != 1 || we.WriteErrors[0].Code != 72):
			t.Errorf("without the flag, updateOne: %v, want write error 72", err)
		}
		c.Disconnect(ctx)
	}
}
