package engine

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"maps"
	"slices"

	"github.com/wbsctl/wbsctl/internal/codeindex"
	"github.com/wbsctl/wbsctl/internal/statestore"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
)

// StateFormatVersion is the version of the state file.
const StateFormatVersion = 1

// stateFile is the state file as its bytes hold it: what the platform
// held for each element after the last apply, as far as apply wrote or
// read it, so that a re-apply reads an element's links only where the
// file's differ from the state's. It belongs to one platform and client
// id. It is read by readState and written by writeState, each a stream;
// what a run does with it is runState's.
type stateFile struct {
	stateHead
	Elements stateElements `json:"elements"`
}

// runState is the state through one run: the state file as the run read
// it, whose Elements, from begin on, are only the elements the plan does
// not name, and the run's bookkeeping, from which save writes the file.
type runState struct {
	*stateFile

	// version is the stored state's as the run read or last wrote it,
	// which a write replaces only if it is still there.
	version statestore.Version

	// The elements the plan names are written from the plan, and from
	// the results once finish has them, not copied into Elements.
	plan    *Plan
	byCode  codeindex.Index // the plan's changes by code
	results *Results
	// dry is a plan that is not carried out: every element holds what
	// the plan read of it.
	dry bool

	// known holds, in place of Elements, the entries of the elements
	// that the records loadState was given name.
	known *knownStates
	// verifying is a plan that trusts none of the state after a break:
	// its write marks the break verified, in the state and to held, the
	// run's lock, whose release then hands no break on.
	verifying bool
	held      *statestore.Held
}

// trusted reports whether a plan may trust the state's links
// (statestore.Head.Trusts), recording broken, the lock this run broke as
// by. full is whether this run's plan reads every link it does not trust
// (a saved plan reads only its updates' again): its write verifies the
// break.
func (s *runState) trusted(broken *statestore.Broken, by statestore.Holder, full bool) bool {
	if s.Trusts(broken, by) {
		return true
	}
	s.verifying = full
	return false
}

// stateHead is what a state file holds before its elements, and whose
// rules are statestore's.
type stateHead = statestore.Head

// BreakRecord is a lock broken of a state (statestore.BreakRecord).
type BreakRecord = statestore.BreakRecord

// newState returns an empty state of a platform and client id.
func newState(baseURL, clientID string) *runState {
	return &runState{stateFile: &stateFile{stateHead: stateHead{FormatVersion: StateFormatVersion, BaseURL: baseURL, ClientID: clientID, Lineage: statestore.NewLineage()},
		Elements: stateElements{}}}
}

// ErrStateMoved is a state that another writer replaced while the run
// held it: the run does not write over it.
var ErrStateMoved = statestore.ErrStateMoved

// ErrStateUnusable is a state file that is damaged, of another version,
// or of another platform or client id.
var ErrStateUnusable = errors.New("the state file cannot be used")

// loadState reads the state of path for a plan of records (nil for a
// saved plan); a missing file is an empty state. The entries of the
// elements the records name are held only as far as a plan can use them,
// by knownStates.
func loadState(ctx context.Context, store statestore.Store, baseURL, clientID string, records []wbsfile.Record) (*runState, error) {
	r, version, err := store.Read(ctx)
	if errors.Is(err, fs.ErrNotExist) {
		return newState(baseURL, clientID), nil
	}
	if err != nil {
		return nil, err
	}
	defer r.Close()
	var known *knownStates
	if records != nil {
		known = newKnownStates(records)
	}
	st, err := readState(bufio.NewReader(r), known)
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		return nil, pe // not read, rather than unusable
	}
	if errors.Is(err, statestore.ErrTornRead) {
		return nil, fmt.Errorf("%s: %w, by a writer that holds no lock: run again", store, err)
	}
	if err != nil {
		// Its paths name members and codes of the file: its text.
		return nil, fmt.Errorf("%w: %s: %s (run with --refresh to rebuild it)", ErrStateUnusable, store, statestore.BucketText(err.Error()))
	}
	if st.BaseURL != baseURL || st.ClientID != clientID {
		// What the state says is the bucket's text: escaped.
		return nil, fmt.Errorf("%w: %s belongs to %s as %s, not %s as %s (use another file, or --refresh to start it anew)",
			ErrStateUnusable, store, statestore.BucketText(st.BaseURL), statestore.BucketText(st.ClientID), baseURL, clientID)
	}
	return &runState{stateFile: st, version: version, known: known}, nil
}

// storedVersion is the version of the state store holds now, NoVersion
// where it holds none: what a state made anew replaces.
func storedVersion(ctx context.Context, store statestore.Store) (statestore.Version, error) {
	r, version, err := store.Read(ctx)
	if errors.Is(err, fs.ErrNotExist) {
		return statestore.NoVersion, nil
	}
	if err != nil {
		return statestore.NoVersion, err
	}
	r.Close()
	return version, nil
}

// stateElements are a state's elements by code. They are read an element
// at a time, its links shared as it is read, rather than each element's
// lists held until the end of the file.
type stateElements map[string]*State

// holds reports whether m records the element of code as before, its
// links included: what a plan trusted of it, the state still says.
func (m stateElements) holds(code string, before *State) bool {
	el := m[code]
	return el != nil && el.BusinessOrganizations != nil && sameFields(el, before) &&
		sameLinks(el.BusinessOrganizations, before.BusinessOrganizations)
}

