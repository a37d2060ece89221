package engine

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"iter"
	"maps"
	"reflect"
	"slices"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/wbsctl/wbsctl/internal/codeindex"
	"github.com/wbsctl/wbsctl/internal/links"
	"github.com/wbsctl/wbsctl/internal/statestore"
	"github.com/wbsctl/wbsctl/internal/strictjson"
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
	// its write marks the break verified.
	verifying bool
}

// trusted reports whether a plan may trust the state's links: not after
// a lock was broken (broken, by this run as by; or recorded by an
// earlier run) until a plan that read every link wrote the state. full
// is whether this run's plan reads every link it does not trust (a saved
// plan reads only its updates' again).
func (s *runState) trusted(broken *statestore.Broken, by statestore.Holder, full bool) bool {
	if broken != nil {
		s.Break = &BreakRecord{Broken: *broken, StaleSeconds: int64(broken.Age / time.Second), By: by}
	}
	if s.Break == nil || s.Break.Verified {
		return true
	}
	s.verifying = full
	return false
}

// stateHead is what a state file holds before its elements.
type stateHead struct {
	FormatVersion int    `json:"formatVersion"`
	BaseURL       string `json:"baseUrl"`
	ClientID      string `json:"clientId"`
	// Lineage names the state from when it was made; Serial counts its
	// writes. States written before them have neither.
	Lineage string `json:"lineage,omitempty"`
	Serial  int64  `json:"serial,omitempty"`
	// Applies counts the runs that may have changed the platform (not the
	// dry runs) that wrote the state: a saved plan is stale once another
	// has run since it was made.
	Applies int64 `json:"applies,omitempty"`
	// Break is the last stale lock a run broke of this state. Until a
	// plan that trusted none of the state's links wrote the state after
	// it (Verified), no plan trusts them: the broken holder may have
	// written the platform after it last wrote the state.
	Break *BreakRecord `json:"break,omitempty"`
}

// BreakRecord is a lock broken: whose, how stale, by whom, and whether a
// plan that read every link has written the state since.
type BreakRecord struct {
	statestore.Broken
	// StaleSeconds is Broken.Age, in a state file.
	StaleSeconds int64             `json:"staleSeconds"`
	By           statestore.Holder `json:"by"`
	Verified     bool              `json:"verified"`
}

// newState returns an empty state of a platform and client id.
func newState(baseURL, clientID string) *runState {
	return &runState{stateFile: &stateFile{stateHead: stateHead{FormatVersion: StateFormatVersion, BaseURL: baseURL, ClientID: clientID, Lineage: newLineage()},
		Elements: stateElements{}}}
}

// newLineage draws a state's lineage: 128 random bits.
func newLineage() string { return statestore.RandomID() }

// ErrStateMoved is a state that another writer replaced while the run
// held it: the run does not write over it.
var ErrStateMoved = errors.New("the state changed since this run read it")

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
		return nil, fmt.Errorf("%w: %s: %v (run with --refresh to rebuild it)", ErrStateUnusable, store, err)
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

// readState reads a state file as a stream: held whole, a large state
// would be most of a re-apply's peak. The entries of the elements the
// records of known name go to known, not to Elements.
func readState(r io.Reader, known *knownStates) (*stateFile, error) {
	var st stateFile
	if err := strictjson.UnmarshalLarge(r, &stateReading{&st, known}); err != nil {
		return nil, err
	}
	if st.FormatVersion != StateFormatVersion {
		return nil, fmt.Errorf("format version %d, want %d", st.FormatVersion, StateFormatVersion)
	}
	if st.Elements == nil {
		return nil, errors.New("no elements member")
	}
	return &st, nil
}

// stateReading is a state file being read, with where the entries of the
// elements the records name go.
type stateReading struct {
	*stateFile
	known *knownStates
}

