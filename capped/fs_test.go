package capped

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"
)

// memFS is an in-memory FS for tests. It can log writes (to build crash
// images) and fail the N-th operation (fault injection).
type memFS struct {
	mu     sync.Mutex
	files  map[string]*memData
	log    []write // writes since logging started, when logging
	syncs  []int   // len(log) at each file Sync, when logging
	logOn  bool
	ops    int // operations so far
	failAt int // fail the failAt-th operation (1-based); 0: never
	failed bool
}

type write struct {
	off  int64
	data []byte
}

type memData struct{ b []byte }

type memFile struct {
	fs   *memFS
	d    *memData
	name string
}

var errInjected = errors.New("injected fault")

func newMemFS() *memFS { return &memFS{files: map[string]*memData{}} }

// op counts an operation and reports whether it must fail.
func (m *memFS) op() bool {
	m.ops++
	if m.failAt != 0 && m.ops == m.failAt {
		m.failed = true
		return true
	}
	return false
}

func (m *memFS) OpenFile(name string, flag int, perm os.FileMode) (File, error) {
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
		d = &memData{}
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
	delete(m.files, name)
	return nil
}

func (m *memFS) SyncDir(string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.op() {
		return errInjected
	}
	return nil
}

// image returns a copy of a file's bytes.
func (m *memFS) image(name string) []byte {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]byte(nil), m.files[name].b...)
}

func (m *memFS) startLog() {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.log, m.syncs, m.logOn = nil, nil, true
}

// syncPoints returns, for each file Sync since logging started, how many
// writes had been logged before it.
func (m *memFS) syncPoints() []int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]int(nil), m.syncs...)
}

func (m *memFS) writes() []write {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]write(nil), m.log...)
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
	if fail {
		p = p[:len(p)/2] // a torn write: half of it lands
	}
	if end := off + int64(len(p)); end > int64(len(f.d.b)) {
		f.d.b = append(f.d.b, make([]byte, end-int64(len(f.d.b)))...)
	}
	copy(f.d.b[off:], p)
	if f.fs.logOn {
		f.fs.log = append(f.fs.log, write{off, append([]byte(nil), p...)})
	}
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
	if f.fs.logOn {
		f.fs.syncs = append(f.fs.syncs, len(f.fs.log))
	}
	return nil
}

func (f *memFile) Close() error {
	f.fs.mu.Lock()
	defer f.fs.mu.Unlock()
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
	return memInfo{name: f.name, size: int64(len(f.d.b))}, nil
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

var _ = fmt.Sprint
