package engine

import (
	"errors"
	"fmt"
	"slices"

	"github.com/wbsctl/wbsctl/internal/wbsfile"
	"github.com/wbsctl/wbsctl/sdk"
)

// Prune is what a run may delete: with --prune, the elements the file does
// not name; and, of an element's links, those of the entity types the
// file owns. Whether a prune runs and what it deletes is decided by the
// methods of Prune alone, at each step of a run:
//
//   - the flags (Check): a prune of a stream needs a bound;
//   - the file (CheckFile): a file without a valid record, or with a
//     problem whose code could not be read, is no prune's;
//   - the plan (deletes, keeps): a fresh plan deletes what no record
//     names, the codes of records left out as invalid excepted, and a
//     record's links leave the links of types the file does not own;
//   - a saved plan (checkSavedDelete, decide): only a plan made with
//     --prune holds deletes, and they were reviewed with it;
//   - the plan made (planned): whether its saved form may hold deletes,
//     and --max-deletes;
//   - the confirmation (confirm): a fresh plan's deletes are put to the
//     command, which answers with --yes or its prompt;
//   - the execution (deletesStart, heldBack): deletes run last, only when
//     allowed and when every other change was made.
//
// The command gives the first fields, and asks the person.
type Prune struct {
	// Requested is --prune: a plan of the file deletes the elements it
	// does not name.
	Requested bool
	// MaxDeletes, when set, refuses a plan that deletes more elements,
	// before anything is written.
	MaxDeletes *int
	// Stream is a file read from a stream (-f -): cut short, it names
	// fewer elements than were meant.
	Stream bool
	// OwnedTypes, when set, are the only entity types whose links the
	// records state (a file read through an ERP column map): the links
	// of other types an element holds are kept, never removed.
	OwnedTypes []string

	// What decide adds for a run: the plan is a saved plan's, whose
	// deletes were reviewed with it; the codes of the records left out
	// as invalid; and, once confirm has asked, whether the deletes may
	// start.
	saved     bool
	alsoNamed map[string]bool
	allowed   bool
}

// ErrPruneEverything is a prune of a file without a valid record: every
// element would be deleted.
var ErrPruneEverything = errors.New("--prune with no valid record would delete everything; refusing")

// Check refuses the flags of a prune that cannot be bounded: a stream cut
// short names fewer elements, and every element after the cut would be
// deleted.
func (p Prune) Check() error {
	if p.Requested && p.Stream && p.MaxDeletes == nil {
		return errors.New("--prune with -f - deletes every element after a cut in the stream: give --max-deletes N to bound it")
	}
	return nil
}

// CheckFile refuses a prune of a file that would delete what it means to
// keep: with no valid record (ErrPruneEverything), or with a problem whose
// code could not be read (sdk.ErrValidation), since the element that
// record names is unknown and could be deleted.
func (p Prune) CheckFile(f *wbsfile.File) error {
	switch {
	case !p.Requested:
		return nil
	case len(f.Records) == 0:
		return ErrPruneEverything
	case f.CodeUnknown != nil:
		return fmt.Errorf("%s: no code could be read there, so the element it names is unknown and --prune could delete it; nothing was sent: %w",
			f.CodeUnknown.Place(), sdk.ErrValidation)
	}
	return nil
}

// decide is the prune of one run: of the saved plan where there is one,
// which states whether it was made with --prune, else of p over file.
func (p Prune) decide(file *wbsfile.File, saved *SavedPlan) *Prune {
	d := p
	if saved != nil {
		d.Requested, d.saved = saved.Prune, true
	}
	d.alsoNamed = make(map[string]bool, len(file.InvalidCodes))
	for _, code := range file.InvalidCodes {
		d.alsoNamed[code] = true
	}
	return &d
}

// deletes reports whether a fresh plan deletes the listed element of
// code, which no valid record names: with --prune, unless a record left
// out as invalid names it (the file names it all the same).
func (p *Prune) deletes(code string) bool {
	return p != nil && p.Requested && !p.alsoNamed[code]
}

// namedInvalid reports whether a record left out as invalid names code:
// the file names the element, though it says nothing of it.
func (p *Prune) namedInvalid(code string) bool {
	return p != nil && p.alsoNamed[code]
}

// ownsSome reports whether the file states the links of some entity types
// only: a record that states links then removes only links of those.
func (p *Prune) ownsSome() bool {
	return p != nil && p.OwnedTypes != nil
}

// keeps reports whether an update leaves the link l as the element holds
// it, whatever the record states: a link of a type the file does not own.
func (p *Prune) keeps(l sdk.BusinessOrganization) bool {
	return p.ownsSome() && !slices.Contains(p.OwnedTypes, l.EntityType)
}

// checkSavedDelete refuses a delete of a saved plan made without --prune:
// deletes are a prune's alone.
func checkSavedDelete(madeWithPrune bool) error {
	if !madeWithPrune {
		return errors.New("a delete in a plan made without --prune")
	}
	return nil
}

// planned takes the plan made: it records whether the plan was made with
// --prune, which its saved form states, and refuses one that deletes more
// elements than MaxDeletes allows, before anything is written.
func (p *Prune) planned(plan *Plan) error {
	plan.prune = p.Requested
	if deletes := plan.Counts()[ActionDelete]; p.MaxDeletes != nil && deletes > *p.MaxDeletes {
		return fmt.Errorf("%w: it deletes %d, --max-deletes allows %d; nothing was sent (a file cut short names fewer elements: check it, or raise the bound)",
			ErrTooManyDeletes, deletes, *p.MaxDeletes)
	}
	return nil
}

// confirm decides whether the plan's deletes may start: a saved plan's
// were reviewed with it; a fresh plan's are put to ask (nil holds them
// back), whose error ends the run with nothing sent.
func (p *Prune) confirm(plan *Plan, ask func(deletes int) (bool, error)) error {
	n := plan.Counts()[ActionDelete]
	switch {
	case p.saved:
		p.allowed = true
	case !p.Requested || n == 0:
		p.allowed = p.Requested
	case ask != nil:
		var err error
		if p.allowed, err = ask(n); err != nil {
			return err
		}
	}
	return nil
}

// deletesStart reports whether the plan's deletes start, once every other
// change is done: only when they were allowed, and when every other change
// was made and nothing stopped the run (failedOrStopped tells).
func (p *Prune) deletesStart(failedOrStopped func() bool) bool {
	return p.isAllowed() && !failedOrStopped()
}

// isAllowed reports whether confirm allowed the deletes.
func (p *Prune) isAllowed() bool {
	return p != nil && p.allowed
}

// heldBack is the detail of a delete that did not start because the prune
// was not allowed; "" when it was.
func (p *Prune) heldBack() string {
	if p.isAllowed() {
		return ""
	}
	return "prune not confirmed"
}

// HeldBack reports whether r is a delete that did not start because the
// prune was not confirmed: no work left for a run again.
func (o *Outcome) HeldBack(r Result) bool {
	return r.Action == ActionDelete && r.Status == StatusSkipped && !o.prune.isAllowed()
}
