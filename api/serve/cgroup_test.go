package serve

import (
	"io/fs"
	"testing"

	"github.com/stretchr/testify/assert"
)

func files(m map[string]string) func(string) ([]byte, error) {
	return func(p string) ([]byte, error) {
		if v, ok := m[p]; ok {
			return []byte(v), nil
		}
		return nil, fs.ErrNotExist
	}
}

// The budget reads the process's own cgroup, not the root of the
// hierarchy: the server in a 4 GiB group chose 6.3 GB from the
// root's (here: unlimited root, 4 GiB group, 8 GiB parent).
func TestOwnCgroupLimitV1(t *testing.T) {
	mountinfo := "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n36 31 0:33 / /sys/fs/cgroup/cpu rw - cgroup cgroup rw,cpu\n"
	cg := "4:memory:/process_api/abc\n1:cpu:/\n"
	read := files(map[string]string{
		"/sys/fs/cgroup/memory/memory.limit_in_bytes":                 "9223372036854771712\n",
		"/sys/fs/cgroup/memory/process_api/memory.limit_in_bytes":     "8589934592\n",
		"/sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes": "4294967296\n",
	})
	assert.Equal(t, int64(4<<30), ownCgroupLimit(cg, mountinfo, read))
	// Unlimited everywhere: none.
	assert.Equal(t, int64(0), ownCgroupLimit(cg, mountinfo, files(map[string]string{
		"/sys/fs/cgroup/memory/process_api/abc/memory.limit_in_bytes": "9223372036854771712\n"})))
}

// In a container the mount's root is the container's own group: its
// limit is read at the mount point.
func TestOwnCgroupLimitV2InAContainer(t *testing.T) {
	mountinfo := "30 23 0:26 /kubepods/pod1 /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw\n"
	cg := "0::/kubepods/pod1/worker\n"
	read := files(map[string]string{
		"/sys/fs/cgroup/memory.max":        "2147483648\n",
		"/sys/fs/cgroup/worker/memory.max": "max\n",
	})
	assert.Equal(t, int64(2<<30), ownCgroupLimit(cg, mountinfo, read))
	// The root's limit is not the process's: a group of its own below.
	read = files(map[string]string{
		"/sys/fs/cgroup/memory.max":        "max\n",
		"/sys/fs/cgroup/worker/memory.max": "1073741824\n",
	})
	assert.Equal(t, int64(1<<30), ownCgroupLimit(cg, mountinfo, read))
	assert.Equal(t, int64(0), ownCgroupLimit("garbage", "garbage", read))
}
