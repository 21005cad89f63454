package main

import (
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"syscall"
	"time"

	"github.com/spf13/pflag"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine"
)

type statsFlags struct{ json bool }

var statsCommand = &command{
	remote:   true,
	name:     "stats",
	summary:  "show what an operator needs: documents, sizes and kind per collection, TTL rules and what awaits expiry, disk use, TTL metrics",
	usage:    "ttlkv stats [--json]",
	examples: []string{"ttlkv stats", "ttlkv stats --json"},
	flags: func(fs *pflag.FlagSet) any {
		f := &statsFlags{}
		fs.BoolVar(&f.json, "json", false, "print {serverStatus, collections, ttl} as relaxed Extended JSON")
		return f
	},
	run: func(e *env, _ *pflag.FlagSet, cfg any, args []string) int {
		f := cfg.(*statsFlags)
		if len(args) > 0 {
			fmt.Fprintln(e.stderr, "ttlkv stats: takes no arguments")
			return 2
		}
		db, err := e.connect(engine.Options{DisableTTLMonitor: true})
		if err != nil {
			return e.fail("stats", err)
		}
		return e.closeSession("stats", db, e.stats(db, f.json))
	},
}

// collInfo is what stats shows of one collection.
type collInfo struct {
	ns    string
	kind  string // "collection", "capped" or "timeseries"
	stats bson.D // collStats, or {ns, error}
	info  bson.D // listCollections entry
}

// ttlRule is one expiry rule: a TTL index, or a time-series collection's
// expireAfterSeconds (index "" and field its time field).
type ttlRule struct {
	ns, index, field string
	expire           int64
	partial          bson.D
	// expired counts documents past their expiry that the monitor has
	// not deleted yet; -1 when not counted (time-series: buckets expire
	// whole).
	expired int64
}

func (e *env) stats(db *session, asJSON bool) int {
	status, err := do(e.ctx, db, "admin", bson.D{{Key: "serverStatus", Value: 1}})
	if err != nil {
		return e.fail("stats", err)
	}
	names, infos, err := collections(e.ctx, db)
	if err != nil {
		return e.fail("stats", err)
	}
	now := time.Now()
	var colls []collInfo
	var rules []ttlRule
	for _, c := range names {
		ci := collInfo{ns: c[0] + "." + c[1], info: infos[c[0]+"."+c[1]], kind: "collection"}
		if t, _ := document.Get(ci.info, "type"); t == "timeseries" {
			ci.kind = "timeseries"
		}
		st, err := do(e.ctx, db, c[0], bson.D{{Key: "collStats", Value: c[1]}})
		if err != nil {
			st = bson.D{{Key: "ns", Value: ci.ns}, {Key: "error", Value: err.Error()}}
		} else if capped, _ := document.Get(st, "capped"); capped == true {
			ci.kind = "capped"
		} else if ci.kind == "timeseries" {
			// collStats of a time-series collection has no count (as
			// mongod's); its measurements are counted here.
			if r, err := do(e.ctx, db, c[0], bson.D{{Key: "count", Value: c[1]}}); err == nil && len(st) > 0 {
				n, _ := document.Get(r, "n")
				st = append(bson.D{st[0], {Key: "count", Value: n}}, st[1:]...)
			}
		}
		ci.stats = st
		colls = append(colls, ci)
		rs, err := e.ttlRules(db, c[0], c[1], ci, now)
		if err != nil {
			return e.fail("stats", err)
		}
		rules = append(rules, rs...)
	}
	if asJSON {
		return e.statsJSON(status, colls, rules)
	}
	w := e.stdout
	v, _ := document.Get(status, "version")
	if db.remote != nil {
		// The server's files are not ours to measure: what it says only.
		fmt.Fprintf(w, "server           %s\n", db.where())
		fmt.Fprintf(w, "engine version   %v\n", v)
		if _, ok := document.Lookup(status, "storageEngine.lsmBytes"); ok {
			fmt.Fprintf(w, "disk use         LSM %s, value log %s (as the server reports them)\n",
				humanBytes(num(status, "storageEngine.lsmBytes")), humanBytes(num(status, "storageEngine.vlogBytes")))
		}
	} else {
		fmt.Fprintf(w, "data directory   %s\n", db.db.Dir())
		fmt.Fprintf(w, "engine version   %v\n", v)
		du := diskUsage(db.db.Dir())
		fmt.Fprintf(w, "disk use         %s allocated, as du counts it (logical size %s in %d file(s): preallocated files are sparse; LSM %s, value log %s)\n",
			humanBytes(du.allocated), humanBytes(du.logical), du.files,
			humanBytes(num(status, "storageEngine.lsmBytes")), humanBytes(num(status, "storageEngine.vlogBytes")))
	}
	var docs, idx int64
	for _, c := range colls {
		docs += num(c.stats, "count")
		idx += num(c.stats, "totalIndexSize")
	}
	fmt.Fprintf(w, "documents        %d in %d collection(s), index size %s\n", docs, len(colls), humanBytes(idx))
	if len(colls) > 0 {
		fmt.Fprintf(w, "\n%-32s %10s %10s %8s %10s  %s\n", "collection", "documents", "size", "indexes", "index size", "kind")
		for _, c := range colls {
			if errV, bad := document.Get(c.stats, "error"); bad {
				fmt.Fprintf(w, "%-32s %v\n", c.ns, errV)
				continue
			}
			fmt.Fprintf(w, "%-32s %10d %10s %8d %10s  %s\n", c.ns, num(c.stats, "count"), humanBytes(num(c.stats, "size")),
				num(c.stats, "nindexes"), humanBytes(num(c.stats, "totalIndexSize")), kindText(c))
		}
	}
	e.printRules(w, rules)
	fmt.Fprintf(w, "\noperations       insert %d, query %d, update %d, delete %d (since this command opened the directory)\n",
		num(status, "opcounters.insert"), num(status, "opcounters.query"), num(status, "opcounters.update"), num(status, "opcounters.delete"))
	fmt.Fprintf(w, "TTL monitor      %d document(s) deleted in %d pass(es), %d sub-pass(es) (metrics.ttl, since open; see ttlkv reap)\n",
		num(status, "metrics.ttl.deletedDocuments"), num(status, "metrics.ttl.passes"), num(status, "metrics.ttl.subPasses"))
	fmt.Fprintf(w, "batched deletes  %d batch(es), %d document(s), %d ms (since open)\n",
		num(status, "batchedDeletes.batches"), num(status, "batchedDeletes.docs"), num(status, "batchedDeletes.timeInBatchMillis"))
	return 0
}

