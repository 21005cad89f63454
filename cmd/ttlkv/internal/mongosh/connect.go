package mongosh

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"regexp"
	"strings"
	"syscall"
	"time"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/ttlkv/ttlkv/document"
)

// The connections a script opens: mongosh's connect(uri), new Mongo(uri)
// and Mongo(uri) (docs/shell.md, "Connections"). Each is a *Shell view
// of the same runtime with a Runner of its own, made by Options.Dial;
// its databases, collections and cursors send their commands there, and
// Close closes it when the shell ends.

// defaultMongoURI is what mongosh's Mongo() connects to without a
// connection string.
const defaultMongoURI = "mongodb://localhost/"

// mongoshURI makes of spec the connection string mongosh's connect()
// and Mongo() connect with (its arg-parser's generateUri): a
// mongodb:// string gets directConnection=true when it names one host
// and no replica set, and serverSelectionTimeoutMS=2000 when its hosts
// are all localhost or 127.0.0.1 (mongosh's own defaults, so that a
// server that is not there is reported in two seconds); a mongodb+srv://
// string is taken as it is; anything else is the legacy shell's
// shorthand "host[:port][/db]" or "db" on 127.0.0.1:27017. A string that
// is none of these is mongosh's "Invalid URI" (a *invalidURI).
func mongoshURI(spec string) (string, error) {
	switch {
	case strings.HasPrefix(spec, "mongodb+srv://"):
		return spec, nil
	case strings.HasPrefix(spec, "mongodb://"):
		return addShellParams(spec), nil
	case spec == "":
		return addShellParams("mongodb://127.0.0.1:27017/"), nil
	}
	var host, port, db string
	if m := shorthandURI.FindStringSubmatch(spec); m != nil {
		host, port, db = m[1], m[2], m[3]
	} else if strings.ContainsAny(spec, "/\\. \"$") {
		return "", invalidURI(spec)
	} else {
		host = spec
	}
	// No port and no database: a name without a dot is a database on
	// the default host (the legacy shell's rule).
	if port == "" && db == "" && !strings.Contains(host, ".") {
		host, db = "", host
	}
	if host == "" {
		host = "127.0.0.1"
	}
	if port == "" {
		port = "27017"
	}
	return addShellParams("mongodb://" + host + ":" + port + "/" + encodeURIComponent(db)), nil
}

var shorthandURI = regexp.MustCompile(`^([A-Za-z0-9][A-Za-z0-9._-]+)(?::(\d+))?(?:/(\S*))?$`)

// ConnectionURI is uri as mongosh connects with it: a mongodb:// string
// with directConnection=true for one host and serverSelectionTimeoutMS=2000
// for localhost added (see mongoshURI); any other string as it is.
func ConnectionURI(uri string) string {
	if strings.HasPrefix(uri, "mongodb://") {
		return addShellParams(uri)
	}
	return uri
}

// ShellURI is the connection string the shell shows for its own
// connection to uri (db.getMongo()), in the shape mongosh gives the one
// it connects with: a mongodb:// string gets directConnection=true and
// serverSelectionTimeoutMS=2000 as connect() adds them (mongoshURI),
// then appName=APP unless it names one ("mongodb://127.0.0.1:27017/?
// directConnection=true&serverSelectionTimeoutMS=2000&appName=ttlkv+0.1.0"),
// and its user information is shown as "<credentials>".
func ShellURI(uri, appName string) string {
	if strings.HasPrefix(uri, "mongodb://") {
		uri = addShellParams(uri)
	}
	if _, query, _ := strings.Cut(uri, "?"); !hasParam(query, "appname") {
		sep := "?"
		if strings.Contains(uri, "?") {
			sep = "&"
		}
		uri += sep + "appName=" + url.QueryEscape(appName)
	}
	return redactURI(uri)
}

// hasParam tells whether the query part of a connection string has the
// parameter key (lower case), in any case.
func hasParam(query, key string) bool {
	if query == "" {
		return false
	}
	for _, kv := range strings.Split(query, "&") {
		k, _, _ := strings.Cut(kv, "=")
		if strings.ToLower(k) == key {
			return true
		}
	}
	return false
}

