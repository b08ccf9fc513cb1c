package check

// sleepArena holds a sleep set per entry, and which entries are states
// expanded again for some processes only (node.only).
type sleepArena struct {
	off  []uint32
	sets []footprint
	only []uint64 // by entry, up to the last one set
}

func (a *sleepArena) add(sleep []footprint) {
	if len(a.off) == 0 {
		a.off = append(a.off, 0)
	}
	a.sets = append(a.sets, sleep...)
	a.off = append(a.off, uint32(len(a.sets)))
}

// addMasked adds sleep restricted to the processes in mask.
func (a *sleepArena) addMasked(sleep []footprint, mask uint64) {
	if len(a.off) == 0 {
		a.off = append(a.off, 0)
	}
	a.sets = appendMasked(a.sets, sleep, mask)
	a.off = append(a.off, uint32(len(a.sets)))
}

// setOnly says entry i (the last added) is expanded for the processes
// in only (not 0).
func (a *sleepArena) setOnly(i int, only uint64) {
	for len(a.only) <= i {
		a.only = append(a.only, 0)
	}
	a.only[i] = only
}

// onlyOf is entry i's node.only.
func (a *sleepArena) onlyOf(i int) uint64 {
	if i < len(a.only) {
		return a.only[i]
	}
	return 0
}

func (a *sleepArena) get(i int) []footprint {
	if len(a.off) == 0 {
		return nil
	}
	return a.sets[a.off[i]:a.off[i+1]:a.off[i+1]]
}

// appendMasked appends to dst the footprints of sleep whose processes
// are in mask.
func appendMasked(dst, sleep []footprint, mask uint64) []footprint {
	for _, z := range sleep {
		if mask&(1<<uint(z.proc)) != 0 {
			dst = append(dst, z)
		}
	}
	return dst
}