// UnmarshalJSONFrom reads a state file by strictjson's rules, for
// strictjson.UnmarshalLarge.
func (s stateReading) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	seen := map[string]bool{}
	return readObject(dec, func(name string) error {
		if seen[name] {
			return strictjson.Repeated(dec)
		}
		seen[name] = true
		switch name {
		case "formatVersion":
			return strictjson.Member(dec, &s.FormatVersion)
		case "baseUrl":
			return strictjson.Member(dec, &s.BaseURL)
		case "clientId":
			return strictjson.Member(dec, &s.ClientID)
		case "lineage":
			return strictjson.Member(dec, &s.Lineage)
		case "serial":
			return strictjson.Member(dec, &s.Serial)
		case "applies":
			return strictjson.Member(dec, &s.Applies)
		case "break":
			return strictjson.Member(dec, &s.Break)
		case "elements":
			return s.Elements.read(dec, s.known)
		}
		return strictjson.UnknownMember(dec, reflect.TypeFor[stateFile]())
	})
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

// UnmarshalJSONFrom reads the elements from dec.
func (m *stateElements) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	return m.read(dec, nil)
}

// read reads the elements from dec; those the records of known name go
// to known, not to m.
func (m *stateElements) read(dec *jsontext.Decoder, known *knownStates) error {
	if dec.PeekKind() == 'n' {
		_, err := dec.ReadToken()
		*m = nil
		return err
	}
	*m = stateElements{}
	return readObject(dec, func(code string) error {
		i, named := known.find(code)
		if _, given := (*m)[code]; given || named && known.given[i] {
			return strictjson.Repeated(dec)
		}
		var el State
		if err := strictjson.Member(dec, &el); err != nil {
			return err
		}
		el.BusinessOrganizations = links.Share(el.BusinessOrganizations)
		if named {
			known.add(i, &el)
		} else {
			(*m)[code] = &el
		}
		return nil
	})
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
}

func newKnownStates(records []wbsfile.Record) *knownStates {
	return &knownStates{records: records, byCode: codeindex.New(len(records), func(i int) string { return records[i].Code }),
		given: make([]bool, len(records)), asRecord: make([]bool, len(records)), other: map[int]*State{}}
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
	case k == nil:
		return nil
	case k.asRecord[i]:
		return recordState(&k.records[i], nil)
	}
	return k.other[i]
}

// readObject reads the JSON object dec is at, calling member with each
// name, at its value.
func readObject(dec *jsontext.Decoder, member func(name string) error) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	if tok.Kind() != '{' {
		return strictjson.Refuse("must be an object")
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return err
		}
		if err := member(name.String()); err != nil {
			return err
		}
	}
	_, err = dec.ReadToken()
	return err
}

// save writes the state with its serial one more, over the version the
// run read or last wrote, unless another writer put a state in its place
// (a CI cache restored over it, a run that broke this run's lock, a copy
// by hand): a state older than the one the run started from is never
// written over a newer one, nor this run's over another's. Where none is
// left, the run's is written.
func (s *runState) save(ctx context.Context, store statestore.Store) error {
	if s.Lineage == "" {
		s.Lineage = newLineage()
	}
	s.Serial++
	if s.verifying {
		s.Break.Verified = true
	}
	version, err := store.Write(ctx, s.version, func(out io.Writer) error {
		w := bufio.NewWriter(out)
		if err := writeState(w, &s.stateHead, s.entries()); err != nil {
			return err
		}
		return w.Flush()
	})
	if err != nil {
		s.Serial--
		if s.verifying {
			s.Break.Verified = false
		}
		if errors.Is(err, statestore.ErrConflict) {
			return fmt.Errorf("%w (%s): not written over; run again to plan from the state it holds now", ErrStateMoved, store)
		}
		return err
	}
	s.version = version
	return nil
}

