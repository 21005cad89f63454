package engine

import (
	"context"

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
	n := 0
	for _, e := range cmd[1:] {
		if isGenericField(e.Key) {
			continue
		}
		old, err := db.SetParameter(e.Key, e.Value)
		if err != nil {
			return nil, err
		}
		reply = append(reply, bson.E{Key: "was", Value: old})
		n++
	}
	if n == 0 {
		return nil, document.Errorf(document.CodeInvalidOptions, "no option found to set, use help:true to see options")
	}
	return reply, nil
}

// cmdGetParameter runs the getParameter command.
func cmdGetParameter(_ context.Context, db *DB, dbName string, cmd bson.D) (bson.D, error) {
	if s, ok := cmd[0].Value.(string); ok && s == "*" {
		return paramsDoc(db, true, nil), nil
	}
	var want []string
	for _, e := range cmd[1:] {
		if !isGenericField(e.Key) {
			want = append(want, e.Key)
		}
	}
	for _, w := range want {
		if _, err := db.GetParameter(w); err != nil {
			return nil, err
		}
	}
	if len(want) == 0 {
		return nil, document.Errorf(document.CodeInvalidOptions, "no option found to get")
	}
	return paramsDoc(db, false, want), nil
}
