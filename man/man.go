// Package man holds the generated man pages git-nudge.1 and git-autodev.1.
// Regenerate them with "go generate ./..." after changing the command line;
// a test fails while they are stale.
package man

//go:generate go run ../internal/tools/genman .