// invalidURI is mongosh's refusal of a string it cannot make a
// connection string of.
type invalidURI string

func (e invalidURI) Error() string { return "Invalid URI: " + string(e) }

// addShellParams adds mongosh's directConnection and
// serverSelectionTimeoutMS parameters to a mongodb:// string (see
// mongoshURI), which it writes with "/" after the hosts, as mongosh's
// connection-string parser does.
func addShellParams(uri string) string {
	rest := strings.TrimPrefix(uri, "mongodb://")
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if !strings.HasPrefix(tail, "/") {
		tail = "/" + tail
	}
	path, query, _ := strings.Cut(tail, "?")
	hostList := authority
	if i := strings.LastIndexByte(hostList, '@'); i >= 0 {
		hostList = hostList[i+1:]
	}
	hosts := strings.Split(hostList, ",")
	var add []string
	if len(hosts) == 1 && !hasParam(query, "replicaset") && !hasParam(query, "directconnection") && !hasParam(query, "loadbalanced") {
		add = append(add, "directConnection=true")
	}
	local := true
	for _, h := range hosts {
		name, _, _ := strings.Cut(h, ":")
		local = local && (name == "localhost" || name == "127.0.0.1")
	}
	if local && !hasParam(query, "serverselectiontimeoutms") {
		add = append(add, "serverSelectionTimeoutMS=2000")
	}
	if len(add) > 0 {
		if query != "" {
			query += "&"
		}
		query += strings.Join(add, "&")
	}
	out := "mongodb://" + authority + path
	if query != "" {
		out += "?" + query
	}
	return out
}

