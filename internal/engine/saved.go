package engine

import (
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"iter"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"
	"github.com/wbsctl/wbsctl/internal/atomicfile"
	"github.com/wbsctl/wbsctl/internal/codeindex"
	"github.com/wbsctl/wbsctl/internal/jsondoc"
	"github.com/wbsctl/wbsctl/internal/links"
	"github.com/wbsctl/wbsctl/internal/statestore"
	"github.com/wbsctl/wbsctl/internal/strictjson"
	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// SavedPlanVersion is the version of a saved plan's format. Version 2
// records whether the plan was made with --prune; version 3 holds the
// elements the plan found unchanged, as it read them, so that carrying
// the plan out fills a state as the plan's own run would.
const SavedPlanVersion = 3

// SavedPlan is a plan written by apply --dry-run --out, to be carried out
// exactly by apply --plan once reviewed. It names the platform and client
// id it was made for, the file it was made from and the column map it was
// read through, each with its digest, and holds each step with what the
// platform held before it. It holds no secret or token.
type SavedPlan struct {
	FormatVersion savedVersion `json:"formatVersion"`
	BaseURL       string       `json:"baseUrl"`
	ClientID      string       `json:"clientId"`
	Source
	// Prune is whether the plan was made with --prune: only such a plan
	// may hold deletes.
	Prune     bool      `json:"prune"`
	CreatedAt time.Time `json:"createdAt"`
	// State is the state the plan was made with, as its dry run left it:
	// apply --plan refuses the plan once that state has been written
	// since (another run ran), as terraform refuses a plan whose state
	// moved. Nil for a plan made without --state.
	State *StateVersion `json:"state,omitempty"`
	// Commit is the commit the plan's file is of, where the run that made
	// it knew (a CI job): carried out, the plan is refused over a state
	// whose last apply was of a newer commit, and records it otherwise.
	Commit *statestore.Commit `json:"commit,omitempty"`
	Steps  savedSteps         `json:"steps"`
}

// Source is what a plan is made from: the file of -f and the column map
// of --map (none: Map is empty), each with its digest (FileDigest's).
type Source struct {
	File       string `json:"file"`
	FileDigest string `json:"fileDigest"`
	Map        string `json:"map,omitempty"`
	MapDigest  string `json:"mapDigest,omitempty"`
}

// StateVersion names a state as a run left it: its lineage, serial, and
// the applies that wrote it.
type StateVersion struct {
	Lineage string `json:"lineage"`
	Serial  int64  `json:"serial"`
	Applies int64  `json:"applies"`
}

// savedVersion is a saved plan's format version. Another version is
// refused as soon as it is read (a plan writes it first): the steps that
// follow are checked as they are read, by this version's rules.
type savedVersion int

func (v *savedVersion) UnmarshalJSON(b []byte) error {
	var n int
	if err := json.Unmarshal(b, &n); err != nil {
		return err
	}
	if n != SavedPlanVersion {
		return versionError(n)
	}
	*v = savedVersion(n)
	return nil
}

func versionError(n int) error {
	return &strictjson.Error{Message: fmt.Sprintf("format version %d, want %d", n, SavedPlanVersion)}
}

// savedSteps are the steps of a saved plan. They are read one at a time,
// each checked as it is read and then held without the after its record
// gives (see SavedStep.compact): read whole, a large plan would be held
// many times over while it is carried out.
type savedSteps []SavedStep

// UnmarshalJSONFrom reads the steps from dec, for strictjson.UnmarshalRead.
// A step is checked as if the plan were made with --prune, which the plan
// may state after its steps: readSavedPlan refuses its deletes otherwise.
func (s *savedSteps) UnmarshalJSONFrom(dec *jsontext.Decoder) error {
	if dec.PeekKind() == 'n' {
		_, err := dec.ReadToken()
		*s = nil
		return err
	}
	if tok, err := dec.ReadToken(); err != nil {
		return err
	} else if tok.Kind() != '[' {
		return strictjson.Refuse("must be an array of steps")
	}
	*s = savedSteps{}
	for dec.PeekKind() != ']' {
		var st SavedStep
		if err := json.UnmarshalDecode(dec, &st); err != nil {
			return err
		}
		if err := st.check(true); err != nil {
			return stepError(len(*s), &st, err)
		}
		st.compact()
		*s = append(*s, st)
	}
	_, err := dec.ReadToken()
	return err
}

// stepError is the refusal of the step at index i, as the plan's.
func stepError(i int, st *SavedStep, err error) error {
	return &strictjson.Error{Message: fmt.Sprintf("step %d (%s %q): %v", i+1, st.Action, st.Code, err)}
}

// SavedStep is one step of a saved plan: the change, and the record it
// came from, which the step's requests are made of again. Once read, the
// record is held as a wbsfile.Record, and Record is nil (see compact).
type SavedStep struct {
	Step
	Record *savedRecord `json:"record,omitempty"`
	// LinksFromState says the links of Before are the state's, trusted
	// as the element's and not read: apply --plan trusts them again, as
	// apply -f --state does, where the state it is given still holds
	// them (checkState has refused the plan if another apply wrote the
	// state since), and reads and compares them otherwise. The member
	// is no more than a hint: a plan edited to claim it, run without
	// that state, has the links read.
	LinksFromState bool `json:"linksFromState,omitempty"`

	record *wbsfile.Record
}

// savedRecord is a Record with what it leaves out left out.
type savedRecord struct {
	Code          string `json:"wbsElementCode"`
	wbsfile.Texts `json:",inline"`
	IsActive      *bool                       `json:"isActive,omitempty"`
	Organizations *[]sdk.BusinessOrganization `json:"businessOrganizations,omitempty"`
}

// MarshalJSON writes r with what it leaves out left out: the members of
// its tags, but no member for a text it does not state (Texts, as a plan's
// states write it, holds null for it, which a reviewer reads as clearing
// the field).
func (r savedRecord) MarshalJSON() ([]byte, error) {
	b := []byte{'{'}
	member := func(name string, v any) error {
		value, err := json.Marshal(v)
		if len(b) > 1 {
			b = append(b, ',')
		}
		b = append(append(append(b, '"'), name...), `":`...)
		b = append(b, value...)
		return err
	}
	err := member("wbsElementCode", r.Code)
	for _, f := range wbsfile.TextFields {
		if v := *f.Of(&r.Texts); v != nil && err == nil {
			err = member(f.Name, *v)
		}
	}
	if r.IsActive != nil && err == nil {
		err = member("isActive", *r.IsActive)
	}
	if r.Organizations != nil && err == nil {
		err = member("businessOrganizations", *r.Organizations)
	}
	return append(b, '}'), err
}

// FileDigest is the digest a saved plan records of its file and its map.
func FileDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return digestText(sum[:])
}

