package main

import (
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/spf13/pflag"

	"github.com/ttlkv/ttlkv/engine"
	"github.com/ttlkv/ttlkv/wire"
)

type serveFlags struct {
	sleepSecs     int
	port          int
	bindIP        string
	bindIPAll     bool
	unsafeNoAuth  bool
	unixSocket    string
	dbpath        string
	maxConns      int
	tlsCertKey    string
	auth          bool
	idleTimeoutMS int
	noScripting   bool
	tsUpdates     bool
}

// unsafeFlag is the flag an operator must pass to listen beyond
// loopback without access control.
const unsafeFlag = "iKnowListeningWithoutAuthIsUnsafe"

var serveCommand = &command{
	name:    "serve",
	summary: "serve the data directory to MongoDB drivers and mongosh over the wire protocol, with the TTL monitor running, until Ctrl-C",
	usage:   "ttlkv serve [--port N] [--bind_ip ADDRS] [--unixSocket PATH] [--auth] [--tlsCertificateKeyFile PEM] [--maxConns N] [--ttlMonitorSleepSecs N] [--noscripting] [--timeseriesArbitraryUpdates]",
	notes: "Listens on 127.0.0.1:27017 by default, like mongod. Listening beyond loopback (--bind_ip 0.0.0.0,\n" +
		"--bind_ip_all) is refused unless --auth is on or --" + unsafeFlag + " is given.\n" +
		"--port 0 picks a free port and logs it. --dbpath is another name for --dir.\n" +
		"SIGINT or SIGTERM stops accepting, closes connections and cursors, then closes the store.",
	examples: []string{
		"ttlkv serve --port 0",
		"ttlkv serve --port 0 --ttlMonitorSleepSecs 5",
		"ttlkv serve --port 0 --unixSocket ttlkv.sock --maxConns 100",
		"ttlkv serve --port 0 --change-streams",
	},
	flags: func(fs *pflag.FlagSet) any {
		f := &serveFlags{}
		fs.IntVar(&f.port, "port", 27017, "TCP port to listen on (0: a free port, logged)")
		fs.StringVar(&f.bindIP, "bind_ip", "127.0.0.1", "comma-separated addresses to listen on")
		fs.BoolVar(&f.bindIPAll, "bind_ip_all", false, "listen on every IPv4 and IPv6 address (needs --auth or --"+unsafeFlag+")")
		fs.BoolVar(&f.unsafeNoAuth, unsafeFlag, false, "allow listening beyond loopback without --auth")
		fs.StringVar(&f.unixSocket, "unixSocket", "", "also listen on this Unix socket path")
		fs.StringVar(&f.dbpath, "dbpath", "", "data directory (alias of --dir)")
		fs.IntVar(&f.maxConns, "maxConns", 1000000, "most connections open at once; more are closed on accept")
		fs.StringVar(&f.tlsCertKey, "tlsCertificateKeyFile", "", "PEM file with the server certificate and its key: TLS only")
		fs.BoolVar(&f.auth, "auth", false, "access control: clients authenticate with SCRAM-SHA-256")
		fs.IntVar(&f.idleTimeoutMS, "idleTimeoutMS", 0, "close connections idle this long (0: never)")
		fs.IntVar(&f.sleepSecs, "ttlMonitorSleepSecs", 0, "seconds between TTL passes (default MongoDB's 60)")
		fs.BoolVar(&f.noScripting, "noscripting", false, "turn server-side JavaScript off ($where, $function, $accumulator), as mongod --noscripting")
		fs.BoolVar(&f.tsUpdates, "timeseriesArbitraryUpdates", false, "let updates of time-series collections take any filter and update, as mongod with featureFlagTimeseriesUpdatesSupport (default: mongod 7.0's metaField-only multi updates)")
		return f
	},
	run: runServe,
}

