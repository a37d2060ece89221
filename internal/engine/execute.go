package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// Status is the outcome of one change.
type Status string

// The statuses of a result.
const (
	StatusOK      Status = "ok"
	StatusFailed  Status = "failed"
	StatusSkipped Status = "skipped" // not started: interrupted, or a prune held back
	StatusInvalid Status = "invalid" // left out by --skip-invalid
	StatusMoved   Status = "moved"   // no longer as a saved plan found it: the run sent nothing
)

// Result is what happened to one record (or one pruned element).
type Result struct {
	Line          int    `json:"line,omitempty"`
	Code          string `json:"wbsElementCode"`
	Action        Action `json:"action"`
	Status        Status `json:"status"`
	HTTPStatus    int    `json:"httpStatus,omitempty"`
	ProblemType   string `json:"problemType,omitempty"`
	Detail        string `json:"detail,omitempty"`
	CorrelationID string `json:"correlationId,omitempty"`
	// Note tells how an unclear outcome was settled, such as a create
	// whose answer was lost and that was found done on reading back.
	Note string `json:"note,omitempty"`
	// Problems are the problems of the file that left a record out.
	Problems []wbsfile.Problem `json:"problems,omitempty"`
}

// executeOptions steers execute.
type executeOptions struct {
	// Concurrency bounds the requests in flight. Default 4.
	Concurrency int
	// PageSize is the page size of the read-back of unclear creates.
	PageSize int
	// MaxPages bounds the pages of that read-back; 0 is no bound.
	MaxPages int
	// Stop, once ended, lets the requests in flight finish and starts no
	// more work; the changes not started are reported as skipped. Nil
	// never ends.
	Stop context.Context
	// OnResult is called once per finished change, from several
	// goroutines at once.
	OnResult func(Result)
	// prune says whether the plan's deletions run (Prune.deletesStart);
	// nil holds them back.
	prune *Prune
	// KeepCorrelationIDs keeps the correlation id of every change done,
	// for a report; without it a result done as planned is kept as its
	// status alone.
	KeepCorrelationIDs bool
}

// maxResolveRounds bounds how often creates with an unknown outcome are
// read back and retried.
const maxResolveRounds = 5

// execute carries out the plan and returns one result per change, in plan
// order. A failed change does not stop the others. Deletions run last,
// when the prune says so.
func execute(ctx context.Context, c *sdk.Client, plan *Plan, opts executeOptions) *Results {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 4
	}
	if opts.PageSize <= 0 {
		opts.PageSize = 100
	}
	e := &executor{c: c, opts: opts, results: newResults(plan)}
	var writes, deletes []int
	for i, ch := range plan.Changes {
		switch ch.Action {
		case ActionUnchanged:
			e.results.setStatus(i, StatusOK)
		case ActionDelete:
			deletes = append(deletes, i)
		default:
			writes = append(writes, i)
		}
	}
	e.runAll(ctx, plan, writes)
	e.resolveUnknown(ctx, plan)
	if len(deletes) > 0 && opts.prune.deletesStart(e.failedOrStopped) {
		e.runAll(ctx, plan, deletes)
	}
	if detail := opts.prune.heldBack(); detail != "" {
		for _, i := range deletes {
			if r := e.results.At(i); r.Status == StatusSkipped {
				r.Detail = detail
				e.results.set(i, r)
			}
		}
	}
	return e.results
}

type executor struct {
	c    *sdk.Client
	opts executeOptions

	mu      sync.Mutex
	results *Results
	// unknown holds the plan indexes of creates whose outcome is unknown
	// or that were refused, perhaps as existing; refused holds the
	// refusals, to be reported if the element is absent after all.
	unknown []int
	refused map[int]error
}

func (e *executor) stopped() bool { return e.opts.Stop != nil && e.opts.Stop.Err() != nil }

