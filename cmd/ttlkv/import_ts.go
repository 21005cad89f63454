package main

import (
	"fmt"

	"github.com/spf13/pflag"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// maxBatchBytes bounds the input bytes of one insert command, well under
// MongoDB's 48 MB message limit, whatever --batchSize says.
const maxBatchBytes = 16 << 20

// maxWriteBatch is hello's maxWriteBatchSize: the most documents one
// insert command takes.
const maxWriteBatch = 100000

// tsBatchSize is the default batch of an import into a time-series
// collection. Each insert command reads and rewrites every bucket it
// touches (up to 1000 measurements each), so small batches of input
// that interleaves many series rewrite the same buckets many times.
const tsBatchSize = 10000

// tsFlags are import's time-series options. mongoimport has none: with
// no --timeField the collection is used as it is (created as an ordinary
// one if missing).
type tsFlags struct {
	timeField, metaField, granularity string
	expireAfterSeconds                int64
}

func (t *tsFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&t.timeField, "timeField", "", "create COLL, if missing, as a time-series collection with this time field")
	fs.StringVar(&t.metaField, "metaField", "", "with --timeField: the time-series meta field")
	fs.StringVar(&t.granularity, "granularity", "", "with --timeField: seconds, minutes or hours")
	fs.Int64Var(&t.expireAfterSeconds, "expireAfterSeconds", 0, "with --timeField: remove measurements this many seconds old (whole buckets)")
}

// check refuses time-series options without --timeField.
func (t *tsFlags) check(fs *pflag.FlagSet) error {
	if t.timeField != "" {
		return nil
	}
	for _, n := range []string{"metaField", "granularity", "expireAfterSeconds"} {
		if fs.Changed(n) {
			return fmt.Errorf("--%s needs --timeField (it describes a time-series collection to create)", n)
		}
	}
	return nil
}

// prepareTimeseries creates the collection as a time-series one when
// --timeField is given and it does not exist, checks that an existing
// one is a time-series collection with that time field (and meta field,
// if given), and raises the default batch size for a time-series
// target. It refuses --mode upsert and merge into a time-series
// collection, whose measurements are not matched and replaced.
func (im *importer) prepareTimeseries(fs *pflag.FlagSet) error {
	t := &im.f.ts
	info, err := im.collInfo()
	if err != nil {
		return err
	}
	switch {
	case info == nil && t.timeField != "":
		opts := bson.D{{Key: "timeField", Value: t.timeField}}
		if t.metaField != "" {
			opts = append(opts, bson.E{Key: "metaField", Value: t.metaField})
		}
		if t.granularity != "" {
			opts = append(opts, bson.E{Key: "granularity", Value: t.granularity})
		}
		cmd := bson.D{{Key: "create", Value: im.coll}, {Key: "timeseries", Value: opts}}
		if fs.Changed("expireAfterSeconds") {
			cmd = append(cmd, bson.E{Key: "expireAfterSeconds", Value: t.expireAfterSeconds})
		}
		if _, err := do(im.e.ctx, im.db, im.e.db, cmd); err != nil {
			return fmt.Errorf("creating time-series collection %s.%s: %w", im.e.db, im.coll, err)
		}
		fmt.Fprintf(im.e.stderr, "created time-series collection %s.%s (timeField %q)\n", im.e.db, im.coll, t.timeField)
		im.timeseries, im.createdTS = true, true
	case info != nil:
		typ, _ := document.Get(info, "type")
		im.timeseries = typ == "timeseries"
		if t.timeField == "" {
			break
		}
		if !im.timeseries {
			return fmt.Errorf("%s.%s exists and is not a time-series collection; --timeField only creates a missing one (use --drop to replace it)", im.e.db, im.coll)
		}
		tf, _ := document.Lookup(info, "options.timeseries.timeField")
		mf, _ := document.Lookup(info, "options.timeseries.metaField")
		if tf != t.timeField || (t.metaField != "" && mf != t.metaField) {
			return fmt.Errorf("%s.%s is a time-series collection with timeField %v and metaField %v, not %q and %q", im.e.db, im.coll, tf, mf, t.timeField, t.metaField)
		}
	}
	if !im.timeseries {
		return nil
	}
	if im.f.mode == modeUpsert || im.f.mode == modeMerge {
		return fmt.Errorf("--mode %s cannot be used on a time-series collection: measurements are inserted, not matched and replaced", im.f.mode)
	}
	if !fs.Changed("batchSize") {
		im.f.batchSize = tsBatchSize
	}
	return nil
}

// collInfo returns the listCollections entry of the target, nil if it
// does not exist.
func (im *importer) collInfo() (bson.D, error) { return collectionInfo(im.e, im.db, im.coll) }

// collectionInfo returns the listCollections entry of coll in the
// current database, nil if it does not exist.
func collectionInfo(e *env, db conn, coll string) (bson.D, error) {
	var info bson.D
	err := drain(e.ctx, db, e.db, "", bson.D{{Key: "listCollections", Value: 1}, {Key: "filter", Value: bson.D{{Key: "name", Value: coll}}}},
		func(d bson.D) bool { info = d; return false })
	return info, err
}
