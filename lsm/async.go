package lsm

import (
	"errors"
	"fmt"

	badger "github.com/dgraph-io/badger/v4"
)

// Pipeline runs a sequence of read-write transactions so that staging
// one overlaps the write of the one before: a commit is sent to Badger
// and returns once Badger has checked it for conflicts and given it its
// commit timestamp, while Badger applies it in the background. Its
// outcome is read from the Pending it returns.
//
// Ordering and visibility, which callers may rely on:
//   - at most one commit of a Pipeline is being applied at a time: a
//     commit is sent only after the previous one has been applied;
//   - a transaction the caller (or anyone) begins after a commit was
//     sent sees that commit once it is applied: Badger's read timestamp
//     waits for every commit that has a timestamp (oracle.readTs), so a
//     sent commit is never invisible to a later reader;
//   - the transaction of the next Update is begun just before the
//     previous commit is sent (otherwise it would wait for that write and
//     nothing would overlap). It therefore does not see the previous
//     commit's writes; the previous and the next transaction must work on
//     different keys, or the next one conflicts at its commit (an
//     ordinary conflict: its Pending reports ErrConflict and nothing of
//     it is written).
//
// Each transaction is atomic, as with Update. A Pipeline is not safe for
// concurrent use; call Close when done.
type Pipeline struct {
	s *Store
	// next is the transaction begun before the last commit was sent,
	// for the next Update; nil when none.
	next *badger.Txn
	last *Pending
}

// Pending is a commit sent by a Pipeline.
type Pending struct {
	done chan struct{}
	err  error
}

// Wait blocks until the commit has been applied (or has failed) and
// returns its outcome: nil when it is durable as Update's would be, an
// error wrapping ErrConflict when a concurrent transaction wrote a key
// it read (nothing of it was written; run it again), or another error.
func (p *Pending) Wait() error {
	<-p.done
	return p.err
}

// Done reports, without blocking, whether the commit has been applied
// or has failed.
func (p *Pending) Done() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// NewPipeline returns an empty Pipeline over s.
func (s *Store) NewPipeline() *Pipeline { return &Pipeline{s: s} }

// Update runs fn in a read-write transaction and hands guard a send
// function, as UpdateGuarded does; send first waits until the
// Pipeline's previous commit has been applied, then sends this one and
// returns once it is ordered (conflict-checked and timestamped, or
// failed), without waiting for it to be written. guard must call send at
// most once and return its error.
//
// Update returns the Pending of the sent commit; nil and nil when guard
// returned nil without sending (nothing is written); or nil with the
// error of fn or guard (or of send, when the commit could not be sent)
// when nothing was sent, in which case nothing of this transaction is
// written. Conflicts are not retried here: they are reported by the
// Pending's Wait, and the caller runs the work again (for instance with
// Store.UpdateGuarded). An fn that stages no write is sent as an empty
// commit, which is applied at once.
func (p *Pipeline) Update(fn func(*Txn) error, guard func(send func() error) error) (*Pending, error) {
	s := p.s
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if s.opts.ReadOnly {
		return nil, ErrReadOnly
	}
	bt := p.next
	p.next = nil
	if bt == nil {
		bt = s.db.NewTransaction(true)
	}
	t := &Txn{s: s, t: bt, update: true}
	defer t.discard()
	if err := fn(t); err != nil {
		return nil, err
	}
	t.closeIters()
	var pend *Pending
	send := func() error {
		if t.done {
			return errors.New("lsm: transaction committed twice")
		}
		if p.last != nil {
			// Applied, whatever its outcome (its owner reads it).
			<-p.last.done
		}
		t.done = true
		// Begin the next transaction while this commit has no
		// timestamp yet, so it does not wait for this write.
		if p.next == nil {
			p.next = s.db.NewTransaction(true)
		}
		pd, err := s.sendCommit(t)
		if err != nil {
			return err
		}
		pend = pd
		p.last = pd
		return nil
	}
	if guard == nil {
		guard = func(send func() error) error { return send() }
	}
	if err := guard(send); err != nil {
		if pend != nil {
			// The commit was sent: its outcome belongs to the caller,
			// who returned an error after sending; report both.
			return pend, err
		}
		return nil, err
	}
	return pend, nil // nil when guard chose not to send
}

// pendingErr maps the error a Badger commit callback reports.
func pendingErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, badger.ErrConflict):
		return fmt.Errorf("%w: the transaction read a key a concurrent one wrote", ErrConflict)
	}
	return mapErr(err)
}

// Flush waits until the Pipeline's last commit has been applied and
// returns its outcome (nil when there is none), and ends the transaction
// begun for the next Update, so that no old snapshot is held while the
// caller pauses. The Pipeline may be used again.
func (p *Pipeline) Flush() error {
	if p.next != nil {
		p.next.Discard()
		p.next = nil
	}
	if p.last == nil {
		return nil
	}
	err := p.last.Wait()
	p.last = nil
	return err
}

// Close is Flush: it waits for the last commit and releases the
// Pipeline's transaction. Call it before Store.Close.
func (p *Pipeline) Close() error { return p.Flush() }

// UpdateSent runs fn in a read-write transaction and sends its commit,
// returning once Badger has ordered it (conflict-checked and given it
// its commit timestamp), without waiting for it to be written; the
// commit's outcome is read from the Pending. It is the one-off form of
// Pipeline.Update, for a caller that holds a lock while it stages and
// orders a commit and may release it before the write: every
// transaction begun after UpdateSent returns (by anyone) sees the
// commit once it is applied, as with a Pipeline.
//
// It returns fn's error, with nothing sent and nothing written, when fn
// fails. Conflicts are not retried here: the Pending's Wait reports
// them (an error wrapping ErrConflict, nothing written) and the caller
// runs the work again. A transaction that staged no write is sent as an
// empty commit, which is applied at once.
func (s *Store) UpdateSent(fn func(*Txn) error) (*Pending, error) {
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if s.opts.ReadOnly {
		return nil, ErrReadOnly
	}
	bt := s.db.NewTransaction(true)
	t := &Txn{s: s, t: bt, update: true}
	defer t.discard()
	if err := fn(t); err != nil {
		return nil, err
	}
	t.closeIters()
	t.done = true
	return s.sendCommit(t)
}

// sendCommit hands t's commit to Badger (with its change events, if
// any) and returns the Pending its write completes; ErrClosed, with
// nothing sent, once the store is closing.
func (s *Store) sendCommit(t *Txn) (*Pending, error) {
	pd := &Pending{done: make(chan struct{})}
	applied := func(err error) {
		pd.err = pendingErr(err)
		close(pd.done)
	}
	s.gate.RLock()
	defer s.gate.RUnlock()
	if s.closed.Load() {
		return nil, ErrClosed
	}
	if len(t.changes) > 0 && s.changes != nil {
		s.commitChanges(t.t, t.changes, applied)
	} else {
		t.t.CommitWith(applied)
	}
	s.commits.Add(1)
	return pd, nil
}
