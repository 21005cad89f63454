package mongosh

import "testing"

// TestV8JSONErrorDelimiters checks V8's words for what follows an
// object's member or an array's element: a comma, the closing bracket,
// or else the error at that position.
func TestV8JSONErrorDelimiters(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, want string }{
		{`{"a": 1, "b": [1, 2, {}], "c": {"d": []}}`, ""},
		{` [ 1 , 2 ] `, ""},
		{`[1 2]`, "Expected ',' or ']' after array element in JSON at position 3"},
		{`[1}`, "Expected ',' or ']' after array element in JSON at position 2"},
		{`[1`, "Expected ',' or ']' after array element in JSON at position 2"},
		{`[[1] [2]]`, "Expected ',' or ']' after array element in JSON at position 5"},
		{`{"a":1 "b":2}`, "Expected ',' or '}' after property value in JSON at position 7"},
		{`{"a":1]`, "Expected ',' or '}' after property value in JSON at position 6"},
		{`{"a":1`, "Expected ',' or '}' after property value in JSON at position 6"},
		{`{"a":1,}`, "Expected double-quoted property name in JSON at position 7"},
		{`[1,]`, "Unexpected token ']', \"[1,]\" is not valid JSON"},
	} {
		if got := v8JSONError(tc.text); got != tc.want {
			t.Errorf("v8JSONError(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}