func runServe(e *env, fs *pflag.FlagSet, cfg any, args []string) int {
	f := cfg.(*serveFlags)
	if len(args) > 0 {
		fmt.Fprintln(e.stderr, "ttlkv serve: takes no arguments")
		return 2
	}
	var mu sync.Mutex
	logf := func(format string, a ...any) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(e.stderr, "%s "+format+"\n", append([]any{time.Now().UTC().Format(time.RFC3339)}, a...)...)
	}
	usage := func(format string, a ...any) int {
		fmt.Fprintf(e.stderr, "ttlkv serve: "+format+"\n", a...)
		return 2
	}
	if f.dbpath != "" {
		if fs.Changed("dir") && e.dir != f.dbpath {
			return usage("--dbpath %s and --dir %s name different directories", f.dbpath, e.dir)
		}
		e.dir = f.dbpath
	}
	if f.port < 0 || f.port > 65535 {
		return usage("--port must be between 0 and 65535, got %d", f.port)
	}
	if f.maxConns < 1 {
		return usage("--maxConns must be at least 1, got %d", f.maxConns)
	}
	addrs := strings.Split(f.bindIP, ",")
	if f.bindIPAll {
		addrs = []string{"0.0.0.0", "::"}
	}
	for i, a := range addrs {
		addrs[i] = strings.TrimSpace(a)
		if !isLoopback(addrs[i]) && !f.auth && !f.unsafeNoAuth {
			return usage("refusing to listen on %s without access control: pass --auth, or --%s if the network is trusted", addrs[i], unsafeFlag)
		}
	}
	opts := engine.Options{Logf: logf, NoScripting: f.noScripting, TimeseriesArbitraryUpdates: f.tsUpdates}
	if fs.Changed("ttlMonitorSleepSecs") {
		if f.sleepSecs < 1 {
			return usage("--ttlMonitorSleepSecs must be at least 1, got %d", f.sleepSecs)
		}
		opts.Params = map[string]any{"ttlMonitorSleepSecs": int64(f.sleepSecs)}
	}
	wopts := wire.Options{Logf: logf, MaxConns: f.maxConns, Auth: f.auth,
		IdleTimeout: time.Duration(f.idleTimeoutMS) * time.Millisecond}
	if f.tlsCertKey != "" {
		cert, err := tls.LoadX509KeyPair(e.path(f.tlsCertKey), e.path(f.tlsCertKey))
		if err != nil {
			return e.fail("serve", fmt.Errorf("--tlsCertificateKeyFile %s: %w", f.tlsCertKey, err))
		}
		wopts.TLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	}
	db, err := e.open(opts)
	if err != nil {
		return e.fail("serve", err)
	}
	logf("serving %s; the TTL monitor is running; press Ctrl-C to stop", db.Dir())
	if e.ctx.Err() != nil {
		// Interrupted while starting: stop before accepting anyone.
		logf("stopping")
		return e.closeDB("serve", db, 0)
	}
	srv := wire.NewServer(db, wopts)
	var ls []net.Listener
	for _, a := range addrs {
		l, err := net.Listen("tcp", net.JoinHostPort(a, strconv.Itoa(f.port)))
		if err != nil {
			closeAll(ls)
			e.closeDB("serve", db, 1)
			return e.fail("serve", err)
		}
		ls = append(ls, l)
		logf("waiting for connections on %s", l.Addr())
	}
	if f.unixSocket != "" {
		sock := e.path(f.unixSocket)
		if fi, err := os.Lstat(sock); err == nil && fi.Mode()&os.ModeSocket != 0 {
			os.Remove(sock) // a stale socket of a previous run
		}
		l, err := net.Listen("unix", sock)
		if err != nil {
			closeAll(ls)
			e.closeDB("serve", db, 1)
			return e.fail("serve", err)
		}
		os.Chmod(sock, 0o700)
		ls = append(ls, l)
		logf("waiting for connections on %s", f.unixSocket)
	}
	errc := make(chan error, len(ls))
	for _, l := range ls {
		go func(l net.Listener) { errc <- srv.Serve(l) }(l)
	}
	code := 0
	select {
	case <-e.ctx.Done():
	case err := <-errc:
		if !errors.Is(err, wire.ErrServerClosed) {
			logf("listener failed: %v", err)
			code = 1
		}
	}
	logf("stopping")
	srv.Close()
	return e.closeDB("serve", db, code)
}

func closeAll(ls []net.Listener) {
	for _, l := range ls {
		l.Close()
	}
}

// isLoopback reports whether a --bind_ip address is reachable only from
// this machine.
func isLoopback(a string) bool {
	if a == "localhost" {
		return true
	}
	ip := net.ParseIP(strings.Trim(a, "[]"))
	return ip != nil && ip.IsLoopback()
}
