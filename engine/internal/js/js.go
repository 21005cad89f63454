package js

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dop251/goja"
	"github.com/dop251/goja/parser"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// mongod's codes for a script that fails.
const (
	CodeJSInterpreterFailure = document.CodeJSInterpreterFailure // an exception the script threw, a syntax error
	CodeInterrupted          = document.CodeInterrupted          // a script stopped from outside
	CodeUnknownError         = document.CodeUnknownError         // a thrown value that is not an object
)

// DefaultCallTimeout is how long one call may run when its context has no
// earlier end: mongod's internalQueryJavaScriptFnTimeoutMillis.
const DefaultCallTimeout = 60 * time.Second

// MaxCallStackSize bounds the depth of a script's calls; deeper
// recursion fails the call.
const MaxCallStackSize = 4096

// MaxStringLength bounds the strings String.prototype.repeat, padStart,
// padEnd and Array.prototype.join may make in one call, in UTF-16 units.
const MaxStringLength = 64 << 20

var callTimeout = setting{def: int64(DefaultCallTimeout)}

// SetCallTimeout sets how long one call may run (DefaultCallTimeout
// until set; d <= 0 restores it) and returns the previous value.
func SetCallTimeout(d time.Duration) time.Duration {
	return time.Duration(callTimeout.set(int64(d)))
}

// setting is a process-wide limit an operator may change while scripts
// run: def until set, and def again once set to 0 or less.
type setting struct {
	def int64
	v   atomic.Int64 // 0 for def
}

// get is the value now.
func (s *setting) get() int64 {
	if n := s.v.Load(); n > 0 {
		return n
	}
	return s.def
}

// set makes n the value (def when n <= 0) and returns the one before.
func (s *setting) set(n int64) int64 {
	if old := s.v.Swap(max(n, 0)); old > 0 {
		return old
	}
	return s.def
}

// Func is a compiled script: a function any pooled runtime can call. It
// is immutable and safe for concurrent use.
type Func struct {
	src string // the function's source, as functionSource made it
	prg *goja.Program
}

// Source returns the source of the function the script became.
func (f *Func) Source() string { return f.src }

type compiled struct {
	f   *Func
	err error
}

// The compiled-function cache, by script source.
var (
	cacheMu sync.Mutex
	cache   = map[string]compiled{}
)

const maxCached = 1024

// Compile compiles a script's source (a string or the code of a BSON
// JavaScript value) into a function, or fails with 139 and the syntax
// error.
func Compile(src string) (*Func, error) {
	cacheMu.Lock()
	c, ok := cache[src]
	cacheMu.Unlock()
	if ok {
		return c.f, c.err
	}
	c.f, c.err = compile(src)
	cacheMu.Lock()
	if len(cache) >= maxCached {
		clear(cache)
	}
	cache[src] = c
	cacheMu.Unlock()
	return c.f, c.err
}

func compile(src string) (*Func, error) {
	fn, err := functionSource(src)
	if err != nil {
		return nil, syntaxError(err)
	}
	prg, err := goja.Compile("", "("+fn+"\n)", false)
	if err != nil {
		return nil, syntaxError(err)
	}
	return &Func{src: fn, prg: prg}, nil
}

// syntaxError renders a parse error as mongod renders SpiderMonkey's.
func syntaxError(err error) error {
	var list parser.ErrorList
	if errors.As(err, &list) && len(list) > 0 {
		e := list[0]
		return document.Errorf(CodeJSInterpreterFailure, "SyntaxError: %s :\n@:%d:%d\n", e.Message, e.Position.Line, e.Position.Column)
	}
	var ce *goja.CompilerSyntaxError
	if errors.As(err, &ce) {
		return document.Errorf(CodeJSInterpreterFailure, "SyntaxError: %s", ce.Message)
	}
	return document.Errorf(CodeJSInterpreterFailure, "SyntaxError: %v", err)
}

// Call calls the function with the BSON values args as its arguments and
// an empty object as this, and returns its result as BSON, as $function
// and $accumulator do.
func (f *Func) Call(ctx context.Context, args ...any) (any, error) {
	return f.call(ctx, false, nil, args...)
}

// Where calls the function with doc as this and as the global obj, as
// $where does, and reports whether its result is truthy.
func (f *Func) Where(ctx context.Context, doc bson.D) (bool, error) {
	var out bool
	err := f.run(ctx, func(v *vm, fn goja.Callable) error {
		if err := v.setStored(ctx); err != nil {
			return err
		}
		this := v.toJS(doc)
		g := v.rt.GlobalObject()
		if err := g.Set("obj", this); err != nil {
			return err
		}
		if err := g.Set("fullObject", true); err != nil {
			return err
		}
		res, err := fn(this)
		if err != nil {
			return err
		}
		out = res.ToBoolean()
		return nil
	})
	return out, err
}

