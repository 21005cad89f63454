package mongosh

import (
	"fmt"
	"github.com/dop251/goja"

	"github.com/ttlkv/ttlkv/document"
)

// bulkPrelude defines mongosh's bulk write helpers in JavaScript over the
// insert, update and delete commands: Collection.bulkWrite and the
// legacy Bulk API (initializeOrderedBulkOp, initializeUnorderedBulkOp).
// Consecutive operations of one kind go in one command, as drivers
// batch them; an ordered bulk stops at the first write error, an
// unordered one goes on. Write errors throw a MongoBulkWriteError
// carrying writeErrors and the result so far, as mongosh does.
const bulkPrelude = `(function (g, codeName, B) {
  function kindOf(op) {
    var k = Object.keys(op || {});
    if (k.length !== 1) throw new TypeError('bulkWrite: each operation must have exactly one of insertOne, updateOne, updateMany, replaceOne, deleteOne, deleteMany');
    return k[0];
  }
  // driverError is one of the Node driver's own errors (name), which
  // it throws before sending anything.
  function driverError(name, message) {
    var err = new Error(message);
    err.name = name;
    return err;
  }
  function bulkWrite(coll, ops, options) {
    if (!Array.isArray(ops)) throw driverError('MongoInvalidArgumentError', 'Argument "operations" must be an array of documents');
    if (ops.length === 0) throw driverError('MongoInvalidArgumentError', 'Invalid BulkOperation, Batch cannot be empty');
    options = options || {};
    var ordered = options.ordered !== false;
    var res = { acknowledged: true, insertedCount: 0, insertedIds: {}, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0, upsertedIds: {} };
    var errors = [];
    var groups = [];
    ops.forEach(function (op, i) {
      var kind = kindOf(op), a = op[kind] || {}, cmd, item;
      switch (kind) {
        case 'insertOne':
          var d = a.document === undefined ? a : a.document;
          if (d._id === undefined) d = Object.assign({ _id: new ObjectId() }, d);
          res.insertedIds[i] = d._id;
          cmd = 'insert'; item = d; break;
        case 'updateOne': case 'updateMany':
          // The driver's statement: upsert only when given, multi only when true.
          item = { q: a.filter || {}, u: a.update };
          if (typeof a.upsert === 'boolean') item.upsert = a.upsert;
          if (kind === 'updateMany') item.multi = true;
          if (a.arrayFilters) item.arrayFilters = a.arrayFilters;
          if (a.collation) item.collation = a.collation;
          if (a.hint) item.hint = a.hint;
          cmd = 'update'; break;
        case 'replaceOne':
          item = { q: a.filter || {}, u: a.replacement };
          if (typeof a.upsert === 'boolean') item.upsert = a.upsert;
          if (a.collation) item.collation = a.collation;
          if (a.hint) item.hint = a.hint;
          cmd = 'update'; break;
        case 'deleteOne': case 'deleteMany':
          item = { q: a.filter || {}, limit: kind === 'deleteOne' ? 1 : 0 };
          if (a.collation) item.collation = a.collation;
          if (a.hint) item.hint = a.hint;
          cmd = 'delete'; break;
        default:
          throw driverError('MongoInvalidArgumentError', 'bulkWrite only supports insertOne, updateOne, updateMany, deleteOne, deleteMany');
      }
      var last = groups[groups.length - 1];
      if (!last || last.cmd !== cmd) groups.push(last = { cmd: cmd, items: [], index: [] });
      last.items.push(item); last.index.push(i);
    });
    var db = coll.getDB(), name = coll.getName();
    for (var gi = 0; gi < groups.length; gi++) {
      var gr = groups[gi], c = {};
      c[gr.cmd] = name;
      c[{ insert: 'documents', update: 'updates', delete: 'deletes' }[gr.cmd]] = gr.items;
      c.ordered = ordered;
      if (options.writeConcern) c.writeConcern = options.writeConcern;
      if (options.bypassDocumentValidation) c.bypassDocumentValidation = true;
      var r = db.runCommand(c), n = Number(r.n || 0);
      if (gr.cmd === 'insert') res.insertedCount += n;
      if (gr.cmd === 'delete') res.deletedCount += n;
      if (gr.cmd === 'update') {
        var ups = r.upserted || [];
        res.matchedCount += n - ups.length;
        res.modifiedCount += Number(r.nModified || 0);
        res.upsertedCount += ups.length;
        ups.forEach(function (u) { res.upsertedIds[gr.index[u.index]] = u._id; });
      }
      (r.writeErrors || []).forEach(function (we) {
        var e = Object.assign({}, we);
        e.index = gr.index[we.index];
        e.op = gr.items[we.index];
        errors.push(e);
        if (gr.cmd === 'insert') delete res.insertedIds[e.index];
      });
      if (errors.length > 0 && ordered) {
        for (var k in res.insertedIds) if (Number(k) > errors[0].index) delete res.insertedIds[k];
        break;
      }
    }
    if (errors.length > 0) bulkError(errors, res);
    return res;
  }
  // BulkWriteResult is the class of a MongoBulkWriteError's result, as
  // the driver under mongosh makes it (printed "BulkWriteResult { ... }").
  function BulkWriteResult(r) {
    this.insertedCount = r.insertedCount;
    this.matchedCount = r.matchedCount;
    this.modifiedCount = r.modifiedCount;
    this.deletedCount = r.deletedCount;
    this.upsertedCount = r.upsertedCount;
    this.upsertedIds = r.upsertedIds;
    this.insertedIds = r.insertedIds;
  }
  // WriteError is the class of a MongoBulkWriteError's writeErrors, as
  // the driver makes them: err holds index, code, errmsg, errInfo and
  // op (the operation that failed); code, index, errmsg and errInfo
  // read it; JSON has code, index, errmsg and op.
  function WriteError(err) { this.err = err; }
  ['code', 'index', 'errmsg', 'errInfo'].forEach(function (k) {
    Object.defineProperty(WriteError.prototype, k, { get: function () { return this.err[k]; }, enumerable: false, configurable: true });
  });
  WriteError.prototype.getOperation = function () { return this.err.op; };
  WriteError.prototype.toJSON = function () { return { code: this.err.code, index: this.err.index, errmsg: this.err.errmsg, op: this.err.op }; };
  WriteError.prototype.toString = function () { return 'WriteError(' + JSON.stringify(this.toJSON()) + ')'; };
  // bulkError throws mongosh's MongoBulkWriteError for write errors
  // (each with its index in the request and the operation) and the
  // result so far: the first error's message and code (no codeName, as
  // in mongosh), the errors and the result, whose counts it also
  // answers. Its own keys are the driver's: errorLabelSet,
  // errorResponse, code, writeErrors, result.
  function bulkError(errors, res) {
    var wes = errors.map(function (e) {
      return new WriteError({ index: e.index, code: e.code, errmsg: e.errmsg, errInfo: e.errInfo, op: e.op });
    });
    var err = new Error(errors[0].errmsg);
    Object.defineProperty(err, 'name', { value: 'MongoBulkWriteError', enumerable: false, writable: true, configurable: true });
    Object.defineProperty(err, 'errmsg', { value: errors[0].errmsg, enumerable: false, writable: true, configurable: true });
    err.errorLabelSet = new Set();
    err.errorResponse = { message: errors[0].errmsg, code: errors[0].code, writeErrors: wes };
    err.code = errors[0].code;
    err.writeErrors = wes;
    err.result = new BulkWriteResult(res);
    ['insertedCount', 'matchedCount', 'modifiedCount', 'deletedCount', 'upsertedCount', 'insertedIds', 'upsertedIds'].forEach(function (k) {
      Object.defineProperty(err, k, { get: function () { return err.result[k]; }, enumerable: false, configurable: true });
    });
    throw err;
  }
  g.__bulkError = bulkError;

  // Collection statistics as mongosh computes them from the $collStats
  // stage: stats() merges the storageStats of each shard (here one) into
  // one document, scaled; dataSize(), storageSize(), totalSize() and
  // totalIndexSize() sum one field; latencyStats() lists the stage's
  // documents.
  function num(v) { return typeof v === 'number' ? v : Number(String(v)); }
  function storageStats(coll, scale) {
    return coll.aggregate([{ $collStats: { storageStats: { scale: scale } } }]).toArray();
  }
  function stats(coll, options) {
    if (typeof options === 'number') options = { scale: options };
    options = options || {};
    if (options.indexDetailsKey && options.indexDetailsName) B.invalid('Cannot filter indexDetails on both indexDetailsKey and indexDetailsName');
    var scale = options.scale || 1;
    var shards = storageStats(coll, 1);
    if (shards.length === 0) B.runtime('Error running $collStats aggregation stage on ' + coll.getFullName());
    var result = { ok: 1 }, counts = {}, indexSizes = {}, maxSize = 0, unscaled = 0, nindexes = 0, ts = null, bucketsNs, bucketBytes = 0;
    shards.forEach(function (sh) {
      var st = sh.storageStats, n = st.count === undefined ? 0 : num(st.count);
      Object.keys(st).forEach(function (f) {
        var v = st[f];
        if (['ns', 'ok', 'lastExtentSize', 'paddingFactor'].indexOf(f) >= 0) return;
        if (['userFlags', 'capped', 'max', 'paddingFactorNote', 'indexDetails', 'wiredTiger'].indexOf(f) >= 0) {
          if (result[f] === undefined) result[f] = v;
        } else if (f === 'timeseries') {
          // The numbers add up; avgBucketSize is averaged over the
          // buckets; of the strings only bucketsNs is kept, last.
          ts = ts || {};
          if (typeof v.bucketsNs === 'string' && bucketsNs === undefined) bucketsNs = v.bucketsNs;
          Object.keys(v).forEach(function (k) {
            if (typeof v[k] === 'string') return;
            if (k === 'avgBucketSize') bucketBytes += num(v.bucketCount) * num(v[k]);
            else ts[k] = (ts[k] || 0) + num(v[k]);
          });
        } else if (['count', 'size', 'storageSize', 'totalIndexSize', 'totalSize', 'numOrphanDocs'].indexOf(f) >= 0) {
          counts[f] = (counts[f] || 0) + num(v);
        } else if (f === 'avgObjSize') {
          unscaled += num(v) * n;
        } else if (f === 'maxSize') {
          maxSize = Math.max(maxSize, num(v));
        } else if (f === 'indexSizes') {
          Object.keys(v).forEach(function (k) { indexSizes[k] = (indexSizes[k] || 0) + num(v[k]); });
        } else if (f === 'nindexes') {
          nindexes = Math.max(nindexes, v);
        }
      });
    });
    result.sharded = false;
    Object.keys(counts).forEach(function (f) {
      result[f] = ['size', 'storageSize', 'totalIndexSize', 'totalSize'].indexOf(f) >= 0 ? counts[f] / scale : counts[f];
    });
    if (ts && Object.keys(ts).length > 0) {
      ts.avgBucketSize = ts.bucketCount ? bucketBytes / ts.bucketCount : 0;
      ts.bucketsNs = bucketsNs;
      result.timeseries = ts;
    }
    result.indexSizes = {};
    Object.keys(indexSizes).forEach(function (k) { result.indexSizes[k] = indexSizes[k] / scale; });
    result.avgObjSize = counts.count > 0 ? unscaled / counts.count : 0;
    if (result.capped) result.maxSize = maxSize / scale;
    result.ns = coll.getFullName();
    result.nindexes = nindexes;
    if (shards[0].storageStats.scaleFactor !== undefined) result.scaleFactor = scale;
    result.ok = 1;
    if (!options.indexDetails) delete result.indexDetails;
    return result;
  }
  function single(coll, field) {
    var r = coll.aggregate([{ $collStats: { storageStats: {} } }, { $group: { _id: null, value: { $sum: '$storageStats.' + field } } }]).toArray();
    return r[0].value;
  }
  g.__collStats = { stats: stats, single: single, latency: function (coll, options) {
    return coll.aggregate([{ $collStats: { latencyStats: options || {} } }]).toArray();
  } };
  // Bulk is the legacy Bulk API's builder: find(filter) takes
  // collation, arrayFilters, hint and upsert before its write; execute
  // runs the operations as bulkWrite does. It prints as its counts
  // (nInsertOps, nUpdateOps, nRemoveOps, nBatches), as mongosh's.
  function Bulk(coll, ordered) {
    this._coll = coll; this._ordered = ordered; this._ops = []; this._done = false;
  }
  Bulk.prototype.help = function help() { return B.help('bulk', this); };
  Bulk.prototype.insert = function (d) { this._ops.push({ insertOne: { document: d } }); return this; };
  Bulk.prototype.find = function (filter) {
    var bulk = this, mods = {};
    function op(extra) { return Object.assign({ filter: filter }, mods, extra); }
    var f = {
      upsert: function () { mods.upsert = true; return f; },
      collation: function (c) { mods.collation = c; return f; },
      arrayFilters: function (a) { mods.arrayFilters = a; return f; },
      hint: function (h) { mods.hint = h; return f; },
      updateOne: function (u) { bulk._ops.push({ updateOne: op({ update: u, upsert: !!mods.upsert }) }); return bulk; },
      update: function (u) { bulk._ops.push({ updateMany: op({ update: u, upsert: !!mods.upsert }) }); return bulk; },
      replaceOne: function (r) { bulk._ops.push({ replaceOne: op({ replacement: r, upsert: !!mods.upsert }) }); return bulk; },
      deleteOne: function () { bulk._ops.push({ deleteOne: op({ upsert: undefined }) }); return bulk; },
      delete: function () { bulk._ops.push({ deleteMany: op({ upsert: undefined }) }); return bulk; },
    };
    f.removeOne = f.deleteOne; f.remove = f.delete;
    Object.defineProperty(f, 'help', { value: function help() { return B.help('bulkfind', f); }, writable: true, configurable: true });
    B.methodHelps('bulkfind', f);
    return f;
  };
  // batches groups the operations as the driver does: runs of one kind
  // for an ordered bulk, one batch a kind for an unordered one.
  Bulk.prototype._batches = function () {
    var type = { insertOne: 1, updateOne: 2, updateMany: 2, replaceOne: 2, deleteOne: 3, deleteMany: 3 };
    var out = [], byType = {};
    var ordered = this._ordered;
    this._ops.forEach(function (op, i) {
      var t = type[Object.keys(op)[0]], last = out[out.length - 1];
      var b = ordered ? (last && last.batchType === t ? last : null) : byType[t];
      if (!b) { b = { originalZeroIndex: i, batchType: t, operations: [] }; out.push(b); byType[t] = b; }
      b.operations.push(op);
    });
    return out;
  };
  Bulk.prototype.execute = function (writeConcern) {
    if (this._done) throw driverError('MongoBatchReExecutionError', 'This batch has already been executed, create new batch to execute');
    if (this._ops.length === 0) throw driverError('MongoInvalidArgumentError', 'Invalid BulkOperation, Batch cannot be empty');
    this._done = true;
    return bulkWrite(this._coll, this._ops, { ordered: this._ordered, writeConcern: writeConcern });
  };
  Bulk.prototype.getOperations = function () {
    if (!this._done) B.invalid('Cannot call getOperations on an unexecuted Bulk operation', 'COMMON-10002');
    return this._batches();
  };
  Bulk.prototype.toJSON = function () {
    var n = { 1: 0, 2: 0, 3: 0 };
    this._batches().forEach(function (b) { n[b.batchType] += b.operations.length; });
    return { nInsertOps: n[1], nUpdateOps: n[2], nRemoveOps: n[3], nBatches: this._batches().length };
  };
  Bulk.prototype.toString = function () { return JSON.stringify(this.toJSON()); };
  Bulk.prototype[B.asPrintable] = Bulk.prototype.toJSON;
  B.methodHelps('bulk', Bulk.prototype);
  g.__bulkWrite = bulkWrite;

  // clientBulkWrite is mongosh's Mongo.bulkWrite (mongosh 2.3+, MongoDB
  // 8.0's bulkWrite command), as the Node driver builds it: models name
  // their operation and namespace; the result counts what was done and,
  // with verboseResults, maps each operation's index to its result.
  // Write errors throw a MongoClientBulkWriteError with writeErrors (a
  // Map of index to code and message) and partialResult; a failed
  // command throws one whose cause is the server's error.
  function namedError(name, message) {
    var err = new Error(message);
    Object.defineProperty(err, 'name', { value: name, enumerable: false, writable: true, configurable: true });
    err.errorLabelSet = new Set();
    return err;
  }
  function hasAtomic(d) {
    if (Array.isArray(d)) return d.length > 0;
    var k = Object.keys(d || {});
    return k.length > 0 && k[0].charAt(0) === '$';
  }
  function clientBulkWrite(mongo, models, options) {
    options = options || {};
    var verbose = !!options.verboseResults, ordered = options.ordered !== false;
    var wc = options.writeConcern, acknowledged = !(wc && wc.w === 0);
    if (!acknowledged && ordered) throw namedError('MongoInvalidArgumentError', 'Cannot request unacknowledged write concern and ordered writes');
    if (models && models.length === 0) throw namedError('MongoClientBulkWriteExecutionError', 'No client bulk write models were provided.');
    var nsIndex = {}, nsInfo = [], ops = [], inserted = {};
    function ns(name) {
      if (!(name in nsIndex)) { nsIndex[name] = nsInfo.length; nsInfo.push(name === undefined ? {} : { ns: name }); }
      return nsIndex[name];
    }
    function copy(op, m, keys) {
      keys.forEach(function (k) { if (m[k] !== undefined) op[k] = m[k]; });
      return op;
    }
    Array.prototype.forEach.call(models || [], function (m, i) {
      var op;
      switch (m.name) {
        case 'insertOne':
          var d = m.document;
          if (d._id === undefined) d = Object.assign({ _id: new ObjectId() }, d);
          inserted[i] = d._id;
          op = { insert: ns(m.namespace), document: d };
          break;
        case 'updateOne': case 'updateMany':
          if (!hasAtomic(m.update)) throw namedError('MongoAPIError', 'Client bulk write update models must only contain atomic modifiers (start with $) and must not be empty.');
          op = copy({ update: ns(m.namespace), filter: m.filter, updateMods: m.update, multi: m.name === 'updateMany' }, m, ['upsert', 'arrayFilters', 'hint', 'collation']);
          if (m.name === 'updateOne') copy(op, m, ['sort']);
          break;
        case 'replaceOne':
          if (hasAtomic(m.replacement) || Array.isArray(m.replacement)) throw namedError('MongoAPIError', 'Client bulk write replace models must not contain atomic modifiers (start with $) and must not be empty.');
          op = copy({ update: ns(m.namespace), filter: m.filter, updateMods: m.replacement, multi: false }, m, ['upsert', 'hint', 'collation', 'sort']);
          break;
        case 'deleteOne': case 'deleteMany':
          op = copy({ delete: ns(m.namespace), filter: m.filter, multi: m.name === 'deleteMany' }, m, ['hint', 'collation']);
          break;
        default:
          op = {};
      }
      ops.push(op);
    });
    var res = { acknowledged: acknowledged, insertedCount: 0, matchedCount: 0, modifiedCount: 0, deletedCount: 0, upsertedCount: 0, insertResults: undefined, updateResults: undefined, deleteResults: undefined };
    if (ops.length === 0) return res;
    var cmd = { bulkWrite: 1, errorsOnly: !verbose, ordered: ordered, ops: ops, nsInfo: nsInfo };
    copy(cmd, options, ['bypassDocumentValidation', 'comment', 'let', 'writeConcern']);
    var admin = mongo.getDB('admin'), reply;
    try {
      reply = admin.runCommand(cmd);
    } catch (e) {
      throw clientError('Mongo client bulk write encountered an error during execution', new Map(), partial(res), e);
    }
    if (!acknowledged) return res;
    ['insertedCount', 'nInserted', 'matchedCount', 'nMatched', 'modifiedCount', 'nModified', 'deletedCount', 'nDeleted', 'upsertedCount', 'nUpserted'].forEach(function (k, j, a) {
      if (j % 2 === 0) res[k] = Number(reply[a[j + 1]] || 0);
    });
    if (verbose) { res.insertResults = new Map(); res.updateResults = new Map(); res.deleteResults = new Map(); }
    var errors = new Map(), cursor = reply.cursor, items = cursor.firstBatch;
    for (;;) {
      items.forEach(function (it) {
        var i = Number(it.idx), op = ops[i];
        if (it.ok !== 1 && it.ok !== true && Number(it.ok) !== 1) { errors.set(i, { code: it.code, message: it.errmsg }); return; }
        if (!verbose) return;
        if (op.insert !== undefined) res.insertResults.set(i, { insertedId: inserted[i] });
        else if (op.update !== undefined) {
          var u = { matchedCount: Number(it.n || 0), modifiedCount: Number(it.nModified || 0), didUpsert: it.upserted != null };
          if (it.upserted != null) u.upsertedId = it.upserted._id;
          res.updateResults.set(i, u);
        } else res.deleteResults.set(i, { deletedCount: Number(it.n || 0) });
      });
      if (!cursor.id || Number(cursor.id) === 0) break;
      cursor = admin.runCommand({ getMore: cursor.id, collection: '$cmd.bulkWrite' }).cursor;
      items = cursor.nextBatch;
    }
    if (errors.size > 0) {
      throw clientError(ordered ? 'Mongo client ordered bulk write encountered a write error.' : 'Mongo client bulk write encountered errors during execution.', errors, partial(res));
    }
    return res;
  }
  // partial is a result in the order a MongoClientBulkWriteError's
  // partialResult prints its fields.
  function partial(r) {
    return { acknowledged: r.acknowledged, insertedCount: r.insertedCount, upsertedCount: r.upsertedCount, matchedCount: r.matchedCount, modifiedCount: r.modifiedCount, deletedCount: r.deletedCount, insertResults: r.insertResults, updateResults: r.updateResults, deleteResults: r.deleteResults };
  }
  // clientError is the driver's MongoClientBulkWriteError: its own keys
  // are errorLabelSet, errorResponse, writeConcernErrors, writeErrors,
  // cause (when a command failed) and partialResult.
  function clientError(message, writeErrors, partialResult, cause) {
    var err = namedError('MongoClientBulkWriteError', message);
    err.errorResponse = { message: message };
    err.writeConcernErrors = [];
    err.writeErrors = writeErrors;
    if (cause !== undefined) err.cause = cause;
    err.partialResult = partialResult;
    return err;
  }
  g.__clientBulkWrite = clientBulkWrite;
  g.__bulk = function (coll, ordered) { return new Bulk(coll, ordered); };
})`

