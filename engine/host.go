package engine

import (
	"context"
	"os"
	"strconv"
	"sync"
)

// WithListenPort returns a context under which the answers that name
// the server ($collStats's and $indexStats's host, dbHash's) give its
// port as mongod's do: "host:port" from $collStats and $indexStats
// (mongod's getHostNameCachedAndPort), and from dbHash when the port is
// not 27017 (mongod's prettyHostName). port is the one the client
// connected to; a front end that listens sets it. Without it (the
// engine embedded) they give the machine's name alone.
func WithListenPort(ctx context.Context, port int) context.Context {
	return context.WithValue(ctx, listenPortKey{}, port)
}

// listenPortKey marks the port of WithListenPort in a context.
type listenPortKey struct{}

// WithServerVersion returns a context under which explain's
// serverInfo.version is version: the one a front end's buildInfo
// reports (the wire server claims MongoDB's), so that a client sees one
// version from both. Without it (the engine embedded) serverInfo gives
// ttlkv's own Version, as the engine's buildInfo does.
func WithServerVersion(ctx context.Context, version string) context.Context {
	return context.WithValue(ctx, serverVersionKey{}, version)
}

// serverVersionKey marks the version of WithServerVersion in a context.
type serverVersionKey struct{}

// serverVersion is the version WithServerVersion set in ctx, else
// ttlkv's Version.
func serverVersion(ctx context.Context) string {
	if v, ok := ctx.Value(serverVersionKey{}).(string); ok && v != "" {
		return v
	}
	return Version
}

// hostName is the machine's name, as hostInfo's system.hostname, read
// once.
var hostName = sync.OnceValue(func() string {
	h, err := os.Hostname()
	if err != nil || h == "" {
		return "localhost"
	}
	return h
})

// listenPort is the port WithListenPort set in ctx, 0 if none.
func listenPort(ctx context.Context) int {
	p, _ := ctx.Value(listenPortKey{}).(int)
	return p
}

// hostAndPort is the server as $collStats and $indexStats name it:
// "host:port" when the port is known.
func hostAndPort(ctx context.Context) string {
	if p := listenPort(ctx); p > 0 {
		return hostName() + ":" + strconv.Itoa(p)
	}
	return hostName()
}

// prettyHostName is the server as dbHash names it: "host:port" when the
// port is known and not MongoDB's default, 27017.
func prettyHostName(ctx context.Context) string {
	if p := listenPort(ctx); p > 0 && p != 27017 {
		return hostName() + ":" + strconv.Itoa(p)
	}
	return hostName()
}
