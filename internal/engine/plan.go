package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wbsctl/wbsctl/internal/codeindex"
	"github.com/wbsctl/wbsctl/internal/links"
	"github.com/wbsctl/wbsctl/internal/statestore"
	"github.com/wbsctl/wbsctl/internal/strictjson"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// Action is what the plan does to one element; in JSON and YAML, its
// name. It is a byte, not its name, because a plan holds one per record.
type Action uint8

// The actions of a plan. The zero Action is none: a change not yet
// planned.
const (
	ActionCreate Action = iota + 1
	ActionUpdate
	ActionUnchanged
	ActionDelete
)

var actionNames = [...]string{"", "create", "update", "unchanged", "delete"}

// String returns the name of a.
func (a Action) String() string {
	if int(a) < len(actionNames) {
		return actionNames[a]
	}
	return fmt.Sprintf("Action(%d)", uint8(a))
}

// MarshalText writes the name of a.
func (a Action) MarshalText() ([]byte, error) {
	if a == 0 || int(a) >= len(actionNames) {
		return nil, fmt.Errorf("no action %d", uint8(a))
	}
	return []byte(actionNames[a]), nil
}

// UnmarshalText reads the name of an action.
func (a *Action) UnmarshalText(b []byte) error {
	i := slices.Index(actionNames[1:], string(b))
	if i < 0 {
		return strictjson.Refuse(fmt.Sprintf("unknown action %q (known: %s)", b, strings.Join(actionNames[1:], ", ")))
	}
	*a = Action(i + 1)
	return nil
}

// Change is the plan for one element: what to send to make the platform
// hold the record. What the element holds before and after are Held and
// Desired; Step is the change as documents and saved plans write it.
type Change struct {
	Action Action
	// Line is the record's line in the file; 0 for a prune. Beside the
	// action, an int32 takes no room of its own.
	Line int32
	Code string
	// Fields is what an update changes.
	Fields FieldSet
	// trusted says the links of before are a state's, trusted as the
	// element's, not read (PlanOptions.known).
	trusted bool
	// verified is when the links the change holds were last read from
	// the platform or written to it: now for those read by the plan, the
	// state's for those trusted, zero where unknown.
	verified Stamp
	// LinkChanges are the links an update adds and removes; nil when it
	// changes none. Added and Removed read them.
	*LinkChanges

	// before is what the platform holds (nil for a create), after what
	// it will hold (nil for a delete), as far as the plan read and the
	// file states: links are in before only where they were read. Where
	// the record alone tells a state, the change does not hold it: a
	// create's after, and both states of an unchanged element that holds
	// just what its record states, are made from the record when asked,
	// by Held and Desired. A bulk load's plan then holds no second copy
	// of its records.
	before, after *State
	record        *wbsfile.Record
}

// Step is a change as the plan's document and a saved plan write it, with
// both its states: Before is nil only for a create, After only for a
// delete.
type Step struct {
	Action Action   `json:"action"`
	Line   int32    `json:"line,omitempty"`
	Code   string   `json:"wbsElementCode"`
	Fields FieldSet `json:"fields,omitempty"`
	*LinkChanges
	Before *State `json:"before,omitempty"`
	After  *State `json:"after,omitempty"`
}

// Step returns the change with both its states.
func (ch *Change) Step() Step {
	return Step{Action: ch.Action, Line: ch.Line, Code: ch.Code, Fields: ch.Fields, LinkChanges: ch.LinkChanges,
		Before: ch.Held(), After: ch.Desired()}
}

// Desired is what the element holds once ch is made: its after, or the
// state its record makes; nil for a delete.
func (ch *Change) Desired() *State {
	return ch.desired(nil)
}

// desired is Desired; a state made from the record is made in scratch,
// when given.
func (ch *Change) desired(scratch *State) *State {
	if ch.after == nil && ch.Action != ActionDelete && ch.record != nil {
		if scratch == nil {
			return recordState(ch.record, nil)
		}
		setRecordState(scratch, ch.record, nil)
		return scratch
	}
	return ch.after
}

// Held is what the platform holds before ch is made: its before, or, for
// an unchanged element that holds just what its record states, that
// state (an empty description as none); nil for a create.
func (ch *Change) Held() *State {
	return ch.held(nil)
}

