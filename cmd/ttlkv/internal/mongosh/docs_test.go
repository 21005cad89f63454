package mongosh

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDocsExamples runs every ```js block of docs/*.md in a fresh shell,
// so that the documentation's examples stay runnable as written.
func TestDocsExamples(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("..", "..", "..", "..", "docs", "*.md"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no docs found: %v", err)
	}
	blocks := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, block := range jsBlocks(string(b)) {
			blocks++
			s, out, _ := testShell(t, Options{})
			if _, err := eval(t, s, out, block); err != nil {
				t.Errorf("%s, js block %d:\n%s\nfailed: %v", filepath.Base(f), i+1, block, err)
			}
		}
	}
	if blocks == 0 {
		t.Fatal("no ```js blocks in docs/*.md; the test would check nothing")
	}
}

func jsBlocks(md string) []string {
	var out []string
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		if strings.TrimSpace(lines[i]) != "```js" {
			continue
		}
		var b strings.Builder
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			b.WriteString(lines[i])
			b.WriteByte('\n')
		}
		out = append(out, b.String())
	}
	return out
}
