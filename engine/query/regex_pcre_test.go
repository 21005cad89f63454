package query

import "testing"

// TestPCREClasses: \s, \v, \h and their complements are PCRE's sets,
// outside and inside classes; \Q...\E and escaped backslashes are left.
func TestPCREClasses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pattern, in string
		want        bool
	}{
		{`a\sb`, "a\vb", true},
		{`a\Sb`, "a\vb", false},
		{`x\vy`, "x\ny", true},
		{`x\vy`, "x y", false},
		{`x\Vy`, "x y", true},
		{`a\hb`, "a\u00a0b", true},
		{`a\hb`, "a\nb", false},
		{`a\Hb`, "a\nb", true},
		{`a[\s]b`, "a\vb", true},
		{`a[\v-]b`, "a\u2028b", true},
		{`a\\sb`, `a\sb`, true},
		{`\Q\s\E`, `\s`, true},
		{`[]\s]`, "]", true},
		{`[^]\s]`, "x", true},
	} {
		re, _, err := TranslateRegex(c.pattern, "")
		if err != nil {
			t.Errorf("%q: %v", c.pattern, err)
			continue
		}
		if got := re.MatchString(c.in); got != c.want {
			t.Errorf("%q on %q: %v, want %v", c.pattern, c.in, got, c.want)
		}
	}
}

// TestPCREStartOptions: the options PCRE reads at a pattern's start are
// accepted by find's $regex too, and refused elsewhere in the pattern.
func TestPCREStartOptions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pattern, in string
		want        bool
	}{
		{`(*UCP)^\w+$`, "cafétéria", true},
		{`^\w+$`, "cafétéria", false},
		{`(*UCP)^[[:alpha:]]+$`, "박정수AB", true},
		{`(*UCP)^[^[:^digit:]]+$`, "༢༣", true},
		{`(*UCP)^\D+$`, "༢", false},
		{`(*UTF8)(*LIMIT_MATCH=10)a.b`, "a\nb", false},
		{`(*CR)a.b`, "a\nb", true},
		{`(*CR)a.b`, "a\rb", false},
		{`(*CRLF)a[.]b`, "a.b", true},
	} {
		re, _, err := TranslateRegex(c.pattern, "")
		if err != nil {
			t.Errorf("%q: %v", c.pattern, err)
			continue
		}
		if got := re.MatchString(c.in); got != c.want {
			t.Errorf("%q on %q: %v, want %v", c.pattern, c.in, got, c.want)
		}
	}
	for _, p := range []string{`a(*UCP)`, `(*NOPE)a`, `(*LIMIT_MATCH)a`} {
		if _, _, err := TranslateRegex(p, ""); err == nil {
			t.Errorf("%q: accepted", p)
		}
	}
}
