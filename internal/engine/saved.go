package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"

	"github.com/wbsctl/wbsctl/internal/config"
	"github.com/wbsctl/wbsctl/sdk"
)

// SavedPlanVersion is the version of a saved plan's format.
const SavedPlanVersion = 1

// SavedPlan is a plan written by apply --dry-run --out, to be carried out
// exactly by apply --plan once reviewed. It names the platform and client
// id it was made for and the digest of the file it was made from, and
// holds each step with what the platform held before it. It holds no
// secret or token.
type SavedPlan struct {
	FormatVersion int         `json:"formatVersion"`
	BaseURL       string      `json:"baseUrl"`
	ClientID      string      `json:"clientId"`
	File          string      `json:"file"`
	FileDigest    string      `json:"fileDigest"`
	CreatedAt     time.Time   `json:"createdAt"`
	Steps         []SavedStep `json:"steps"`
}

// SavedStep is one step of a saved plan: the change, and the record it
// came from, which the step's requests are made of again.
type SavedStep struct {
	Change
	Record *savedRecord `json:"record,omitempty"`
}

// savedRecord is a Record with what it leaves out left out.
type savedRecord struct {
	Code          string                      `json:"wbsElementCode"`
	Description   *string                     `json:"description,omitempty"`
	IsActive      *bool                       `json:"isActive,omitempty"`
	Organizations *[]sdk.BusinessOrganization `json:"businessOrganizations,omitempty"`
}

// FileDigest is the digest a saved plan records of its file.
func FileDigest(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Save returns the saved form of plan: its steps other than the unchanged.
func (p *Plan) Save(baseURL, clientID, file, digest string, now time.Time) *SavedPlan {
	sp := &SavedPlan{FormatVersion: SavedPlanVersion, BaseURL: baseURL, ClientID: clientID, File: file, FileDigest: digest,
		CreatedAt: now.UTC().Truncate(time.Second), Steps: []SavedStep{}}
	for _, ch := range p.Changes {
		if ch.Action == ActionUnchanged {
			continue
		}
		step := SavedStep{Change: ch}
		if r := ch.record; r != nil {
			step.Record = &savedRecord{Code: r.Code, Description: r.Description, IsActive: r.IsActive}
			if r.OrganizationsSet {
				orgs := append([]sdk.BusinessOrganization{}, r.Organizations...)
				step.Record.Organizations = &orgs
			}
		}
		sp.Steps = append(sp.Steps, step)
	}
	return sp
}

// Write writes the saved plan atomically, 0600.
func (sp *SavedPlan) Write(path string) error {
	b, err := json.MarshalIndent(sp, "", "  ")
	if err != nil {
		return err
	}
	return config.WriteFileAtomic(path, append(b, '\n'))
}

// ErrPlanUnusable is a saved plan that is damaged, of another version, or
// made for another platform or client id.
var ErrPlanUnusable = errors.New("the saved plan cannot be used")

// ReadSavedPlan reads a saved plan made for baseURL and clientID.
func ReadSavedPlan(path, baseURL, clientID string) (*SavedPlan, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	sp, err := parseSavedPlan(b)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrPlanUnusable, path, err)
	}
	if sp.BaseURL != baseURL || sp.ClientID != clientID {
		return nil, fmt.Errorf("%w: %s was made for %s as %s, not %s as %s", ErrPlanUnusable, path, sp.BaseURL, sp.ClientID, baseURL, clientID)
	}
	return sp, nil
}

func parseSavedPlan(b []byte) (*SavedPlan, error) {
	var sp SavedPlan
	if err := DecodeStrictAny(b, &sp); err != nil {
		return nil, err
	}
	if sp.FormatVersion != SavedPlanVersion {
		return nil, fmt.Errorf("format version %d, want %d", sp.FormatVersion, SavedPlanVersion)
	}
	for i, st := range sp.Steps {
		switch {
		case st.Action == ActionDelete && st.Before != nil:
		case (st.Action == ActionCreate || st.Action == ActionUpdate) && st.Record != nil && st.Record.Code == st.Code &&
			(st.Action == ActionCreate || st.Before != nil):
		default:
			return nil, fmt.Errorf("step %d (%s %q) is incomplete", i+1, st.Action, st.Code)
		}
	}
	return &sp, nil
}

