package engine

import (
	"fmt"
	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
	"os"
	"slices"
	"strings"
	"testing"
)

// queryIDs is jstests/libs/fts.js's queryIDS: the _ids a $text search
// finds (with more filter fields), best score first.
func queryIDs(t *testing.T, db *DB, coll, search, filter string, limit int) []int32 {
	t.Helper()
	f := fmt.Sprintf(`{"$text": {"$search": %q}%s}`, search, filter)
	cmd := fmt.Sprintf(`{"find": %q, "filter": %s, "projection": {"score": {"$meta": "textScore"}}, "sort": {"score": {"$meta": "textScore"}}`, coll, f)
	if limit > 0 {
		cmd += fmt.Sprintf(`, "limit": %d`, limit)
	}
	return firstIDs(t, db, cmd+"}")
}

// mongod's jstests/core/fts_mix.js: ten Wikipedia articles searched
// through differently weighted indexes, results in mongod's score order.
func TestTextMongodMix(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	raw, err := os.ReadFile("testdata/fts_mix.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	loadCorpus(t, db, "test", "mix", strings.Split(strings.TrimSpace(string(raw)), "\n"))
	check := func(search, filter string, limit int, want ...int32) {
		t.Helper()
		if got := queryIDs(t, db, "mix", search, filter, limit); !slices.Equal(got, want) {
			t.Errorf("%q %s: %v, want %v", search, filter, got, want)
		}
	}
	index := func(spec string) {
		t.Helper()
		mustRun(t, db, "test", `{"dropIndexes": "mix", "index": "*"}`)
		mustRun(t, db, "test", `{"createIndexes": "mix", "indexes": [`+spec+`]}`)
	}
	index(`{"key": {"title": "text"}, "name": "t"}`)
	check("Victoria", "", 0, 10)
	index(`{"key": {"title": "text", "text": "text"}, "name": "t", "weights": {"title": 10}}`)
	check("members physics", "", 0, 9, 7, 8)
	index(`{"key": {"$**": "text"}, "name": "t"}`)
	check("family tea estate", "", 0, 2, 8, 7)
	index(`{"key": {"$**": "text"}, "name": "t", "weights": {"$**": 10, "text": 2}}`)
	check("Olympic Games gold medal", "", 0, 7, 5)
	index(`{"key": {"$**": "text"}, "name": "t", "weights": {"title": 10}}`)
	check("rural river dam", "", 1, 2)
	check("United -Kingdom", "", 0, 8)
	check("Linn-Kristin", "", 0, 4)
	check(`"Summer Olympics"`, "", 0, 7)
	check(`"wild flowers" Sydney`, "", 0, 10)
	check(`"industry" -Melbourne -Physics`, "", 0, 3)
	check("", "", 0)
	check(" ", "", 0)
	check("Mahim", `, "_id": {"$lte": 4}`, 0, 2)
	check("members", `, "title": {"$regex": "Phy.*", "$options": "i"}`, 0, 9)
	if got := queryIDs(t, db, "mix", "united kingdom british princes", "", 0); len(got) != 4 {
		t.Errorf("united kingdom british princes: %v, want 4 documents", got)
	}
	if a, b := queryIDs(t, db, "mix", "magazine's", "", 0), queryIDs(t, db, "mix", "magazine", "", 0); !slices.Equal(a, b) {
		t.Errorf("magazine's %v, magazine %v", a, b)
	}
}

// Scores as mongod computes them: fts_score_sort.js's, and a wildcard
// index's weights, where a string at a path no weight names weighs what
// the first weighted path after it (in byte order) weighs.
func TestTextMongodScores(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	scores := func(coll, search string) map[int32]float64 {
		t.Helper()
		r := mustRun(t, db, "test", fmt.Sprintf(`{"find": %q, "filter": {"$text": {"$search": %q}}, "projection": {"s": {"$meta": "textScore"}}}`, coll, search))
		out := map[int32]float64{}
		for _, d := range firstBatch(t, r) {
			out[field(d, "_id").(int32)] = field(d, "s").(float64)
		}
		return out
	}
	same := func(what string, got, want map[int32]float64) {
		t.Helper()
		if len(got) != len(want) {
			t.Errorf("%s: %v, want %v", what, got, want)
			return
		}
		for id, w := range want {
			if g, ok := got[id]; !ok || g < w-1e-9 || g > w+1e-9 {
				t.Errorf("%s: %v, want %v", what, got, want)
				return
			}
		}
	}
	loadCorpus(t, db, "test", "s", []string{`{"_id": 0, "a": "textual content"}`, `{"_id": 1, "a": "additional content"}`, `{"_id": 2, "a": "irrelevant content"}`})
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"a": "text"}, "name": "a_text"}]}`)
	same("textual content -irrelevant", scores("s", "textual content -irrelevant"), map[int32]float64{0: 1.5, 1: 0.75})
	same("content content", scores("s", "content content"), map[int32]float64{0: 0.75, 1: 0.75, 2: 0.75})
	same(`"textual content"`, scores("s", `"textual content"`), map[int32]float64{0: 1.5})

	loadCorpus(t, db, "test", "w", []string{`{"_id": 1, "abstract": "tea"}`, `{"_id": 2, "title": "tea"}`,
		`{"_id": 3, "zone": "tea"}`, `{"_id": 4, "sub": {"x": "tea"}}`, `{"_id": 5, "tags": ["tea cup", "tea"]}`})
	mustRun(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"$**": "text"}, "name": "all", "weights": {"title": 10, "sub.y": 3}}]}`)
	// abstract < sub.y: 3; title: 10; zone: after every weight, 1;
	// sub.x < sub.y: 3; tags < title: 10 for each string.
	same("wildcard with weights", scores("w", "tea"), map[int32]float64{1: 3.3, 2: 11, 3: 1.1, 4: 3.3, 5: 10*0.75 + 11})
}

