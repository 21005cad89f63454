package engine

import (
	"github.com/ttlkv/ttlkv/collation"
	"github.com/ttlkv/ttlkv/document"
	"github.com/ttlkv/ttlkv/engine/internal/catalog"
	"github.com/ttlkv/ttlkv/ts"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The view graph of a database, as mongod's ViewGraph keeps it
// (docs/views.md, "Creation"): a node per namespace; a view's children
// are every namespace it reads, its viewOn and those its pipeline's
// $lookup, $graphLookup and $unionWith read (their sub-pipelines and
// $facet's included). A time-series collection is the view over its
// buckets that it is in mongod. A view that is created or modified is
// checked against it: no cycle through it, no path of more than
// maxViewDepth views through it, no resolved pipeline through it of
// more than maxViewPipelineBytes, and no edge between views of two
// collations.

// maxViewPipelineBytes is the largest resolved view pipeline, the sum
// of the BSON sizes of the stages of the views on one path, mongod's
// ViewGraph::kMaxViewPipelineSizeBytes.
const maxViewPipelineBytes = 16 * 1000 * 1000

// viewNode is a namespace of the graph. It is a view when it has
// children.
type viewNode struct {
	children []string // distinct, in the order the view reads them
	parents  []string // the views that read it
	coll     *collation.Collator
	size     int // the BSON size of its pipeline's stages
}

// viewGraph is the view graph of database db.
type viewGraph struct {
	db    string
	nodes map[string]*viewNode
}

// viewRefs returns the namespaces a view on viewOn with pipeline pipe
// reads, each once: its pipeline's first, then viewOn.
func viewRefs(viewOn string, pipe bson.A) []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range append(involvedNamespaces(pipe, nil), viewOn) {
		if !seen[n] {
			seen[n] = true
			out = append(out, n)
		}
	}
	return out
}

// pipelineBytes is the sum of the BSON sizes of a pipeline's stages.
func pipelineBytes(pipe bson.A) int {
	n := 0
	for _, st := range pipe {
		if b, err := bson.Marshal(st); err == nil {
			n += len(b)
		}
	}
	return n
}

// viewGraphOf returns the view graph of database dbName without the
// view named skip (the one being created or modified).
func (db *DB) viewGraphOf(dbName, skip string) *viewGraph {
	g := &viewGraph{db: dbName, nodes: map[string]*viewNode{}}
	for _, c := range db.collsOf(dbName) {
		m := c.m()
		if m.Name == skip {
			continue
		}
		switch m.Kind {
		case catalog.KindView:
			on, pipe := viewDef(m)
			g.add(m.Name, viewRefs(on, pipe), pipelineBytes(pipe), m.DefaultCollator())
		case catalog.KindTimeseries:
			var pipe bson.A
			if t, err := decodeTSMeta(m); err == nil {
				pipe = tsViewPipeline(t.opts)
			}
			g.add(m.Name, []string{tsBucketsPre + m.Name}, pipelineBytes(pipe), m.DefaultCollator())
		}
	}
	return g
}

// tsViewPipeline is the pipeline of the view over its buckets a
// time-series collection of options o is in mongod: one
// $_internalUnpackBucket.
func tsViewPipeline(o ts.Options) bson.A {
	unpack := bson.D{{Key: "timeField", Value: o.TimeField}}
	if o.MetaField != "" {
		unpack = append(unpack, bson.E{Key: "metaField", Value: o.MetaField})
	}
	unpack = append(unpack, bson.E{Key: "bucketMaxSpanSeconds", Value: int32(o.BucketMaxSpanSeconds)})
	return bson.A{bson.D{{Key: "$_internalUnpackBucket", Value: unpack}}}
}

// node returns the node of namespace name, made if there is none.
func (g *viewGraph) node(name string) *viewNode {
	n := g.nodes[name]
	if n == nil {
		n = &viewNode{}
		g.nodes[name] = n
	}
	return n
}

// add inserts view name reading refs.
func (g *viewGraph) add(name string, refs []string, size int, coll *collation.Collator) {
	n := g.node(name)
	n.children, n.size, n.coll = refs, size, coll
	for _, r := range refs {
		c := g.node(r)
		c.parents = append(c.parents, name)
	}
}

// ns is name's namespace as mongod's messages show it.
func (g *viewGraph) ns(name string) string { return g.db + "." + name }

// viewStats is what a traversal learned of a node: the most views on a
// path from it (itself and the namespace at the end included), and the
// largest pipeline on one.
type viewStats struct {
	checked bool
	height  int
	size    int
}

func errViewDepth() error {
	return document.Errorf(document.CodeViewDepthLimitExceeded, "View depth limit exceeded; maximum depth is %d", maxViewDepth)
}

// errViewCollation is mongod's refusal of an edge between views of two
// collations.
func (g *viewGraph) errViewCollation(a, b string) error {
	return document.Errorf(document.CodeOptionNotSupportedOnView, "View %s has a collation that does not match the collation of view %s", g.ns(a), g.ns(b))
}

