// Package jsontest draws JSON values for property tests.
package jsontest

import "pgregory.net/rapid"

// Value draws a JSON value of every kind (null, boolean, integer, number,
// string, array, object), nested at most depth deep, its strings and
// member names drawn from text.
func Value(depth int, text *rapid.Generator[string]) *rapid.Generator[any] {
	return rapid.Custom(func(t *rapid.T) any {
		kinds := 5
		if depth > 0 {
			kinds = 7
		}
		switch rapid.IntRange(0, kinds-1).Draw(t, "kind") {
		case 0:
			return nil
		case 1:
			return rapid.Bool().Draw(t, "bool")
		case 2:
			return rapid.IntRange(-1<<40, 1<<40).Draw(t, "int")
		case 3:
			return rapid.Float64().Draw(t, "float")
		case 4:
			return text.Draw(t, "string")
		case 5:
			return rapid.SliceOfN(Value(depth-1, text), 0, 3).Draw(t, "list")
		}
		return rapid.MapOfN(text, Value(depth-1, text), 0, 3).Draw(t, "object")
	})
}
