package engine

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"iter"
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
	doc := p.documentHead()
	for ch := range p.Shown(showUnchanged) {
		doc.Changes = append(doc.Changes, ch)
	}
	return doc
}

// documentHead is the plan's document without its changes.
func (p *Plan) documentHead() PlanDocument {
	return PlanDocument{FormatVersion: PlanFormatVersion, Changes: []Change{}, Summary: p.Summary()}
}

// DocumentEnd is what the plan's document holds besides its changes, as
// -o ndjson writes it after them and -o yaml below them.
func (p *Plan) DocumentEnd() map[string]any {
	return map[string]any{"formatVersion": PlanFormatVersion, "summary": p.Summary()}
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
	if err := writeWithArray(bw, p.documentHead(), "changes", p.Shown(showUnchanged)); err != nil {
		return err
	}
	return bw.Flush()
}

// writeWithArray writes v, with items as the array of its top-level
// member name, in the bytes json.MarshalIndent with a two-space indent
// writes for it and a newline: v is marshalled with that array empty, and
// the items are written in its place an item at a time. The member is
// found by its line at the top level's indent: a string, whose quotes and
// newlines are escaped, cannot spell it, nor a member nested deeper.
func writeWithArray[T any](w *bufio.Writer, v any, name string, items iter.Seq[T]) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	member := "\n  \"" + name + "\": "
	before, after, ok := bytes.Cut(b, []byte(member+"[]"))
	if !ok {
		return fmt.Errorf("%T has no empty top-level array %s", v, name)
	}
	w.Write(before)
	w.WriteString(member + "[")
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
	w.Write(after)
	return w.WriteByte('\n')
}