// validate checks view name, added last, as mongod's
// ViewGraph::insertAndValidate does: a cycle back to it is 140
// GraphContainsCycle, a path of views through it longer than
// maxViewDepth 165 ViewDepthLimitExceeded, a view reading or read by a
// view of another collation 167 OptionNotSupportedOnView, and a
// resolved pipeline through it over maxViewPipelineBytes 195
// ViewPipelineMaxSizeExceeded.
func (g *viewGraph) validate(name string) error {
	below := map[string]*viewStats{}
	var path []string
	if err := g.children(name, name, 0, below, &path); err != nil {
		return err
	}
	childrenHeight := below[name].height - 1 // the namespace at the end is no view
	childrenSize := below[name].size
	above := map[string]*viewStats{}
	if err := g.parents(name, 0, above); err != nil {
		return err
	}
	if above[name].height+childrenHeight-1 > maxViewDepth {
		return errViewDepth()
	}
	if above[name].size+childrenSize-g.nodes[name].size > maxViewPipelineBytes {
		return document.Errorf(document.CodeViewPipelineMaxSizeExceeded, "Operation would result in a resolved view pipeline that exceeds the maximum size of %d bytes", maxViewPipelineBytes)
	}
	return nil
}

// viewStatsOf returns name's entry of m, made if there is none.
func viewStatsOf(m map[string]*viewStats, name string) *viewStats {
	s := m[name]
	if s == nil {
		s = &viewStats{}
		m[name] = s
	}
	return s
}

// children walks the namespaces cur reads, depth views below start,
// with path the walk from start to cur.
func (g *viewGraph) children(start, cur string, depth int, st map[string]*viewStats, path *[]string) error {
	n := g.node(cur)
	*path = append(*path, cur)
	if depth > 0 && cur == start {
		// mongod names the view, then the path back from it to it.
		msg := g.ns(start)
		for i := len(*path) - 1; i >= 0; i-- {
			msg += " => " + g.ns((*path)[i])
		}
		return document.Errorf(document.CodeGraphContainsCycle, "View cycle detected: %s", msg)
	}
	if depth > maxViewDepth {
		return errViewDepth()
	}
	height, size := 0, 0
	for _, c := range n.children {
		if viewStatsOf(st, c).checked {
			continue
		}
		if cn := g.node(c); len(cn.children) > 0 && !collation.Equal(n.coll, cn.coll) {
			return g.errViewCollation(cur, c)
		}
		if err := g.children(start, c, depth+1, st, path); err != nil {
			return err
		}
		height, size = max(height, st[c].height), max(size, st[c].size)
	}
	*path = (*path)[:len(*path)-1]
	s := viewStatsOf(st, cur)
	s.checked, s.height, s.size = true, height+1, s.size+size+n.size
	return nil
}

// parents walks the views that read cur, depth views above the view
// being checked.
func (g *viewGraph) parents(cur string, depth int, st map[string]*viewStats) error {
	if depth > maxViewDepth {
		return errViewDepth()
	}
	n := g.node(cur)
	height, size := 0, 0
	for _, p := range n.parents {
		pn := g.node(p)
		if len(pn.children) > 0 && !collation.Equal(n.coll, pn.coll) {
			return g.errViewCollation(cur, p)
		}
		if !viewStatsOf(st, p).checked {
			if err := g.parents(p, depth+1, st); err != nil {
				return err
			}
		}
		height, size = max(height, st[p].height), max(size, st[p].size)
	}
	s := viewStatsOf(st, cur)
	s.checked, s.height, s.size = true, height+1, s.size+size+n.size
	if s.size > maxViewPipelineBytes {
		return document.Errorf(document.CodeViewPipelineMaxSizeExceeded, "View pipeline is too large and exceeds the maximum size of %d bytes", maxViewPipelineBytes)
	}
	return nil
}

// checkViewGraph refuses view name of dbName on viewOn with pipeline
// pipe and collation coll (nil: simple), created or modified, that the
// database's view graph cannot take (viewGraph.validate).
func (db *DB) checkViewGraph(dbName, name, viewOn string, pipe bson.A, coll *collation.Collator) error {
	g := db.viewGraphOf(dbName, name)
	g.add(name, viewRefs(viewOn, pipe), pipelineBytes(pipe), coll)
	return g.validate(name)
}

// errViewTooDeep is mongod's refusal to read a view that stands on
// maxViewDepth views or more (its resolveView follows at most that
// many).
func errViewTooDeep() error {
	return document.Errorf(document.CodeViewDepthLimitExceeded, "View depth too deep or view cycle detected; maximum depth is %d", maxViewDepth)
}

// checkViewResolves refuses to read namespace name of dbName when it
// is a view whose viewOn chain holds maxViewDepth views or more (a
// time-series collection counting as one), as mongod's resolveView
// does: 165 ViewDepthLimitExceeded. A chain of exactly maxViewDepth
// views can be created but not read, in mongod as here.
func (db *DB) checkViewResolves(dbName, name string) error {
	on := name
	for range maxViewDepth {
		c := db.lookup(dbName, on)
		if c == nil {
			return nil
		}
		switch m := c.m(); m.Kind {
		case catalog.KindView:
			on, _ = viewDef(m)
		case catalog.KindTimeseries:
			on = tsBucketsPre + m.Name
		default:
			return nil
		}
	}
	return errViewTooDeep()
}
