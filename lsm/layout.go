package lsm

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
)

// KeyLayout is the key layout this version writes: 2, the compact layout
// (compact ids, tags TagRecord and TagIndex). Layout 1 is the first,
// fixed-width one (keys_v1.go). See docs/storage-keys.md.
const KeyLayout = 2

// keyLayoutKey is the meta key holding the store's key layout, one byte.
// Absent: a store that layout 1 wrote, or a new store.
var keyLayoutKey = MetaKey("keyLayout")

// ErrKeyLayout is returned by CheckKeyLayout for a store whose keys this
// version cannot read: a later layout, or layout 1 opened read-only.
var ErrKeyLayout = errors.New("lsm: store key layout")

// upgradeChunk bounds the keys one transaction of UpgradeKeyLayout
// rewrites.
const upgradeChunk = 512

// CheckKeyLayout reports whether the store holds keys of layout 1 that
// UpgradeKeyLayout must rewrite before the store is used. It returns an
// error wrapping ErrKeyLayout for a store marked with a later layout.
func (s *Store) CheckKeyLayout() (upgrade bool, err error) {
	err = s.View(func(t *Txn) error {
		v, err := t.Get(keyLayoutKey)
		switch {
		case err == nil:
			if len(v) != 1 || v[0] > KeyLayout || v[0] == 0 {
				return fmt.Errorf("%w: store written with key layout %x, this version reads up to %d", ErrKeyLayout, v, KeyLayout)
			}
			upgrade = v[0] < KeyLayout
			return nil
		case !errors.Is(err, ErrNotFound):
			return err
		}
		for _, tag := range []byte{tagRecordV1, tagIndexV1} {
			it := t.NewIter(IterOptions{Prefix: []byte{tag}, KeysOnly: true})
			found := it.Next()
			err := it.Err()
			it.Close()
			if err != nil {
				return err
			}
			if found {
				upgrade = true
			}
		}
		return nil
	})
	return upgrade, err
}

// UpgradeKeyLayout rewrites every record and index entry key of layout 1
// into the current layout and then marks the store with KeyLayout. opaque
// names the indexes whose entry keys are not keystring and record id
// after the index prefix: their suffix is kept as it is. Each chunk of
// keys moves in one transaction (the new keys set, the old ones deleted),
// and afterChunk, when not nil, is called after each commit, so a crash
// at any point loses nothing and a later call resumes: a key is in one
// layout or the other, never neither. On a store with nothing to rewrite
// it only writes the mark.
func (s *Store) UpgradeKeyLayout(opaque func(coll, idx uint64) bool, afterChunk func()) error {
	if s.opts.ReadOnly {
		return ErrReadOnly
	}
	for _, tag := range []byte{tagRecordV1, tagIndexV1} {
		lo := []byte{tag}
		for lo != nil {
			var olds, news, vals [][]byte
			err := s.View(func(t *Txn) error {
				it := t.NewIter(IterOptions{Prefix: []byte{tag}, Lower: lo})
				defer it.Close()
				var size int
				for len(olds) < upgradeChunk && size < int(s.MaxBatchSize()/4) && it.Next() {
					k := it.Key()
					nk, err := keyFromV1(k, opaque)
					if err != nil {
						return err
					}
					v, err := it.Value()
					if err != nil {
						return err
					}
					olds = append(olds, bytes.Clone(k))
					news = append(news, nk)
					vals = append(vals, bytes.Clone(v))
					size += 2*len(k) + len(v) + 64
				}
				return it.Err()
			})
			if err != nil {
				return err
			}
			if len(olds) == 0 {
				break
			}
			err = s.Update(func(t *Txn) error {
				for i := range olds {
					if err := t.Set(news[i], vals[i]); err != nil {
						return err
					}
					if err := t.Delete(olds[i]); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				return err
			}
			if afterChunk != nil {
				afterChunk()
			}
			lo = append(olds[len(olds)-1], 0)
		}
	}
	return s.Update(func(t *Txn) error { return t.Set(keyLayoutKey, []byte{KeyLayout}) })
}

// MarkKeyLayout marks a store with KeyLayout without looking for keys to
// rewrite: for a store CheckKeyLayout found nothing to upgrade in.
func (s *Store) MarkKeyLayout() error {
	return s.Update(func(t *Txn) error {
		v, err := t.Get(keyLayoutKey)
		if err == nil && len(v) == 1 && v[0] == KeyLayout {
			return nil
		}
		return t.Set(keyLayoutKey, []byte{KeyLayout})
	})
}

// keyFromV1 returns the current layout's key for k, a record or index
// entry key of layout 1.
func keyFromV1(k []byte, opaque func(coll, idx uint64) bool) ([]byte, error) {
	switch {
	case len(k) == 17 && k[0] == tagRecordV1:
		return RecordKey(binary.BigEndian.Uint64(k[1:]), binary.BigEndian.Uint64(k[9:])), nil
	case len(k) >= 17 && k[0] == tagIndexV1:
		coll, idx := binary.BigEndian.Uint64(k[1:]), binary.BigEndian.Uint64(k[9:])
		if opaque != nil && opaque(coll, idx) {
			return append(IndexPrefix(coll, idx), k[17:]...), nil
		}
		if len(k) < 25 {
			break
		}
		n := len(k) - 8
		return IndexKey(coll, idx, k[17:n], binary.BigEndian.Uint64(k[n:])), nil
	}
	return nil, fmt.Errorf("%w: malformed key %x of layout 1", ErrKeyLayout, k)
}
