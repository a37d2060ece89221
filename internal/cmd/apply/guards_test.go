package apply_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Every guard patch that scripts/guards takes out still fits the code:
// the lines each hunk expects (its context and the lines it removes) are
// in the file exactly once, as git apply needs them. A patch that no
// longer fits would fail the guards' CI step long after the change that
// moved its lines.
func TestGuardPatchesFitTheCode(t *testing.T) {
	patches, _ := filepath.Glob("testdata/guards/*.patch")
	if len(patches) < 16 {
		t.Fatalf("%d guard patches, want 16", len(patches))
	}
	for _, p := range patches {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		var file, code string
		var block []string
		hunks := 0
		check := func() {
			if len(block) == 0 {
				return
			}
			hunks++
			if n := strings.Count(code, strings.Join(block, "\n")+"\n"); n != 1 {
				t.Errorf("%s: %s holds the lines of a hunk %d times, want once:\n%s", filepath.Base(p), file, n, strings.Join(block, "\n"))
			}
			block = nil
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			switch {
			case strings.HasPrefix(line, "--- a/"):
				check()
				file = strings.TrimPrefix(line, "--- a/")
				c, err := os.ReadFile(filepath.Join("../../..", file))
				if err != nil {
					t.Fatalf("%s: %v", p, err)
				}
				code = string(c)
			case strings.HasPrefix(line, "@@"):
				check()
			case strings.HasPrefix(line, " "), strings.HasPrefix(line, "-") && !strings.HasPrefix(line, "---"):
				block = append(block, line[1:])
			}
		}
		check()
		if hunks == 0 {
			t.Errorf("%s has no hunk", p)
		}
	}
}