// writeState writes the state file of head and elements, yielded in the
// order of their codes (nil writes none, as null), an element at a time:
// in the bytes a json.Encoder writes for a stateFile of the same, without
// holding the file, or its text, whole. The head and each element are
// encoded by encoding/json, whose escapes the tokens keep.
func writeState(w io.Writer, head *stateHead, elements iter.Seq2[string, *State]) error {
	b, err := json.Marshal(head)
	if err != nil {
		return err
	}
	// The codes are unique: the encoder need not hold them to check.
	enc := jsontext.NewEncoder(w, jsontext.PreserveRawStrings(true), jsontext.AllowDuplicateNames(true))
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	if err := copyMembers(enc, b); err != nil {
		return err
	}
	if err := enc.WriteToken(jsontext.String("elements")); err != nil {
		return err
	}
	if elements == nil {
		if err := enc.WriteToken(jsontext.Null); err != nil {
			return err
		}
		return enc.WriteToken(jsontext.EndObject)
	}
	if err := enc.WriteToken(jsontext.BeginObject); err != nil {
		return err
	}
	// One encoder and its buffer for every element: a large run's end
	// writes an element each, and an encoder each would be a burst of
	// garbage at the run's peak.
	var buf bytes.Buffer
	each := json.NewEncoder(&buf)
	write := func(v any) error {
		buf.Reset()
		if err := each.Encode(v); err != nil {
			return err
		}
		return enc.WriteValue(buf.Bytes()) // its newline is whitespace
	}
	for code, el := range elements {
		if err := write(code); err != nil {
			return err
		}
		if err := write(el); err != nil {
			return err
		}
	}
	if err := enc.WriteToken(jsontext.EndObject); err != nil {
		return err
	}
	return enc.WriteToken(jsontext.EndObject)
}

// copyMembers writes the members of the JSON object b with enc, as b
// writes them.
func copyMembers(enc *jsontext.Encoder, b []byte) error {
	dec := jsontext.NewDecoder(bytes.NewReader(b))
	if _, err := dec.ReadToken(); err != nil {
		return err
	}
	for dec.PeekKind() != '}' {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		if err := enc.WriteValue(v); err != nil {
			return err
		}
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
			if el := s.entryFor(int(i), &scratch); el != nil && !yield(ch.Code, el) {
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

// lockState takes the state's lock for holder, waiting up to timeout for
// another run to release it: waiting (when given) is told once, with the
// holder, when the wait begins; the wait ends early with ctx (the first
// signal ends it). A lock not written for breakStaleAfter (when given),
// by the store's clock, is broken. It returns the lease and when the
// take that got it started, by this host's clock: where the lease's term
// starts.
func lockState(ctx context.Context, store statestore.Store, holder statestore.Holder, timeout, breakStaleAfter time.Duration,
	waiting func(holder string)) (statestore.Lease, time.Time, error) {
	taken := time.Now()
	lease, err := store.Lock(ctx, holder, breakStaleAfter)
	if !errors.Is(err, statestore.ErrLocked) || timeout <= 0 {
		return lease, taken, lockError(err)
	}
	if waiting != nil {
		var locked *statestore.LockedError
		who := "another run"
		if errors.As(err, &locked) && locked.Holder != nil {
			who = locked.Holder.String()
		}
		waiting(who)
	}
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	poll := time.NewTicker(250 * time.Millisecond)
	defer poll.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil, taken, fmt.Errorf("waiting for the state's lock: %w", context.Cause(ctx))
		case <-deadline.C:
			return nil, taken, fmt.Errorf("%w after waiting %s", lockError(err), timeout)
		case <-poll.C:
			taken = time.Now()
			if lease, err = store.Lock(ctx, holder, breakStaleAfter); !errors.Is(err, statestore.ErrLocked) {
				return lease, taken, lockError(err)
			}
		}
	}
}

// lockError says how to go on from a lock another run holds.
func lockError(err error) error {
	var locked *statestore.LockedError
	if !errors.As(err, &locked) {
		return err
	}
	return fmt.Errorf("%w; nothing was sent: wait for it to end, or give --lock-timeout to wait; %s", err, locked.Ends)
}

// UnlockCommand is the command that releases the lock of id on the
// state that stateArg names ("" where WBSCTL_STATE names it).
func UnlockCommand(id, stateArg string) string {
	if stateArg == "" {
		return "wbsctl state unlock " + statestore.BucketText(id) + " (WBSCTL_STATE names the state)"
	}
	return "wbsctl state unlock " + statestore.BucketText(id) + " --state " + statestore.BucketText(stateArg)
}

// StateSummary is what `wbsctl state show` tells of a state file.
type StateSummary struct {
	Path     string             `json:"path"`
	BaseURL  string             `json:"baseUrl"`
	ClientID string             `json:"clientId"`
	Lineage  string             `json:"lineage"`
	Serial   int64              `json:"serial"`
	Elements int                `json:"elements"`
	Lock     *statestore.Holder `json:"lock"`
	Break    *BreakRecord       `json:"break,omitempty"`
}

// InspectState reads the state of store for a person: its platform,
// lineage, serial, how many elements it holds, and who holds its lock.
// It takes no lock: what it reads is what the last write left.
func InspectState(ctx context.Context, store statestore.Store) (*StateSummary, error) {
	r, _, err := store.Read(ctx)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	st, err := readState(bufio.NewReader(r), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrStateUnusable, store, err)
	}
	holder, err := store.Holder(ctx)
	if err != nil {
		return nil, err
	}
	return &StateSummary{Path: store.String(), BaseURL: st.BaseURL, ClientID: st.ClientID, Lineage: st.Lineage, Serial: st.Serial,
		Elements: len(st.Elements), Lock: holder, Break: st.Break}, nil
}

