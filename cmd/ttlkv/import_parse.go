package main

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/ttlkv/ttlkv/cmd/ttlkv/internal/mongosh"
	"github.com/ttlkv/ttlkv/document"
)

// Parsing Extended JSON is most of an import's CPU time, so JSON input is
// parsed on every core: the reader cuts it into chunks of raw documents,
// parsers work on chunks in parallel, and the chunks are batched for
// insertion in input order, so documents, line numbers and error reports
// come out exactly as a serial import would give them.

// legacyParser returns the parse function of --legacy, for one parser
// goroutine: Extended JSON as without it, else the legacy forms
// mongoimport --legacy reads, which are the old shell's literals
// (ObjectId("..."), NumberLong(5), NumberInt(3), ISODate("..."),
// unquoted keys, single quotes). legacyDoc reads them from their syntax
// tree; what it leaves is read by a shell kept for the goroutine, which
// takes literals only: no code in the input runs.
func legacyParser() func([]byte) (bson.D, error) {
	var sp *mongosh.DocParser
	return func(text []byte) (bson.D, error) {
		d, err := parseImportJSON(text)
		if err == nil {
			return d, nil
		}
		// The forms mongoimport reads are typed as it types them; the
		// shell reads the rest (it cannot tell 1.0 from 1).
		shell := func(text string) (any, error) {
			if sp == nil {
				var perr error
				if sp, perr = mongosh.NewDocParser(); perr != nil {
					return nil, perr
				}
			}
			d, err := sp.ParseLiteral("{v: " + text + "}")
			if err != nil {
				return nil, err
			}
			if len(d) != 1 {
				return nil, errLegacyOther
			}
			return d[0].Value, nil
		}
		ld, lerr := legacyDoc(string(text), shell)
		if lerr == nil {
			return document.Normalize(ld)
		}
		if !errors.Is(lerr, errLegacyOther) && !errors.Is(lerr, errLegacyWrapper) {
			return nil, fmt.Errorf("legacy Extended JSON: %v", lerr)
		}
		if sp == nil {
			var perr error
			if sp, perr = mongosh.NewDocParser(); perr != nil {
				return nil, perr
			}
		}
		sd, serr := sp.ParseLiteral(string(text))
		if serr != nil {
			return nil, fmt.Errorf("legacy Extended JSON: %v", serr)
		}
		return document.Normalize(sd)
	}
}

// jsonChunkLen is how many raw documents a parse chunk holds.
const jsonChunkLen = 256

// jsonChunk is a run of raw documents and, once done is closed, what
// parsing them gave.
type jsonChunk struct {
	texts [][]byte
	lines []int
	docs  []bson.D
	errs  []error
	done  chan struct{}
}

// jsonParser runs the parse stage of one import.
type jsonParser struct {
	im    *importer
	cur   *jsonChunk
	work  chan *jsonChunk // to the parsers
	order chan *jsonChunk // to the sequencer, in input order
	wg    sync.WaitGroup  // the parsers
	seqWG sync.WaitGroup  // the sequencer
	// stop is set when the sequencer wants no more input (--stopOnError
	// saw a bad document, or the inserts failed).
	stop atomic.Bool
	err  error // the sequencer's reason to stop, read after seqWG.Wait
}

// startJSONParser starts the parsers and the sequencer.
func (im *importer) startJSONParser() *jsonParser {
	n := max(runtime.GOMAXPROCS(0), 1)
	p := &jsonParser{im: im, work: make(chan *jsonChunk, 2*n), order: make(chan *jsonChunk, 4*n)}
	for range n {
		p.wg.Add(1)
		go func() {
			defer p.wg.Done()
			parse := parseImportJSON
			if im.f.legacy {
				parse = legacyParser()
			}
			for c := range p.work {
				c.docs = make([]bson.D, len(c.texts))
				c.errs = make([]error, len(c.texts))
				for i, t := range c.texts {
					c.docs[i], c.errs[i] = parse(t)
				}
				close(c.done)
			}
		}()
	}
	p.seqWG.Add(1)
	go func() {
		defer p.seqWG.Done()
		for c := range p.order {
			<-c.done
			if p.err != nil {
				continue // drain
			}
			for i := range c.texts {
				var err error
				if c.errs[i] != nil {
					err = im.parseError(c.lines[i], c.errs[i])
				} else {
					err = im.add(c.docs[i], c.lines[i], len(c.texts[i]))
				}
				if err != nil {
					p.err = err
					p.stop.Store(true)
					break
				}
			}
		}
	}()
	return p
}

// addJSON queues one raw document read from the given line; text is
// kept, so the caller must not reuse it. It returns errStopped once the
// import is to stop.
func (im *importer) addJSON(text []byte, line int) error {
	p := im.parser
	if p.stop.Load() {
		return errStopped
	}
	if p.cur == nil {
		p.cur = &jsonChunk{done: make(chan struct{})}
	}
	p.cur.texts = append(p.cur.texts, text)
	p.cur.lines = append(p.cur.lines, line)
	if len(p.cur.texts) >= jsonChunkLen {
		p.dispatch()
	}
	return nil
}

func (p *jsonParser) dispatch() {
	if p.cur == nil {
		return
	}
	p.order <- p.cur
	p.work <- p.cur
	p.cur = nil
}

// close parses what is left and waits for every chunk to be batched; it
// returns why the sequencer stopped early, if it did.
func (p *jsonParser) close() error {
	p.dispatch()
	close(p.work)
	close(p.order)
	p.wg.Wait()
	p.seqWG.Wait()
	return p.err
}
