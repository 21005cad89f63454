package wire

import (
	"context"
	"net"
)

// Dialer connects to a Server in the same process with no socket: each
// DialContext returns one end of a net.Pipe whose other end the server
// serves like any connection. It satisfies the official Go driver's
// options.ContextDialer, so
//
//	options.Client().ApplyURI("mongodb://ttlkv.local").SetDialer(srv.Dialer())
//
// gives a mongo.Client over an embedded engine.DB.
type Dialer struct{ srv *Server }

// Dialer returns a dialer for s. The network and address given to
// DialContext are ignored.
func (s *Server) Dialer() *Dialer { return &Dialer{srv: s} }

// DialContext opens an in-process connection to the server. It fails
// with ErrServerClosed after Close.
func (d *Dialer) DialContext(ctx context.Context, network, address string) (net.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	d.srv.mu.Lock()
	closed := d.srv.closed
	d.srv.mu.Unlock()
	if closed {
		return nil, ErrServerClosed
	}
	client, server := net.Pipe()
	d.srv.serveConn(pipeConn{server})
	return client, nil
}

// pipeConn names the in-process end for logs.
type pipeConn struct{ net.Conn }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "in-process" }

func (p pipeConn) RemoteAddr() net.Addr { return pipeAddr{} }
