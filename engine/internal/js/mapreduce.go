package js

import (
	"context"

	"github.com/dop251/goja"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// DefaultMaxEmitBytes bounds what one call of a mapReduce map function
// may emit, in BSON bytes: mongod's internalQueryMaxJsEmitBytes.
const DefaultMaxEmitBytes = 100 << 20

var maxEmitBytes = setting{def: DefaultMaxEmitBytes}

// SetMaxEmitBytes sets what one map call may emit (DefaultMaxEmitBytes
// until set; n <= 0 restores it) and returns the previous value.
func SetMaxEmitBytes(n int64) int64 {
	return maxEmitBytes.set(n)
}

// Emit is one emit(key, value) of a map function.
type Emit struct {
	Key, Value any
}

// Map calls the function as mapReduce's map: doc is this, scope's
// fields are global variables, and emit(key, value) is a global function
// whose calls it returns in order. An undefined key is null, as in
// mongod; emit with other than two arguments fails the call (31220).
func (f *Func) Map(ctx context.Context, doc bson.D, scope bson.D) ([]Emit, error) {
	var out []Emit
	var emitErr error
	limit := maxEmitBytes.get()
	err := f.run(ctx, func(v *vm, fn goja.Callable) error {
		if err := v.setScope(scope); err != nil {
			return err
		}
		if err := v.setStored(ctx); err != nil { // loaded after the scope, as in mongod
			return err
		}
		var used int64
		emit := func(call goja.FunctionCall) goja.Value {
			if len(call.Arguments) != 2 {
				emitErr = document.Errorf(document.Code(31220), "emit takes 2 args")
				panic(v.rt.NewGoError(emitErr))
			}
			var key any
			if !goja.IsUndefined(call.Arguments[0]) {
				k, err := v.toBSON(call.Arguments[0], nil, 0)
				if err != nil {
					emitErr = err
					panic(v.rt.NewGoError(err))
				}
				key = k
			}
			val, err := v.toBSON(call.Arguments[1], nil, 0)
			if err != nil {
				emitErr = err
				panic(v.rt.NewGoError(err))
			}
			used += int64(document.Size(bson.D{{Key: "k", Value: key}, {Key: "v", Value: val}}))
			if used >= limit {
				emitErr = document.Errorf(document.Code(31292), "Size of emitted values exceeds the set size limit of %d bytes", limit)
				panic(v.rt.NewGoError(emitErr))
			}
			out = append(out, Emit{Key: key, Value: val})
			return goja.Undefined()
		}
		if err := v.rt.GlobalObject().Set("emit", emit); err != nil {
			return err
		}
		_, err := fn(v.toJS(doc))
		return err
	})
	if err != nil && emitErr != nil {
		return nil, emitErr
	}
	return out, err
}

// CallScoped calls the function as Call does, with scope's fields as
// global variables and the stored functions of ctx (WithStored):
// mapReduce's reduce and finalize.
func (f *Func) CallScoped(ctx context.Context, scope bson.D, args ...any) (any, error) {
	return f.call(ctx, true, scope, args...)
}

// call calls the function with args, this an empty object, scope's
// fields as globals and, with stored, the stored functions of ctx
// (WithStored).
func (f *Func) call(ctx context.Context, stored bool, scope bson.D, args ...any) (any, error) {
	var out any
	err := f.run(ctx, func(v *vm, fn goja.Callable) error {
		if err := v.setScope(scope); err != nil {
			return err
		}
		if stored {
			if err := v.setStored(ctx); err != nil {
				return err
			}
		}
		jsArgs := make([]goja.Value, len(args))
		for i, a := range args {
			jsArgs[i] = v.toJS(a)
		}
		res, err := fn(v.rt.NewObject(), jsArgs...)
		if err != nil {
			return err
		}
		out, err = v.toBSON(res, nil, 0)
		return err
	})
	return out, err
}

// setScope makes each field of scope a global variable of the call: a
// JavaScript code value becomes the function it defines, the rest the
// value converted as a document's field is. run removes them after the
// call.
func (v *vm) setScope(scope bson.D) error {
	g := v.rt.GlobalObject()
	for _, e := range scope {
		val := v.toJS(e.Value)
		if code, ok := e.Value.(bson.JavaScript); ok {
			fn, err := Compile(string(code))
			if err != nil {
				return err
			}
			if val, err = v.rt.RunProgram(fn.prg); err != nil {
				return err
			}
		}
		if err := g.Set(e.Key, val); err != nil {
			return err
		}
	}
	return nil
}