// encodeURIComponent is JavaScript's: every byte but the letters,
// digits and -_.!~*'() percent-encoded.
func encodeURIComponent(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || strings.IndexByte("-_.!~*'()", c) >= 0 {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// withUser puts user and pwd (connect's second and third arguments) in
// uri's user information, in place of any it had.
func withUser(uri, user, pwd string) string {
	scheme, rest, _ := strings.Cut(uri, "://")
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	if i := strings.LastIndexByte(rest[:end], '@'); i >= 0 {
		rest = rest[i+1:]
	}
	return scheme + "://" + url.UserPassword(user, pwd).String() + "@" + rest
}

// openConnection connects to spec (a connection string, or mongosh's
// shorthand) with user and pwd when given, as mongosh's connect() and
// Mongo() do, and returns the new connection. Failures throw mongosh's
// errors: its own for a string it cannot use, the driver's for the
// rest.
func (s *Shell) openConnection(spec, user, pwd string) *Shell {
	if s.dial == nil {
		panic(s.mongoshError("MongoshUnimplementedError", "COMMON-90002", "new Mongo connections are not supported for current platform: ttlkv"))
	}
	uri, err := mongoshURI(spec)
	if err != nil {
		panic(s.invalidInput(err.Error()))
	}
	if user != "" || pwd != "" {
		uri = withUser(uri, user, pwd)
	}
	if _, err := connstring.ParseAndValidate(uri); err != nil {
		s.throwNamed("MongoParseError", strings.TrimPrefix(err.Error(), "error parsing uri: "))
	}
	r, err := s.dial(s.ctx, uri)
	if err != nil {
		if s.ctx.Err() != nil {
			panic(s.ctx.Err()) // the run was stopped: Eval says so
		}
		s.throwDial(err, uri)
	}
	c := &Shell{
		core:     s.core,
		run:      r,
		colls:    map[string]*goja.Object{},
		dbs:      map[string]*goja.Object{},
		connDesc: redactURI(uri),
		uri:      uri,
		byScript: true,
	}
	if cl, ok := r.(io.Closer); ok {
		c.closer = cl
	}
	s.opened = append(s.opened, c)
	return c
}

// reuse returns a connection of its own on s's Runner, for new
// Mongo(m) of a connection that has no connection string to open again
// (the embedded engine's). Closing it closes nothing.
func (s *Shell) reuse() *Shell {
	return &Shell{core: s.core, run: s.run, colls: map[string]*goja.Object{}, dbs: map[string]*goja.Object{}, connDesc: s.connDesc}
}

// redactURI is uri as mongosh prints a connection string: its user
// information, if any, replaced by "<credentials>".
func redactURI(uri string) string {
	scheme, rest, ok := strings.Cut(uri, "://")
	if !ok {
		return uri
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	at := strings.LastIndexByte(rest[:end], '@')
	if at < 0 {
		return uri
	}
	return scheme + "://<credentials>" + rest[at:]
}

// throwDial throws the error the Node driver under mongosh gives for a
// connection that failed (DialError), or a MongoError with the driver's
// words for one it does not know.
func (s *Shell) throwDial(err error, uri string) {
	se := DialError(err, uri)
	if se == nil {
		s.throwNamed("MongoError", err.Error())
	}
	if se.Code != 0 {
		s.throwCoded(se.Name, se.Message, se.Code, se.CodeName, nil)
	}
	s.throwNamed(se.Name, se.Message)
}

// DialError is the error mongosh prints when it cannot connect to uri,
// for err from the Go driver: a server that cannot be reached is a
// MongoNetworkError saying why ("connect ECONNREFUSED 127.0.0.1:1",
// "getaddrinfo ENOTFOUND host"), or a MongoServerSelectionError when no
// server answered in time (in the time uri gives); credentials the
// server refuses are its MongoServerError ("Authentication failed.").
// It is nil for an error it does not know.
func DialError(err error, uri string) *ScriptError {
	var de driver.Error
	if errors.As(err, &de) && de.Code != 0 {
		name := de.Name
		if name == "" {
			name = document.Code(de.Code).String()
		}
		return &ScriptError{Name: "MongoServerError", Message: de.Message, Code: de.Code, CodeName: name}
	}
	var sse topology.ServerSelectionError
	if errors.As(err, &sse) {
		for _, srv := range sse.Desc.Servers {
			if srv.LastError == nil {
				continue
			}
			if msg := networkMessage(srv.LastError, srv.Addr.String()); msg != "" {
				return &ScriptError{Name: "MongoNetworkError", Message: msg}
			}
		}
		msg := "Server selection timed out"
		if cs, perr := connstring.Parse(uri); perr == nil && cs.ServerSelectionTimeoutSet {
			msg += fmt.Sprintf(" after %d ms", cs.ServerSelectionTimeout.Milliseconds())
		}
		return &ScriptError{Name: "MongoServerSelectionError", Message: msg}
	}
	if msg := networkMessage(err, ""); msg != "" {
		return &ScriptError{Name: "MongoNetworkError", Message: msg}
	}
	return nil
}

// Unreachable checks, before the Go driver waits for a server, whether
// the one host of a mongodb:// uri refuses connections or has no
// address, which the Node driver under mongosh finds at once where the
// Go driver waits until its server selection timeout. It returns the
// network error (DialError words it as mongosh does), nil when the host
// answers, uri names several hosts, or the check cannot tell.
func Unreachable(ctx context.Context, uri string) error {
	cs, err := connstring.Parse(uri)
	if err != nil || cs.Scheme != connstring.SchemeMongoDB || len(cs.Hosts) != 1 || cs.LoadBalanced {
		return nil
	}
	host := cs.Hosts[0]
	if strings.HasSuffix(host, ".sock") || strings.HasPrefix(host, "/") {
		return nil
	}
	if _, _, err := net.SplitHostPort(host); err != nil {
		host = net.JoinHostPort(host, "27017")
	}
	c, err := (&net.Dialer{Timeout: 2 * time.Second}).DialContext(ctx, "tcp", host)
	if err != nil {
		if networkMessage(err, host) != "" {
			return err
		}
		return nil
	}
	_ = c.Close()
	return nil
}

// networkMessage words a failure to reach addr as Node does ("connect
// ECONNREFUSED host:port", "getaddrinfo ENOTFOUND host"), or gives ""
// when err is not one it knows.
func networkMessage(err error, addr string) string {
	var dns *net.DNSError
	switch {
	case errors.As(err, &dns) && dns.IsNotFound:
		return "getaddrinfo ENOTFOUND " + dns.Name
	case errors.Is(err, syscall.ECONNREFUSED):
		var oe *net.OpError
		if errors.As(err, &oe) && oe.Addr != nil {
			addr = oe.Addr.String()
		}
		return "connect ECONNREFUSED " + addr
	case errors.Is(err, syscall.ECONNRESET):
		return "read ECONNRESET"
	case errors.Is(err, syscall.EHOSTUNREACH):
		return "connect EHOSTUNREACH " + addr
	case errors.Is(err, syscall.ENETUNREACH):
		return "connect ENETUNREACH " + addr
	}
	return ""
}

// closeConn is Mongo.close(): the connection's commands fail from now
// on, and a connection a script opened is closed. Closing one that is
// closed warns as mongosh does.
func (s *Shell) closeConn() {
	if s.closed {
		fmt.Fprintf(s.errw, "MongoshInternalError: [COMMON-90001] Closing untracked Mongo instance %s\n", s.connDesc)
		return
	}
	s.closed = true
	for i, c := range s.opened {
		if c == s {
			s.opened = append(s.opened[:i], s.opened[i+1:]...)
			break
		}
	}
	if s.closer != nil {
		if err := s.closer.Close(); err != nil {
			s.throwNamed("MongoError", err.Error())
		}
	}
}

// checkOpen throws the driver's error for a command on a closed
// connection.
func (s *Shell) checkOpen() {
	if s.closed {
		s.throwNamed("MongoNotConnectedError", "Client must be connected before running operations")
	}
}

// Close closes the connections the scripts opened and did not close.
// The shell's own Runner is its owner's to close. Call it when the
// shell is done; the shell must not be used after.
func (s *Shell) Close() error {
	var errs []error
	for _, c := range s.opened {
		c.closed = true
		if c.closer != nil {
			errs = append(errs, c.closer.Close())
		}
	}
	s.opened = nil
	return errors.Join(errs...)
}

// installConnect defines connect and Mongo.
func (s *Shell) installConnect() {
	rt := s.rt
	optString := func(a goja.Value, i int, fn string) string {
		if goja.IsUndefined(a) {
			return ""
		}
		s.checkArg(a, "string", i, fn)
		return a.String()
	}
	// connect(uri, user, pwd): the database the connection string names
	// ("test" if none) on a new connection.
	_ = rt.Set("connect", func(c goja.FunctionCall) goja.Value {
		s.checkArg(c.Argument(0), "string", 0, "connect")
		user := optString(c.Argument(1), 1, "connect")
		pwd := optString(c.Argument(2), 2, "connect")
		conn := s.openConnection(c.Argument(0).String(), user, pwd)
		db := "test"
		if cs, err := connstring.Parse(conn.uri); err == nil && cs.Database != "" {
			db = cs.Database
		}
		return conn.database(db)
	})
	// Mongo(uri) and new Mongo(uri): a new connection. A Mongo object
	// stands for its connection string; anything else but a string for
	// mongosh's default, localhost.
	mongo := func(c goja.FunctionCall) *goja.Object {
		if fle := c.Argument(1); !goja.IsUndefined(fle) && !goja.IsNull(fle) {
			panic(s.mongoshError("MongoshUnimplementedError", "COMMON-90002", "client-side field level encryption is not supported by ttlkv"))
		}
		spec := defaultMongoURI
		switch a := c.Argument(0); {
		case goja.IsString(a):
			spec = a.String()
		case s.mongoConn(a) != nil:
			m := s.mongoConn(a)
			if m.uri == "" {
				return m.reuse().mongo()
			}
			spec = m.uri
		}
		return s.openConnection(spec, "", "").mongo()
	}
	_ = rt.Set("__mongo", func(c goja.FunctionCall) goja.Value { return mongo(c) })
	// A function of JavaScript, so that it is called with new or
	// without, as mongosh allows, and prints as [Function: Mongo].
	if _, err := rt.RunString(`function Mongo(uri, fleOptions, otherOptions) { return __mongo(uri, fleOptions, otherOptions); }`); err != nil {
		panic(err)
	}
}

// mongoConn returns the connection of v when v is a Mongo object.
func (s *Shell) mongoConn(v goja.Value) *Shell {
	if o, ok := v.(*goja.Object); ok {
		return s.mongos[o]
	}
	return nil
}
