// Package collation is MongoDB's collation: the parsing and validation
// of a collation document ({locale: "en", strength: 2, ...}), the full
// specification MongoDB reports back (listCollections, listIndexes,
// explain), a string comparator, and collation keys, byte strings whose
// byte order is the collation's order, used as index keys.
//
// It is built on golang.org/x/text/collate, which implements the Unicode
// Collation Algorithm with CLDR tailorings as ICU does. Options x/text
// cannot honour exactly are refused with an error rather than ignored;
// docs/collation.md lists them.
//
// A nil *Collator is the simple (binary) collation: strings compare by
// their UTF-8 bytes. Every method of *Collator accepts a nil receiver.
package collation

import (
	"bytes"
	"math"
	"strconv"
	"strings"
	"sync"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
	"golang.org/x/text/collate"
	"golang.org/x/text/language"
)

// Version is the collator version ttlkv reports in a full collation
// specification; it is the ICU version MongoDB 5.0 and later report, so
// that specifications round-trip between ttlkv and MongoDB tools. A
// request for another version is 161 IncompatibleCollationVersion.
const Version = "57.1"

// Error codes specific to collation parsing.
const (
	// CodeIncompatibleCollationVersion is returned for a version field
	// other than Version.
	CodeIncompatibleCollationVersion document.Code = 161
	// CodeIDLValidator is MongoDB's code for a number outside the range
	// its command parser allows (strength below 0 or above 5).
	CodeIDLValidator document.Code = 51024
)

// Spec is a complete collation specification, every field filled. The
// zero Spec is not valid; use Parse.
type Spec struct {
	Locale          string // as the user spelt it, "en_US", "de@collation=phonebook"
	CaseLevel       bool   // false (ttlkv refuses true)
	CaseFirst       string // "off" (ttlkv refuses "upper" and "lower")
	Strength        int    // 1 primary (base letters) .. 5 identical
	NumericOrdering bool   // digit runs compare as numbers
	Alternate       string // "non-ignorable" or "shifted"
	MaxVariable     string // "punct" (ttlkv refuses "space")
	Normalization   bool   // as requested; ttlkv always normalises (docs/collation.md)
	Backwards       bool   // secondary differences compared from the end (French)
	Version         string // Version
}

// Doc returns the specification as MongoDB reports it, every field
// present, in MongoDB's order.
func (s Spec) Doc() bson.D {
	return bson.D{
		{Key: "locale", Value: s.Locale},
		{Key: "caseLevel", Value: s.CaseLevel},
		{Key: "caseFirst", Value: s.CaseFirst},
		{Key: "strength", Value: int32(s.Strength)},
		{Key: "numericOrdering", Value: s.NumericOrdering},
		{Key: "alternate", Value: s.Alternate},
		{Key: "maxVariable", Value: s.MaxVariable},
		{Key: "normalization", Value: s.Normalization},
		{Key: "backwards", Value: s.Backwards},
		{Key: "version", Value: s.Version},
	}
}

// Collator compares strings under one collation. It is immutable and safe
// for concurrent use. A nil *Collator is the simple collation.
type Collator struct {
	spec Spec
	pool sync.Pool // of *worker
}

// worker is one x/text collator and its key buffer; x/text collators are
// not safe for concurrent use, so each goroutine borrows one.
type worker struct {
	c   *collate.Collator
	buf collate.Buffer
}

// Spec returns the collator's full specification. The simple collation
// has none: it returns the zero Spec with Locale "simple".
func (c *Collator) Spec() Spec {
	if c == nil {
		return Spec{Locale: "simple"}
	}
	return c.spec
}

// Doc returns the full specification document, or nil for the simple
// collation (MongoDB omits the collation of a collection or index that
// has the simple one).
func (c *Collator) Doc() bson.D {
	if c == nil {
		return nil
	}
	return c.spec.Doc()
}

// IsSimple reports whether c is the simple (binary) collation.
func (c *Collator) IsSimple() bool { return c == nil }

