package main

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
)

// TestFastJSONMatchesExtJSON: wherever import's fast JSON parser takes a
// document, it gives exactly what document.ParseExtJSON gives (same
// values, same Go types, same order); on edge cases it must leave the
// document to ParseExtJSON. Random documents are replayable by seed.
func TestFastJSONMatchesExtJSON(t *testing.T) {
	t.Parallel()
	fixed := []string{
		`{}`, ` { "a" : 1 } `, `{"a": -1, "b": 2147483647, "c": 2147483648, "d": -2147483649, "e": 9223372036854775807}`,
		`{"big": 9223372036854775808, "neg0": -0, "f": 1.0, "g": 1e2, "h": -1.5E-3, "i": 0.1, "z": -0.0}`,
		`{"s": "plain", "e": "tab\tq\"b\\s\/u\u00e9\ud83d\ude00", "n": null, "t": true, "f": false}`,
		`{"nul": "a\u0000b"}`, `{"bad": "\ud800"}`, `{"a": [1, [2, {"b": []}], {}], "o": {"p": {"q": "r"}}}`,
		`{"dup": 1, "dup": 2}`, `{"$date": 1}`, `{"d": {"$date": "2024-01-01T00:00:00Z"}}`, `{"s": "costs $5"}`,
		`{"a": 01}`, `{"a": 1.}`, `{"a": .5}`, `{"a": +1}`, `{"a": 1e}`, `{"a": tru}`, `{"a": 1,}`, `{"a" 1}`,
		`[1]`, `{"a": 1} x`, `{"a": "` + "\x01" + `"}`, "{\"a\": \"\xff\"}", `{"": 1}`, `{"a": 1e400}`,
		`{"k` + strings.Repeat("x", 300) + `": "v"}`, `{"a":` + strings.Repeat("[", 70) + strings.Repeat("]", 70) + `}`,
	}
	check := func(src string) {
		t.Helper()
		fast, ok := fastJSON([]byte(src))
		slow, err := document.ParseExtJSON([]byte(src))
		if !ok {
			return // left to ParseExtJSON: always right
		}
		if err != nil {
			t.Errorf("%q: fast parser accepted what ParseExtJSON refuses (%v)", src, err)
			return
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%q:\nfast %#v\nslow %#v", src, fast, slow)
		}
	}
	for _, s := range fixed {
		check(s)
	}
	// The common import shapes must take the fast path.
	for _, s := range []string{`{"_id": 1, "name": "user 1", "v": 1.5, "ok": true, "tags": ["a", "b"], "sub": {"x": null}}`, fixed[1], fixed[2], fixed[4]} {
		if _, ok := fastJSON([]byte(s)); !ok {
			t.Errorf("%q: not parsed by the fast path", s)
		}
	}
	seed := rand.Uint64()
	rng := rand.New(rand.NewPCG(seed, 19))
	var gen func(depth int) string
	gen = func(depth int) string {
		switch k := rng.IntN(10); {
		case k == 0 && depth < 4:
			var parts []string
			for i := rng.IntN(4); i > 0; i-- {
				parts = append(parts, fmt.Sprintf("%q: %s", fmt.Sprintf("k%d", rng.IntN(6)), gen(depth+1)))
			}
			return "{" + strings.Join(parts, ", ") + "}"
		case k == 1 && depth < 4:
			var parts []string
			for i := rng.IntN(4); i > 0; i-- {
				parts = append(parts, gen(depth+1))
			}
			return "[" + strings.Join(parts, ",") + "]"
		case k == 2:
			return fmt.Sprint(rng.Int64() >> rng.IntN(64))
		case k == 3:
			return fmt.Sprint(-rng.Int64() >> rng.IntN(64))
		case k == 4:
			return fmt.Sprintf("%g", rng.NormFloat64()*float64(rng.IntN(1e6)))
		case k == 5:
			return fmt.Sprintf("%.3e", rng.Float64())
		case k == 6:
			return []string{"true", "false", "null"}[rng.IntN(3)]
		case k == 7:
			return fmt.Sprintf("%q", string([]rune{rune(rng.IntN(0x3000)), rune(' ' + rng.IntN(90))}))
		}
		return `"s\n\u00e9\"x"`
	}
	for i := 0; i < 5000; i++ {
		check(gen(0))
		check("{\"a\": " + gen(1) + "}")
	}
	if t.Failed() {
		t.Logf("seed %d", seed)
	}
}
