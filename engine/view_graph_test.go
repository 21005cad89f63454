package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The view graph follows what a view's pipeline reads, as mongod's
// ViewGraph does (jstests/core/views/views_validation.js,
// src/mongo/db/views/view_graph.cpp).

func graphLookup(from string) string {
	return fmt.Sprintf(`{"$graphLookup": {"from": %q, "as": "as", "startWith": "startWith", "connectFromField": "connectFromField", "connectToField": "connectToField"}}`, from)
}

func lookupStage(from string) string {
	return fmt.Sprintf(`{"$lookup": {"from": %q, "as": "as", "localField": "localField", "foreignField": "foreignField"}}`, from)
}

func facetStage(from string) string {
	return fmt.Sprintf(`{"$facet": {"Facet Key": [%s]}}`, lookupStage(from))
}

func unionStage(from string) string { return fmt.Sprintf(`{"$unionWith": %q}`, from) }

func createView(name, on string, stages ...string) string {
	return fmt.Sprintf(`{"create": %q, "viewOn": %q, "pipeline": [%s]}`, name, on, strings.Join(stages, ", "))
}

// TestViewGraphCyclesThroughPipelines: a cycle through a $lookup,
// $graphLookup, $facet or $unionWith (nested too) is 140, its path
// shown backwards from the view, as mongod prints it.
func TestViewGraphCyclesThroughPipelines(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	cycle := document.CodeGraphContainsCycle
	wantCode(t, db, "g", createView("a", "a"), cycle, "View cycle detected: g.a => g.a => g.a")
	for i, stage := range []func(string) string{lookupStage, graphLookup, facetStage, unionStage} {
		dbName := fmt.Sprintf("g%d", i)
		wantCode(t, db, dbName, createView("a", "b", stage("a")), cycle,
			fmt.Sprintf("View cycle detected: %[1]s.a => %[1]s.a => %[1]s.a", dbName))
		mustRun(t, db, dbName, createView("a", "b", stage("b")))
		wantCode(t, db, dbName, createView("b", "c", stage("a")), cycle,
			fmt.Sprintf("View cycle detected: %[1]s.b => %[1]s.b => %[1]s.a => %[1]s.b", dbName))
	}
	wantCode(t, db, "g", createView("a", "b", `{"$unionWith": {"coll": "c", "pipeline": [{"$unionWith": "a"}]}}`), cycle,
		"View cycle detected: g.a => g.a => g.a")
	wantCode(t, db, "g", createView("a", "b", `{"$lookup": {"from": "x", "pipeline": [{"$unionWith": "a"}], "as": "r"}}`), cycle, "")

	// A longer cycle is printed from the view back along the path.
	mustRun(t, db, "h", createView("a", "b"))
	mustRun(t, db, "h", createView("b", "x", lookupStage("c")))
	wantCode(t, db, "h", createView("c", "a"), cycle, "View cycle detected: h.c => h.c => h.b => h.a => h.c")
	// collMod checks the graph as create does, its pipeline included.
	mustRun(t, db, "h", createView("c", "y"))
	wantCode(t, db, "h", `{"collMod": "c", "pipeline": [`+unionStage("a")+`]}`, cycle, "View cycle detected: h.c => h.c => h.b => h.a => h.c")
	wantCode(t, db, "h", `{"collMod": "c", "viewOn": "y", "pipeline": [`+facetStage("b")+`]}`, cycle, "View cycle detected: h.c => h.c => h.b => h.c")
	mustRun(t, db, "h", `{"collMod": "c", "pipeline": [`+unionStage("z")+`]}`)
	// Nothing of the refused definitions was kept.
	r := mustRun(t, db, "h", `{"listCollections": 1, "filter": {"name": "c"}}`)
	if got := fmt.Sprint(firstBatch(t, r)[0]); !strings.Contains(got, `"viewOn":"y","pipeline":[{"$unionWith":"z"}]`) {
		t.Errorf("view c = %s", got)
	}
}

