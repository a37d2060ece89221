package credentials

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestWithoutAdvice(t *testing.T) {
	wrapped := fmt.Errorf("saving: %w", ErrKeyringUnavailable)
	if got := WithoutAdvice(wrapped); got != "saving: the OS keyring is not available (no D-Bus session)" {
		t.Errorf("WithoutAdvice(%q) = %q", wrapped, got)
	}
	// The error itself still gives the advice, for the commands that read a secret.
	if !strings.Contains(ErrKeyringUnavailable.Error(), "--insecure-storage") {
		t.Errorf("ErrKeyringUnavailable lost its advice: %q", ErrKeyringUnavailable)
	}
	other := errors.New("OS keyring: no answer")
	if got := WithoutAdvice(other); got != other.Error() {
		t.Errorf("WithoutAdvice(%q) = %q", other, got)
	}
}
