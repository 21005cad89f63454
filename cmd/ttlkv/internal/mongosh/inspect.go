package mongosh

import (
	"encoding/base64"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// breakLength is the width past which inspect puts an object's entries
// on separate lines, as Node's util.inspect (which mongosh uses) does.
const breakLength = 80

// maxArrayItems is how many elements of an array inspect prints before
// "... N more items", as Node's util.inspect (maxArrayLength) does.
const maxArrayItems = 100

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

var identRe = regexp.MustCompile(`^[A-Za-z_$][A-Za-z0-9_$]*$`)

// inspect renders v the way mongosh prints values: { a: 1, b: 'x' },
// ObjectId('...'), ISODate('...'), Long('5'), and so on.
func (s *Shell) inspect(v goja.Value) string {
	return s.render(s.node(v, 0, map[*goja.Object]bool{}), 0)
}

// inspectTop is inspect, except that a string prints as it is.
func (s *Shell) inspectTop(v goja.Value) string {
	if v != nil && goja.IsString(v) {
		return v.String()
	}
	return s.inspect(v)
}

// pnode is a value laid out for printing: a leaf, or a bracketed list of
// entries (each already prefixed with its key) that is printed on one
// line when it fits.
type pnode struct {
	leaf    string
	open    string
	close   string
	entries []pentry
}

type pentry struct {
	key string
	val pnode
}

func (s *Shell) node(v goja.Value, depth int, seen map[*goja.Object]bool) pnode {
	switch {
	case v == nil || goja.IsUndefined(v):
		return pnode{leaf: "undefined"}
	case goja.IsNull(v):
		return pnode{leaf: "null"}
	case goja.IsString(v):
		return pnode{leaf: quoteJS(v.String())}
	}
	o, ok := v.(*goja.Object)
	if !ok {
		return pnode{leaf: v.String()}
	}
	if b := s.boxOf(o); b != nil {
		return pnode{leaf: bsonLeaf(b.v)}
	}
	if c := s.cursorOf(o); c != nil {
		return pnode{leaf: c.String()}
	}
	if o == s.mongoObj {
		return pnode{leaf: s.connDesc}
	}
	switch d := o.Export().(type) {
	case *dbObject:
		return pnode{leaf: d.name}
	case *collObject:
		return pnode{leaf: d.db + "." + d.name}
	}
	if seen[o] || depth > maxDepth {
		return pnode{leaf: "[Circular *]"}
	}
	switch o.ClassName() {
	case "Date":
		ms := s.callMethod(o, "getTime").ToFloat()
		if math.IsNaN(ms) {
			return pnode{leaf: "Invalid Date"}
		}
		return pnode{leaf: bsonLeaf(bson.DateTime(int64(ms)))}
	case "RegExp":
		return pnode{leaf: o.String()}
	case "Function":
		if o == s.minKeyCtor {
			return pnode{leaf: "MinKey()"}
		}
		if o == s.maxKeyCtor {
			return pnode{leaf: "MaxKey()"}
		}
		name := o.Get("name")
		if name == nil || name.String() == "" {
			return pnode{leaf: "[Function (anonymous)]"}
		}
		return pnode{leaf: "[Function: " + name.String() + "]"}
	case "Error":
		return pnode{leaf: o.Get("name").String() + ": " + o.Get("message").String()}
	case "Number", "String", "Boolean":
		return pnode{leaf: "[" + o.ClassName() + ": " + o.String() + "]"}
	}
	seen[o] = true
	defer delete(seen, o)
	if o.ClassName() == "Array" {
		n := int(o.Get("length").ToInteger())
		p := pnode{open: "[", close: "]"}
		for i := 0; i < min(n, maxArrayItems); i++ {
			p.entries = append(p.entries, pentry{val: s.node(o.Get(strconv.Itoa(i)), depth+1, seen)})
		}
		if n > maxArrayItems {
			p.entries = append(p.entries, pentry{val: pnode{leaf: fmt.Sprintf("... %d more item%s", n-maxArrayItems, plural(n-maxArrayItems))}})
		}
		return p
	}
	p := pnode{open: "{", close: "}"}
	for _, k := range o.Keys() {
		key := k
		if !identRe.MatchString(k) {
			key = quoteJS(k)
		}
		p.entries = append(p.entries, pentry{key: key, val: s.node(o.Get(k), depth+1, seen)})
	}
	return p
}

// render lays p out at the given indentation: on one line if it fits
// in breakLength and holds no line break, else one entry per line.
func (s *Shell) render(p pnode, indent int) string {
	if p.open == "" {
		return p.leaf
	}
	if len(p.entries) == 0 {
		return p.open + p.close
	}
	parts := make([]string, len(p.entries))
	total := indent + len(p.open) + 2
	multi := false
	for i, e := range p.entries {
		v := s.render(e.val, indent+2)
		if e.key != "" {
			v = e.key + ": " + v
		}
		parts[i] = v
		total += len(v) + 2
		if strings.Contains(v, "\n") {
			multi = true
		}
	}
	if !multi && total <= breakLength {
		return p.open + " " + strings.Join(parts, ", ") + " " + p.close
	}
	pad := strings.Repeat(" ", indent+2)
	return p.open + "\n" + pad + strings.Join(parts, ",\n"+pad) + "\n" + strings.Repeat(" ", indent) + p.close
}

// bsonLeaf renders a BSON value JavaScript has no literal for, as
// mongosh shows it.
func bsonLeaf(v any) string {
	switch x := v.(type) {
	case bson.ObjectID:
		return "ObjectId('" + x.Hex() + "')"
	case int64:
		return "Long('" + strconv.FormatInt(x, 10) + "')"
	case int32:
		return "Int32(" + strconv.FormatInt(int64(x), 10) + ")"
	case float64:
		return "Double(" + strconv.FormatFloat(x, 'g', -1, 64) + ")"
	case bson.Decimal128:
		return "Decimal128('" + x.String() + "')"
	case bson.DateTime:
		return "ISODate('" + time.UnixMilli(int64(x)).UTC().Format("2006-01-02T15:04:05.000Z07:00") + "')"
	case bson.Timestamp:
		return fmt.Sprintf("Timestamp({ t: %d, i: %d })", x.T, x.I)
	case bson.Binary:
		if x.Subtype == 4 && len(x.Data) == 16 {
			return "UUID('" + uuidString(x.Data) + "')"
		}
		return fmt.Sprintf("Binary.createFromBase64('%s', %d)", base64.StdEncoding.EncodeToString(x.Data), x.Subtype)
	case bson.MinKey:
		return "MinKey()"
	case bson.MaxKey:
		return "MaxKey()"
	case bson.Regex:
		return "BSONRegExp(" + quoteJS(x.Pattern) + ", " + quoteJS(x.Options) + ")"
	}
	return fmt.Sprintf("%v", v)
}

// quoteJS quotes a string as Node does: single quotes unless the string
// holds one, then double quotes, then backquotes.
func quoteJS(str string) string {
	q := byte('\'')
	if strings.IndexByte(str, '\'') >= 0 {
		q = '"'
		if strings.IndexByte(str, '"') >= 0 {
			q = '`'
			if strings.IndexByte(str, '`') >= 0 {
				q = '\''
			}
		}
	}
	var b strings.Builder
	b.WriteByte(q)
	for _, r := range str {
		switch {
		case r == rune(q) || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\x%02X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte(q)
	return b.String()
}
