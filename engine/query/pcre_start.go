package query

import (
	"regexp"
)

// PCRE reads options written at the very start of a pattern, such as
// (*UCP) or (*CR) (mongod passes patterns to PCRE as they are). RE2 has
// none of them; TranslateRegex strips them and applies what it can:
// (*UTF) and (*UTF8) change nothing (Go's matching is always UTF-8),
// (*UCP) gives \d, \w, \s and the POSIX classes their Unicode members,
// a newline convention ((*CR), (*CRLF), (*ANYCRLF), (*ANY), (*NUL))
// changes what '.' refuses, and the limits and optimisation switches
// ((*LIMIT_MATCH=n), (*NO_JIT), ...) are accepted and have no effect.
// Written anywhere but the start they stay syntax errors, as in PCRE.

// pcreVerb is one start-of-pattern option: a name and, for the limits,
// "=digits".
var pcreVerb = regexp.MustCompile(`^\(\*([A-Z_0-9]+)(=[0-9]+)?\)`)

// pcreNewlines are the characters each newline convention treats as
// line ends, as members of a class.
var pcreNewlines = map[string]string{
	"CR":      `\r`,
	"LF":      ``,
	"CRLF":    `\r\n`,
	"ANYCRLF": `\r\n`,
	"ANY":     `\n\x0B\f\r\x{85}\x{2028}\x{2029}`,
	"NUL":     `\x00`,
}

// pcreSwitches are the start options that change nothing RE2 does.
var pcreSwitches = map[string]bool{
	"UTF": true, "UTF8": true, "NO_AUTO_POSSESS": true, "NO_DOTSTAR_ANCHOR": true,
	"NO_JIT": true, "NO_START_OPT": true, "NOTEMPTY": true, "NOTEMPTY_ATSTART": true,
	"BSR_ANYCRLF": true, "BSR_UNICODE": true,
}

// pcreLimits are the start options that take a number.
var pcreLimits = map[string]bool{"LIMIT_MATCH": true, "LIMIT_DEPTH": true, "LIMIT_HEAP": true, "LIMIT_RECURSION": true}

// ucpSets are \d, \w and \s under (*UCP), as members of a class.
var ucpSets = map[byte]string{
	'd': `\p{Nd}`,
	'w': `\p{L}\p{N}_`,
	's': `\t\n\x0B\f\r\x{85}\p{Z}`,
}

// ucpPosix are the POSIX classes (*UCP) makes Unicode, as members of a
// class; the others keep their ASCII members.
var ucpPosix = map[string]string{
	"digit": `\p{Nd}`,
	"alpha": `\p{L}`,
	"alnum": `\p{L}\p{N}`,
	"lower": `\p{Ll}`,
	"upper": `\p{Lu}`,
	"space": `\t\n\x0B\f\r\x{85}\p{Z}`,
	"word":  `\p{L}\p{N}_`,
}

// pcreStart strips the start options from p: whether (*UCP) was among
// them, and the line ends of the last newline convention ("" for none
// or LF, PCRE's default).
func pcreStart(p string) (rest string, ucp bool, newline string) {
	for {
		m := pcreVerb.FindStringSubmatch(p)
		if m == nil {
			return p, ucp, newline
		}
		name, num := m[1], m[2]
		switch {
		case name == "UCP" && num == "":
			ucp = true
		case pcreSwitches[name] && num == "":
		case pcreLimits[name] && num != "":
		default:
			nl, ok := pcreNewlines[name]
			if !ok || num != "" {
				return p, ucp, newline // not an option: RE2 refuses it
			}
			newline = nl
		}
		p = p[len(m[0]):]
	}
}
