package js

// assertPrelude defines what mongod's shell assert.js gives every
// server-side scope (mongod loads it before types.js): doassert,
// sortDoc, _convertExceptionToReturnStatus and assert with its methods.
//
// The file was written for the shell: its failures go through doassert,
// which reads the shell's jsTest.options() before it builds the error,
// and its equality falls back to the shell's friendlyEqual, neither of
// which a server scope has. So on mongod an assertion that holds
// returns as in the shell, and one that fails (or a message function
// that takes parameters, an assert() with three arguments) throws
// "ReferenceError: jsTest is not defined" once doassert has evaluated
// the message; assert.eq of two values that are not == and not null
// throws "ReferenceError: friendlyEqual is not defined"; assert.soon
// reads TestData, the command-result helpers WriteResult, the retry
// and time helpers MongoRunner, each absent. ttlkv defines the same
// functions with the same flow, so scripts see those outcomes.
const assertPrelude = `(function (g) {
  function def(obj, name, fn) {
    Object.defineProperty(obj, name, {value: fn, writable: true, configurable: true, enumerable: false});
  }

  def(g, 'doassert', function (msg, obj) {
    if (typeof msg == 'function') msg = msg();
    if (typeof msg == 'object') msg = tojson(msg);
    if (jsTest.options().traceExceptions) {
      print(new Date().toISOString() + (typeof msg == 'string' && msg.indexOf('assert') == 0 ? ' ' : ' assert: ') + msg);
    }
    var ex = obj ? _getErrorWithCode(obj, msg) : Error(msg);
    if (jsTest.options().traceExceptions) print(ex.stack);
    throw ex;
  });

  function sortDoc(doc) {
    function sortArray(arr) {
      if (!arr || arr.constructor != Array) return arr;
      var out = [];
      for (var i = 0; i < arr.length; i++) out.push(sortDoc(arr[i]));
      return out;
    }
    if (!(doc instanceof Object)) return doc;
    if (doc.constructor == Array) return sortArray(doc);
    var keys = Object.keys(doc);
    if (keys.length == 0) return doc;
    keys.sort();
    var out = {};
    for (var i = 0; i < keys.length; i++) {
      var k = keys[i];
      if (!doc.hasOwnProperty(k)) continue;
      var val = doc[k];
      if (val) {
        if (val.constructor == Array) val = sortArray(val);
        else if (val._bson || val.constructor == Object) val = sortDoc(val);
      }
      out[k] = val;
    }
    return out;
  }
  def(g, 'sortDoc', sortDoc);

  function _convertExceptionToReturnStatus(func, excMsg) {
    return function () {
      try {
        return func();
      } catch (e) {
        print(excMsg + ', exception: ' + e);
        return false;
      }
    };
  }
  def(g, '_convertExceptionToReturnStatus', _convertExceptionToReturnStatus);

  function messageOf(msg) {
    if (typeof msg === 'function') return msg();
    if (typeof msg === 'object') return tojson(msg);
    return msg;
  }
  function checkMessage(msg) {
    if (!msg) return;
    if (typeof msg === 'function') {
      if (msg.length !== 0) doassert('msg function cannot expect any parameters.');
    } else if (typeof msg !== 'string' && typeof msg !== 'object') {
      doassert('msg parameter must be a string, function or object.');
    }
    if (msg && assert._debug) print('in assert for: ' + messageOf(msg));
  }
  function failure(msg, prefix) {
    var s = '';
    if (prefix) s += prefix;
    if (prefix && msg) s += ' : ';
    if (msg) s += messageOf(msg);
    return s;
  }

  var assert = function (b, msg) {
    if (arguments.length > 2) doassert('Too many parameters to assert().');
    checkMessage(msg);
    if (b) return;
    doassert(failure(msg, 'assert failed'));
  };
  assert.automsg = function (b) { assert(eval(b), b); };
  assert._debug = false;

  function equal(a, b) {
    if (a == b) return true;
    return a != null && b != null && friendlyEqual(a, b);
  }
  function docEqual(a, b) {
    if (a == b) return true;
    var x = sortDoc(a), y = sortDoc(b);
    return x != null && y != null && friendlyEqual(x, y);
  }
  assert.eq = function (a, b, msg) {
    checkMessage(msg);
    if (equal(a, b)) return;
    doassert(failure(msg, '[' + tojson(a) + '] != [' + tojson(b) + '] are not equal'));
  };
  assert.eq.automsg = function (a, b) {
    assert.eq(eval(a), eval(b), '[' + a + '] != [' + b + ']');
  };
  assert.docEq = function (a, b, msg) {
    checkMessage(msg);
    if (docEqual(a, b)) return;
    doassert(failure(msg, '[' + tojson(a) + '] != [' + tojson(b) + '] are not equal'));
  };
  assert.setEq = function (aSet, bSet, msg) {
    function fail() { doassert(failure(msg, tojson(aSet) + ' != ' + tojson(bSet))); }
    if (aSet.size !== bSet.size) fail();
    for (var a of aSet) {
      if (!bSet.has(a)) fail();
    }
  };
  assert.sameMembers = function (aArr, bArr, msg, compareFn) {
    if (compareFn === undefined) compareFn = docEqual;
    checkMessage(msg);
    function fail() { doassert(failure(msg, tojson(aArr) + ' != ' + tojson(bArr))); }
    if (aArr.length !== bArr.length) fail();
    var used = new Set();
    for (var a of aArr) {
      var found = false;
      for (var i = 0; i < bArr.length; i++) {
        if (!used.has(i) && compareFn(a, bArr[i])) {
          used.add(i);
          found = true;
          break;
        }
      }
      if (!found) fail();
    }
  };
  assert.neq = function (a, b, msg) {
    checkMessage(msg);
    if (!equal(a, b)) return;
    doassert(failure(msg, '[' + a + '] != [' + b + '] are equal'));
  };
  assert.hasFields = function (result, arr, msg) {
    if (!Array.isArray(arr)) throw new Error('The second argument to assert.hasFields must be an array.');
    var n = 0;
    for (var k in result) {
      if (arr.includes(k)) n++;
    }
    if (n != arr.length) {
      doassert(failure(msg, 'Not all of the values from ' + tojson(arr) + ' were in ' + tojson(result)));
    }
  };
  assert.contains = function (o, arr, msg) {
    if (!Array.isArray(arr)) throw new Error('The second argument to assert.contains must be an array.');
    var found = false;
    for (var i = 0; i < arr.length && !found; i++) {
      found = arr[i] == o || (arr[i] != null && o != null && friendlyEqual(arr[i], o));
    }
    if (!found) doassert(failure(msg, tojson(o) + ' was not in ' + tojson(arr)));
  };
  assert.containsPrefix = function (prefix, arr, msg) {
    if (typeof prefix !== 'string') throw new Error('The first argument to containsPrefix must be a string.');
    if (!Array.isArray(arr)) throw new Error('The second argument to containsPrefix must be an array.');
    var found = false;
    for (var i = 0; i < arr.length && !found; i++) {
      found = typeof arr[i] === 'string' && arr[i].startsWith(prefix);
    }
    if (!found) doassert(failure(msg, tojson(prefix) + ' was not a prefix in ' + tojson(arr)));
  };

  assert.soon = function (func, msg, timeout, interval) {
    checkMessage(msg);
    var prefix = 'assert.soon failed: ' + func;
    if (msg && typeof msg != 'function') prefix = 'assert.soon failed, msg';
    var start = new Date();
    timeout = (TestData && TestData.inEvergreen) ? (timeout || 10 * 60 * 1000) : (timeout || 90 * 1000);
    interval = interval || 200;
    for (;;) {
      if (typeof func == 'string' ? eval(func) : func()) return;
      if (new Date().getTime() - start.getTime() > timeout) {
        msg = failure(msg, prefix);
        var opts = arguments[4] || {};
        if (opts.runHangAnalyzer === undefined || opts.runHangAnalyzer) {
          msg += ' The hang analyzer is automatically called in assert.soon functions.' +
            ' If you are *expecting* assert.soon to possibly fail, call assert.soon' +
            ' with {runHangAnalyzer: false} as the fifth argument' +
            ' (you can fill unused arguments with ` + "`undefined`" + `).';
          print(msg + ' Running hang analyzer from assert.soon.');
          MongoRunner.runHangAnalyzer();
        }
        doassert(msg);
      }
      sleep(interval);
    }
  };
  assert.soonNoExcept = function (func, msg, timeout, interval) {
    var safe = _convertExceptionToReturnStatus(func, 'assert.soonNoExcept caught exception');
    if (typeof TestData === 'undefined') return assert.soon(safe, msg, timeout, interval);
    assert.soon(function () {
      var trace = TestData.traceExceptions;
      TestData.traceExceptions = false;
      var res = safe();
      TestData.traceExceptions = trace;
      return res;
    }, msg, timeout, interval);
  };
  assert.retry = function (func, msg, attempts, intervalMS) {
    intervalMS = intervalMS || 0;
    for (var made = 0; made < attempts;) {
      if (func()) return;
      made++;
      print('assert.retry failed on attempt ' + made + ' of ' + attempts);
      sleep(intervalMS);
    }
    msg = failure(msg);
    var opts = arguments[4] || {};
    if (opts.runHangAnalyzer === undefined || opts.runHangAnalyzer) {
      msg += ' The hang analyzer is automatically called in assert.retry functions. ' +
        'If you are *expecting* assert.soon to possibly fail, call assert.retry ' +
        'with {runHangAnalyzer: false} as the fifth argument ' +
        '(you can fill unused arguments with ` + "`undefined`" + `).';
      print(msg + ' Running hang analyzer from assert.retry.');
      MongoRunner.runHangAnalyzer();
    }
    doassert(msg);
  };
  assert.retryNoExcept = function (func, msg, attempts, intervalMS) {
    assert.retry(_convertExceptionToReturnStatus(func, 'assert.retryNoExcept caught exception'), msg, attempts, intervalMS);
  };
  assert.adminCommandWorkedAllowingNetworkError = function (node, commandObj) {
    var res;
    try {
      res = node.adminCommand(commandObj);
      assert.commandWorked(res);
    } catch (e) {
      if (!isNetworkError(e)) throw e;
      print('Caught network error: ' + tojson(e));
    }
    return res;
  };
  assert.time = function (f, msg, timeout) {
    checkMessage(msg);
    var start = new Date();
    timeout = timeout || 30000;
    var res = typeof f == 'string' ? eval(f) : f();
    var diff = new Date().getTime() - start.getTime();
    if (diff > timeout) {
      msg = failure(msg, 'assert.time failed timeout ' + timeout + 'ms took ' + diff + 'ms : ' + f + ', msg');
      var opts = arguments[3] || {};
      if (opts.runHangAnalyzer === undefined || opts.runHangAnalyzer) {
        msg += ' The hang analyzer is automatically called in assert.time functions. ' +
          'If you are *expecting* assert.soon to possibly fail, call assert.time ' +
          'with {runHangAnalyzer: false} as the fourth argument ' +
          '(you can fill unused arguments with ` + "`undefined`" + `).';
        print(msg + ' Running hang analyzer from assert.time.');
        MongoRunner.runHangAnalyzer();
      }
      doassert(msg);
    }
    return res;
  };

  function callWatched(func, params) {
    if (typeof func !== 'function') throw new Error('1st argument must be a function');
    if (arguments.length >= 2 && !Array.isArray(params) &&
        Object.prototype.toString.call(params) !== '[object Arguments]') {
      throw new Error('2nd argument must be an Array or Arguments object');
    }
    var usedThis = false;
    function touched() { usedThis = true; }
    var spy = new Proxy({}, {
      has: function () { touched(); return false; },
      get: function () { touched(); return undefined; },
      set: function () { touched(); return false; },
      deleteProperty: function () { touched(); return false; }
    });
    var error = null, res = null;
    try {
      res = func.apply(spy, params);
    } catch (e) {
      error = e;
    }
    if (usedThis) {
      doassert("Attempted to access 'this' during function call in" +
        ' assert.throws/doesNotThrow. Instead, wrap the function argument in' +
        ' another function.');
    }
    return {error: error, res: res};
  }
  assert.throws = function (func, params, msg) {
    checkMessage(msg);
    var error = callWatched.apply(null, arguments).error;
    if (!error) doassert(failure(msg, 'did not throw exception'));
    return error;
  };
  assert.throwsWithCode = function (func, expectedCode, params, msg) {
    if (arguments.length < 2) throw new Error('assert.throwsWithCode expects at least 2 arguments');
    var args = [func, params, msg].filter(function (a) { return a !== undefined; });
    var error = assert.throws.apply(null, args);
    var codes = Array.isArray(expectedCode) ? expectedCode : [expectedCode];
    if (!codes.some(function (c) { return error.code == c; })) {
      doassert(failure(msg, '[' + tojson(error.code) + '] != [' + tojson(codes) + '] are not equal'));
    }
    return error;
  };
  assert.doesNotThrow = function (func, params, msg) {
    checkMessage(msg);
    var r = callWatched.apply(null, arguments);
    if (r.error) doassert(failure(msg, 'threw unexpected exception: ' + r.error));
    return r.res;
  };
  assert.dropExceptionsWithCode = function (func, dropCodes, onDrop) {
    if (typeof func !== 'function') doassert('assert.dropExceptionsWithCode 1st argument must be a function');
    if (typeof onDrop !== 'function') doassert('assert.dropExceptionsWithCode 3rd argument must be a function');
    if (!Array.isArray(dropCodes)) dropCodes = [dropCodes];
    try {
      return func();
    } catch (e) {
      if (dropCodes.some(function (c) { return e.code === c; })) return onDrop(e);
      throw e;
    }
  };
  assert.throws.automsg = function (func, params) {
    if (arguments.length === 1) params = [];
    assert.throws(func, params, func.toString());
  };
  assert.doesNotThrow.automsg = function (func, params) {
    if (arguments.length === 1) params = [];
    assert.doesNotThrow(func, params, func.toString());
  };

  // The command and write result helpers first ask whether the result
  // is one of the shell's write result classes.
  function isWriteResult(res) {
    return res instanceof WriteResult || res instanceof WriteError ||
      res instanceof BulkWriteResult || res instanceof BulkWriteError;
  }
  function checkResponse(res, name) {
    if (typeof res !== 'object') {
      doassert("unknown response type '" + typeof res + "' given to " + name + ", res='" + res + "'");
    }
  }
  function worked(res, msg) {
    checkMessage(msg);
    checkResponse(res, 'commandWorked');
    isWriteResult(res);
    return res;
  }
  function failed(res, msg) {
    checkMessage(msg);
    checkResponse(res, 'commandFailed');
    isWriteResult(res);
    return res;
  }
  assert._kAnyErrorCode = Object.create(null);
  assert.commandWorked = function (res, msg) { return worked(res, msg); };
  assert.commandWorkedIgnoringWriteErrors = function (res, msg) { return worked(res, msg); };
  assert.commandWorkedIgnoringWriteConcernErrors = function (res, msg) { return worked(res, msg); };
  assert.commandWorkedIgnoringWriteErrorsAndWriteConcernErrors = function (res, msg) { return worked(res, msg); };
  assert.commandFailed = function (res, msg) { return failed(res, msg); };
  assert.commandFailedWithCode = function (res, expectedCode, msg) { return failed(res, msg); };
  assert.commandWorkedOrFailedWithCode = function (res, codes, msg) {
    return res.ok ? assert.commandWorked(res, msg) : assert.commandFailedWithCode(res, codes, msg);
  };
  assert.writeOK = function (res) {
    isWriteResult(res);
    return res;
  };
  assert.writeErrorWithCode = function (res, expectedCode, msg) {
    if (expectedCode === undefined) doassert('assert.writeErrorWithCode called with undefined error code');
    isWriteResult(res);
    return res;
  };
  assert.writeError = function (res, msg) {
    return assert.writeErrorWithCode(res, assert._kAnyErrorCode, msg);
  };

  assert.isnull = function (what, msg) {
    checkMessage(msg);
    if (what == null) return;
    doassert('supposed to be null (' + (messageOf(msg) || '') + ') was: ' + tojson(what));
  };
  function compare(f, a, b) {
    if (typeof a === 'object' && typeof b === 'object' && a instanceof Timestamp && b instanceof Timestamp) {
      return f(bsonWoCompare({_: a}, {_: b}), 0);
    }
    return f(a, b);
  }
  function compareAssert(f, a, b, what, msg) {
    checkMessage(msg);
    if (compare(f, a, b)) return;
    doassert(failure(msg, a + ' is not ' + what + ' ' + b));
  }
  assert.lt = function (a, b, msg) { compareAssert(function (x, y) { return x < y; }, a, b, 'less than', msg); };
  assert.gt = function (a, b, msg) { compareAssert(function (x, y) { return x > y; }, a, b, 'greater than', msg); };
  assert.lte = function (a, b, msg) { compareAssert(function (x, y) { return x <= y; }, a, b, 'less than or eq', msg); };
  assert.gte = function (a, b, msg) { compareAssert(function (x, y) { return x >= y; }, a, b, 'greater than or eq', msg); };
  assert.between = function (a, b, c, msg, inclusive) {
    checkMessage(msg);
    var f = (inclusive == undefined || inclusive == true) ?
      function (x, y) { return x <= y; } : function (x, y) { return x < y; };
    if (compare(f, a, b) && compare(f, b, c)) return;
    doassert(failure(msg, b + ' is not between ' + a + ' and ' + c));
  };
  assert.betweenIn = function (a, b, c, msg) { assert.between(a, b, c, msg, true); };
  assert.betweenEx = function (a, b, c, msg) { assert.between(a, b, c, msg, false); };
  assert.close = function (a, b, msg, places) {
    if (places === undefined) places = 4;
    var abs = Math.abs(a - b);
    if (Math.round(abs * Math.pow(10, places)) === 0) return;
    var rel = Math.abs(abs / b);
    if (Math.round(rel * Math.pow(10, places)) === 0) return;
    doassert(failure(msg, a + ' is not equal to ' + b + ' within ' + places + ' places, absolute error: ' +
      abs + ', relative error: ' + rel));
  };
  assert.closeWithinMS = function (a, b, msg, deltaMS) {
    if (deltaMS === undefined) deltaMS = 1000;
    var x = a instanceof Date ? a.getTime() : a;
    var y = b instanceof Date ? b.getTime() : b;
    var d = Math.abs(Math.abs(x) - Math.abs(y));
    if (d <= deltaMS) return;
    doassert(failure(msg, '' + a + ' is not equal to ' + b + ' within ' + deltaMS + ' millis, ' +
      'actual delta: ' + d + ' millis'));
  };
  assert.includes = function (haystack, needle, msg) {
    if (haystack.includes(needle)) return;
    var s = 'string [' + haystack + '] does not include [' + needle + ']';
    if (msg) s += ', ' + msg;
    doassert(s);
  };
  assert.noAPIParams = function (cmdOptions) {
    if (!(cmdOptions instanceof Object)) return;
    assert(!cmdOptions.hasOwnProperty('apiVersion') && !cmdOptions.hasOwnProperty('apiStrict') &&
      !cmdOptions.hasOwnProperty('apiDeprecationErrors'), 'API parameters are not allowed in this context');
  };
  def(g, 'assert', assert);
})(this);`
