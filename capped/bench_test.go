package capped

import (
	"path/filepath"
	"testing"
)

// BenchmarkAppend appends 200-byte records to a 64 KiB ring that wraps
// many times over, with an eviction callback, on the real file system.
func BenchmarkAppend(b *testing.B) {
	for _, bc := range []struct {
		name string
		sync bool
	}{{"nosync", false}, {"SyncEveryAppend", true}} {
		b.Run(bc.name, func(b *testing.B) {
			r, err := Create(filepath.Join(b.TempDir(), "ring"), 64<<10, Options{SyncEveryAppend: bc.sync})
			if err != nil {
				b.Fatal(err)
			}
			defer r.Close()
			data := payload(1, 200)
			var evicted int
			evict := func(recs []Record) error { evicted += len(recs); return nil }
			b.SetBytes(200)
			b.ResetTimer()
			for b.Loop() {
				if _, _, err := r.Append(data, Limits{}, evict); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(evicted)/float64(b.N), "evictions/op")
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
