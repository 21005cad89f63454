package agg

import "testing"

// TestRedact checks $redact on mongod's documented examples: levels kept
// by their tags (DESCEND and PRUNE, through arrays of documents), a
// whole subtree pruned by its level, KEEP, $$ROOT against $$CURRENT, and
// the refusal of any other result.
func TestRedact(t *testing.T) {
	t.Parallel()
	forecast := `[{"_id": 1, "title": "123 Department Report", "tags": ["G", "STLW"], "year": 2014, "subsections": [
		{"subtitle": "Section 1: Overview", "tags": ["SI", "G"], "content": "Section 1"},
		{"subtitle": "Section 2: Analysis", "tags": ["STLW"], "content": "Section 2"},
		{"subtitle": "Section 3: Budgeting", "tags": ["TK"], "content": {"text": "Section 3", "tags": ["HCS"]}}]}]`
	account := `[{"_id": 1, "level": 1, "acct_id": "xyz123", "cc": {"level": 5, "type": "yy", "billing_addr": {"level": 5, "addr1": "123 ABC Street"},
		"shipping_addr": [{"level": 3, "addr1": "987 XYZ Ave"}, {"level": 3, "addr1": "PO Box 0123"}]}, "status": "A"},
		{"_id": 2, "level": 5}]`
	cases := []pipelineCase{
		{"by tags", forecast,
			`[{"$redact": {"$cond": {"if": {"$gt": [{"$size": {"$setIntersection": ["$tags", ["STLW", "G"]]}}, 0]}, "then": "$$DESCEND", "else": "$$PRUNE"}}}]`,
			`[{"_id": 1, "title": "123 Department Report", "tags": ["G", "STLW"], "year": 2014, "subsections": [
				{"subtitle": "Section 1: Overview", "tags": ["SI", "G"], "content": "Section 1"},
				{"subtitle": "Section 2: Analysis", "tags": ["STLW"], "content": "Section 2"}]}]`},
		{"by level", account,
			`[{"$redact": {"$cond": {"if": {"$eq": ["$level", 5]}, "then": "$$PRUNE", "else": "$$DESCEND"}}}]`,
			`[{"_id": 1, "level": 1, "acct_id": "xyz123", "status": "A"}]`},
		{"keep", account,
			`[{"$redact": {"$cond": [{"$eq": ["$level", 5]}, "$$PRUNE", "$$KEEP"]}}]`,
			`[{"_id": 1, "level": 1, "acct_id": "xyz123", "cc": {"level": 5, "type": "yy", "billing_addr": {"level": 5, "addr1": "123 ABC Street"},
				"shipping_addr": [{"level": 3, "addr1": "987 XYZ Ave"}, {"level": 3, "addr1": "PO Box 0123"}]}, "status": "A"}]`},
		{"root and current", `[{"k": 1, "a": {"k": 1, "x": 1}, "b": {"k": 2}, "c": [{"k": 1}, {"k": 3}, 7]}]`,
			`[{"$redact": {"$cond": [{"$eq": ["$$ROOT.k", "$$CURRENT.k"]}, "$$DESCEND", "$$PRUNE"]}}]`,
			`[{"k": 1, "a": {"k": 1, "x": 1}, "c": [{"k": 1}, 7]}]`},
	}
	checkPipelines(t, cases)
	for _, p := range []string{`[{"$redact": "$level"}]`, `[{"$redact": "yes"}]`} {
		if _, err := run(t, account, p, Options{}); codeOf(err) != 17053 {
			t.Errorf("%s: %v, want 17053", p, err)
		}
	}
	// The variables are $redact's own.
	if _, err := run(t, account, `[{"$project": {"x": "$$KEEP"}}]`, Options{}); codeOf(err) != 17276 {
		t.Errorf("$$KEEP outside $redact: %v, want 17276", err)
	}
}
