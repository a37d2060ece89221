package engine

// PlanFormatVersion is the version of the machine-readable plan; it
// changes only when a member changes meaning or goes away.
const PlanFormatVersion = 1

// PlanDocument is the machine-readable plan of -o json, yaml and ndjson.
type PlanDocument struct {
	FormatVersion int            `json:"formatVersion" yaml:"formatVersion"`
	Changes       []Change       `json:"changes" yaml:"changes"`
	Summary       map[Action]int `json:"summary" yaml:"summary"`
}

// Document returns the machine-readable form of plan: every change but the
// unchanged ones (unless showUnchanged), with a before and an after per
// step, and the counts of every action.
func (p *Plan) Document(showUnchanged bool) PlanDocument {
	doc := PlanDocument{FormatVersion: PlanFormatVersion, Changes: []Change{}, Summary: p.Counts()}
	for _, ch := range p.Changes {
		if ch.Action != ActionUnchanged || showUnchanged {
			ch.Before, ch.After = ch.Held(), ch.Desired()
			doc.Changes = append(doc.Changes, ch)
		}
	}
	for _, a := range []Action{ActionCreate, ActionUpdate, ActionUnchanged, ActionDelete} {
		if _, ok := doc.Summary[a]; !ok {
			doc.Summary[a] = 0 // every action is in the summary, counted or not
		}
	}
	return doc
}
