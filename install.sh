#!/bin/sh
# Build git-nudge and git-autodev and install them, their man pages and their
# shell completions under PREFIX (default: $HOME/.local). Needs Go and git.
# Safe to run again: it replaces what it installed before.
set -eu

PREFIX=${PREFIX:-"$HOME/.local"}
here=$(cd "$(dirname "$0")" && pwd)
cd "$here"

command -v go >/dev/null 2>&1 || { echo "install.sh: Go is not on PATH; install Go 1.26 or newer first" >&2; exit 1; }
command -v git >/dev/null 2>&1 || { echo "install.sh: git is not on PATH; install git first" >&2; exit 1; }

version=$(git describe --tags --always --dirty 2>/dev/null || echo dev)
bin="$PREFIX/bin"
man1="$PREFIX/share/man/man1"
bashc="$PREFIX/share/bash-completion/completions"
zshc="$PREFIX/share/zsh/site-functions"
fishc="$PREFIX/share/fish/vendor_completions.d"
# fish loads a completion file only for the command it is named after, so
# "git nudge <Tab>" (a completion of git) would find nothing before
# git-nudge itself had been completed once: a copy in vendor_conf.d, read
# when fish starts, registers it for git too.
fishconf="$PREFIX/share/fish/vendor_conf.d"
mkdir -p "$bin" "$man1" "$bashc" "$zshc" "$fishc" "$fishconf"

for tool in git-nudge git-autodev; do
	go build -trimpath -ldflags "-X github.com/nudgethis/git-nudge/internal/cli.Version=$version" \
		-o "$bin/$tool.tmp" "./cmd/$tool"
	mv -f "$bin/$tool.tmp" "$bin/$tool"
	cp "man/$tool.1" "$man1/$tool.1"
	chmod 644 "$man1/$tool.1"
	"$bin/$tool" completion bash >"$bashc/$tool"
	"$bin/$tool" completion zsh >"$zshc/_$tool"
	"$bin/$tool" completion fish >"$fishc/$tool.fish"
	cp "$fishc/$tool.fish" "$fishconf/$tool.fish"
done

echo "Installed git-nudge and git-autodev $version into $bin"
echo "Man pages: $man1 (git nudge --help opens them)"
case ":$PATH:" in
*":$bin:"*) ;;
*) echo "Note: $bin is not on your PATH. Add it, for example:"
   echo "  export PATH=\"$bin:\$PATH\"" ;;
esac
case "$PREFIX" in
/usr|/usr/local) ;;
*) echo "Completions: for zsh, put this line in ~/.zshrc, before compinit:"
   echo "  fpath=(\"$zshc\" \$fpath)" ;;
esac
case ":${MANPATH:-}:" in
*":$PREFIX/share/man:"*|"::") ;;
*) echo "Note: MANPATH is set and lacks $PREFIX/share/man; add it so that git nudge --help finds the page." ;;
esac
