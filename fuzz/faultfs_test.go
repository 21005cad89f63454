package fuzz

import (
	"errors"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/ttlkv/ttlkv/capped"
)

// errInjected is the error every injected fault returns.
var errInjected = errors.New("fuzz: injected fault")

// sectorSize is the unit a power cut tears.
const sectorSize = 512

// memFS is an in-memory capped.FS that keeps, per file, the bytes the
// process sees and the bytes that would survive a power cut (those
// covered by a Sync). It injects two kinds of fault:
//   - failAt: the failAt-th operation (1-based, counting every call)
//     fails; with forever, every later one fails too. A failing WriteAt
//     lands half its bytes, as a torn write would.
//   - cutAt: at the cutAt-th operation the power goes: it and every
//     later operation fail, and crashImage returns the durable state
//     plus the last unsynced write torn inside a sector.
//
// Use a fresh memFS per run; it is safe for concurrent use.
type memFS struct {
	mu      sync.Mutex
	files   map[string]*memData
	ops     int
	failAt  int
	forever bool
	cutAt   int
	cut     bool
	faulted bool // a fault was injected
	rng     *rand.Rand
}

type memData struct {
	b       []byte // what reads see
	durable []byte // what survives a power cut
	// last is the newest write since the last Sync (nil: none).
	last    *pendingWrite
	created bool // created and its directory not yet synced
}

type pendingWrite struct {
	off  int64
	data []byte
}

func newMemFS(seed uint64) *memFS {
	return &memFS{files: map[string]*memData{}, rng: rand.New(rand.NewPCG(seed, 1))}
}

// op counts an operation and reports whether it must fail.
func (m *memFS) op() bool {
	m.ops++
	switch {
	case m.cut:
		return true
	case m.cutAt != 0 && m.ops >= m.cutAt:
		m.cut, m.faulted = true, true
		return true
	case m.failAt != 0 && (m.ops == m.failAt || m.forever && m.ops > m.failAt):
		m.faulted = true
		return true
	}
	return false
}

// heal stops injecting faults (a restart on a healthy disk).
func (m *memFS) heal() {
	m.mu.Lock()
	m.failAt, m.cutAt, m.forever = 0, 0, false
	m.mu.Unlock()
}

// powerLoss replaces every file by what survives a power cut: its
// durable bytes, plus a torn prefix of its newest unsynced write (whole
// sectors, then a sector half new bytes and half garbage). Files whose
// creation was never made durable by SyncDir vanish.
func (m *memFS) powerLoss() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for name, d := range m.files {
		if d.created {
			delete(m.files, name)
			continue
		}
		img := append([]byte(nil), d.durable...)
		if w := d.last; w != nil && len(w.data) > 0 {
			cut := m.rng.IntN(len(w.data) + 1)
			end := w.off + int64(cut)
			if need := w.off + int64(len(w.data)); need > int64(len(img)) {
				img = append(img, make([]byte, need-int64(len(img)))...)
			}
			copy(img[w.off:end], w.data[:cut])
			// The sector holding the cut is garbage past it.
			sectorEnd := min((end/sectorSize+1)*sectorSize, w.off+int64(len(w.data)))
			for i := end; i < sectorEnd; i++ {
				img[i] = 0xA5
			}
		}
		d.b, d.durable, d.last = img, append([]byte(nil), img...), nil
	}
	m.cut, m.cutAt = false, 0
}

func (m *memFS) OpenFile(name string, flag int, perm os.FileMode) (capped.File, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.op() {
		return nil, errInjected
	}
	d, ok := m.files[name]
	if ok && flag&os.O_EXCL != 0 {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrExist}
	}
	if !ok {
		if flag&os.O_CREATE == 0 {
			return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
		}
		d = &memData{created: true}
		m.files[name] = d
	}
	return &memFile{fs: m, d: d, name: name}, nil
}

func (m *memFS) Remove(name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.op() {
		return errInjected
	}
	if _, ok := m.files[name]; !ok {
		return &fs.PathError{Op: "remove", Path: name, Err: fs.ErrNotExist}
	}
	delete(m.files, name)
	return nil
}

func (m *memFS) SyncDir(dir string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.op() {
		return errInjected
	}
	for name, d := range m.files {
		if filepath.Dir(name) == filepath.Clean(dir) {
			d.created = false
		}
	}
	return nil
}

type memFile struct {
	fs     *memFS
	d      *memData
	name   string
	closed bool
}

func (f *memFile) ReadAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.fs.op() {
		return 0, errInjected
	}
	if off < 0 {
		return 0, errors.New("negative offset")
	}
	if off >= int64(len(f.d.b)) {
		return 0, io.EOF
	}
	n := copy(p, f.d.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

func (f *memFile) WriteAt(p []byte, off int64) (int, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	fail := f.fs.op()
	if f.fs.cut {
		return 0, errInjected // no power: nothing lands
	}
	if fail {
		p = p[:len(p)/2] // a torn write: half of it lands
	}
	if end := off + int64(len(p)); end > int64(len(f.d.b)) {
		f.d.b = append(f.d.b, make([]byte, end-int64(len(f.d.b)))...)
	}
	copy(f.d.b[off:], p)
	f.d.last = &pendingWrite{off: off, data: append([]byte(nil), p...)}
	if fail {
		return len(p), errInjected
	}
	return len(p), nil
}

func (f *memFile) Sync() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.fs.op() {
		return errInjected
	}
	f.d.durable = append(f.d.durable[:0], f.d.b...)
	f.d.last = nil
	return nil
}

func (f *memFile) Close() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.closed {
		return os.ErrClosed
	}
	f.closed = true
	if f.fs.op() {
		return errInjected
	}
	return nil
}

func (f *memFile) Truncate(size int64) error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.fs.op() {
		return errInjected
	}
	if size < int64(len(f.d.b)) {
		f.d.b = f.d.b[:size]
	} else {
		f.d.b = append(f.d.b, make([]byte, size-int64(len(f.d.b)))...)
	}
	return nil
}

func (f *memFile) Stat() (os.FileInfo, error) {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
	if f.fs.op() {
		return nil, errInjected
	}
	return memInfo{name: filepath.Base(f.name), size: int64(len(f.d.b))}, nil
}

type memInfo struct {
	name string
	size int64
}

func (i memInfo) Name() string       { return i.name }
func (i memInfo) Size() int64        { return i.size }
func (i memInfo) Mode() os.FileMode  { return 0o644 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