// run runs body with a pooled runtime and the function compiled in it,
// interrupting it when ctx ends or the call timeout passes, and turns
// what goes wrong into mongod's errors.
func (f *Func) run(ctx context.Context, body func(v *vm, fn goja.Callable) error) (err error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if err := ctx.Err(); err != nil {
		return contextError(err)
	}
	v := getVM()
	healthy := false
	defer func() {
		if r := recover(); r != nil {
			healthy = false
			err = panicError(r)
		}
		if healthy {
			putVM(v)
		}
	}()
	var mu sync.Mutex
	done := false
	wake := make(chan struct{})
	v.wake = wake
	v.printer = printerOf(ctx)
	defer func() { v.printer = nil }()
	interrupt := func(reason error) {
		mu.Lock()
		if !done {
			v.rt.Interrupt(reason)
			select {
			case <-wake:
			default:
				close(wake) // a sleep() in progress returns at once
			}
		}
		mu.Unlock()
	}
	stop := context.AfterFunc(ctx, func() { interrupt(contextError(ctx.Err())) })
	timer := time.AfterFunc(time.Duration(callTimeout.get()), func() {
		interrupt(document.Errorf(CodeInterrupted, "JavaScript execution interrupted"))
	})
	unwatch := watchMemory(interrupt)
	err, healthy = v.guard(func() error {
		fn, err := v.function(f)
		if err != nil {
			return err
		}
		return body(v, fn)
	})
	mu.Lock()
	done = true
	mu.Unlock()
	stop()
	timer.Stop()
	unwatch()
	v.rt.ClearInterrupt()
	if healthy {
		v.cleanGlobals()
	}
	return err
}

// guard runs body, recovering the panics goja raises through Go
// callers (a script's exception, an interruption), and returns the
// error as mongod's and whether the runtime may be used again.
func (v *vm) guard(body func() error) (err error, healthy bool) {
	defer func() {
		if r := recover(); r != nil {
			e, isErr := r.(error)
			if !isErr {
				panic(r)
			}
			err, healthy = v.scriptError(e)
		}
	}()
	if err := body(); err != nil {
		return v.scriptError(err)
	}
	return nil, true
}

// scriptError converts an error of goja's into mongod's: a thrown value
// is 139 (8 when it is not an object), a stack overflow 139, an
// interruption the reason it was given. It also reports whether the
// runtime may be used again.
func (v *vm) scriptError(err error) (error, bool) {
	var de *document.Error
	var ie *goja.InterruptedError
	var so *goja.StackOverflowError
	var ex *goja.Exception
	switch {
	case errors.As(err, &ie):
		if e, ok := ie.Value().(*document.Error); ok {
			return e, false
		}
		return document.Errorf(CodeInterrupted, "JavaScript execution interrupted"), false
	case errors.As(err, &so):
		return document.Errorf(CodeJSInterpreterFailure, "uncaught exception: InternalError: too much recursion :\n%s", stackString(so.Stack())), false
	case errors.As(err, &ex):
		val := ex.Value()
		if o, ok := val.(*goja.Object); ok {
			if code, reason, ok := statusOf(o); ok {
				// A native helper's refusal keeps its code, as
				// mongod's C++ errors do, without the prefix.
				return document.Errorf(code, "%s :\n%s", reason, stackString(scriptFrames(ex.Stack()))), true
			}
			msg := "uncaught exception: " + safeString(o) + " :\n" + stackString(ex.Stack())
			return document.Errorf(CodeJSInterpreterFailure, "%s", msg), true
		}
		s := "undefined"
		if val != nil {
			s = val.String()
		}
		return document.Errorf(CodeUnknownError, "uncaught exception: %s", s), true
	case errors.As(err, &de):
		return de, true
	}
	return document.Errorf(CodeJSInterpreterFailure, "JavaScript execution failed: %v", err), false
}

// safeString is an exception's string form; one whose toString fails
// reads as its class.
func safeString(o *goja.Object) (s string) {
	defer func() {
		if r := recover(); r != nil {
			s = "[object " + o.ClassName() + "]"
		}
	}()
	return o.String()
}

// stackString renders a stack as SpiderMonkey does: one
// "function@file:line:column" a line.
func stackString(frames []goja.StackFrame) string {
	var b strings.Builder
	for _, fr := range frames {
		name := fr.FuncName()
		if name == "<anonymous>" || name == "<native>" {
			name = ""
		}
		p := fr.Position()
		fmt.Fprintf(&b, "%s@:%d:%d\n", name, p.Line, p.Column)
	}
	return b.String()
}

// scriptFrames drops a stack's frames of Go functions (the native
// helper that threw), which have no position in the script.
func scriptFrames(frames []goja.StackFrame) []goja.StackFrame {
	out := frames[:0:0]
	for _, fr := range frames {
		if fr.Position().Line > 0 {
			out = append(out, fr)
		}
	}
	return out
}

// contextError is the error of a script stopped because its context
// ended: 50 past maxTimeMS, 11601 otherwise.
func contextError(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return document.Errorf(document.CodeMaxTimeMSExpired, "operation exceeded time limit")
	}
	return document.Errorf(CodeInterrupted, "operation was interrupted")
}

// panicError is the error of a Go panic during a call: the engine's
// fault, reported rather than taking the process down.
func panicError(r any) error {
	return document.Errorf(CodeJSInterpreterFailure, "JavaScript execution failed: %v", r)
}
