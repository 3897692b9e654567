package autodev

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

func benchJournal(n int, unknown bool) []byte {
	var sb strings.Builder
	sb.WriteString("[\n")
	now := time.Now().UTC()
	extra := ""
	if unknown {
		extra = `,"future":{"x":[1,2,"three"]}`
	}
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, `  {"id":"c%d","commit":"%s","label":%q,"type":"task","time":"%s","task":null,"mode":null%s}`,
			i, strings.Repeat("ab", 20), fmt.Sprintf("thread — step %d", i), now.Format(time.RFC3339), extra)
		if i < n {
			sb.WriteString(",")
		}
		sb.WriteString("\n")
	}
	sb.WriteString("]\n")
	return []byte(sb.String())
}

func BenchmarkDecodeEntries(b *testing.B) {
	for _, unknown := range []bool{false, true} {
		data := benchJournal(10000, unknown)
		b.Run(fmt.Sprint("unknown=", unknown), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if _, err := decodeEntries("x", data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
