package statestore

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Head is what a state says of itself before what it records: its
// format, the platform and client id it belongs to, where it stands in
// its history (lineage and serial), how many runs that may have changed
// the platform wrote it, and the last lock broken of it. The rules on it
// (Save, CopyRefusal, Trusts) are the state's protocol, whatever it
// records.
type Head struct {
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
	// plan that trusted none of the state's records wrote the state after
	// it (Verified), no plan trusts them: the broken holder may have
	// written the platform after it last wrote the state.
	Break *BreakRecord `json:"break,omitempty"`
	// Commit is the commit whose file the last apply carried out, where
	// the run knew it (a CI job): a run of an older commit's file is
	// refused (CommitRefusal).
	Commit *Commit `json:"commit,omitempty"`
}

// BreakRecord is a lock broken: whose, how stale, by whom, and whether a
// plan that read everything has written the state since.
type BreakRecord struct {
	Broken
	// StaleSeconds is Broken.Age, in a state file.
	StaleSeconds int64  `json:"staleSeconds"`
	By           Holder `json:"by"`
	Verified     bool   `json:"verified"`
}

// NewLineage draws a state's lineage: 128 random bits.
func NewLineage() string { return RandomID() }

// Trusts reports whether a plan may trust what the state records, and
// records broken, a lock that the run of by broke as it took the lock
// (nil where it broke none): not after a break until a plan that read
// everything wrote the state.
func (h *Head) Trusts(broken *Broken, by Holder) bool {
	if broken != nil {
		h.Break = &BreakRecord{Broken: *broken, StaleSeconds: int64(broken.Age.Seconds()), By: by}
	}
	return h.Break == nil || h.Break.Verified
}

// ErrStateMoved is a state that another writer replaced while the run
// held it: the run does not write over it.
var ErrStateMoved = errors.New("the state changed since this run read it")

// Save writes the state, head and what write writes after reading head,
// with head's serial one more (and a lineage drawn where it has none),
// over version, unless another writer put a state in its place (a CI
// cache restored over it, a run that broke this run's lock, a copy by
// hand): a state older than the one the run started from is never
// written over a newer one, nor one run's over another's. verified marks
// the head's break verified: the run read everything. Head is as it was
// where the write fails.
func Save(ctx context.Context, store Storage, head *Head, version Version, verified bool, write func(io.Writer) error) (Version, error) {
	if head.Lineage == "" {
		head.Lineage = NewLineage()
	}
	was := *head
	head.Serial++
	if verified && head.Break != nil {
		b := *head.Break
		b.Verified = true
		head.Break = &b
	}
	v, err := store.Write(ctx, version, write)
	if err != nil {
		*head = was
		if errors.Is(err, ErrConflict) {
			return NoVersion, fmt.Errorf("%w (%s): not written over; run again to plan from the state it holds now", ErrStateMoved, store)
		}
		return NoVersion, err
	}
	return v, nil
}

// ErrStateRefused is a state that state push does not copy over another.
var ErrStateRefused = errors.New("the state is not copied")

// CopyRefusal is why a state of src is not copied over the state of dst
// in to (read with err: one that cannot be read), nil where it may be:
// never over another platform's or client id's, and unless force never
// over one of another lineage, a higher serial, or more applies.
func CopyRefusal(src, dst *Head, err error, to Storage, force bool) error {
	esc := BucketText
	switch {
	case err != nil && !force:
		return fmt.Errorf("%w: %s holds a state that cannot be read (%v); --force writes over it", ErrStateRefused, to, err)
	case err != nil:
		return nil
	case dst.BaseURL != src.BaseURL || dst.ClientID != src.ClientID:
		return fmt.Errorf("%w: it belongs to %s as %s, and %s to %s as %s", ErrStateRefused, esc(src.BaseURL), esc(src.ClientID), to, esc(dst.BaseURL), esc(dst.ClientID))
	case force:
		return nil
	case dst.Lineage != "" && dst.Lineage != src.Lineage:
		return fmt.Errorf("%w: it is of lineage %s, and %s of lineage %s (another state); --force writes over it", ErrStateRefused, esc(src.Lineage), to, esc(dst.Lineage))
	case dst.Serial > src.Serial:
		return fmt.Errorf("%w: its serial is %d, and %s is at %d (an older copy over a newer state); --force writes over it", ErrStateRefused, src.Serial, to, dst.Serial)
	case dst.Applies > src.Applies:
		// Dry runs raise the serial alone: a copy that dry runs carried
		// on past an apply it never saw is older all the same.
		return fmt.Errorf("%w: it records %d applies, and %s %d (a copy made before an apply it does not know of); --force writes over it", ErrStateRefused, src.Applies, to, dst.Applies)
	}
	return nil
}
