package engine

import (
	"strings"

	"github.com/ttlkv/ttlkv/document"
	"go.mongodb.org/mongo-driver/v2/bson"
)

// The update rules of mongod 7.0 on a time-series collection
// (docs/timeseries.md §6.9): an update statement (and findAndModify's
// update, which is never multi) must be multi, not an upsert, on a
// collection with a metaField, with a filter and an operator update that
// name only the metaField. Every refusal is 72 InvalidOptions, checked
// in this order, before anything is read.

// tsCheckUpdate refuses update statement s on a time-series collection
// whose metaField is meta ("" for none), as mongod 7.0 does.
func tsCheckUpdate(s UpdateSpec, meta string) error {
	refuse := func(msg string) error { return document.Errorf(document.CodeInvalidOptions, "%s", msg) }
	switch {
	case !s.Multi:
		return refuse("Cannot perform a non-multi update on a time-series collection")
	case s.Upsert:
		return refuse("Cannot perform an upsert on a time-series collection")
	case meta == "":
		return refuse("Cannot perform an update on a time-series collection that does not have a metaField")
	}
	for _, e := range s.Filter {
		if err := tsCheckQueryElem(e.Key, e.Value, meta, true, false); err != nil {
			return err
		}
	}
	switch {
	case s.Update == nil:
		return refuse("Cannot perform an update on a time-series collection using a pipeline update")
	case len(s.Update) == 0 || !strings.HasPrefix(s.Update[0].Key, "$"):
		return refuse("Cannot perform an update on a time-series collection using a replacement document")
	}
	for _, op := range s.Update {
		fields, _ := op.Value.(bson.D)
		for _, f := range fields {
			ok := tsOnMeta(f.Key, meta)
			if ok && op.Key == "$rename" {
				to, isStr := f.Value.(string)
				ok = isStr && tsOnMeta(to, meta)
			}
			if !ok {
				return document.Errorf(document.CodeInvalidOptions,
					"Cannot perform an update on a time-series collection which updates a field that is not the metaField '%s'", meta)
			}
		}
	}
	return nil
}

// tsOnMeta reports whether path's first component is meta.
func tsOnMeta(path, meta string) bool {
	first, _, _ := strings.Cut(path, ".")
	return first == meta
}

// tsCheckQueryElem checks one element of an update's filter as mongod's
// translateQuery does: a field name (not an operator) at the top level,
// or in a document directly inside an array ($and: [{...}]), must be a
// path under the metaField, and $expr and $where are refused anywhere.
func tsCheckQueryElem(key string, v any, meta string, top, parentIsArray bool) error {
	notMeta := func() error {
		return document.Errorf(document.CodeInvalidOptions,
			"Cannot perform an update or delete on a time-series collection when querying on a field that is not the metaField '%s'", meta)
	}
	switch key {
	case "$expr", "$where":
		return document.Errorf(document.CodeInvalidOptions,
			"Cannot use %s when performing an update or delete on a time-series collection", key)
	case "$jsonSchema":
		schema, _ := v.(bson.D)
		for _, e := range schema {
			switch e.Key {
			case "required":
				req, _ := e.Value.(bson.A)
				for _, r := range req {
					if s, ok := r.(string); !ok || s != meta {
						return notMeta()
					}
				}
			case "properties":
				props, _ := e.Value.(bson.D)
				for _, p := range props {
					if p.Key != meta {
						return notMeta()
					}
				}
			}
		}
		return nil
	}
	if top && !strings.HasPrefix(key, "$") && !tsOnMeta(key, meta) {
		return notMeta()
	}
	switch x := v.(type) {
	case bson.D:
		for _, e := range x {
			if err := tsCheckQueryElem(e.Key, e.Value, meta, parentIsArray, false); err != nil {
				return err
			}
		}
	case bson.A:
		for _, e := range x {
			if err := tsCheckQueryElem("", e, meta, false, true); err != nil {
				return err
			}
		}
	}
	return nil
}