// ReadDigest is FileDigest of what r holds, read a piece at a time.
func ReadDigest(r io.Reader) (string, error) {
	h := sha256.New()
	if _, err := io.Copy(h, r); err != nil {
		return "", err
	}
	return digestText(h.Sum(nil)), nil
}

// digestText is how a saved plan writes a SHA-256 sum.
func digestText(sum []byte) string { return "sha256:" + hex.EncodeToString(sum) }

// savedHead is the plan's saved form without its steps.
func (p *Plan) savedHead(baseURL, clientID string, src Source, now time.Time) *SavedPlan {
	return &SavedPlan{FormatVersion: SavedPlanVersion, BaseURL: baseURL, ClientID: clientID, Source: src,
		Prune: p.prune, CreatedAt: now.UTC().Truncate(time.Second), State: p.state, Commit: p.commit, Steps: savedSteps{}}
}

// stepsToSave yields the steps of the plan's saved form one by one: the
// unchanged ones with only what the plan read of them.
func (p *Plan) stepsToSave() iter.Seq[SavedStep] {
	return func(yield func(SavedStep) bool) {
		for i := range p.Changes {
			ch := &p.Changes[i]
			step := SavedStep{Step: ch.Step()}
			// Held, not before: an unchanged element that holds just
			// what its record states has no before of its own.
			step.LinksFromState = ch.trusted && step.Before != nil && step.Before.BusinessOrganizations != nil
			if ch.Action == ActionUnchanged {
				// Its before is all a later run can use of it.
				step.After = nil
				if !yield(step) {
					return
				}
				continue
			}
			if r := ch.record; r != nil {
				step.Record = &savedRecord{Code: r.Code, Texts: r.Texts, IsActive: r.IsActive}
				if r.OrganizationsSet {
					orgs := append([]sdk.BusinessOrganization{}, r.Organizations...)
					step.Record.Organizations = &orgs
				}
			}
			if !yield(step) {
				return
			}
		}
	}
}

// WriteSaved writes the saved form of plan to path atomically, 0600, in
// the bytes json.MarshalIndent writes for it with a two-space indent, a
// step at a time: a saved plan of 200,000 steps is not held whole, nor
// its text. The saved form names the platform, the client id and the
// source given, and whether the plan was made with --prune.
func (p *Plan) WriteSaved(path, baseURL, clientID string, src Source, now time.Time) error {
	f, err := atomicfile.Create(path, 0o600)
	if err != nil {
		return err
	}
	defer f.Abort()
	w := bufio.NewWriter(f)
	if err := jsondoc.Write(w, "  ", p.savedHead(baseURL, clientID, src, now), "steps", p.stepsToSave()); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Commit()
}