// held is Held; a state made from the record is made in scratch, when
// given.
func (ch *Change) held(scratch *State) *State {
	if ch.before == nil && ch.Action == ActionUnchanged {
		return ch.desired(scratch)
	}
	return ch.before
}

// dropRecordState drops the states of an unchanged change whose element
// holds exactly what its record states, links in the same order: Held and
// Desired make them again, so that an unchanged re-apply does not hold
// two states an element.
func (ch *Change) dropRecordState() {
	if ch.Action == ActionUnchanged && ch.record != nil && isRecordState(ch.record, ch.before) {
		ch.before, ch.after = nil, nil
	}
}

// isRecordState reports whether st is exactly the state r makes of a new
// element.
func isRecordState(r *wbsfile.Record, st *State) bool {
	var want State
	setRecordState(&want, r, nil)
	return st != nil && sameFields(st, &want) &&
		(st.BusinessOrganizations == nil) == (want.BusinessOrganizations == nil) &&
		slices.Equal(st.BusinessOrganizations, want.BusinessOrganizations)
}

// LinkChanges are the links an update adds and removes. A plan holds
// them only for the few changes that have any.
type LinkChanges struct {
	AddOrganizations    []sdk.BusinessOrganization `json:"addOrganizations,omitempty"`
	RemoveOrganizations []sdk.BusinessOrganization `json:"removeOrganizations,omitempty"`
}

// Added returns the links the change adds; none where l is nil.
func (l *LinkChanges) Added() []sdk.BusinessOrganization {
	if l == nil {
		return nil
	}
	return l.AddOrganizations
}

// Removed returns the links the change removes; none where l is nil.
func (l *LinkChanges) Removed() []sdk.BusinessOrganization {
	if l == nil {
		return nil
	}
	return l.RemoveOrganizations
}

// FieldSet is a set of the fields an update changes. In JSON it is the
// list of their names, in this order: the text fields of
// wbsfile.TextFields, isActive, businessOrganizations.
type FieldSet uint16

// The fields of a FieldSet other than the texts, which TextFieldSet
// names.
const (
	FieldIsActive FieldSet = 1 << (14 + iota)
	FieldOrganizations
)

// TextFieldSet is the set of one text field, f.
func TextFieldSet(f wbsfile.TextField) FieldSet {
	return 1 << f.Index()
}

// fieldSetNames are the fields' names in order, and fieldSetBits their
// sets.
var (
	fieldSetNames = slices.Concat(wbsfile.TextFieldNames(), []string{"isActive", "businessOrganizations"})
	fieldSetBits  = func() []FieldSet {
		bits := make([]FieldSet, 0, len(fieldSetNames))
		for i := range wbsfile.TextFields {
			bits = append(bits, 1<<i)
		}
		return append(bits, FieldIsActive, FieldOrganizations)
	}()
)

// texts are the text fields of a FieldSet.
const textFields FieldSet = 1<<14 - 1

// Names returns the names of the fields of f, in order.
func (f FieldSet) Names() []string {
	var names []string
	for i, name := range fieldSetNames {
		if f&fieldSetBits[i] != 0 {
			names = append(names, name)
		}
	}
	return names
}

// MarshalJSON writes f as the list of its names.
func (f FieldSet) MarshalJSON() ([]byte, error) {
	return json.Marshal(f.Names())
}

// UnmarshalJSON reads a list of names, each once and in order.
func (f *FieldSet) UnmarshalJSON(b []byte) error {
	var names []string
	if err := json.Unmarshal(b, &names); err != nil {
		return strictjson.Refuse("must be a list of field names")
	}
	*f = 0
	last := -1
	for _, name := range names {
		i := slices.Index(fieldSetNames, name)
		if i <= last {
			return strictjson.Refuse(fmt.Sprintf("%q is unknown, given twice or out of order (the fields, in order: %s)", name, strings.Join(fieldSetNames, ", ")))
		}
		*f, last = *f|fieldSetBits[i], i
	}
	return nil
}

