// Package wire serves an engine.DB over MongoDB's wire protocol, so the
// official drivers, mongosh and other MongoDB tools use ttlkv as they
// would a standalone mongod, over TCP, a Unix socket, or, for Go
// programs, an in-process connection with no socket.
//
//	db, _ := engine.Open("./data", engine.Options{})
//	srv := wire.NewServer(db, wire.Options{})
//	l, _ := net.Listen("tcp", "127.0.0.1:27017")
//	go srv.Serve(l)
//	// or, in the same process:
//	client, _ := mongo.Connect(options.Client().
//		ApplyURI("mongodb://ttlkv.local").SetDialer(srv.Dialer()))
//
// The server frames OP_MSG, the legacy OP_QUERY handshake and
// OP_COMPRESSED (Decode, EncodeMsg; FuzzDecode feeds the decoder
// arbitrary bytes), answers the handshake, sessions, authentication and
// killOp itself, records which connection last used each cursor, and
// hands every other command to engine.DB.RunCommand. It claims MongoDB
// 7.0 (wire version 21).
//
// # Sharp edges
//
//   - Close stops the server, not the DB: the caller closes the DB after.
//   - Transactions and retryable-write txnNumbers are refused as a
//     standalone mongod refuses them (20 IllegalOperation).
//   - {j: true} syncs the whole store before the acknowledgement; {w: 0}
//     (moreToCome) is never answered, not even with an error.
//   - With Options.Auth, the in-process dialer authenticates like any
//     client, but counts as local for the first-user exception.
//
// docs/wire.md in the repository describes framing, limits, cursors,
// write concern and access control in full.
package wire