// ErrPlanStale is a saved plan whose elements the platform no longer holds
// as the plan found them.
var ErrPlanStale = errors.New("the platform changed since the plan was made")

// Verify reads the platform once (the element list, and the links of the
// steps that touch links) and returns the plan of exactly sp's steps when
// every element is as the plan found it, or an error matching
// ErrPlanStale that names the elements that moved.
func (sp *SavedPlan) Verify(ctx context.Context, c *sdk.Client, opts PlanOptions) (*Plan, error) {
	opts = opts.withDefaults()
	current, err := readElements(ctx, c, listOptions(opts.PageSize, opts.MaxPages))
	if err != nil {
		return nil, err
	}
	plan := &Plan{}
	var moved []string
	var needLinks []int
	for _, st := range sp.Steps {
		el, exists := current[st.Code]
		switch st.Action {
		case ActionCreate:
			if exists {
				moved = append(moved, st.Code+" (now exists)")
				continue
			}
			r := st.Record.record(st.Line)
			plan.Changes = append(plan.Changes, Change{Action: ActionCreate, Line: st.Line, Code: st.Code, record: r, After: recordState(r, nil)})
		case ActionDelete:
			if !exists || !sameListed(platformState(el), st.Before) {
				moved = append(moved, st.Code+" (deleted or changed)")
				continue
			}
			plan.Changes = append(plan.Changes, Change{Action: ActionDelete, Code: st.Code, Before: platformState(el)})
		case ActionUpdate:
			if !exists || !sameListed(platformState(el), st.Before) {
				moved = append(moved, st.Code+" (deleted or changed)")
				continue
			}
			r := st.Record.record(st.Line)
			plan.Changes = append(plan.Changes, diffElement(r, el))
			// Links are read only for the steps that change them: the
			// others send nothing about links.
			if r.OrganizationsSet && (len(st.AddOrganizations) > 0 || len(st.RemoveOrganizations) > 0) {
				needLinks = append(needLinks, len(plan.Changes)-1)
			} else if r.OrganizationsSet {
				// What the links are now was not read: the state does
				// not learn it from this run.
				r.OrganizationsSet = false
				plan.Changes[len(plan.Changes)-1].After.BusinessOrganizations = nil
			}
		}
	}
	if len(moved) == 0 {
		if err := planLinks(ctx, c, plan.Changes, needLinks, opts); err != nil {
			return nil, err
		}
		want := map[string]SavedStep{}
		for _, st := range sp.Steps {
			want[st.Code] = st
		}
		for _, ch := range plan.Changes {
			if ch.Action == ActionUpdate || ch.Action == ActionUnchanged {
				st := want[ch.Code]
				if !sameLinkState(ch.Before, st.Before) || ch.Action != st.Action {
					moved = append(moved, ch.Code+" (its links changed)")
				}
			}
		}
	}
	if len(moved) > 0 {
		sort.Strings(moved)
		return nil, fmt.Errorf("%w: %d elements moved: %v; nothing was sent, make the plan again", ErrPlanStale, len(moved), moved)
	}
	return plan, nil
}

func (r *savedRecord) record(line int) *Record {
	rec := &Record{Line: line, Code: r.Code, Description: r.Description, IsActive: r.IsActive}
	if r.Organizations != nil {
		rec.Organizations, rec.OrganizationsSet = *r.Organizations, true
	}
	return rec
}

// sameListed compares what the element list shows of two states: the
// description and the active flag.
func sameListed(a, b *State) bool {
	return b != nil && deref(a.Description) == deref(b.Description) && (a.Description == nil) == (b.Description == nil) && a.IsActive == b.IsActive
}

// sameLinkState compares the links of two states where the plan read them.
func sameLinkState(now, then *State) bool {
	if then == nil || then.BusinessOrganizations == nil {
		return true // the plan did not read them
	}
	return now != nil && now.BusinessOrganizations != nil && sameLinks(now.BusinessOrganizations, then.BusinessOrganizations)
}