// TestViewGraphDepthThroughPipelines: views_validation.js's tree of 20
// levels, each view reading the next four times; a view above or below
// it is 165, whichever stage reaches it, and one in its middle is not.
func TestViewGraphDepthThroughPipelines(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	for i := 1; i <= maxViewDepth; i++ {
		child := fmt.Sprintf("v%d", i+1)
		mustRun(t, db, "d", createView(fmt.Sprintf("v%d", i), child, lookupStage(child), graphLookup(child), facetStage(child), unionStage(child)))
	}
	depth := document.CodeViewDepthLimitExceeded
	msg := "View depth limit exceeded; maximum depth is 20"
	wantCode(t, db, "d", createView("v21", "v22"), depth, msg)
	wantCode(t, db, "d", createView("v0", "v1"), depth, msg)
	for _, stage := range []func(string) string{lookupStage, graphLookup, facetStage, unionStage} {
		wantCode(t, db, "d", createView("v0", "ok", stage("v1")), depth, msg)
	}
	// Reading through a chain of 20 views is refused: mongod's
	// resolveView follows 19 at most.
	tooDeep := "View depth too deep or view cycle detected; maximum depth is 20"
	wantCode(t, db, "d", `{"aggregate": "v10", "pipeline": [`+unionStage("v1")+`], "cursor": {}}`, depth, tooDeep)
	wantCode(t, db, "d", `{"aggregate": "v10", "pipeline": [`+lookupStage("v1")+`], "cursor": {}}`, depth, tooDeep)
	wantCode(t, db, "d", `{"find": "v1"}`, depth, tooDeep)
	wantCode(t, db, "d", `{"explain": {"find": "v1"}}`, depth, tooDeep)
	wantCode(t, db, "d", `{"count": "v1"}`, depth, tooDeep)
	mustRun(t, db, "d", createView("vMid", "v10"))

	// A chain of 19 views reads; one of 20 is refused, through
	// $unionWith and $lookup too, whether or not they read anything.
	mustRun(t, db, "r", `{"insert": "c", "documents": [{"_id": 1}]}`)
	prev := "c"
	for i := 1; i <= maxViewDepth; i++ {
		name := fmt.Sprintf("r%d", i)
		mustRun(t, db, "r", createView(name, prev))
		prev = name
	}
	if got := firstBatch(t, mustRun(t, db, "r", `{"find": "r19"}`)); len(got) != 1 {
		t.Errorf("find r19 = %v", got)
	}
	wantCode(t, db, "r", `{"find": "r20"}`, depth, tooDeep)
	wantCode(t, db, "r", `{"aggregate": "c", "pipeline": [{"$match": {"none": 1}}, `+lookupStage("r20")+`], "cursor": {}}`, depth, tooDeep)
	wantCode(t, db, "r", `{"aggregate": "c", "pipeline": [{"$facet": {"f": [`+unionStage("r20")+`]}}], "cursor": {}}`, depth, tooDeep)
	// ... and so is a view whose pipeline reads one of 19 views: its
	// own chain counts one more.
	mustRun(t, db, "r", createView("reads19", "c", lookupStage("r19")))
	mustRun(t, db, "r", `{"aggregate": "c", "pipeline": [`+unionStage("reads19")+`], "cursor": {}}`)
	wantCode(t, db, "r", createView("onReads19", "reads19"), depth, msg)
}

// TestViewGraphCollationThroughPipelines: a view whose pipeline reads a
// view of another collation is 167, and so is a view created under a
// name another view already reads, with a collation not its own.
func TestViewGraphCollationThroughPipelines(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "k", `{"create": "fr", "viewOn": "c", "collation": {"locale": "fr"}}`)
	wantCode(t, db, "k", createView("v", "c", lookupStage("fr")), document.CodeOptionNotSupportedOnView,
		"View k.v has a collation that does not match the collation of view k.fr")
	wantCode(t, db, "k", createView("v", "c", facetStage("fr")), document.CodeOptionNotSupportedOnView, "")
	mustRun(t, db, "k", `{"create": "v", "viewOn": "c", "pipeline": [`+unionStage("fr")+`], "collation": {"locale": "fr"}}`)
	// w reads "later", not yet a view; creating it with another
	// collation is refused.
	mustRun(t, db, "k", createView("w", "c", unionStage("later")))
	wantCode(t, db, "k", `{"create": "later", "viewOn": "c", "collation": {"locale": "fr"}}`, document.CodeOptionNotSupportedOnView,
		"View k.later has a collation that does not match the collation of view k.w")
	mustRun(t, db, "k", createView("later", "c"))
	// A time-series collection is a view in mongod's graph, with its
	// collation.
	mustRun(t, db, "k", `{"create": "ts", "timeseries": {"timeField": "t"}, "collation": {"locale": "fr"}}`)
	wantCode(t, db, "k", createView("onTS", "ts"), document.CodeOptionNotSupportedOnView,
		"View k.onTS has a collation that does not match the collation of view k.ts")
	mustRun(t, db, "k", `{"create": "onTS", "viewOn": "ts", "collation": {"locale": "fr"}}`)
	// So is creating a time-series collection a view of another
	// collation already reads.
	mustRun(t, db, "k", createView("onLaterTS", "c", lookupStage("laterTS")))
	wantCode(t, db, "k", `{"create": "laterTS", "timeseries": {"timeField": "t"}, "collation": {"locale": "fr"}}`, document.CodeOptionNotSupportedOnView,
		"View k.laterTS has a collation that does not match the collation of view k.onLaterTS")
	if got := listedColl(t, db, "k", "laterTS"); got != "" {
		t.Errorf("laterTS was created: %s", got)
	}
	mustRun(t, db, "k", `{"create": "laterTS", "timeseries": {"timeField": "t"}}`)
}

