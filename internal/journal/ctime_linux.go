package journal

import "syscall"

// ChangeTime is st's change time in nanoseconds (syscall names the field
// differently on each system).
func ChangeTime(st *syscall.Stat_t) int64 { return st.Ctim.Nano() }
