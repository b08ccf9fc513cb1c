package vitess

// Mutant is the access declarations with one declaration removed: what
// one goroutine's step at one program counter reads and writes.
type Mutant struct {
	Name string
	kind string
	pc   int
}

// Mutants are declarations of steps that touch shared state outside the
// mutex of their kernel action, so that another goroutine's step
// enabled at the same time depends on them through the model's
// variables alone.
var Mutants = []Mutant{
	{"a row event (reads isOpen and streaming, moves the vstream)", "vstream", rEvent},
	{"Close closes (isOpen, receivers, cache, fixed: stopVStream)", "close", kClose},
	{"the last unsubscribe (fixed: stopVStream, cache.Clear)", "client", cUnsubRemove},
	{"Subscribe checks isOpen and adds the receiver", "client", cSubCheck},
}

// Apply removes the declaration and returns the function that puts it
// back. Tests that apply a mutant must not run in parallel.
func (mu Mutant) Apply() (restore func()) {
	tab := map[string]map[int]access{"client": declared.client, "poller": declared.poller, "vstream": declared.vstream, "close": declared.close}[mu.kind]
	old, had := tab[mu.pc]
	delete(tab, mu.pc)
	return func() {
		if had {
			tab[mu.pc] = old
		} else {
			delete(tab, mu.pc)
		}
	}
}
