package benchmarks

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"
)

// Import and export through the ttlkv binary, as a user runs them (issue
// 19): JSON lines, a JSON array and CSV, at two sizes in the same
// iteration. The smaller size is the baseline: "x-per-doc-1M/100k" is the
// time per document at the larger size over the time per document at the
// smaller (1.0 is linear; the target is <= 1.2), docs/s is the rate at
// each size (the target for JSON lines import is >= 100,000/s), and
// docs/cpu-s the documents per second of CPU time the process used (user
// and system, all cores), which says what the rate would be on a quiet
// machine better than wall time on a loaded one.
//
//	go test -run XXX -bench ImportExport -benchtime 1x -count 3 ./benchmarks | sh benchmarks/medians.sh
var (
	ieSmall = envInt("TTLKV_BENCH_IE_SMALL", 100_000)
	ieBig   = envInt("TTLKV_BENCH_IE_BIG", 1_000_000)
)

var (
	ttlkvBinOnce sync.Once
	ttlkvBin     string
	ttlkvBinErr  error
)

// ttlkvBinary builds the ttlkv command once per test binary.
func ttlkvBinary(b *testing.B) string {
	ttlkvBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "ttlkv-bench-bin")
		if err != nil {
			ttlkvBinErr = err
			return
		}
		fixDirs = append(fixDirs, dir) // removed by TestMain
		ttlkvBin = filepath.Join(dir, "ttlkv")
		cmd := exec.Command("go", "build", "-o", ttlkvBin, "github.com/ttlkv/ttlkv/cmd/ttlkv")
		if out, err := cmd.CombinedOutput(); err != nil {
			ttlkvBinErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if ttlkvBinErr != nil {
		b.Fatal(ttlkvBinErr)
	}
	return ttlkvBin
}

// ieFormat is one file format: how to write n small documents, and the
// flags import and export take for it.
type ieFormat struct {
	name       string
	write      func(w *bufio.Writer, n int)
	importArgs []string
	exportArgs []string
}

var ieFormats = []ieFormat{
	{"jsonl", func(w *bufio.Writer, n int) {
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, "{\"_id\":%d,\"name\":\"user%d\",\"n\":%d,\"ok\":true}\n", i, i, i%1000)
		}
	}, nil, nil},
	{"array", func(w *bufio.Writer, n int) {
		w.WriteString("[\n")
		for i := 0; i < n; i++ {
			sep := ",\n"
			if i == n-1 {
				sep = "\n"
			}
			fmt.Fprintf(w, "{\"_id\":%d,\"name\":\"user%d\",\"n\":%d,\"ok\":true}%s", i, i, i%1000, sep)
		}
		w.WriteString("]\n")
	}, []string{"--jsonArray"}, []string{"--jsonArray"}},
	{"csv", func(w *bufio.Writer, n int) {
		w.WriteString("_id,name,n,ok\n")
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, "%d,user%d,%d,true\n", i, i, i%1000)
		}
	}, []string{"--type", "csv", "--headerline"}, []string{"--type", "csv", "--fields", "_id,name,n,ok"}},
}

// runTTLKV runs the binary on data directory dir and returns how long it
// took and the CPU time (user and system) it used.
func runTTLKV(b *testing.B, bin, dir string, args ...string) (time.Duration, time.Duration) {
	b.Helper()
	cmd := exec.Command(bin, append([]string{"--dir", dir}, args...)...)
	start := time.Now()
	out, err := cmd.CombinedOutput()
	el := time.Since(start)
	if err != nil {
		b.Fatalf("ttlkv %q: %v\n%s", args, err, out)
	}
	return el, cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
}

func BenchmarkImportExport(b *testing.B) {
	bin := ttlkvBinary(b)
	for _, f := range ieFormats {
		b.Run(f.name, func(b *testing.B) {
			files := b.TempDir()
			src := map[int]string{}
			for _, n := range []int{ieSmall, ieBig} {
				src[n] = filepath.Join(files, fmt.Sprintf("in-%d", n))
				file, err := os.Create(src[n])
				if err != nil {
					b.Fatal(err)
				}
				w := bufio.NewWriterSize(file, 1<<20)
				f.write(w, n)
				if err := w.Flush(); err != nil {
					b.Fatal(err)
				}
				file.Close()
			}
			b.ResetTimer()
			var imp, exp, impCPU, expCPU [2]time.Duration
			for i := 0; i < b.N; i++ {
				for k, n := range []int{ieSmall, ieBig} {
					dir := filepath.Join(b.TempDir(), "data")
					el, cpu := runTTLKV(b, bin, dir, append([]string{"import", "-c", "c", "--file", src[n]}, f.importArgs...)...)
					imp[k] += el
					impCPU[k] += cpu
					el, cpu = runTTLKV(b, bin, dir, append([]string{"export", "-c", "c", "--out", filepath.Join(files, "out")}, f.exportArgs...)...)
					exp[k] += el
					expCPU[k] += cpu
					os.RemoveAll(dir)
				}
			}
			per := func(d time.Duration, n int) float64 { return d.Seconds() / float64(b.N) / float64(n) }
			b.ReportMetric(1/per(imp[0], ieSmall), "import-docs/s-small")
			b.ReportMetric(1/per(imp[1], ieBig), "import-docs/s-big")
			b.ReportMetric(per(imp[1], ieBig)/per(imp[0], ieSmall), "import-x-per-doc-big/small")
			b.ReportMetric(1/per(exp[0], ieSmall), "export-docs/s-small")
			b.ReportMetric(1/per(exp[1], ieBig), "export-docs/s-big")
			b.ReportMetric(per(exp[1], ieBig)/per(exp[0], ieSmall), "export-x-per-doc-big/small")
			// CPU time per document, which a loaded machine inflates far
			// less than wall time: docs per CPU-second at the big size.
			b.ReportMetric(1/per(impCPU[1], ieBig), "import-docs/cpu-s-big")
			b.ReportMetric(1/per(expCPU[1], ieBig), "export-docs/cpu-s-big")
		})
	}
}