// knownStates is what a state recorded of the elements a plan's records
// name, as far as it can spare a read of their links: an entry whose
// record names other links, or none, is not held. An entry that is just what
// its record states is held as a flag, so that an unchanged re-apply
// holds next to nothing of the state.
type knownStates struct {
	records  []wbsfile.Record
	byCode   codeindex.Index
	given    []bool // by record: the state has an entry
	asRecord []bool // by record: the entry is the record's state
	other    map[int]*State
	verified []Stamp // by record: when the entry's links were verified
	// distrusted are the entries recheck chose to read again, by
	// record (nil: none); rechecked counts them.
	distrusted []bool
	rechecked  int
}

func newKnownStates(records []wbsfile.Record) *knownStates {
	return &knownStates{records: records, byCode: codeindex.New(len(records), func(i int) string { return records[i].Code }),
		given: make([]bool, len(records)), asRecord: make([]bool, len(records)), other: map[int]*State{},
		verified: make([]Stamp, len(records))}
}

// find returns the index of the record of code.
func (k *knownStates) find(code string) (int, bool) {
	if k == nil {
		return 0, false
	}
	return k.byCode.Find(code)
}

// add holds el, the state's entry of record i, as far as it spares a read.
func (k *knownStates) add(i int, el *State) {
	k.given[i] = true
	// Held by the record, not the state: a plan's changes carry it.
	k.verified[i], el.LinksVerified = el.LinksVerified, 0
	switch r := &k.records[i]; {
	case !r.OrganizationsSet || el.BusinessOrganizations == nil || !sameLinks(el.BusinessOrganizations, r.Organizations):
		// Its links are not the record's: they spare no read.
	case isRecordState(r, el):
		k.asRecord[i] = true
	default:
		k.other[i] = el
	}
}

// entry returns the state's entry of record i, where its links are those of
// the record; nil where the state has none or other links.
func (k *knownStates) entry(i int) *State {
	switch {
	case k == nil || k.distrusted != nil && k.distrusted[i]:
		return nil
	case k.asRecord[i]:
		return recordState(&k.records[i], nil)
	}
	return k.other[i]
}

// save writes the state by statestore.Save's rules, over the version the
// run read or last wrote: from the plan, and from the results once
// finish has them.
func (s *runState) save(ctx context.Context, store statestore.Store) error {
	version, err := statestore.Save(ctx, store, &s.stateHead, s.version, s.verifying, func(out io.Writer) error {
		w := bufio.NewWriter(out)
		if err := writeState(w, &s.stateHead, s.entries()); err != nil {
			return err
		}
		return w.Flush()
	})
	if err != nil {
		return err
	}
	s.version = version
	if s.verifying && s.held != nil {
		s.held.Verified()
	}
	return nil
}

// entries yields the state's elements in the order of their codes: those
// of the map, merged with those of the plan. A yielded state is the
// iterator's own once yield returns.
func (s *runState) entries() iter.Seq2[string, *State] {
	return func(yield func(string, *State) bool) {
		var scratch State
		kept := slices.Sorted(maps.Keys(s.Elements))
		k := 0
		for _, i := range s.byCode.InOrder() {
			ch := &s.plan.Changes[i]
			for ; k < len(kept) && kept[k] < ch.Code; k++ {
				if !yield(kept[k], s.Elements[kept[k]]) {
					return
				}
			}
			if el := stamped(s.entryFor(int(i), &scratch), ch.verified, &scratch); el != nil && !yield(ch.Code, el) {
				return
			}
		}
		for ; k < len(kept); k++ {
			if !yield(kept[k], s.Elements[kept[k]]) {
				return
			}
		}
	}
}

// stamped is el with its links' verification time, made in scratch
// where el is the plan's own.
func stamped(el *State, verified Stamp, scratch *State) *State {
	if el == nil || el.BusinessOrganizations == nil {
		return el
	}
	if el != scratch {
		*scratch = *el
	}
	scratch.LinksVerified = verified
	return scratch
}

// entryFor is the entry the state holds for the plan's change i, or nil
// when it has none. Before the results, an element about to change has
// none, so that an interrupted run leaves no entry that may no longer
// hold; the unchanged ones hold what the plan read. A dry run's elements
// all hold what the plan read. With the results, an element changed as
// planned holds the plan's after; a failed or skipped change has none,
// so that the next run reads it. A create's state is made in scratch.
func (s *runState) entryFor(i int, scratch *State) *State {
	ch := &s.plan.Changes[i]
	if s.dry {
		return ch.held(scratch)
	}
	if s.results == nil {
		if ch.Action == ActionUnchanged {
			return ch.desired(scratch)
		}
		return nil
	}
	if i >= s.results.Len() || s.results.At(i).Status != StatusOK || ch.Action == ActionDelete {
		return nil
	}
	return ch.desired(scratch)
}

// begin takes the plan, before any write: from then on the state holds
// the unchanged elements as the plan read them, nothing for those about
// to change (see entryFor), and, in its map, the elements the plan does
// not name.
func (s *runState) begin(plan *Plan) {
	s.plan, s.results = plan, nil
	s.byCode = codeindex.New(len(plan.Changes), func(i int) string { return plan.Changes[i].Code })
	kept := stateElements{}
	for code, el := range s.Elements {
		if _, named := s.byCode.Find(code); !named {
			kept[code] = el
		}
	}
	s.Elements = kept
}

// observed records a dry run: each element the plan names holds what
// the plan read of it, the links where they were read or trusted, and a
// create none.
func (s *runState) observed() {
	s.dry = true
}

// finish records what was done, by results.
func (s *runState) finish(results *Results) {
	s.results = results
}