// State is an element as a plan sees it. BusinessOrganizations is nil
// where the plan did not read or does not manage the links.
type State struct {
	wbsfile.Texts         `json:",inline"`
	IsActive              bool                       `json:"isActive"`
	BusinessOrganizations []sdk.BusinessOrganization `json:"businessOrganizations"`
	// LinksVerified is when the links were last read from the platform
	// or written to it, as a state file records it; zero where it does
	// not. A plan holds it in the change (Change.verified), not here.
	LinksVerified Stamp `json:"linksVerified,omitzero"`
}

// recordState is what the platform holds once r is applied over before
// (nil for a create): fields the record leaves out stay as they are.
func recordState(r *wbsfile.Record, before *State) *State {
	after := &State{}
	setRecordState(after, r, before)
	return after
}

// setRecordState sets after to recordState(r, before).
func setRecordState(after *State, r *wbsfile.Record, before *State) {
	*after = State{IsActive: true}
	if before != nil {
		*after = *before
	}
	after.Stated(&r.Texts)
	if r.IsActive != nil {
		after.IsActive = *r.IsActive
	}
	if r.OrganizationsSet {
		after.BusinessOrganizations = links.Dedupe(r.Organizations)
		if after.BusinessOrganizations == nil {
			after.BusinessOrganizations = []sdk.BusinessOrganization{}
		}
	}
}

// The states of an element are compared and diffed by these alone, so
// that a plan, a saved plan's check and its verification agree: no
// text and an empty one are the same, links are a set, and links
// not read are not compared. (isRecordState asks more: the links in the
// record's order, for a state to be made again from the record exactly.)

// sameFields reports whether a and b hold the same texts and active flag:
// what the element list shows.
func sameFields(a, b *State) bool {
	return a.Same(&b.Texts) && a.IsActive == b.IsActive
}

// sameLinks reports whether two lists hold the same set of links.
func sameLinks(a, b []sdk.BusinessOrganization) bool {
	a, b = links.Dedupe(a), links.Dedupe(b)
	if len(a) != len(b) {
		return false
	}
	for _, o := range a {
		if !slices.Contains(b, o) {
			return false
		}
	}
	return true
}

// sameState reports whether a and b are the same state: the same fields,
// and links read on both sides and the same set, or read on neither.
func sameState(a, b *State) bool {
	if a == nil || b == nil {
		return a == b
	}
	return sameFields(a, b) && (a.BusinessOrganizations == nil) == (b.BusinessOrganizations == nil) &&
		sameLinks(a.BusinessOrganizations, b.BusinessOrganizations)
}

// diffFields returns the fields other than links that differ from before
// to after.
func diffFields(before, after *State) FieldSet {
	var fields FieldSet
	for i, f := range wbsfile.TextFields {
		if before.Text(f) != after.Text(f) {
			fields |= fieldSetBits[i]
		}
	}
	if before.IsActive != after.IsActive {
		fields |= FieldIsActive
	}
	return fields
}

// diffStates returns what differs from before to after, as a plan names
// it: the fields in plan order, and the links to add and remove where
// both states hold links.
func diffStates(before, after *State) (fields FieldSet, add, remove []sdk.BusinessOrganization) {
	fields = diffFields(before, after)
	if before.BusinessOrganizations != nil && after.BusinessOrganizations != nil {
		if add, remove = diffLinks(before.BusinessOrganizations, after.BusinessOrganizations); len(add)+len(remove) > 0 {
			fields |= FieldOrganizations
		}
	}
	return fields, add, remove
}

// Plan is the list of changes that converge the platform to a file.
type Plan struct {
	Changes []Change `json:"changes"`
	// Verification is how far the plan checked the links it holds: nil
	// for a saved plan's.
	Verification *Verification `json:"-"`
	// Unread counts the elements whose links the plan was to read and
	// did not, its Deadline passed: such a plan is partial, shown but
	// never carried out, and what it read goes to the state.
	Unread int `json:"-"`
	// Unmanaged are the codes of the elements the platform holds and
	// the file does not name, which the plan leaves alone (a plan made
	// without --prune), in code order: what --prune would delete.
	Unmanaged []string `json:"-"`

	// state is the state a dry run left, which its saved form names;
	// prune is whether the plan was made with --prune.
	state *StateVersion
	prune bool
	// commit is the commit the plan's file is of, which its saved form
	// records; nil where the run did not know it.
	commit *statestore.Commit
}

