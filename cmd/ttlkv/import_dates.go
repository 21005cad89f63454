package main

import "strings"

// dateToken is one token of a Microsoft or Oracle date format and the
// Go layout element it stands for.
type dateToken struct{ from, to string }

// msDateTokens are the tokens of a date_ms() layout (SQL Server's
// FORMAT strings), as mongoimport translates them. At each position the
// first token that matches is taken, so a longer token precedes its
// prefixes. Anything else is copied as it is.
var msDateTokens = []dateToken{
	{"dddd", "Monday"}, {"ddd", "Mon"}, {"dd", "02"}, {"d", "2"},
	{"MMMM", "January"}, {"MMM", "Jan"}, {"MM", "01"}, {"M", "1"},
	{"hh", "03"}, {"h", "3"}, {"HH", "15"}, {"H", "15"},
	{"mm", "04"}, {"m", "4"}, {"ss", "05"}, {"s", "5"},
	{"tt", "PM"},
	{"yyyy", "2006"}, {"yyy", "2006"}, {"yy", "06"},
	{"zzz", "-07:00"}, {"zz", "-07"},
}

// oracleDateTokens are the tokens of a date_oracle() layout (Oracle's
// TO_DATE models), read after the layout is upper-cased, as mongoimport
// reads them.
var oracleDateTokens = []dateToken{
	{"AM", "PM"}, {"DAY", "Monday"}, {"DY", "Mon"}, {"DD", "02"},
	{"HH12", "03"}, {"HH24", "15"}, {"HH", "03"}, {"MI", "04"},
	{"MONTH", "January"}, {"MON", "Jan"}, {"MM", "01"}, {"SS", "05"},
	{"TZD", "MST"}, {"TZH:TZM", "-07:00"}, {"TZH", "-07"},
	{"YYYY", "2006"}, {"YY", "06"},
}

// goDateLayout translates a date_ms() or date_oracle() layout into Go's
// reference-time layout; date() and date_go() layouts already are one.
func goDateLayout(typ, layout string) string {
	var tokens []dateToken
	switch typ {
	case "date_ms":
		tokens = msDateTokens
	case "date_oracle":
		tokens, layout = oracleDateTokens, strings.ToUpper(layout)
	default:
		return layout
	}
	var b strings.Builder
next:
	for i := 0; i < len(layout); {
		for _, t := range tokens {
			if strings.HasPrefix(layout[i:], t.from) {
				b.WriteString(t.to)
				i += len(t.from)
				continue next
			}
		}
		b.WriteByte(layout[i])
		i++
	}
	return b.String()
}
