package agenthooks

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Turn is what a hook payload says about the agent's turn.
type Turn struct {
	Event   string // hook_event_name (Claude Code, Gemini CLI, Cursor) or type (Codex notify)
	Prompt  string // the turn's first prompt
	Summary string // the agent's last message
	Cwd     string // the directory the agent worked in, when it says
	// Session is the agent's session (conversation, thread) id, and
	// Transcript the file it keeps the conversation in, when it says.
	Session    string
	Transcript string
	// agentHint is what in the payload tells the agents apart.
	agentHint string
	// Garbage is set when a payload was given but is not a JSON object.
	Garbage bool
}

// MaxLabel is the longest label a hook gives a checkpoint, in characters.
const MaxLabel = 100

// ParsePayload reads any agent's hook payload. Unknown fields are ignored;
// a payload that is not a JSON object gives an empty Turn with Garbage
// set (an empty payload is not garbage, just nothing).
func ParsePayload(data []byte) Turn {
	data = bytes.TrimSpace(data)
	if len(data) == 0 {
		return Turn{}
	}
	var m map[string]any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&m); err != nil || m == nil {
		return Turn{Garbage: true}
	}
	t := Turn{}
	t.Event = firstText(m, "hook_event_name", "type", "event")
	t.Prompt = firstText(m, "prompt", "input-messages", "input_messages", "user_prompt")
	t.Summary = firstText(m, "last_assistant_message", "last-assistant-message", "prompt_response", "text", "summary")
	t.Cwd = firstText(m, "cwd")
	t.Session = firstText(m, "session_id", "sessionId", "conversation_id", "thread-id", "thread_id")
	t.Transcript = firstText(m, "transcript_path", "transcriptPath")
	switch {
	case m["conversation_id"] != nil:
		t.agentHint = "cursor"
	case m["turn_id"] != nil || m["turn-id"] != nil || m["thread-id"] != nil:
		t.agentHint = "codex"
	}
	return t
}

func firstText(m map[string]any, keys ...string) string {
	for _, k := range keys {
		if s := textOf(m[k], 0); strings.TrimSpace(s) != "" {
			return s
		}
	}
	return ""
}

// textOf is the text of a string, of the first element of a list that has
// some, or of an object's "text" or "content".
func textOf(v any, depth int) string {
	if depth > 8 {
		return ""
	}
	switch v := v.(type) {
	case string:
		return v
	case []any:
		for _, e := range v {
			if s := textOf(e, depth+1); strings.TrimSpace(s) != "" {
				return s
			}
		}
	case map[string]any:
		for _, k := range []string{"text", "content"} {
			if s := textOf(v[k], depth+1); strings.TrimSpace(s) != "" {
				return s
			}
		}
	}
	return ""
}

// Label is the post a hook checkpoint is labelled with: the first line of
// the turn's prompt, else of the agent's last message, else the event
// name; markdown heading and list marks and control characters taken
// out, cut at MaxLabel characters.
func (t Turn) Label(event string) string {
	for _, s := range []string{t.Prompt, t.Summary} {
		if l := cleanLine(s); l != "" {
			return l
		}
	}
	if l := cleanLine(event); l != "" {
		return l
	}
	if l := cleanLine(t.Event); l != "" {
		return l
	}
	return "agent hook"
}

func cleanLine(s string) string {
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	for _, l := range strings.Split(s, "\n") {
		l = strings.Map(func(r rune) rune {
			if r == '\t' {
				return ' '
			}
			if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
				return -1
			}
			return r
		}, l)
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#>*-+ "))
		if l == "" {
			continue
		}
		l = strings.Join(strings.Fields(l), " ")
		if r := []rune(l); len(r) > MaxLabel {
			l = strings.TrimSpace(string(r[:MaxLabel-1])) + "…"
		}
		return l
	}
	return ""
}
