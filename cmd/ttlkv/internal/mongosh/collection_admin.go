package mongosh

import (
	"fmt"

	"github.com/dop251/goja"
	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/document"
)

// collectionAdminMethods adds mongosh's collection helpers for commands
// and stages ttlkv may not have (reIndex, mapReduce, search indexes,
// the plan cache) and for sharding: each sends what mongosh sends, so
// that a refusal is the server's and prints as mongosh prints it, and
// getShardDistribution throws mongosh's error for a collection that is
// not sharded (docs/shell.md).
func (s *Shell) collectionAdminMethods(m func(string, func(goja.FunctionCall) goja.Value), db, name string) {
	rt := s.rt
	aggregate := func(stages ...bson.D) goja.Value {
		pipeline := make([]any, len(stages))
		for i, st := range stages {
			pipeline[i] = s.toJS(st)
		}
		cur := s.callMethod(s.collection(db, name), "aggregate", rt.NewArray(pipeline...))
		return s.callMethod(cur.(*goja.Object), "toArray")
	}
	m("reIndex", func(goja.FunctionCall) goja.Value {
		return s.toJS(s.command(db, bson.D{{Key: "reIndex", Value: name}}))
	})
	m("mapReduce", func(c goja.FunctionCall) goja.Value {
		if !s.warned["mapReduce"] {
			s.warned["mapReduce"] = true
			fmt.Fprintln(s.out, "DeprecationWarning: Collection.mapReduce() is deprecated. Use an aggregation instead.\nSee https://mongodb.com/docs/manual/core/map-reduce for details.")
		}
		code := func(v goja.Value) any {
			if _, isFn := goja.AssertFunction(v); isFn {
				return bson.JavaScript(v.String())
			}
			return v.String()
		}
		cmd := bson.D{{Key: "mapReduce", Value: name}, {Key: "map", Value: code(c.Argument(0))}, {Key: "reduce", Value: code(c.Argument(1))}}
		opts := c.Argument(2)
		if goja.IsString(opts) {
			cmd = append(cmd, bson.E{Key: "out", Value: opts.String()})
		} else {
			cmd = s.appendOptions(cmd, opts, "options")
		}
		return s.toJS(s.command(db, cmd))
	})
	m("getShardDistribution", func(goja.FunctionCall) goja.Value {
		aggregate(bson.D{{Key: "$collStats", Value: bson.D{{Key: "storageStats", Value: bson.D{}}}}})
		panic(s.mongoshError("MongoshInvalidInputError", "SHAPI-10001", "Collection "+name+" is not sharded"))
	})
	adminCmd := func(cmd bson.D) goja.Value { return s.toJS(s.command("admin", cmd)) }
	m("getShardVersion", func(goja.FunctionCall) goja.Value {
		return adminCmd(bson.D{{Key: "getShardVersion", Value: db + "." + name}})
	})
	m("analyzeShardKey", func(c goja.FunctionCall) goja.Value {
		if goja.IsUndefined(c.Argument(0)) {
			panic(s.invalidInput("Missing required argument at position 0 (Collection.analyzeShardKey)"))
		}
		cmd := bson.D{{Key: "analyzeShardKey", Value: db + "." + name}, {Key: "key", Value: s.mustBSON(c.Argument(0))}}
		return adminCmd(s.appendOptions(cmd, c.Argument(1), "options"))
	})
	// The Atlas Search index helpers, as mongosh sends them; a server
	// without search refuses them.
	searchIndexes := func(specs bson.A) goja.Value {
		r := s.command(db, bson.D{{Key: "createSearchIndexes", Value: name}, {Key: "indexes", Value: specs}})
		created, _ := document.Get(r, "indexesCreated")
		names := bson.A{}
		arr, _ := created.(bson.A)
		for _, x := range arr {
			d, _ := x.(bson.D)
			n, _ := document.Get(d, "name")
			names = append(names, n)
		}
		return s.toJS(names)
	}
	m("createSearchIndex", func(c goja.FunctionCall) goja.Value {
		var spec bson.D
		first, second := c.Argument(0), c.Argument(2)
		if o, ok := first.(*goja.Object); ok && !isAbsent(o.Get("definition")) {
			spec = s.optDoc(first, "description")
		} else {
			var def goja.Value = second
			typ := c.Argument(1)
			if _, ok := typ.(*goja.Object); ok {
				def, typ = typ, goja.Undefined()
			}
			if _, ok := first.(*goja.Object); ok {
				def = first
			} else if !isAbsent(first) {
				spec = append(spec, bson.E{Key: "name", Value: first.String()})
			}
			if !isAbsent(typ) && typ.String() != "search" {
				spec = append(spec, bson.E{Key: "type", Value: typ.String()})
			}
			spec = append(spec, bson.E{Key: "definition", Value: s.optDoc(def, "definition")})
		}
		names := searchIndexes(bson.A{spec}).ToObject(rt)
		return names.Get("0")
	})
	m("createSearchIndexes", func(c goja.FunctionCall) goja.Value {
		specs, _ := s.mustBSON(c.Argument(0)).(bson.A)
		return searchIndexes(specs)
	})
	m("dropSearchIndex", func(c goja.FunctionCall) goja.Value {
		return s.toJS(s.command(db, bson.D{{Key: "dropSearchIndex", Value: name}, {Key: "name", Value: c.Argument(0).String()}}))
	})
	m("updateSearchIndex", func(c goja.FunctionCall) goja.Value {
		return s.toJS(s.command(db, bson.D{{Key: "updateSearchIndex", Value: name}, {Key: "name", Value: c.Argument(0).String()}, {Key: "definition", Value: s.optDoc(c.Argument(1), "definition")}}))
	})
	m("getSearchIndexes", func(c goja.FunctionCall) goja.Value {
		spec := bson.D{}
		if n := c.Argument(0); goja.IsString(n) {
			spec = append(spec, bson.E{Key: "name", Value: n.String()})
		}
		return aggregate(bson.D{{Key: "$listSearchIndexes", Value: spec}})
	})
	m("getPlanCache", func(goja.FunctionCall) goja.Value {
		pc := rt.NewObject()
		s.printsAs(pc, "PlanCache for collection "+name+".")
		_ = pc.DefineDataProperty("help", s.helpMethod("plancache", pc), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
		defer s.giveMethodHelps("plancache", objectMethods(pc)) // once its methods are there
		_ = pc.Set("list", func(c goja.FunctionCall) goja.Value {
			stages := []bson.D{{{Key: "$planCacheStats", Value: bson.D{}}}}
			if p, err := s.toBSON(c.Argument(0), 0); err == nil {
				if arr, ok := p.(bson.A); ok {
					for _, st := range arr {
						if d, isDoc := st.(bson.D); isDoc {
							stages = append(stages, d)
						}
					}
				}
			}
			return aggregate(stages...)
		})
		_ = pc.Set("clear", func(goja.FunctionCall) goja.Value {
			return s.toJS(s.command(db, bson.D{{Key: "planCacheClear", Value: name}}))
		})
		return pc
	})
}