// Counts returns how many changes the plan has per action.
func (p *Plan) Counts() map[Action]int {
	m := map[Action]int{}
	for _, c := range p.Changes {
		m[c.Action]++
	}
	return m
}

// Quiet reports whether the plan has nothing to show a reviewer: no
// change, no element on the platform that the file does not name, and
// no link left unread.
func (p *Plan) Quiet() bool {
	return !p.Pending() && len(p.Unmanaged) == 0 && p.Unread == 0
}

// Pending reports whether the plan changes anything.
func (p *Plan) Pending() bool {
	for _, c := range p.Changes {
		if c.Action != ActionUnchanged {
			return true
		}
	}
	return false
}

// PlanOptions steers buildPlan.
type PlanOptions struct {
	// PageSize is the page size of the reads; the largest the platform
	// allows saves requests. Default sdk.DefaultAllPageSize.
	PageSize int
	// Concurrency bounds the parallel reads of links. Default 4.
	Concurrency int
	// MaxPages bounds the pages of one list read, as a guard against a
	// list that never ends; 0 is no bound.
	MaxPages int
	// known is what a state file recorded of the records' elements,
	// which Run gives from the state. An element's links are trusted, instead of read,
	// only where its record names exactly the links the state recorded
	// and the list shows the description and active flag the state
	// recorded: an element changed since may have had its links changed
	// too.
	known *knownStates
	// stated is the state's entries of the elements no record names,
	// which Run gives from the state: a saved plan's step whose links
	// the plan took from a state has them trusted again only where this
	// state still holds them.
	stated stateElements
	// prune decides which listed elements the plan deletes and which
	// links an update keeps; Run gives it from Input.Prune. Nil deletes
	// nothing and keeps no link a record leaves out.
	prune *Prune
	// clock is the time links are read at; nil is the wall's.
	clock func() time.Time
	// Deadline, when set, ends the reads of links: none starts after
	// it, and the plan is partial (Plan.Unread). The reads in flight
	// finish.
	Deadline time.Time
	// LinksRead, when set, is told after each read of links how many of
	// how many the plan has read.
	LinksRead func(read, total int)
}

// now is the time of a read of links.
func (o PlanOptions) now() Stamp {
	if o.clock == nil {
		return StampOf(time.Now())
	}
	return StampOf(o.clock())
}

func (o PlanOptions) withDefaults() PlanOptions {
	if o.PageSize <= 0 {
		o.PageSize = sdk.DefaultAllPageSize
	}
	if o.Concurrency <= 0 {
		o.Concurrency = 4
	}
	return o
}

