package agenthooks

import (
	"path/filepath"
	"strings"

	"github.com/nudgethis/git-nudge/internal/shquote"
)

// Session is the agent conversation a hook checkpoint was made in: kept
// with the checkpoint so that restore can say how to take the
// conversation back to the same turn.
type Session struct {
	Agent      string `json:"agent,omitempty"` // "claude", "codex", "gemini", "cursor"; "" when unknown
	ID         string `json:"session"`
	Transcript string `json:"transcript,omitempty"`
}

// SessionOf is the session a turn's payload names (nil when it names
// none). agent is the --agent the hook was given ("" to tell from the
// payload and the event).
func SessionOf(t Turn, agent, event string) *Session {
	id := cleanLine(t.Session)
	if id == "" {
		return nil
	}
	if agent == "" {
		agent = GuessAgent(t, event)
	}
	return &Session{Agent: agent, ID: id, Transcript: strings.TrimSpace(t.Transcript)}
}

// GuessAgent tells which agent sent a payload, from the event's name
// and the fields only one agent sends ("" when nothing tells).
func GuessAgent(t Turn, event string) string {
	if t.agentHint != "" {
		return t.agentHint
	}
	tr := filepath.ToSlash(t.Transcript)
	switch {
	case strings.Contains(tr, "/.codex/"):
		return "codex"
	case strings.Contains(tr, "/.gemini/"):
		return "gemini"
	case strings.Contains(tr, "/.claude/"):
		return "claude"
	}
	for _, e := range []string{t.Event, event} {
		switch e {
		case "agent-turn-complete":
			return "codex"
		case "AfterAgent":
			return "gemini"
		case "stop":
			return "cursor"
		case "Stop":
			return "claude"
		}
	}
	return ""
}

// Resume is the command that reopens the conversation in its agent (at
// its latest turn: the agents resume a session, then the user rewinds it
// there, e.g. Claude Code's /rewind or Esc Esc), or "" for an unknown
// agent.
func (s Session) Resume() string {
	id := shquote.Word(s.ID)
	switch s.Agent {
	case "claude":
		return "claude --resume " + id
	case "codex":
		return "codex resume " + id
	case "gemini":
		return "gemini --resume " + id
	case "cursor":
		return "agent --resume " + id
	}
	return ""
}
