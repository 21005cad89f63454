package js

import (
	"crypto/md5"
	"encoding/hex"
	"runtime"
	"time"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// vm is one goja runtime with what the conversions need. A runtime is
// not safe for concurrent use: a call takes one from the pool and gives
// it back when done, unless something went wrong in it.
type vm struct {
	rt       *goja.Runtime
	fns      map[*goja.Program]goja.Callable // the functions compiled in rt
	protos   map[string]*goja.Object         // the prototypes of the BSON types
	date     goja.Value                      // Date
	regexp   goja.Value                      // RegExp
	baseline map[string]bool                 // the global names after setup
	// wake is closed when the current call is interrupted, which ends a
	// sleep() at once.
	wake chan struct{}
	// printer receives the current call's print lines (nil: dropped).
	printer func(string)
}

const maxFuncsPerVM = 256

var pool = make(chan *vm, 4*runtime.GOMAXPROCS(0))

func getVM() *vm {
	select {
	case v := <-pool:
		return v
	default:
		return newVM()
	}
}

func putVM(v *vm) {
	select {
	case pool <- v:
	default:
	}
}

// function returns f compiled in this runtime.
func (v *vm) function(f *Func) (goja.Callable, error) {
	if fn, ok := v.fns[f.prg]; ok {
		return fn, nil
	}
	val, err := v.rt.RunProgram(f.prg)
	if err != nil {
		return nil, err
	}
	fn, ok := goja.AssertFunction(val)
	if !ok {
		return nil, syntaxError(errNotFunction)
	}
	if len(v.fns) >= maxFuncsPerVM {
		clear(v.fns)
	}
	v.fns[f.prg] = fn
	return fn, nil
}

type notFunction struct{}

func (notFunction) Error() string { return "the script is not a function" }

var errNotFunction error = notFunction{}

// cleanGlobals deletes the global variables a call left (obj, and what
// the script assigned without declaring), so that the next call on this
// runtime does not see them.
func (v *vm) cleanGlobals() {
	g := v.rt.GlobalObject()
	for _, k := range g.Keys() {
		if !v.baseline[k] {
			_ = g.Delete(k)
		}
	}
}

func newVM() *vm {
	rt := goja.New()
	rt.SetMaxCallStackSize(MaxCallStackSize)
	v := &vm{rt: rt, fns: map[*goja.Program]goja.Callable{}, protos: map[string]*goja.Object{}}
	v.date = rt.Get("Date")
	v.regexp = rt.Get("RegExp")
	v.setupTypes()
	if _, err := rt.RunString(limitsPrelude); err != nil {
		panic(err)
	}
	if _, err := rt.RunString(arrayPrelude); err != nil {
		panic(err)
	}
	if err := rt.Set("sleep", v.sleep); err != nil {
		panic(err)
	}
	if err := rt.Set("print", v.print); err != nil {
		panic(err)
	}
	globals := map[string]func(goja.FunctionCall) goja.Value{
		// mongod's other global functions: the server's version, its
		// buildInfo, and the scripts' heap limit in MiB.
		"version": func(goja.FunctionCall) goja.Value {
			s, _ := lookupString(buildInfoDoc(), "version")
			return rt.ToValue(s)
		},
		"buildInfo":        func(goja.FunctionCall) goja.Value { return v.toJS(buildInfoDoc()) },
		"getJSHeapLimitMB": func(goja.FunctionCall) goja.Value { return rt.ToValue(float64(memoryLimit.get() >> 20)) },
		// hex_md5 and tostrictjson, mongod's installGlobalUtils
		// (globals.go).
		"hex_md5":      v.hexMD5,
		"tostrictjson": v.toStrictJSON,
		// The free functions of mongod's BSON type (bsonfuncs.go).
		"bsonWoCompare":              v.bsonWoCompare,
		"bsonUnorderedFieldsCompare": v.bsonUnorderedFieldsCompare,
		"bsonBinaryEqual":            v.bsonBinaryEqual,
		"bsonObjToArray":             v.bsonObjToArray,
	}
	for name, fn := range globals {
		if err := rt.Set(name, fn); err != nil {
			panic(err)
		}
	}
	if _, err := rt.RunString(shellPrelude); err != nil {
		panic(err)
	}
	if _, err := rt.RunString(assertPrelude); err != nil {
		panic(err)
	}
	v.baseline = map[string]bool{}
	for _, k := range rt.GlobalObject().Keys() {
		v.baseline[k] = true
	}
	return v
}

// limitsPrelude bounds the strings single built-in calls may make, which
// an interruption cannot stop midway.
const limitsPrelude = `(function (max) {
  function redefine(proto, name, check) {
    var orig = proto[name];
    Object.defineProperty(proto, name, {
      value: function () {
        check(this, arguments);
        return orig.apply(this, arguments);
      },
      writable: true, configurable: true, enumerable: false
    });
  }
  function fail() { throw new RangeError('Invalid string length'); }
  redefine(String.prototype, 'repeat', function (s, a) {
    if (String(s).length * Number(a[0]) > max) fail();
  });
  function pad(s, a) { if (Number(a[0]) > max) fail(); }
  redefine(String.prototype, 'padStart', pad);
  redefine(String.prototype, 'padEnd', pad);
  redefine(Array.prototype, 'join', function (arr, a) {
    var sep = a[0] === undefined ? 1 : String(a[0]).length;
    if (Number(arr.length) * sep > max) fail();
  });
})(` + "67108864" + `);`

// arrayPrelude defines the Array helpers mongod's scripts have (its
// shell's types.js, loaded into every server-side scope): sum and avg
// (null for an empty array; sum adds with +, so strings concatenate),
// stdDev (the population standard deviation), contains (by ==) and
// unique (the first of each value, by contains). mapReduce's reduce
// functions use Array.sum most of all.
const arrayPrelude = `(function () {
  function define(name, fn) {
    Object.defineProperty(Array, name, {value: fn, writable: true, configurable: true, enumerable: false});
  }
  define('sum', function (arr) {
    if (arr.length == 0) return null;
    var total = arr[0];
    for (var i = 1; i < arr.length; i++) total += arr[i];
    return total;
  });
  define('avg', function (arr) {
    if (arr.length == 0) return null;
    return Array.sum(arr) / arr.length;
  });
  define('stdDev', function (arr) {
    var mean = Array.avg(arr), sq = 0;
    for (var i = 0; i < arr.length; i++) sq += Math.pow(arr[i] - mean, 2);
    return Math.sqrt(sq / arr.length);
  });
  define('contains', function (arr, x) {
    for (var i = 0; i < arr.length; i++) if (arr[i] == x) return true;
    return false;
  });
  define('unique', function (arr) {
    var out = [];
    for (var i = 0; i < arr.length; i++) if (!Array.contains(out, arr[i])) out.push(arr[i]);
    return out;
  });
})();`

// maxSleep bounds one sleep() call; the call timeout ends it sooner.
const maxSleep = 24 * time.Hour

// sleep is mongod's sleep(ms) of server-side scripts (jstests and
// mongosh's own tests slow a $where down with it): it waits ms
// milliseconds, or until the call is interrupted (maxTimeMS, the client
// gone, the call timeout), and returns undefined.
func (v *vm) sleep(call goja.FunctionCall) goja.Value {
	ms := call.Argument(0).ToFloat()
	if !(ms > 0) { // NaN, zero and negatives: no wait
		return goja.Undefined()
	}
	d := maxSleep
	if ms < float64(maxSleep/time.Millisecond) {
		d = time.Duration(ms * float64(time.Millisecond))
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-v.wake:
	}
	return goja.Undefined()
}

// md5Hex returns the MD5 digest of s in lowercase hex.
func md5Hex(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

// lookupString returns d's string field k.
func lookupString(d bson.D, k string) (string, bool) {
	for _, e := range d {
		if e.Key == k {
			s, ok := e.Value.(string)
			return s, ok
		}
	}
	return "", false
}
