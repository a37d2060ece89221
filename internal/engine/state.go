package engine

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"

	"github.com/wbsctl/wbsctl/internal/atomicfile"
	"github.com/wbsctl/wbsctl/internal/filelock"
	"github.com/wbsctl/wbsctl/internal/strictjson"
	"github.com/wbsctl/wbsctl/sdk"
)

// StateFormatVersion is the version of the state file.
const StateFormatVersion = 1

// StateFile is what the platform held for each element after the last
// apply, as far as apply wrote or read it, so that a re-apply reads an
// element's links only where the file's differ from the state's. It
// belongs to one platform and client id.
type StateFile struct {
	FormatVersion int              `json:"formatVersion"`
	BaseURL       string           `json:"baseUrl"`
	ClientID      string           `json:"clientId"`
	Elements      map[string]State `json:"elements"`
}

// NewState returns an empty state of a platform and client id.
func NewState(baseURL, clientID string) *StateFile {
	return &StateFile{FormatVersion: StateFormatVersion, BaseURL: baseURL, ClientID: clientID, Elements: map[string]State{}}
}

// ErrStateUnusable is a state file that is damaged, of another version,
// or of another platform or client id.
var ErrStateUnusable = errors.New("the state file cannot be used")

// LoadState reads the state of path; a missing file is an empty state.
func LoadState(path, baseURL, clientID string) (*StateFile, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return NewState(baseURL, clientID), nil
	}
	if err != nil {
		return nil, err
	}
	st, err := parseState(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v (run with --refresh to rebuild it)", ErrStateUnusable, path, err)
	}
	if st.BaseURL != baseURL || st.ClientID != clientID {
		return nil, fmt.Errorf("%w: %s belongs to %s as %s, not %s as %s (use another file, or --refresh to start it anew)",
			ErrStateUnusable, path, st.BaseURL, st.ClientID, baseURL, clientID)
	}
	return st, nil
}

func parseState(b []byte) (*StateFile, error) {
	var st StateFile
	if err := strictjson.Unmarshal(b, &st); err != nil {
		return nil, err
	}
	if st.FormatVersion != StateFormatVersion {
		return nil, fmt.Errorf("format version %d, want %d", st.FormatVersion, StateFormatVersion)
	}
	if st.Elements == nil {
		return nil, errors.New("no elements member")
	}
	for code, el := range st.Elements {
		if len(el.BusinessOrganizations) > 0 {
			el.BusinessOrganizations = shareLinks(el.BusinessOrganizations)
			st.Elements[code] = el
		}
	}
	return &st, nil
}

// Save writes the state atomically, 0600.
func (s *StateFile) Save(path string) error {
	f, err := atomicfile.Create(path, 0o600)
	if err != nil {
		return err
	}
	defer f.Abort()
	w := bufio.NewWriter(f)
	if err := s.write(w); err != nil {
		return err
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Commit()
}

// write writes s as json.Marshal does, an element at a time: neither the
// whole file nor a sorted copy of the map is held (at 200,000 elements
// json.Marshal held 45 MB more).
func (s *StateFile) write(w *bufio.Writer) error {
	head, err := json.Marshal(struct {
		FormatVersion int    `json:"formatVersion"`
		BaseURL       string `json:"baseUrl"`
		ClientID      string `json:"clientId"`
	}{s.FormatVersion, s.BaseURL, s.ClientID})
	if err != nil {
		return err
	}
	w.Write(head[:len(head)-1])
	if s.Elements == nil {
		_, err := w.WriteString(`,"elements":null}`)
		return err
	}
	w.WriteString(`,"elements":{`)
	for i, code := range slices.Sorted(maps.Keys(s.Elements)) {
		if i > 0 {
			w.WriteByte(',')
		}
		k, err := json.Marshal(code)
		if err != nil {
			return err
		}
		v, err := json.Marshal(s.Elements[code])
		if err != nil {
			return err
		}
		w.Write(k)
		w.WriteByte(':')
		w.Write(v)
	}
	_, err = w.WriteString("}}")
	return err
}

// Known returns what the state recorded, by code, for PlanOptions.Known.
func (s *StateFile) Known() map[string]State {
	return s.Elements
}

// Begin records, before any write, what the plan read: the unchanged
// elements as they are, and nothing for those about to change, so that an
// interrupted run leaves no entry that may no longer hold.
func (s *StateFile) Begin(plan *Plan) {
	for _, ch := range plan.Changes {
		if ch.Action == ActionUnchanged && ch.After != nil {
			s.Elements[ch.Code] = *ch.After
		} else {
			delete(s.Elements, ch.Code)
		}
	}
}

// Finish records what was done: an element changed as planned holds the
// plan's after; a failed or skipped change leaves no entry, so that the
// next run reads it.
func (s *StateFile) Finish(plan *Plan, results *Results) {
	for i, ch := range plan.Changes {
		if i >= results.Len() || results.At(i).Status != StatusOK {
			delete(s.Elements, ch.Code)
			continue
		}
		switch {
		case ch.Action == ActionDelete:
			delete(s.Elements, ch.Code)
		case ch.After != nil:
			s.Elements[ch.Code] = *ch.After
		}
	}
}

// sameLinks reports whether two lists hold the same set of links.
func sameLinks(a, b []sdk.BusinessOrganization) bool {
	a, b = dedupe(a), dedupe(b)
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

// ErrStateLocked is a state file that another apply is using.
var ErrStateLocked = errors.New("another wbsctl apply is using the state file")

// LockState locks the state file of path against a second apply, which
// fails at once, for as long as the process holds it; unlock ends it. The
// lock is on path.lock, which stays behind, empty: a lock that a killed
// process held ends with it.
func LockState(path string) (unlock func(), err error) {
	unlock, err = filelock.TryLock(path)
	if errors.Is(err, filelock.ErrLocked) {
		return nil, fmt.Errorf("%w: %s (locked through %s.lock); wait for it to end", ErrStateLocked, path, path)
	}
	return unlock, err
}
