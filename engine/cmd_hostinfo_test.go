package engine

import (
	"runtime"
	"testing"
	"time"
)

// TestHostInfo: hostInfo answers anywhere with mongod's three parts;
// the clock is the engine's, and the figures are the machine's.
func TestHostInfo(t *testing.T) {
	t.Parallel()
	db, clk := openMem(t)
	r := mustRun(t, db, "test", `{"hostInfo": 1}`)
	if got, want := field(r, "system.currentTime"), db.now(); got != want {
		t.Errorf("system.currentTime = %v, want the engine clock's %v (%v)", got, want, clk.Now().Format(time.RFC3339))
	}
	if got := field(r, "system.numCores"); got != int32(runtime.NumCPU()) {
		t.Errorf("system.numCores = %v, want %d", got, runtime.NumCPU())
	}
	if got := field(r, "system.cpuAddrSize"); got != int32(64) && got != int32(32) {
		t.Errorf("system.cpuAddrSize = %v", got)
	}
	if got, _ := field(r, "os.type").(string); got == "" {
		t.Errorf("os.type is empty: %v", r)
	}
	if runtime.GOOS == "linux" {
		if mb, ok := field(r, "system.memSizeMB").(int32); !ok || mb <= 0 {
			t.Errorf("system.memSizeMB = %v on Linux", field(r, "system.memSizeMB"))
		}
	}
}
