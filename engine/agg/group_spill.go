package agg

import (
	"cmp"
	"context"
	"slices"

	"github.com/ttlkv/ttlkv/engine/internal/extsort"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// A $group past its memory limit spills, as mongod's does by default
// since 6.0 (allowDiskUse): it writes each group's key and the state of
// its accumulators to a sorted run (engine/internal/extsort), empties
// its table and goes on; at the end it merges the runs, a key at a
// time, folding each run's state into the group's accumulators in the
// order the runs were written, so that $first, $last, $push and the
// n-family see their values in input order. The groups then come out
// in the order of their keys rather than of their first documents
// (mongod's order is unspecified either way).

// spillable is an accumulator whose state can be written to a run and
// folded back: state is a BSON value, mergeState folds a state written
// after everything the accumulator holds.
type spillable interface {
	state() any
	mergeState(st any) error
}

// canSpill reports whether every accumulator of the group can spill.
func (s *groupStage) canSpill() bool {
	for _, gr := range s.order {
		for _, a := range gr.accs {
			if _, ok := a.(spillable); !ok {
				return false
			}
		}
		return true
	}
	return true
}

// spill writes the groups held as a run and empties the table.
func (s *groupStage) spill() error {
	if s.runs == nil {
		s.runs = &extsort.Sorter{Compare: compareSpilledGroups, Size: ApproxSize, Dir: s.o.SpillDir}
	}
	if err := s.addGroups(); err != nil {
		return err
	}
	if err := s.runs.Flush(); err != nil {
		return err
	}
	clear(s.groups)
	s.order, s.mem = nil, 0
	return nil
}

// addGroups hands the groups held to the run sorter as {k, id, s}: the
// group key, the key's value and the accumulators' states.
func (s *groupStage) addGroups() error {
	for _, gr := range s.order {
		states := make(bson.A, len(gr.accs))
		for i, a := range gr.accs {
			states[i] = a.(spillable).state()
		}
		if err := s.runs.Add(bson.D{{Key: "k", Value: gr.key}, {Key: "id", Value: gr.id}, {Key: "s", Value: states}}); err != nil {
			return err
		}
	}
	return nil
}

func compareSpilledGroups(a, b bson.D) int {
	return cmp.Compare(a[0].Value.(string), b[0].Value.(string))
}

// mergeRuns makes the sorted stream of spilled groups (the ones still
// held are the last run) the stage's output.
func (s *groupStage) mergeRuns() error {
	if err := s.addGroups(); err != nil {
		s.runs.Close()
		return err
	}
	clear(s.groups)
	s.order = nil
	it, err := s.runs.Sort()
	if err != nil {
		return err
	}
	s.merged = it
	return nil
}

// nextMerged folds the next key's states from every run into one group
// and returns its document, or nil at the end.
func (s *groupStage) nextMerged(ctx context.Context) (bson.D, error) {
	d := s.pending
	s.pending = nil
	if d == nil {
		var err error
		if d, err = s.merged.Next(); err != nil || d == nil {
			return nil, err
		}
	}
	key, id := d[0].Value.(string), d[1].Value
	keyDoc, _ := id.(bson.D)
	keyEnv := s.o.env(keyDoc)
	accs := make([]accumulator, len(s.g.accs))
	for i, a := range s.g.accs {
		acc, err := a.start(keyEnv)
		if err != nil {
			return nil, err
		}
		accs[i] = acc
	}
	var held int64
	for n := 1; ; n++ {
		if err := checkCtx(ctx, n); err != nil {
			return nil, err
		}
		// What the group holds is counted as the in-memory path counts
		// it: the sized accumulators' sizes, the values $push and
		// $addToSet take.
		states, _ := d[2].Value.(bson.A)
		for i, acc := range accs {
			sz, isSized := acc.(sized)
			if isSized {
				held -= sz.size()
			}
			if err := acc.(spillable).mergeState(states[i]); err != nil {
				return nil, err
			}
			switch op := s.g.accs[i].op; {
			case isSized:
				held += sz.size()
			case op == "$push" || op == "$addToSet":
				held += approxSize(states[i])
			}
		}
		if held > s.o.groupBytes() {
			return nil, memoryErr("$group", s.o)
		}
		next, err := s.merged.Next()
		if err != nil {
			return nil, err
		}
		if next == nil || next[0].Value.(string) != key {
			s.pending = next
			break
		}
		d = next
	}
	out := make(bson.D, 0, 1+len(accs))
	out = append(out, bson.E{Key: "_id", Value: id})
	for i, a := range s.g.accs {
		v, err := accResult(accs[i])
		if err != nil {
			return nil, err
		}
		out = append(out, bson.E{Key: a.field, Value: v})
	}
	return out, nil
}

// The accumulators' states.

func (a *sumAcc) state() any { return a.s.state() }
func (a *sumAcc) mergeState(st any) error {
	s, _ := st.(bson.A)
	a.s.merge(s)
	return nil
}

func (a *avgAcc) state() any { return bson.A{a.s.state(), a.n} }
func (a *avgAcc) mergeState(st any) error {
	s, _ := st.(bson.A)
	if len(s) != 2 {
		return nil
	}
	n, _ := s[1].(int64)
	if n == 0 {
		return nil
	}
	inner, _ := s[0].(bson.A)
	a.s.merge(inner)
	a.n += n
	return nil
}

func (a *minMaxAcc) state() any { return bson.A{a.set, a.v} }
func (a *minMaxAcc) mergeState(st any) error {
	if s, _ := st.(bson.A); s[0] == true {
		return a.add(s[1])
	}
	return nil
}

func (a *firstAcc) state() any { return bson.A{a.set, a.v} }
func (a *firstAcc) mergeState(st any) error {
	if s, _ := st.(bson.A); s[0] == true && !a.set {
		a.v, a.set = s[1], true
	}
	return nil
}

func (a *lastAcc) state() any { return bson.A{a.v} }
func (a *lastAcc) mergeState(st any) error {
	s, _ := st.(bson.A)
	a.v = s[0]
	return nil
}

func (a *pushAcc) state() any { return a.list }
func (a *pushAcc) mergeState(st any) error {
	s, _ := st.(bson.A)
	for _, v := range s {
		if err := a.add(v); err != nil {
			return err
		}
	}
	return nil
}

func (a *setAcc) state() any { return a.list }
func (a *setAcc) mergeState(st any) error {
	s, _ := st.(bson.A)
	for _, v := range s {
		if err := a.add(v); err != nil {
			return err
		}
	}
	return nil
}

func (a *stdDevAcc) state() any { return bson.A{a.n, a.mean, a.m2} }

// mergeState combines two running variances (Chan et al.'s parallel
// form of Welford's).
func (a *stdDevAcc) mergeState(st any) error {
	s, _ := st.(bson.A)
	n, _ := s[0].(int64)
	mean, _ := s[1].(float64)
	m2, _ := s[2].(float64)
	if n == 0 {
		return nil
	}
	if a.n == 0 {
		a.n, a.mean, a.m2 = n, mean, m2
		return nil
	}
	total := a.n + n
	d := mean - a.mean
	a.mean += d * float64(n) / float64(total)
	a.m2 += m2 + d*d*float64(a.n)*float64(n)/float64(total)
	a.n = total
	return nil
}

// state is what the accumulator keeps, in arrival order: each value
// with its sort key.
func (k *keepN) state() any {
	items := slices.Clone(k.items)
	slices.SortFunc(items, func(a, b ranked) int { return cmp.Compare(a.seq, b.seq) })
	out := make(bson.A, len(items))
	for i, r := range items {
		out[i] = bson.A{r.key, r.out}
	}
	return out
}

// mergeState takes a later run's values as if they arrived now.
func (k *keepN) mergeState(st any) error {
	s, _ := st.(bson.A)
	for _, x := range s {
		kv, _ := x.(bson.A)
		var v any = kv[1]
		if k.kind == keepTop || k.kind == keepBottom {
			key, _ := kv[0].(bson.D)
			v = topBottomValue{key: key, out: kv[1]}
		}
		if err := k.add(v); err != nil {
			return err
		}
	}
	return nil
}

func (m *mergeAcc) state() any { return m.out }
func (m *mergeAcc) mergeState(st any) error {
	if d, ok := st.(bson.D); ok {
		return m.add(d)
	}
	return nil
}

func (a *pctAcc) state() any {
	vals := make(bson.A, len(a.vals))
	for i, f := range a.vals {
		vals[i] = f
	}
	return bson.A{vals, int64(a.negInf), int64(a.posInf)}
}
func (a *pctAcc) mergeState(st any) error {
	s, _ := st.(bson.A)
	vals, _ := s[0].(bson.A)
	for _, v := range vals {
		if err := a.add(v); err != nil {
			return err
		}
	}
	neg, _ := s[1].(int64)
	pos, _ := s[2].(int64)
	a.negInf += int(neg)
	a.posInf += int(pos)
	return nil
}

func (a *arrayAcc) state() any { return a.list() }
func (a *arrayAcc) mergeState(st any) error {
	if arr, ok := st.(bson.A); ok {
		return a.add(arr)
	}
	return nil
}

// groupBytes is $group's memory limit.
func (o *Options) groupBytes() int64 {
	if o.MaxGroupBytes > 0 {
		return o.MaxGroupBytes
	}
	return o.MaxMemoryBytes
}
