package wire

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// The driver's reflection-based bson.Unmarshal and bson.Marshal cost
// more than the engine's work on a batch insert or a find; these two
// functions convert between validated BSON bytes and bson.D directly,
// producing the same Go types as bson.Unmarshal into a bson.D (and
// falling back to the driver for the rare types).

// rawToD converts a validated document. It walks the bytes once with
// no intermediate element list, shares the strings of common field
// names, and copies binary data, so the result never aliases raw (a
// read buffer may be reused).
func rawToD(raw bson.Raw) (bson.D, error) { return rawToDCap(raw, 0) }

// commandToD is rawToDCap for a command's body, except that a session
// id of the shape drivers send ({id: <UUID binary>}) stays a bson.Raw
// slice of body, neither decoded nor copied: nothing in the server
// reads it, the engine never sees it, and only currentOp shows it back
// (shownCommand). Any other lsid is decoded as before, so a body is
// accepted or refused exactly as rawToDCap would.
//
// With strs non-nil, the command's top-level strings (the collection's
// and the database's names, mostly the same from one request to the
// next) are boxed once and shared through strs, a connection's cache.
func commandToD(body bson.Raw, extra int, strs *stringCache) (bson.D, error) {
	return rawToDKeep(body, extra, true, strs)
}

// stringCache holds boxed string values for reuse: a string is
// immutable, so requests may share one boxed copy. It keeps at most
// maxCachedStrings strings of at most maxCachedString bytes, and starts
// over when full. It is not safe for concurrent use (one connection's).
type stringCache struct{ m map[string]any }

const (
	maxCachedStrings = 32
	maxCachedString  = 128
)

// value returns the string element value v (bsoncore's bytes: length,
// the bytes, a NUL) boxed, from the cache when it is there; ok is false
// when v is not a valid BSON string.
func (c *stringCache) value(v bsoncore.Value) (any, bool) {
	b := v.Data
	if len(b) >= 5 && len(b) <= 4+maxCachedString+1 {
		n := int(int32(binary.LittleEndian.Uint32(b)))
		if n == len(b)-4 && b[len(b)-1] == 0 {
			if x, ok := c.m[string(b[4:len(b)-1])]; ok {
				return x, true
			}
		}
	}
	s, ok := v.StringValueOK()
	if !ok {
		return nil, false
	}
	if len(s) > maxCachedString {
		return s, true
	}
	if c.m == nil || len(c.m) >= maxCachedStrings {
		c.m = make(map[string]any, maxCachedStrings)
	}
	var x any = s
	c.m[s] = x
	return x, true
}

// plainLsid reports whether a document is exactly {id: BinData(4, 16
// bytes)}: 30 bytes that are valid BSON whatever the 16 are.
func plainLsid(doc []byte) bool {
	return len(doc) == 30 && binary.LittleEndian.Uint32(doc) == 30 && doc[4] == byte(bsoncore.TypeBinary) &&
		string(doc[5:8]) == "id\x00" && binary.LittleEndian.Uint32(doc[8:]) == 16 && doc[12] == 4 && doc[29] == 0
}

// shownCommand is cmd with a session id commandToD kept raw decoded,
// as currentOp shows and filters it.
func shownCommand(cmd bson.D) bson.D {
	out := make(bson.D, len(cmd))
	for i, e := range cmd {
		if r, ok := e.Value.(bson.Raw); ok && e.Key == "lsid" {
			if d, err := rawToD(r); err == nil {
				e.Value = d
			}
		}
		if a, ok := e.Value.(bson.A); ok && e.Key == "documents" {
			e.Value = shownDocuments(a)
		}
		out[i] = e
	}
	return out
}

// shownDocuments is an insert's documents as currentOp shows them:
// the ones kept as BSON for the engine (server.go's document sequence)
// decoded, so that a currentOp filter on command.documents sees their
// fields as MongoDB's does. One that does not decode stays as it is.
func shownDocuments(a bson.A) bson.A {
	out := make(bson.A, len(a))
	for i, v := range a {
		if r, ok := v.(bson.Raw); ok {
			if d, err := rawToD(r); err == nil {
				v = d
			}
		}
		out[i] = v
	}
	return out
}

// rawToDCap is rawToD leaving room for extra more fields.
func rawToDCap(raw bson.Raw, extra int) (bson.D, error) { return rawToDKeep(raw, extra, false, nil) }