// kindText describes a collection's kind: capped limits, or time-series
// fields and bucket count.
func kindText(c collInfo) string {
	switch c.kind {
	case "capped":
		s := "capped, max " + humanBytes(num(c.stats, "maxSize"))
		if m := num(c.stats, "max"); m > 0 {
			s += fmt.Sprintf(" or %d docs", m)
		}
		return s
	case "timeseries":
		tf, _ := document.Lookup(c.info, "options.timeseries.timeField")
		s := fmt.Sprintf("time-series on %v", tf)
		if mf, ok := document.Lookup(c.info, "options.timeseries.metaField"); ok {
			s += fmt.Sprintf(" by %v", mf)
		}
		if g, ok := document.Lookup(c.info, "options.timeseries.granularity"); ok {
			s += fmt.Sprintf(", %v", g)
		}
		return s + fmt.Sprintf(", %d bucket(s)", num(c.stats, "timeseries.bucketCount"))
	}
	return ""
}

// ttlRules lists the expiry rules of one collection. For a TTL index on
// an ordinary or capped collection it counts the documents already past
// their expiry (a date, or an array's earliest date, at or before now -
// expireAfterSeconds, within the partial filter): what the next TTL pass
// will delete.
func (e *env) ttlRules(db conn, dbName, coll string, ci collInfo, now time.Time) ([]ttlRule, error) {
	var out []ttlRule
	if ci.kind == "timeseries" {
		if exp, ok := document.Lookup(ci.info, "options.expireAfterSeconds"); ok {
			tf, _ := document.Lookup(ci.info, "options.timeseries.timeField")
			out = append(out, ttlRule{ns: ci.ns, field: fmt.Sprint(tf), expire: document.Int64(exp), expired: -1})
		}
	}
	err := drain(e.ctx, db, dbName, coll, bson.D{{Key: "listIndexes", Value: coll}}, func(ix bson.D) bool {
		exp, ok := document.Get(ix, "expireAfterSeconds")
		if !ok {
			return true
		}
		key, _ := document.Get(ix, "key")
		kd, _ := key.(bson.D)
		name, _ := document.Get(ix, "name")
		r := ttlRule{ns: ci.ns, index: fmt.Sprint(name), expire: document.Int64(exp), expired: -1}
		if len(kd) == 1 {
			r.field = kd[0].Key
		}
		if p, ok := document.Get(ix, "partialFilterExpression"); ok {
			r.partial, _ = p.(bson.D)
		}
		out = append(out, r)
		return true
	})
	if err != nil {
		return nil, err
	}
	for i := range out {
		r := &out[i]
		if ci.kind == "timeseries" || r.index == "" || r.field == "" {
			continue
		}
		cutoff := bson.NewDateTimeFromTime(now.Add(-time.Duration(r.expire) * time.Second))
		filter := bson.D{{Key: r.field, Value: bson.D{{Key: "$lte", Value: cutoff}}}}
		if len(r.partial) > 0 {
			filter = bson.D{{Key: "$and", Value: bson.A{filter, r.partial}}}
		}
		reply, err := do(e.ctx, db, dbName, bson.D{{Key: "count", Value: coll}, {Key: "query", Value: filter}})
		if err != nil {
			return nil, err
		}
		r.expired = num(reply, "n")
	}
	return out, nil
}