// ErrStateRefused is a state that state push does not copy over another.
var ErrStateRefused = errors.New("the state is not copied")

// CopyState copies the state of from to to, holding to's lock as holder
// while it does, and returns what was copied. It refuses a damaged state,
// and over an existing one a state of another platform or client id, and,
// unless force, one of another lineage or a lower serial. The copy is
// written over the version of to that it checked.
func CopyState(ctx context.Context, from, to statestore.Store, holder statestore.Holder, force bool) (*StateSummary, error) {
	r, _, err := from.Read(ctx)
	if err != nil {
		return nil, err
	}
	data, err := io.ReadAll(r)
	r.Close()
	if err != nil {
		return nil, err
	}
	src, err := readState(bytes.NewReader(data), nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrStateUnusable, from, err)
	}
	lease, err := to.Lock(ctx, holder, 0)
	if err != nil {
		return nil, lockError(err)
	}
	defer lease.Release(context.WithoutCancel(ctx))
	version, err := checkCopy(ctx, src, to, force)
	if err != nil {
		return nil, err
	}
	if _, err := to.Write(ctx, version, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}); err != nil {
		if errors.Is(err, statestore.ErrConflict) {
			return nil, fmt.Errorf("%w: %s changed while it was copied; nothing was written", ErrStateMoved, to)
		}
		return nil, err
	}
	return &StateSummary{Path: to.String(), BaseURL: src.BaseURL, ClientID: src.ClientID, Lineage: src.Lineage, Serial: src.Serial,
		Elements: len(src.Elements)}, nil
}

// checkCopy reads the state to holds, once, and returns its version,
// NoVersion where it holds none; it refuses src over another platform's
// state, and unless force another lineage's or a lower serial.
func checkCopy(ctx context.Context, src *stateFile, to statestore.Store, force bool) (statestore.Version, error) {
	r, version, err := to.Read(ctx)
	if errors.Is(err, fs.ErrNotExist) {
		return statestore.NoVersion, nil
	}
	if err != nil {
		return statestore.NoVersion, err
	}
	dst, err := readState(bufio.NewReader(r), nil)
	r.Close()
	return version, copyRefusal(src, dst, err, to, force)
}

// copyRefusal is why src is not copied over dst (read with err), nil
// where it may be.
func copyRefusal(src, dst *stateFile, err error, to statestore.Store, force bool) error {
	switch {
	case err != nil && !force:
		return fmt.Errorf("%w: %s holds a state that cannot be read (%v); --force writes over it", ErrStateRefused, to, err)
	case err != nil:
		return nil
	case dst.BaseURL != src.BaseURL || dst.ClientID != src.ClientID:
		esc := statestore.BucketText
		return fmt.Errorf("%w: it belongs to %s as %s, and %s to %s as %s", ErrStateRefused, esc(src.BaseURL), esc(src.ClientID), to, esc(dst.BaseURL), esc(dst.ClientID))
	case force:
		return nil
	case dst.Lineage != "" && dst.Lineage != src.Lineage:
		return fmt.Errorf("%w: it is of lineage %s, and %s of lineage %s (another state); --force writes over it", ErrStateRefused, statestore.BucketText(src.Lineage), to, statestore.BucketText(dst.Lineage))
	case dst.Serial > src.Serial:
		return fmt.Errorf("%w: its serial is %d, and %s is at %d (an older copy over a newer state); --force writes over it", ErrStateRefused, src.Serial, to, dst.Serial)
	}
	return nil
}