// buildPlan reads the platform's current state and compares it with the
// records by code. It reads the list of elements page by page, and the
// links of an element only when its record says something about links.
// The list is compared as it is read, not held: an element the file names
// becomes its change's Before at once, and one it does not is kept only
// where the prune deletes it.
func buildPlan(ctx context.Context, c *sdk.Client, records []wbsfile.Record, opts PlanOptions) (*Plan, error) {
	opts = opts.withDefaults()
	byCode := codeindex.New(len(records), func(i int) string { return records[i].Code })
	plan := &Plan{Changes: make([]Change, len(records))}
	gone := map[string]*State{}
	err := listElements(ctx, c, listOptions(opts.PageSize, opts.MaxPages), func(code string, listed *State) {
		i, named := byCode.Find(code)
		if !named {
			switch {
			case opts.prune.deletes(code):
				if el := opts.stated[code]; el != nil && el.BusinessOrganizations != nil && sameFields(el, listed) {
					// What the state recorded of its links, for the
					// reviewer: they are not read for a delete.
					listed.BusinessOrganizations = el.BusinessOrganizations
				}
				gone[code] = listed
			case !opts.prune.namedInvalid(code):
				plan.Unmanaged = append(plan.Unmanaged, code)
			}
			return
		}
		r := &records[i]
		trusted := false
		if known := opts.known.entry(i); known != nil && sameFields(listed, known) {
			listed, trusted = known, true // its links are trusted, not read
		}
		plan.Changes[i] = diffElement(r, listed)
		if trusted {
			plan.Changes[i].trusted, plan.Changes[i].verified = true, opts.known.verified[i]
		}
		plan.Changes[i].dropRecordState()
	})
	if err != nil {
		return nil, err
	}
	var needLinks []int
	for i := range plan.Changes {
		switch r, ch := &records[i], &plan.Changes[i]; {
		case ch.Action == 0: // not listed
			// Its links, once made, are the record's: verified as made.
			*ch = Change{Action: ActionCreate, Line: r.Line, Code: r.Code, record: r, verified: opts.now()}
		case r.OrganizationsSet && ch.before != nil && ch.before.BusinessOrganizations == nil:
			needLinks = append(needLinks, i)
		}
	}
	if err := planLinks(ctx, c, plan.Changes, needLinks, opts); err != nil {
		return nil, err
	}
	for _, i := range needLinks {
		if plan.Changes[i].before.BusinessOrganizations == nil {
			plan.Unread++ // past the deadline
		}
	}
	plan.Verification = verification(plan.Changes, len(needLinks)-plan.Unread, opts.known.rechecks())
	plan.Verification.Unread = plan.Unread
	// An element whose links, once read, are as its record states them
	// holds one state, not two equal ones, or none.
	for _, i := range needLinks {
		if ch := &plan.Changes[i]; ch.Action == ActionUnchanged && sameState(ch.before, ch.after) {
			ch.after = ch.before
			ch.dropRecordState()
		}
	}
	slices.Sort(plan.Unmanaged)
	for _, code := range slices.Sorted(maps.Keys(gone)) {
		plan.Changes = append(plan.Changes, Change{Action: ActionDelete, Code: code, before: gone[code]})
	}
	return plan, nil
}

// listOptions are the options of apply's list reads.
func listOptions(pageSize, maxPages int) *sdk.ListOptions {
	return &sdk.ListOptions{PageSize: pageSize, MaxPages: maxPages}
}

// readElements lists every element once: by code, its state as listed,
// links not read. A plan's change takes the state as its before.
func readElements(ctx context.Context, c *sdk.Client, lo *sdk.ListOptions) (map[string]*State, error) {
	current := map[string]*State{}
	if err := listElements(ctx, c, lo, func(code string, listed *State) { current[code] = listed }); err != nil {
		return nil, err
	}
	return current, nil
}

// listElements calls fn with each element the list shows, as its pages are
// read: its code and its state as listed, links not read.
func listElements(ctx context.Context, c *sdk.Client, lo *sdk.ListOptions, fn func(code string, listed *State)) error {
	for el, err := range c.WBSElements.All(ctx, lo) {
		if err != nil {
			return fmt.Errorf("reading the current elements: %w", err)
		}
		fn(el.Code, &State{Texts: wbsfile.ElementTexts(&el), IsActive: el.IsActive})
	}
	return nil
}

// diffElement plans the update of the element listed as before to r,
// leaving links to planLinks (a state's links, where before holds them,
// are the record's). The change holds before as its before.
func diffElement(r *wbsfile.Record, before *State) Change {
	ch := Change{Action: ActionUnchanged, Line: r.Line, Code: r.Code, record: r, before: before, after: before}
	var after State
	setRecordState(&after, r, before)
	if ch.Fields = diffFields(before, &after); ch.Fields != 0 {
		ch.Action = ActionUpdate
	}
	// An element the record leaves as it is holds one state, not two
	// equal ones.
	if !sameState(before, &after) {
		ch.after = &State{}
		*ch.after = after
	}
	return ch
}

// updateRequest is the body of the update of ch, from its record: the
// fields it changes, and the whole desired set of links when it adds any.
// It is nil when the change only removes links.
func updateRequest(ch *Change) *sdk.UpdateWBSElementRequest {
	r, upd := ch.record, &sdk.UpdateWBSElementRequest{}
	for i, f := range wbsfile.TextFields {
		if ch.Fields&fieldSetBits[i] != 0 {
			r.SetUpdate(upd, f)
		}
	}
	if ch.Fields&FieldIsActive != 0 {
		upd.IsActive = sdk.Set(*r.IsActive)
	}
	if len(ch.Added()) > 0 {
		upd.BusinessOrganizations = sdk.Set(links.Dedupe(r.Organizations))
	} else if ch.Fields&(textFields|FieldIsActive) == 0 {
		return nil
	}
	return upd
}

