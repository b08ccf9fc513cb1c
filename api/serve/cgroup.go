package serve

import (
	"os"
	"path"
	"strconv"
	"strings"
)

// cgroupMemoryLimit is the memory limit of this process's own cgroup
// (the lowest limit on its path, v2 memory.max or v1
// memory.limit_in_bytes), 0 when there is none or it cannot be read.
// The process's cgroup is the one /proc/self/cgroup names, found under
// the mount /proc/self/mountinfo shows for its hierarchy: not the root
// of /sys/fs/cgroup, which in a container or a systemd slice is some
// other group's.
func cgroupMemoryLimit() int64 {
	cg, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return 0
	}
	mi, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return 0
	}
	return ownCgroupLimit(string(cg), string(mi), os.ReadFile)
}

// cgroupMount is a mounted cgroup hierarchy: the cgroup path it shows
// (root) at mountpoint.
type cgroupMount struct{ root, point string }

// ownCgroupLimit reads the limits of the cgroup in cgroupFile (the text
// of /proc/self/cgroup) through the mounts of mountinfo; read reads a
// file. A v2 limit wins over v1 when both are there.
func ownCgroupLimit(cgroupFile, mountinfo string, read func(string) ([]byte, error)) int64 {
	var v1, v2 cgroupMount
	var haveV1, haveV2 bool
	for _, line := range strings.Split(mountinfo, "\n") {
		// id parent major:minor root mountpoint options ... - fstype source superoptions
		pre, post, ok := strings.Cut(line, " - ")
		f, g := strings.Fields(pre), strings.Fields(post)
		if !ok || len(f) < 5 || len(g) < 1 {
			continue
		}
		switch {
		case g[0] == "cgroup2":
			v2, haveV2 = cgroupMount{root: f[3], point: f[4]}, true
		case g[0] == "cgroup" && len(g) >= 3 && hasOption(g[2], "memory"):
			v1, haveV1 = cgroupMount{root: f[3], point: f[4]}, true
		}
	}
	var limit int64
	for _, line := range strings.Split(cgroupFile, "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		switch {
		case parts[0] == "0" && parts[1] == "" && haveV2:
			if l := lowestLimit(v2, parts[2], "memory.max", read); l > 0 {
				return l
			}
		case hasOption(parts[1], "memory") && haveV1:
			limit = lowestLimit(v1, parts[2], "memory.limit_in_bytes", read)
		}
	}
	return limit
}

func hasOption(list, opt string) bool {
	for _, o := range strings.Split(list, ",") {
		if o == opt {
			return true
		}
	}
	return false
}

// v1's "no limit" is a page-rounded MaxInt64; anything from 2^60 up is none.
const noLimit = int64(1) << 60

// lowestLimit walks from the process's cgroup up to the mount's root and
// returns the lowest limit set on the way (0: none).
func lowestLimit(m cgroupMount, cgPath, file string, read func(string) ([]byte, error)) int64 {
	rel, ok := strings.CutPrefix(cgPath, m.root)
	if !ok {
		return 0 // the process's cgroup is outside what is mounted here
	}
	var lowest int64
	for dir := path.Join(m.point, rel); ; dir = path.Dir(dir) {
		if b, err := read(path.Join(dir, file)); err == nil {
			if v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && v > 0 && v < noLimit && (lowest == 0 || v < lowest) {
				lowest = v
			}
		}
		if dir == m.point || dir == "/" || dir == "." {
			return lowest
		}
	}
}
