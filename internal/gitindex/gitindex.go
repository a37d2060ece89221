// Package gitindex tells whether git tracks a file, by reading the
// index of the repository the file lies in: wbsctl starts no child
// process, git included.
package gitindex

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Tracked reports whether the git repository that path lies in tracks
// it: whether its index has an entry of that name. A path in no
// repository, or in one without an index, is not tracked.
func Tracked(path string) (bool, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false, err
	}
	// The index names files by their path from the work tree's root,
	// as the work tree's folders are named, links resolved.
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil {
		return false, nil // no folder, so no tracked file in it
	}
	abs = filepath.Join(dir, filepath.Base(abs))
	root, gitDir, err := findRepository(dir)
	if err != nil || root == "" {
		return false, err
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil {
		return false, err
	}
	f, err := os.Open(filepath.Join(gitDir, "index"))
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close()
	hashSize := 20
	if config, err := os.ReadFile(filepath.Join(gitDir, "config")); err == nil && bytes.Contains(config, []byte("objectformat = sha256")) {
		hashSize = 32
	}
	found, err := hasEntry(bufio.NewReader(f), filepath.ToSlash(rel), hashSize)
	if err != nil {
		return false, fmt.Errorf("reading the git index of %s: %w", root, err)
	}
	return found, nil
}

// findRepository returns the work tree's root that dir lies in and its
// git folder: where .git is a folder, or a file naming one (a linked
// work tree, a submodule). Neither is "" when none is found.
func findRepository(dir string) (root, gitDir string, err error) {
	for {
		dotGit := filepath.Join(dir, ".git")
		if info, err := os.Stat(dotGit); err == nil {
			if info.IsDir() {
				return dir, dotGit, nil
			}
			text, err := os.ReadFile(dotGit)
			if err != nil {
				return "", "", err
			}
			target, ok := strings.CutPrefix(strings.TrimSpace(string(text)), "gitdir:")
			if !ok {
				return "", "", fmt.Errorf("%s names no git folder", dotGit)
			}
			target = strings.TrimSpace(target)
			if !filepath.IsAbs(target) {
				target = filepath.Join(dir, target)
			}
			return dir, target, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", "", nil
		}
		dir = parent
	}
}

// hasEntry reports whether the index read from r has an entry named
// name: versions 2, 3 and 4 of git's index format.
func hasEntry(r io.Reader, name string, hashSize int) (bool, error) {
	var head struct {
		Signature [4]byte
		Version   uint32
		Entries   uint32
	}
	if err := binary.Read(r, binary.BigEndian, &head); err != nil {
		return false, err
	}
	if string(head.Signature[:]) != "DIRC" || head.Version < 2 || head.Version > 4 {
		return false, fmt.Errorf("not an index of version 2 to 4")
	}
	fixed := 40 + hashSize + 2 // the times, ids, mode and size; the hash; the flags
	entry := make([]byte, fixed+2)
	var previous []byte
	br := bufio.NewReader(r)
	for range head.Entries {
		if _, err := io.ReadFull(br, entry[:fixed]); err != nil {
			return false, err
		}
		n := fixed
		flags := binary.BigEndian.Uint16(entry[fixed-2 : fixed])
		if head.Version >= 3 && flags&0x4000 != 0 {
			if _, err := io.ReadFull(br, entry[fixed:fixed+2]); err != nil {
				return false, err
			}
			n += 2
		}
		var path []byte
		if head.Version == 4 {
			// The path is the previous one less its last strip bytes,
			// then the rest given here.
			strip, err := readOffset(br)
			if err != nil {
				return false, err
			}
			if strip > uint64(len(previous)) {
				return false, errors.New("a path prefix longer than the path before it")
			}
			rest, err := br.ReadBytes(0)
			if err != nil {
				return false, err
			}
			path = append(previous[:len(previous)-int(strip):len(previous)-int(strip)], rest[:len(rest)-1]...)
			previous = path
		} else {
			rest, err := br.ReadBytes(0)
			if err != nil {
				return false, err
			}
			path = rest[:len(rest)-1]
			// Padded with NULs to a multiple of eight bytes, the one read
			// included.
			if _, err := br.Discard((8 - (n+len(rest))%8) % 8); err != nil {
				return false, err
			}
		}
		if string(path) == name {
			return true, nil
		}
	}
	return false, nil
}

// readOffset reads git's variable-length offset of a version 4 index.
func readOffset(r io.ByteReader) (uint64, error) {
	b, err := r.ReadByte()
	if err != nil {
		return 0, err
	}
	v := uint64(b & 0x7f)
	for b&0x80 != 0 {
		if b, err = r.ReadByte(); err != nil {
			return 0, err
		}
		v = ((v + 1) << 7) | uint64(b&0x7f)
	}
	return v, nil
}
