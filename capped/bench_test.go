package capped

import (
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"
)

// syncCountFS is OSFS counting file fsyncs, for the fsyncs/op metric.
type syncCountFS struct {
	OSFS
	syncs *atomic.Int64
}

func (c syncCountFS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
	f, err := c.OSFS.OpenFile(name, flag, perm)
	if err != nil {
		return nil, err
	}
	return syncCountFile{f, c.syncs}, nil
}

type syncCountFile struct {
	File
	syncs *atomic.Int64
}

func (f syncCountFile) Sync() error {
	f.syncs.Add(1)
	return f.File.Sync()
}

// BenchmarkAppend appends 200-byte records to a 64 KiB ring that wraps
// many times over, with an eviction callback, on the real file system.
func BenchmarkAppend(b *testing.B) {
	for _, bc := range []struct {
		name string
		sync bool
	}{{"nosync", false}, {"SyncEveryAppend", true}} {
		b.Run(bc.name, func(b *testing.B) {
			var syncs atomic.Int64
			fsys := syncCountFS{syncs: &syncs}
			r, err := Create(filepath.Join(b.TempDir(), "ring"), 64<<10, Options{FS: fsys, SyncEveryAppend: bc.sync})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			data := payload(1, 200)
			var evicted int
			evict := func(recs []Record) error { evicted += len(recs); return nil }
			b.SetBytes(200)
			syncs.Store(0)
			b.ResetTimer()
			for b.Loop() {
				if _, _, err := r.Append(data, Limits{}, evict); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(evicted)/float64(b.N), "evictions/op")
			// Without SyncEveryAppend the only fsyncs are the anchor
			// moves' (two per lap of about 270 appends here).
			b.ReportMetric(float64(syncs.Load())/float64(b.N), "fsyncs/op")
		})
	}
}

// BenchmarkAppendParallel measures group commit: concurrent appenders
// with SyncEveryAppend share fsyncs.
func BenchmarkAppendParallel(b *testing.B) {
	r, err := Create(filepath.Join(b.TempDir(), "ring"), 64<<10, Options{SyncEveryAppend: true})
	if err != nil {
		b.Fatal(err)
	}
	defer r.Close()
	data := payload(1, 200)
	b.SetBytes(200)
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, err := r.Append(data, Limits{}, nil); err != nil {
				b.Error(err)
				return
			}
		}
	})
}
