package agenthooks

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Install then uninstall gives back every document byte for byte (an
// empty list or object the user had where install would have created one
// cannot be told from one install created, and goes with the hook), a second
// install changes nothing, and the result is valid JSON holding the hook.
func TestInstallUninstallRoundTrip(t *testing.T) {
	docs := []string{
		`{}`,
		"{}\n",
		`{"a":1}`,
		"{\n  \"a\": [1, 2, {\"b\": null}],\n  \"c\": \"\\u00e9\\n\"\n}\n",
		"{\n\t\"hooks\": {\n\t\t\"Other\": []\n\t}\n}",
		"{\r\n  \"x\": true\r\n}\r\n",
		`{ "hooks" : { "Stop" : [ { "hooks" : [ { "type" : "command", "command" : "a" } ] } ] } }`,
		"{\n  \"hooks\": {\n    \"Stop\": [\n      {\n        \"hooks\": [{\"type\": \"command\", \"command\": \"x\"}]\n      }\n    ]\n  },\n  \"z\": 0\n}",
		"{\n  \"hooks\": {},\n  \"n\": -0.5e-3\n}",
		"{\n  \"hooks\": { \"stop\": [ {\"command\": \"x\"} ] }, \"version\": 1\n}",
	}
	for _, a := range Agents {
		if a.File == "" {
			continue
		}
		for _, doc := range docs {
			out, ch, err := a.Install(doc)
			if err != nil {
				t.Fatalf("%s: install %q: %v", a.Name, doc, err)
			}
			if !ch.Changed {
				t.Fatalf("%s: install %q changed nothing", a.Name, doc)
			}
			var v map[string]any
			if err := json.Unmarshal([]byte(out), &v); err != nil {
				t.Fatalf("%s: install %q gave invalid JSON %q: %v", a.Name, doc, out, err)
			}
			if !strings.Contains(out, `"`+a.Command()+`"`) {
				t.Fatalf("%s: install %q: no hook in %q", a.Name, doc, out)
			}
			again, ch2, err := a.Install(out)
			if err != nil || ch2.Changed || again != out {
				t.Fatalf("%s: second install of %q changed it: %v %q", a.Name, doc, err, again)
			}
			back, ch3, err := a.Uninstall(out)
			if err != nil || !ch3.Changed {
				t.Fatalf("%s: uninstall of %q: %v", a.Name, out, err)
			}
			if back != doc {
				t.Errorf("%s: round trip of %q gave %q (via %q)", a.Name, doc, back, out)
			}
			// "{}\n" is also what uninstall leaves of a file install
			// created: the two cannot be told apart, and an empty
			// settings file holds nothing to lose.
			if ch3.Removed && doc != "{}\n" {
				t.Errorf("%s: uninstall would remove a file install did not create: %q", a.Name, doc)
			}
		}
	}
}

// A missing file is created with the hook only; uninstall says it can go.
func TestInstallCreatesAndUninstallRemoves(t *testing.T) {
	for _, a := range Agents {
		if a.File == "" {
			continue
		}
		out, ch, err := a.Install("")
		if err != nil || !ch.Created || !strings.HasSuffix(out, "\n") {
			t.Fatalf("%s: %v %+v %q", a.Name, err, ch, out)
		}
		_, ch, err = a.Uninstall(out)
		if err != nil || !ch.Removed {
			t.Fatalf("%s: uninstall of a created file: %v %+v", a.Name, err, ch)
		}
	}
}

// Anything that is not JSON, or not of the documented shape, is refused.
func TestInstallRefuses(t *testing.T) {
	claude, _ := Find("claude")
	gemini, _ := Find("gemini")
	for _, doc := range []string{
		`{`, `{"a":}`, `{"a":1,}`, `[1]`, `"x"`, `{"a":1} x`, `{"a":01}`, `{"a":"\x"}`,
		"{\"a\":\"tab\there\"}", `{// c
}`, `{"hooks": []}`, `{"hooks": {"Stop": {}}}`, strings.Repeat("[", 1000),
	} {
		if _, _, err := claude.Install(doc); err == nil {
			t.Errorf("install accepted %q", doc)
		}
	}
	if _, _, err := gemini.Install("{\n  // comment\n  \"a\": 1 /* x */\n}"); err != nil {
		t.Errorf("gemini refused comments: %v", err)
	}
}

// Uninstall keeps hooks of other programs and removes every copy of ours.
func TestUninstallKeepsOthers(t *testing.T) {
	claude, _ := Find("claude")
	cmd := claude.Command()
	doc := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say"},{"type":"command","command":"` + cmd + `"}]},{"hooks":[{"type":"command","command":"` + cmd + `"}]}]}}`
	out, ch, err := claude.Uninstall(doc)
	if err != nil || !ch.Changed {
		t.Fatal(err)
	}
	if want := `{"hooks":{"Stop":[{"hooks":[{"type":"command","command":"say"}]}]}}`; out != want {
		t.Fatalf("got %s, want %s", out, want)
	}
}

func TestParsePayloadSamples(t *testing.T) {
	cases := map[string]struct{ event, label string }{
		"claude-stop.json":               {"Stop", "I fixed the parser so that empty input returns an empty list."},
		"claude-userpromptsubmit.json":   {"UserPromptSubmit", "Make the lexer accept tabs"},
		"codex-agent-turn-complete.json": {"agent-turn-complete", "Rename `foo` to `bar` and update the callsites."},
		"gemini-afteragent.json":         {"AfterAgent", "Add a --verbose flag to the CLI"},
		"cursor-stop.json":               {"stop", "stop"},
	}
	for name, want := range cases {
		b, err := os.ReadFile(filepath.Join("..", "..", "tests", "testdata", "hooks", name))
		if err != nil {
			t.Fatal(err)
		}
		turn := ParsePayload(b)
		if turn.Garbage || turn.Event != want.event || turn.Label("") != want.label {
			t.Errorf("%s: got %+v label %q", name, turn, turn.Label(""))
		}
	}
	if turn := ParsePayload([]byte("nope")); !turn.Garbage || turn.Label("Stop") != "Stop" {
		t.Errorf("garbage: %+v", turn)
	}
	if turn := ParsePayload(nil); turn.Garbage || turn.Label("") != "agent hook" {
		t.Errorf("empty: %+v", turn)
	}
}

// Each recorded payload gives its session, the agent that sent it and
// that agent's resume command.
func TestSessionSamples(t *testing.T) {
	cases := map[string]string{
		"claude-stop.json":               "claude --resume eb5b0174-0555-4601-804e-672d68069c89",
		"codex-agent-turn-complete.json": "codex resume 019a1b2c-3d4e-7f60-8a9b-0c1d2e3f4a5b",
		"gemini-afteragent.json":         "gemini --resume 5f0b6d2e-8c1a-4e57-9a43-2b7d9c0e1f36",
		"cursor-stop.json":               "agent --resume cdefee2d-2727-4b73-bf77-d9d830f31d2a",
	}
	for name, want := range cases {
		b, err := os.ReadFile(filepath.Join("..", "..", "tests", "testdata", "hooks", name))
		if err != nil {
			t.Fatal(err)
		}
		s := SessionOf(ParsePayload(b), "", "")
		if s == nil || s.Resume() != want {
			t.Errorf("%s: got %+v", name, s)
		}
	}
	if s := SessionOf(ParsePayload([]byte(`{"session_id":"x y'z","hook_event_name":"Stop"}`)), "codex", ""); s == nil || s.Resume() != `codex resume 'x y'\''z'` {
		t.Errorf("quoted: %+v", s)
	}
	if s := SessionOf(ParsePayload([]byte(`{"hook_event_name":"Stop"}`)), "", ""); s != nil {
		t.Errorf("no session: %+v", s)
	}
}
