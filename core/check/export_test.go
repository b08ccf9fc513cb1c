package check

// SetSignaturePruning turns the signature pruning of symmetric state
// hashing on or off and returns a function that restores it.
func SetSignaturePruning(on bool) (restore func()) {
	old := pruneSignatures
	pruneSignatures = on
	return func() { pruneSignatures = old }
}