// A $text query hinted to the text index runs as without the hint; a
// hint to another index, or a hidden text index, leaves the planner no
// text index (291), as in mongod.
func TestTextMongodHint(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "h", []string{`{"_id": 1, "a": "hello world", "b": 1}`, `{"_id": 2, "a": "goodbye", "b": 2}`})
	mustRun(t, db, "test", `{"createIndexes": "h", "indexes": [{"key": {"a": "text"}, "name": "a_text"}, {"key": {"b": 1}, "name": "b_1"}]}`)
	for _, hint := range []string{`"a_text"`, `{"_fts": "text", "_ftsx": 1}`} {
		if got := firstIDs(t, db, `{"find": "h", "filter": {"$text": {"$search": "worlds"}}, "hint": `+hint+`}`); !slices.Equal(got, []int32{1}) {
			t.Errorf("hint %s: %v", hint, got)
		}
	}
	wantCode(t, db, "test", `{"find": "h", "filter": {"$text": {"$search": "world"}}, "hint": "b_1"}`, document.CodeNoQueryExecutionPlans, "need exactly one text index for $text query")
	wantCode(t, db, "test", `{"find": "h", "filter": {"$text": {"$search": "world"}}, "hint": {"a": "text"}}`, document.CodeBadValue, "hint provided does not correspond to an existing index")
	mustRun(t, db, "test", `{"collMod": "h", "index": {"name": "a_text", "hidden": true}}`)
	wantCode(t, db, "test", `{"find": "h", "filter": {"$text": {"$search": "world"}}}`, document.CodeNoQueryExecutionPlans, "need exactly one text index for $text query")
}

// fts_score_sort.js's refused sorts, with the codes of mongod's sort
// pattern, and a textScore sort without a $text (40218).
func TestTextMongodSortErrors(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "s", []string{`{"_id": 0, "a": "textual content"}`})
	mustRun(t, db, "test", `{"createIndexes": "s", "indexes": [{"key": {"a": "text"}, "name": "a_text"}]}`)
	find := func(sort string) string {
		return `{"find": "s", "filter": {"$text": {"$search": "textual content"}}, "projection": {"score": {"$meta": "textScore"}}, "sort": {"score": ` + sort + `}}`
	}
	wantCode(t, db, "test", find(`{"$meta": "textScore", "extra": 1}`), document.CodeFailedToParse, "Cannot have additional keys in a $meta sort specification")
	wantCode(t, db, "test", find(`{"$meta": "unknown"}`), 31138, `Illegal $meta sort: $meta: "unknown"`)
	wantCode(t, db, "test", find(`{"$notMeta": "textScore"}`), 17312, "$meta is the only expression supported by $sort right now")
	wantCode(t, db, "test", find(`"textScore"`), 15974, "Illegal key in $sort specification")
	wantCode(t, db, "test", `{"aggregate": "s", "pipeline": [{"$match": {"$text": {"$search": "textual"}}}, {"$sort": {"s": {"$meta": "textScore", "x": 1}}}], "cursor": {}}`, document.CodeFailedToParse, "")
	wantCode(t, db, "test", `{"find": "s", "sort": {"score": {"$meta": "textScore"}}}`, 40218, "")
	wantCode(t, db, "test", `{"aggregate": "s", "pipeline": [{"$sort": {"score": {"$meta": "textScore"}}}], "cursor": {}}`, 40218, "")
}

