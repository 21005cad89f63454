package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/ttlkv/ttlkv/document"
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
	remote *remoteConn
}

// where describes the session for messages and db.getMongo(): the data
// directory's absolute path, or the URI without its password.
func (s *session) where() string {
	if s.remote != nil {
		return s.remote.uri
	}
	dir, err := filepath.Abs(s.db.Dir())
	if err != nil {
		dir = s.db.Dir()
	}
	return dir
}

// connection describes the session as mongosh prints its connection
// string (db.getMongo()).
func (s *session) connection() string {
	if s.remote != nil {
		return s.remote.uri
	}
	return fmt.Sprintf("ttlkv://%s (embedded engine, ttlkv %s)", s.where(), version)
}

// defaultSelectionTimeout bounds how long --uri waits for an unreachable
// server when the URI does not set serverSelectionTimeoutMS (the
// driver's own default, 30 s, is long for a command line).
const defaultSelectionTimeout = 5 * time.Second

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
	s.remote.close()
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

// remoteConn runs commands on a MongoDB server (ttlkv serve or MongoDB
// itself) through the official driver. Commands that may open or follow
// a cursor go in one explicit session, so a getMore or killCursors
// carries the lsid of the command that opened the cursor, as MongoDB
// requires; a driver session is not safe for concurrent use, so those
// commands take turns. Plain writes (import's concurrent insert
// workers) use the driver's implicit sessions and run at once.
type remoteConn struct {
	client *mongo.Client
	mu     sync.Mutex // serialises the use of sess
	sess   *mongo.Session
	uri    string // redacted: no password
}

// cursorless are the commands that never open a cursor.
var cursorless = map[string]bool{"insert": true, "update": true, "delete": true}

// dialURI connects to uri and checks that the server answers ping.
func dialURI(ctx context.Context, uri string) (*remoteConn, error) {
	shown := redactURI(uri)
	opts := options.Client().ApplyURI(uri).SetAppName("ttlkv " + version)
	if !strings.Contains(strings.ToLower(uri), "serverselectiontimeoutms") {
		opts.SetServerSelectionTimeout(defaultSelectionTimeout)
	}
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("--uri %s: %w", shown, err)
	}
	client, err := mongo.Connect(opts)
	if err != nil {
		return nil, fmt.Errorf("--uri %s: %w", shown, err)
	}
	if err := client.Ping(ctx, nil); err != nil {
		_ = client.Disconnect(context.Background())
		if strings.Contains(err.Error(), "auth error") {
			return nil, fmt.Errorf("cannot authenticate to %s: %v", shown, err)
		}
		return nil, fmt.Errorf("cannot reach the server at %s: %v", shown, err)
	}
	sess, err := client.StartSession()
	if err != nil {
		_ = client.Disconnect(context.Background())
		return nil, fmt.Errorf("%s: %w", shown, err)
	}
	return &remoteConn{client: client, sess: sess, uri: shown}, nil
}

// RunCommand runs cmd on database db and returns the server's reply.
// A reply with ok: 0, or with writeErrors, comes back whole, as the
// engine gives it; ok: 0 also returns a *document.Error with the
// server's code and message. A network failure returns only the error.
func (r *remoteConn) RunCommand(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
	var res *mongo.SingleResult
	if len(cmd) > 0 && cursorless[cmd[0].Key] {
		res = r.client.Database(db).RunCommand(ctx, cmd)
	} else {
		r.mu.Lock()
		res = r.client.Database(db).RunCommand(mongo.NewSessionContext(ctx, r.sess), cmd)
		r.mu.Unlock()
	}
	raw, err := res.Raw()
	if len(raw) == 0 {
		var ce mongo.CommandError
		var we mongo.WriteException
		switch {
		case errors.As(err, &ce):
			raw = ce.Raw
		case errors.As(err, &we):
			raw = we.Raw
		}
	}
	if len(raw) == 0 {
		if err == nil {
			err = errors.New("empty reply from the server")
		}
		return nil, err
	}
	var reply bson.D
	if uerr := bson.Unmarshal(raw, &reply); uerr != nil {
		return nil, fmt.Errorf("reply from the server: %w", uerr)
	}
	if replyOK(reply) {
		return reply, nil // write errors, if any, are in the reply, as from the engine
	}
	msg, _ := document.Get(reply, "errmsg")
	de := &document.Error{Code: document.Code(num(reply, "code")), Message: fmt.Sprint(msg)}
	for _, k := range []string{"keyPattern", "keyValue", "errInfo"} {
		if v, ok := document.Get(reply, k); ok {
			if de.Info == nil {
				de.Info = map[string]any{}
			}
			de.Info[k] = v
		}
	}
	return reply, de
}

func (r *remoteConn) close() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	r.sess.EndSession(ctx)
	_ = r.client.Disconnect(ctx)
}

// redactURI returns uri without the password of its user information.
func redactURI(uri string) string {
	u, err := url.Parse(uri)
	if err != nil || u.User == nil {
		if i := strings.Index(uri, "@"); i >= 0 && strings.Contains(uri[:i], "://") {
			return uri[:strings.Index(uri, "://")+3] + "***@" + uri[i+1:]
		}
		return uri
	}
	if _, has := u.User.Password(); has {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}
