package document

import (
	"github.com/vmihailenco/msgpack/v5/msgpcode"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// UnmarshalFields decodes from a document encoded by Marshal only its
// top-level fields named in names, in document order (duplicates kept),
// as Unmarshal would decode them; the other fields are stepped over
// without being decoded. A caller that needs a few fields of a large
// document (the TTL monitor computing a document's index keys) saves
// the allocations of the rest.
//
// It never panics and has Unmarshal's bounds: a skipped value's lengths,
// nesting and msgpack codes are checked, so truncated or trailing bytes
// anywhere are errors wrapping ErrCorrupt; the contents of a skipped
// extension value (a date's width, say) are not.
func UnmarshalFields(b []byte, names []string) (bson.D, error) {
	d := getDecoder(b)
	defer putDecoder(d)
	if err := d.topMap(); err != nil {
		return nil, err
	}
	n, err := d.dec.DecodeMapLen()
	if err != nil {
		return nil, d.wrap(err)
	}
	if n < 0 || n > d.r.Len()/2 {
		return nil, corruptf("document of %d fields at byte %d exceeds the %d bytes left", n, d.pos(), d.r.Len())
	}
	var out bson.D
	for i := 0; i < n; i++ {
		k, err := d.fieldName()
		if err != nil {
			return nil, err
		}
		if !wanted(k, names) {
			if err := d.skip(1); err != nil {
				return nil, err
			}
			continue
		}
		v, err := d.value(1)
		if err != nil {
			return nil, err
		}
		if out == nil {
			out = make(bson.D, 0, len(names))
		}
		out = append(out, bson.E{Key: string(k), Value: v})
	}
	if d.r.Len() != 0 {
		return nil, corruptf("%d trailing bytes", d.r.Len())
	}
	if out == nil {
		out = bson.D{}
	}
	return out, nil
}

func wanted(k []byte, names []string) bool {
	for _, n := range names {
		if string(k) == n {
			return true
		}
	}
	return false
}

// fieldName reads a field name without copying it: the bytes alias the
// input.
func (d *decoder) fieldName() ([]byte, error) {
	c, err := d.peek()
	if err != nil {
		return nil, err
	}
	if !msgpcode.IsString(c) {
		return nil, corruptf("field name at byte %d is msgpack code 0x%02x, not a string", d.pos(), c)
	}
	n, err := d.dec.DecodeBytesLen()
	if err != nil {
		return nil, d.wrap(err)
	}
	return d.take(n)
}

// skip steps over one value inside a container at nesting level depth,
// accepting the codes value accepts.
func (d *decoder) skip(depth int) error {
	c, err := d.peek()
	if err != nil {
		return err
	}
	switch {
	case c == msgpcode.Nil, c == msgpcode.True, c == msgpcode.False, msgpcode.IsFixedNum(c):
		_, err := d.take(1)
		return err
	case c == msgpcode.Double, c == msgpcode.Int64:
		_, err := d.take(9)
		return err
	case c == msgpcode.Int8, c == msgpcode.Int16, c == msgpcode.Int32,
		c == msgpcode.Uint8, c == msgpcode.Uint16, c == msgpcode.Uint32:
		// Decoded (not skipped by width) so that the range check of
		// value applies here too.
		_, err := d.value(depth)
		return err
	case msgpcode.IsString(c):
		n, err := d.dec.DecodeBytesLen()
		if err != nil {
			return d.wrap(err)
		}
		_, err = d.take(n)
		return err
	case isMapCode(c):
		if depth+1 > MaxReadDepth {
			return corruptf("nesting deeper than %d levels at byte %d", MaxReadDepth, d.pos())
		}
		n, err := d.dec.DecodeMapLen()
		if err != nil {
			return d.wrap(err)
		}
		if n < 0 || n > d.r.Len()/2 {
			return corruptf("document of %d fields at byte %d exceeds the %d bytes left", n, d.pos(), d.r.Len())
		}
		for i := 0; i < n; i++ {
			if _, err := d.fieldName(); err != nil {
				return err
			}
			if err := d.skip(depth + 1); err != nil {
				return err
			}
		}
		return nil
	case isArrayCode(c):
		if depth+1 > MaxReadDepth {
			return corruptf("nesting deeper than %d levels at byte %d", MaxReadDepth, d.pos())
		}
		n, err := d.dec.DecodeArrayLen()
		if err != nil {
			return d.wrap(err)
		}
		if n < 0 || n > d.r.Len() {
			return corruptf("array of %d elements at byte %d exceeds the %d bytes left", n, d.pos(), d.r.Len())
		}
		for i := 0; i < n; i++ {
			if err := d.skip(depth + 1); err != nil {
				return err
			}
		}
		return nil
	case msgpcode.IsExt(c):
		_, n, err := d.dec.DecodeExtHeader()
		if err != nil {
			return d.wrap(err)
		}
		_, err = d.take(n)
		return err
	}
	return corruptf("unexpected msgpack code 0x%02x at byte %d", c, d.pos())
}