// planLinks reads the links of the changes at idx and, where the record
// states links, plans what to add and remove so that the element holds
// exactly the record's set.
func planLinks(ctx context.Context, c *sdk.Client, changes []Change, idx []int, opts PlanOptions) error {
	var (
		mu    sync.Mutex
		first error
	)
	pastDeadline := func() bool { return !opts.Deadline.IsZero() && !opts.now().Time().Before(opts.Deadline) }
	read := 0
	run(opts.Concurrency, len(idx), pastDeadline, func(k int) {
		ch := &changes[idx[k]]
		have, err := readLinks(ctx, c, ch.Code, listOptions(opts.PageSize, opts.MaxPages))
		mu.Lock()
		defer mu.Unlock()
		if read++; opts.LinksRead != nil {
			opts.LinksRead(read, len(idx))
		}
		if err != nil {
			if first == nil {
				first = fmt.Errorf("reading the business organizations of %q: %w", ch.Code, err)
			}
			return
		}
		if ch.record.OrganizationsSet {
			if opts.prune.ownsSome() {
				keepOthers(ch.record, have, opts.prune)
				if ch.after != nil && ch.after != ch.before {
					ch.after.BusinessOrganizations = links.Dedupe(ch.record.Organizations)
				}
			}
			add, remove := diffLinks(have, ch.record.Organizations)
			setLinkChanges(ch, add, remove)
		}
		ch.before.BusinessOrganizations = links.Share(have)
		if ch.before.BusinessOrganizations == nil {
			ch.before.BusinessOrganizations = []sdk.BusinessOrganization{}
		}
		ch.verified = opts.now()
	})
	return first
}

// keepOthers adds to r's links those of have that the prune keeps: a
// file that states the links of some types only leaves the others as the
// element holds them, and the update, which sends the whole set, keeps
// them.
func keepOthers(r *wbsfile.Record, have []sdk.BusinessOrganization, prune *Prune) {
	for _, l := range have {
		if prune.keeps(l) {
			r.Organizations = append(r.Organizations, l)
		}
	}
}

// setLinkChanges records add and remove on ch. The update sends the whole
// desired set after the extra links are removed: a platform that merges
// then holds exactly the set, and so does one that replaces.
func setLinkChanges(ch *Change, add, remove []sdk.BusinessOrganization) {
	if len(add) == 0 && len(remove) == 0 {
		ch.LinkChanges = nil
		return
	}
	ch.LinkChanges = &LinkChanges{AddOrganizations: add, RemoveOrganizations: remove}
	ch.Action = ActionUpdate
	ch.Fields |= FieldOrganizations
}

// readLinks reads the links of an element that the element list holds.
func readLinks(ctx context.Context, c *sdk.Client, code string, lo *sdk.ListOptions) ([]sdk.BusinessOrganization, error) {
	var have []sdk.BusinessOrganization
	for l, err := range c.WBSElements.AllBusinessOrganizationsOfExisting(ctx, code, lo) {
		if err != nil {
			return nil, err
		}
		have = append(have, l.BusinessOrganization())
	}
	return have, nil
}

// diffLinks returns the links of want missing from have, and those of have
// missing from want.
func diffLinks(have, want []sdk.BusinessOrganization) (add, remove []sdk.BusinessOrganization) {
	h, w := set(have), set(want)
	for _, o := range links.Dedupe(want) {
		if !h[o] {
			add = append(add, o)
		}
	}
	for _, o := range links.Dedupe(have) {
		if !w[o] {
			remove = append(remove, o)
		}
	}
	return add, remove
}

func set(orgs []sdk.BusinessOrganization) map[sdk.BusinessOrganization]bool {
	m := make(map[sdk.BusinessOrganization]bool, len(orgs))
	for _, o := range orgs {
		m[o] = true
	}
	return m
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
