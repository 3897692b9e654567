package nudge

// ShortIDLen is how many hex digits of an object id git-nudge prints
// (git-autodev prints autodev.ShortLen: see docs/DECISIONS.md,
// 2026-12-01, short ids).
const ShortIDLen = 12

// ShortID abbreviates an object id for git-nudge's text output.
func ShortID(id string) string {
	if len(id) > ShortIDLen {
		return id[:ShortIDLen]
	}
	return id
}
