package gitexec

import "testing"

// TestMissingFilter: git's complaints about a filter program that is not
// installed are recognised; other failures are not.
func TestMissingFilter(t *testing.T) {
	cases := []struct{ stderr, driver, command, program string }{
		{"git-lfs filter-process: 1: git-lfs: not found\nfatal: the remote end hung up unexpectedly\n", "", "git-lfs filter-process", "git-lfs"},
		{"git-lfs clean -- 'a.bin': 1: git-lfs: not found\nerror: external filter 'git-lfs clean -- %f' failed 127\nfatal: a.bin: clean filter 'lfs' failed\n", "lfs", "git-lfs clean -- %f", "git-lfs"},
		{"error: cannot run git-crypt: No such file or directory\nerror: external filter 'git-crypt clean' failed\n", "", "git-crypt clean", "git-crypt"},
	}
	for _, c := range cases {
		m := missingFilter(c.stderr)
		if m == nil || m.Driver != c.driver || m.Command != c.command || m.Program != c.program {
			t.Errorf("missingFilter(%q) = %+v", c.stderr, m)
		}
	}
	for _, s := range []string{"", "fatal: not a git repository\n", "sh: 1: foo: not found\n"} {
		if m := missingFilter(s); m != nil {
			t.Errorf("missingFilter(%q) = %+v, want nil", s, m)
		}
	}
}