// rawToDKeep is rawToDCap keeping a plain top-level lsid as a bson.Raw
// slice of raw when keepLsid is set, and taking top-level strings from
// strs when it is not nil.
func rawToDKeep(raw bson.Raw, extra int, keepLsid bool, strs *stringCache) (bson.D, error) {
	elems, n, err := countedElems(raw)
	if err != nil {
		return nil, err
	}
	d := make(bson.D, 0, n+extra)
	for len(elems) > 0 {
		el, rest, _ := bsoncore.ReadElement(elems)
		elems = rest
		k, err := el.KeyBytesErr()
		if err != nil {
			return nil, err
		}
		name := fieldName(k)
		if keepLsid && name == "lsid" {
			if v, err := el.ValueErr(); err == nil && v.Type == bsoncore.TypeEmbeddedDocument && plainLsid(v.Data) {
				d = append(d, bson.E{Key: name, Value: bson.Raw(v.Data)})
				continue
			}
		}
		if strs != nil && bsoncore.Type(el[0]) == bsoncore.TypeString {
			v, err := el.ValueErr()
			if err != nil {
				return nil, err
			}
			x, ok := strs.value(v)
			if !ok {
				return nil, errCorrupt
			}
			d = append(d, bson.E{Key: name, Value: x})
			continue
		}
		v, err := coreValue(el)
		if err != nil {
			return nil, err
		}
		d = append(d, bson.E{Key: name, Value: v})
	}
	return d, nil
}

var errCorrupt = errors.New("corrupted BSON document")

// docElems returns the elements of a document: the bytes between its
// length and its final NUL.
func docElems(raw []byte) ([]byte, error) {
	if len(raw) < 5 {
		return nil, errCorrupt
	}
	n := int(binary.LittleEndian.Uint32(raw))
	if n < 5 || n > len(raw) || raw[n-1] != 0 {
		return nil, errCorrupt
	}
	return raw[4 : n-1], nil
}

// countedElems is docElems with the number of elements, so a decoder
// can size what it builds; errCorrupt when an element does not read.
func countedElems(raw []byte) ([]byte, int, error) {
	elems, err := docElems(raw)
	if err != nil {
		return nil, 0, err
	}
	n := 0
	for r := elems; len(r) > 0; n++ {
		var ok bool
		if _, r, ok = bsoncore.ReadElement(r); !ok {
			return nil, 0, errCorrupt
		}
	}
	return elems, n, nil
}

func rawToA(raw []byte) (bson.A, error) {
	elems, n, err := countedElems(raw)
	if err != nil {
		return nil, err
	}
	a := make(bson.A, 0, n)
	for len(elems) > 0 {
		el, rest, _ := bsoncore.ReadElement(elems)
		elems = rest
		v, err := coreValue(el)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
	}
	return a, nil
}

// commonFields are field names shared instead of allocated for each
// command: the commands' own and the usual document fields.
var commonFields = func() map[string]string {
	m := map[string]string{}
	for _, k := range []string{"_id", "$db", "lsid", "id", "insert", "documents", "ordered", "find", "filter",
		"limit", "singleBatch", "batchSize", "getMore", "collection", "update", "updates", "delete", "deletes",
		"q", "u", "multi", "upsert", "writeConcern", "w", "j", "wtimeout", "$clusterTime", "clusterTime",
		"signature", "hash", "keyId", "txnNumber", "autocommit", "maxTimeMS", "comment", "sort", "projection",
		"skip", "hint", "aggregate", "pipeline", "cursor", "killCursors", "cursors", "$readPreference", "mode",
		"ping", "hello", "isMaster", "ismaster", "endSessions", "count", "query", "distinct", "key",
		"findAndModify", "remove", "new", "fields", "apiVersion", "readConcern", "level"} {
		m[k] = k
	}
	return m
}()

func fieldName(k []byte) string {
	if s, ok := commonFields[string(k)]; ok {
		return s
	}
	return string(k)
}

// coreValue converts one element's value to the Go type bson.Unmarshal
// into a bson.D gives it.
func coreValue(el bsoncore.Element) (any, error) {
	v, err := el.ValueErr()
	if err != nil {
		return nil, err
	}
	ok := true
	var out any
	switch v.Type {
	case bsoncore.TypeDouble:
		out, ok = v.DoubleOK()
	case bsoncore.TypeString:
		out, ok = v.StringValueOK()
	case bsoncore.TypeEmbeddedDocument:
		return rawToD(bson.Raw(v.Data))
	case bsoncore.TypeArray:
		return rawToA(v.Data)
	case bsoncore.TypeBinary:
		var st byte
		var data []byte
		if st, data, ok = v.BinaryOK(); ok {
			out = bson.Binary{Subtype: st, Data: bytes.Clone(data)}
		}
	case bsoncore.TypeObjectID:
		var id [12]byte
		id, ok = v.ObjectIDOK()
		out = bson.ObjectID(id)
	case bsoncore.TypeBoolean:
		out, ok = v.BooleanOK()
	case bsoncore.TypeDateTime:
		var ms int64
		ms, ok = v.DateTimeOK()
		out = bson.DateTime(ms)
	case bsoncore.TypeNull:
		return nil, nil
	case bsoncore.TypeInt32:
		out, ok = v.Int32OK()
	case bsoncore.TypeInt64:
		out, ok = v.Int64OK()
	case bsoncore.TypeTimestamp:
		var t, i uint32
		t, i, ok = v.TimestampOK()
		out = bson.Timestamp{T: t, I: i}
	case bsoncore.TypeDecimal128:
		var h, l uint64
		h, l, ok = v.Decimal128OK()
		out = bson.NewDecimal128(h, l)
	default:
		var x any
		err := bson.RawValue{Type: bson.Type(v.Type), Value: bytes.Clone(v.Data)}.Unmarshal(&x)
		return x, err
	}
	if !ok {
		return nil, errCorrupt
	}
	return out, nil
}