// Equal reports whether a and b order and match strings the same way:
// both simple, or with equal specifications.
func Equal(a, b *Collator) bool {
	if a == nil || b == nil {
		return a == nil && b == nil
	}
	return a.spec == b.spec
}

// Parse parses a collation document as the find, aggregate, create and
// createIndexes commands accept it, and returns its collator: nil for
// {locale: "simple"}. A malformed document is a *document.Error with
// MongoDB's code: 14 TypeMismatch for a field of the wrong type,
// 40414 for a missing locale, 40415 for an unknown field, 2 BadValue for
// an invalid locale or enumeration value, 9 FailedToParse for strength 0
// or for other fields beside locale "simple", 51024 for strength outside
// 0..5, 161 IncompatibleCollationVersion for another version, and
// 2 BadValue for an option x/text cannot honour (docs/collation.md).
func Parse(v any) (*Collator, error) {
	d, ok := v.(bson.D)
	if !ok {
		return nil, document.Errorf(document.CodeTypeMismatch,
			"BSON field 'collation' is the wrong type '%s', expected type 'object'", document.TypeName(v))
	}
	s := Spec{CaseFirst: "off", Strength: 3, Alternate: "non-ignorable", MaxVariable: "punct", Version: Version}
	hasLocale := false
	seen := map[string]bool{}
	for _, e := range d {
		if seen[e.Key] {
			return nil, document.Errorf(document.CodeIDLFailedToParse, "BSON field 'collation.%s' is a duplicate field", e.Key)
		}
		seen[e.Key] = true
		var err error
		switch e.Key {
		case "locale":
			s.Locale, err = str(e)
			hasLocale = true
		case "caseLevel":
			s.CaseLevel, err = boolean(e)
		case "caseFirst":
			s.CaseFirst, err = enum(e, "upper", "lower", "off")
		case "strength":
			s.Strength, err = strength(e)
		case "numericOrdering":
			s.NumericOrdering, err = boolean(e)
		case "alternate":
			s.Alternate, err = enum(e, "non-ignorable", "shifted")
		case "maxVariable":
			s.MaxVariable, err = enum(e, "punct", "space")
		case "normalization":
			s.Normalization, err = boolean(e)
		case "backwards":
			s.Backwards, err = boolean(e)
		case "version":
			s.Version, err = str(e)
		default:
			return nil, document.Errorf(document.CodeIDLUnknownField, "BSON field 'collation.%s' is an unknown field.", e.Key)
		}
		if err != nil {
			return nil, err
		}
	}
	if !hasLocale {
		return nil, document.Errorf(document.CodeIDLFailedToParse, "BSON field 'collation.locale' is missing but a required field")
	}
	if s.Locale == "simple" {
		if len(d) > 1 {
			return nil, document.Errorf(document.CodeFailedToParse,
				"If locale=simple, no other fields should be present in: %s", document.Format(d))
		}
		return nil, nil
	}
	if s.Strength == 0 {
		return nil, document.Errorf(document.CodeFailedToParse, "Field 'strength' must be an integer 1 through 5. Got: 0")
	}
	if s.Version != Version {
		return nil, document.Errorf(CodeIncompatibleCollationVersion,
			"Requested collation version %s but the only available collator version was %s. Requested collation spec: %s",
			s.Version, Version, document.Format(d))
	}
	tag, err := localeTag(s.Locale, d)
	if err != nil {
		return nil, err
	}
	if err := unsupported(s); err != nil {
		return nil, err
	}
	c := &Collator{spec: s}
	opts := options(s)
	c.pool.New = func() any { return &worker{c: collate.New(tag, opts...)} }
	// Build one now so a table problem shows at parse time, not later.
	c.pool.Put(c.pool.New())
	return c, nil
}

// MustParse is Parse for collations written in code; it panics on error.
func MustParse(d bson.D) *Collator {
	c, err := Parse(d)
	if err != nil {
		panic(err)
	}
	return c
}