// mongod's fts_casesensitive.js, fts_diacriticsensitive.js and
// fts_diacritic_and_casesensitive.js.
func TestTextMongodSensitivity(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	loadCorpus(t, db, "test", "cs", []string{`{"_id": 0, "a": "The Quick Brown Fox Jumps Over The Lazy Dog"}`})
	mustRun(t, db, "test", `{"createIndexes": "cs", "indexes": [{"key": {"a": "text"}, "name": "a_text"}]}`)
	for _, c := range []string{"ds", "dcs"} {
		a := "O próximo vôo à noite sobre o Atlântico, põe freqüentemente o único médico."
		if c == "dcs" {
			a = "O próximo Vôo à Noite sobre o Atlântico, Põe Freqüentemente o único Médico."
		}
		loadCorpus(t, db, "test", c, []string{fmt.Sprintf(`{"_id": 0, "a": %q}`, a)})
		mustRun(t, db, "test", `{"createIndexes": "`+c+`", "indexes": [{"key": {"a": "text"}, "name": "a_text", "default_language": "portuguese"}]}`)
	}
	for _, tc := range []struct {
		coll, opts string
		match      []string
		miss       []string
	}{
		{"cs", `"$caseSensitive": true`,
			[]string{"The quick Brown", "Jumped", `"Quick"`, `"Fox" Jumped`, `"Fox Jumps" "Over The"`, `"Fox Jumps" -"over the"`},
			[]string{"The", "quick", "The quick brown", "The -quick -brown", "The quick -brown", "he Quic", `"over the"`, `"Fox Jumps" -"Over The"`}},
		{"ds", `"$diacriticSensitive": true`,
			[]string{"PRÓXIMO VÔO À", "atlântico", `"próximo"`, `"põe" atlântico`, `"próximo vôo" "único médico"`, `"próximo vôo" -"unico médico"`},
			[]string{"à", "proximo", "proximo voo à", "à -PRÓXIMO -vôo", "à proximo -vôo", "mo vô", `"unico medico"`, `"próximo vôo" -"único médico"`}},
		{"dcs", `"$diacriticSensitive": true, "$caseSensitive": true`,
			[]string{"próximo vôo à", "Atlântico", `"próximo"`, `"Põe" Atlântico`, `"próximo Vôo" "único Médico"`, `"próximo Vôo" -"único médico"`},
			[]string{"À", "Próximo", "proximo vôo à", "À -próximo -Vôo", "à proximo -Vôo", "mo Vô", `"único médico"`, `"próximo Vôo" -"único Médico"`}},
	} {
		for i, list := range [][]string{tc.match, tc.miss} {
			for _, s := range list {
				got := firstIDs(t, db, fmt.Sprintf(`{"find": %q, "filter": {"$text": {"$search": %q, %s}}}`, tc.coll, s, tc.opts))
				if want := i == 0; (len(got) == 1) != want {
					t.Errorf("%s %q: %v, want a match %v", tc.coll, s, got, want)
				}
			}
		}
	}
	wantCode(t, db, "test", `{"find": "cs", "filter": {"$text": {"$search": "hello", "$caseSensitive": "invalid"}}}`, document.CodeTypeMismatch, "")
	wantCode(t, db, "test", `{"find": "ds", "filter": {"$text": {"$search": "hello", "$diacriticSensitive": "invalid"}}}`, document.CodeTypeMismatch, "")
}

