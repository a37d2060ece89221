package root

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the most lines a function of the command packages
// spans, from its func line to its closing brace (issue 52).
const maxFuncLines = 60

// No function of the command packages is over maxFuncLines lines, so that
// each reads as its steps; the NewCmd… constructors aside, which are flag
// declarations and help text.
func TestCommandFunctionsAreShort(t *testing.T) {
	const cmdDir = ".." // internal/cmd
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(cmdDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != cmdDir && (strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_") || d.Name() == "testdata") {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		files++
		name := "internal/cmd/" + filepath.ToSlash(strings.TrimPrefix(p, cmdDir+string(filepath.Separator)))
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || (fn.Recv == nil && strings.HasPrefix(fn.Name.Name, "NewCmd")) {
				continue
			}
			start := fset.Position(fn.Pos()) // the func keyword, not the doc comment
			lines := fset.Position(fn.Body.Rbrace).Line - start.Line + 1
			if lines > maxFuncLines {
				t.Errorf("%s:%d: %s spans %d lines, over %d: split it into functions named for its steps",
					name, start.Line, funcName(fn), lines, maxFuncLines)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 20 {
		t.Fatalf("read %d files under internal/cmd, not the command packages", files)
	}
}

// funcName is fn's name, with its receiver's type for a method:
// (*Options).paginate.
func funcName(fn *ast.FuncDecl) string {
	if fn.Recv == nil || len(fn.Recv.List) == 0 {
		return fn.Name.Name
	}
	typ := fn.Recv.List[0].Type
	star := ""
	if s, ok := typ.(*ast.StarExpr); ok {
		star, typ = "*", s.X
	}
	switch x := typ.(type) {
	case *ast.IndexExpr: // a generic type's method
		typ = x.X
	case *ast.IndexListExpr:
		typ = x.X
	}
	if id, ok := typ.(*ast.Ident); ok {
		return fmt.Sprintf("(%s%s).%s", star, id.Name, fn.Name.Name)
	}
	return fn.Name.Name
}