// unsupported refuses the options x/text cannot honour exactly.
func unsupported(s Spec) error {
	switch {
	case s.CaseFirst != "off":
		return document.Errorf(document.CodeBadValue,
			"collation caseFirst '%s' is not supported by ttlkv; only 'off' is (docs/collation.md)", s.CaseFirst)
	case s.CaseLevel:
		return document.Errorf(document.CodeBadValue,
			"collation caseLevel true is not supported by ttlkv (docs/collation.md)")
	case s.MaxVariable != "punct":
		return document.Errorf(document.CodeBadValue,
			"collation maxVariable '%s' is not supported by ttlkv; only 'punct' is (docs/collation.md)", s.MaxVariable)
	}
	return nil
}

// options maps a specification onto x/text's collator options, set as
// Unicode locale extension keys so that each option is independent.
func options(s Spec) []collate.Option {
	var u []string
	switch s.Strength {
	case 1:
		u = append(u, "ks-level1")
	case 2:
		u = append(u, "ks-level2")
	case 4:
		u = append(u, "ks-level4")
	case 5:
		u = append(u, "ks-identic")
	}
	if s.NumericOrdering {
		u = append(u, "kn-true")
	}
	if s.Backwards {
		u = append(u, "kb-true")
	}
	if s.Alternate == "shifted" {
		u = append(u, "ka-shifted")
	}
	if len(u) == 0 {
		return nil
	}
	t := language.MustParse("und-u-" + strings.Join(u, "-"))
	return []collate.Option{collate.OptionsFromTag(t)}
}

// collationKeywords maps ICU's @collation= names to BCP 47 -u-co- values.
var collationKeywords = map[string]string{
	"phonebook": "phonebk", "traditional": "trad", "dictionary": "dict",
	"pinyin": "pinyin", "stroke": "stroke", "standard": "standard", "search": "search",
	"unihan": "unihan", "zhuyin": "zhuyin", "big5han": "big5han", "gb2312han": "gb2312",
	"phonetic": "phonetic", "reformed": "reformed", "eor": "eor",
}

// localeTag converts an ICU locale id ("en_US", "de@collation=phonebook")
// to a language tag, refusing what is not a valid locale.
func localeTag(loc string, spec bson.D) (language.Tag, error) {
	invalid := func() error {
		return document.Errorf(document.CodeBadValue, "Field 'locale' is invalid in: %s", document.Format(spec))
	}
	if loc == "" {
		return language.Und, document.Errorf(document.CodeBadValue,
			"Field 'locale' cannot be the empty string in: %s", document.Format(spec))
	}
	if strings.IndexByte(loc, 0) >= 0 || strings.ContainsAny(loc, "- ") {
		return language.Und, invalid()
	}
	base, kw, hasKw := strings.Cut(loc, "@")
	id := strings.ReplaceAll(base, "_", "-")
	if id == "root" {
		id = "und"
	}
	if hasKw {
		k, v, ok := strings.Cut(kw, "=")
		co, known := collationKeywords[v]
		if !ok || k != "collation" || !known {
			return language.Und, invalid()
		}
		id += "-u-co-" + co
	}
	tag, err := language.Parse(id)
	if err != nil {
		return language.Und, invalid()
	}
	if base == "root" {
		return tag, nil
	}
	if b, conf := tag.Base(); conf != language.Exact || b.String() == "und" {
		return language.Und, invalid()
	}
	return tag, nil
}

func str(e bson.E) (string, error) {
	s, ok := e.Value.(string)
	if !ok {
		return "", wrongType(e, "string")
	}
	return s, nil
}

func boolean(e bson.E) (bool, error) {
	b, ok := e.Value.(bool)
	if !ok {
		return false, wrongType(e, "bool")
	}
	return b, nil
}

func enum(e bson.E, values ...string) (string, error) {
	s, ok := e.Value.(string)
	if !ok {
		return "", wrongType(e, "string")
	}
	for _, v := range values {
		if s == v {
			return s, nil
		}
	}
	return "", document.Errorf(document.CodeBadValue,
		"Enumeration value '%s' for field 'collation.%s' is not a valid value.", s, e.Key)
}

