package mongosh

import (
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/doc"
)

// optionalCommand runs a command the engine may not implement
// (aggregate). When the engine answers 59
// CommandNotFound it throws a MongoServerError with the same code and
// codeName whose message names the shell method and what to use
// instead; any other failure is thrown as by command.
func (s *Shell) optionalCommand(db string, cmd bson.D, method, instead string) bson.D {
	reply, err := s.run.RunCommand(s.ctx, db, cmd)
	if err == nil && replyOK(reply) {
		return reply
	}
	if replyCode(reply, err) == doc.CodeCommandNotFound {
		msg := fmt.Sprintf("%s is not supported: the ttlkv engine has no %q command; %s", method, cmd[0].Key, instead)
		s.throwCoded("MongoServerError", msg, int32(doc.CodeCommandNotFound), doc.CodeCommandNotFound.String(), nil)
	}
	s.throwServer("MongoServerError", reply, err)
	return nil
}

// replyCode returns the MongoDB code of a failed command, from the error
// or from the reply's code field.
func replyCode(reply bson.D, err error) doc.Code {
	var de *doc.Error
	if errors.As(err, &de) {
		return de.Code
	}
	if v, ok := doc.Get(reply, "code"); ok {
		return doc.Code(toInt32(v))
	}
	return 0
}