// ErrPlanUnusable is a saved plan that is damaged, of another version, or
// made for another platform or client id.
var ErrPlanUnusable = errors.New("the saved plan cannot be used")

// ReadSavedPlan reads a saved plan made for baseURL and clientID and
// checks its integrity.
func ReadSavedPlan(path, baseURL, clientID string) (*SavedPlan, error) {
	sp, err := ReadSavedPlanFile(path)
	if err != nil {
		return nil, err
	}
	if sp.BaseURL != baseURL || sp.ClientID != clientID {
		return nil, fmt.Errorf("%w: %s was made for %s as %s, not %s as %s", ErrPlanUnusable, path, sp.BaseURL, sp.ClientID, baseURL, clientID)
	}
	return sp, nil
}

// ReadSavedPlanFile reads a saved plan and checks its integrity, for
// whichever platform it was made: to show it, not to carry it out.
func ReadSavedPlanFile(path string) (*SavedPlan, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrPlanUnusable, err)
	}
	defer f.Close()
	sp, err := readSavedPlan(bufio.NewReader(f))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrPlanUnusable, path, err)
	}
	return sp, nil
}

// readSavedPlan reads a saved plan from r and checks its steps.
func readSavedPlan(r io.Reader) (*SavedPlan, error) {
	var sp SavedPlan
	if err := strictjson.UnmarshalRead(r, &sp); err != nil {
		return nil, err
	}
	if sp.FormatVersion != SavedPlanVersion {
		return nil, versionError(int(sp.FormatVersion)) // not given
	}
	steps := sp.Steps
	byCode := codeindex.New(len(steps), func(i int) string { return steps[i].Code })
	if repeats := byCode.Repeats(); len(repeats) > 0 {
		i := slices.Min(slices.Collect(maps.Keys(repeats)))
		return nil, fmt.Errorf("step %d (%s %q) repeats step %d: a plan changes an element once", i+1, steps[i].Action, steps[i].Code, repeats[i]+1)
	}
	for i, st := range steps {
		if st.Action != ActionDelete {
			continue
		}
		if err := checkSavedDelete(sp.Prune); err != nil {
			return nil, stepError(i, &st, err)
		}
	}
	return &sp, nil
}

// check holds a step to what apply makes: the record is what is sent and
// the after is what a reviewer reads, so the record applied over the
// before must give the after, and the action, fields and links must be
// the difference of the two. A step edited by hand fails here.
func (st *SavedStep) check(prune bool) error {
	switch st.Action {
	case ActionCreate:
		if st.Before != nil || st.After == nil || st.Record == nil {
			return errors.New("a create has an after and a record, and no before")
		}
	case ActionUpdate:
		if st.Before == nil || st.After == nil || st.Record == nil {
			return errors.New("an update has a before, an after and a record")
		}
	case ActionUnchanged:
		if st.Before == nil || st.After != nil || st.Record != nil || st.Fields != 0 ||
			len(st.Added())+len(st.Removed()) > 0 {
			return errors.New("an unchanged element has a before and nothing else")
		}
		return nil
	case ActionDelete:
		if err := checkSavedDelete(prune); err != nil {
			return err
		}
		if st.Before == nil || st.After != nil || st.Record != nil || st.Fields != 0 ||
			len(st.Added())+len(st.Removed()) > 0 {
			return errors.New("a delete has a before and nothing else")
		}
		return nil
	default:
		return fmt.Errorf("unknown action %q", st.Action)
	}
	if st.Record.Code != st.Code {
		return fmt.Errorf("the record is of %q", st.Record.Code)
	}
	if !sameState(recordState(st.Record.record(st.Line), st.Before), st.After) {
		return errors.New("the record does not give the after")
	}
	var fields FieldSet
	var add, remove []sdk.BusinessOrganization
	if st.Action == ActionUpdate {
		fields, add, remove = diffStates(st.Before, st.After)
		if fields == 0 {
			return errors.New("an update that changes nothing")
		}
	}
	if fields != st.Fields || !sameLinks(add, st.Added()) || !sameLinks(remove, st.Removed()) ||
		len(links.Dedupe(st.Added())) != len(st.Added()) || len(links.Dedupe(st.Removed())) != len(st.Removed()) {
		return errors.New("the fields or links it changes are not the difference of its before and after")
	}
	return nil
}

