package sim

import "strconv"

// StepDef is one program-counter step of a thread of model M, declared once:
// what it does and how it reads.
type StepDef[M any] struct {
	// Do runs the step: its effects on the model, the thread's next PC,
	// and the Action the kernel carries out.
	Do func(m M, w *World, p *Proc) Action
	// Says is what the step does, pending, in the model's words, after
	// the thread's name ("takes mu").
	Says string
	// Describe, when set, replaces "who Says" for a step whose
	// description depends on the state.
	Describe func(m M, w *World, p *Proc, who string) string
	// In names the function the thread is in while this step is its next
	// one ("unsubscribe → stopVStream"), for views and reports.
	In string
}

// Program is the steps of one kind of thread, indexed by program counter.
// Declare it with keyed elements, Program[M]{pcLock: {...}, ...} (a slice of StepDef[M]): each
// step sits next to its constant, a constant declared twice does not
// compile, and inserting a constant shifts nothing.
type Program[M any] []StepDef[M]

// Run runs p's next step. A PC with no step is a model error.
func (pg Program[M]) Run(m M, w *World, p *Proc) Action {
	if p.PC < 0 || p.PC >= len(pg) || pg[p.PC].Do == nil {
		w.Failf("%s has no step at pc %d", p.Name, p.PC)
		return Exit("no step at pc " + strconv.Itoa(p.PC))
	}
	return pg[p.PC].Do(m, w, p)
}

// Describe says what p's next step would do; who names the thread.
func (pg Program[M]) Describe(m M, w *World, p *Proc, who string) string {
	if p.PC < 0 || p.PC >= len(pg) {
		return who + " is at pc " + strconv.Itoa(p.PC)
	}
	if s := &pg[p.PC]; s.Describe != nil {
		return s.Describe(m, w, p, who)
	}
	return who + " " + pg[p.PC].Says
}

// In is the function a thread at pc is in ("" when not declared).
func (pg Program[M]) In(pc int) string {
	if pc < 0 || pc >= len(pg) {
		return ""
	}
	return pg[pc].In
}

// Missing lists the program counters below len(pg) whose step has no Do
// or no description: a table with a hole (a test asserts it is empty).
func (pg Program[M]) Missing() []int {
	var out []int
	for pc := range pg {
		if s := &pg[pc]; s.Do == nil || (s.Says == "" && s.Describe == nil) {
			out = append(out, pc)
		}
	}
	return out
}
