// Package js runs MongoDB's server-side JavaScript for the engine: the
// functions of the $where query operator, of the $function aggregation
// expression and of the $accumulator accumulator.
//
// A script's source becomes a function as mongod makes one (Compile): a
// function expression is taken as it is, and anything else (a bare
// expression such as "this.a > 1", or statements) becomes the body of a
// function that returns the value of the last expression. Compiled
// programs are cached by source and shared.
//
// A call converts its BSON arguments to JavaScript values and its result
// back to BSON, as mongod does (docs/javascript.md lists the
// conversions). Runtimes are pooled; a call holds one for its duration
// only, so calls may run concurrently from several goroutines.
//
// A call never takes the process down or runs unbounded: a panic inside
// the engine is recovered and reported, the call stack is bounded, a
// script stops when the context it runs under ends (maxTimeMS, a client
// gone) or after CallTimeout, as mongod's
// internalQueryJavaScriptFnTimeoutMillis, strings a single built-in call
// could make larger than MaxStringLength are refused, and scripts stop
// when the heap grows past SetMemoryLimit's bound while they run.
//
// Errors are *document.Error with mongod's codes: 139 JSInterpreterFailure
// for a thrown exception, a syntax error or memory exhausted, 50
// MaxTimeMSExpired and 11601 Interrupted for an interrupted script.
package js