// marshalD encodes d, as bson.Marshal does.
func marshalD(d bson.D) ([]byte, error) { return appendD(make([]byte, 0, 256), d) }

func appendD(dst []byte, d bson.D) ([]byte, error) {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	var err error
	for _, e := range d {
		if dst, err = appendElem(dst, e.Key, e.Value); err != nil {
			return nil, err
		}
	}
	dst = append(dst, 0)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst, nil
}

func appendA(dst []byte, a bson.A) ([]byte, error) {
	start := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	var err error
	var key [20]byte
	for i, v := range a {
		k := appendIndex(key[:0], i)
		if dst, err = appendElem(dst, k, v); err != nil {
			return nil, err
		}
	}
	dst = append(dst, 0)
	binary.LittleEndian.PutUint32(dst[start:], uint32(len(dst)-start))
	return dst, nil
}

func appendIndex(b []byte, i int) []byte {
	if i < 10 {
		return append(b, byte('0'+i))
	}
	var tmp [20]byte
	n := len(tmp)
	for i > 0 {
		n--
		tmp[n] = byte('0' + i%10)
		i /= 10
	}
	return append(b, tmp[n:]...)
}

// bsonKey is a field name as a string, or an array index as the bytes
// of its decimal digits (no string to allocate for each element).
type bsonKey interface{ ~string | ~[]byte }

func appendKey[K bsonKey](dst []byte, t bson.Type, key K) ([]byte, error) {
	for i := 0; i < len(key); i++ {
		if key[i] == 0 {
			return nil, fmt.Errorf("BSON element key %q contains a NUL byte", key)
		}
	}
	dst = append(dst, byte(t))
	dst = append(dst, key...)
	return append(dst, 0), nil
}

func appendElem[K bsonKey](dst []byte, key K, v any) ([]byte, error) {
	var err error
	switch x := v.(type) {
	case bson.D:
		if dst, err = appendKey(dst, bson.TypeEmbeddedDocument, key); err != nil {
			return nil, err
		}
		return appendD(dst, x)
	case bson.A:
		if dst, err = appendKey(dst, bson.TypeArray, key); err != nil {
			return nil, err
		}
		return appendA(dst, x)
	case string:
		if dst, err = appendKey(dst, bson.TypeString, key); err != nil {
			return nil, err
		}
		dst = binary.LittleEndian.AppendUint32(dst, uint32(len(x)+1))
		dst = append(dst, x...)
		return append(dst, 0), nil
	case int32:
		if dst, err = appendKey(dst, bson.TypeInt32, key); err != nil {
			return nil, err
		}
		return binary.LittleEndian.AppendUint32(dst, uint32(x)), nil
	case int64:
		if dst, err = appendKey(dst, bson.TypeInt64, key); err != nil {
			return nil, err
		}
		return binary.LittleEndian.AppendUint64(dst, uint64(x)), nil
	case float64:
		if dst, err = appendKey(dst, bson.TypeDouble, key); err != nil {
			return nil, err
		}
		return binary.LittleEndian.AppendUint64(dst, math.Float64bits(x)), nil
	case bool:
		if dst, err = appendKey(dst, bson.TypeBoolean, key); err != nil {
			return nil, err
		}
		if x {
			return append(dst, 1), nil
		}
		return append(dst, 0), nil
	case nil:
		return appendKey(dst, bson.TypeNull, key)
	case bson.ObjectID:
		if dst, err = appendKey(dst, bson.TypeObjectID, key); err != nil {
			return nil, err
		}
		return append(dst, x[:]...), nil
	case bson.DateTime:
		if dst, err = appendKey(dst, bson.TypeDateTime, key); err != nil {
			return nil, err
		}
		return binary.LittleEndian.AppendUint64(dst, uint64(x)), nil
	case bson.Raw:
		// A document already encoded (engine.DB.RunCommandRaw's batches).
		if dst, err = appendKey(dst, bson.TypeEmbeddedDocument, key); err != nil {
			return nil, err
		}
		return append(dst, x...), nil
	}
	t, b, err := bson.MarshalValue(v)
	if err != nil {
		return nil, err
	}
	if dst, err = appendKey(dst, t, key); err != nil {
		return nil, err
	}
	return append(dst, b...), nil
}