// strength reads strength as MongoDB's parser does: any number, whole
// part taken, within 0..5.
func strength(e bson.E) (int, error) {
	var f float64
	switch n := e.Value.(type) {
	case int:
		f = float64(n)
	case int32:
		f = float64(n)
	case int64:
		f = float64(n)
	case float64:
		f = n
	case bson.Decimal128:
		var err error
		if f, err = strconv.ParseFloat(n.String(), 64); err != nil {
			f = math.NaN()
		}
	default:
		return 0, document.Errorf(document.CodeTypeMismatch,
			"BSON field 'collation.strength' is the wrong type '%s', expected types '[long, int, decimal, double]'",
			document.TypeName(e.Value))
	}
	if math.IsNaN(f) {
		return 0, document.Errorf(document.CodeBadValue, "BSON field 'collation.strength' cannot be NaN")
	}
	f = math.Trunc(f)
	if f < 0 {
		return 0, document.Errorf(CodeIDLValidator, "BSON field 'strength' value must be >= 0, actual value '%d'", int64(f))
	}
	if f > 5 {
		return 0, document.Errorf(CodeIDLValidator, "BSON field 'strength' value must be <= 5, actual value '%s'", document.Format(e.Value))
	}
	return int(f), nil
}

func wrongType(e bson.E, want string) error {
	return document.Errorf(document.CodeTypeMismatch,
		"BSON field 'collation.%s' is the wrong type '%s', expected type '%s'", e.Key, document.TypeName(e.Value), want)
}

// Compare compares two strings under the collation: -1, 0 or +1.
func (c *Collator) Compare(a, b string) int {
	if c == nil {
		return strings.Compare(a, b)
	}
	// Keys, not x/text's incremental CompareString, which disagrees with
	// the keys under alternate "shifted"; an index holds keys, so keys are
	// the truth.
	w := c.pool.Get().(*worker)
	ka := w.c.KeyFromString(&w.buf, a)
	kb := w.c.KeyFromString(&w.buf, b)
	r := bytes.Compare(ka, kb)
	w.buf.Reset()
	c.pool.Put(w)
	return r
}

// Key returns the collation key of s: for any strings a and b,
// bytes.Compare(c.Key(a), c.Key(b)) == c.Compare(a, b). The simple
// collation's key is s itself.
func (c *Collator) Key(s string) []byte {
	if c == nil {
		return []byte(s)
	}
	w := c.pool.Get().(*worker)
	k := w.c.KeyFromString(&w.buf, s)
	out := bytes.Clone(k)
	w.buf.Reset()
	c.pool.Put(w)
	return out
}

// keyString is string(c.Key(s)) with one allocation.
func (c *Collator) keyString(s string) string {
	w := c.pool.Get().(*worker)
	k := string(w.c.KeyFromString(&w.buf, s))
	w.buf.Reset()
	c.pool.Put(w)
	return k
}

// KeyValue returns v with every string (and symbol) in it, at any depth
// of documents and arrays, replaced by its collation key as a string, so
// that document.Compare of two converted values is their comparison
// under the collation. Field names are not collated, as in MongoDB. The
// simple collation returns v unchanged.
func (c *Collator) KeyValue(v any) any {
	if c == nil {
		return v
	}
	switch t := v.(type) {
	case string:
		return c.keyString(t)
	case bson.Symbol:
		return bson.Symbol(c.Key(string(t)))
	case bson.D:
		out := make(bson.D, len(t))
		for i, e := range t {
			out[i] = bson.E{Key: e.Key, Value: c.KeyValue(e.Value)}
		}
		return out
	case bson.A:
		out := make(bson.A, len(t))
		for i, e := range t {
			out[i] = c.KeyValue(e)
		}
		return out
	}
	return v
}

// CompareValues is document.Compare with strings compared under the
// collation.
func (c *Collator) CompareValues(a, b any) int {
	if c == nil {
		return document.Compare(a, b)
	}
	if sa, ok := a.(string); ok {
		if sb, ok := b.(string); ok {
			return c.Compare(sa, sb)
		}
	}
	return document.Compare(c.KeyValue(a), c.KeyValue(b))
}
