package engine

import (
	"iter"
	"reflect"
)

// Results are the outcomes of a run: one per change of the plan, in plan
// order, then those added (records left out as invalid). An outcome that
// says no more than its status, as most of a bulk load's do, is kept as
// its status alone, a byte; the rest whole, with their correlation ids.
type Results struct {
	plan   *Plan
	status []uint8        // index in statuses, per change
	whole  map[int]Result // the changes whose outcome says more
	added  []Result       // after the plan's changes
}

// statuses are the values of Results.status.
var statuses = [...]Status{StatusSkipped, StatusOK, StatusFailed, StatusInvalid}

func newResults(plan *Plan) *Results {
	return &Results{plan: plan, status: make([]uint8, len(plan.Changes)), whole: map[int]Result{}}
}

// Len is the number of results.
func (rs *Results) Len() int { return len(rs.status) + len(rs.added) }

// At is result i.
func (rs *Results) At(i int) Result {
	if i >= len(rs.status) {
		return rs.added[i-len(rs.status)]
	}
	if r, ok := rs.whole[i]; ok {
		return r
	}
	ch := &rs.plan.Changes[i]
	return Result{Line: int(ch.Line), Code: ch.Code, Action: ch.Action, Status: statuses[rs.status[i]]}
}

// All yields every result in order.
func (rs *Results) All() iter.Seq2[int, Result] {
	return func(yield func(int, Result) bool) {
		for i := range rs.Len() {
			if !yield(i, rs.At(i)) {
				return
			}
		}
	}
}

// Add appends a result after the plan's.
func (rs *Results) Add(r Result) { rs.added = append(rs.added, r) }

// set keeps r as the outcome of change i.
func (rs *Results) set(i int, r Result) {
	delete(rs.whole, i)
	ch := &rs.plan.Changes[i]
	plain := Result{Line: int(ch.Line), Code: ch.Code, Action: ch.Action, Status: r.Status}
	for k, s := range statuses {
		if s == r.Status && r.Problems == nil && plain.Problems == nil && equalPlain(r, plain) {
			rs.status[i] = uint8(k)
			return
		}
	}
	rs.whole[i] = r
}

// setStatus sets the outcome of change i to status alone.
func (rs *Results) setStatus(i int, s Status) {
	ch := &rs.plan.Changes[i]
	rs.set(i, Result{Line: int(ch.Line), Code: ch.Code, Action: ch.Action, Status: s})
}

// equalPlain reports whether a and b, which hold no problems, are equal.
func equalPlain(a, b Result) bool {
	a.Problems, b.Problems = nil, nil
	return reflect.DeepEqual(a, b)
}
