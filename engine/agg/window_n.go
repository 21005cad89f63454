package agg

import (
	"github.com/ttlkv/ttlkv/collation"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The n-family as window functions: $firstN, $lastN, $minN, $maxN,
// $topN, $bottomN, $top and $bottom over a $setWindowFields window, with
// the $group accumulators' arguments and keepN's rules.

// nWindow is one of the n-family over bounds.
type nWindow struct {
	op     string
	args   nArgs
	bounds windowBounds
}

// parseWindowN reads {$op: {...}, window: {...}} as mongod's ExpressionN
// does: the accumulator's arguments with its codes, at most one window.
func parseWindowN(name string, fd bson.D, w *windowSpec, sc pdepth) (windowFunc, error) {
	f := &nWindow{op: name}
	haveArgs, haveWindow := false, false
	for _, el := range fd {
		switch el.Key {
		case name:
			if haveArgs {
				return nil, errParse("saw multiple specifications for '%s' expression", name)
			}
			a, err := parseNArgs(name, el.Value, sc)
			if err != nil {
				return nil, err
			}
			f.args, haveArgs = a, true
		case "window":
			if haveWindow {
				return nil, errParse("saw multiple 'window' fields in '%s' expression", name)
			}
			b, err := parseWindowBounds(el.Value, w)
			if err != nil {
				return nil, err
			}
			f.bounds, haveWindow = b, true
		default:
			return nil, errParse("%s got unexpected argument: %s", name, el.Key)
		}
	}
	return f, nil
}

// nInput is what an n-window function takes from each document ($top
// and the others its sort key with the output).
type nInput struct{ args nArgs }

func (x nInput) Eval(e *Env) (any, error) { return x.args.arg(e) }

// start evaluates n as mongod does, once and against no document (a
// field path is missing, so refused), and folds each window with the
// accumulator.
func (f *nWindow) start(p *partition) windowState {
	nv, err := f.args.n.Eval(p.o.env(bson.D{}))
	var n int64
	if err == nil {
		n, err = validateN(nv)
	}
	if err != nil {
		return stateFunc(func(int) (any, error) { return nil, err })
	}
	sliding := f.bounds.lo.kind != boundUnbounded
	a := &accWindow{input: nInput{f.args}, bounds: f.bounds, mk: func(c *collation.Collator) accumulator {
		k := newKeepN(f.op, n, f.args.sort, c)
		k.sliding = sliding
		return k
	}}
	return a.start(p)
}
