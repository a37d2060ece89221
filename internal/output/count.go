package output

import "fmt"

// Count is n and the noun, in the plural unless n is 1: "1 read",
// "3 problems".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
