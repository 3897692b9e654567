package dashboard

import (
	"errors"
	"fmt"
	"html"
	"net/url"
	"os"
	"path/filepath"

	"github.com/nudgethis/git-nudge/internal/journal"
	"github.com/nudgethis/git-nudge/internal/proc"
)

// PrivateDir is the folder of the state folder that only the user may
// enter (0700): the page that carries the token to the browser is there.
const PrivateDir = "private"

// OpenFileName is the page, in PrivateDir, that sends the browser to the
// address with the token.
const OpenFileName = "dashboard-open.html"

// writeOpenFile writes the 0600 page that sends a browser to addr (which
// carries the token), in stateDir/private (0700), and returns its path.
// The browser is then started with this file's name only, so the token
// never appears in another process's command line or environment (which
// any local user can read in /proc), as Jupyter does it.
func writeOpenFile(stateDir, addr string) (string, error) {
	dir := filepath.Join(stateDir, PrivateDir)
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return "", err
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return "", err
	}
	if !fi.IsDir() {
		return "", &journal.NotRegularError{Path: dir, What: "not a folder"}
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", err
	}
	path := filepath.Join(dir, OpenFileName)
	f, err := journal.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", err
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return "", err
	}
	a := html.EscapeString(addr)
	_, err = fmt.Fprintf(f, `<!doctype html>
<html><head><meta charset="utf-8">
<meta http-equiv="refresh" content="0;url=%s">
<title>git nudge dashboard</title></head>
<body><p>Opening the <a href="%s">git nudge dashboard</a>.</p></body></html>
`, a, a)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return path, err
}

// openBrowser opens addr through the private page ($BROWSER, else
// xdg-open or open, given the page's file: address). It returns the
// page's path (to remove when the server stops), or an error.
func openBrowser(stateDir, addr string) (string, error) {
	path, err := writeOpenFile(stateDir, addr)
	if err != nil {
		return "", err
	}
	u := url.URL{Scheme: "file", Path: path}
	if !proc.OpenURL(u.String()) {
		return path, errors.New("no browser found ($BROWSER, xdg-open or open)")
	}
	return path, nil
}