// installHelpers adds the helpers written in JavaScript (bulk writes) and
// bsonsize.
func (s *Shell) installHelpers() error {
	rt := s.rt
	fn, err := rt.RunString(bulkPrelude)
	if err != nil {
		return err
	}
	call, _ := goja.AssertFunction(fn)
	codeName := func(c goja.FunctionCall) goja.Value {
		return rt.ToValue(document.Code(c.Argument(0).ToInteger()).String())
	}
	b := rt.NewObject()
	_ = b.Set("invalid", func(c goja.FunctionCall) goja.Value {
		if code := c.Argument(1); goja.IsString(code) {
			panic(s.mongoshError("MongoshInvalidInputError", code.String(), c.Argument(0).String()))
		}
		panic(s.invalidInput(c.Argument(0).String()))
	})
	_ = b.Set("asPrintable", s.printSym)
	_ = b.Set("methodHelps", func(c goja.FunctionCall) goja.Value {
		if o, ok := c.Argument(1).(*goja.Object); ok {
			s.giveMethodHelps(c.Argument(0).String(), objectMethods(o))
		}
		return goja.Undefined()
	})
	_ = b.Set("help", func(c goja.FunctionCall) goja.Value {
		t, ok := c.Argument(1).(*goja.Object)
		if !ok {
			t = rt.NewObject()
		}
		h, _ := s.helpOf(c.Argument(0).String(), t)
		return h
	})
	_ = b.Set("runtime", func(c goja.FunctionCall) goja.Value {
		s.throw("MongoshRuntimeError", "%s", c.Argument(0).String())
		return nil
	})
	if _, err := call(goja.Undefined(), rt.GlobalObject(), rt.ToValue(codeName), b); err != nil {
		return err
	}
	bsonsize := func(c goja.FunctionCall) goja.Value {
		a := c.Argument(0)
		switch {
		case goja.IsUndefined(a):
			panic(s.invalidInput("Missing required argument at position 0 (bsonsize)"))
		case goja.IsNull(a):
			return rt.ToValue(0)
		}
		if _, ok := a.(*goja.Object); !ok {
			panic(s.invalidInput(fmt.Sprintf("Argument at position 0 must be of type object, got %s instead (bsonsize)", jsTypeof(a))))
		}
		d, err := s.toBSONDoc(a, "document")
		s.check(err)
		return rt.ToValue(document.Size(d))
	}
	// bsonsize is a global, as in mongosh; Object.bsonsize was the
	// legacy shell's.
	return rt.Set("bsonsize", bsonsize)
}

// jsTypeof is JavaScript's typeof of a value that is not an object.
func jsTypeof(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsString(v):
		return "string"
	case goja.IsNumber(v):
		return "number"
	case goja.IsBigInt(v):
		return "bigint"
	}
	switch v.Export().(type) {
	case bool:
		return "boolean"
	}
	if _, ok := v.(*goja.Symbol); ok {
		return "symbol"
	}
	return "object"
}
