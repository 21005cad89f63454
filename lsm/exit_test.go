package lsm

import (
	"testing"

	"github.com/ttlkv/ttlkv/internal/testmain"
)

// TestMain ends the binary without the race detector's pause at exit
// (internal/testmain).
func TestMain(m *testing.M) { testmain.Run(m, nil) }