// fts_explain.js: the parsed query of "a" -b -"c" in a text index of
// language none; terms in byte order, as mongod's sets hold them.
func TestTextMongodExplainQuery(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "e", "indexes": [{"key": {"content": "text"}, "name": "c", "default_language": "none"}]}`)
	loadCorpus(t, db, "test", "e", []string{`{"_id": 1, "content": "some data"}`})
	r := mustRun(t, db, "test", `{"explain": {"find": "e", "filter": {"$text": {"$search": "\"a\" -b -\"c\" zeta alpha -y -x"}}}, "verbosity": "queryPlanner"}`)
	for key, want := range map[string]string{"terms": `[ "a", "alpha", "zeta" ]`, "negatedTerms": `[ "b", "x", "y" ]`, "phrases": `[ "a" ]`, "negatedPhrases": `[ "c" ]`} {
		if got := fmtValue(field(r, "queryPlanner.winningPlan.parsedTextQuery."+key)); got != want {
			t.Errorf("%s: %s, want %s", key, got, want)
		}
	}
}

// A compound text index needs an equality on each field before the
// text (a one-value $in is one); under a collation that is not the
// index's simple one, an equality on a string does not serve, as in
// mongod's planner (291), while one on a number does.
func TestTextMongodCompoundPrefix(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "c", "indexes": [{"key": {"t": 1, "a": "text"}, "name": "ta"}]}`)
	loadCorpus(t, db, "test", "c", []string{`{"_id": 0, "a": "textual content", "t": "X"}`, `{"_id": 1, "a": "additional content", "t": "x"}`,
		`{"_id": 2, "a": "more content", "t": 5}`})
	for filter, want := range map[string][]int32{
		`"t": {"$in": ["x"]}`: {1}, `"t": {"$eq": "x"}`: {1}, `"t": 5`: {2},
	} {
		if got := firstIDs(t, db, `{"find": "c", "filter": {"$text": {"$search": "content"}, `+filter+`}}`); !slices.Equal(got, want) {
			t.Errorf("%s: %v, want %v", filter, got, want)
		}
	}
	if got := firstIDs(t, db, `{"find": "c", "filter": {"$text": {"$search": "content"}, "t": 5}, "collation": {"locale": "en", "strength": 2}}`); !slices.Equal(got, []int32{2}) {
		t.Errorf("t 5 under a collation: %v", got)
	}
	for _, cmd := range []string{
		`{"find": "c", "filter": {"$text": {"$search": "content"}, "t": {"$in": ["x", "X"]}}}`,
		`{"find": "c", "filter": {"$text": {"$search": "content"}, "t": {"$gt": "a"}}}`,
		`{"find": "c", "filter": {"$text": {"$search": "content"}, "t": "x"}, "collation": {"locale": "en", "strength": 2}}`,
	} {
		wantCode(t, db, "test", cmd, document.CodeNoQueryExecutionPlans, "are equality predicates given for all prefix fields?")
	}
}

