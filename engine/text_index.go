package engine

import (
	"bytes"
	"math"
	"slices"
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/fts"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/engine/internal/indexkey"
	"github.com/ttlkv/ttlkv/lsm"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// textIndexOptions are the index spec options of a text index.
var textIndexOptions = []string{"weights", "default_language", "language_override", "textIndexVersion"}

// parseTextIndex recognises a text index's key pattern ({title: "text"},
// {"$**": "text"}, {a: 1, title: "text"}, or the stored form with
// _fts and _ftsx) and returns the key as mongod stores it (prefix
// fields, _fts: "text", _ftsx: 1, suffix fields) and its options
// (weights, default_language, language_override, textIndexVersion)
// with their defaults. ok is false for a key pattern without text.
// docs/text.md, "Text indexes".
func parseTextIndex(key, spec bson.D) (norm bson.D, opts bson.D, ok bool, err error) {
	stored := false
	var textFields []string
	for _, f := range key {
		if s, isStr := f.Value.(string); isStr && s == "text" {
			if f.Key == "_fts" {
				stored = true
			} else {
				textFields = append(textFields, f.Key)
			}
		}
	}
	if !stored && len(textFields) == 0 {
		if _, has := get(spec, "weights"); has {
			return nil, nil, false, document.Errorf(document.CodeCannotCreateIndex, "Invalid index specification %s; the field 'weights' can only be specified with text indexes", fmtValue(spec))
		}
		for _, o := range textIndexOptions {
			if _, has := get(spec, o); has {
				return nil, nil, false, document.Errorf(document.CodeCannotCreateIndex, "Index key pattern %s is not a text index: the option '%s' is for text indexes", fmtValue(key), o)
			}
		}
		return nil, nil, false, nil
	}
	fail := func(format string, a ...any) (bson.D, bson.D, bool, error) {
		return nil, nil, true, document.Errorf(document.CodeCannotCreateIndex, format, a...)
	}
	if stored && len(textFields) > 0 {
		return fail("Can't use both the stored form of a text index (_fts) and text fields in one key pattern: %s", fmtValue(key))
	}
	weights := map[string]float64{}
	inText, afterText := false, false
	for i := 0; i < len(key); i++ {
		f := key[i]
		if stored && f.Key == "_fts" {
			if i+1 >= len(key) || key[i+1].Key != "_ftsx" {
				return fail("expected _ftsx after _fts")
			}
			if n, isNum := asFloat(key[i+1].Value); !isNum || n != 1 {
				return fail("expecting _ftsx:1")
			}
			norm = append(norm, bson.E{Key: "_fts", Value: "text"}, bson.E{Key: "_ftsx", Value: int32(1)})
			i++
			afterText = true
			continue
		}
		if s, isStr := f.Value.(string); isStr && s == "text" {
			if afterText && !inText {
				return fail("'text' fields in index must all be adjacent")
			}
			if f.Key != "$**" && (strings.HasSuffix(f.Key, ".$**") || strings.HasPrefix(f.Key, "$")) {
				return fail("Index key contains an illegal field name: '%s'", f.Key)
			}
			if !inText {
				norm = append(norm, bson.E{Key: "_fts", Value: "text"}, bson.E{Key: "_ftsx", Value: int32(1)})
			}
			inText, afterText = true, true
			weights[f.Key] = 1
			continue
		}
		inText = false
		if _, isStr := f.Value.(string); isStr {
			return fail("Can't use more than one index plugin for a single index.")
		}
		if f.Key == "_fts" || f.Key == "_ftsx" {
			return fail("text index with reserved fields _fts/_ftsx not allowed")
		}
		if n, isNum := asFloat(f.Value); !isNum || (math.Trunc(n) != 1 && math.Trunc(n) != -1) {
			return fail("expected value 1 or -1 for non-text key in compound index")
		}
		norm = append(norm, f)
	}
	language, override, version := "english", "language", int32(3)
	for _, e := range spec {
		switch e.Key {
		case "weights":
			switch w := e.Value.(type) {
			case string:
				if w != "$**" {
					return fail("text index option 'weights' must be an object")
				}
				weights["$**"] = 1
			case bson.D:
				for _, we := range w {
					n, isNum := asFloat(we.Value)
					if !isNum {
						return fail("weight for text index needs numeric type")
					}
					n = math.Trunc(n)
					if !(n > 0 && n < 100000) {
						return fail("text index weight must be in the exclusive interval (0,100000) but found: %v", n)
					}
					if we.Key == "" {
						return fail("weight cannot be on an empty field")
					}
					if we.Key != "$**" {
						for _, part := range strings.Split(we.Key, ".") {
							if part == "" {
								return fail("weight cannot have empty path component")
							}
							if strings.HasPrefix(part, "$") {
								return fail("weight cannot have path component with $ prefix")
							}
						}
					}
					weights[we.Key] = n
				}
			default:
				return fail("text index option 'weights' must be an object")
			}
		case "default_language":
			s, isStr := e.Value.(string)
			if !isStr {
				return fail("default_language needs a string type")
			}
			if _, known := fts.LookupLanguage(s); !known {
				return fail("default_language is not valid")
			}
			language = s
		case "language_override":
			s, isStr := e.Value.(string)
			if !isStr {
				return fail("language_override must be a string")
			}
			if s == "" || strings.HasPrefix(s, "$") || strings.Contains(s, ".") {
				return fail("language_override is not valid")
			}
			override = s
		case "textIndexVersion":
			n, isNum := asFloat(e.Value)
			if !isNum {
				return fail("text index option 'textIndexVersion' must be a number")
			}
			if n = math.Trunc(n); n != 2 && n != 3 { // mongod reads it as an int
				return fail("bad textIndexVersion: %v (ttlkv builds version 3; a version 2 spec is built as version 3)", n)
			}
		}
	}
	if len(weights) == 0 {
		return fail("text index option 'weights' must specify fields or the wildcard")
	}
	names := make([]string, 0, len(weights))
	for k := range weights {
		names = append(names, k)
	}
	slices.Sort(names)
	wd := make(bson.D, 0, len(names))
	for _, k := range names {
		wd = append(wd, bson.E{Key: k, Value: int32(weights[k])})
	}
	opts = bson.D{{Key: "weights", Value: wd}, {Key: "default_language", Value: language},
		{Key: "language_override", Value: override}, {Key: "textIndexVersion", Value: version}}
	return norm, opts, true, nil
}

// isTextKey reports whether an index's key pattern is a text index's.
func isTextKey(key bson.D) bool { return indexkey.IsText(key) }

// textPlan is a $text query's reading by the collection's text index.
type textPlan struct {
	q     *fts.Query
	spec  *fts.Spec
	score bool // each document carries its text score (a $meta sort or projection)
}

// useText plans filter's $text: the collection's text index, scanned
// for each of the query's terms under the equalities the filter gives
// its prefix fields; each document fetched is matched against the whole
// filter, the $text by the index's reading of it. docs/text.md.
func (p *plan) useText(hint any) error {
	ts := p.filter.Text()
	if hint != nil {
		// mongod plans with the hinted index alone: the text index
		// (by name or stored key pattern) is the plan it would choose
		// anyway; any other index leaves the $text without one.
		hinted, natural, err := resolveHint(p.m, hint)
		if err != nil {
			return err
		}
		if natural != 0 {
			return document.Errorf(document.CodeBadValue, "error processing query: planner returned error :: caused by :: a $text query cannot be hinted to a collection scan")
		}
		if !isTextKey(hinted.Key) {
			return errNeedOneTextIndex
		}
	}
	if p.sort != nil {
		if _, natural := p.sort.NaturalOrder(); natural {
			p.sort = nil // the text index's order; there is no other
		}
	}
	var ix *catalog.Index
	for _, x := range p.m.Indexes {
		if isTextKey(x.Key) {
			ix = x
			break
		}
	}
	if ix == nil {
		return document.Errorf(document.CodeIndexNotFound, "text index required for $text query")
	}
	if ix.Hidden {
		// The query parses against the text index, but the planner
		// does not see a hidden one.
		return errNeedOneTextIndex
	}
	spec := indexkey.TextSpec(ix)
	lang := spec.DefaultLanguage
	if ts.Language != "" {
		l, ok := fts.LookupLanguage(ts.Language)
		if !ok {
			return document.Errorf(document.CodeBadValue, "unsupported language: \"%s\" for text index version 3", ts.Language)
		}
		lang = l
	}
	q := fts.ParseQuery(ts.Search, lang, ts.CaseSensitive, ts.DiacriticSensitive)
	ts.Bind(func(d bson.D) (bool, error) { return q.Match(d, spec) })
	p.text = &textPlan{q: q, spec: spec}
	p.ix = ix
	prefix := lsm.IndexPrefix(p.m.ID, ix.ID)
	pre, _ := indexkey.TextFields(ix.Key)
	for _, f := range pre {
		// Under a collation not the index's (text indexes have the
		// simple one), an equality on a string cannot read the index.
		ivs, ok := p.filter.Bounds(f.Path, true)
		if !ok || len(ivs) != 1 || !isPoint(ivs[0]) || !indexBoundsUsable(ix, p.filter, nil, ivs, ok) {
			return document.Errorf(document.CodeNoQueryExecutionPlans, "error processing query: planner returned error :: caused by :: failed to use text index to satisfy $text query (if text index is compound, are equality predicates given for all prefix fields?)")
		}
		prefix = lsm.AppendKey(prefix, ivs[0].Lo.Value, f.Desc)
	}
	p.ixPrefix = prefix
	p.ranges = nil
	for _, t := range q.BoundsTerms {
		lo := lsm.AppendKey(append([]byte(nil), prefix...), fts.KeyTerm(t), false)
		p.ranges = append(p.ranges, keyRange{lo, lsm.PrefixEnd(lo)})
	}
	slices.SortFunc(p.ranges, func(a, b keyRange) int { return bytes.Compare(a.lo, b.lo) })
	p.boundsDesc = bson.D{}
	return nil
}

// textMatchDoc is explain's TEXT_MATCH stage of a $text plan over in,
// with mongod's reading of the query.
func textMatchDoc(p *plan, in bson.D) bson.D {
	q := p.text.q
	arr := func(ss []string) bson.A {
		out := bson.A{}
		for _, s := range ss {
			out = append(out, s)
		}
		return out
	}
	return bson.D{{Key: "stage", Value: "TEXT_MATCH"}, {Key: "indexPrefix", Value: textIndexPrefix(p)},
		{Key: "indexName", Value: p.ix.Name},
		// mongod keeps the terms in sets: byte order; the phrases as given.
		{Key: "parsedTextQuery", Value: bson.D{{Key: "terms", Value: arr(sorted(q.Terms))}, {Key: "negatedTerms", Value: arr(sorted(q.NegatedTerms))},
			{Key: "phrases", Value: arr(q.Phrases)}, {Key: "negatedPhrases", Value: arr(q.NegatedPhrases)}}},
		{Key: "textIndexVersion", Value: int32(3)}, {Key: "inputStage", Value: in}}
}

// textScanDoc is the stages under a $text plan's TEXT_MATCH, as mongod
// builds them: an IXSCAN a term (read backward, its bounds not shown),
// under an OR when there are several, under a FETCH; or, when the plan
// gives its documents their scores, under a TEXT_OR, which fetches them
// itself. st, when non-nil, adds the execution figures.
func textScanDoc(p *plan, st *execStats) bson.D {
	var scans bson.A
	var keys int64
	for i := range p.ranges {
		ix := ixscanDoc(p, nil)
		for j, e := range ix {
			if e.Key == "direction" {
				ix[j].Value = "backward"
			}
		}
		if st != nil {
			var n int64
			if i < len(st.termKeys) {
				n = st.termKeys[i]
			}
			keys += n
			ix = withExec(ix, n, !st.partial)
			ix = append(ix, bson.E{Key: "keysExamined", Value: int32OrLong(n)}, bson.E{Key: "seeks", Value: int32(1)},
				bson.E{Key: "dupsTested", Value: int32(0)}, bson.E{Key: "dupsDropped", Value: int32(0)})
		}
		scans = append(scans, ix)
	}
	children := func(stage bson.D) bson.D {
		if len(scans) == 1 {
			return append(stage, bson.E{Key: "inputStage", Value: scans[0]})
		}
		return append(stage, bson.E{Key: "inputStages", Value: scans})
	}
	if p.text.score {
		or := bson.D{{Key: "stage", Value: "TEXT_OR"}}
		if f := fetchFilter(p); len(f) > 0 {
			or = append(or, bson.E{Key: "filter", Value: f})
		}
		if st != nil {
			or = append(or, bson.E{Key: "docsExamined", Value: int32OrLong(st.docsExamined)})
		}
		return children(or)
	}
	var in bson.D
	if len(scans) == 1 {
		in = scans[0].(bson.D)
	} else {
		in = bson.D{{Key: "stage", Value: "OR"}}
		if st != nil {
			in = withExec(in, st.docsExamined, !st.partial)
			in = append(in, bson.E{Key: "dupsTested", Value: int32OrLong(keys)}, bson.E{Key: "dupsDropped", Value: int32OrLong(keys - st.docsExamined)})
		}
		in = children(in)
	}
	fetch := bson.D{{Key: "stage", Value: "FETCH"}}
	if f := fetchFilter(p); len(f) > 0 {
		fetch = append(fetch, bson.E{Key: "filter", Value: f})
	}
	if st != nil {
		fetch = append(fetch, bson.E{Key: "docsExamined", Value: int32OrLong(st.docsExamined)}, bson.E{Key: "alreadyHasObj", Value: int32(0)})
	}
	return append(fetch, bson.E{Key: "inputStage", Value: in})
}

// textParsedFilter returns filter with its $text as mongod's parsed
// query shows it: $search, $language (the text index's default when
// none is given), $caseSensitive and $diacriticSensitive, all given.
// filter itself when it has no $text or m no text index.
func textParsedFilter(filter bson.D, m *catalog.Coll) bson.D {
	var ix *catalog.Index
	for _, x := range m.Indexes {
		if isTextKey(x.Key) {
			ix = x
			break
		}
	}
	if ix == nil {
		return filter
	}
	var out bson.D
	for i, e := range filter {
		v := e.Value
		switch e.Key {
		case "$text":
			t, ok := v.(bson.D)
			if !ok {
				continue
			}
			search, _ := get(t, "$search")
			lang, _ := get(t, "$language")
			if s, _ := lang.(string); s == "" {
				lang = indexkey.TextSpec(ix).DefaultLanguage.Name
			}
			cs, _ := get(t, "$caseSensitive")
			ds, _ := get(t, "$diacriticSensitive")
			if _, ok := cs.(bool); !ok {
				cs = false
			}
			if _, ok := ds.(bool); !ok {
				ds = false
			}
			v = bson.D{{Key: "$search", Value: search}, {Key: "$language", Value: lang},
				{Key: "$caseSensitive", Value: cs}, {Key: "$diacriticSensitive", Value: ds}}
		case "$and", "$or":
			a, ok := v.(bson.A)
			if !ok {
				continue
			}
			na := make(bson.A, len(a))
			for j, b := range a {
				if bd, ok := b.(bson.D); ok {
					na[j] = textParsedFilter(bd, m)
				} else {
					na[j] = b
				}
			}
			v = na
		default:
			continue
		}
		if out == nil {
			out = append(bson.D(nil), filter...)
		}
		out[i].Value = v
	}
	if out == nil {
		return filter
	}
	return out
}

// textPrefixEqualities returns the equalities of a $text plan's filter
// on the text index's fields before the text, by path, in the key's
// order.
func textPrefixEqualities(p *plan) (paths []string, preds map[string]bson.D) {
	pre, _ := indexkey.TextFields(p.ix.Key)
	preds = map[string]bson.D{}
	for _, pr := range normalisePreds(p.filterRaw, p.filter.Collator()) {
		if len(pr) != 1 {
			continue
		}
		if op, ok := pr[0].Value.(bson.D); ok && len(op) == 1 && op[0].Key == "$eq" {
			if _, seen := preds[pr[0].Key]; !seen {
				preds[pr[0].Key] = pr
			}
		}
	}
	for _, f := range pre {
		if _, ok := preds[f.Path]; ok {
			paths = append(paths, f.Path)
		}
	}
	return paths, preds
}

// textIndexPrefix is TEXT_MATCH's indexPrefix: the values the filter
// gives the fields before the text, each under its last path
// component, as mongod's spec extracts them.
func textIndexPrefix(p *plan) bson.D {
	paths, preds := textPrefixEqualities(p)
	out := bson.D{}
	for _, path := range paths {
		name := path[strings.LastIndexByte(path, '.')+1:]
		out = append(out, bson.E{Key: name, Value: preds[path][0].Value.(bson.D)[0].Value})
	}
	return out
}

// textFetchFilter is the FETCH filter under a $text plan's TEXT_MATCH:
// the filter but the $text (TEXT_MATCH's) and the prefix equalities
// (the index's bounds).
func textFetchFilter(p *plan) bson.D {
	paths, _ := textPrefixEqualities(p)
	var rest []bson.D
	for _, pr := range normalisePreds(p.filterRaw, p.filter.Collator()) {
		if len(pr) == 1 && (pr[0].Key == "$text" || slices.Contains(paths, pr[0].Key)) {
			if op, ok := pr[0].Value.(bson.D); pr[0].Key == "$text" || ok && len(op) == 1 && op[0].Key == "$eq" {
				continue
			}
		}
		rest = append(rest, pr)
	}
	return predsAnd(rest)
}

// sorted returns a sorted copy of ss.
func sorted(ss []string) []string {
	out := slices.Clone(ss)
	slices.Sort(out)
	return out
}

// errNeedOneTextIndex is mongod's planner refusing a $text when the
// indexes it may use (a hint's, or those not hidden) hold no text index.
var errNeedOneTextIndex = document.Errorf(document.CodeNoQueryExecutionPlans, "error processing query: planner returned error :: caused by :: need exactly one text index for $text query")

// errNoTextScore is mongod's refusal of a {$meta: "textScore"} sort or
// projection without a $text.
var errNoTextScore = document.Errorf(document.Code(40218), "query requires text score metadata, but it is not available")

// needTextScore makes p's $text scan give its documents their scores,
// and reports whether p has one (itself, or a branch of its union).
func (p *plan) needTextScore() bool {
	if p == nil {
		return false
	}
	if p.text != nil {
		p.text.score = true
		return true
	}
	for _, sp := range p.or {
		if sp.text != nil {
			sp.text.score = true
			return true
		}
	}
	return false
}

// carriesTextScore reports whether p's documents carry their text
// scores (needTextScore was asked).
func (p *plan) carriesTextScore() bool {
	if p == nil {
		return false
	}
	if p.text != nil {
		return p.text.score
	}
	for _, sp := range p.or {
		if sp.text != nil {
			return sp.text.score
		}
	}
	return false
}
