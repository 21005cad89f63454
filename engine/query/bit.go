package query

import (
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// bitOp is one operation of a $bit modifier: and, or or xor with an
// integer.
type bitOp struct {
	op string
	v  any // int32 or int64
}

// parseBit reads $bit's argument, {and|or|xor: <int32 or int64>, ...}.
func parseBit(m *modifier, v any) error {
	d, ok := v.(bson.D)
	if !ok {
		return badValue("The $bit modifier is not compatible with a %s. You must pass in an embedded document: {$bit: {field: {and/or/xor: #}}", typeName(v))
	}
	if len(d) == 0 {
		return badValue("You must pass in at least one bitwise operation. The format is: {$bit: {field: {and/or/xor: #}}")
	}
	for _, e := range d {
		switch e.Key {
		case "and", "or", "xor":
		default:
			return badValue("The $bit modifier only supports 'and', 'or', and 'xor', not '%s' which is an unknown operator: {%s: %s}", e.Key, e.Key, document.Format(e.Value))
		}
		switch e.Value.(type) {
		case int32, int64:
		default:
			return badValue("The $bit modifier field must be an Integer(32/64 bit); a '%s' is not supported here: {%s: %s}", typeName(e.Value), e.Key, document.Format(e.Value))
		}
		m.bits = append(m.bits, bitOp{e.Key, e.Value})
	}
	return nil
}

// applyBit is $bit on the value cur (missing: 0 of the first operand's
// type): each operation in turn; an int32 meeting an int64 becomes one.
func (m *modifier) applyBit(cur any, exists bool, orig bson.D) (any, action, error) {
	if !exists {
		cur = int32(0)
		if _, long := m.bits[0].v.(int64); long {
			cur = int64(0)
		}
	}
	switch cur.(type) {
	case int32, int64:
	default:
		// mongod prints the _id element without braces here.
		return nil, 0, badValue("Cannot apply $bit to a value of non-integral type.%s has the field %s of non-integer type %s",
			idField(orig), m.parts[len(m.parts)-1], typeName(cur))
	}
	for _, b := range m.bits {
		x, x64 := cur.(int64)
		y, y64 := b.v.(int64)
		if !x64 {
			x = int64(cur.(int32))
		}
		if !y64 {
			y = int64(b.v.(int32))
		}
		var r int64
		switch b.op {
		case "and":
			r = x & y
		case "or":
			r = x | y
		case "xor":
			r = x ^ y
		}
		if x64 || y64 {
			cur = r
		} else {
			cur = int32(r)
		}
	}
	return cur, actSet, nil
}
