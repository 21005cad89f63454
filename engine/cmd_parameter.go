package engine

import (
	"context"
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// cmdSetParameter runs the setParameter command.
func cmdSetParameter(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	reply := bson.D{}
	// Validate every parameter first so an invalid one changes nothing.
	for _, e := range cmd[1:] {
		if isGenericField(e.Key) {
			continue
		}
		if _, err := parseParam(e.Key, e.Value); err != nil {
			return nil, err
		}
	}
	// As mongod: the parameters are set in name order, and the reply
	// holds one "was", the first's old value.
	params := slices.Clone(cmd[1:])
	slices.SortStableFunc(params, func(a, b bson.E) int { return strings.Compare(a.Key, b.Key) })
	n := 0
	for _, e := range params {
		if isGenericField(e.Key) {
			continue
		}
		old, err := db.SetParameter(e.Key, e.Value)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			reply = append(reply, bson.E{Key: "was", Value: old})
		}
		n++
	}
	if n == 0 {
		return nil, document.Errorf(document.CodeInvalidOptions, "no option found to set, use help:true to see options")
	}
	return reply, nil
}

// cmdGetParameter runs the getParameter command.
func cmdGetParameter(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	all, details := false, false
	switch x := cmd[0].Value.(type) {
	case string:
		all = x == "*"
	case bson.D:
		// {getParameter: {allParameters, showDetails}}, as mongod takes it.
		for _, e := range x {
			switch e.Key {
			case "allParameters":
				all = truthy(e.Value)
			case "showDetails":
				details = truthy(e.Value)
			}
		}
	}
	var want []string
	if !all {
		for _, e := range cmd[1:] {
			if !isGenericField(e.Key) {
				want = append(want, e.Key)
			}
		}
	}
	out := paramsDoc(db, all, want)
	for _, w := range want {
		if w == "featureCompatibilityVersion" {
			// A standalone 7.0 at its own version.
			out = append(out, bson.E{Key: w, Value: bson.D{{Key: "version", Value: "7.0"}}})
		}
		if w == "authSchemaVersion" {
			// SCRAM-SHA-256 users (schema 5), the version mongorestore
			// asks for before it restores users.
			out = append(out, bson.E{Key: w, Value: int32(5)})
		}
	}
	if len(out) == 0 {
		// As mongod: unknown names are left out; nothing at all is 72.
		names := strings.Join(want, ", ")
		return nil, document.Errorf(document.CodeInvalidOptions, "no option found to get: %s", names)
	}
	if details {
		for i, e := range out {
			out[i].Value = bson.D{{Key: "value", Value: e.Value}, {Key: "settableAtRuntime", Value: true}, {Key: "settableAtStartup", Value: true}}
		}
	}
	return out, nil
}
