// Package remote runs MongoDB command documents on a server (ttlkv
// serve or MongoDB itself) through the official Go driver. It is the
// client of the command-line tools' --uri and of the shell's connect()
// and Mongo(): one Conn per connection string, whose RunCommand answers
// as engine.DB.RunCommand does.
package remote

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strings"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/ttlkv/ttlkv/document"
)

// DefaultSelectionTimeout bounds how long Dial waits for an unreachable
// server when the URI does not set serverSelectionTimeoutMS (the
// driver's own default, 30 s, is long for a command line).
const DefaultSelectionTimeout = 5 * time.Second

// Conn runs commands on one server. Commands that may open or follow a
// cursor go in one explicit session, so a getMore or killCursors
// carries the lsid of the command that opened the cursor, as MongoDB
// requires; a driver session is not safe for concurrent use, so those
// commands take turns. Plain writes (import's concurrent insert
// workers) use the driver's implicit sessions and run at once.
type Conn struct {
	client *mongo.Client
	mu     sync.Mutex // serialises the use of sess
	sess   *mongo.Session
	// URI is the connection string without its password.
	URI       string
	closeOnce sync.Once
}

// DialError is an error of Dial: Op says which step failed ("options":
// the URI or its options are not valid; "ping": the server was not
// reached or refused the credentials; "session": no session could be
// started). Err is the driver's error.
type DialError struct {
	Op  string
	Err error
}

func (e *DialError) Error() string { return e.Err.Error() }
func (e *DialError) Unwrap() error { return e.Err }

// cursorless are the commands that never open a cursor.
var cursorless = map[string]bool{"insert": true, "update": true, "delete": true}

// Dial connects to uri and checks that the server answers ping. The
// client names itself appName to the server, unless uri names it
// (appName=...), as mongosh and mongo-tools keep a user's own. Errors
// are *DialError.
func Dial(ctx context.Context, uri, appName string) (*Conn, error) {
	opts := clientOptions(uri, appName)
	if err := opts.Validate(); err != nil {
		return nil, &DialError{"options", err}
	}
	client, err := mongo.Connect(opts)
	if err != nil {
		return nil, &DialError{"options", err}
	}
	if err := client.Ping(ctx, nil); err != nil {
		_ = client.Disconnect(context.Background())
		return nil, &DialError{"ping", err}
	}
	sess, err := client.StartSession()
	if err != nil {
		_ = client.Disconnect(context.Background())
		return nil, &DialError{"session", err}
	}
	return &Conn{client: client, sess: sess, URI: Redact(uri)}, nil
}

// clientOptions are the driver's options Dial connects with: uri's,
// appName when uri names none, and DefaultSelectionTimeout when uri
// sets no serverSelectionTimeoutMS.
func clientOptions(uri, appName string) *options.ClientOptions {
	opts := options.Client().ApplyURI(uri)
	if opts.AppName == nil {
		opts.SetAppName(appName)
	}
	if !strings.Contains(strings.ToLower(uri), "serverselectiontimeoutms") {
		opts.SetServerSelectionTimeout(DefaultSelectionTimeout)
	}
	return opts
}

// RunCommand runs cmd on database db and returns the server's reply.
// A reply with ok: 0, or with writeErrors, comes back whole, as the
// engine gives it; ok: 0 also returns a *document.Error with the
// server's code and message. A network failure returns only the error.
func (r *Conn) RunCommand(ctx context.Context, db string, cmd bson.D) (bson.D, error) {
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
	if document.ReplyOK(reply) {
		return reply, nil // write errors, if any, are in the reply, as from the engine
	}
	msg, _ := document.Get(reply, "errmsg")
	code, _ := document.Lookup(reply, "code")
	de := &document.Error{Code: document.Code(document.Int64(code)), Message: fmt.Sprint(msg)}
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

// Close ends the session and disconnects, waiting at most two seconds.
// Closing again does nothing.
func (r *Conn) Close() error {
	var err error
	r.closeOnce.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		r.sess.EndSession(ctx)
		err = r.client.Disconnect(ctx)
	})
	return err
}

// Redact returns uri without the password of its user information.
func Redact(uri string) string {
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