// TestViewGraphTimeseriesDepth: a time-series collection counts as a
// view of a chain, at create and at read.
func TestViewGraphTimeseriesDepth(t *testing.T) {
	t.Parallel()
	db, _ := openMem(t)
	mustRun(t, db, "td", `{"create": "ts", "timeseries": {"timeField": "t"}}`)
	prev := "ts"
	for i := 1; i < maxViewDepth; i++ {
		name := fmt.Sprintf("v%d", i)
		mustRun(t, db, "td", createView(name, prev))
		prev = name
	}
	// 19 views and the time-series collection: 20, which cannot be read.
	wantCode(t, db, "td", `{"find": "v19"}`, document.CodeViewDepthLimitExceeded, "View depth too deep or view cycle detected; maximum depth is 20")
	mustRun(t, db, "td", `{"find": "v18"}`)
	wantCode(t, db, "td", createView("v20", "v19"), document.CodeViewDepthLimitExceeded, "View depth limit exceeded; maximum depth is 20")
	// A time-series collection under 20 views that read its name.
	prev = "later"
	for i := 1; i <= maxViewDepth; i++ {
		name := fmt.Sprintf("w%d", i)
		mustRun(t, db, "td", createView(name, prev))
		prev = name
	}
	wantCode(t, db, "td", `{"create": "later", "timeseries": {"timeField": "t"}}`, document.CodeViewDepthLimitExceeded, "View depth limit exceeded; maximum depth is 20")
}

// TestViewGraphPipelineSize: the views on one path may not have
// pipelines of more than 16,000,000 bytes together (195).
func TestViewGraphPipelineSize(t *testing.T) {
	t.Parallel()
	db, _, _ := openTest(t) // values over the in-memory store's limit
	big := func(name, on string, n int, more ...any) bson.D {
		pipe := append(bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "s", Value: strings.Repeat("x", n)}}}}}, more...)
		return bson.D{{Key: "create", Value: name}, {Key: "viewOn", Value: on}, {Key: "pipeline", Value: pipe}}
	}
	create := func(cmd bson.D) error {
		_, err := db.RunCommand(context.Background(), "z", cmd)
		return err
	}
	if err := create(big("a", "c", 8_100_000)); err != nil {
		t.Fatalf("create a: %.200v", err)
	}
	tooBig := "Operation would result in a resolved view pipeline that exceeds the maximum size of 16000000 bytes"
	checkCode(t, "create b on a", create(big("b", "a", 8_000_000)), document.CodeViewPipelineMaxSizeExceeded, tooBig)
	// A $unionWith's view counts as viewOn's does.
	checkCode(t, "create b reading a", create(big("b", "c", 8_000_000, bson.D{{Key: "$unionWith", Value: "a"}})), document.CodeViewPipelineMaxSizeExceeded, tooBig)
	if err := create(big("b", "c", 7_000_000, bson.D{{Key: "$unionWith", Value: "a"}})); err != nil {
		t.Fatalf("create b: %.200v", err)
	}
	// One pipeline alone of more than 16,000,000 bytes.
	checkCode(t, "create huge", create(big("huge", "c", 16_100_000)), document.CodeViewPipelineMaxSizeExceeded,
		"View pipeline is too large and exceeds the maximum size of 16000000 bytes")
}
