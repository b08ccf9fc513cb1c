package serve

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// defaultBudgetShare is the share of the machine's memory (or of the
// cgroup's limit, when lower) the server budgets by default.
const defaultBudgetShare = 4

// How the budget is split: work reserves up to workShare of it from
// estimates made before it starts; the watchdog stops the largest search
// when the Go heap passes heapShare; the garbage collector is told to
// keep the whole process under gcShare (GOMEMLIMIT). The rest is the
// runtime's and the HTTP server's.
const (
	workShare = 0.60
	heapShare = 0.75
	gcShare   = 0.80
)

// parseBytes reads a size: a number of bytes, or one with a unit (KiB,
// MiB, GiB, TiB, or K, M, G, T taken as binary; KB, MB, GB, TB decimal).
func parseBytes(s string) (int64, error) {
	s = strings.TrimSpace(s)
	i := strings.IndexFunc(s, func(r rune) bool { return (r < '0' || r > '9') && r != '.' })
	num, unit := s, ""
	if i >= 0 {
		num, unit = s[:i], strings.TrimSpace(s[i:])
	}
	v, err := strconv.ParseFloat(num, 64)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("%q is not a size (e.g. 4GiB, 512MiB, 1073741824)", s)
	}
	mult := map[string]float64{"": 1, "B": 1,
		"K": 1 << 10, "KiB": 1 << 10, "M": 1 << 20, "MiB": 1 << 20, "G": 1 << 30, "GiB": 1 << 30, "T": 1 << 40, "TiB": 1 << 40,
		"KB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12}
	m, ok := mult[unit]
	if !ok {
		return 0, fmt.Errorf("%q: unknown unit %q (KiB, MiB, GiB, TiB, KB, MB, GB, TB)", s, unit)
	}
	return int64(v * m), nil
}

// machineMemory is the memory this process may use: the machine's, or
// its own cgroup's limit when that is lower; 0 when neither can be read.
func machineMemory() int64 {
	total := int64(0)
	if f, err := os.Open("/proc/meminfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:"); ok {
				if kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64); err == nil {
					total = kb << 10
				}
			}
		}
		_ = f.Close()
	}
	if lim := cgroupMemoryLimit(); lim > 0 && (total == 0 || lim < total) {
		total = lim
	}
	return total
}

// memoryBudget is the -memory-budget flag's value, or the default share
// of the machine's memory (1 GiB when it cannot be read).
func memoryBudget(flagValue string) (int64, error) {
	if flagValue != "" {
		return parseBytes(flagValue)
	}
	if m := machineMemory(); m > 0 {
		return m / defaultBudgetShare, nil
	}
	return 1 << 30, nil
}