// explain of a $text plan: TEXT_MATCH shows the values of the fields
// before the text as its indexPrefix, and the FETCH under it filters by
// the rest of the filter only (the $text is TEXT_MATCH's).
func TestTextMongodExplainPrefix(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "e", "indexes": [{"key": {"tenant": 1, "s": "text"}, "name": "ts"}]}`)
	loadCorpus(t, db, "test", "e", []string{`{"_id": 1, "tenant": "a", "s": "quick fox", "x": 5}`})
	r := mustRun(t, db, "test", `{"explain": {"find": "e", "filter": {"tenant": "a", "$text": {"$search": "fox"}, "x": 5}}, "verbosity": "queryPlanner"}`)
	if got := fmtValue(field(r, "queryPlanner.winningPlan.indexPrefix")); got != `{ tenant: "a" }` {
		t.Errorf("indexPrefix %s", got)
	}
	if got := fmtValue(field(r, "queryPlanner.winningPlan.inputStage.filter")); got != `{ x: { $eq: 5 } }` {
		t.Errorf("FETCH filter %s", got)
	}
	r = mustRun(t, db, "test", `{"explain": {"find": "e", "filter": {"tenant": "a", "$text": {"$search": "fox"}}}, "verbosity": "queryPlanner"}`)
	if f := field(r, "queryPlanner.winningPlan.inputStage.filter"); f != nil {
		t.Errorf("FETCH filter %v, want none", f)
	}
}

// fts_projection.js: the blocking TEXT_OR only when the score is asked
// for; otherwise a FETCH over an OR of one backward IXSCAN a term. The
// IXSCANs' keys add up to the total examined.
func TestTextMongodExplainStages(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "e", "indexes": [{"key": {"a": "text"}, "name": "a_text"}]}`)
	loadCorpus(t, db, "test", "e", []string{`{"_id": 0, "a": "textual content"}`, `{"_id": 1, "a": "additional content"}`, `{"_id": 2, "a": "irrelevant content"}`})
	stages := func(plan bson.D) (out []string) {
		for plan != nil {
			out = append(out, field(plan, "stage").(string))
			if in, ok := field(plan, "inputStages").(bson.A); ok {
				out = append(out, fmt.Sprintf("%d inputs", len(in)))
				plan, _ = in[0].(bson.D)
				continue
			}
			plan, _ = field(plan, "inputStage").(bson.D)
		}
		return out
	}
	find := `{"find": "e", "filter": {"$text": {"$search": "textual content -irrelevant"}}`
	for cmd, want := range map[string][]string{
		find + `, "projection": {"score": {"$meta": "textScore"}}}`: {"PROJECTION_DEFAULT", "TEXT_MATCH", "TEXT_OR", "2 inputs", "IXSCAN"},
		find + `}`: {"TEXT_MATCH", "FETCH", "OR", "2 inputs", "IXSCAN"},
		`{"find": "e", "filter": {"$text": {"$search": "textual"}}}`: {"TEXT_MATCH", "FETCH", "IXSCAN"},
	} {
		r := mustRun(t, db, "test", `{"explain": `+cmd+`, "verbosity": "executionStats"}`)
		plan, _ := field(r, "queryPlanner.winningPlan").(bson.D)
		if got := stages(plan); !slices.Equal(got, want) {
			t.Errorf("%s: stages %v, want %v", cmd, got, want)
		}
		var ixs []bson.D
		var walk func(d bson.D)
		walk = func(d bson.D) {
			if field(d, "stage") == "IXSCAN" {
				ixs = append(ixs, d)
			}
			if in, ok := field(d, "inputStage").(bson.D); ok {
				walk(in)
			}
			if ins, ok := field(d, "inputStages").(bson.A); ok {
				for _, in := range ins {
					walk(in.(bson.D))
				}
			}
		}
		walk(field(r, "executionStats.executionStages").(bson.D))
		var keys int64
		for _, ix := range ixs {
			if field(ix, "direction") != "backward" {
				t.Errorf("%s: direction %v", cmd, field(ix, "direction"))
			}
			n, _ := asFloat(field(ix, "keysExamined"))
			keys += int64(n)
		}
		if total, _ := asFloat(field(r, "executionStats.totalKeysExamined")); int64(total) != keys || keys == 0 {
			t.Errorf("%s: IXSCAN keys %d, total %v", cmd, keys, total)
		}
	}
}

// explain's parsedQuery shows a $text with every option, the language
// the index's default when the query names none (as given otherwise).
func TestTextMongodExplainParsedQuery(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "e", "indexes": [{"key": {"a": "text"}, "name": "a_text", "default_language": "fr"}]}`)
	loadCorpus(t, db, "test", "e", []string{`{"_id": 0, "a": "renard", "b": 1}`})
	for filter, want := range map[string]string{
		`{"$text": {"$search": "renard"}}`:                                                 `{ $text: { $search: "renard", $language: "french", $caseSensitive: false, $diacriticSensitive: false } }`,
		`{"$text": {"$search": "fox", "$language": "en", "$caseSensitive": true}, "b": 1}`: `{ $and: [ { b: { $eq: 1 } }, { $text: { $search: "fox", $language: "en", $caseSensitive: true, $diacriticSensitive: false } } ] }`,
	} {
		r := mustRun(t, db, "test", `{"explain": {"find": "e", "filter": `+filter+`}, "verbosity": "queryPlanner"}`)
		if got := fmtValue(field(r, "queryPlanner.parsedQuery")); got != want {
			t.Errorf("%s: parsedQuery %s, want %s", filter, got, want)
		}
	}
}

// textIndexVersion is read as an integer: 3.5 is 3, 1.9 is 1 (67).
func TestTextMongodIndexVersion(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "test", `{"createIndexes": "v", "indexes": [{"key": {"a": "text"}, "name": "a_text", "textIndexVersion": 3.5}]}`)
	if got := fmtValue(field(firstBatch(t, mustRun(t, db, "test", `{"listIndexes": "v"}`))[1], "textIndexVersion")); got != "3" {
		t.Errorf("textIndexVersion %s", got)
	}
	wantCode(t, db, "test", `{"createIndexes": "w", "indexes": [{"key": {"a": "text"}, "name": "a_text", "textIndexVersion": 1.9}]}`, document.CodeCannotCreateIndex, "bad textIndexVersion: 1")
}
