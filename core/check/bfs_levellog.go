package check

import "encoding/binary"

// levelLog is the states found at one depth: entry i was reached from
// entry parent[i] of the level above by the step whose choices are
// choices[off[i]:off[i+1]] (uvarints).
type levelLog struct {
	parent  []uint32
	off     []uint32
	choices []byte
}

func (l *levelLog) len() int { return len(l.parent) }

func (l *levelLog) add(parent uint32, choices []int) {
	if len(l.off) == 0 {
		l.off = append(l.off, 0)
	}
	l.parent = append(l.parent, parent)
	for _, c := range choices {
		l.choices = binary.AppendUvarint(l.choices, uint64(c))
	}
	l.off = append(l.off, uint32(len(l.choices)))
}

// addRaw records an entry whose choices are already encoded.
func (l *levelLog) addRaw(parent uint32, choices []byte) {
	if len(l.off) == 0 {
		l.off = append(l.off, 0)
	}
	l.parent = append(l.parent, parent)
	l.choices = append(l.choices, choices...)
	l.off = append(l.off, uint32(len(l.choices)))
}

func (l *levelLog) stepChoices(i uint32, out []int) []int {
	b := l.choices[l.off[i]:l.off[i+1]]
	for len(b) > 0 {
		v, n := binary.Uvarint(b)
		out = append(out, int(v))
		b = b[n:]
	}
	return out
}