// compact holds a checked step as a plan's change holds it: its record
// as the change's, with the change's code and equal lists of links held
// once, and a create without the after its record gives.
func (st *SavedStep) compact() {
	if st.Action == ActionCreate {
		st.After = nil
	}
	if st.Record != nil {
		r := st.Record.record(st.Line)
		r.Code, r.Organizations = st.Code, links.Share(r.Organizations)
		st.record, st.Record = r, nil
	}
}

// Plan returns the steps of sp as a plan, to be shown: the changes as
// they were saved.
func (sp *SavedPlan) Plan() *Plan {
	plan := &Plan{Changes: make([]Change, len(sp.Steps))}
	for i, st := range sp.Steps {
		plan.Changes[i] = Change{Action: st.Action, Line: st.Line, Code: st.Code, Fields: st.Fields, LinkChanges: st.LinkChanges,
			before: st.Before, after: st.After, record: st.record}
		if st.Action == ActionUnchanged {
			plan.Changes[i].after = st.Before
		}
	}
	return plan
}

// ErrSourceChanged is a saved plan whose file or column map is not, where
// it can be read, what the plan was made from.
var ErrSourceChanged = errors.New("changed since the plan was made")

// ErrPlanStale is a saved plan whose elements the platform no longer holds
// as the plan found them, or whose state has been written since.
var ErrPlanStale = errors.New("the platform changed since the plan was made")

// checkState refuses a plan once another apply has written its state
// since the plan was made: the plan's lineage, more applies. Dry runs
// write the state too, but change nothing: they do not count. A state of
// another lineage (a CI cache's copy of another time, a state made anew)
// says nothing of this plan; Verify checks the platform itself.
func (sp *SavedPlan) checkState(st *stateFile) error {
	if sp == nil || sp.State == nil || st == nil || st.Lineage != sp.State.Lineage || st.Applies <= sp.State.Applies {
		return nil
	}
	return fmt.Errorf("%w: another apply wrote the state since (applies: %d when it was made, %d now); nothing was sent, make the plan again",
		ErrPlanStale, sp.State.Applies, st.Applies)
}

// Verify reads the platform once (the element list, and the links of the
// steps whose before holds links) and returns the plan of exactly sp's
// steps when every element it changes is as the plan found it, or an
// error matching ErrPlanStale that names the elements that moved. An
// element the plan found unchanged is in the plan, as the plan read it,
// only while the list shows it so: it changes nothing, and it is what a
// state records of the run.
func (sp *SavedPlan) Verify(ctx context.Context, c *sdk.Client, opts PlanOptions) (*Plan, error) {
	opts = opts.withDefaults()
	current, err := readElements(ctx, c, listOptions(opts.PageSize, opts.MaxPages))
	if err != nil {
		return nil, err
	}
	plan := &Plan{Changes: make([]Change, 0, len(sp.Steps))}
	var moved []Result
	var needLinks []int
	stepOf := make([]int, 0, len(sp.Steps)) // by change, its step
	for k, st := range sp.Steps {
		listed, exists := current[st.Code]
		// The links the plan took from a state are trusted again only
		// where the state given still holds them.
		trusted := st.LinksFromState && opts.stated.holds(st.Code, st.Before)
		switch st.Action {
		case ActionUnchanged:
			// The plan read it, and promised it as it read it: one that
			// moved since is refused as a change is. Its links are not
			// read again (that would cost a read per element); the
			// state's verification reads them in later plans.
			if why := movedSince(exists, listed, st.Before); why != "" {
				moved = append(moved, movedStep(&st, why))
				continue
			}
			held := st.Before
			if st.LinksFromState && !trusted {
				// Links the plan took from a state that no longer says
				// so, and not read: a state this run writes does not
				// record them, and the next run reads them.
				held = &State{Texts: st.Before.Texts, IsActive: st.Before.IsActive}
			}
			plan.Changes = append(plan.Changes, Change{Action: ActionUnchanged, Line: st.Line, Code: st.Code, before: held, after: held,
				trusted: trusted, verified: sp.verified(&st, trusted, opts.stated)})
		case ActionCreate:
			if exists {
				moved = append(moved, movedStep(&st, "now exists"))
				continue
			}
			// Its links, once made, are the record's: verified as made.
			plan.Changes = append(plan.Changes, Change{Action: ActionCreate, Line: st.Line, Code: st.Code, record: st.record, verified: opts.now()})
		case ActionDelete:
			if why := movedSince(exists, listed, st.Before); why != "" {
				moved = append(moved, movedStep(&st, why))
				continue
			}
			plan.Changes = append(plan.Changes, Change{Action: ActionDelete, Code: st.Code, before: listed})
		case ActionUpdate:
			if why := movedSince(exists, listed, st.Before); why != "" {
				moved = append(moved, movedStep(&st, why))
				continue
			}
			if trusted {
				// Trusted again, as the plan trusted them.
				held := *listed
				held.BusinessOrganizations = st.Before.BusinessOrganizations
				listed = &held
			}
			ch := diffElement(st.record, listed)
			ch.trusted, ch.verified = trusted, sp.verified(&st, trusted, opts.stated)
			plan.Changes = append(plan.Changes, ch)
			if st.Before.BusinessOrganizations != nil && !trusted {
				// The plan read these links: they are read again, to
				// be compared, whether or not the step changes them.
				needLinks = append(needLinks, len(plan.Changes)-1)
			}
		}
		if len(stepOf) < len(plan.Changes) {
			stepOf = append(stepOf, k)
		}
	}
	if len(moved) == 0 {
		if err := planLinks(ctx, c, plan.Changes, needLinks, opts); err != nil {
			return nil, err
		}
		// Nothing moved: the plan has a change for each step, in order,
		// but for an unchanged one that the list shows otherwise.
		for i, ch := range plan.Changes {
			if ch.Action == ActionUpdate || ch.Action == ActionUnchanged {
				st := sp.Steps[stepOf[i]]
				// The links the plan read are read again: they must be
				// the same set.
				linksMoved := ch.Action == ActionUpdate && st.Before.BusinessOrganizations != nil && !ch.trusted &&
					(ch.before.BusinessOrganizations == nil || !sameLinks(ch.before.BusinessOrganizations, st.Before.BusinessOrganizations))
				if linksMoved || ch.Action != st.Action || ch.Fields != st.Fields {
					moved = append(moved, movedStep(&st, "its links changed"))
				}
			}
		}
	}
	if len(moved) > 0 {
		slices.SortFunc(moved, func(a, b Result) int { return strings.Compare(a.Code, b.Code) })
		return nil, &StaleError{Moved: moved}
	}
	return plan, nil
}

