package engine

import (
	"bufio"
	"encoding/json"
	"io"
	"iter"
	"strconv"
)

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
	doc := PlanDocument{FormatVersion: PlanFormatVersion, Changes: []Change{}, Summary: p.Summary()}
	for ch := range p.Shown(showUnchanged) {
		doc.Changes = append(doc.Changes, ch)
	}
	return doc
}

// Shown yields the changes of the plan's document one by one, each with
// its before and after.
func (p *Plan) Shown(showUnchanged bool) iter.Seq[Change] {
	return func(yield func(Change) bool) {
		for _, ch := range p.Changes {
			if ch.Action != ActionUnchanged || showUnchanged {
				ch.Before, ch.After = ch.Held(), ch.Desired()
				if !yield(ch) {
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

// WriteDocumentJSON writes the plan's document to w in the bytes a
// json.Encoder with a two-space indent writes for Document, a change at a
// time: the document of a large plan is not held whole.
func (p *Plan) WriteDocumentJSON(w io.Writer, showUnchanged bool) error {
	bw := bufio.NewWriter(w)
	bw.WriteString("{\n  \"formatVersion\": " + strconv.Itoa(PlanFormatVersion) + ",\n  \"changes\": ")
	if err := writeArrayMember(bw, p.Shown(showUnchanged)); err != nil {
		return err
	}
	sum, err := json.MarshalIndent(p.Summary(), "  ", "  ")
	if err != nil {
		return err
	}
	bw.WriteString(",\n  \"summary\": ")
	bw.Write(sum)
	bw.WriteString("\n}\n")
	return bw.Flush()
}

// writeArrayMember writes items as the array that is the value of a
// member of a top-level object, in the bytes json.MarshalIndent with a
// two-space indent writes for it: an item at a time, "[]" for none.
func writeArrayMember[T any](w *bufio.Writer, items iter.Seq[T]) error {
	w.WriteByte('[')
	first := true
	for item := range items {
		b, err := json.MarshalIndent(item, "    ", "  ")
		if err != nil {
			return err
		}
		if !first {
			w.WriteByte(',')
		}
		first = false
		w.WriteString("\n    ")
		w.Write(b)
	}
	if !first {
		w.WriteString("\n  ")
	}
	w.WriteByte(']')
	return nil
}
