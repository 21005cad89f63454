package wire

import (
	"encoding/binary"
	"fmt"
	"math"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// The driver's reflection-based bson.Unmarshal and bson.Marshal cost
// more than the engine's work on a batch insert or a find; these two
// functions convert between validated BSON bytes and bson.D directly,
// producing the same Go types as bson.Unmarshal into a bson.D (and
// falling back to the driver for the rare types).

// rawToD converts a validated document.
func rawToD(raw bson.Raw) (bson.D, error) {
	elems, err := raw.Elements()
	if err != nil {
		return nil, err
	}
	d := make(bson.D, len(elems))
	for i, e := range elems {
		v, err := rawValue(e.Value())
		if err != nil {
			return nil, err
		}
		d[i] = bson.E{Key: e.Key(), Value: v}
	}
	return d, nil
}

func rawToA(raw bson.Raw) (bson.A, error) {
	vals, err := raw.Values()
	if err != nil {
		return nil, err
	}
	a := make(bson.A, len(vals))
	for i, rv := range vals {
		v, err := rawValue(rv)
		if err != nil {
			return nil, err
		}
		a[i] = v
	}
	return a, nil
}

func rawValue(rv bson.RawValue) (any, error) {
	switch rv.Type {
	case bson.TypeDouble:
		return rv.Double(), nil
	case bson.TypeString:
		return rv.StringValue(), nil
	case bson.TypeEmbeddedDocument:
		return rawToD(rv.Document())
	case bson.TypeArray:
		return rawToA(bson.Raw(rv.Array()))
	case bson.TypeBinary:
		st, data := rv.Binary()
		return bson.Binary{Subtype: st, Data: data}, nil
	case bson.TypeObjectID:
		return rv.ObjectID(), nil
	case bson.TypeBoolean:
		return rv.Boolean(), nil
	case bson.TypeDateTime:
		return bson.DateTime(rv.DateTime()), nil
	case bson.TypeNull:
		return nil, nil
	case bson.TypeInt32:
		return rv.Int32(), nil
	case bson.TypeInt64:
		return rv.Int64(), nil
	case bson.TypeTimestamp:
		t, i := rv.Timestamp()
		return bson.Timestamp{T: t, I: i}, nil
	case bson.TypeDecimal128:
		return rv.Decimal128(), nil
	}
	var v any
	err := rv.Unmarshal(&v)
	return v, err
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
		if dst, err = appendElem(dst, string(k), v); err != nil {
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

func appendKey(dst []byte, t bson.Type, key string) ([]byte, error) {
	for i := 0; i < len(key); i++ {
		if key[i] == 0 {
			return nil, fmt.Errorf("BSON element key %q contains a NUL byte", key)
		}
	}
	dst = append(dst, byte(t))
	dst = append(dst, key...)
	return append(dst, 0), nil
}

func appendElem(dst []byte, key string, v any) ([]byte, error) {
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