// verified is when the links step st holds were last verified: the
// state's time for links trusted from it, the plan's own for links the
// plan read (read again by Verify, they are stamped anew), zero for none.
func (sp *SavedPlan) verified(st *SavedStep, trusted bool, stated stateElements) Stamp {
	switch {
	case st.Before == nil || st.Before.BusinessOrganizations == nil:
		return 0
	case trusted:
		return stated[st.Code].LinksVerified
	case st.LinksFromState:
		return 0 // not trusted, not read: the state written leaves them out
	}
	return StampOf(sp.CreatedAt)
}

// StaleError is a saved plan refused because elements it read moved
// since it was made: Moved holds one result per such element, in code
// order, its Detail saying how it moved. It matches ErrPlanStale.
type StaleError struct {
	Moved []Result
}

// movedSince says how an element the plan found as before moved since,
// as the list shows it now: "" when it did not.
func movedSince(exists bool, listed, before *State) string {
	switch {
	case !exists:
		return "deleted since"
	case !sameFields(listed, before):
		return "changed since"
	}
	return ""
}

// movedStep is the result of step st, moved as why says.
func movedStep(st *SavedStep, why string) Result {
	return Result{Line: int(st.Line), Code: st.Code, Action: st.Action, Status: StatusMoved, Detail: why}
}

func (e *StaleError) Error() string {
	named := make([]string, len(e.Moved))
	for i, r := range e.Moved {
		named[i] = fmt.Sprintf("%s (%s)", r.Code, r.Detail)
	}
	count := fmt.Sprintf("%d elements", len(e.Moved))
	if len(e.Moved) == 1 {
		count = "1 element"
	}
	return fmt.Sprintf("%v: %s moved: %s; nothing was sent, make the plan again", ErrPlanStale, count, firstOf(named, maxNamed))
}

func (e *StaleError) Is(target error) bool { return target == ErrPlanStale }

// maxNamed is how many elements an error names before it counts the rest.
const maxNamed = 10

// firstOf lists the first n of names and counts the rest, as "A, B and 3
// more": a large plan whose elements all moved is no error of megabytes.
func firstOf(names []string, n int) string {
	if len(names) <= n {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:n], ", "), len(names)-n)
}

func (r *savedRecord) record(line int32) *wbsfile.Record {
	rec := &wbsfile.Record{Line: line, Code: r.Code, Texts: r.Texts, IsActive: r.IsActive}
	if r.Organizations != nil {
		rec.Organizations, rec.OrganizationsSet = *r.Organizations, true
	}
	return rec
}