func (e *executor) failedOrStopped() bool {
	if e.stopped() {
		return true
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, r := range e.results.All() {
		if r.Status == StatusFailed || (r.Status == StatusSkipped && r.Action != ActionDelete) {
			return true
		}
	}
	return false
}

func (e *executor) runAll(ctx context.Context, plan *Plan, idx []int) {
	run(e.opts.Concurrency, len(idx), e.stopped, func(k int) {
		i := idx[k]
		ch := &plan.Changes[i]
		if ctx.Err() != nil {
			// The run's lock was lost (the fence reads the clock): not
			// started, so skipped. A change in flight as it was lost
			// ends in the SDK's error, and is reported with it.
			return
		}
		ack, err := e.apply(ctx, ch)
		if ch.Action == ActionCreate && e.settleLater(i, err) {
			return
		}
		e.finish(i, ack, err, "")
	})
}

// settleLater keeps the create at i for the read-back when its outcome is
// unknown, or when the platform refused it in a way that may mean the
// element exists: a request of an earlier, killed run that committed
// late, or another job's create. sdk.ErrDuplicate is such a refusal (a
// 409, or a 400 whose problem says the element exists); a 400 the SDK
// does not read as one may still be one on a platform that says so in
// words it does not know, so the read-back decides for both: present is
// brought to the record, absent keeps the refusal.
func (e *executor) settleLater(i int, err error) bool {
	refused := errors.Is(err, sdk.ErrDuplicate) || errors.Is(err, sdk.ErrValidation)
	if !refused && !errors.Is(err, sdk.ErrOutcomeUnknown) {
		return false
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	e.unknown = append(e.unknown, i)
	if refused {
		if e.refused == nil {
			e.refused = map[int]error{}
		}
		e.refused[i] = err
	}
	return true
}

// apply sends the requests of one change.
func (e *executor) apply(ctx context.Context, ch *Change) (*sdk.Acknowledgement, error) {
	switch ch.Action {
	case ActionCreate:
		return e.create(ctx, ch.record)
	case ActionDelete:
		ack, err := e.c.WBSElements.Delete(ctx, ch.Code)
		if errors.Is(err, sdk.ErrNotFound) {
			// Gone already, for instance when an earlier attempt's
			// answer was lost: the goal is met.
			return &sdk.Acknowledgement{}, nil
		}
		return ack, err
	default:
		var ack *sdk.Acknowledgement
		if remove := ch.Removed(); len(remove) > 0 {
			var err error
			ack, err = e.c.WBSElements.DeleteBusinessOrganizations(ctx, ch.Code,
				&sdk.DeleteBusinessOrganizationsRequest{BusinessOrganizations: remove})
			if err != nil {
				return nil, err
			}
		}
		if upd := updateRequest(ch); upd != nil {
			return e.c.WBSElements.Update(ctx, ch.Code, upd)
		}
		return ack, nil
	}
}

// create sends the create of r, with the links inlined. The SDK retries
// it only where it provably never reached the platform; an unknown
// outcome is left to the read-back.
func (e *executor) create(ctx context.Context, r *wbsfile.Record) (*sdk.Acknowledgement, error) {
	return e.c.WBSElements.Create(ctx, r.CreateRequest())
}

func (e *executor) finish(i int, ack *sdk.Acknowledgement, err error, note string) {
	e.mu.Lock()
	res := e.results.At(i)
	res.Note = note
	if err != nil {
		fillFailure(&res, err)
	} else {
		res.Status, res.Detail = StatusOK, ""
		if ack != nil {
			res.CorrelationID = ack.CorrelationID
		}
	}
	kept := res
	if res.Status == StatusOK && !e.opts.KeepCorrelationIDs {
		kept.CorrelationID = ""
	}
	e.results.set(i, kept)
	e.mu.Unlock()
	if e.opts.OnResult != nil {
		e.opts.OnResult(res)
	}
}

// fillFailure copies what the platform said about a failure into r.
func fillFailure(r *Result, err error) {
	r.Status = StatusFailed
	r.Detail = err.Error()
	var apiErr *sdk.APIError
	if errors.As(err, &apiErr) {
		r.HTTPStatus = apiErr.StatusCode
		r.CorrelationID = apiErr.CorrelationID
		if p := apiErr.Problem; p != nil {
			r.ProblemType = p.Type
			switch {
			case p.Detail != "":
				r.Detail = p.Detail
			case p.Title != "":
				r.Detail = p.Title
			}
		} else if apiErr.Message != "" {
			r.Detail = apiErr.Message
		}
	}
}

// resolveUnknown settles the creates whose answer was lost: one read of
// the element list shows which ones the platform holds. A present element
// is brought to the record (its links may be missing if the platform
// stored it partly); an absent one is created again. This repeats for the
// creates that stay unclear, up to maxResolveRounds times.
func (e *executor) resolveUnknown(ctx context.Context, plan *Plan) {
	for round := 1; len(e.unknown) > 0; round++ {
		pending := e.unknown
		e.unknown = nil
		if round > maxResolveRounds || e.stopped() {
			for _, i := range pending {
				e.finish(i, nil, e.unsettled(i, fmt.Errorf("create %q: outcome still unknown after %d read-backs", plan.Changes[i].Code, maxResolveRounds)), "")
			}
			return
		}
		current, err := readElements(ctx, e.c, listOptions(e.opts.PageSize, e.opts.MaxPages))
		if err != nil {
			for _, i := range pending {
				e.finish(i, nil, e.unsettled(i, fmt.Errorf("create %q: outcome unknown and the read-back failed: %w", plan.Changes[i].Code, err)), "")
			}
			return
		}
		run(e.opts.Concurrency, len(pending), e.stopped, func(k int) {
			i := pending[k]
			ch := plan.Changes[i]
			el, ok := current[ch.Code]
			e.mu.Lock()
			refusal, wasRefused := e.refused[i]
			delete(e.refused, i)
			e.mu.Unlock()
			if !ok && wasRefused {
				e.finish(i, nil, refusal, "")
				return
			}
			if !ok {
				ack, err := e.create(ctx, ch.record)
				if e.settleLater(i, err) {
					return
				}
				e.finish(i, ack, err, "created again: the first create's answer was lost and the element was absent")
				return
			}
			fix := diffElement(ch.record, el)
			if ch.record.OrganizationsSet {
				have, err := readLinks(ctx, e.c, ch.Code, listOptions(e.opts.PageSize, e.opts.MaxPages))
				if err != nil {
					e.finish(i, nil, err, "")
					return
				}
				add, remove := diffLinks(have, ch.record.Organizations)
				setLinkChanges(&fix, add, remove)
			}
			note := "the create's answer was lost; the element was found created"
			if wasRefused {
				note = "the create was refused and the element was found: it exists"
			}
			if fix.Action == ActionUnchanged {
				e.finish(i, &sdk.Acknowledgement{}, nil, note)
				return
			}
			ack, err := e.apply(ctx, &fix)
			e.finish(i, ack, err, note+" and brought to the record")
		})
	}
}

// unsettled is the error of a create the read-back could not settle: the
// platform's refusal where there was one, else err.
func (e *executor) unsettled(i int, err error) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	if refusal, ok := e.refused[i]; ok {
		return refusal
	}
	return err
}

// run calls fn for 0..n-1 in order, with at most limit calls at once,
// starting no call once stopped says so. The calls run on limit long-lived
// workers: a goroutine per call (errgroup.SetLimit) would start each
// request on a fresh stack and grow it through the HTTP client's calls,
// which cost a bulk load about a tenth of its time.
func run(limit, n int, stopped func() bool, fn func(int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(limit, n) {
		wg.Go(func() {
			for !stopped() {
				k := int(next.Add(1)) - 1
				if k >= n {
					return
				}
				fn(k)
			}
		})
	}
	wg.Wait()
}
