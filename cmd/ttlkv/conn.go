package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/ttlkv/ttlkv/cmd/ttlkv/internal/mongosh"
	"github.com/ttlkv/ttlkv/cmd/ttlkv/internal/remote"
	"github.com/ttlkv/ttlkv/engine"
)

// conn runs one database command and returns its reply, as
// engine.DB.RunCommand does: a failed command returns a reply with ok: 0
// and an error (a *document.Error carrying MongoDB's code when the
// server gave one). Cursors are followed with getMore and ended with
// killCursors through the same method, so a tool written against conn
// works on an opened data directory and on a server alike (see
// docs/wire.md, "The command-line tools over the protocol").
type conn interface {
	RunCommand(ctx context.Context, db string, cmd bson.D) (bson.D, error)
}

// session is what a tool works on: an opened data directory (db set) or
// a server reached with --uri (remote set).
type session struct {
	conn
	db     *engine.DB // nil with --uri
	remote *remote.Conn
}

// where describes the session for messages and db.getMongo(): the data
// directory's absolute path, or the URI without its password.
func (s *session) where() string {
	if s.remote != nil {
		return s.remote.URI
	}
	dir, err := filepath.Abs(s.db.Dir())
	if err != nil {
		dir = s.db.Dir()
	}
	return dir
}

// connection is the session's connection string as the shell prints it
// (db.getMongo()), in mongosh's shape: a server's with mongosh's
// parameters and the shell's appName (mongosh.ShellURI); a data
// directory's as ttlkv:// and its absolute path, with the appName.
func (s *session) connection() string {
	app := "ttlkv " + version
	if s.remote != nil {
		return mongosh.ShellURI(s.remote.URI, app)
	}
	u := url.URL{Scheme: "ttlkv", Path: s.where(), RawQuery: "appName=" + url.QueryEscape(app)}
	return u.String()
}

// connect opens the session of a tool: the server named by --uri, else
// the data directory with opts.
func (e *env) connect(opts engine.Options) (*session, error) {
	if e.uri == "" {
		db, err := e.open(opts)
		if err != nil {
			return nil, err
		}
		return &session{conn: db, db: db}, nil
	}
	rc, err := dialURI(e.ctx, e.uri)
	if err != nil {
		return nil, err
	}
	return &session{conn: rc, remote: rc}, nil
}

// closeSession closes s, reporting a close error (which turns success
// into failure: data may not be durable).
func (e *env) closeSession(cmd string, s *session, code int) int {
	if s.db != nil {
		return e.closeDB(cmd, s.db, code)
	}
	_ = s.remote.Close()
	return code
}

// uriDatabase makes the database named in --uri's path (mongodb://HOST/DB)
// the one commands work in, as mongosh starts in it and mongo-tools
// take it for --db. given is whether --db was given too: the same name
// is accepted, a different one refused, as mongo-tools refuse it.
func (e *env) uriDatabase(given bool) error {
	cs, err := connstring.Parse(e.uri)
	switch {
	case err != nil:
		// A malformed URI is connecting's error to report.
	case cs.Database == "":
	case given && cs.Database != e.db:
		return fmt.Errorf("--uri names the database %q and --db %q: give one, or the same in both", cs.Database, e.db)
	default:
		e.db = cs.Database
	}
	return nil
}

// dialURI connects to uri (remote.Dial), saying in its error which URI
// failed and how.
func dialURI(ctx context.Context, uri string) (*remote.Conn, error) {
	shown := remote.Redact(uri)
	rc, err := remote.Dial(ctx, uri, "ttlkv "+version)
	var de *remote.DialError
	if errors.As(err, &de) {
		switch de.Op {
		case "options":
			return nil, fmt.Errorf("--uri %s: %w", shown, de.Err)
		case "ping":
			if strings.Contains(de.Err.Error(), "auth error") {
				return nil, fmt.Errorf("cannot authenticate to %s: %w", shown, de.Err)
			}
			return nil, fmt.Errorf("cannot reach the server at %s: %w", shown, de.Err)
		default:
			return nil, fmt.Errorf("%s: %w", shown, de.Err)
		}
	}
	return rc, err
}