func (e *env) printRules(w io.Writer, rules []ttlRule) {
	if len(rules) == 0 {
		fmt.Fprintln(w, "\nTTL rules        none (no TTL index, no time-series expireAfterSeconds)")
		return
	}
	fmt.Fprintf(w, "\n%-32s %-24s %-20s %s\n", "TTL rule", "index", "expireAfterSeconds", "expired, awaiting the monitor")
	for _, r := range rules {
		index, pending := r.index, fmt.Sprint(r.expired)
		if index == "" {
			index = "(collection option)"
		}
		if r.expired < 0 {
			pending = "-"
			if r.index == "" {
				pending = "- (whole buckets)"
			}
		}
		what := r.ns
		if r.field != "" {
			what += " on " + r.field
		}
		fmt.Fprintf(w, "%-32s %-24s %-20s %s\n", what, index, fmt.Sprintf("%d (%s)", r.expire, humanDuration(r.expire)), pending)
	}
}

func (e *env) statsJSON(status bson.D, colls []collInfo, rules []ttlRule) int {
	var per, ttl bson.A
	for _, c := range colls {
		per = append(per, append(bson.D{{Key: "kind", Value: c.kind}}, c.stats...))
	}
	for _, r := range rules {
		d := bson.D{{Key: "ns", Value: r.ns}, {Key: "index", Value: r.index}, {Key: "field", Value: r.field}, {Key: "expireAfterSeconds", Value: r.expire}}
		if r.expired >= 0 {
			d = append(d, bson.E{Key: "expiredAwaitingDeletion", Value: r.expired})
		}
		ttl = append(ttl, d)
	}
	if ttl == nil {
		ttl = bson.A{}
	}
	du := diskUsage(e.dataDir())
	disk := bson.D{{Key: "allocatedBytes", Value: du.allocated}, {Key: "logicalBytes", Value: du.logical}, {Key: "files", Value: du.files}}
	out, err := document.MarshalExtJSON(bson.D{{Key: "serverStatus", Value: status}, {Key: "collections", Value: per}, {Key: "ttl", Value: ttl}, {Key: "disk", Value: disk}}, false)
	if err != nil {
		return e.fail("stats", err)
	}
	fmt.Fprintln(e.stdout, string(out))
	return 0
}

// humanDuration renders seconds as the largest whole unit (90 s, 2 h,
// 1 d) or seconds.
func humanDuration(s int64) string {
	for _, u := range []struct {
		n    int64
		name string
	}{{86400, "d"}, {3600, "h"}, {60, "min"}} {
		if s >= u.n && s%u.n == 0 {
			return fmt.Sprintf("%d %s", s/u.n, u.name)
		}
	}
	return fmt.Sprintf("%d s", s)
}

// dirUsage is what a data directory takes on disk.
type dirUsage struct {
	allocated int64 // blocks allocated, as du reports (st_blocks * 512)
	logical   int64 // the files' sizes, as ls reports
	files     int64
}

// diskUsage walks dir and adds up its regular files. Preallocated files
// (a capped collection's ring, Badger's value log) are sparse, so the
// allocated bytes are what the directory really costs; the logical size
// is shown beside them.
func diskUsage(dir string) dirUsage {
	var u dirUsage
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		u.files++
		u.logical += fi.Size()
		if st, ok := fi.Sys().(*syscall.Stat_t); ok {
			u.allocated += st.Blocks * 512
		} else {
			u.allocated += fi.Size()
		}
		return nil
	})
	return u
}
