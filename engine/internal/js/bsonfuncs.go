package js

import (
	"bytes"
	"encoding/hex"
	"errors"

	"github.com/dop251/goja"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// mongod installs the free functions of its BSON type (bsonWoCompare,
// bsonUnorderedFieldsCompare, bsonBinaryEqual, bsonObjToArray) and the
// constructors MD5, Code, DBRef and DBPointer in every server-side
// scope; the shell's assert.lt and its kin compare two values that are
// not numbers or strings (two Timestamps) with bsonWoCompare. Their
// refusals are 2 BadValue errors a script may catch, as hex_md5's.

// argBSON converts a function argument to BSON, throwing a conversion's
// refusal as mongod's status.
func (v *vm) argBSON(val goja.Value) any {
	x, err := v.toBSON(val, nil, 0)
	if err != nil {
		var de *document.Error
		if errors.As(err, &de) {
			v.throwStatus(de.Code, de.Message)
		}
		panic(err)
	}
	return x
}

// compareArgs compares the two arguments of a bsonWoCompare or a
// bsonUnorderedFieldsCompare as mongod does: each wrapped as the value
// of a field, so any two values compare in BSON order (field names
// count inside documents; unordered, documents' fields are taken by
// name at every depth). Both are needed; mongod names bsonWoCompare in
// the refusal of either function.
func (v *vm) compareArgs(call goja.FunctionCall, unordered bool) goja.Value {
	if len(call.Arguments) != 2 {
		v.throwStatus(document.CodeBadValue, "bsonWoCompare needs 2 arguments")
	}
	a, b := v.argBSON(call.Arguments[0]), v.argBSON(call.Arguments[1])
	if unordered {
		a, b = document.SortFields(a), document.SortFields(b)
	}
	return v.rt.ToValue(int64(document.Compare(a, b)))
}

// bsonWoCompare is mongod's bsonWoCompare(a, b): -1, 0 or 1 as a sorts
// before, with or after b in BSON order, documents field by field in
// their order.
func (v *vm) bsonWoCompare(call goja.FunctionCall) goja.Value { return v.compareArgs(call, false) }

// bsonUnorderedFieldsCompare is bsonWoCompare regardless of the order
// of documents' fields.
func (v *vm) bsonUnorderedFieldsCompare(call goja.FunctionCall) goja.Value {
	return v.compareArgs(call, true)
}

// bsonBinaryEqual is mongod's bsonBinaryEqual(a, b): whether the two
// values have the same BSON bytes, so types and field order count (1
// and NumberInt(1) differ).
func (v *vm) bsonBinaryEqual(call goja.FunctionCall) goja.Value {
	if len(call.Arguments) != 2 {
		v.throwStatus(document.CodeBadValue, "bsonBinaryEqual needs 2 arguments")
	}
	enc := func(val goja.Value) []byte {
		b, err := bson.Marshal(bson.D{{Key: "a", Value: v.argBSON(val)}})
		if err != nil {
			v.throwStatus(document.CodeBadValue, err.Error())
		}
		return b
	}
	return v.rt.ToValue(bytes.Equal(enc(call.Arguments[0]), enc(call.Arguments[1])))
}

// bsonObjToArray is mongod's bsonObjToArray(obj): the values of an
// object's fields, in order, as an array (an array's own elements).
func (v *vm) bsonObjToArray(call goja.FunctionCall) goja.Value {
	if len(call.Arguments) != 1 {
		v.throwStatus(document.CodeBadValue, "bsonObjToArray needs 1 argument")
	}
	if _, ok := call.Arguments[0].(*goja.Object); !ok {
		v.throwStatus(document.CodeBadValue, "argument must be an object")
	}
	var items []any
	switch x := v.argBSON(call.Arguments[0]).(type) {
	case bson.D:
		for _, e := range x {
			items = append(items, v.toJS(e.Value))
		}
	case bson.A:
		for _, e := range x {
			items = append(items, v.toJS(e))
		}
	default:
		// A boxed BSON value (an ObjectId, a Timestamp) is an object
		// with no fields of its own to BSON.
	}
	return v.rt.NewArray(items...)
}

// md5Value is mongod's MD5(hex): BinData of subtype 5 from 32 hex
// digits.
func (v *vm) md5Value(call goja.FunctionCall) any {
	if len(call.Arguments) != 1 {
		v.throwStatus(document.CodeBadValue, "MD5 needs 1 argument")
	}
	s := call.Arguments[0].String()
	if len(s) != 32 {
		v.throwStatus(document.CodeBadValue, "MD5 string must have 32 characters")
	}
	data, err := hex.DecodeString(s)
	if err != nil {
		v.throwStatus(document.CodeBadValue, "invalid hex string: "+s)
	}
	return bson.Binary{Subtype: 5, Data: data}
}

// codeValue is mongod's Code(code, scope): an object of the Code
// prototype with its code (empty without arguments) and, given, its
// scope, which converts to BSON JavaScript (with its scope, code with
// scope).
func (v *vm) codeValue(call goja.FunctionCall) any {
	args := call.Arguments
	if len(args) > 2 {
		v.throwStatus(document.CodeBadValue, "Code needs 0, 1 or 2 arguments")
	}
	o := v.rt.NewObject()
	_ = o.SetPrototype(v.protos["code"])
	if len(args) == 0 {
		_ = o.Set("code", "")
		return o
	}
	if !goja.IsString(args[0]) {
		v.throwStatus(document.CodeBadValue, "code must be a string")
	}
	_ = o.Set("code", args[0])
	if len(args) == 2 {
		if _, ok := args[1].(*goja.Object); !ok {
			v.throwStatus(document.CodeBadValue, "scope must be an object")
		}
		_ = o.Set("scope", args[1])
	}
	return o
}

// dbRefValue is mongod's DBRef(ns, id, db): an object {$ref, $id, $db}
// of the DBRef prototype, which converts to that document.
func (v *vm) dbRefValue(call goja.FunctionCall) any {
	args := call.Arguments
	if len(args) != 2 && len(args) != 3 {
		v.throwStatus(document.CodeBadValue, "DBRef needs 2 or 3 arguments")
	}
	if !goja.IsString(args[0]) {
		v.throwStatus(document.CodeBadValue, "DBRef 1st parameter must be a string")
	}
	o := v.rt.NewObject()
	_ = o.SetPrototype(v.protos["dbref"])
	_ = o.Set("$ref", args[0])
	_ = o.Set("$id", args[1])
	if len(args) == 3 {
		if !goja.IsString(args[2]) {
			v.throwStatus(document.CodeBadValue, "DBRef 3rd parameter must be a string")
		}
		_ = o.Set("$db", args[2])
	}
	return o
}

// dbPointerValue is mongod's DBPointer(ns, oid): an object {ns, id} of
// the DBPointer prototype, which converts to a BSON DBPointer.
func (v *vm) dbPointerValue(call goja.FunctionCall) any {
	args := call.Arguments
	if len(args) != 2 {
		v.throwStatus(document.CodeBadValue, "DBPointer needs 2 arguments")
	}
	if !goja.IsString(args[0]) {
		v.throwStatus(document.CodeBadValue, "DBPointer 1st parameter must be a string")
	}
	if b, ok := unbox(args[1]); !ok || b.kind != "oid" {
		v.throwStatus(document.CodeBadValue, "DBPointer 2nd parameter must be an ObjectId")
	}
	o := v.rt.NewObject()
	_ = o.SetPrototype(v.protos["dbpointer"])
	_ = o.Set("ns", args[0])
	_ = o.Set("id", args[1])
	return o
}

// fromTypedObject converts an object made by Code or DBPointer to its
// BSON value; ok is false for any other object.
func (v *vm) fromTypedObject(o *goja.Object, depth int) (x any, ok bool, err error) {
	switch o.Prototype() {
	case v.protos["code"]:
		code := o.Get("code").String()
		s := o.Get("scope")
		if s == nil || goja.IsUndefined(s) || goja.IsNull(s) {
			return bson.JavaScript(code), true, nil
		}
		scope, err := v.toBSON(s, nil, depth+1)
		if err != nil {
			return nil, true, err
		}
		d, isDoc := scope.(bson.D)
		if !isDoc {
			d = bson.D{}
		}
		return bson.CodeWithScope{Code: bson.JavaScript(code), Scope: d}, true, nil
	case v.protos["dbpointer"]:
		b, isOID := unbox(o.Get("id"))
		if !isOID || b.kind != "oid" {
			return nil, true, document.Errorf(document.CodeBadValue, "DBPointer id must be an ObjectId")
		}
		return bson.DBPointer{DB: o.Get("ns").String(), Pointer: b.val.(bson.ObjectID)}, true, nil
	}
	return nil, false, nil
}
