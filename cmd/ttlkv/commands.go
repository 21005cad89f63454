package main

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// do runs one command and turns a reply with ok: 0 into an error (a
// *document.Error when the engine gave one).
func do(ctx context.Context, db conn, dbName string, cmd bson.D) (bson.D, error) {
	reply, err := db.RunCommand(ctx, dbName, cmd)
	if err != nil {
		return reply, err
	}
	if !document.ReplyOK(reply) {
		msg, _ := document.Get(reply, "errmsg")
		return reply, fmt.Errorf("%v", msg)
	}
	return reply, nil
}

// drain runs a cursor command and follows it with getMore, calling f for
// every document; it stops early if f returns false.
func drain(ctx context.Context, db conn, dbName, coll string, cmd bson.D, f func(bson.D) bool) error {
	reply, err := do(ctx, db, dbName, cmd)
	if err != nil {
		return err
	}
	batchKey := "firstBatch"
	for {
		cur, _ := document.Get(reply, "cursor")
		cd, _ := cur.(bson.D)
		batch, _ := document.Get(cd, batchKey)
		arr, _ := batch.(bson.A)
		for _, x := range arr {
			d, _ := x.(bson.D)
			if !f(d) {
				id := cursorIDOf(cd)
				if id != 0 {
					_, _ = db.RunCommand(ctx, dbName, bson.D{{Key: "killCursors", Value: coll}, {Key: "cursors", Value: bson.A{id}}})
				}
				return nil
			}
		}
		id := cursorIDOf(cd)
		if id == 0 {
			return nil
		}
		if ns, ok := document.Get(cd, "ns"); ok && batchKey == "firstBatch" {
			// getMore names the cursor's namespace: for listCollections
			// and listIndexes MongoDB wants "$cmd.listCollections" and
			// the like, not "".
			if s, _ := ns.(string); strings.Contains(s, ".") {
				coll = s[strings.Index(s, ".")+1:]
			}
		}
		batchKey = "nextBatch"
		if reply, err = do(ctx, db, dbName, bson.D{{Key: "getMore", Value: id}, {Key: "collection", Value: coll}}); err != nil {
			return err
		}
	}
}

func cursorIDOf(cd bson.D) int64 {
	v, _ := document.Get(cd, "id")
	switch n := v.(type) {
	case int64:
		return n
	case int32:
		return int64(n)
	}
	return 0
}

// collections lists every (database, collection) pair, in order, with
// each collection's listCollections entry.
func collections(ctx context.Context, db conn) ([][2]string, map[string]bson.D, error) {
	reply, err := do(ctx, db, "admin", bson.D{{Key: "listDatabases", Value: 1}, {Key: "nameOnly", Value: true}})
	if err != nil {
		return nil, nil, err
	}
	dbsV, _ := document.Get(reply, "databases")
	dbs, _ := dbsV.(bson.A)
	var out [][2]string
	infos := map[string]bson.D{}
	for _, x := range dbs {
		xd, _ := x.(bson.D)
		nameV, _ := document.Get(xd, "name")
		name, _ := nameV.(string)
		err := drain(ctx, db, name, "", bson.D{{Key: "listCollections", Value: 1}}, func(c bson.D) bool {
			n, _ := document.Get(c, "name")
			cn, _ := n.(string)
			if strings.HasPrefix(cn, "system.buckets.") || cn == "system.views" || (name == "admin" && cn == "system.version") {
				// Listed as mongod 7.0 lists them; the time-series
				// entry stands for its buckets, the views' entries
				// for their definitions in system.views, and
				// admin.system.version holds nothing of the user's
				// (the engine shows it, docs/commands.md).
				return true
			}
			out = append(out, [2]string{name, cn})
			infos[name+"."+cn] = c
			return true
		})
		if err != nil {
			return nil, nil, err
		}
	}
	return out, infos, nil
}

// num reads a numeric reply field as int64.
func num(d bson.D, path string) int64 {
	v, _ := document.Lookup(d, path)
	return document.Int64(v)
}

// codeOf returns the MongoDB code of err (0 if none).
func codeOf(err error) document.Code {
	var de *document.Error
	if errors.As(err, &de) {
		return de.Code
	}
	return 0
}

// humanBytes renders a byte count with binary units.
func humanBytes(n int64) string {
	f := float64(n)
	units := []string{"B", "KiB", "MiB", "GiB", "TiB"}
	i := 0
	for f >= 1024 && i < len(units)-1 {
		f /= 1024
		i++
	}
	if i == 0 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f %s", f, units[i])
}
