package engine

import "iter"

// PlanFormatVersion is the version of the machine-readable plan; it
// changes only when a member changes meaning or goes away.
const PlanFormatVersion = 1

// PlanDocument is the machine-readable plan of -o json, yaml and ndjson.
type PlanDocument struct {
	FormatVersion int            `json:"formatVersion" yaml:"formatVersion"`
	Changes       []Step         `json:"changes" yaml:"changes"`
	Summary       map[Action]int `json:"summary" yaml:"summary"`
	// LinksVerified is how far a plan with a state checked the links it
	// holds (Plan.Verification); absent without a state.
	LinksVerified *Verification `json:"linksVerified,omitempty" yaml:"linksVerified,omitempty"`
	// Unmanaged are the codes of the elements on the platform that the
	// file does not name, left alone by a plan without --prune.
	Unmanaged []string `json:"unmanaged,omitempty" yaml:"unmanaged,omitempty"`
	// Partial is a plan whose time (--max-duration) ran out before it
	// read every link it needed: its changes are not all known, and it
	// is never carried out.
	Partial bool `json:"partial,omitempty" yaml:"partial,omitempty"`
}

// DocumentHead is the plan's document with no changes, for a writer that
// writes the changes of Shown in their place one at a time: the document
// of a large plan is not held whole. The changes are every one but the
// unchanged (unless shown), each with its before and after.
func (p *Plan) DocumentHead() PlanDocument {
	return PlanDocument{FormatVersion: PlanFormatVersion, Changes: []Step{}, Summary: p.Summary(), LinksVerified: p.Verification,
		Unmanaged: p.Unmanaged, Partial: p.Unread > 0}
}

// Shown yields the changes of the plan's document one by one, each with
// its before and after.
func (p *Plan) Shown(showUnchanged bool) iter.Seq[Step] {
	return func(yield func(Step) bool) {
		for i := range p.Changes {
			if ch := &p.Changes[i]; ch.Action != ActionUnchanged || showUnchanged {
				if !yield(ch.Step()) {
					return
				}
			}
		}
	}
}

// Summary counts the plan's changes by action, every action included.
func (p *Plan) Summary() map[Action]int {
	sum := p.Counts()
	for _, a := range []Action{ActionCreate, ActionUpdate, ActionUnchanged, ActionDelete} {
		if _, ok := sum[a]; !ok {
			sum[a] = 0 // every action is in the summary, counted or not
		}
	}
	return sum
}
